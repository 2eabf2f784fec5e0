// Lab 09 (tiny-lock wavefronts): the harness's host side (provided). Each run_* function uploads
// the inputs, launches the student's kernel under the simulator's current settings and collects the
// simulator's reports (none on a GPU). A stuck launch is an outcome, not an exception: before the
// device is reset, the kernel's LockLog is read back and turned into a sentence naming each lock
// bit still held, its holder and the address it was taken for, and what each stuck thread waits for.
#include <cuda_runtime.h>

#include <cstdio>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab09.h"
#include "lab09_kernels.cuh"
#include "lab_harness.cuh"

namespace {

using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::OnFailure;
using synclab::lab::Report;
using synclab::lab::TraceScope;

bool naming_regions(const char* trace) {
  if (!trace || !*trace) return false;
  synclab::regions::clear();
  return true;
}

std::string hex(unsigned long long v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", v);
  return buf;
}

// "account 5 (0x7f..14)" for an address in the kernel's locked array of ints named `what`.
std::string element(const LockLog& log, unsigned long long addr, const char* what) {
  const long long index = (long long)(addr - log.base) / 4;
  return std::string(what) + " " + std::to_string(index) + " (address " + hex(addr) + ")";
}

std::string who(int tid) {
  return "thread " + std::to_string(tid) + " (warp " + std::to_string(tid / 32) + ", lane " + std::to_string(tid % 32) +
         ")";
}

// ---- the naive first tries of tasks 2 and 3 (`--version naive`) ---------------------------------------
// Task 2: every thread waits in tl_lock for its counter's bit. Lanes of one warp with one key want
// one bit: under lockstep, the SIMD deadlock.
__global__ void lock_count_naive(const int* keys, int n, int bins, int* out, LockLog* log) {
  __shared__ TinyLockTable locks;
  __shared__ int hist[kMaxBins];
  for (int b = int(threadIdx.x); b < bins; b += int(blockDim.x)) hist[b] = 0;
  if (threadIdx.x == 0 && log) log->base = reinterpret_cast<uintptr_t>(hist);
  tl_init(locks);
  const int i = int(threadIdx.x);
  if (i < n) {
    int* counter = &hist[keys[i]];
    tl_lock(locks, counter, log);
    *counter += 1;
    tl_unlock(locks, counter, log);
  }
  __syncthreads();
  for (int b = int(threadIdx.x); b < bins; b += int(blockDim.x)) out[b] = hist[b];
}

// Task 3: lock a, then b. When their bits alias the thread waits for itself (the alias deadlock);
// two warps going opposite ways between two accounts wait for each other.
__global__ void transfers_naive(const int* from, const int* to, const int* amount, int* balance, LockLog* log) {
  __shared__ TinyLockTable locks;
  __shared__ int account[kAccounts];
  for (int a = int(threadIdx.x); a < kAccounts; a += int(blockDim.x)) account[a] = balance[a];
  if (threadIdx.x == 0 && log) log->base = reinterpret_cast<uintptr_t>(account);
  tl_init(locks);
  const int w = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) {
    int* a = &account[from[w]];
    int* b = &account[to[w]];
    tl_lock(locks, a, log);
    tl_lock(locks, b, log);
    *a -= amount[w];
    *b += amount[w];
    tl_unlock(locks, b, log);
    tl_unlock(locks, a, log);
  }
  __syncthreads();
  for (int a = int(threadIdx.x); a < kAccounts; a += int(blockDim.x)) balance[a] = account[a];
}

// The threads a lockstep report finds parked at a reconvergence point ("block 0 warp 2: lanes 0,3
// wait at the reconvergence point"): a lane parked there after its tl_lock's loop holds the bit.
std::vector<bool> parked_threads(const std::vector<Report>& reports, int threads) {
  std::vector<bool> parked(size_t(threads), false);
  static const std::regex line(R"(warp (\d+): lanes? ([0-9,-]+) wait at the reconvergence point)");
  for (const Report& r : reports)
    for (std::sregex_iterator it(r.text.begin(), r.text.end(), line), end; it != end; ++it) {
      const int warp = std::stoi((*it)[1]);
      std::stringstream list((*it)[2].str());
      for (std::string range; std::getline(list, range, ',');) {
        const size_t dash = range.find('-');
        const int lo = std::stoi(range.substr(0, dash)),
                  hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
        for (int l = lo; l <= hi; ++l)
          if (32 * warp + l < threads) parked[size_t(32 * warp + l)] = true;
      }
    }
  return parked;
}

// What a LockLog says about a stuck launch of `threads` threads.
std::string explain(const LockLog& log, int threads, const char* what, const std::vector<Report>& reports) {
  std::string out;
  const std::vector<bool> parked = parked_threads(reports, threads);
  std::vector<int> parked_holder(kLockBits, -1);  // the bit a parked lane got in its tl_lock
  for (int t = 0; t < threads && t < kLogThreads; ++t)
    if (parked[size_t(t)] && log.wants_bit[t] >= 0 && log.wants_bit[t] < kLockBits)
      parked_holder[size_t(log.wants_bit[t])] = t;
  int lines = 0, more = 0;
  for (int t = 0; t < threads && t < kLogThreads; ++t) {
    const int b = log.wants_bit[t];
    if (b < 0 || b >= kLockBits) continue;
    if (lines == 8) {
      ++more;
      continue;
    }
    ++lines;
    const int h = log.holder[b] >= 0 ? log.holder[b] : parked_holder[size_t(b)];
    const unsigned long long held_for = log.holder[b] >= 0 ? log.held_for[b] : h >= 0 ? log.wants_addr[h] : 0;
    if (parked[size_t(t)]) {
      out += who(t) + " got lock bit " + std::to_string(b) + " for " + element(log, log.wants_addr[t], what) +
             " and waits at the reconvergence point for its warp-mates, which spin on bits they wait for: a SIMD "
             "deadlock\n";
      continue;
    }
    out += who(t) + " waits for lock bit " + std::to_string(b) + " for " + element(log, log.wants_addr[t], what);
    if (h == t)
      out += ", a bit it holds itself, taken for " + element(log, held_for, what) +
             ": an alias deadlock (address bits 2-11 of the two are equal)";
    else if (h >= 0)
      out += "; " + who(h) + " holds it, taken for " + element(log, held_for, what);
    out += "\n";
  }
  if (more) out += "(and " + std::to_string(more) + " more threads waiting)\n";
  if (out.empty()) {
    for (int b = 0; b < kLockBits; ++b)
      if (log.holder[b] >= 0)
        out += "lock bit " + std::to_string(b) + " is held by " + who(log.holder[b]) + ", taken for " +
               element(log, log.held_for[b], what) + "\n";
  }
  if (!out.empty()) out.pop_back();
  return out;
}

// The LockLog of a run, in pinned host memory mapped into the device's address space: the host
// reads it through `host` after a stuck launch, when a cudaMemcpy would fail with the launch's
// error. Starts with nobody holding or wanting anything.
struct MappedLog {
  LockLog* host = nullptr;
  LockLog* device = nullptr;
  MappedLog() {
    SYNCLAB_LAB_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host), sizeof(LockLog), cudaHostAllocMapped));
    SYNCLAB_LAB_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), host, 0));
    for (int b = 0; b < kLockBits; ++b) host->holder[b] = -1, host->held_for[b] = 0;
    for (int t = 0; t < kLogThreads; ++t) host->wants_bit[t] = -1, host->wants_addr[t] = 0;
    host->base = 0;
    // On a GPU a deadlocked tl_lock gives up after about a second (2e9 cycles at 2 GHz); the
    // simulator finds and reports a deadlock itself, so there the wait is endless.
    host->patience = synclab::lab::on_simulator() ? 0 : 2000000000LL;
    host->gave_up = 0, host->gave_up_tid = host->gave_up_bit = host->gave_up_holder = -1;
    host->gave_up_wanted = host->gave_up_held_for = 0;
  }
  MappedLog(const MappedLog&) = delete;
  MappedLog& operator=(const MappedLog&) = delete;
  ~MappedLog() {
    if (generation_ == synclab::lab::device_generation()) cudaFreeHost(host);
  }

 private:
  int generation_ = synclab::lab::device_generation();
};

// Waits for the launch; a stuck or failed one is an outcome. `log` (when given) explains a stuck one.
bool finish(lab09::Outcome& out, MappedLog* log = nullptr, int threads = 0, const char* what = "") {
  const synclab::lab::Finish f = finish_launch(out.reports, OnFailure::keep_stuck);
  if (f.ok && log && log->host->gave_up) {  // a GPU: the kernel ended because a thread gave up
    const LockLog& l = *log->host;
    out.finished = false;
    out.error = "a thread waited over 2e9 cycles (about a second) for one lock bit and gave up";
    out.stuck = who(l.gave_up_tid) + " waited over 2e9 cycles for lock bit " + std::to_string(l.gave_up_bit) + " for " +
                element(l, l.gave_up_wanted, what);
    if (l.gave_up_holder == l.gave_up_tid)
      out.stuck += ", a bit it held itself, taken for " + element(l, l.gave_up_held_for, what) +
                   ": an alias deadlock (address bits 2-11 of the two are equal)";
    else if (l.gave_up_holder >= 0)
      out.stuck += "; " + who(l.gave_up_holder) + " held it, taken for " + element(l, l.gave_up_held_for, what);
    return false;
  }
  if (f.ok) return true;
  out.finished = false;
  out.error = f.error;
  if (log) out.stuck = explain(*log->host, threads, what, out.reports);
  synclab::lab::reset_device();
  return false;
}

}  // namespace

namespace lab09 {

// ---- task 1 ---------------------------------------------------------------------------------------------
ChannelRun run_channels(int values, const char* trace) {
  if (values < 1 || values > 1000) throw std::invalid_argument("--values takes 1..1000");
  ChannelRun r;
  DeviceArray<int> out(static_cast<size_t>(32 * values));
  SYNCLAB_LAB_CHECK(cudaMemset(out.ptr, 0xff, out.bytes()));
  if (naming_regions(trace)) {
    synclab_region_shared(channel_pairs, "locks", sizeof(TinyLockTable), "lock-bits", 32, 32);
    synclab_region_shared(channel_pairs, "slot", 32 * sizeof(int), "array", 32);
  }
  {
    TraceScope scope(trace);
    channel_pairs<<<1, 64>>>(out.ptr, values);
    if (!finish(r)) return r;
  }
  r.out = out.download();
  return r;
}

// ---- task 2 ---------------------------------------------------------------------------------------------
std::vector<int> count_keys(int n, int bins, uint64_t seed) {
  synclab::lab::Xorshift64 rng{seed * 7919 + 11};
  std::vector<int> keys(static_cast<size_t>(n));
  for (int& k : keys) k = int(rng.next() % uint64_t(bins));
  return keys;
}

std::string task2_answer(const std::string& question) {
  return synclab::lab::answer_in(::task2_answers_text(), question);
}

std::string task4_answer(const std::string& question) {
  return synclab::lab::answer_in(::task4_answers_text(), question);
}

CountRun run_count(int n, int bins, uint64_t seed, const char* trace, Version v) {
  if (n < 1 || n > 1024 || bins < 1 || bins > kMaxBins)
    throw std::invalid_argument("--keys takes 1..1024, --bins 1.." + std::to_string(kMaxBins));
  CountRun r;
  DeviceArray<int> keys(static_cast<size_t>(n)), out(size_t(bins), synclab::lab::zeroed);
  keys.upload(count_keys(n, bins, seed));
  MappedLog log;
  auto kernel = v == Version::naive ? lock_count_naive : lock_count;
  if (naming_regions(trace)) {
    synclab_region_shared(kernel, "locks", sizeof(TinyLockTable), "lock-bits", 32, 32);
    synclab_region_shared(kernel, "hist", size_t(kMaxBins) * sizeof(int), "array", kMaxBins);
  }
  {
    TraceScope scope(trace);
    kernel<<<1, (n + 31) / 32 * 32>>>(keys.ptr, n, bins, out.ptr, log.device);
    if (!finish(r, &log, n, "hist")) return r;
  }
  r.hist = out.download();
  return r;
}

// ---- task 3 ---------------------------------------------------------------------------------------------
std::vector<Transfer> transfer_list(int warps, uint64_t seed) {
  synclab::lab::Xorshift64 rng{seed * 104729 + 3};
  std::vector<Transfer> v;
  for (int w = 0; w < warps; ++w) {
    Transfer t;
    t.amount = 1 + int(rng.next() % 50);
    t.from = int(rng.next() % kAccounts);
    const bool crossing = (w / 3) % 2 == 1;  // warps 4-5, 10-11, ...
    if (w % 3 == 0) {
      t.to = (t.from + 1024) % kAccounts;  // lock bits alias
    } else if (w % 3 == 2 && !crossing) {
      t.from = v[size_t(w - 1)].to, t.to = v[size_t(w - 1)].from;  // the other way
    } else if (w % 3 == 2) {
      // The accounts aliasing the previous transfer's, the other way: the same two lock bits, but
      // the account that comes first by address has the other bit (the previous transfer's
      // accounts lie in different halves), so taking the locks in address order can deadlock.
      t.from = v[size_t(w - 1)].to ^ 1024, t.to = v[size_t(w - 1)].from ^ 1024;
    } else if (crossing) {
      t.to = int(rng.next() % 1024) + (t.from < 1024 ? 1024 : 0);  // in the other half
    } else {
      t.to = int(rng.next() % kAccounts);
    }
    v.push_back(t);
  }
  return v;
}

std::vector<int> opening_balances() {
  std::vector<int> b(kAccounts);
  for (int a = 0; a < kAccounts; ++a) b[size_t(a)] = 1000 + (a * 37) % 101;
  return b;
}

TransferRun run_transfers(int warps, uint64_t seed, const char* trace, Version v) {
  if (warps < 1 || warps > 32) throw std::invalid_argument("--warps takes 1..32");
  TransferRun r;
  std::vector<int> from, to, amount;
  for (const Transfer& t : transfer_list(warps, seed))
    from.push_back(t.from), to.push_back(t.to), amount.push_back(t.amount);
  DeviceArray<int> f(from.size()), t(to.size()), a(amount.size()), balance(static_cast<size_t>(kAccounts));
  f.upload(from), t.upload(to), a.upload(amount), balance.upload(opening_balances());
  MappedLog log;
  auto kernel = v == Version::naive ? transfers_naive : transfers;
  if (naming_regions(trace)) synclab_region_shared(kernel, "locks", sizeof(TinyLockTable), "lock-bits", 32, 32);
  {
    TraceScope scope(trace);
    kernel<<<1, 32 * warps>>>(f.ptr, t.ptr, a.ptr, balance.ptr, log.device);
    if (!finish(r, &log, 32 * warps, "account")) return r;
  }
  r.balance = balance.download();
  return r;
}

// ---- task 4 ---------------------------------------------------------------------------------------------
const char* const kSchemeNames[7] = {"atom_lock", "warp_barr", "shrd_lock", "tiny_lock",
                                     "warp_vote", "mbarrier",  "flag"};

int scheme_index(const std::string& name) {
  for (int i = 0; i < kSchemes; ++i)
    if (name == kSchemeNames[i]) return i;
  throw std::invalid_argument("unknown scheme '" + name +
                              "' (atom_lock, warp_barr, shrd_lock, tiny_lock, warp_vote, mbarrier, flag)");
}

std::vector<int> chain_input(uint64_t seed) {
  synclab::lab::Xorshift64 rng{seed * 31 + 5};
  std::vector<int> v(32);
  for (int& x : v) x = int(rng.next() % 1000);
  return v;
}

ChainRun run_chain(int scheme, uint64_t seed, const char* trace) {
  if (scheme < 0 || scheme >= kSchemes) throw std::invalid_argument("no such scheme");
  ChainRun r;
  DeviceArray<int> input(32), out(static_cast<size_t>(kChainThreads));
  DeviceArray<long long> cycles(1, synclab::lab::zeroed);
  input.upload(chain_input(seed));
  if (naming_regions(trace))  // A[0..543], the first member of the kernel's __shared__ ChainShared chain
    synclab_region_shared(chain_kernel_address(Scheme(scheme)), "chain", size_t(kChainThreads + 32) * sizeof(int),
                          "matrix", 17, 32);
  {
    TraceScope scope(trace);
    launch_chain(Scheme(scheme), input.ptr, out.ptr, cycles.ptr);
    if (!finish(r)) return r;
  }
  r.out = out.download();
  r.cycles = cycles.download()[0];
  return r;
}

// ---- task 6 ---------------------------------------------------------------------------------------------
static_assert(kPipeWarpsHost == kPipeWarps, "lab09.h's kPipeWarpsHost is lab09_kernels.cuh's kPipeWarps");

PipeRun run_pipeline(int values, const char* trace) {
  if (values < 1 || values > 1000) throw std::invalid_argument("--values takes 1..1000");
  PipeRun r;
  DeviceArray<int> out(static_cast<size_t>(32 * values));
  SYNCLAB_LAB_CHECK(cudaMemset(out.ptr, 0xff, out.bytes()));
  if (naming_regions(trace))  // s.value, the first member of the kernel's __shared__ PipeShared s: a row per link
    synclab_region_shared(pipeline, "s", size_t(kPipeWarps) * 32 * sizeof(int), "matrix", kPipeWarps, 32);
  {
    TraceScope scope(trace);
    pipeline<<<1, 32 * kPipeWarps>>>(out.ptr, values);
    if (!finish(r)) return r;
  }
  r.out = out.download();
  return r;
}

// ---- task 5 ---------------------------------------------------------------------------------------------
const char* name(NwVersion v) { return v == NwVersion::wavefront ? "wavefront" : "dataflow"; }

NwVersion nw_version(const std::string& name) {
  if (name == "wavefront") return NwVersion::wavefront;
  if (name == "dataflow") return NwVersion::dataflow;
  throw std::invalid_argument("--version takes wavefront or dataflow, not '" + name + "'");
}

std::vector<int> nw_sequence(int n, uint64_t seed) {
  synclab::lab::Xorshift64 rng{seed * 6151 + 17};
  std::vector<int> v(static_cast<size_t>(n));
  for (int& x : v) x = int(rng.next() % 4);
  return v;
}

NwRun run_nw(NwVersion v, int n, uint64_t seed, const char* trace) {
  if (n < kNwTile || n > 1024 || n % kNwTile)
    throw std::invalid_argument("--n takes a multiple of " + std::to_string(kNwTile) + " up to 1024");
  NwRun r;
  const int tiles = n / kNwTile;
  std::vector<int> S0(static_cast<size_t>((n + 1) * (n + 1)), 0);
  for (int j = 0; j <= n; ++j) S0[size_t(j)] = -kNwGap * j;
  for (int i = 0; i <= n; ++i) S0[size_t(i * (n + 1))] = -kNwGap * i;
  DeviceArray<int> S(S0.size()), a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  DeviceArray<int> ready(static_cast<size_t>(tiles * tiles), synclab::lab::zeroed), next(1, synclab::lab::zeroed);
  S.upload(S0), a.upload(nw_sequence(n, seed)), b.upload(nw_sequence(n, seed + 1000));
  if (naming_regions(trace)) {
    synclab_region(S.ptr, S.bytes(), "score", "matrix", n + 1, n + 1);
    if (v == NwVersion::dataflow) synclab_region(ready.ptr, ready.bytes(), "tile ready", "flags", tiles * tiles);
  }
  {
    TraceScope scope(trace);
    if (v == NwVersion::wavefront) {
      // Kernels of one stream run in order, so the diagonals' launches cannot race with each other;
      // the reports collected are those of the last launch.
      nw_wavefront(S.ptr, a.ptr, b.ptr, n);
    } else {
      nw_dataflow<<<tiles * tiles, kNwTile>>>(S.ptr, a.ptr, b.ptr, n, ready.ptr, next.ptr);
    }
    if (!finish(r)) return r;
  }
  r.S = S.download();
  return r;
}

}  // namespace lab09
