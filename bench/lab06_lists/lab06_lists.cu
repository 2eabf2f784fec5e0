// Lab 06's GPU measurement (LABS.md): inserts per second into linked lists, and pushes per second
// into an array worklist, from the reference solutions' kernels (solutions/06-linked-lists):
//   push_locked     each list has one lock word; a thread pushes its node at the head under it (1a)
//   push_lockfree   atomicCAS on the head; each thread then peeks at the head once (2a, as graded)
// at 1, 32 and 1024 lists (every thread of the grid pushes one node, into list g % lists), and
//   push_atomic            one atomicAdd on the size per item (4a)
//   push_warp_aggregated   one atomicAdd per warp (4b)
//   push_scan              a block scan and one atomicAdd per block (4c)
// with every thread pushing one item, and with 0 to 8 items (4 on average). Every version is checked
// (each node once in its list; each item once in the worklist) before its time is trusted.
//
//   lab06_lists [--list-blocks B] [--list-threads T] [--wl-blocks B] [--reps N] [--smoke]
//
// Prints the device, the date and a table: median time of N runs (CUDA events), and inserts or
// pushes per second. --smoke: a tiny run for the simulator.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <synclab/cuda_check.h>

#include "lab06_kernels.cuh"

namespace {

struct Row {
  std::string name;
  double ms = 0;
  long long work = 0;
  bool ok = false;
};

// Median of `reps` runs of `launch` (after `reset`, outside the timed part).
double time_median(int reps, const std::function<void()>& reset, const std::function<void()>& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    reset();
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Every node 0..n-1 exactly once, in list g % lists, with its value; every lock free.
bool lists_ok(const std::vector<int>& head, const std::vector<int>& next, const std::vector<int>& value,
              const std::vector<int>& locks, int n) {
  const int lists = int(head.size());
  std::vector<char> seen(n, 0);
  long long count = 0;
  for (int l = 0; l < lists; ++l)
    for (int v = head[l]; v != lab06::kNull; v = next[v]) {
      if (v < 0 || v >= n || seen[v] || v % lists != l || value[v] != lab06::node_value(v)) return false;
      seen[v] = 1;
      ++count;
    }
  return count == n && std::count(locks.begin(), locks.end(), 0) == lists;
}

Row push_row(bool lockfree, int lists, int blocks, int threads, int reps) {
  const int n = blocks * threads;
  int *value, *next, *nlock, *mark, *head, *lock, *unpublished;
  CHECK(cudaMalloc(&value, n * sizeof(int)));
  CHECK(cudaMalloc(&next, n * sizeof(int)));
  CHECK(cudaMalloc(&nlock, n * sizeof(int)));
  CHECK(cudaMalloc(&mark, n * sizeof(int)));
  CHECK(cudaMalloc(&head, lists * sizeof(int)));
  CHECK(cudaMalloc(&lock, lists * sizeof(int)));
  CHECK(cudaMalloc(&unpublished, sizeof(int)));
  CHECK(cudaMemset(nlock, 0, n * sizeof(int)));
  CHECK(cudaMemset(mark, 0, n * sizeof(int)));
  const lab06::Pool pool{value, next, nlock, mark};
  const lab06::Lists ls{head, lock, lists};
  Row r{std::string(lockfree ? "push_lockfree" : "push_locked") + ", " + std::to_string(lists) + " list" +
        (lists > 1 ? "s" : "")};
  r.ms = time_median(
      reps,
      [&] {
        CHECK(cudaMemset(head, 0xff, lists * sizeof(int)));  // kNull = -1
        CHECK(cudaMemset(lock, 0, lists * sizeof(int)));
        CHECK(cudaMemset(unpublished, 0, sizeof(int)));
      },
      [&] {
        if (lockfree)
          lab06::push_lockfree<<<blocks, threads>>>(ls, pool, unpublished);
        else
          lab06::push_locked<<<blocks, threads>>>(ls, pool);
      });
  std::vector<int> h(lists), nx(n), v(n), lk(lists);
  int unpub = 0;
  CHECK(cudaMemcpy(h.data(), head, lists * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(nx.data(), next, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(v.data(), value, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(lk.data(), lock, lists * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&unpub, unpublished, sizeof(int), cudaMemcpyDeviceToHost));
  r.ok = lists_ok(h, nx, v, lk, n) && unpub == 0;
  r.work = n;
  for (int* p : {value, next, nlock, mark, head, lock, unpublished}) CHECK(cudaFree(p));
  return r;
}

Row worklist_row(const char* name, void (*kernel)(const int*, int*, int*), const std::vector<int>& counts,
                 const std::string& load, int blocks, int threads, int reps) {
  long long total = 0;
  for (int c : counts) total += c;
  int *dcounts, *worklist, *size;
  CHECK(cudaMalloc(&dcounts, counts.size() * sizeof(int)));
  CHECK(cudaMalloc(&worklist, std::max<long long>(total, 1) * sizeof(int)));
  CHECK(cudaMalloc(&size, sizeof(int)));
  CHECK(cudaMemcpy(dcounts, counts.data(), counts.size() * sizeof(int), cudaMemcpyHostToDevice));
  Row r{std::string(name) + ", " + load};
  r.ms = time_median(
      reps, [&] { CHECK(cudaMemset(size, 0, sizeof(int))); },
      [&] { kernel<<<blocks, threads>>>(dcounts, worklist, size); });
  int got_size = 0;
  std::vector<int> items(total);
  CHECK(cudaMemcpy(&got_size, size, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(items.data(), worklist, total * sizeof(int), cudaMemcpyDeviceToHost));
  // Each item t * kMaxItems + j (j < counts[t]) exactly once.
  std::vector<char> seen(counts.size() * lab06::kMaxItems, 0);
  bool ok = got_size == total;
  for (long long i = 0; ok && i < total; ++i) {
    const int x = items[i];
    const size_t t = size_t(x) / lab06::kMaxItems;
    ok = x >= 0 && t < counts.size() && x % lab06::kMaxItems < counts[t] && !seen[x];
    if (ok) seen[x] = 1;
  }
  r.ok = ok;
  r.work = total;
  CHECK(cudaFree(dcounts));
  CHECK(cudaFree(worklist));
  CHECK(cudaFree(size));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int list_blocks = 0, list_threads = 128, wl_blocks = 4096, reps = 5;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--smoke") {
      smoke = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "option %s needs a value\n", argv[i]);
      return 2;
    }
    long long v = std::atoll(argv[++i]);
    if (a == "--list-blocks")
      list_blocks = int(v);
    else if (a == "--list-threads")
      list_threads = int(v);
    else if (a == "--wl-blocks")
      wl_blocks = int(v);
    else if (a == "--reps")
      reps = int(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i - 1]);
      return 2;
    }
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int wl_threads = 256;
  if (smoke) list_blocks = 2, list_threads = 64, wl_blocks = 2, reps = 1;
  if (list_blocks == 0) list_blocks = prop.multiProcessorCount;
  if (list_threads < 32 || list_threads > 1024 || list_blocks < 1 || wl_blocks < 1 || reps < 1) {
    std::fprintf(
        stderr,
        "usage: lab06_lists [--list-blocks B] [--list-threads 32..1024] [--wl-blocks B] [--reps N] [--smoke]\n");
    return 2;
  }
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("lab06_lists: lists: grid %d x %d (one node per thread); worklists: grid %d x %d; median of %d runs\n",
              list_blocks, list_threads, wl_blocks, wl_threads, reps);
  std::printf("device: %s (%d SMs, cc %d.%d)\ndate: %s\n\n", prop.name, prop.multiProcessorCount, prop.major,
              prop.minor, date);

  std::vector<Row> rows;
  for (int lists : {1, 32, 1024}) {
    rows.push_back(push_row(false, lists, list_blocks, list_threads, reps));
    rows.push_back(push_row(true, lists, list_blocks, list_threads, reps));
  }
  const int n = wl_blocks * wl_threads;
  std::vector<int> ones(n, 1), mixed(n);
  unsigned x = 12345u;
  for (int& c : mixed) {
    x = x * 1103515245u + 12345u;
    c = int((x >> 8) % (lab06::kMaxItems + 1));
  }
  for (int pass = 0; pass < 2; ++pass) {
    const std::vector<int>& counts = pass == 0 ? ones : mixed;
    const std::string load = pass == 0 ? "1 item/thread" : "0-8 items/thread";
    rows.push_back(worklist_row("push_atomic", lab06::push_atomic, counts, load, wl_blocks, wl_threads, reps));
    rows.push_back(
        worklist_row("push_warp_aggregated", lab06::push_warp_aggregated, counts, load, wl_blocks, wl_threads, reps));
    rows.push_back(worklist_row("push_scan", lab06::push_scan, counts, load, wl_blocks, wl_threads, reps));
  }

  std::printf("%-40s %12s %14s %12s  %s\n", "version", "median ms", "items", "items/s", "check");
  bool all_ok = true;
  for (const Row& r : rows) {
    std::printf("%-40s %12.4f %14lld %12.3e  %s\n", r.name.c_str(), r.ms, r.work, r.work / (r.ms * 1e-3),
                r.ok ? "exact" : "WRONG");
    all_ok = all_ok && r.ok;
  }
  std::printf("\nitems: nodes inserted (lists) or items pushed (worklists).\n");
  return all_ok ? 0 : 1;
}
