// 029_atomic_sub_minmax: atomicSub (returned olds form a permutation), atomicMin/atomicMax on int
// (negative values), unsigned, long long and unsigned long long, on a single address and on a few
// contended addresses; checks final values and that every returned old value lies in its valid range.
#include "conformance.h"
#include <vector>

constexpr int BLOCK = 256;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;
constexpr int G = 8;  // groups of contended addresses

struct Cells {
    int sub_ticket;
    int sub_sum;
    int imin, imax;
    unsigned umin, umax;
    long long lmin, lmax;
    unsigned long long ulmin, ulmax;
    int gmin[G], gmax[G];
};

__global__ void minmax(Cells* c, const int* v, const long long* lv, int* old_sub, int* old_max) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = v[i];
    long long y = lv[i];
    old_sub[i] = atomicSub(&c->sub_ticket, 1);
    atomicSub(&c->sub_sum, x);
    atomicMin(&c->imin, x);
    old_max[i] = atomicMax(&c->imax, x);
    atomicMin(&c->umin, (unsigned)x);
    atomicMax(&c->umax, (unsigned)x);
    atomicMin(&c->lmin, y);
    atomicMax(&c->lmax, y);
    atomicMin(&c->ulmin, (unsigned long long)y);
    atomicMax(&c->ulmax, (unsigned long long)y);
    atomicMin(&c->gmin[i % G], x);
    atomicMax(&c->gmax[i % G], x);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(29);
    static int hv[N];
    static long long hlv[N];
    for (int k = 0; k < N; ++k) {
        hv[k] = k % 5 == 0 ? (int)rng.next_u32() : rng.next_int(-1000000, 1000000);
        hlv[k] = (long long)rng.next_u64() >> (rng.next_u32() % 40);
    }
    Cells init{};
    init.sub_ticket = 5000;
    init.sub_sum = 12345;
    init.imin = 0x7fffffff;
    init.imax = (int)0x80000000;
    init.umin = 0xffffffffu;
    init.umax = 0;
    init.lmin = 0x7fffffffffffffffLL;
    init.lmax = (long long)0x8000000000000000ULL;
    init.ulmin = ~0ULL;
    init.ulmax = 0;
    for (int g = 0; g < G; ++g) {
        init.gmin[g] = 0x7fffffff;
        init.gmax[g] = (int)0x80000000;
    }
    Cells* dc;
    int *dv, *dos, *dom;
    long long* dlv;
    CHECK(cudaMalloc(&dc, sizeof(Cells)));
    CHECK(cudaMalloc(&dv, sizeof hv));
    CHECK(cudaMalloc(&dlv, sizeof hlv));
    CHECK(cudaMalloc(&dos, sizeof(int) * N));
    CHECK(cudaMalloc(&dom, sizeof(int) * N));
    CHECK(cudaMemcpy(dc, &init, sizeof init, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dlv, hlv, sizeof hlv, cudaMemcpyHostToDevice));
    minmax<<<BLOCKS, BLOCK>>>(dc, dv, dlv, dos, dom);
    CHECK_KERNEL();
    Cells c;
    static int osub[N], omax[N];
    CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(osub, dos, sizeof osub, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(omax, dom, sizeof omax, cudaMemcpyDeviceToHost));

    int imin = init.imin, imax = init.imax;
    unsigned umin = init.umin, umax = init.umax;
    long long lmin = init.lmin, lmax = init.lmax;
    unsigned long long ulmin = init.ulmin, ulmax = init.ulmax;
    unsigned sub = (unsigned)init.sub_sum;
    int gmin[G], gmax[G];
    for (int g = 0; g < G; ++g) { gmin[g] = init.gmin[g]; gmax[g] = init.gmax[g]; }
    for (int k = 0; k < N; ++k) {
        int x = hv[k];
        long long y = hlv[k];
        sub -= (unsigned)x;
        if (x < imin) imin = x;
        if (x > imax) imax = x;
        if ((unsigned)x < umin) umin = (unsigned)x;
        if ((unsigned)x > umax) umax = (unsigned)x;
        if (y < lmin) lmin = y;
        if (y > lmax) lmax = y;
        if ((unsigned long long)y < ulmin) ulmin = (unsigned long long)y;
        if ((unsigned long long)y > ulmax) ulmax = (unsigned long long)y;
        if (x < gmin[k % G]) gmin[k % G] = x;
        if (x > gmax[k % G]) gmax[k % G] = x;
    }
    t.eq("sub ticket final", 0, 5000 - N, c.sub_ticket);
    t.eq("sub sum", 0, (int)sub, c.sub_sum);
    t.eq("min int", 0, imin, c.imin);
    t.eq("max int", 0, imax, c.imax);
    t.eq("min unsigned", 0, umin, c.umin);
    t.eq("max unsigned", 0, umax, c.umax);
    t.eq("min long long", 0, lmin, c.lmin);
    t.eq("max long long", 0, lmax, c.lmax);
    t.eq("min ull", 0, ulmin, c.ulmin);
    t.eq("max ull", 0, ulmax, c.ulmax);
    for (int g = 0; g < G; ++g) {
        t.eq("group min", g, gmin[g], c.gmin[g]);
        t.eq("group max", g, gmax[g], c.gmax[g]);
    }
    std::vector<int> seen(N, 0);
    for (int k = 0; k < N; ++k) {
        int idx = 5000 - osub[k];  // olds are 5000, 4999, ..., 5000-N+1 in some order
        if (idx >= 0 && idx < N) seen[idx]++;
        // atomicMax's old value is some earlier maximum: between the initial value and the final maximum
        t.check(omax[k] <= imax, "atomicMax old[%d] = %d exceeds the final maximum %d", k, omax[k], imax);
    }
    for (int k = 0; k < N; ++k) t.eq("sub olds: count of value", 5000 - k, 1, seen[k]);
    return t.finish();
}
