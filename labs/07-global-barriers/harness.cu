// Lab 07 (global barriers): the harness's host side (provided). Each run_* function allocates,
// launches the student files' kernels under the simulator's current settings, copies the result
// back, and collects the simulator's reports (none on a GPU). A fault, hang or deadlock throws
// synclab::lab::CudaFailure naming this file's line, unless the caller keeps a stuck launch.
#include <cuda_runtime.h>

#include <cooperative_groups.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab07.h"
#include "lab07_kernels.cuh"
#include "lab_harness.cuh"

namespace cg = cooperative_groups;

namespace lab07 {

using synclab::lab::check_shape;
using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::OnFailure;
using synclab::lab::TraceScope;

// The reference: the same exchange with cooperative groups' grid barrier (CUDA 9 and later). It
// needs a cooperative launch, which the runtime refuses when the blocks cannot all be resident.
__global__ void exchange_grid_sync(const unsigned* in, unsigned* out, unsigned* slots, int rounds) {
  cg::grid_group grid = cg::this_grid();
  const int n = gridDim.x * blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int j = (i + blockDim.x) % n;
  unsigned x = in[i];
  for (int r = 0; r < rounds; ++r) {
    unsigned* buf = slots + (r & 1) * n;
    buf[i] = x;
    grid.sync();
    x = exchange_step(x, buf[j], r);
  }
  out[i] = x;
}

const char* name(Way w) {
  switch (w) {
    case Way::cpu_explicit: return "explicit";
    case Way::cpu_implicit: return "implicit";
    case Way::simple: return "simple";
    case Way::tree: return "tree";
    case Way::lockfree: return "lockfree";
    case Way::sense: return "sense";
    case Way::grid_sync: return "grid-sync";
    case Way::own: return "own";
  }
  return "?";
}

Way way(const std::string& n) {
  for (Way w : {Way::cpu_explicit, Way::cpu_implicit, Way::simple, Way::tree, Way::lockfree, Way::sense,
                Way::grid_sync, Way::own})
    if (n == name(w)) return w;
  throw std::invalid_argument("unknown method '" + n +
                              "' (explicit, implicit, simple, tree, lockfree, sense, grid-sync or own)");
}

bool in_one_launch(Way w) { return w != Way::cpu_explicit && w != Way::cpu_implicit; }

int barrier_rounds(Way w, int rounds) { return w == Way::own ? 2 * rounds + 1 : rounds; }

std::string atomics_advice(Way w) {
  if (w == Way::own)
    return "Count every atomic of your barrier in a round: the arrival (one per block), what the block that "
           "completes the round does with atomics (a reset with atomicExch, a generation moved with atomicAdd: "
           "with one block that block pays for them too, so one atomic arrival plus two more is three), and a "
           "wait that polls with atomics (atomicAdd(x, 0), atomicCAS: one per poll). Arrive with one atomic, "
           "and let the last block reset and release with plain (volatile) stores after a __threadfence(), "
           "the waiting blocks poll with loads (through a volatile pointer), or arrive with an atomic that "
           "wraps by itself (atomicInc).";
  return "One thread of each block (thread 0) arrives for the whole block, between the barrier's two "
         "__syncthreads(); the block's other threads wait at the __syncthreads(), not on the counter; and the spin "
         "reads the counter with a volatile load (or a cuda::atomic_ref load), not with atomics such as "
         "atomicAdd(count, 0) or atomicCAS.";
}

const char* todo_of(Way w) {
  switch (w) {
    case Way::cpu_explicit: return "TODO(1)";
    case Way::cpu_implicit: return "TODO(2)";
    case Way::simple: return "TODO(3)";
    case Way::tree: return "TODO(4)";
    case Way::lockfree: return "TODO(5)";
    case Way::sense: return "TODO(6)";
    case Way::own: return "TODO(10)";
    default: return "the TODO";
  }
}

namespace {
// A launch stuck with no block waiting for an SM slot: what keeps the method's waiters waiting.
std::string stuck_advice(Way w) {
  switch (w) {
    case Way::tree:
      return "a block waits for an arrival that never comes: the top counter reaches (the number of groups) x round "
             "only if the last block of every group adds 1 to it, the last group's too, which holds fewer than "
             "kTreeGroup blocks when kTreeGroup does not divide gridDim.x (size: the blocks of that group); and "
             "thread 0 waits until *top reaches the goal (<), not for it to equal the goal";
    case Way::lockfree:
      return "a block waits for an arrival that never comes: block 0's thread t waits until arrive[t] == round and "
             "thread 0 of block b until depart[b] == round, so every block writes round to arrive[blockIdx.x] and "
             "block 0's thread t writes round to depart[t] for every t < gridDim.x";
    case Way::sense:
      return "a block waits for a sense flip that never comes: the last block to arrive (its atomicAdd returns "
             "gridDim.x - 1) resets *count to 0 before it writes my_sense to *sense, so that the next round counts "
             "from 0 again; every other block spins until *sense == my_sense. Use atomicExch(count, 0u) for the "
             "reset (device scope, not a plain store or atomicExch_block): every block's next atomicAdd must come "
             "after it";
    case Way::own:
      return "a block waits for a release that never comes, already in the first launch: check that some block "
             "finds that it is the last to arrive in every round (atomicAdd returns the count before its own "
             "addition, so the last block sees gridDim.x - 1 when every block adds 1), that the block which "
             "finds it writes what the others wait for, and that they wait for that word to change (or to "
             "reach a value), not to equal a value it may already have passed";
    default:
      return "a block waits for an arrival that never comes: wait until the counter reaches the goal (>=), not for "
             "it to equal the goal -- a fast block may already have added its arrival for the next round";
  }
}

// A spin loop that reads no memory: the wait's load is a plain one, which the compiler read once,
// before the loop (the report says so); what the method's waiting thread reads in its loop.
std::string spin_load_advice(Way w) {
  const char* word = w == Way::tree       ? "*top"
                     : w == Way::lockfree ? "arrive[t] or depart[blockIdx.x]"
                     : w == Way::sense    ? "*sense"
                     : w == Way::own      ? "the word of state that your wait loop polls"
                                          : "*count";
  const char* example = w == Way::tree       ? "*(volatile unsigned*)top"
                        : w == Way::lockfree ? "*(volatile unsigned*)&depart[blockIdx.x]"
                        : w == Way::sense    ? "*(volatile unsigned*)sense"
                        : w == Way::own      ? "*(volatile unsigned*)&state[i]"
                                             : "*(volatile unsigned*)count";
  return std::string("the wait loop reads no memory: the compiler read ") + word +
         " once, before the loop (a plain load), and the loop tests that register for ever -- read it in the "
         "loop's condition through a volatile pointer (" + example + ") or with an atomic load (cuda::atomic_ref)";
}

// A race at the exchange's read with no hand-over through the barrier's memory: a __syncthreads()
// of the barrier is missing or not reached. The race report reads the same for either one, so the
// advice names both.
std::string syncthreads_advice(Way w) {
  return std::string("a thread read a neighbour's slot before that block wrote it, or while it wrote it: put both "
                     "__syncthreads() in the barrier -- the first, so that thread 0 signals the block's arrival only "
                     "after every thread of the block wrote its slot; the second, so that no thread of the block goes "
                     "on before thread 0 saw every block arrive") +
         (w == Way::lockfree ? "; and in block 0, one between the checks of arrive and the writes of depart" : "");
}
}  // namespace

std::string exchange_advice(Way w, const ExchangeResult& r, bool values_right, bool values_unchanged) {
  if (r.refused) return "the cooperative launch was refused: " + r.error;
  if (w == Way::own && !r.reports.empty() && r.reports.front().kind == "fault")
    return "your barrier touched memory outside its state: it has kOwnWords (" + std::to_string(kOwnWords) +
           ") words, whatever the number of blocks, so a word per block does not fit once there are more blocks "
           "than that -- keep what the barrier needs in a fixed number of words";
  if (w == Way::own && r.first_launch_right && (r.stuck || !values_right || !r.reports.empty()))
    return std::string("the first launch was right and the second ") +
           (r.stuck ? "got stuck" : "was not") +
           ". The second launch starts from the state the first one left (it is not zeroed again) and counts its "
           "rounds from 1 again, so a barrier that compares a counter that is never reset with a goal computed "
           "from `round`, or keeps its sense only in a register that starts at 0, lets blocks through before the "
           "others arrived, or waits for a value the state never takes. Make every round leave the state "
           "where the next round (of this launch or the next) starts: for example reset what counts the "
           "arrivals, and have the waiting blocks wait for a word to change rather than to reach a value computed "
           "from `round`";
  if (r.stuck && !r.reports.empty() && r.reports.front().text.find("wait for a free SM slot") != std::string::npos)
    return "more blocks than the device holds at once: the resident blocks wait at the barrier for blocks that "
           "cannot start until one of them ends -- launch at most coresident_blocks() blocks (task 7)";
  if (r.stuck && !r.reports.empty() && r.reports.front().kind == "hang" &&
      r.reports.front().text.find("reads no memory") != std::string::npos)
    return spin_load_advice(w);
  if (r.stuck && (r.reports.empty() || r.reports.front().kind != "sync")) return stuck_advice(w);
  if (r.reports.empty()) {
    if (values_right) return "";
    const std::string cpu_hint =
        in_one_launch(w) ? "" : " It launches exchange_round once per round and swaps the buffers between rounds.";
    if (values_unchanged) return std::string("the values never changed: is ") + todo_of(w) + " done?" + cpu_hint;
    return std::string("the values are wrong although nothing was reported: is ") + todo_of(w) + " done?" + cpu_hint;
  }
  if (!r.stuck && in_one_launch(w) && w != Way::grid_sync && !r.barrier_used)
    return std::string("the barrier never changed its counters, flags or arrays: is ") + todo_of(w) + " done?";
  const Report& f = r.reports.front();
  if (f.kind == "sync")
    return "every thread of the block must reach each __syncthreads() of the barrier: keep them outside the ifs and "
           "put only the checking threads' spins and stores inside";
  if (f.kind != "race") return "";
  // A hand-over of block scope between blocks: the report names the fence or atomic and the scope
  // to use; the barrier's __syncthreads() are not the question.
  if (f.text.find("but with block scope") != std::string::npos ||
      f.text.find("insufficient-scope") != std::string::npos)
    return "a fence or atomic of the barrier has block scope (the report names it): blocks hand over to each "
           "other, so use the device-scope forms, __threadfence() and atomicAdd/atomicExch, not "
           "__threadfence_block() or the _block atomics";
  // The race checker says how the two blocks handed over: through a release whose thread had not
  // synchronized with the writer (a missing __syncthreads() before the release), through the
  // barrier's counter or flag without a fence (a missing __threadfence()), or not at all (a missing
  // __syncthreads()).
  const size_t unsynced = f.text.find(" had not synchronized with block ");
  if (unsynced != std::string::npos) {
    const size_t at = f.text.rfind("block ", unsynced);
    unsigned releaser = 0, thread = 0, writer = 0, wthread = 0;
    if (at != std::string::npos &&
        std::sscanf(f.text.c_str() + at, "block %u thread %u had not synchronized with block %u thread %u", &releaser,
                    &thread, &writer, &wthread) == 4) {
      if (releaser == writer)
        return "thread " + std::to_string(thread) + " of block " + std::to_string(releaser) +
               " handed the block's arrival over before thread " + std::to_string(wthread) +
               " of the block wrote its slot: a __syncthreads() at the start of the barrier, before thread 0 "
               "signals the arrival, makes every thread's slot write part of what the arrival releases";
      if ((w == Way::simple || w == Way::sense) && releaser != writer)
        return "block " + std::to_string(writer) + "'s writes reached this block's thread 0 through block " +
               std::to_string(releaser) + "'s arrival: one block's release passes on another's writes only when "
               "each side fences at device scope. Put __threadfence() (not __threadfence_block()) right before "
               "thread 0's atomicAdd on *count and right after its wait loop, whichever of the two is missing or "
               "narrowed";
      if (w == Way::tree && releaser != writer)
        return "block " + std::to_string(releaser) + " passed its group's arrivals up to *top without having "
               "acquired block " + std::to_string(writer) + "'s writes, which reach *top only through groups[g]: "
               "block " + std::to_string(writer) + " releases them with __threadfence() before its atomicAdd on "
               "groups[g], and the block that finds its group complete passes them on with __threadfence() "
               "between that atomicAdd and its atomicAdd on *top. Put back the one of these two __threadfence() "
               "calls that is missing (or narrowed to __threadfence_block())";
      if (w == Way::lockfree && releaser == 0)
        return "block 0's thread " + std::to_string(thread) + " wrote depart[" + std::to_string(thread) +
               "] when it had seen block " + std::to_string(thread) + "'s arrival only, not block " +
               std::to_string(writer) + "'s: in block 0, a __syncthreads() between the checks of arrive and the "
               "writes of depart lets each thread release its block only after every block arrived, and passes "
               "on what the other checking threads acquired; and block " + std::to_string(writer) +
               "'s arrival passes on its writes only if it is a release, with __threadfence() right before "
               "thread 0's write of arrive[blockIdx.x]. Put back that __syncthreads() in block 0 or that "
               "__threadfence(), whichever is missing (or narrowed to __threadfence_block())";
    }
  }
  // Which side lacks its fence, as the race report says: the releasing side (the waiting thread
  // fenced after taking over), the acquiring side (it read the arrival but did not fence after
  // it), or both.
  const bool release_missing = f.text.find("the other side did not release") != std::string::npos;
  const bool acquire_missing = f.text.find("did not acquire it") != std::string::npos;
  const bool both_missing = f.text.find("without release/acquire ordering") != std::string::npos;
  if (release_missing || acquire_missing || both_missing) {
    std::string fix =
        "the barrier orders the rounds but not the memory: without __threadfence() a block's slot writes need not be "
        "visible to a block that passes the barrier after it (the paper saw no wrong result on a GTX 280, section "
        "VII.E, but the memory model promises nothing). ";
    std::string release, acquire;
    switch (w) {
      case Way::tree:
        release = "a __threadfence() right before each atomicAdd that signals an arrival: thread 0's own (groups[g]), "
                  "and the one with which the last block of a group passes its group's arrivals up (top), so "
                  "that its arrival there releases what its group-mates wrote, not only its own writes";
        acquire = "thread 0 fences right after its wait loop on *top, before the second __syncthreads()";
        break;
      case Way::lockfree:
        release = "a __threadfence() right before each store that hands over: thread 0's write of "
                  "arrive[blockIdx.x], and in block 0 each checking thread's write of depart[t]";
        acquire = "a __threadfence() right after each wait: in block 0 after thread t's wait for arrive[t], and "
                  "thread 0's after its wait for depart[blockIdx.x]";
        break;
      case Way::sense:
        release = "a __threadfence() right before each store or atomic that hands over: thread 0's before its "
                  "atomicAdd on *count, and the last block's before it flips the sense";
        acquire = "thread 0 fences after it saw every block arrive: after its wait for the sense flip, and in "
                  "the last block after its atomicAdd returned gridDim.x - 1 (one __threadfence() after the "
                  "if/else serves both), before the second __syncthreads()";
        break;
      case Way::own:
        release = "a __threadfence() right before each atomic or store with which a block signals its arrival, "
                  "passes other blocks' arrivals on, or releases the waiting blocks";
        acquire = "a __threadfence() right after each thread that waited saw the release (after its wait loop), "
                  "and in the block that releases the others right after the atomic that told it every block had "
                  "arrived, before the second __syncthreads()";
        break;
      default:
        release = "thread 0 calls __threadfence() right before its atomicAdd signals the block's arrival";
        acquire = "thread 0 calls __threadfence() right after its wait loop, before the second __syncthreads()";
        break;
    }
    if (release_missing) return fix + "The releasing side is missing: " + release;
    if (acquire_missing) return fix + "The waiting side is missing: " + acquire;
    return fix + "Both sides are missing: " + release + "; and " + acquire;
  }
  if (w == Way::own)  // (a design of the student's: name every part a barrier needs)
    return "a thread read a neighbour's slot before that block's write of it was ordered before the read: a grid "
           "barrier needs all four of its parts -- a __syncthreads() before the block's arrival (every thread's "
           "write first), a __threadfence() between the writes and the arrival (release), a __threadfence() "
           "after the wait saw the release (acquire), and a __syncthreads() after the wait (no thread of the "
           "block goes on before it) -- check which of them your barrier lacks on the path this run took";
  return syncthreads_advice(w);
}

std::vector<unsigned> exchange_on_host(std::vector<unsigned> x, int blocks, int threads, int rounds) {
  const size_t n = size_t(blocks) * threads;
  std::vector<unsigned> next(n);
  for (int r = 0; r < rounds; ++r, x.swap(next))
    for (size_t i = 0; i < n; ++i) next[i] = exchange_step(x[i], x[(i + threads) % n], r);
  return x;
}

std::vector<unsigned> random_inputs(int n, uint32_t seed) {
  std::vector<unsigned> v(n > 0 ? n : 0);
  synclab::lab::Xorshift64 random{0x2545f4914f6cdd1dull ^ seed};
  for (unsigned& x : v) x = unsigned(random.next() % 1000);
  return v;
}

std::string random_sequence(int n, uint32_t seed) {
  std::string s(n > 0 ? n : 0, 'A');
  synclab::lab::Xorshift64 random{0x9e3779b97f4a7c15ull ^ seed};
  for (char& c : s) c = "ACGT"[random.next() % 4];
  return s;
}

SwScores sw_scores() { return {kMatch, kMismatch, kGap}; }
long long predicted_sw_barriers(int m, int n) { return sw_barriers(m, n); }
long long predicted_bitonic_barriers(int n) { return bitonic_barriers(n); }

int coresident(Way w, int threads) {
  if (!in_one_launch(w)) return 0;
  const void* kernel = w == Way::grid_sync ? (const void*)exchange_grid_sync
                       : w == Way::own      ? (const void*)exchange_own
                                            : (const void*)exchange_gpu;
  return coresident_blocks(kernel, threads);
}

// ---- tasks 1-7 ----------------------------------------------------------------------------------
ExchangeResult run_exchange(Way w, const std::vector<unsigned>& in, int blocks, int threads, int rounds,
                            bool keep_stuck, const char* trace) {
  ExchangeResult r;
  if (blocks == 0) {
    blocks = coresident(w, threads);
    if (blocks < 1)
      throw std::invalid_argument("coresident_blocks() says " + std::to_string(blocks) +
                                  " blocks fit at once (is TODO(7) done?)");
  }
  r.blocks = blocks;
  check_shape(blocks, threads);
  const size_t n = size_t(blocks) * threads;
  if (in.size() != n)
    throw std::invalid_argument("need blocks x threads = " + std::to_string(n) + " values, not " +
                                std::to_string(in.size()));
  if (w == Way::lockfree && threads < blocks)
    throw std::invalid_argument("the lock-free barrier needs at least as many threads per block as blocks (block 0's "
                                "thread t watches block t)");
  DeviceArray<unsigned> a(n), b(n, synclab::lab::zeroed), slots(2 * n, synclab::lab::zeroed);
  DeviceArray<unsigned> count(1, synclab::lab::zeroed), groups(blocks, synclab::lab::zeroed),
      arrive(blocks, synclab::lab::zeroed), depart(blocks, synclab::lab::zeroed), sense(1, synclab::lab::zeroed),
      own(kOwnWords, synclab::lab::zeroed);
  a.upload(in);
  if (trace) {
    synclab_region(slots.ptr, slots.bytes(), "slots", "matrix", 2 * blocks, threads);
    if (w == Way::simple || w == Way::sense || w == Way::tree)
      synclab_region(count.ptr, count.bytes(), w == Way::tree ? "top" : "count", "array", 1);
    if (w == Way::tree) synclab_region(groups.ptr, groups.bytes(), "groups", "array", blocks);
    if (w == Way::sense) synclab_region(sense.ptr, sense.bytes(), "sense", "flags", 1);
    if (w == Way::lockfree) {
      synclab_region(arrive.ptr, arrive.bytes(), "arrive", "array", blocks);
      synclab_region(depart.ptr, depart.bytes(), "depart", "array", blocks);
    }
    if (w == Way::own) synclab_region(own.ptr, own.bytes(), "state", "array", kOwnWords);
  }
  if (w == Way::own) own.named("state");  // as own_grid_barrier's parameter is called
  // Task 10 keeps a fault as a result too: an access outside the barrier's words is a way to break
  // its contract, which the advice names.
  const OnFailure on_failure = !keep_stuck     ? OnFailure::throw_error
                               : w == Way::own ? OnFailure::keep_any
                                               : OnFailure::keep_stuck;
  unsigned* result = b.ptr;
  {
    TraceScope scope(trace);
    switch (w) {
      case Way::cpu_explicit:
      case Way::cpu_implicit: {
        result = w == Way::cpu_explicit ? cpu_explicit_rounds(a.ptr, b.ptr, blocks, threads, rounds)
                                        : cpu_implicit_rounds(a.ptr, b.ptr, blocks, threads, rounds);
        finish_launch(r.reports);
        if (result != a.ptr && result != b.ptr)
          throw std::runtime_error("the CPU rounds returned a pointer that is neither of the two buffers");
        break;
      }
      case Way::grid_sync: {
        int rr = rounds;
        void* args[] = {&a.ptr, &b.ptr, &slots.ptr, &rr};
        const cudaError_t e = cudaLaunchCooperativeKernel((const void*)exchange_grid_sync, dim3(blocks),
                                                          dim3(threads), args, 0, nullptr);
        if (e == cudaErrorCooperativeLaunchTooLarge) {
          cudaGetLastError();
          r.refused = true;
          r.error = cudaGetErrorString(e);
          return r;
        }
        SYNCLAB_LAB_CHECK(e);
        finish_launch(r.reports);
        break;
      }
      default: {
        BarrierState st{count.ptr, groups.ptr, arrive.ptr, depart.ptr, sense.ptr};
        // Task 10: a second launch on the first one's values, with the barrier state as the first
        // launch left it.
        const int launches = w == Way::own ? 2 : 1;
        for (int k = 0; k < launches; ++k) {
          unsigned* from = k == 0 ? a.ptr : b.ptr;
          unsigned* to = k == 0 ? b.ptr : a.ptr;
          if (w == Way::own)
            exchange_own<<<blocks, threads>>>(from, to, slots.ptr, own.ptr, rounds + k);
          else
            exchange_gpu<<<blocks, threads>>>(Method(int(w)), from, to, slots.ptr, st, rounds);
          synclab::lab::Finish f = finish_launch(r.reports, on_failure);
          if (f.stuck) {
            r.stuck = true;
            r.error = f.error;
            synclab::lab::reset_device();
            return r;
          }
          if (!f.ok) {  // OnFailure::keep_any (task 10): the device is reset already
            r.stuck = std::any_of(r.reports.begin(), r.reports.end(), synclab::lab::is_stuck_report);
            r.faulted = !r.stuck;
            r.error = f.error;
            return r;
          }
          result = to;
          if (w == Way::own && k == 0) {
            // For the advice only (the graded tests check the values against their own reference).
            std::vector<unsigned> got(n);
            SYNCLAB_LAB_CHECK(cudaMemcpy(got.data(), to, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
            r.first_launch_right = got == exchange_on_host(in, blocks, threads, rounds) && r.reports.empty();
          }
        }
      }
    }
  }
  r.values.resize(n);
  SYNCLAB_LAB_CHECK(cudaMemcpy(r.values.data(), result, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // An untouched skeleton leaves every word of the barrier's state 0: its messages then name the
  // TODO. (A right sense-reversing barrier leaves all of it 0 too after an even number of rounds,
  // the sense flipped back: then it is not judged. After an odd number the sense is 1.)
  r.barrier_used = w == Way::sense && rounds % 2 == 0;
  if (in_one_launch(w) && w != Way::grid_sync && !r.barrier_used) {
    for (const DeviceArray<unsigned>* d : {&count, &groups, &arrive, &depart, &sense, &own})
      for (unsigned v : d->download()) r.barrier_used = r.barrier_used || v != 0;
  }
  return r;
}

// ---- tasks 8 and 9 ------------------------------------------------------------------------------
std::string grid_app_advice(const std::vector<Report>& reports, const char* step, const char* elements) {
  if (reports.empty()) return "";
  const Report& f = reports.front();
  if (f.kind == "hang" && f.title.find("grid barrier") != std::string::npos)
    return std::string("every thread must call grid.sync() once per ") + step + ": put it after the grid-stride "
           "loop over the thread's " + elements + ", not inside it (a thread with fewer " + elements +
           ", or one that skips one with continue, stops calling it, and the others wait for it for ever)";
  return std::string("a grid.sync() after every ") + step + ", reached by every thread";
}

// ---- task 8 -------------------------------------------------------------------------------------
namespace {
void launch_cooperative(const void* kernel, int blocks, int threads, void** args) {
  const cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(threads), args, 0, nullptr);
  if (e == cudaErrorCooperativeLaunchTooLarge) {
    cudaGetLastError();
    throw std::invalid_argument("cooperative launch of " + std::to_string(blocks) + " blocks of " +
                                std::to_string(threads) + " threads refused: " + cudaGetErrorString(e) +
                                " (not every block can be resident at once; use fewer)");
  }
  SYNCLAB_LAB_CHECK(e);
}
}  // namespace

SortResult run_bitonic(const std::vector<unsigned>& keys, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  const int n = int(keys.size());
  if (n < 1 || (n & (n - 1)) != 0) throw std::invalid_argument("bitonic sort needs a power of two keys");
  SortResult r;
  DeviceArray<unsigned> k(keys.size());
  k.upload(keys);
  if (trace) synclab_region(k.ptr, k.bytes(), "keys", "array", n);
  {
    TraceScope scope(trace);
    int nn = n;
    void* args[] = {&k.ptr, &nn};
    launch_cooperative((const void*)bitonic_sort_grid, blocks, threads, args);
    if (finish_launch(r.reports, OnFailure::keep_stuck).stuck) {
      r.stuck = true;
      r.keys = keys;
      synclab::lab::reset_device();
      return r;
    }
  }
  r.keys = k.download();
  return r;
}

// ---- task 9 -------------------------------------------------------------------------------------
SwResult run_sw(const std::string& a, const std::string& b, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  if (a.empty() || b.empty()) throw std::invalid_argument("Smith-Waterman needs two non-empty sequences");
  const int m = int(a.size()), n = int(b.size());
  SwResult r;
  DeviceArray<char> da(a.size()), db(b.size());
  da.upload(std::vector<char>(a.begin(), a.end()));
  db.upload(std::vector<char>(b.begin(), b.end()));
  DeviceArray<int> H(size_t(m + 1) * (n + 1), synclab::lab::zeroed);
  if (trace) synclab_region(H.ptr, H.bytes(), "H", "matrix", m + 1, n + 1);
  {
    TraceScope scope(trace);
    int mm = m, nn = n;
    void* args[] = {&da.ptr, &mm, &db.ptr, &nn, &H.ptr};
    launch_cooperative((const void*)sw_fill_grid, blocks, threads, args);
    if (finish_launch(r.reports, OnFailure::keep_stuck).stuck) {
      r.stuck = true;
      r.H.assign(H.count, 0);
      synclab::lab::reset_device();
      return r;
    }
  }
  r.H = H.download();
  return r;
}

}  // namespace lab07
