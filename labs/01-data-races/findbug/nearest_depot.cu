// Lab 01, find the bug: assigning delivery addresses to their nearest depot.
//
// kDepots depots and kAddresses addresses lie on a grid (integer coordinates). One thread per
// address (grid-stride loop, any grid shape) finds the nearest depot by squared distance, the
// lower index winning a tie, and writes it to depot_of[address]. Per depot the kernel counts the
// addresses it serves (served) and records the largest squared distance among them (reach), so
// that the vans know how far they drive. served and reach start at zero. The check recomputes all
// three on the host.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kDepots = 5;
constexpr int kAddresses = 320;
constexpr int kBlocks = 3;
constexpr int kThreads = 64;

struct Point {
  int x, y;
};

__host__ __device__ unsigned squared_distance(Point a, Point b) {
  const int dx = a.x - b.x, dy = a.y - b.y;
  return unsigned(dx * dx + dy * dy);
}

__host__ __device__ int nearest(const Point* depots, Point p, unsigned* distance) {
  int best = 0;
  unsigned best_d = squared_distance(depots[0], p);
  for (int d = 1; d < kDepots; ++d) {
    const unsigned dd = squared_distance(depots[d], p);
    if (dd < best_d) {
      best = d;
      best_d = dd;
    }
  }
  *distance = best_d;
  return best;
}

__global__ void assign_depots(const Point* depots, const Point* addresses, int n, int* depot_of,
                              unsigned* served, unsigned* reach) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned distance = 0;
    const int d = nearest(depots, addresses[i], &distance);
    depot_of[i] = d;
    atomicAdd(&served[d], 1u);
    if (distance > reach[d]) {
      reach[d] = distance;
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
  const std::vector<Point> depots = {{10, 10}, {90, 15}, {50, 50}, {15, 85}, {80, 90}};
  std::vector<Point> addresses(kAddresses);
  unsigned state = 2024u;
  for (Point& p : addresses) {
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    p.x = int(state % 101u);
    p.y = int((state >> 8) % 101u);
  }

  Point *d_depots = nullptr, *d_addresses = nullptr;
  int* d_depot_of = nullptr;
  unsigned* d_stats = nullptr;  // served[kDepots], reach[kDepots]
  CHECK(cudaMalloc(&d_depots, kDepots * sizeof(Point)));
  CHECK(cudaMalloc(&d_addresses, kAddresses * sizeof(Point)));
  CHECK(cudaMalloc(&d_depot_of, kAddresses * sizeof(int)));
  CHECK(cudaMalloc(&d_stats, 2 * kDepots * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_depots, depots.data(), kDepots * sizeof(Point), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_addresses, addresses.data(), kAddresses * sizeof(Point), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_stats, 0, 2 * kDepots * sizeof(unsigned)));
  assign_depots<<<kBlocks, kThreads>>>(d_depots, d_addresses, kAddresses, d_depot_of, d_stats,
                                       d_stats + kDepots);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> depot_of(kAddresses);
  std::vector<unsigned> stats(2 * kDepots);
  CHECK(cudaMemcpy(depot_of.data(), d_depot_of, kAddresses * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(stats.data(), d_stats, 2 * kDepots * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_depots));
  CHECK(cudaFree(d_addresses));
  CHECK(cudaFree(d_depot_of));
  CHECK(cudaFree(d_stats));

  std::vector<unsigned> served(kDepots, 0u), reach(kDepots, 0u);
  for (int i = 0; i < kAddresses; ++i) {
    unsigned distance = 0;
    const int d = nearest(depots.data(), addresses[i], &distance);
    if (depot_of[i] != d) {
      std::printf("wrong depot for address %d: %d, expected %d\n", i, depot_of[i], d);
      return 1;
    }
    ++served[d];
    if (distance > reach[d]) reach[d] = distance;
  }
  for (int d = 0; d < kDepots; ++d) {
    if (stats[d] != served[d]) {
      std::printf("wrong count for depot %d: %u addresses, expected %u\n", d, stats[d], served[d]);
      return 1;
    }
    if (stats[kDepots + d] != reach[d]) {
      std::printf("wrong reach for depot %d: %u, expected %u\n", d, stats[kDepots + d], reach[d]);
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}
