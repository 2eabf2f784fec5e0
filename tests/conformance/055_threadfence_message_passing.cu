// 055_threadfence_message_passing: message passing with volatile flags and fences: a chain of blocks
// where block b waits for block b-1's flag, reads its data, adds to it and publishes its own
// (__threadfence, and __threadfence_system for the last hop), and inside a block warp 0 hands data to
// warp 1 through shared memory with __threadfence_block and a volatile shared flag. Blocks only wait for
// lower-numbered blocks, so the chain needs no co-residency when blocks start in index order. The flags are volatile
// (strong) accesses and the data is ordered by fences, as the PTX memory model requires; compute-sanitizer's
// racecheck only knows barriers and reports the shared-memory hand-off as a hazard (a false alarm).
#include "conformance.h"

constexpr int BLOCK = 64;
constexpr int BLOCKS = 4;

__global__ void chain(int* data, int* flags, int* out) {
    __shared__ int box[32];
    __shared__ volatile int box_flag;
    int b = blockIdx.x, tid = threadIdx.x;
    if (tid == 0) box_flag = 0;
    __syncthreads();

    // warp 0 -> warp 1 inside the block
    if (tid < 32) {
        box[tid] = b * 100 + tid * 3;
        __syncwarp();  // all lanes' writes happen before lane 0's fence and flag store
        if (tid == 0) {
            __threadfence_block();
            box_flag = 1;
        }
    } else if (tid < 64) {
        while (box_flag == 0) {
        }
        __threadfence_block();
        out[BLOCKS * BLOCK + b * 32 + (tid - 32)] = box[63 - tid];
    }
    __syncthreads();

    // block b-1 -> block b through global memory
    int prev = 0;
    if (b > 0) {
        if (tid == 0) {
            while (((volatile int*)flags)[b - 1] == 0) {
            }
            __threadfence();  // order the flag read before the data reads
        }
        __syncthreads();
        prev = ((volatile int*)data)[(b - 1) * BLOCK + tid];
    }
    int mine = prev + b * 10 + tid;
    data[b * BLOCK + tid] = mine;
    out[b * BLOCK + tid] = mine;
    __threadfence();  // this thread's data is visible device-wide
    __syncthreads();
    if (tid == 0) {
        if (b == BLOCKS - 2) __threadfence_system();  // a stronger fence for one hop
        else __threadfence();
        ((volatile int*)flags)[b] = 1;
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int *ddata, *dflags, *dout;
    CHECK(cudaMalloc(&ddata, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&dflags, sizeof(int) * BLOCKS));
    CHECK(cudaMalloc(&dout, sizeof(int) * (BLOCK * BLOCKS + 32 * BLOCKS)));
    CHECK(cudaMemset(dflags, 0, sizeof(int) * BLOCKS));
    chain<<<BLOCKS, BLOCK>>>(ddata, dflags, dout);
    CHECK_KERNEL();
    static int out[BLOCK * BLOCKS + 32 * BLOCKS];
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int expect[BLOCKS][BLOCK];
    for (int b = 0; b < BLOCKS; ++b)
        for (int tid = 0; tid < BLOCK; ++tid) expect[b][tid] = (b > 0 ? expect[b - 1][tid] : 0) + b * 10 + tid;
    for (int b = 0; b < BLOCKS; ++b) {
        for (int tid = 0; tid < BLOCK; ++tid) t.eq("chain", b * BLOCK + tid, expect[b][tid], out[b * BLOCK + tid]);
        for (int k = 0; k < 32; ++k)
            t.eq("warp handoff", b * 32 + k, b * 100 + (31 - k) * 3, out[BLOCKS * BLOCK + b * 32 + k]);
    }
    return t.finish();
}
