// 026_device_printf: device printf from one thread with %d %u %f %s %c %llx %x, field widths,
// precision and %e, in a loop, and with a value computed on the device; printf's return value (the
// number of arguments parsed) is checked. The exact stdout is in expected_stdout/026_device_printf.txt.
//
// EXPECT-STDOUT: hello from block 0 thread 0
// EXPECT-STDOUT: int 42 unsigned 4000000000 negative -17
// EXPECT-STDOUT: float 3.500000 double -0.125000
// EXPECT-STDOUT: string synclab char Z
// EXPECT-STDOUT: hex 123456789abcdef deadbeef
// EXPECT-STDOUT: width [   42] [ab  ] [3.142]
// EXPECT-STDOUT: sci 1.50e+10
// EXPECT-STDOUT: loop 0 square 0
// EXPECT-STDOUT: loop 1 square 1
// EXPECT-STDOUT: loop 2 square 4
// EXPECT-STDOUT: sum 4950
// EXPECT-STDOUT: PASS 026_device_printf
#include "conformance.h"

constexpr int N = 100;

__global__ void print_kernel(const int* data, int* ret) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;  // one printing thread: a deterministic order
    int r[6];
    r[0] = printf("hello from block %d thread %d\n", (int)blockIdx.x, (int)threadIdx.x);
    r[1] = printf("int %d unsigned %u negative %d\n", 42, 4000000000u, -17);
    r[2] = printf("float %f double %f\n", 3.5f, -0.125);
    r[3] = printf("string %s char %c\n", "synclab", 'Z');
    r[4] = printf("hex %llx %x\n", 0x123456789abcdefULL, 0xdeadbeefu);
    r[5] = printf("width [%5d] [%-4s] [%.3f]\n", 42, "ab", 3.14159265);
    printf("sci %.2e\n", 1.5e10);
    for (int k = 0; k < 3; ++k) printf("loop %d square %d\n", k, k * k);
    int s = 0;
    for (int k = 0; k < N; ++k) s += data[k];
    printf("sum %d\n", s);
    for (int k = 0; k < 6; ++k) ret[k] = r[k];
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    int hdata[N];
    for (int k = 0; k < N; ++k) hdata[k] = k;
    int *dd, *dret;
    CHECK(cudaMalloc(&dd, sizeof hdata));
    CHECK(cudaMalloc(&dret, sizeof(int) * 6));
    CHECK(cudaMemcpy(dd, hdata, sizeof hdata, cudaMemcpyHostToDevice));
    print_kernel<<<2, 64>>>(dd, dret);
    CHECK_KERNEL();  // synchronizing flushes the device printf buffer
    std::fflush(stdout);
    int ret[6];
    CHECK(cudaMemcpy(ret, dret, sizeof ret, cudaMemcpyDeviceToHost));
    const int args[6] = {2, 3, 2, 2, 2, 3};  // arguments after each format string
    for (int k = 0; k < 6; ++k) t.eq("printf return", k, args[k], ret[k]);
    return t.finish();
}
