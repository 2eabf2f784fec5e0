// The litmus harness: each test in this folder is an ordinary CUDA program whose threads play the
// roles of a classic memory-model litmus test (message passing, store buffering, ...) with
// cuda::atomic_ref and fences, and whose result is the values those threads read and the final
// values of the locations. The harness runs it many times, counts the outcomes, and checks them
// against what the PTX memory model allows and forbids (the test's ALLOWED and FORBIDDEN lists,
// with their sources in docs/memory-model.md).
//
// The test suite builds them all into one program (all.cu) and picks one with --test NAME; a
// test's file also builds alone, as a program of its own, with the same options.
// On the simulator (one instance per launch, a new scheduler seed per launch, through the
// control API so that one process runs every seed):
//   litmus_all --test T --memory relaxed --seeds 3000   every weak outcome the test lists as
//                                               ALLOWED appears, and only outcomes PTX allows;
//   litmus_all --test T --memory sc --seeds 200  no weak outcome at all (every execution is an
//                                               interleaving).
// On a GPU (the same source built with nvcc): --instances N runs N instances per launch with the
// threads of each instance in randomly chosen blocks, while the other blocks stress memory
// (Alglave et al., ASPLOS 2015, sec. 4.3), and prints the count of every outcome.
// Exit status 0 when the checks hold, 1 with a message when they do not, 2 for bad arguments.
#pragma once

#include <cuda/atomic>
#include <synclab/cuda_check.h>
#include <synclab/sim_control.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace litmus {

constexpr int kLocations = 4;  // x, y, z, w of one instance
constexpr int kRegisters = 4;  // r0..r3 of one instance
constexpr int kSpacing = 32;   // ints between two locations (a cache line apart on a GPU)

// What a role's thread works on: its instance's locations and registers.
struct Instance {
  int* loc;  // loc[k * kSpacing], k < kLocations
  int* reg;  // reg[k], k < kRegisters
  __device__ int& at(int k) const { return loc[k * kSpacing]; }
};

// Where the roles run. Cross: each role in a block of its own (thread 0 of the block); Same: all
// roles in one block, role r on thread r * 32 (warps of their own).
enum class Placement { Cross, Same };

struct Launch {
  int* mem;          // instances * kLocations * kSpacing ints
  int* regs;         // instances * kRegisters ints
  const int* place;  // per block: role * 2^20 + instance, or -1 for a stress block
  int* stress;       // scratch memory the stress blocks hammer
  int roles;
  Placement placement;
};

// The role and instance of the calling thread (role -1: not part of any instance).
__device__ inline int role_of(const Launch& L, Instance* in) {
  int role, inst;
  if (L.placement == Placement::Cross) {
    const int p = L.place[blockIdx.x];
    if (p < 0 || threadIdx.x != 0) return -1;
    role = p >> 20;
    inst = p & 0xfffff;
  } else {
    if (threadIdx.x % 32 != 0 || int(threadIdx.x / 32) >= L.roles) return -1;
    role = threadIdx.x / 32;
    inst = blockIdx.x;
  }
  in->loc = L.mem + size_t(inst) * kLocations * kSpacing;
  in->reg = L.regs + size_t(inst) * kRegisters;
  return role;
}

// Memory stress: the blocks that play no role load and store scratch memory for a while.
__device__ inline void stress(const Launch& L) {
  if (!L.stress || L.placement != Placement::Cross || L.place[blockIdx.x] >= 0) return;
  volatile int* s = L.stress + (blockIdx.x % 64) * 64;
  for (int i = 0; i < 64; ++i) s[(threadIdx.x + i) % 64] += 1;
}

template <class T>
using ref = cuda::atomic_ref<T, cuda::thread_scope_device>;
template <class T>
using block_ref = cuda::atomic_ref<T, cuda::thread_scope_block>;
constexpr auto rlx = cuda::std::memory_order_relaxed;
constexpr auto acq = cuda::std::memory_order_acquire;
constexpr auto rel = cuda::std::memory_order_release;
constexpr auto sc = cuda::std::memory_order_seq_cst;

// A test: its name, roles, placement, kernel, and the outcomes to look for. An outcome is written
// "r0=1 r1=0" (registers the test names) plus "x=1" for final values it names.
struct Test {
  const char* name;
  int roles;
  Placement placement;
  void (*kernel)(Launch);
  std::vector<std::string> show;     // what the outcome lists: "r0", "r1", "x", "y", ...
  std::set<std::string> allowed;     // weak outcomes PTX allows: must appear under relaxed
  std::set<std::string> forbidden;   // weak outcomes PTX forbids: must never appear
  std::set<std::string> sc_outcomes;  // the outcomes of the interleavings (sc may show only these)
  std::set<std::string> ptx_allowed;  // every outcome PTX allows (relaxed may show only these)
};

inline std::string outcome(const Test& t, const int* mem, const int* regs) {
  std::string s;
  for (const std::string& what : t.show) {
    int v;
    if (what[0] == 'r')
      v = regs[what[1] - '0'];
    else
      v = mem[(what[0] == 'w' ? 3 : what[0] - 'x') * kSpacing];
    if (!s.empty()) s += ' ';
    s += what + "=" + std::to_string(v);
  }
  return s;
}

// A GPU log (gpu-results/): every outcome it counts for this test must be one PTX allows, and the
// log must hold the test with at least 10^6 instances.
inline int check_log(const Test& t, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) {
    std::printf("FAIL: %s: cannot read %s\n", t.name, path.c_str());
    return 1;
  }
  const std::string head = std::string(t.name) + " (GPU, ";
  char line[512];
  bool in = false, found = false;
  long instances = 0, counted = 0;
  int bad = 0;
  while (std::fgets(line, sizeof line, f)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == ' ')) l.pop_back();
    if (l.rfind(head, 0) == 0) {
      in = found = true;
      instances = std::atol(l.c_str() + head.size());
      continue;
    }
    if (!in) continue;
    if (l.rfind("  ", 0) != 0) {
      in = false;
      continue;
    }
    // "  r0=1 r1=0      42  weak ...": the outcome is everything before the run of spaces.
    const size_t end = l.find("  ", 2);
    const std::string o = l.substr(2, end == std::string::npos ? std::string::npos : end - 2);
    counted += std::atol(l.c_str() + (end == std::string::npos ? l.size() : end));
    if (!t.ptx_allowed.count(o)) {
      std::printf("FAIL: %s: the GPU log shows %s, which the PTX memory model forbids\n", t.name, o.c_str());
      ++bad;
    }
  }
  std::fclose(f);
  if (!found || instances < 1000000 || counted != instances) {
    std::printf("FAIL: %s: %s has no complete run of at least 10^6 instances for this test\n", t.name,
                path.c_str());
    ++bad;
  }
  if (!bad) std::printf("PASS %s: %ld GPU instances, every outcome allowed\n", t.name, instances);
  return bad ? 1 : 0;
}

inline int run(const Test& t, int argc, char** argv) {
  std::string memory = "sc";
  long seeds = 0, instances = 0, launches = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", t.name, a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--memory")
      memory = value();
    else if (a == "--seeds")
      seeds = std::atol(value().c_str());
    else if (a == "--instances")
      instances = std::atol(value().c_str());
    else if (a == "--launches")
      launches = std::atol(value().c_str());
    else if (a == "--check-log")
      return check_log(t, value());
    else {
      std::fprintf(stderr,
                   "usage: %s [--memory sc|relaxed --seeds N] (simulator) | [--instances N --launches K] (GPU)\n",
                   t.name);
      return 2;
    }
  }
  const bool sim = synclab::sim::active();
  if (sim) {
    if (memory != "sc" && memory != "relaxed") {
      std::fprintf(stderr, "%s: --memory must be sc or relaxed, not %s\n", t.name, memory.c_str());
      return 2;
    }
    synclab::sim::set_memory(memory.c_str());
    if (seeds <= 0) seeds = 200;
    instances = 1;
  } else {
    if (instances <= 0) instances = 4096;
    seeds = launches;
  }
  const int blocks_per_instance = t.placement == Placement::Cross ? t.roles : 1;
  const int stress_blocks = sim ? 0 : int(instances / 4);
  const int blocks = int(instances) * blocks_per_instance + stress_blocks;
  const size_t mem_ints = size_t(instances) * kLocations * kSpacing, reg_ints = size_t(instances) * kRegisters;
  int *mem, *regs, *place, *scratch = nullptr;
  CHECK(cudaMalloc(&mem, mem_ints * sizeof(int)));
  CHECK(cudaMalloc(&regs, reg_ints * sizeof(int)));
  CHECK(cudaMalloc(&place, blocks * sizeof(int)));
  if (stress_blocks) CHECK(cudaMalloc(&scratch, 64 * 64 * sizeof(int)));
  std::vector<int> host_mem(mem_ints), host_regs(reg_ints), host_place(blocks);
  std::mt19937 rng(12345);
  std::map<std::string, long> counts;
  for (long s = 1; s <= seeds; ++s) {
    if (sim) synclab::sim::set_scheduler("random", uint64_t(s));
    // Which block plays which role of which instance: in order on the simulator (the scheduler
    // explores), shuffled with stress blocks between on a GPU.
    for (int b = 0; b < blocks; ++b) host_place[b] = -1;
    if (t.placement == Placement::Cross) {
      std::vector<int> order(blocks);
      for (int b = 0; b < blocks; ++b) order[b] = b;
      if (!sim) std::shuffle(order.begin(), order.end(), rng);
      for (long i = 0; i < instances; ++i)
        for (int r = 0; r < t.roles; ++r) host_place[order[i * t.roles + r]] = (r << 20) | int(i);
    }
    CHECK(cudaMemset(mem, 0, mem_ints * sizeof(int)));
    CHECK(cudaMemset(regs, 0, reg_ints * sizeof(int)));
    CHECK(cudaMemcpy(place, host_place.data(), blocks * sizeof(int), cudaMemcpyHostToDevice));
    Launch L{mem, regs, place, scratch, t.roles, t.placement};
    const int threads = t.placement == Placement::Cross ? 32 : 32 * t.roles;
    t.kernel<<<t.placement == Placement::Cross ? blocks : int(instances), threads>>>(L);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host_mem.data(), mem, mem_ints * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(host_regs.data(), regs, reg_ints * sizeof(int), cudaMemcpyDeviceToHost));
    for (long i = 0; i < instances; ++i)
      ++counts[outcome(t, host_mem.data() + i * kLocations * kSpacing, host_regs.data() + i * kRegisters)];
  }
  CHECK(cudaFree(mem));
  CHECK(cudaFree(regs));
  CHECK(cudaFree(place));
  if (scratch) CHECK(cudaFree(scratch));

  const long total = seeds * instances;
  std::printf("%s (%s, %ld %s):\n", t.name, sim ? ("memory " + memory).c_str() : "GPU", total,
              sim ? "seeds" : "instances");
  for (const auto& [o, n] : counts) {
    const char* kind = !t.ptx_allowed.count(o) ? "FORBIDDEN by PTX" : !t.sc_outcomes.count(o) ? "weak (PTX allows)" : "";
    std::printf("  %-40s %10ld  %s\n", o.c_str(), n, kind);
  }
  int bad = 0;
  for (const auto& [o, n] : counts) {
    if (t.forbidden.count(o)) {
      std::printf("FAIL: %s: forbidden outcome %s appeared %ld times\n", t.name, o.c_str(), n);
      ++bad;
    } else if (sim && memory == "sc" && !t.sc_outcomes.count(o)) {
      std::printf("FAIL: %s: outcome %s under sc, which no interleaving gives\n", t.name, o.c_str());
      ++bad;
    } else if (!t.ptx_allowed.count(o)) {
      std::printf("FAIL: %s: outcome %s, which the PTX memory model forbids\n", t.name, o.c_str());
      ++bad;
    }
  }
  if (sim && memory == "relaxed")
    for (const std::string& o : t.allowed)
      if (!counts.count(o)) {
        std::printf("FAIL: %s: the allowed weak outcome %s did not appear in %ld seeds\n", t.name, o.c_str(), seeds);
        ++bad;
      }
  if (!bad) std::printf("PASS %s\n", t.name);
  return bad ? 1 : 0;
}

// The tests of a program that holds several (all.cu), in the order they were registered.
inline std::vector<const Test*>& registry() {
  static std::vector<const Test*> tests;
  return tests;
}

inline bool add(const Test& t) {
  registry().push_back(&t);
  return true;
}

// main of all.cu: --test NAME picks the test (its name, or its file's: "2+2w" or "2p2w"), the
// other options are run()'s; --list names every test.
inline int run_named(int argc, char** argv) {
  const char* want = nullptr;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") {
      for (const Test* t : registry()) std::printf("%s\n", t->name);
      return 0;
    }
    if (a == "--test" && i + 1 < argc)
      want = argv[++i];
    else
      rest.push_back(argv[i]);
  }
  if (!want) {
    std::fprintf(stderr, "usage: %s --test NAME [--memory sc|relaxed --seeds N | --instances N --launches K | "
                         "--check-log FILE], or --list\n", argv[0]);
    return 2;
  }
  for (const Test* t : registry()) {
    std::string file = t->name;
    std::replace(file.begin(), file.end(), '+', 'p');
    if (want == std::string(t->name) || want == file) return run(*t, int(rest.size()), rest.data());
  }
  std::fprintf(stderr, "%s: no litmus test named %s (--list names them)\n", argv[0], want);
  return 2;
}

}  // namespace litmus

// The end of a test's file: LITMUS_TEST(test) with `test` a litmus::Test. Alone, the file is a
// program of its own; included in all.cu (LITMUS_ALL), the test joins the registry.
#ifdef LITMUS_ALL
#define LITMUS_TEST(test) static const bool test##_registered = litmus::add(test);
#else
#define LITMUS_TEST(test) \
  int main(int argc, char** argv) { return litmus::run(test, argc, argv); }
#endif
