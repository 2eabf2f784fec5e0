// Instruction semantics, asynchronous copies and mbarriers (sm_80 and later; docs/simulator.md,
// "Asynchronous copies and mbarriers").
//
// cp.async: each thread keeps its copies pending. cp.async.commit_group closes the thread's
// current group; cp.async.wait_group N completes every copy but those of the N most recently
// committed groups; cp.async.wait_all completes them all (commit, then wait_group 0).
// cp.async.mbarrier.arrive completes every copy the thread issued before it, then arrives on the
// mbarrier (.noinc: the arrival counts as one of the expected ones; without it the instruction
// raises the pending count by one first, so the counts do not change). Copies still pending when
// a thread exits complete then. A copy is performed when it completes: its source is read and its
// destination written through the paths a load and a store of the thread would take (bounds
// checks, checkers, relaxed memory model, trace), at the cp.async's line; until then the
// destination keeps its old bytes, so a thread that reads it before waiting sees stale data, and
// another thread that reads it races with the copy.
//
// mbarrier: a 64-bit object in shared memory, in this simulator's own encoding (programs treat
// it as opaque):
//   bits  0-19 pending arrivals of the current phase     bits 40-55 transaction count (bytes)
//   bits 20-39 expected arrivals per phase               bits 56-62 phase number (mod 128)
//   bit  63    valid (set by mbarrier.init, cleared by mbarrier.inval)
// A state token (what mbarrier.arrive returns) holds the phase and the pending count before the
// arrival in the same places. An arrive is a read-modify-write with release semantics, a wait
// that finds its phase complete a read with acquire semantics (both at CTA scope): the race
// detector and the relaxed memory model see them as such. A wait that finds the phase incomplete
// acquires nothing.
#include <fmt/format.h>

#include <cstring>

#include "sim/exec/instr/operands.h"

namespace synclab::sim {

using ptx::MbarOp;
using ptx::Sem;

namespace {

constexpr uint64_t kValid = 1ull << 63;
constexpr uint64_t kCountMax = (1u << 20) - 1;
constexpr uint64_t kTxMax = (1u << 16) - 1;
uint64_t pending_of(uint64_t v) { return v & kCountMax; }
uint64_t expected_of(uint64_t v) { return (v >> 20) & kCountMax; }
uint64_t tx_of(uint64_t v) { return (v >> 40) & kTxMax; }
uint64_t phase_of(uint64_t v) { return (v >> 56) & 0x7f; }
uint64_t encode(uint64_t pending, uint64_t expected, uint64_t tx, uint64_t phase) {
  return kValid | (phase & 0x7f) << 56 | (tx & kTxMax) << 40 | (expected & kCountMax) << 20 | (pending & kCountMax);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Unsupported instructions
// ---------------------------------------------------------------------------------------------

void KernelRun::exec_unsupported(Warp& w, uint32_t act, const ptx::Instr& I) {
  const std::string what = I.call < M_.unsupported.size() ? M_.unsupported[I.call] : "unsupported instruction";
  fault(w, __builtin_ctz(act), I, LaunchStatus::LoadFailure, what,
        fmt::format("the simulator does not model this instruction (PTX line {}), so the launch stops where a "
                    "lane first reaches it rather than run it wrongly; the module's other code runs normally",
                    I.ptx_line));
}

// ---------------------------------------------------------------------------------------------
// cp.async
// ---------------------------------------------------------------------------------------------

void KernelRun::exec_cp_async(Warp& w, uint32_t act, const ptx::Instr& I) {
  const uint32_t size = static_cast<uint32_t>(I.src[2].imm);
  FOR_LANES(act)
  uint64_t src_size = size;
  if (I.nsrc >= 4 && I.src[3].kind != Operand::Kind::None) src_size = operand(w, lane, I.src[3]) & 0xffffffffu;
  if (I.nsrc >= 5 && (operand(w, lane, I.src[4]) & 1)) src_size = 0;  // ignore-src: zeros only
  if (src_size > size) {
    fault(w, lane, I, LaunchStatus::Fault, "cp.async source size larger than the copy size",
          fmt::format("src-size {} with cp-size {} (PTX requires src-size <= cp-size)", src_size, size));
    return;
  }
  AsyncThread& t = async_.threads[w.cta->linear * shape_.threads_per_block + L.tid_linear];
  t.copies.push_back(AsyncCopy{now_.loc, t.committed, address(L, I.src[0]), address(L, I.src[1]), size,
                               static_cast<uint32_t>(src_size)});
  ++async_.pending;
  END_LANES
}

bool KernelRun::complete_async(Warp& w, int lane, uint64_t before) {
  auto it = async_.threads.find(w.cta->linear * shape_.threads_per_block + w.lanes[lane].tid_linear);
  if (it == async_.threads.end() || it->second.copies.empty()) return true;
  std::vector<AsyncCopy>& copies = it->second.copies;
  const uint32_t saved_loc = now_.loc;
  bool ok = true;
  size_t kept = 0;
  for (size_t k = 0; k < copies.size(); ++k) {
    const AsyncCopy c = copies[k];
    if (c.group >= before || !ok) {
      copies[kept++] = c;
      continue;
    }
    --async_.pending;
    const ptx::Instr* at = instr_at(c.loc);
    if (!at) continue;
    now_.loc = c.loc;  // the checkers and reports name the cp.async
    uint8_t buf[16] = {0};
    // The source bytes: one read when the size allows it, else byte by byte (src-size 3, ...).
    if (c.src_size && (c.src_size & (c.src_size - 1)) == 0 && c.src % c.src_size == 0) {
      ok = load_bytes(w, lane, Space::Global, c.src, buf, c.src_size, *at);
    } else {
      for (uint32_t b = 0; b < c.src_size && ok; ++b)
        ok = load_bytes(w, lane, Space::Global, c.src + b, buf + b, 1, *at);
    }
    if (ok) ok = store_bytes(w, lane, Space::Shared, c.dst, buf, c.size, *at);
    if (stop_) ok = false;
  }
  copies.resize(kept);
  now_.loc = saved_loc;
  return ok;
}

void KernelRun::complete_async_at_exit(Warp& w, uint32_t mask) {
  for (uint32_t m = mask; m && !stop_; m &= m - 1) complete_async(w, __builtin_ctz(m), ~0ull);
}

void KernelRun::exec_cp_async_group(Warp& w, uint32_t act, const ptx::Instr& I) {
  FOR_LANES(act)
  const uint64_t key = w.cta->linear * shape_.threads_per_block + L.tid_linear;
  if (I.op == Op::CpAsyncCommit) {
    ++async_.threads[key].committed;
    continue;
  }
  auto it = async_.threads.find(key);
  if (I.wait_all) {
    if (it == async_.threads.end()) continue;  // nothing issued, nothing to wait for
    ++it->second.committed;
    if (!complete_async(w, lane, ~0ull)) return;
    continue;
  }
  if (it == async_.threads.end()) continue;
  const uint64_t n = static_cast<uint64_t>(I.src[0].imm);
  const uint64_t committed = it->second.committed;
  if (committed > n && !complete_async(w, lane, committed - n)) return;
  END_LANES
}

void KernelRun::exec_cp_async_mbar_arrive(Warp& w, uint32_t act, const ptx::Instr& I) {
  async_.mbarriers_used = true;
  FOR_LANES(act)
  // The arrive-on happens when all of the thread's earlier copies have completed: here they do.
  if (!complete_async(w, lane, ~0ull)) return;
  uint64_t token;
  if (!mbar_arrive(w, lane, I, address(L, I.src[0]), 1, false, 0, I.noinc, &token)) return;
  END_LANES
}

// ---------------------------------------------------------------------------------------------
// mbarrier
// ---------------------------------------------------------------------------------------------

bool KernelRun::mbar_arrive(Warp& w, int lane, const ptx::Instr& I, uint64_t addr, uint32_t count, bool drop,
                            int64_t tx, bool counts, uint64_t* token) {
  uint64_t generic = 0;
  uint8_t* p = translate(w, lane, I.space, addr, 8, true, I, &generic);
  if (!p) return false;
  if (generic < kSharedWindow || generic >= kSharedWindow + kWindowSize) {
    fault(w, lane, I, LaunchStatus::Fault, "mbarrier object outside shared memory",
          fmt::format("address 0x{:x}: the simulator models mbarrier objects in shared memory only", addr));
    return false;
  }
  if (listen_.any) listen_.list.atomic_read(w, lane, generic, 8, I);
  uint64_t old;
  std::memcpy(&old, p, 8);
  if (!(old & kValid)) {
    fault(w, lane, I, LaunchStatus::Fault, "arrive on an mbarrier that is not initialized",
          "the 64-bit word was not set up by mbarrier.init (cuda::barrier's init(), cuda::pipeline's "
          "make_pipeline), or mbarrier.inval ended its use");
    return false;
  }
  uint64_t pending = pending_of(old), expected = expected_of(old), txc = tx_of(old), phase = phase_of(old);
  *token = encode(pending, 0, 0, phase);
  if (counts) {
    if (count == 0 || count > pending) {
      fault(w, lane, I, LaunchStatus::Fault, "mbarrier arrival count exceeds the pending count",
            fmt::format("{} arrival(s) on an mbarrier with {} pending in its current phase (more threads arrive "
                        "than it was initialized for?)",
                        count, pending));
      return false;
    }
    pending -= count;
    if (drop) {
      if (count > expected) {
        fault(w, lane, I, LaunchStatus::Fault, "mbarrier.arrive_drop below zero expected arrivals",
              fmt::format("dropping {} of {} expected arrivals", count, expected));
        return false;
      }
      expected -= count;
    }
  }
  if (tx > 0) {
    if (txc + uint64_t(tx) > kTxMax) {
      fault(w, lane, I, LaunchStatus::Fault, "mbarrier transaction count overflow",
            fmt::format("{} + {} bytes (the simulator keeps at most {})", txc, tx, kTxMax));
      return false;
    }
    txc += uint64_t(tx);
  } else if (tx < 0) {
    txc = uint64_t(-tx) > txc ? 0 : txc - uint64_t(-tx);
  }
  if (pending == 0 && txc == 0) {
    if (I.no_complete) {
      fault(w, lane, I, LaunchStatus::Fault, "mbarrier.arrive.noComplete completed the phase",
            "an arrive with .noComplete must not be the last pending arrival of a phase");
      return false;
    }
    phase = (phase + 1) & 0x7f;  // the phase completes; the next one expects `expected` arrivals
    pending = expected;
  }
  const uint64_t nw = encode(pending, expected, txc, phase);
  std::memcpy(p, &nw, 8);
  if (nw != old) note_write(w, lane, generic, I);
  if (listen_.any) listen_.list.atomic_wrote(w, lane, generic, I);
  if (mm_.relaxed) {
    // The arrival read the newest state and its write is the newest (the model is told so).
    const MemThread t = mm_thread(w, lane);
    mm_.relaxed->rmw_read(t, mm_key(w, generic), 8, old, {I.sem, I.scope}, clock_.steps, true);
    mm_.relaxed->rmw_write(t, mm_key(w, generic), 8, nw, true, {I.sem, I.scope}, clock_.steps);
  }
  if (listen_.any) listen_.list.atomic(w, lane, generic, 8, old, nw, I);
  w.last_load[lane] = generic;
  return true;
}

uint32_t KernelRun::exec_mbarrier(Warp& w, uint32_t act, const ptx::Instr& I) {
  async_.mbarriers_used = true;
  uint32_t stalled = 0;
  FOR_LANES(act)
  switch (I.mbar) {
    case MbarOp::Init: {
      const uint64_t count = operand(w, lane, I.src[1]) & 0xffffffffu;
      if (count == 0 || count > kCountMax) {
        fault(w, lane, I, LaunchStatus::Fault, "mbarrier.init count out of range",
              fmt::format("count {} (valid: 1 to {})", count, kCountMax));
        return 0;
      }
      const uint64_t v = encode(count, count, 0, 0);
      uint64_t generic = 0;
      if (!translate(w, lane, I.space, address(L, I.src[0]), 8, true, I, &generic)) return 0;
      if (generic < kSharedWindow || generic >= kSharedWindow + kWindowSize) {
        fault(w, lane, I, LaunchStatus::Fault, "mbarrier object outside shared memory",
              "the simulator models mbarrier objects in shared memory only");
        return 0;
      }
      if (!store_bytes(w, lane, Space::Shared, generic - kSharedWindow, &v, 8, I)) return 0;
      break;
    }
    case MbarOp::Inval: {
      const uint64_t v = 0;
      if (!store_bytes(w, lane, I.space, address(L, I.src[0]), &v, 8, I)) return 0;
      break;
    }
    case MbarOp::Arrive:
    case MbarOp::ArriveDrop: {
      uint32_t count = 1;
      int64_t tx = 0;
      if (I.nsrc >= 2) {
        const uint64_t v = operand(w, lane, I.src[1]) & 0xffffffffu;
        if (I.expect_tx)
          tx = static_cast<int64_t>(v);
        else
          count = static_cast<uint32_t>(v);
      }
      uint64_t token = 0;
      if (!mbar_arrive(w, lane, I, address(L, I.src[0]), count, I.mbar == MbarOp::ArriveDrop, tx, true, &token))
        return 0;
      if (I.ndst) w.regp[lane][I.dst[0].reg] = token;
      break;
    }
    case MbarOp::ExpectTx:
    case MbarOp::CompleteTx: {
      const int64_t n = static_cast<int64_t>(operand(w, lane, I.src[1]) & 0xffffffffu);
      uint64_t token;
      if (!mbar_arrive(w, lane, I, address(L, I.src[0]), 0, false, I.mbar == MbarOp::ExpectTx ? n : -n, false, &token))
        return 0;
      break;
    }
    case MbarOp::TestWait:
    case MbarOp::TryWait: {
      uint64_t generic = 0;
      const uint64_t addr = address(L, I.src[0]);
      uint8_t* p = translate(w, lane, I.space, addr, 8, false, I, &generic);
      if (!p) return 0;
      if (generic < kSharedWindow || generic >= kSharedWindow + kWindowSize) {
        fault(w, lane, I, LaunchStatus::Fault, "mbarrier object outside shared memory",
              fmt::format("address 0x{:x}: the simulator models mbarrier objects in shared memory only", addr));
        return 0;
      }
      uint64_t v;
      std::memcpy(&v, p, 8);
      const uint64_t newest = v;
      // Under the relaxed model the wait may read an older state (then it finds the phase
      // incomplete and the program tries again); it reads with acquire order, which only ever
      // orders more than a failed wait needs.
      if (mm_.relaxed)
        v = mm_.relaxed->load(mm_thread(w, lane), mm_key(w, generic), 8, v, {Sem::Acquire, I.scope}, clock_.steps);
      if (!(v & kValid)) {
        fault(w, lane, I, LaunchStatus::Fault, "wait on an mbarrier that is not initialized",
              "the 64-bit word was not set up by mbarrier.init, or mbarrier.inval ended its use");
        return 0;
      }
      const uint64_t want = operand(w, lane, I.src[1]);
      const bool done = I.parity ? (phase_of(v) & 1) != (want & 1) : phase_of(v) != phase_of(want);
      if (listen_.list.accesses()) listen_.list.mbarrier_wait(w, lane, generic, newest, done, I);
      w.last_load[lane] = generic;  // what a spinning wait polls
      w.regp[lane][I.dst[0].reg] = done ? 1 : 0;
      if (!done) {
        MbarPoll& poll = async_.polls[w.cta->linear * shape_.threads_per_block + L.tid_linear];
        if (poll.loc == now_.loc && poll.epoch == listen_.list.progress().epoch())
          stalled |= 1u << lane;
        else
          poll = MbarPoll{now_.loc, listen_.list.progress().epoch()};
      }
      break;
    }
    case MbarOp::PendingCount: w.regp[lane][I.dst[0].reg] = pending_of(operand(w, lane, I.src[0])); break;
    case MbarOp::None: break;
  }
  END_LANES
  return stalled;
}

}  // namespace synclab::sim
