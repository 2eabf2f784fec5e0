// Lab 02, find the bug: three warps submitting scores to one scoreboard.
//
// One block of three warps; lane 0 of warp w is player w (ids 0 to 2), the other lanes return at
// once. Player `me` submits kScores scores, score_of(me, s) in round s. A submission adds the
// score to the board's total, counts it, and keeps the board's best score and the player who
// submitted it (the earlier submission keeps a tie). The board's fields are plain memory guarded
// by Lamport's bakery lock: entering[i] is raised while player i picks its number, number[i] is
// player i's ticket (0 when it is not waiting), and tickets are served in the order (number, id).
// Every lock word is read and written through a sequentially consistent cuda::atomic_ref. The
// check compares the total, the count and the best score with the host's.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>

constexpr int kPlayers = 3;
constexpr int kScores = 6;

using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

struct Board {
  int entering[kPlayers];
  int number[kPlayers];
  int total;
  int submissions;
  int best;
  int best_player;
};

__host__ __device__ int score_of(int me, int s) {
  return (37 * me + 11 * s + 5) % 50 + 10 * s;
}

__device__ bool served_before(int number_k, int k, int number_me, int me) {
  return number_k != 0 && (number_k < number_me || (number_k == number_me && k < me));
}

__device__ void acquire_board(Board* b, int me) {
  Ref(b->entering[me]).store(1);
  int largest = 0;
  for (int k = 0; k < kPlayers; ++k) largest = max(largest, Ref(b->number[k]).load());
  Ref(b->number[me]).store(largest + 1);
  Ref(b->entering[me]).store(0);
  const int mine = largest + 1;
  for (int k = 0; k < kPlayers; ++k) {
    while (Ref(b->entering[k]).load() != 0) {
    }
    while (k != me && served_before(Ref(b->number[k]).load(), k, mine, me)) {
    }
  }
}

__device__ void release_board(Board* b, int me) {
  Ref(b->number[me]).store(0);
}

__global__ void submit_scores(Board* b) {
  if (threadIdx.x % 32 != 0) return;
  const int me = int(threadIdx.x / 32);
  for (int s = 0; s < kScores; ++s) {
    const int score = score_of(me, s);
    acquire_board(b, me);
    b->total += score;
    b->submissions += 1;
    release_board(b, me);
    if (score > b->best) {
      b->best = score;
      b->best_player = me;
    }
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
  Board* d_board = nullptr;
  CHECK(cudaMalloc(&d_board, sizeof(Board)));
  CHECK(cudaMemset(d_board, 0, sizeof(Board)));
  submit_scores<<<1, 32 * kPlayers>>>(d_board);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Board got = {};
  CHECK(cudaMemcpy(&got, d_board, sizeof(Board), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_board));

  int total = 0, best = 0;
  bool best_by[kPlayers] = {};
  for (int p = 0; p < kPlayers; ++p) {
    for (int s = 0; s < kScores; ++s) {
      total += score_of(p, s);
      best = score_of(p, s) > best ? score_of(p, s) : best;
    }
  }
  for (int p = 0; p < kPlayers; ++p) {
    for (int s = 0; s < kScores; ++s) best_by[p] = best_by[p] || score_of(p, s) == best;
  }
  if (got.submissions != kPlayers * kScores) {
    std::printf("wrong number of submissions: %d, expected %d\n", got.submissions, kPlayers * kScores);
    return 1;
  }
  if (got.total != total) {
    std::printf("wrong total: %d, expected %d\n", got.total, total);
    return 1;
  }
  if (got.best != best) {
    std::printf("wrong best score: %d, expected %d\n", got.best, best);
    return 1;
  }
  if (got.best_player < 0 || got.best_player >= kPlayers || !best_by[got.best_player]) {
    std::printf("wrong best player: %d did not score %d\n", got.best_player, best);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
