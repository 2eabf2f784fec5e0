// 044_mapped_pinned_polling: host and a running kernel talk through mapped pinned memory
// (cudaHostAlloc(cudaHostAllocMapped) + cudaHostGetDevicePointer): the kernel publishes data and a flag
// with __threadfence_system and volatile stores, the host spins on the flag before synchronizing, checks
// the data, and writes a reply the kernel is polling for. Both spins are bounded and fail clearly.
#include "conformance.h"
#include <atomic>
#include <chrono>

constexpr int BLOCK = 64;
constexpr int DATA = 16;
constexpr long long DEVICE_SPIN_LIMIT = 50000000LL;  // polls of host memory before the kernel gives up
constexpr double HOST_TIMEOUT_S = 60.0;

struct Mailbox {
    int flag;        // device -> host: data is ready
    int data[DATA];  // device -> host
    int reply;       // host -> device
    int reply_flag;  // host -> device: reply is ready
    int timed_out;   // device -> host: the kernel stopped waiting
};

__global__ void talker(Mailbox* mb, int* result) {
    __shared__ int s_reply;
    volatile Mailbox* v = mb;
    int tid = threadIdx.x;
    if (tid < DATA) v->data[tid] = tid * tid + 7;
    __syncthreads();
    if (tid == 0) {
        __threadfence_system();  // the data is visible to the host before the flag
        v->flag = 1;
        long long spins = 0;
        while (v->reply_flag == 0 && spins < DEVICE_SPIN_LIMIT) ++spins;
        if (v->reply_flag == 0) {
            v->timed_out = 1;
            s_reply = -1000000;
        } else {
            __threadfence_system();  // read the reply only after seeing its flag
            s_reply = v->reply;
        }
    }
    __syncthreads();
    result[tid] = s_reply + tid;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    Mailbox* mb = nullptr;
    CHECK(cudaHostAlloc((void**)&mb, sizeof(Mailbox), cudaHostAllocMapped));
    std::memset(mb, 0, sizeof(Mailbox));
    Mailbox* dmb = nullptr;
    CHECK(cudaHostGetDevicePointer((void**)&dmb, mb, 0));
    int* dresult;
    CHECK(cudaMalloc(&dresult, sizeof(int) * BLOCK));

    talker<<<1, BLOCK>>>(dmb, dresult);
    CHECK(cudaGetLastError());
    // The kernel is running: wait for its flag without synchronizing with the device.
    volatile Mailbox* v = mb;
    auto start = std::chrono::steady_clock::now();
    bool seen = false;
    while (!(seen = v->flag != 0)) {
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (s > HOST_TIMEOUT_S) break;
    }
    t.check(seen, "host: no flag from the kernel after %.0f s", HOST_TIMEOUT_S);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (seen)
        for (int k = 0; k < DATA; ++k) t.eq("data seen by the host", k, k * k + 7, v->data[k]);
    v->reply = 4242;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    v->reply_flag = 1;  // released even after a timeout, so the kernel can finish
    CHECK(cudaDeviceSynchronize());

    int result[BLOCK];
    CHECK(cudaMemcpy(result, dresult, sizeof result, cudaMemcpyDeviceToHost));
    t.eq("kernel timed out waiting for the reply", 0, 0, v->timed_out);
    for (int k = 0; k < BLOCK; ++k) t.eq("result", k, 4242 + k, result[k]);
    CHECK(cudaFreeHost(mb));
    return t.finish();
}
