// 054_atomic_ref_message_passing: cuda::atomic_ref<int, cuda::thread_scope_device> between blocks:
// producer blocks publish data with store(release), paired consumer blocks spin on load(acquire) and
// read it; every block adds a partial sum and takes a ticket with fetch_add(acq_rel), and the block
// with the last ticket (no waiting) sums all partials.
#include "conformance.h"
#include <cuda/atomic>
#include <vector>

constexpr int BLOCK = 64;
constexpr int BLOCKS = 6;  // pairs (0,1) (2,3) (4,5): even blocks produce, odd blocks consume
using device_ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

__global__ void mp(int* data, int* flags, int* partial, int* counter, int* tickets, int* received, long long* total) {
    __shared__ int s[BLOCK];
    __shared__ int s_ticket;
    int b = blockIdx.x, tid = threadIdx.x;
    if (b % 2 == 0) {
        data[b * BLOCK + tid] = b * 1000 + tid;
        __syncthreads();  // every thread's write happens before thread 0's release
        if (tid == 0) device_ref(flags[b]).store(1, cuda::memory_order_release);
    } else {
        if (tid == 0)
            while (device_ref(flags[b - 1]).load(cuda::memory_order_acquire) == 0) {
            }
        __syncthreads();  // the acquire happens before every thread's read
        received[b * BLOCK + tid] = data[(b - 1) * BLOCK + (BLOCK - 1 - tid)];
    }
    // last-block reduction
    s[tid] = b * 100 + tid;
    __syncthreads();
    if (tid == 0) {
        int sum = 0;
        for (int k = 0; k < BLOCK; ++k) sum += s[k];
        partial[b] = sum;
        s_ticket = device_ref(*counter).fetch_add(1, cuda::memory_order_acq_rel);
        tickets[b] = s_ticket;
    }
    __syncthreads();
    if (s_ticket == (int)gridDim.x - 1 && tid == 0) {  // every other block has published its partial
        long long all = 0;
        for (unsigned k = 0; k < gridDim.x; ++k) all += partial[k];
        *total = all;
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int *ddata, *dflags, *dpartial, *dcounter, *dtickets, *drecv;
    long long* dtotal;
    CHECK(cudaMalloc(&ddata, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&dflags, sizeof(int) * BLOCKS));
    CHECK(cudaMalloc(&dpartial, sizeof(int) * BLOCKS));
    CHECK(cudaMalloc(&dcounter, sizeof(int)));
    CHECK(cudaMalloc(&dtickets, sizeof(int) * BLOCKS));
    CHECK(cudaMalloc(&drecv, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMalloc(&dtotal, sizeof(long long)));
    CHECK(cudaMemset(dflags, 0, sizeof(int) * BLOCKS));
    CHECK(cudaMemset(dcounter, 0, sizeof(int)));
    CHECK(cudaMemset(drecv, 0, sizeof(int) * BLOCK * BLOCKS));
    CHECK(cudaMemset(dtotal, 0, sizeof(long long)));
    mp<<<BLOCKS, BLOCK>>>(ddata, dflags, dpartial, dcounter, dtickets, drecv, dtotal);
    CHECK_KERNEL();
    static int recv[BLOCK * BLOCKS];
    int tickets[BLOCKS], counter = 0;
    long long total = 0;
    CHECK(cudaMemcpy(recv, drecv, sizeof recv, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tickets, dtickets, sizeof tickets, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&counter, dcounter, sizeof counter, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost));
    for (int b = 1; b < BLOCKS; b += 2)
        for (int tid = 0; tid < BLOCK; ++tid)
            t.eq("received", b * BLOCK + tid, (b - 1) * 1000 + (BLOCK - 1 - tid), recv[b * BLOCK + tid]);
    long long e = 0;
    for (int b = 0; b < BLOCKS; ++b)
        for (int tid = 0; tid < BLOCK; ++tid) e += b * 100 + tid;
    t.eq("total from the last block", 0, e, total);
    t.eq("counter", 0, BLOCKS, counter);
    std::vector<int> seen(BLOCKS, 0);
    for (int b = 0; b < BLOCKS; ++b)
        if (tickets[b] >= 0 && tickets[b] < BLOCKS) seen[tickets[b]]++;
    for (int k = 0; k < BLOCKS; ++k) t.eq("tickets: count of value", k, 1, seen[k]);
    return t.finish();
}
