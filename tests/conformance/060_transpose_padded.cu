// 060_transpose_padded: matrix transpose through a 32x33 shared-memory tile (one column of padding
// against bank conflicts), 32x8 thread blocks each moving a 32x32 tile, on a non-square matrix whose
// sizes are not multiples of 32, checked element by element.
#include "conformance.h"

constexpr int TILE = 32, ROWS = 8;
constexpr int W = 75, H = 50;  // input is H rows x W columns

__global__ void transpose(const int* in, int* out, int w, int h) {
    __shared__ int tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;  // transposed block offset
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static int in[W * H], out[W * H];
    for (int i = 0; i < W * H; ++i) in[i] = i * 3 + 1;
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof in));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, sizeof out));
    dim3 block(TILE, ROWS), grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE);
    transpose<<<grid, block>>>(din, dout, W, H);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int r = 0; r < W; ++r)      // output has W rows and H columns
        for (int c = 0; c < H; ++c) t.eq("out", r * H + c, in[c * W + r], out[r * H + c]);
    return t.finish();
}
