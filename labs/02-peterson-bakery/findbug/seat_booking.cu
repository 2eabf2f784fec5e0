// Lab 02, find the bug: six booking agents handing out numbered seats under a bakery lock.
//
// Agents 0 to 5 are thread 0 of blocks 0 to 5. Each agent books kBookings seats; a booking takes
// the hall's next free seat, records the agent as the seat's holder and moves the next free seat
// on by one. The hall's words are plain memory protected by Lamport's bakery lock for kAgents
// threads (choosing[i] raised while agent i picks its label; label[i] its ticket, 0 when it wants
// nothing; agents are served in the order (label, id)). Every lock word is read and written
// through a sequentially consistent cuda::atomic_ref. The check expects every seat 0 .. kSeats - 1
// booked once, kBookings of them by each agent.
#include <cuda_runtime.h>

#include <cuda/atomic>
#include <cstdio>

constexpr int kAgents = 6;
constexpr int kBookings = 5;
constexpr int kSeats = kAgents * kBookings;

using Ref = cuda::atomic_ref<int, cuda::thread_scope_device>;

struct Hall {
  int choosing[kAgents];
  int label[kAgents];
  int next_seat;
  int holder[kSeats];
};

__device__ void bakery_lock(Hall* h, int me) {
  Ref(h->choosing[me]).store(1);
  int highest = 0;
  for (int k = 0; k < kAgents; ++k) {
    const int lk = Ref(h->label[k]).load();
    if (lk > highest) highest = lk;
  }
  const int mine = highest + 1;
  Ref(h->label[me]).store(mine);
  Ref(h->choosing[me]).store(0);
  for (int k = 0; k < kAgents; ++k) {
    if (k == me) continue;
    for (;;) {
      const int lk = Ref(h->label[k]).load();
      if (lk == 0 || lk > mine || (lk == mine && k > me)) break;
    }
  }
}

__device__ void bakery_unlock(Hall* h, int me) {
  Ref(h->label[me]).store(0);
}

__global__ void book_seats(Hall* h) {
  if (threadIdx.x != 0) return;
  const int me = int(blockIdx.x);
  for (int b = 0; b < kBookings; ++b) {
    bakery_lock(h, me);
    const int seat = h->next_seat;
    if (seat < kSeats) h->holder[seat] = me;
    h->next_seat = seat + 1;
    bakery_unlock(h, me);
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
  Hall* d_hall = nullptr;
  CHECK(cudaMalloc(&d_hall, sizeof(Hall)));
  CHECK(cudaMemset(d_hall, 0, sizeof(Hall)));
  CHECK(cudaMemset(d_hall->holder, 0xff, sizeof(d_hall->holder)));  // -1: not booked
  book_seats<<<kAgents, 32>>>(d_hall);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Hall got = {};
  CHECK(cudaMemcpy(&got, d_hall, sizeof(Hall), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_hall));

  if (got.next_seat != kSeats) {
    std::printf("wrong next free seat: %d, expected %d (a booking was lost)\n", got.next_seat, kSeats);
    return 1;
  }
  int booked[kAgents] = {};
  for (int s = 0; s < kSeats; ++s) {
    if (got.holder[s] < 0 || got.holder[s] >= kAgents) {
      std::printf("wrong holder of seat %d: %d, expected an agent 0..%d\n", s, got.holder[s], kAgents - 1);
      return 1;
    }
    ++booked[got.holder[s]];
  }
  for (int a = 0; a < kAgents; ++a) {
    if (booked[a] != kBookings) {
      std::printf("wrong bookings of agent %d: %d seats, expected %d\n", a, booked[a], kBookings);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
