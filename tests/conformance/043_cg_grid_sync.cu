// 043_cg_grid_sync: a cooperative launch (cudaLaunchCooperativeKernel) sized from
// cudaOccupancyMaxActiveBlocksPerMultiprocessor and the SM count, running a multi-phase computation
// in which every phase reads what other blocks wrote in the previous one, separated by grid.sync().
#include "conformance.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;
constexpr int MAX_BLOCKS = 8;
constexpr int N = 1024;
constexpr int ROUNDS = 3;

__global__ void phases(int* a, int* b, long long* partial, long long* result, int* valid) {
    cg::grid_group grid = cg::this_grid();
    int gid = (int)grid.thread_rank(), total = (int)grid.size();
    if (gid == 0) *valid = grid.is_valid() ? 1 : 0;
    for (int i = gid; i < N; i += total) a[i] = (i * 37) % 101 - 50;
    grid.sync();
    for (int r = 0; r < ROUNDS; ++r) {
        for (int i = gid; i < N; i += total) b[i] = a[(i * 7 + 3) % N] + a[(i + 1) % N] - r;  // other blocks' data
        grid.sync();
        for (int i = gid; i < N; i += total) a[i] = b[i] / 2 + b[(i + N / 2) % N] % 7;
        grid.sync();
    }
    // block partial sums, then one thread adds the partials of all blocks
    __shared__ long long s[BLOCK];
    long long mine = 0;
    for (int i = gid; i < N; i += total) mine += (long long)a[i] * (i % 5 + 1);
    s[threadIdx.x] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long sum = 0;
        for (int k = 0; k < BLOCK; ++k) sum += s[k];
        partial[blockIdx.x] = sum;
    }
    grid.sync();
    if (gid == 0) {
        long long sum = 0;
        for (unsigned k = 0; k < gridDim.x; ++k) sum += partial[k];
        *result = sum;
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int dev = 0, coop = 0, sms = 0, per_sm = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, BLOCK, 0));
    if (!t.check(coop == 1, "device does not support cooperative launch")) return t.finish();
    if (!t.check(per_sm >= 1 && sms >= 1, "occupancy %d blocks/SM on %d SMs", per_sm, sms)) return t.finish();
    int blocks = per_sm * sms < MAX_BLOCKS ? per_sm * sms : MAX_BLOCKS;  // every block is resident at once

    int *da, *db, *dvalid;
    long long *dpartial, *dresult;
    CHECK(cudaMalloc(&da, sizeof(int) * N));
    CHECK(cudaMalloc(&db, sizeof(int) * N));
    CHECK(cudaMalloc(&dpartial, sizeof(long long) * MAX_BLOCKS));
    CHECK(cudaMalloc(&dresult, sizeof(long long)));
    CHECK(cudaMalloc(&dvalid, sizeof(int)));
    void* args[] = {&da, &db, &dpartial, &dresult, &dvalid};
    CHECK(cudaLaunchCooperativeKernel((void*)phases, dim3(blocks), dim3(BLOCK), args, 0, 0));
    CHECK_KERNEL();
    static int ra[N];
    long long result = 0;
    int valid = 0;
    CHECK(cudaMemcpy(ra, da, sizeof ra, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&result, dresult, sizeof result, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&valid, dvalid, sizeof valid, cudaMemcpyDeviceToHost));

    static int a[N], b[N];
    for (int i = 0; i < N; ++i) a[i] = (i * 37) % 101 - 50;
    for (int r = 0; r < ROUNDS; ++r) {
        for (int i = 0; i < N; ++i) b[i] = a[(i * 7 + 3) % N] + a[(i + 1) % N] - r;
        for (int i = 0; i < N; ++i) a[i] = b[i] / 2 + b[(i + N / 2) % N] % 7;
    }
    long long sum = 0;
    for (int i = 0; i < N; ++i) sum += (long long)a[i] * (i % 5 + 1);
    t.eq("grid.is_valid", 0, 1, valid);
    for (int i = 0; i < N; ++i) t.eq("a", i, a[i], ra[i]);
    t.eq("result", 0, sum, result);
    return t.finish();
}
