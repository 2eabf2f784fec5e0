// 030_atomic_inc_dec: atomicInc and atomicDec with wrap-around limits, starting inside and outside the
// range; since each operation's result depends only on how many ran before it, the multiset of
// returned old values and the final value are order-independent and compared with a sequential host run.
#include "conformance.h"
#include <map>

constexpr int BLOCK = 128;
constexpr int BLOCKS = 4;
constexpr int N = BLOCK * BLOCKS;
constexpr int C = 4;  // counters

__global__ void incdec(unsigned* cnt, unsigned* olds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    olds[0 * N + i] = atomicInc(&cnt[0], 9u);    // starts at 0
    olds[1 * N + i] = atomicInc(&cnt[1], 9u);    // starts at 1000 (above the limit)
    olds[2 * N + i] = atomicDec(&cnt[2], 7u);    // starts at 5
    olds[3 * N + i] = atomicDec(&cnt[3], 7u);    // starts at 100 (above the limit)
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    unsigned init[C] = {0, 1000, 5, 100};
    const unsigned limit[C] = {9, 9, 7, 7};
    const bool is_inc[C] = {true, true, false, false};
    unsigned *dc, *dolds;
    CHECK(cudaMalloc(&dc, sizeof init));
    CHECK(cudaMalloc(&dolds, sizeof(unsigned) * N * C));
    CHECK(cudaMemcpy(dc, init, sizeof init, cudaMemcpyHostToDevice));
    incdec<<<BLOCKS, BLOCK>>>(dc, dolds);
    CHECK_KERNEL();
    unsigned fin[C];
    static unsigned olds[N * C];
    CHECK(cudaMemcpy(fin, dc, sizeof fin, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(olds, dolds, sizeof olds, cudaMemcpyDeviceToHost));
    const char* names[C] = {"inc from 0", "inc from 1000", "dec from 5", "dec from 100"};
    for (int c = 0; c < C; ++c) {
        // sequential reference with the documented update rules
        std::map<unsigned, int> expect, got;
        unsigned v = init[c];
        for (int k = 0; k < N; ++k) {
            expect[v]++;
            if (is_inc[c]) v = (v >= limit[c]) ? 0 : v + 1;
            else v = (v == 0 || v > limit[c]) ? limit[c] : v - 1;
        }
        char label[64];
        std::snprintf(label, sizeof label, "%s: final value", names[c]);
        t.eq(label, c, v, fin[c]);
        for (int k = 0; k < N; ++k) got[olds[c * N + k]]++;
        std::snprintf(label, sizeof label, "%s: count of old value", names[c]);
        for (auto& kv : expect) {
            auto it = got.find(kv.first);
            t.eq(label, (long long)kv.first, kv.second, it == got.end() ? 0 : it->second);
        }
        std::snprintf(label, sizeof label, "%s: distinct old values", names[c]);
        t.eq(label, c, (int)expect.size(), (int)got.size());  // no unexpected old values
    }
    return t.finish();
}
