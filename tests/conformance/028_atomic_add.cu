// 028_atomic_add: atomicAdd on int, unsigned, unsigned long long, float and double in global memory,
// with the returned old values used (atom) and ignored (red); checks order-independent outcomes: final
// sums, and old values of +1 increments forming a permutation of 0..N-1.
#include "conformance.h"
#include <vector>

constexpr int BLOCK = 256;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;
constexpr int BINS = 7;

struct Counters {
    int i_ticket;
    int i_sum;
    unsigned u_sum;
    unsigned long long ull_ticket;
    unsigned long long ull_sum;
    float f_ticket;
    float f_sum;
    double d_ticket;
    double d_sum;
    int bins[BINS];
};

__global__ void adds(Counters* c, const int* v, int* old_i, unsigned long long* old_ull, float* old_f, double* old_d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = v[i];
    old_i[i] = atomicAdd(&c->i_ticket, 1);
    atomicAdd(&c->i_sum, x);  // result unused: may compile to red.add
    atomicAdd(&c->u_sum, (unsigned)x * 2654435761u);
    old_ull[i] = atomicAdd(&c->ull_ticket, 1ULL);
    atomicAdd(&c->ull_sum, (1ULL << 33) + (unsigned long long)i);
    old_f[i] = atomicAdd(&c->f_ticket, 1.0f);
    atomicAdd(&c->f_sum, 0.5f * (float)(i % 8));
    old_d[i] = atomicAdd(&c->d_ticket, 1.0);
    atomicAdd(&c->d_sum, 0.25 * (double)x);
    atomicAdd(&c->bins[i % BINS], i);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(28);
    static int hv[N];
    for (int k = 0; k < N; ++k) hv[k] = rng.next_int(-100000, 100000);
    Counters* dc;
    int *dv, *doi;
    unsigned long long* dou;
    float* dof;
    double* dod;
    CHECK(cudaMalloc(&dc, sizeof(Counters)));
    CHECK(cudaMemset(dc, 0, sizeof(Counters)));
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&doi, sizeof(int) * N));
    CHECK(cudaMalloc(&dou, sizeof(unsigned long long) * N));
    CHECK(cudaMalloc(&dof, sizeof(float) * N));
    CHECK(cudaMalloc(&dod, sizeof(double) * N));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    adds<<<BLOCKS, BLOCK>>>(dc, dv, doi, dou, dof, dod);
    CHECK_KERNEL();
    Counters c;
    static int oi[N];
    static unsigned long long ou[N];
    static float of[N];
    static double od[N];
    CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(oi, doi, sizeof oi, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ou, dou, sizeof ou, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(of, dof, sizeof of, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(od, dod, sizeof od, cudaMemcpyDeviceToHost));

    long long isum = 0;
    unsigned usum = 0;
    unsigned long long ullsum = 0;
    double fsum = 0, dsum = 0;
    long long bins[BINS] = {};
    for (int k = 0; k < N; ++k) {
        isum += hv[k];
        usum += (unsigned)hv[k] * 2654435761u;
        ullsum += (1ULL << 33) + (unsigned long long)k;
        fsum += 0.5 * (k % 8);
        dsum += 0.25 * hv[k];
        bins[k % BINS] += k;
    }
    t.eq("int ticket final", 0, N, c.i_ticket);
    t.eq("int sum", 0, (int)isum, c.i_sum);
    t.eq("unsigned sum", 0, usum, c.u_sum);
    t.eq("ull ticket final", 0, (unsigned long long)N, c.ull_ticket);
    t.eq("ull sum", 0, ullsum, c.ull_sum);
    t.eq("float ticket final", 0, (float)N, c.f_ticket);
    t.eq("float sum", 0, (float)fsum, c.f_sum);  // all partial sums are exact multiples of 0.5
    t.eq("double ticket final", 0, (double)N, c.d_ticket);
    t.eq("double sum", 0, dsum, c.d_sum);        // all partial sums are exact multiples of 0.25
    for (int b = 0; b < BINS; ++b) t.eq("bins", b, (int)bins[b], c.bins[b]);
    // old values of +1 increments: each of 0..N-1 exactly once
    std::vector<int> seen_i(N, 0), seen_u(N, 0), seen_f(N, 0), seen_d(N, 0);
    for (int k = 0; k < N; ++k) {
        if (oi[k] >= 0 && oi[k] < N) seen_i[oi[k]]++;
        if (ou[k] < (unsigned long long)N) seen_u[ou[k]]++;
        if (of[k] >= 0 && of[k] < N && of[k] == (float)(int)of[k]) seen_f[(int)of[k]]++;
        if (od[k] >= 0 && od[k] < N && od[k] == (double)(int)od[k]) seen_d[(int)od[k]]++;
    }
    for (int k = 0; k < N; ++k) {
        t.eq("int olds: count of value", k, 1, seen_i[k]);
        t.eq("ull olds: count of value", k, 1, seen_u[k]);
        t.eq("float olds: count of value", k, 1, seen_f[k]);
        t.eq("double olds: count of value", k, 1, seen_d[k]);
    }
    return t.finish();
}
