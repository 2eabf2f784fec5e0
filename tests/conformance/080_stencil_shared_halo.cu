// 080_stencil_shared_halo: two image stencils over several iterations with ping-ponged buffers, each
// block staging a 16x16 tile plus a one-pixel halo in shared memory from const __restrict__ inputs
// read through __ldg: an integer 3x3 binomial blur with clamped borders, and a float 5-point Jacobi
// step with fixed borders (adds in a fixed order, then an exact * 0.25f), both bit-exact.
#include "conformance.h"

constexpr int TX = 16, TY = 16;
constexpr int W = 48, H = 40;  // H is not a multiple of TY: partial tiles at the bottom
constexpr int ITERS = 4;

__device__ __host__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// out = (1 2 1 / 2 4 2 / 1 2 1) * in / 16, with the image's border pixels repeated outside it.
__global__ void blur(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
    __shared__ unsigned tile[TY + 2][TX + 2];
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    // Fill the (TY+2) x (TX+2) tile cooperatively, halo included.
    for (int i = threadIdx.y * TX + threadIdx.x; i < (TY + 2) * (TX + 2); i += TX * TY) {
        const int ty = i / (TX + 2), tx = i % (TX + 2);
        const int gx = clampi(x0 + tx - 1, 0, W - 1), gy = clampi(y0 + ty - 1, 0, H - 1);
        tile[ty][tx] = __ldg(&in[gy * W + gx]);
    }
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= W || y >= H) return;
    const int sx = threadIdx.x + 1, sy = threadIdx.y + 1;
    const unsigned s = tile[sy - 1][sx - 1] + 2u * tile[sy - 1][sx] + tile[sy - 1][sx + 1] +
                       2u * tile[sy][sx - 1] + 4u * tile[sy][sx] + 2u * tile[sy][sx + 1] +
                       tile[sy + 1][sx - 1] + 2u * tile[sy + 1][sx] + tile[sy + 1][sx + 1];
    out[y * W + x] = s >> 4;
}

// Jacobi step: interior u' = (left + right + up + down) * 0.25; border pixels are copied.
__global__ void jacobi(const float* __restrict__ in, float* __restrict__ out) {
    __shared__ float tile[TY + 2][TX + 2];
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    for (int i = threadIdx.y * TX + threadIdx.x; i < (TY + 2) * (TX + 2); i += TX * TY) {
        const int ty = i / (TX + 2), tx = i % (TX + 2);
        const int gx = x0 + tx - 1, gy = y0 + ty - 1;
        tile[ty][tx] = (gx >= 0 && gx < W && gy >= 0 && gy < H) ? __ldg(&in[gy * W + gx]) : 0.0f;
    }
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= W || y >= H) return;
    const int sx = threadIdx.x + 1, sy = threadIdx.y + 1;
    float r;
    if (x == 0 || y == 0 || x == W - 1 || y == H - 1) {
        r = tile[sy][sx];
    } else {
        const float a = __fadd_rn(tile[sy][sx - 1], tile[sy][sx + 1]);
        const float b = __fadd_rn(a, tile[sy - 1][sx]);
        const float d = __fadd_rn(b, tile[sy + 1][sx]);
        r = __fmul_rn(d, 0.25f);
    }
    out[y * W + x] = r;
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    conf::Rng rng(80);
    static unsigned img[W * H], ref_u[2][W * H], got_u[W * H];
    static float fimg[W * H], ref_f[2][W * H], got_f[W * H];
    for (int i = 0; i < W * H; ++i) img[i] = rng.next_u32() & 0xffffu;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const bool border = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            fimg[y * W + x] = border ? rng.next_float(50.0f, 100.0f) : rng.next_float(-1.0f, 1.0f);
        }

    unsigned* du[2];
    float* df[2];
    for (int k = 0; k < 2; ++k) {
        CHECK(cudaMalloc(&du[k], sizeof img));
        CHECK(cudaMalloc(&df[k], sizeof fimg));
    }
    CHECK(cudaMemcpy(du[0], img, sizeof img, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(df[0], fimg, sizeof fimg, cudaMemcpyHostToDevice));
    const dim3 block(TX, TY), grid((W + TX - 1) / TX, (H + TY - 1) / TY);
    for (int it = 0; it < ITERS; ++it) {
        blur<<<grid, block>>>(du[it & 1], du[(it + 1) & 1]);
        CHECK(cudaGetLastError());
        jacobi<<<grid, block>>>(df[it & 1], df[(it + 1) & 1]);
        CHECK(cudaGetLastError());
    }
    CHECK_KERNEL();
    CHECK(cudaMemcpy(got_u, du[ITERS & 1], sizeof got_u, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_f, df[ITERS & 1], sizeof got_f, cudaMemcpyDeviceToHost));

    // Host reference, the same operations in the same order.
    std::memcpy(ref_u[0], img, sizeof img);
    std::memcpy(ref_f[0], fimg, sizeof fimg);
    for (int it = 0; it < ITERS; ++it) {
        const unsigned* a = ref_u[it & 1];
        unsigned* b = ref_u[(it + 1) & 1];
        const float* fa = ref_f[it & 1];
        float* fb = ref_f[(it + 1) & 1];
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x) {
                auto at = [&](int dx, int dy) { return a[clampi(y + dy, 0, H - 1) * W + clampi(x + dx, 0, W - 1)]; };
                const unsigned s = at(-1, -1) + 2u * at(0, -1) + at(1, -1) + 2u * at(-1, 0) + 4u * at(0, 0) +
                                   2u * at(1, 0) + at(-1, 1) + 2u * at(0, 1) + at(1, 1);
                b[y * W + x] = s >> 4;
                if (x == 0 || y == 0 || x == W - 1 || y == H - 1) {
                    fb[y * W + x] = fa[y * W + x];
                } else {
                    float t = fa[y * W + x - 1] + fa[y * W + x + 1];
                    t = t + fa[(y - 1) * W + x];
                    t = t + fa[(y + 1) * W + x];
                    fb[y * W + x] = t * 0.25f;
                }
            }
    }
    for (int i = 0; i < W * H; ++i) c.eq("blur", i, ref_u[ITERS & 1][i], got_u[i]);
    for (int i = 0; i < W * H; ++i) c.eq("jacobi", i, ref_f[ITERS & 1][i], got_f[i]);
    for (int k = 0; k < 2; ++k) {
        cudaFree(du[k]);
        cudaFree(df[k]);
    }
    return c.finish();
}
