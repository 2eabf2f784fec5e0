// 083_invoke_one_elect: one thread of a group acts for it. cooperative_groups::invoke_one and
// invoke_one_broadcast (elect.sync on sm_90, the group's rank 0 before), in the warp-aggregated
// append they are made for: the threads of a divergent branch (a coalesced group) reserve their
// slots with one atomicAdd by an elected leader, which the group then shares. Then elect.sync
// directly (sm_90; a fallback with the same answer before), with masks of every shape: all the
// lanes given the same mask get the same leader lane, a lane of the mask, and exactly one of them
// is told it is the leader.
#include <cooperative_groups.h>

#include <algorithm>
#include <vector>

#include "conformance.h"

namespace cg = cooperative_groups;

constexpr int BLOCK = 128;
constexpr int BLOCKS = 8;
constexpr int N = BLOCK * BLOCKS;
constexpr int MASKS = 6;

// Appends gid to list[] when keep(in[gid]); returns nothing, the count goes to *count.
__global__ void append_selected(const int* in, int* list, int* count, int* warp_calls) {
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    // Once per warp, whoever the leader is: counts the warps.
    cg::invoke_one(cg::tiled_partition<32>(cg::this_thread_block()), [&] { atomicAdd(warp_calls, 1); });
    if (in[gid] % 3 == 0) {  // divergent: some lanes of each warp
        cg::coalesced_group g = cg::coalesced_threads();
        const int base = cg::invoke_one_broadcast(g, [&] { return atomicAdd(count, (int)g.size()); });
        list[base + g.thread_rank()] = gid;
    }
}

__device__ unsigned lane_mask(int kind, int lane) {
    switch (kind) {
        case 0: return 0xffffffffu;
        case 1: return lane < 16 ? 0x0000ffffu : 0xffff0000u;
        case 2: return (lane & 1) ? 0xaaaaaaaau : 0x55555555u;
        case 3: return 0x0f0f0f0fu << (lane & 4);  // two interleaved groups of 16
        case 4: return 1u << lane;                 // every lane alone
        default: return 0xf0u << (8 * (lane / 8));  // the top half of each byte's group of 8
    }
}

// out[(gid * MASKS + k) * 2]: the leader lane, [.. + 1]: 1 when this lane was elected. Lanes not
// in their own mask (kind 5: the low four of each 8) do not take part: -1, -1.
__global__ void elect_lanes(int* out) {
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    for (int k = 0; k < MASKS; ++k) {
        const unsigned mask = lane_mask(k, lane);
        int leader = -1, elected = -1;
        if (mask >> lane & 1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
            unsigned l = 0, p = 0;
            asm volatile(
                "{\n\t.reg .pred e;\n\telect.sync %0|e, %2;\n\tselp.u32 %1, 1, 0, e;\n\t}"
                : "=r"(l), "=r"(p)
                : "r"(mask));
            leader = (int)l;
            elected = (int)p;
#else
            __syncwarp(mask);
            leader = __ffs(mask) - 1;
            elected = lane == leader;
#endif
        }
        out[(gid * MASKS + k) * 2] = leader;
        out[(gid * MASKS + k) * 2 + 1] = elected;
    }
}

int main() {
    conf::Checker t(CONF_TEST_NAME);
    conf::Rng rng(83);
    std::vector<int> hin(N);
    for (int& v : hin) v = rng.next_int(0, 1000);
    int *din, *dlist, *dcount, *dwarps, *delect;
    CHECK(cudaMalloc(&din, sizeof(int) * N));
    CHECK(cudaMalloc(&dlist, sizeof(int) * N));
    CHECK(cudaMalloc(&dcount, sizeof(int)));
    CHECK(cudaMalloc(&dwarps, sizeof(int)));
    CHECK(cudaMalloc(&delect, sizeof(int) * N * MASKS * 2));
    CHECK(cudaMemcpy(din, hin.data(), sizeof(int) * N, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dlist, 0xff, sizeof(int) * N));
    CHECK(cudaMemset(dcount, 0, sizeof(int)));
    CHECK(cudaMemset(dwarps, 0, sizeof(int)));
    append_selected<<<BLOCKS, BLOCK>>>(din, dlist, dcount, dwarps);
    CHECK_KERNEL();
    elect_lanes<<<BLOCKS, BLOCK>>>(delect);
    CHECK_KERNEL();

    // The append: exactly the selected indices, each once (in any order).
    int count = 0, warps = 0;
    std::vector<int> list(N), elect(N * MASKS * 2);
    CHECK(cudaMemcpy(&count, dcount, sizeof count, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&warps, dwarps, sizeof warps, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(list.data(), dlist, sizeof(int) * N, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(elect.data(), delect, sizeof(int) * N * MASKS * 2, cudaMemcpyDeviceToHost));
    std::vector<int> want;
    for (int g = 0; g < N; ++g)
        if (hin[g] % 3 == 0) want.push_back(g);
    t.eq("invoke_one once per warp", 0, N / 32, warps);
    t.eq("appended count", 0, (int)want.size(), count);
    std::vector<int> got(list.begin(), list.begin() + std::min<int>(std::max(count, 0), N));
    std::sort(got.begin(), got.end());
    t.check(got == want, "the appended indices are not exactly the selected ones (%zu of %zu)", got.size(),
            want.size());

    // elect.sync: per warp and mask group, one leader, known to every member, elected once.
    for (int w = 0; w < N / 32; ++w)
        for (int k = 0; k < MASKS; ++k)
            for (int lane = 0; lane < 32; ++lane) {
                const int* e = &elect[((w * 32 + lane) * MASKS + k) * 2];
                if (e[0] < 0) {
                    t.check(k == 5 && (lane % 8) < 4, "warp %d mask %d lane %d did not take part", w, k, lane);
                    continue;
                }
                const int* le = &elect[((w * 32 + e[0]) * MASKS + k) * 2];
                t.check(e[0] < 32 && le[0] == e[0] && le[1] == 1,
                        "warp %d mask %d lane %d: leader %d is not a member that was elected", w, k, lane, e[0]);
                t.check(e[1] == (lane == e[0] ? 1 : 0), "warp %d mask %d lane %d: elected %d, leader %d", w, k,
                        lane, e[1], e[0]);
            }
    // Which lane leads: the lowest of the mask on an H100 (the PTX ISA does not promise which).
    int lowest = 0, total = 0;
    for (int g = 0; g < N; ++g) {
        const int* e = &elect[(g * MASKS + 1) * 2];
        if (e[0] >= 0) {
            ++total;
            lowest += e[0] == ((g % 32) < 16 ? 0 : 16);
        }
    }
    std::printf("leaders that are the lowest lane of their half warp: %d of %d\n", lowest, total);
    cudaFree(din);
    cudaFree(dlist);
    cudaFree(dcount);
    cudaFree(dwarps);
    cudaFree(delect);
    return t.finish();
}
