// The estimate's chain across hand-overs (docs/profile.md, "An estimated time"): a read waits for
// the write it read, rounds of a spin that only waited cost nothing, a failed try takes no turn at
// an atomic unit (but many waiters' tries queue there: contention), an mbarrier wait that found its
// phase incomplete is a poll, and shared-memory atomics of one warp on one word take one turn each.
// Each check compares two launches whose difference is that one rule, through the estimate's parts
// in SYNCLAB_PROFILE's JSON lines. Simulator only (a GPU has no estimate).
#include <synclab/cuda_check.h>
#include <synclab/sim_control.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

constexpr int kWords = 4096;

// Block 0's thread 0 reads `work` words one after another, then raises the flag; block 1's thread
// 0 waits for it (wait != 0) or does not, then writes.
__global__ void flag_between_blocks(const int* in, int work, int wait, volatile int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    int s = 0, at = 0;
    for (int i = 0; i < work; ++i) {
      s += in[at];
      at = (at + 32 + (s & 1)) % kWords;
    }
    out[0] = s;
    __threadfence();
    *flag = 1;
  } else {
    if (wait)
      while (*flag == 0) {
      }
    out[1] = 1;
  }
}

// Lane 0 of warp 0 holds a lock word and lets it go after `work` loads; lane 0 of warp 1 tries to
// take it with atomicCAS until it gets it (its failed tries change nothing).
__global__ void cas_lock(const int* in, int work, int* lock, int* out) {
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < work; ++i) s += in[(i * 32) % kWords];
    out[0] = s;
    __threadfence();
    atomicExch(lock, 0);
  } else if (threadIdx.x == 32) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    out[1] = 1;
  }
}

// Warp 0 reads `work` words, then its 32 lanes arrive on a shared-memory mbarrier; warp 1 waits
// for the phase with mbarrier.try_wait (which may wait inside the instruction, no loop round seen).
__global__ void mbarrier_handover(const int* in, int work, int* out) {
  __shared__ unsigned long long bar;
  const unsigned addr = unsigned(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(addr), "r"(32) : "memory");
  __syncthreads();
  if (threadIdx.x < 32) {
    int s = 0;
    for (int i = 0; i < work; ++i) s += in[(i * 32 + int(threadIdx.x)) % kWords];
    out[threadIdx.x] = s;
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
  } else {
    unsigned done = 0;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(addr), "r"(0)
          : "memory");
    } while (!done);
    out[threadIdx.x] = 1;
  }
}

// Every lane of one warp adds to one word: of shared memory, or of global memory.
__global__ void one_word(int* global_word, int shared) {
  __shared__ int word;
  if (threadIdx.x == 0) word = 0;
  __syncwarp();
  if (shared)
    atomicAdd(&word, 1);
  else
    atomicAdd(global_word, 1);
  __syncwarp();
  if (threadIdx.x == 0 && shared) global_word[1] = word;
}

// Every thread of the first `lanes` of each warp takes a lock word once (try, and on a failure
// sleep `sleep_ns` before the next try), adds 1 under it and lets it go.
__global__ void contended(int* lock, int* count, int lanes, unsigned sleep_ns) {
  if (int(threadIdx.x % 32) >= lanes) return;
  bool done = false;
  while (!done) {
    if (atomicCAS(lock, 0, 1) == 0) {
      __threadfence();
      *count += 1;
      __threadfence();
      atomicExch(lock, 0);
      done = true;
    } else if (sleep_ns) {
      __nanosleep(sleep_ns);
    }
  }
}

struct Estimate {
  double path = 0, atomic = 0, issue = 0, shared = 0, total = 0;
  unsigned long long spin_rounds = 0;
  unsigned long long contended = 0;     // atomic requests that waited behind queued tries
  unsigned long long shared_loads = 0;  // shared-memory load requests (counted, polls included)
};

const char* g_file = nullptr;

double number_after(const std::string& line, const std::string& key) {
  const size_t at = line.rfind("\"" + key + "\":");
  if (at == std::string::npos) {
    std::fprintf(stderr, "handover: no \"%s\" in the profile line: %s\n", key.c_str(), line.c_str());
    std::exit(2);
  }
  return std::atof(line.c_str() + at + key.size() + 3);
}

// The estimate of the last launch written to the profile file.
Estimate last_estimate() {
  std::ifstream f(g_file);
  std::string line, last;
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  if (last.empty()) {
    std::fprintf(stderr, "handover: %s holds no profile (this test runs on the simulator only)\n", g_file);
    std::exit(2);
  }
  Estimate e;
  e.path = number_after(last, "path");
  e.atomic = number_after(last, "atomic");
  e.issue = number_after(last, "issue");
  e.shared = number_after(last, "shared");
  e.total = number_after(last, "total");
  e.spin_rounds = static_cast<unsigned long long>(number_after(last, "spin_rounds"));
  e.contended = static_cast<unsigned long long>(number_after(last, "contended_requests"));
  const size_t shared_ld = last.find("\"shared_ld_wavefronts\"");
  if (shared_ld != std::string::npos)
    e.shared_loads = static_cast<unsigned long long>(
        number_after(last.substr(shared_ld, last.find('}', shared_ld) - shared_ld), "requests"));
  return e;
}

int failures = 0;
void expect(bool ok, const char* what, double a, double b) {
  std::printf("%s %s (%.4f, %.4f)\n", ok ? "ok:  " : "FAIL:", what, a, b);
  failures += !ok;
}

int* g_in;
int* g_out;
int* g_flag;

Estimate flag_run(int work, int wait, const char* sched, unsigned long long seed) {
  synclab::sim::set_scheduler(sched, seed);
  CHECK(cudaMemset(g_flag, 0, sizeof(int)));
  flag_between_blocks<<<2, 32>>>(g_in, work, wait, g_flag, g_out);
  CHECK(cudaDeviceSynchronize());
  return last_estimate();
}

Estimate lock_run(const char* sched, unsigned long long seed) {
  synclab::sim::set_scheduler(sched, seed);
  CHECK(cudaMemset(g_flag, 0xff, sizeof(int)));  // held (not 0)
  cas_lock<<<1, 64>>>(g_in, 100, g_flag, g_out);
  CHECK(cudaDeviceSynchronize());
  return last_estimate();
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: handover PROFILE.jsonl (a file this test writes)\n");
    return 2;
  }
  g_file = argv[1];
  std::remove(g_file);
  synclab::sim::set_device("h100");
  synclab::sim::set_profile(g_file);
  CHECK(cudaMalloc(&g_in, kWords * sizeof(int)));
  CHECK(cudaMalloc(&g_out, kWords * sizeof(int)));
  CHECK(cudaMalloc(&g_flag, 2 * sizeof(int)));
  CHECK(cudaMemset(g_in, 0, kWords * sizeof(int)));

  // A read that ends a wait starts after the write it read: block 1's chain takes block 0's work
  // when it waits for the flag, and not when it does not.
  const Estimate alone = flag_run(400, 0, "rr", 1), waits = flag_run(400, 1, "rr", 1);
  const Estimate short_wait = flag_run(100, 1, "rr", 1);
  expect(waits.path > alone.path, "flag_between_blocks: the waiting block's chain ends after the flag's write",
         waits.path, alone.path);
  expect(waits.path > short_wait.path, "flag_between_blocks: more work before the flag, a longer chain", waits.path,
         short_wait.path);

  // However many rounds the spin goes (the schedule's choice), the chain is the same.
  const Estimate rr = flag_run(400, 1, "rr", 1), random1 = flag_run(400, 1, "random", 3),
                 random2 = flag_run(400, 1, "random", 11);
  expect(rr.spin_rounds != random1.spin_rounds || rr.spin_rounds != random2.spin_rounds,
         "flag_between_blocks: the schedules spin for different numbers of rounds", double(random1.spin_rounds),
         double(random2.spin_rounds));
  expect(rr.path == random1.path && rr.path == random2.path,
         "flag_between_blocks: the chain does not depend on how many rounds the spin went", random1.path, random2.path);
  expect(rr.issue == random1.issue && rr.issue == random2.issue,
         "flag_between_blocks: nor do the instructions the estimate counts", random1.issue, random2.issue);

  // Failed compare-and-swap tries take no turn at the word's unit, and the chain of the taker does
  // not depend on how many it made.
  const Estimate lock_rr = lock_run("rr", 1), lock_random = lock_run("random", 5);
  expect(lock_rr.path == lock_random.path, "cas_lock: the chain does not depend on the failed tries", lock_rr.path,
         lock_random.path);
  expect(lock_rr.atomic == lock_random.atomic, "cas_lock: nor do the atomics' turns", lock_rr.atomic,
         lock_random.atomic);

  // Contention: 8 warps of 32 lanes trying one lock word turn up at its unit faster than it serves
  // them (256 turns of 2 cycles every 290 cycles), so every take and release waits for the queue;
  // a waiter that sleeps 1 or 2 us after a failed try comes seldom enough that no queue builds, and
  // the sleep itself is off the chain (a round that only waited).
  auto contended_run = [&](int lanes, unsigned sleep_ns) {
    synclab::sim::set_scheduler("rr", 1);
    CHECK(cudaMemset(g_flag, 0, 2 * sizeof(int)));
    contended<<<1, 256>>>(g_flag, g_flag + 1, lanes, sleep_ns);
    CHECK(cudaDeviceSynchronize());
    return last_estimate();
  };
  const Estimate spin = contended_run(32, 0), sleep1 = contended_run(32, 1000), sleep2 = contended_run(32, 2000);
  expect(spin.path > sleep1.path, "contended: waiters that try without pause make the lock's hand-overs slower",
         spin.path, sleep1.path);
  expect(spin.contended > 0 && sleep1.contended == 0,
         "contended: the profile counts the requests that waited behind the tries (none when the waiters sleep)",
         double(spin.contended), double(sleep1.contended));
  expect(sleep1.path == sleep2.path, "contended: waiters that sleep build no queue, and the sleep is off the chain",
         sleep1.path, sleep2.path);

  // An mbarrier wait that found its phase incomplete is a poll: the estimate is the same however
  // long the waiting warp polled.
  Estimate bar[3];
  const char* scheds[3] = {"rr", "random", "random"};
  for (int k = 0; k < 3; ++k) {
    synclab::sim::set_scheduler(scheds[k], 7 + 10 * k);
    mbarrier_handover<<<1, 64>>>(g_in, 200, g_out);
    CHECK(cudaDeviceSynchronize());
    bar[k] = last_estimate();
  }
  expect(bar[0].shared_loads != bar[1].shared_loads || bar[0].shared_loads != bar[2].shared_loads,
         "mbarrier_handover: the schedules' waits polled different numbers of times", double(bar[1].shared_loads),
         double(bar[2].shared_loads));
  expect(bar[0].shared == bar[1].shared && bar[0].shared == bar[2].shared && bar[0].shared > 0,
         "mbarrier_handover: the estimate's shared-memory pipe counts the wait that found the phase complete, "
         "not the polls",
         bar[1].shared, bar[2].shared);
  // (The chain, up to the last try's few instructions: polls counted would add hundreds of cycles.)
  expect(std::fabs(bar[0].path - bar[1].path) < 0.005 && std::fabs(bar[0].path - bar[2].path) < 0.005,
         "mbarrier_handover: nor does the chain", bar[1].path, bar[2].path);
  // (Nor the instructions issued, up to the last try's few: each poll's, counted, would be a few
  // more, some 40 polls apart between these schedules.)
  expect(std::fabs(bar[0].issue - bar[1].issue) < 0.001 && std::fabs(bar[0].issue - bar[2].issue) < 0.001,
         "mbarrier_handover: nor do the instructions counted", bar[1].issue, bar[2].issue);
  synclab::sim::set_scheduler("rr", 7);
  mbarrier_handover<<<1, 64>>>(g_in, 0, g_out);
  CHECK(cudaDeviceSynchronize());
  const Estimate no_work = last_estimate();
  expect(bar[0].path > no_work.path, "mbarrier_handover: the wait ends after warp 0's work and arrival", bar[0].path,
         no_work.path);

  // 32 lanes on one word: shared memory takes 32 turns, global memory combines the warp's adds.
  synclab::sim::set_scheduler("rr", 1);
  one_word<<<1, 32>>>(g_out, 1);
  CHECK(cudaDeviceSynchronize());
  const Estimate shared = last_estimate();
  one_word<<<1, 32>>>(g_out, 0);
  CHECK(cudaDeviceSynchronize());
  const Estimate global = last_estimate();
  expect(global.atomic > 0 && shared.atomic > 31.5 * global.atomic && shared.atomic < 32.5 * global.atomic,
         "one_word: a warp's shared atomics on one word take 32 turns, its global ones one", shared.atomic,
         global.atomic);

  std::printf("%s\n", failures ? "handover: FAILED" : "handover: all passed");
  return failures ? 1 : 0;
}
