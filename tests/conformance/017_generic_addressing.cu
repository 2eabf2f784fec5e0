// 017_generic_addressing: generic pointers into global, shared, local and constant memory passed to
// __noinline__ device functions (ld/st through generic addresses), a pointer selected at run time
// between spaces, __isGlobal/__isShared/__isLocal, and __cvta_generic_to_shared.
#include "conformance.h"

constexpr int BLOCK = 64;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 11;

__constant__ int cdata[8] = {3, 1, 4, 1, 5, 9, 2, 6};

__device__ __noinline__ void bump(int* p, int n, int delta) {
    for (int k = 0; k < n; ++k) p[k] += delta * (k + 1);
}
__device__ __noinline__ int sum(const int* p, int n) {
    int s = 0;
    for (int k = 0; k < n; ++k) s += p[k] * (k + 1);
    return s;
}
__device__ __noinline__ int space_of(const void* p) {
    return (__isGlobal(p) ? 1 : 0) | (__isShared(p) ? 2 : 0) | (__isLocal(p) ? 4 : 0);
}

__global__ void generic(int* g, int* out) {
    __shared__ int sh[BLOCK * 4];
    int loc[4];
    int tid = threadIdx.x, gid = blockIdx.x * blockDim.x + tid;
    int* gp = g + gid * 4;
    int* sp = sh + tid * 4;
    for (int k = 0; k < 4; ++k) {
        loc[k] = gid + k;
        sp[k] = gid * 2 + k;
    }
    bump(gp, 4, 1);
    bump(sp, 4, 2);
    bump(loc, 4, 3);
    __syncthreads();
    const int* nsp = sh + ((tid + 1) % BLOCK) * 4;  // the neighbour's shared slots
    int* o = out + gid * K;
    o[0] = sum(gp, 4);
    o[1] = sum(sp, 4);
    o[2] = sum(loc, 4);
    o[3] = sum(nsp, 4);
    o[4] = space_of(gp);
    o[5] = space_of(sp);
    o[6] = space_of(loc);
    o[7] = space_of(cdata) & 6;  // never shared or local (whether it also counts as global is not specified)
    o[8] = sum(cdata, 8);
    o[9] = (int)(__cvta_generic_to_shared(sp) - __cvta_generic_to_shared(sh));
    __syncthreads();  // the neighbour has read my slots: now they may change
    int* p = (gid & 1) ? sp : loc;  // generic pointer chosen at run time
    bump(p, 4, 5);
    o[10] = sum(p, 4) + space_of(p) * 100000;
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    static int hg[N * 4];
    for (int k = 0; k < N * 4; ++k) hg[k] = 1000 * (k / 4) + k % 4;
    int *dg, *dout;
    CHECK(cudaMalloc(&dg, sizeof hg));
    CHECK(cudaMalloc(&dout, sizeof(int) * N * K));
    CHECK(cudaMemcpy(dg, hg, sizeof hg, cudaMemcpyHostToDevice));
    generic<<<BLOCKS, BLOCK>>>(dg, dout);
    CHECK_KERNEL();
    static int r[N * K], rg[N * 4];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rg, dg, sizeof rg, cudaMemcpyDeviceToHost));

    const int cd[8] = {3, 1, 4, 1, 5, 9, 2, 6};
    auto weighted = [](const int* p, int n) { int s = 0; for (int k = 0; k < n; ++k) s += p[k] * (k + 1); return s; };
    const char* names[K] = {"global", "shared", "local", "neighbour", "isGlobal", "isShared", "isLocal", "const-not-shared/local",
                            "constant", "cvta.shared", "runtime-select"};
    for (int gid = 0; gid < N; ++gid) {
        int tid = gid % BLOCK;
        auto shared_after_bump = [&](int id, int* s) {
            for (int k = 0; k < 4; ++k) s[k] = id * 2 + k + 2 * (k + 1);
        };
        int gv[4], sv[4], lv[4], nv[4];
        for (int k = 0; k < 4; ++k) {
            gv[k] = hg[gid * 4 + k] + 1 * (k + 1);
            lv[k] = gid + k + 3 * (k + 1);
        }
        shared_after_bump(gid, sv);
        shared_after_bump(gid - tid + (tid + 1) % BLOCK, nv);
        int* sel = (gid & 1) ? sv : lv;
        int e[K];
        e[0] = weighted(gv, 4);
        e[1] = weighted(sv, 4);
        e[2] = weighted(lv, 4);
        e[3] = weighted(nv, 4);
        e[4] = 1;
        e[5] = 2;
        e[6] = 4;
        e[7] = 0;
        e[8] = weighted(cd, 8);
        e[9] = tid * 4 * (int)sizeof(int);
        for (int k = 0; k < 4; ++k) sel[k] += 5 * (k + 1);
        e[10] = weighted(sel, 4) + ((gid & 1) ? 2 : 4) * 100000;
        for (int k = 0; k < K; ++k) t.eq(names[k], gid, e[k], r[gid * K + k]);
        for (int k = 0; k < 4; ++k) t.eq("global-after", gid * 4 + k, gv[k], rg[gid * 4 + k]);
    }
    return t.finish();
}
