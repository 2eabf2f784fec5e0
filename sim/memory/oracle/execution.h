// One candidate execution of a program under the PTX memory model: its events (reads, writes,
// fences, barrier arrivals and waits), where their threads run, and the relations a run fixes:
// program order, dependencies, read-modify-write pairs, reads-from, coherence order, the order of
// the Fence-SC fences and which barrier arrivals synchronize which waits. The oracle
// (ptx_axioms.h) says whether the PTX model allows it; the enumerator (enumerate.h) builds every
// candidate of a litmus test; the simulator records one for each relaxed run it is asked to check
// (SYNCLAB_MEMORY_CHECK=1).
//
// The scope tree is fixed, as on the hardware: a thread is in a block (CTA), the blocks of a
// launch are in the GPU, and the GPU and the host are in the system. (The Alloy model allows any
// tree; every test of the course fits this one.)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace synclab::memory {

// The scope of an operation. Thread: a weak (plain) access, whose scope is its own thread.
enum class Scope : uint8_t { Thread, Cta, Gpu, Sys };
enum class EventKind : uint8_t { Read, Write, Fence, BarrierArrive, BarrierWait };
// fence.sc (and membar), fence.acq_rel (and fence without a qualifier), fence.acquire, fence.release.
enum class FenceKind : uint8_t { Sc, AcqRel, Acquire, Release };

const char* scope_name(Scope s);
const char* fence_name(FenceKind f);

struct ThreadPlace {
  uint32_t cta = 0;   // the block (ignored for the host)
  uint32_t warp = 0;  // the warp within the block (ignored by the axioms; the simulator places lanes by it)
  uint32_t lane = 0;  // and the lane (likewise)
  bool host = false;  // a CPU thread: in the system, not in the GPU
};

struct Event {
  EventKind kind = EventKind::Read;
  uint32_t thread = 0;
  uint32_t po = 0;   // position in its thread's program order (strictly increasing along it)
  uint32_t loc = 0;  // reads and writes: the location
  Scope scope = Scope::Thread;
  bool acquire = false;  // a read: an acquire read (ld.acquire, the read of atom.acquire/acq_rel)
  bool release = false;  // a write: a release write (st.release, the write of atom.release/acq_rel)
  // A read: the read of a reduction (red), which forms no acquire pattern (PTX ISA 9.0, "Reductions
  // do not form Acquire Patterns"; ptx.als, from 2019, does not make this distinction).
  bool reduction = false;
  FenceKind fence = FenceKind::Sc;
  uint32_t barrier = 0;  // barrier events: which barrier instance (arrivals and waits of one instance synchronize)
  uint64_t value = 0;    // reads: the value read; writes: the value written (0 where unknown)
  // Where the event comes from, for reports: a litmus instruction's text, or "line 12 of lock.cu".
  std::string label;
};

struct Execution {
  std::vector<ThreadPlace> threads;
  std::vector<Event> events;
  // The relations the run fixes (pairs of event indices).
  std::vector<std::pair<uint32_t, uint32_t>> rmw;  // read -> write of one read-modify-write
  std::vector<std::pair<uint32_t, uint32_t>> dep;  // read -> a later event of its thread that depends on it
  std::vector<int32_t> rf;                         // per event: reads get the write they read (-1: the initial value)
  std::vector<std::pair<uint32_t, uint32_t>> co;   // coherence order (the oracle takes its transitive closure)
  std::vector<std::pair<uint32_t, uint32_t>> sc;   // order of Fence-SC fences (closure taken likewise)

  uint32_t add(const Event& e) {
    events.push_back(e);
    rf.push_back(-1);
    return static_cast<uint32_t>(events.size() - 1);
  }
  // Empty when the graph is well formed (every relation between the kinds of events it relates,
  // in one thread where it must be, program order a total order per thread, ...); otherwise what
  // is wrong, naming the event.
  std::string malformed() const;
  // "e3 (T1: r0 = ld.acquire.gpu [y])"
  std::string describe(uint32_t e) const;
};

}  // namespace synclab::memory
