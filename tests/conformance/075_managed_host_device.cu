// 075_managed_host_device: cudaMallocManaged memory used from both sides. The host fills an array
// that a kernel reads without any copy (the host's stores are its initialization), the kernel
// writes results the host reads after synchronizing, and then the host and a running kernel add
// into one managed counter at the same time, the kernel with atomicAdd_system and the host with
// atomic read-modify-writes: no update may be lost (concurrentManagedAccess, checked first).
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;
constexpr int DEVICE_ADDS = 200;  // per thread
constexpr int HOST_ADDS = 100000;

__global__ void square_plus(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i] + 1;
}

__global__ void add_system(int* counter, int adds) {
    for (int k = 0; k < adds; ++k) atomicAdd_system(counter, 1);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int concurrent = 0;
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0));
    int *in, *out, *counter;
    CHECK(cudaMallocManaged(&in, sizeof(int) * N));
    CHECK(cudaMallocManaged(&out, sizeof(int) * N));
    CHECK(cudaMallocManaged(&counter, sizeof(int)));
    conf::Rng rng(75);
    static int want[N];
    for (int i = 0; i < N; ++i) {
        in[i] = rng.next_int(-3000, 3000);  // host stores into managed memory
        want[i] = in[i] * in[i] + 1;
    }
    square_plus<<<BLOCKS, BLOCK>>>(in, out, N);
    CHECK_KERNEL();
    for (int i = 0; i < N; ++i) t.eq("out", i, want[i], out[i]);

    *counter = 0;
    if (concurrent) {
        add_system<<<2, 64>>>(counter, DEVICE_ADDS);
        CHECK(cudaGetLastError());
        // The kernel may be running: the host's additions go in atomically beside the device's.
        for (int k = 0; k < HOST_ADDS; ++k) __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
        CHECK(cudaDeviceSynchronize());
        t.eq("counter", 0, 2 * 64 * DEVICE_ADDS + HOST_ADDS, *counter);
    } else {
        std::printf("concurrentManagedAccess is 0: the concurrent part is skipped\n");
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(counter));
    return t.finish();
}
