// 038_warp_vote_activemask: __ballot_sync/__any_sync/__all_sync with the full mask and with a partial
// mask inside a divergent branch (lane % 3 == 0), after a loop with per-lane trip counts, and
// __activemask in divergent code (checked for what is guaranteed: it contains the calling lane and only
// lanes that took the same branch).
#include "conformance.h"

constexpr int BLOCK = 128;
constexpr int BLOCKS = 2;
constexpr int N = BLOCK * BLOCKS;
constexpr int K = 10;
constexpr unsigned FULL = 0xffffffffu;

__global__ void votes(const int* in, unsigned* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int v = in[gid];
    unsigned* o = out + gid * K;
    o[0] = __ballot_sync(FULL, v > 0);
    o[1] = __any_sync(FULL, v > 500) ? 1 : 0;
    o[2] = __all_sync(FULL, v > -1001) ? 1 : 0;
    o[3] = __all_sync(FULL, v > 0) ? 1 : 0;
    unsigned part = 0, pany = 0, pall = 0;
    if (lane % 3 == 0) {
        const unsigned M3 = 0x49249249u;  // lanes 0, 3, 6, ..., 30
        part = __ballot_sync(M3, v & 1);
        pany = __any_sync(M3, v > 900) ? 1 : 0;
        pall = __all_sync(M3, v < 1000) ? 1 : 0;
    }
    o[4] = part;
    o[5] = pany;
    o[6] = pall;
    int trips = 0;
    for (int k = 0; k < (v & 7); ++k) trips += k;  // per-lane trip counts
    o[7] = __ballot_sync(FULL, trips > 5);         // every lane is back
    unsigned am = 0;
    if (v > 0) am = __activemask();  // only in one branch, so it cannot be hoisted above the branch
    o[8] = am;
    o[9] = __ballot_sync(FULL, 1);
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(38);
    static int hin[N];
    for (int k = 0; k < N; ++k) hin[k] = rng.next_int(-1000, 999);
    for (int k = 32; k < 64; ++k) hin[k] = rng.next_int(1, 100);  // a warp of positives: all() true
    int* din;
    unsigned* dout;
    CHECK(cudaMalloc(&din, sizeof hin));
    CHECK(cudaMalloc(&dout, sizeof(unsigned) * N * K));
    CHECK(cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice));
    votes<<<BLOCKS, BLOCK>>>(din, dout);
    CHECK_KERNEL();
    static unsigned r[N * K];
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    const char* names[8] = {"ballot", "any", "all(true)", "all(v>0)", "ballot(part)", "any(part)", "all(part)",
                            "ballot(after loop)"};
    for (int w = 0; w < N / 32; ++w) {
        const int* v = hin + w * 32;
        unsigned pos = 0, odd3 = 0, loop = 0;
        bool any500 = false, allpos = true, any900 = false, all1000 = true;
        for (int l = 0; l < 32; ++l) {
            if (v[l] > 0) pos |= 1u << l;
            any500 = any500 || v[l] > 500;
            allpos = allpos && v[l] > 0;
            int trips = 0;
            for (int k = 0; k < (v[l] & 7); ++k) trips += k;
            if (trips > 5) loop |= 1u << l;
            if (l % 3 == 0) {
                if (v[l] & 1) odd3 |= 1u << l;
                any900 = any900 || v[l] > 900;
                all1000 = all1000 && v[l] < 1000;
            }
        }
        for (int l = 0; l < 32; ++l) {
            int gid = w * 32 + l;
            const unsigned* o = r + gid * K;
            bool in3 = l % 3 == 0;
            unsigned e[8] = {pos, any500, 1u, allpos, in3 ? odd3 : 0u, in3 ? (unsigned)any900 : 0u,
                             in3 ? (unsigned)all1000 : 0u, loop};
            for (int k = 0; k < 8; ++k) t.eq(names[k], gid, e[k], o[k]);
            // __activemask: my lane is in it, and only lanes on my side of the branch
            unsigned am = o[8];
            if (v[l] > 0) {
                t.check((am >> l) & 1, "activemask[%d] = 0x%08x lacks the calling lane", gid, am);
                t.check((am & ~pos) == 0, "activemask[%d] = 0x%08x includes lanes of the other branch (0x%08x)", gid,
                        am, ~pos);
            } else {
                t.eq("activemask not taken", gid, 0u, am);
            }
            t.eq("ballot(1)", gid, 0xffffffffu, o[9]);
        }
    }
    return t.finish();
}
