// The race checker (SYNCLAB_CHECK=race), a listener of the run (sim/exec/run_observer.h): every
// shared/global access, atomic, fence, barrier and warp synchronization is shown to the race
// detector (race_detector.h), and what it finds becomes reports in the stable format, with advice
// chosen from what was seen. Also here: lanes of one store instruction writing the same bytes (a
// lost update under every warp model; the run finds the lanes, this checker reports them), and the
// host as a thread at system scope (host_checker.h), whose races with the device's accesses to
// mapped and managed memory it reports. It reads the run through RunView (sim/exec/run_view.h) and
// appends its reports to the launch's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/check/host_checker.h"
#include "sim/check/race_detector.h"
#include "sim/exec/config.h"
#include "sim/exec/report.h"
#include "sim/exec/run_observer.h"
#include "sim/exec/run_view.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

class RaceChecker final : public RunObserver {
 public:
  // run: the launch; reports: the launch's reports, which this checker's join.
  RaceChecker(const RunView& run, std::vector<Report>& reports);
  ~RaceChecker() override;
  RaceChecker(const RaceChecker&) = delete;
  RaceChecker& operator=(const RaceChecker&) = delete;

  unsigned events() const override { return kAccesses; }
  void cta_start(Cta& c) override { race_.start_cta(c); }
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
              const ptx::Instr& I) override;
  void rows(const Warp& w, uint32_t act, const uint64_t* X, uint64_t gen_off, uint32_t size, bool write,
            const ptx::Instr& I, const uint64_t* V) override;
  void mbarrier_wait(const Warp& w, int lane, uint64_t generic, uint64_t value, bool complete,
                     const ptx::Instr& I) override;
  void atomic_read(const Warp& w, int lane, uint64_t generic, uint32_t size, const ptx::Instr& I) override;
  void atomic_wrote(const Warp& w, int lane, uint64_t generic, const ptx::Instr& I) override;
  void fence(const Warp& w, uint32_t act, const ptx::Instr& I) override;
  void store_collision(const Warp& w, const ptx::Instr& I, uint64_t generic, uint32_t bytes, uint32_t writers,
                       const uint64_t* values) override;
  void host_look() override { host_.look(); }
  void host_access(const Warp& w, int lane, uint64_t generic, uint32_t size, const uint8_t* p, bool write, bool atomic,
                   const ptx::Instr& I, const uint64_t* read, const uint64_t* left) override;
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes, const BarrierArrival& a) override;
  void barrier_release(const Cta& c, uint32_t id, uint32_t arrived, const std::vector<uint32_t>& waiters) override;
  void warp_sync(const Warp& w, uint32_t lanes) override;
  // Appends "... and N more like it in this launch" to the reports that stood for several.
  void finish_reports() override;
  void count(Counts& c) const override;

 private:
  // One checked access (every access event comes here, and rows() lane by lane where it must).
  void check(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, bool atomic, const ptx::Instr& I);
  void flush_findings();
  void flush_host_findings();
  std::string describe_access(uint32_t gid, uint32_t loc, uint8_t flags) const;
  // "atom at lock.cu:12" for an instruction given as (function << 20) | pc.
  std::string line_of(uint32_t loc) const;
  bool updates_in_place(uint32_t loc) const;  // a load/store with its other half on its line
  // For a plain load/store, an atomic of its function on the same word (a lock given back with
  // atomicExch); with needs_read_and_write, only where the function also both reads and writes that
  // word plainly (a lock taken by `if (*lock == 0) *lock = 1`). nullptr: none.
  const ptx::Instr* atomic_of_plain_word(uint32_t loc, bool needs_read_and_write) const;
  const char* release_at(uint32_t loc) const;  // how a store/atomic releases, or null

  const RunView& run_;
  const Config& cfg_;
  std::vector<Report>& reports_;
  RaceDetector race_;
  HostChecker host_;
  uint64_t race_reports_ = 0, race_warnings_ = 0;
  // Store instructions whose lanes collided: the report's index in the reports and how many more
  // executions of the instruction collided in this launch.
  struct Collision {
    size_t report;  // SIZE_MAX: not reported (too many reports already)
    uint64_t more = 0;
  };
  std::map<uint32_t, Collision> collisions_;
  uint64_t suppressed_ = 0;                                      // warp-level warnings a collision report explains
  std::vector<std::pair<size_t, RaceFinding>> report_findings_;  // race reports and their findings
  // A copy of a wait instruction with relaxed order: what the detector sees of a wait that found its
  // phase incomplete (it acquires nothing).
  std::unordered_map<const ptx::Instr*, std::unique_ptr<ptx::Instr>> relaxed_twin_;
};

}  // namespace synclab::sim
