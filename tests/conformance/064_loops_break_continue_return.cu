// 064_loops_break_continue_return: while loops with break and continue, a do-while that returns from the
// kernel early inside the loop (Collatz steps with a cap), nested loops left with goto, and early returns
// before any loop, with data-dependent trip counts so the lanes of a warp leave at different times.
#include "conformance.h"

constexpr int N = 256;

__global__ void loops(const int* in, int* a, int* b, int* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int x = in[i];
    if (x % 7 == 0) {  // early return before any loop
        a[i] = b[i] = c[i] = -7;
        return;
    }
    // while with continue and two breaks
    int k = 0, s = 0;
    while (true) {
        ++k;
        if (k > 60) break;
        if (k % 3 == 0) continue;
        s += k * (x % 50);
        if (s > 20000 || s < -20000) break;
    }
    a[i] = s * 100 + k;
    // nested loops left with goto
    int found = -1;
    for (int p = 1; p < 16; ++p)
        for (int q = p; q < 32; ++q)
            if (p * q == (x & 0x1ff) && p + q > 10) {
                found = p * 100 + q;
                goto done;
            }
done:
    b[i] = found;
    // do-while returning from the kernel from inside the loop
    long long n = (x < 0 ? -x : x) + 1;
    int steps = 0;
    do {
        n = (n % 2) ? 3 * n + 1 : n / 2;
        ++steps;
        if (steps >= 100) {
            c[i] = -steps;
            return;
        }
    } while (n != 1);
    c[i] = steps;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(64);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-5000, 5000);
    hin[1] = 26;  // n = 27 needs 111 Collatz steps: the capped early return
    int *din, *da, *db, *dc;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&da, sizeof hin));
    CHECK(cudaMalloc(&db, sizeof hin));
    CHECK(cudaMalloc(&dc, sizeof hin));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    loops<<<N / 64, 64>>>(din, da, db, dc);
    CHECK_KERNEL();
    static int ra[N], rb[N], rc[N];
    CHECK(cudaMemcpy(ra, da, sizeof ra, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rb, db, sizeof rb, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rc, dc, sizeof rc, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) {
        int x = hin[i];
        int ea, eb, ec;
        if (x % 7 == 0) {
            ea = eb = ec = -7;
        } else {
            int s = 0, k;  // for-loop form of the same computation
            for (k = 1; k <= 60; ++k) {
                if (k % 3 == 0) continue;
                s += k * (x % 50);
                if (s > 20000 || s < -20000) break;
            }
            ea = s * 100 + k;
            eb = -1;
            for (int p = 1; p < 16 && eb < 0; ++p)
                for (int q = p; q < 32 && eb < 0; ++q)
                    if (p * q == (x & 0x1ff) && p + q > 10) eb = p * 100 + q;
            long long n = (x < 0 ? -(long long)x : x) + 1;
            int steps = 0;
            while (true) {
                n = (n % 2) ? 3 * n + 1 : n / 2;
                ++steps;
                if (steps >= 100) { ec = -steps; break; }
                if (n == 1) { ec = steps; break; }
            }
        }
        t.eq("while", i, ea, ra[i]);
        t.eq("goto", i, eb, rb[i]);
        t.eq("do-while", i, ec, rc[i]);
    }
    return t.finish();
}
