// Intervals derived from a trace's events: barrier waits, spins, critical sections; and per-launch
// counts. Shared by `synclab-trace` (summary, Chrome export) and the visualizer.
// docs/trace-format.md ("Derived intervals") defines them; in short:
//   BarrierWait      a warp's first BarrierArrive at a barrier .. the block's BarrierRelease of
//                    that barrier.
//   Spin             consecutive loop iterations of one thread group of a warp (lanes that step
//                    together) that read the same addresses, read at least one, wrote nothing
//                    and whose atomics changed nothing; at least min_spin_iterations of them.
//                    An iteration runs from one backward jump of the group's pc to the next.
//   CriticalSection  in a region of kind "lock-bits" or "flags": a RegionUpdate that sets an
//                    element non-zero while it was zero (the holder: its warp and lane) .. the
//                    RegionUpdate that sets it back to zero.
// Intervals still open when a launch's events end are closed at the launch's last event time
// and marked open_at_end (a deadlock at a barrier, a hang in a spin, a lock never released).
#pragma once

#include <synclab/trace_reader.h>

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::trace {

enum class IntervalKind : uint8_t { BarrierWait = 0, Spin = 1, CriticalSection = 2 };

struct Interval {
  IntervalKind kind = IntervalKind::BarrierWait;
  int launch = -1;              // index into Trace::launches (-1: events before any Kernel chunk)
  uint32_t warp = 0;            // Event::warp of the warp it is drawn on
  uint64_t begin = 0, end = 0;  // Event::time; end >= begin
  size_t first_event = 0;       // the events that open and close it (indexes into the trace)
  size_t last_event = 0;
  bool open_at_end = false;  // still open when the launch's events ended
  uint32_t lanes = 0;        // BarrierWait: lanes that arrived; Spin: lanes that spun;
                             // CriticalSection: 1 << holder lane (0 when the lane is unknown)
  // BarrierWait
  uint64_t block = 0;
  uint32_t barrier = 0;
  // Spin
  uint32_t line = 0;  // source line of the loop's backward branch
  uint64_t pc = 0;    // the loop head (target of the backward jump)
  uint32_t iterations = 0;
  // CriticalSection
  uint32_t region = 0;       // Region chunk id
  uint64_t element = 0;      // element index in the region
  uint8_t lane = kAllLanes;  // the holder's lane (RegionUpdate.lane)
};

struct AnalysisOptions {
  uint32_t min_spin_iterations = 2;  // shorter runs of idle iterations are not called spins
  bool barrier_waits = true, spins = true, critical_sections = true;
};

// All intervals of all launches, sorted by (launch, begin, warp).
std::vector<Interval> analyze(const Trace& t, const AnalysisOptions& opt = {});
// The intervals of one launch only (index into t.launches; -1: events before any Kernel chunk).
std::vector<Interval> analyze_launch(const Trace& t, int launch, const AnalysisOptions& opt = {});

// "barrier wait", "barrier 1 wait", "spin at line 12", "critical section locks[3]".
std::string interval_name(const Trace& t, const Interval& iv);
const char* interval_kind_name(IntervalKind k);  // "barrier", "spin", "critical"

// Counts of one launch's events.
struct LaunchStats {
  uint64_t events = 0;
  uint64_t by_kind[16] = {};  // index: EventKind (0: unknown kinds, 16 and above)
  uint64_t barrier_releases = 0;
  uint64_t atomics = 0;          // Atomic records
  uint64_t atomics_changed = 0;  // ... whose new value differs from the old one
  uint64_t stores = 0;           // MemAccess writes
  uint64_t host_writes = 0;      // HostAccess events that are well formed (host_access_well_formed) writes
  uint64_t host_reads = 0;       // ... well-formed reads
  uint64_t host_malformed = 0;   // ... and those that are not (readers skip them)
  uint64_t warps = 0;            // distinct warps seen
  uint64_t first_time = 0, last_time = 0;
  uint64_t status = ~0ull;  // KernelEnd.b, ~0 when there is no KernelEnd
};
LaunchStats launch_stats(const Trace& t, int launch);

}  // namespace synclab::trace
