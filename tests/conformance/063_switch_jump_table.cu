// 063_switch_jump_table: switch statements: a dense switch of 16 cases (a jump-table candidate, brx.idx
// when nvcc emits one), a sparse switch, fall-through cases, a default, and a switch inside a loop,
// with a different case in neighbouring lanes (divergent). (nvcc 13 lowers these to compare/branch trees.)
#include "conformance.h"

constexpr int N = 512;
constexpr int K = 3;

__device__ __noinline__ int dense(int c, int x) {
    switch (c) {
        case 0: return x + 1;
        case 1: return x * 3;
        case 2: return x - 7;
        case 3: return x ^ 0x55;
        case 4: return (int)((unsigned)x << 2);
        case 5: return x >> 1;
        case 6: return -x;
        case 7: return x * x;
        case 8: return x | 0x100;
        case 9: return x & 0xff;
        case 10: return x % 13;
        case 11: return x / 3;
        case 12: return 1000 - x;
        case 13: return x + x / 2;
        case 14: return (x * 7) ^ 3;
        case 15: return 42;
        default: return -1;
    }
}

__device__ int sparse_fallthrough(int c, int x) {
    int r = 0;
    switch (c) {
        case 1:
            r += 1;
            [[fallthrough]];
        case 10:
            r += 10;
            break;
        case 100:
            r += 100;
            [[fallthrough]];
        case 1000:
            r += 1000;
            [[fallthrough]];
        case -5:
            r += x;
            break;
        case 77777:
            r = -x;
            break;
        default:
            r = 7;
    }
    return r;
}

__global__ void switches(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = in[i];
    int c = (i * 5 + x) % 18;  // 16 and 17 hit the default
    if (c < 0) c += 18;
    out[i * K + 0] = dense(c, x);
    const int sparse_cases[9] = {1, 10, 100, 1000, -5, 77777, 3, 0, 55};
    out[i * K + 1] = sparse_fallthrough(sparse_cases[i % 9], x);
    int acc = 0;  // a state machine: switch inside a loop
    int state = i % 4;
    for (int step = 0; step < 10; ++step) {
        switch (state) {
            case 0: acc += 1; state = 2; break;
            case 1: acc *= 2; state = 3; break;
            case 2: acc -= 3; state = (acc & 1) ? 1 : 3; break;
            default: acc += step; state = 0; break;
        }
    }
    out[i * K + 2] = acc;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(63);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 1000);
    int *din, *dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    switches<<<N / 128, 128>>>(din, dout);
    CHECK_KERNEL();
    static int r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) {
        int x = hin[i];
        int c = ((i * 5 + x) % 18 + 18) % 18;
        // reference: a table of the same operations, written as an if-chain
        int d;
        if (c == 0) d = x + 1;
        else if (c == 1) d = x * 3;
        else if (c == 2) d = x - 7;
        else if (c == 3) d = x ^ 0x55;
        else if (c == 4) d = x * 4;
        else if (c == 5) d = x >= 0 ? x / 2 : -((-x + 1) / 2);
        else if (c == 6) d = -x;
        else if (c == 7) d = x * x;
        else if (c == 8) d = x | 0x100;
        else if (c == 9) d = x & 0xff;
        else if (c == 10) d = x % 13;
        else if (c == 11) d = x / 3;
        else if (c == 12) d = 1000 - x;
        else if (c == 13) d = x + x / 2;
        else if (c == 14) d = (x * 7) ^ 3;
        else if (c == 15) d = 42;
        else d = -1;
        t.eq("dense", i, d, r[i * K + 0]);
        const int cases[9] = {1, 10, 100, 1000, -5, 77777, 3, 0, 55};
        int cs = cases[i % 9], s;
        if (cs == 1) s = 11;
        else if (cs == 10) s = 10;
        else if (cs == 100) s = 1100 + x;
        else if (cs == 1000) s = 1000 + x;
        else if (cs == -5) s = x;
        else if (cs == 77777) s = -x;
        else s = 7;
        t.eq("sparse", i, s, r[i * K + 1]);
        int acc = 0, state = i % 4;
        for (int step = 0; step < 10; ++step) {
            if (state == 0) { acc += 1; state = 2; }
            else if (state == 1) { acc *= 2; state = 3; }
            else if (state == 2) { acc -= 3; state = (acc & 1) ? 1 : 3; }
            else { acc += step; state = 0; }
        }
        t.eq("state machine", i, acc, r[i * K + 2]);
    }
    return t.finish();
}
