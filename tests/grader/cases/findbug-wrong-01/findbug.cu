// Lab 01, find the bug: a Borda count of ranked ballots.
//
// Every voter ranks three of the kCandidates candidates, best first. A Borda count gives a
// candidate 3 points for each ballot that ranks it first, 2 for second and 1 for third. The
// kernel also counts, per candidate, the ballots that rank it first. One thread per ballot
// (grid-stride loop, any grid shape); points and firsts start at zero. A ballot that names a
// candidate out of range, or one candidate twice, is spoiled: it gives no points and is counted in
// spoiled. The check compares all three results with the same count made on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kCandidates = 6;
constexpr int kRanks = 3;
constexpr int kVoters = 400;
constexpr int kBlocks = 3;
constexpr int kThreads = 64;

__host__ __device__ bool ballot_valid(const int* ranking) {
  for (int r = 0; r < kRanks; ++r) {
    if (ranking[r] < 0 || ranking[r] >= kCandidates) return false;
    for (int q = 0; q < r; ++q) {
      if (ranking[q] == ranking[r]) return false;
    }
  }
  return true;
}

__global__ void borda_count(const int* ballots, int voters, unsigned* points, unsigned* firsts,
                            unsigned* spoiled) {
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < voters; v += gridDim.x * blockDim.x) {
    const int* ranking = ballots + v * kRanks;
    if (!ballot_valid(ranking)) {
      atomicAdd(spoiled, 1u);
      continue;
    }
    for (int r = 0; r < kRanks; ++r) {
      atomicAdd(&points[ranking[r]], unsigned(kRanks - r));
    }
    __threadfence();
    firsts[ranking[0]] += 1u;
  }
}

// ---- checks: a fix changes nothing below this line ----
#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::printf("CUDA error: %s at line %d: %s\n", #call, __LINE__, cudaGetErrorString(err_));   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  // Ballots from a fixed generator; about one in twenty names a candidate twice.
  std::vector<int> ballots(kVoters * kRanks);
  unsigned state = 12345u;
  for (int& c : ballots) {
    state = state * 1103515245u + 12345u;
    c = int((state >> 16) % kCandidates);
  }
  for (int v = 0; v < kVoters; ++v) {
    int* r = &ballots[v * kRanks];
    if (v % 20 != 7) {
      while (r[1] == r[0]) r[1] = (r[1] + 1) % kCandidates;
      while (r[2] == r[0] || r[2] == r[1]) r[2] = (r[2] + 1) % kCandidates;
    }
  }

  int* d_ballots = nullptr;
  unsigned* d_counts = nullptr;  // points[kCandidates], firsts[kCandidates], spoiled
  const int words = 2 * kCandidates + 1;
  CHECK(cudaMalloc(&d_ballots, ballots.size() * sizeof(int)));
  CHECK(cudaMalloc(&d_counts, words * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_ballots, ballots.data(), ballots.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_counts, 0, words * sizeof(unsigned)));
  borda_count<<<kBlocks, kThreads>>>(d_ballots, kVoters, d_counts, d_counts + kCandidates,
                                     d_counts + 2 * kCandidates);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(words);
  CHECK(cudaMemcpy(got.data(), d_counts, words * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_ballots));
  CHECK(cudaFree(d_counts));

  std::vector<unsigned> want(words, 0u);
  for (int v = 0; v < kVoters; ++v) {
    const int* r = &ballots[v * kRanks];
    if (!ballot_valid(r)) {
      ++want[2 * kCandidates];
      continue;
    }
    for (int k = 0; k < kRanks; ++k) want[r[k]] += unsigned(kRanks - k);
    ++want[kCandidates + r[0]];
  }
  const char* what[] = {"points", "first places"};
  for (int i = 0; i < 2 * kCandidates; ++i) {
    if (got[i] != want[i]) {
      std::printf("wrong %s of candidate %d: %u, expected %u\n", what[i / kCandidates], i % kCandidates,
                  got[i], want[i]);
      return 1;
    }
  }
  if (got[2 * kCandidates] != want[2 * kCandidates]) {
    std::printf("wrong spoiled count: %u, expected %u\n", got[2 * kCandidates], want[2 * kCandidates]);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
