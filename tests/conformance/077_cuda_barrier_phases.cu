// 077_cuda_barrier_phases: cuda::barrier<cuda::thread_scope_block> in shared memory over several
// phases: arrive_and_wait between shared-memory exchange steps, a split arrive() / wait(token) with
// independent work in between, arrive_and_drop shrinking the expected count for later phases, and a
// second barrier with a completion function that one thread runs per phase. On sm_80+ the barrier
// without a completion function is an mbarrier object; before sm_80 (and with a completion
// function) libcu++ builds it from atomics.
#include <cuda/barrier>

#include "conformance.h"

constexpr int BLOCK = 96;   // three warps
constexpr int BLOCKS = 3;
constexpr int ROUNDS = 4;   // rotation phases
constexpr int STAY = 40;    // threads that stay after the drop (crosses a warp boundary)
constexpr int LATE = 3;     // phases after the drop
constexpr int K = ROUNDS + 2 + LATE;

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// Completion step: sums the shared values of the phase that just completed and records it.
struct Tally {
    int* vals;
    int* log;
    int* phase;
    __device__ void operator()() noexcept {
        int s = 0;
        for (int i = 0; i < BLOCK; ++i) s += vals[i];
        log[*phase] = s;
        *phase += 1;
    }
};

#pragma nv_diag_suppress static_var_with_dynamic_init  // init() constructs the barriers below
__global__ void phases(const int* in, int* out, int* tallies) {
    __shared__ block_barrier bar;
    __shared__ cuda::barrier<cuda::thread_scope_block, Tally> tally_bar;
    __shared__ int vals[BLOCK];
    __shared__ int log[ROUNDS];
    __shared__ int phase;
    const int t = threadIdx.x;
    if (t == 0) {
        init(&bar, BLOCK);
        phase = 0;
        init(&tally_bar, BLOCK, Tally{vals, log, &phase});
    }
    __syncthreads();

    int* o = out + (blockIdx.x * BLOCK + t) * K;
    int v = in[blockIdx.x * BLOCK + t];
    // Rotation: each phase every thread takes its neighbour's value (two phases per step: the write
    // must not overtake the neighbour's read).
    for (int r = 0; r < ROUNDS; ++r) {
        vals[t] = v;
        tally_bar.arrive_and_wait();  // Tally sums this step's values
        const int next = vals[(t + 1 + r) % BLOCK];
        bar.arrive_and_wait();
        v = next + r;
        o[r] = v;
    }
    // Split arrive / wait: the value written before arrive() is visible after wait(); the work in
    // between touches only this thread's own data.
    vals[t] = v * 2;
    block_barrier::arrival_token tok = bar.arrive();
    int own = 0;
    for (int j = 0; j <= t % 7; ++j) own += (int)(((unsigned)v >> j) & 0xffu);
    bar.wait(std::move(tok));
    o[ROUNDS] = vals[BLOCK - 1 - t] + own;
    bar.arrive_and_wait();  // everyone has read vals before it is rewritten

    // Threads t >= STAY leave; the remaining phases expect only STAY arrivals.
    if (t >= STAY) {
        o[ROUNDS + 1] = -1;
        for (int p = 0; p < LATE; ++p) o[ROUNDS + 2 + p] = -1;
        bar.arrive_and_drop();
        return;
    }
    o[ROUNDS + 1] = 1;
    for (int p = 0; p < LATE; ++p) {
        vals[t] = v + p;
        bar.arrive_and_wait();
        const int s = vals[(t + p + 1) % STAY];
        bar.arrive_and_wait();
        o[ROUNDS + 2 + p] = s;
    }
    if (t == 0)
        for (int r = 0; r < ROUNDS; ++r) tallies[blockIdx.x * ROUNDS + r] = log[r] + 1000000 * (phase == ROUNDS);
}

int main() {
    conf::Checker c(CONF_TEST_NAME);
    conf::Rng rng(77);
    constexpr int N = BLOCK * BLOCKS;
    static int hin[N], hout[N * K], htally[BLOCKS * ROUNDS];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-100000, 100000);
    int *din, *dout, *dtally;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof hout));
    CHECK(cudaMalloc(&dtally, sizeof htally));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    phases<<<BLOCKS, BLOCK>>>(din, dout, dtally);
    CHECK_KERNEL();
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(htally, dtally, sizeof htally, cudaMemcpyDeviceToHost));

    for (int b = 0; b < BLOCKS; ++b) {
        int v[BLOCK], want[BLOCK][K], tally[ROUNDS];
        for (int t = 0; t < BLOCK; ++t) v[t] = hin[b * BLOCK + t];
        for (int r = 0; r < ROUNDS; ++r) {
            int s = 0, nv[BLOCK];
            for (int t = 0; t < BLOCK; ++t) s += v[t];
            tally[r] = s + 1000000;
            for (int t = 0; t < BLOCK; ++t) nv[t] = v[(t + 1 + r) % BLOCK] + r;
            for (int t = 0; t < BLOCK; ++t) want[t][r] = v[t] = nv[t];
        }
        for (int t = 0; t < BLOCK; ++t) {
            int own = 0;
            for (int j = 0; j <= t % 7; ++j) own += (int)(((unsigned)v[t] >> j) & 0xffu);
            want[t][ROUNDS] = v[BLOCK - 1 - t] * 2 + own;
            want[t][ROUNDS + 1] = t < STAY ? 1 : -1;
            for (int p = 0; p < LATE; ++p) want[t][ROUNDS + 2 + p] = t < STAY ? v[(t + p + 1) % STAY] + p : -1;
        }
        for (int t = 0; t < BLOCK; ++t)
            for (int k = 0; k < K; ++k) c.eq("out", (b * BLOCK + t) * K + k, want[t][k], hout[(b * BLOCK + t) * K + k]);
        for (int r = 0; r < ROUNDS; ++r) c.eq("tally", b * ROUNDS + r, tally[r], htally[b * ROUNDS + r]);
    }
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dtally);
    return c.finish();
}
