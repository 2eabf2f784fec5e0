// Lab 06's two locked pushes (task 1a: one lock with each list, at its head; task 1b: the first
// node's own lock, inserting second) with their lock words, heads and nodes placed at many
// addresses of one large buffer. Both take one lock word per list and do the same critical section
// (a read and two writes under the lock, a fence on each side), so the simulator's estimate gives
// them the same time; on an H200 under Nsight Compute the second took 4.7% less
// (tests/profile/lab_timing_unranked.txt). This program asks whether that gap belongs to the
// design or to where the words lie: it times each push with its words at the same offsets and
// prints, per offset, the median of the runs of each.
//
//   nvcc -O3 -arch=sm_90 -o lock_place bench/lab06_lists/lock_place.cu
//   ./lock_place [--blocks 16 --threads 128 --lists 4 --places 24 --runs 7]
//
// The kernels are written for this probe (the lab's own are the students'); they follow the lab's
// reference: atomicCAS to take, __threadfence() after taking and before releasing, atomicExch(0)
// to release, a lane that wins finishing inside its loop.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

constexpr int kNull = -1;

__device__ bool take(int* lock) {
  if (atomicCAS(lock, 0, 1) != 0) return false;
  __threadfence();
  return true;
}
__device__ void give(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}

// 1a: node g goes to the head of list g % lists, under that list's lock.
__global__ void push_head(int* head, int* lock, int* value, int* next, int lists) {
  const int node = blockIdx.x * blockDim.x + threadIdx.x;
  const int l = node % lists;
  for (bool done = false; !done;) {
    if (take(&lock[l])) {
      value[node] = node;
      next[node] = head[l];
      head[l] = node;
      give(&lock[l]);
      done = true;
    }
  }
}

// 1b: node lists + g goes after node g % lists (the first node of that list), under its lock.
__global__ void push_second(int* node_lock, int* value, int* next, int lists) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  const int node = lists + g, first = g % lists;
  for (bool done = false; !done;) {
    if (take(&node_lock[first])) {
      value[node] = node;
      next[node] = next[first];
      next[first] = node;
      give(&node_lock[first]);
      done = true;
    }
  }
}

int arg(int argc, char** argv, const char* name, int dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], name)) return std::atoi(argv[i + 1]);
  return dflt;
}

int main(int argc, char** argv) {
  const int blocks = arg(argc, argv, "--blocks", 16), threads = arg(argc, argv, "--threads", 128);
  const int lists = arg(argc, argv, "--lists", 4), places = arg(argc, argv, "--places", 24);
  const int runs = arg(argc, argv, "--runs", 7);
  const int pushers = blocks * threads, nodes = pushers + lists;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs; %d blocks x %d threads, %d lists, %d places, %d runs each\n", p.name,
              p.multiProcessorCount, blocks, threads, lists, places, runs);

  // One region per array, far apart; place k moves every array by k x (2 MiB + 4 KiB + 128 B), so
  // the lock words fall in other lines, pages and L2 slices from place to place.
  const size_t region = size_t(8) << 20, arrays = 4;  // lock, head, value, next
  const size_t step = (size_t(2) << 20) + 4096 + 128;
  const size_t bytes = arrays * region + size_t(places) * step + (size_t(1) << 20);
  char* buf = nullptr;
  CHECK(cudaMalloc(&buf, bytes));
  if (size_t(nodes) * sizeof(int) > region - (size_t(1) << 20)) {
    std::fprintf(stderr, "too many nodes for a region\n");
    return 2;
  }
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<int> init_next(nodes, kNull), host(nodes);
  for (int l = 0; l < lists; ++l) host[l] = l;  // 1b: list l holds node l

  double all_head_lo = 1e30, all_head_hi = 0, all_second_lo = 1e30, all_second_hi = 0;
  int second_faster = 0;
  std::printf("%6s %12s %14s %14s %8s\n", "place", "lock offset", "1a head (us)", "1b second (us)", "1b/1a");
  for (int k = 0; k < places; ++k) {
    const size_t off = size_t(k) * step;
    int* lock = reinterpret_cast<int*>(buf + 0 * region + off);
    int* head = reinterpret_cast<int*>(buf + 1 * region + off);
    int* value = reinterpret_cast<int*>(buf + 2 * region + off);
    int* next = reinterpret_cast<int*>(buf + 3 * region + off);
    std::vector<float> th, ts;
    for (int r = 0; r < runs + 1; ++r) {  // run 0 warms up and is not kept
      for (int which = 0; which < 2; ++which) {
        CHECK(cudaMemset(lock, 0, nodes * sizeof(int)));
        CHECK(cudaMemcpy(next, init_next.data(), nodes * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(value, 0xff, nodes * sizeof(int)));
        std::vector<int> h(lists, kNull);
        if (which == 1)
          for (int l = 0; l < lists; ++l) h[l] = l;
        CHECK(cudaMemcpy(head, h.data(), lists * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(a));
        if (which == 0)
          push_head<<<blocks, threads>>>(head, lock, value, next, lists);
        else
          push_second<<<blocks, threads>>>(lock, value, next, lists);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        // Check: every node is on exactly one list, and every lock is free.
        std::vector<int> nx(nodes), lk(nodes), hd(lists);
        CHECK(cudaMemcpy(nx.data(), next, nodes * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(lk.data(), lock, nodes * sizeof(int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hd.data(), head, lists * sizeof(int), cudaMemcpyDeviceToHost));
        std::vector<int> seen(nodes, 0);
        int count = 0;
        for (int l = 0; l < lists; ++l)
          for (int n = hd[l]; n != kNull && count <= nodes; n = nx[n]) {
            if (n < 0 || n >= nodes || seen[n]++) {
              std::fprintf(stderr, "place %d: list %d is broken at node %d\n", k, l, n);
              return 1;
            }
            ++count;
          }
        const int want = which == 0 ? pushers : nodes;
        if (count != want || std::any_of(lk.begin(), lk.end(), [](int x) { return x != 0; })) {
          std::fprintf(stderr, "place %d, push %s: %d nodes on the lists (want %d), or a lock still held\n", k,
                       which ? "1b" : "1a", count, want);
          return 1;
        }
        if (r > 0) (which == 0 ? th : ts).push_back(ms * 1000.0f);
      }
    }
    std::sort(th.begin(), th.end());
    std::sort(ts.begin(), ts.end());
    const double mh = th[th.size() / 2], ms = ts[ts.size() / 2];
    all_head_lo = std::min(all_head_lo, mh), all_head_hi = std::max(all_head_hi, mh);
    all_second_lo = std::min(all_second_lo, ms), all_second_hi = std::max(all_second_hi, ms);
    second_faster += ms < mh;
    std::printf("%6d %12zu %14.1f %14.1f %8.3f\n", k, off, mh, ms, ms / mh);
  }
  std::printf("medians over places: 1a head %.1f-%.1f us, 1b second %.1f-%.1f us; 1b faster at %d of %d places\n",
              all_head_lo, all_head_hi, all_second_lo, all_second_hi, second_faster, places);
  CHECK(cudaFree(buf));
  return 0;
}
