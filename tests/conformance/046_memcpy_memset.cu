// 046_memcpy_memset: cudaMemset (whole buffers, byte patterns, sub-ranges at odd offsets),
// cudaMemsetAsync, cudaMemcpy HostToDevice/DeviceToHost/DeviceToDevice and cudaMemcpyDefault in every
// direction (including pinned host memory), cudaMallocPitch + cudaMemcpy2D, with a kernel reading the
// copied and memset data on the device.
#include "conformance.h"

constexpr int N = 1000;
constexpr int W = 37, H = 11;  // a 2-D array of ints, rows padded by cudaMallocPitch

__global__ void checksum(const unsigned char* bytes, int n, unsigned long long* out) {
    // every thread sums a strided subset; combine with an atomic (order-independent)
    unsigned long long s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += (unsigned long long)bytes[i] * (unsigned)(i % 13 + 1);
    atomicAdd(out, s);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static int host[N], back[N];
    for (int k = 0; k < N; ++k) host[k] = k * 7 - 300;
    int *a, *b;
    CHECK(cudaMalloc(&a, sizeof(int) * N));
    CHECK(cudaMalloc(&b, sizeof(int) * N));

    // memset: 0xAB bytes everywhere, then zero a sub-range starting at an odd byte offset
    CHECK(cudaMemset(a, 0xAB, sizeof(int) * N));
    CHECK(cudaMemset((char*)a + 13, 0, 50));
    CHECK(cudaMemcpy(back, a, sizeof back, cudaMemcpyDeviceToHost));
    const unsigned char* bb = (const unsigned char*)back;
    for (int k = 0; k < (int)sizeof(back); ++k) t.eq("memset byte", k, (k >= 13 && k < 63) ? 0 : 0xAB, (int)bb[k]);

    // a kernel sees the memset bytes
    unsigned long long* dsum;
    CHECK(cudaMalloc(&dsum, sizeof(unsigned long long)));
    CHECK(cudaMemsetAsync(dsum, 0, sizeof(unsigned long long), 0));
    checksum<<<1, 128>>>((const unsigned char*)a, (int)(sizeof(int) * N), dsum);
    CHECK_KERNEL();
    unsigned long long sum = 0, esum = 0;
    CHECK(cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
    for (int k = 0; k < (int)sizeof(back); ++k) esum += (unsigned long long)bb[k] * (unsigned)(k % 13 + 1);
    t.eq("device checksum of memset data", 0, esum, sum);

    // H2D, D2D (whole and a shifted sub-range), D2H
    CHECK(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, a, sizeof(int) * N, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(b + 100, a + 500, sizeof(int) * 200, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost));
    for (int k = 0; k < N; ++k) t.eq("H2D/D2D/D2H", k, (k >= 100 && k < 300) ? host[k + 400] : host[k], back[k]);

    // cudaMemcpyDefault: the runtime infers each direction from the pointers
    int* pinned;
    CHECK(cudaMallocHost(&pinned, sizeof(int) * N));
    for (int k = 0; k < N; ++k) pinned[k] = -k;
    CHECK(cudaMemcpy(a, pinned, sizeof(int) * N, cudaMemcpyDefault));         // pinned host -> device
    CHECK(cudaMemcpy(b, a, sizeof(int) * (N / 2), cudaMemcpyDefault));        // device -> device
    CHECK(cudaMemcpy(back, b, sizeof back, cudaMemcpyDefault));               // device -> pageable host
    for (int k = 0; k < N; ++k) {
        int e = k < N / 2 ? -k : ((k >= 100 && k < 300) ? host[k + 400] : host[k]);
        t.eq("cudaMemcpyDefault", k, e, back[k]);
    }
    CHECK(cudaMemcpy(pinned, host, sizeof(int) * N, cudaMemcpyDefault));     // host -> host
    for (int k = 0; k < N; ++k) t.eq("host->host", k, host[k], pinned[k]);

    // pitched 2-D copies
    int* p2d;
    size_t pitch = 0;
    CHECK(cudaMallocPitch((void**)&p2d, &pitch, W * sizeof(int), H));
    t.check(pitch >= W * sizeof(int), "pitch %zu < row size %zu", pitch, W * sizeof(int));
    static int grid[H][W], grid_back[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) grid[y][x] = y * 1000 + x;
    CHECK(cudaMemset2D(p2d, pitch, 0, W * sizeof(int), H));
    CHECK(cudaMemcpy2D(p2d, pitch, grid, W * sizeof(int), W * sizeof(int), H, cudaMemcpyHostToDevice));
    // copy back only columns 5..14 of rows 2..8 into the middle of a zeroed host array
    std::memset(grid_back, 0, sizeof grid_back);
    CHECK(cudaMemcpy2D(&grid_back[2][5], W * sizeof(int), (char*)p2d + 2 * pitch + 5 * sizeof(int), pitch,
                       10 * sizeof(int), 7, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            bool inside = y >= 2 && y < 9 && x >= 5 && x < 15;
            t.eq("memcpy2D", y * W + x, inside ? grid[y][x] : 0, grid_back[y][x]);
        }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(p2d));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(dsum));
    return t.finish();
}
