// The trace recorder: an observer of a kernel run (run_observer.h) that writes what it sees into
// the trace file (SYNCLAB_TRACE; the format is docs/trace-format.md). One per traced launch.
#pragma once

#include <synclab/trace_format.h>
#include <synclab/trace_writer.h>

#include <unordered_map>
#include <vector>

#include "sim/exec/kernel_run.h"
#include "sim/exec/run_observer.h"

namespace synclab::sim {

class TraceRecorder final : public RunObserver {
 public:
  TraceRecorder(const KernelRun& run, trace::Writer& writer);
  void launch_begin() override;
  void step(const Warp& w, const Group& g) override;
  void access(const Warp& w, int lane, uint64_t generic, uint32_t size, bool write, uint64_t value,
              const ptx::Instr& I) override;
  void atomic(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t old, uint64_t nw,
              const ptx::Instr& I) override;
  void memory_model(const Warp& w, int lane, trace::MemoryModelKind kind, uint64_t a, uint64_t b,
                    uint32_t size) override;
  void memory_visible(uint64_t key) override;
  void barrier_arrive(const Warp& w, uint32_t id, uint32_t lanes) override;
  void barrier_release(const Cta& c, uint32_t id, uint32_t arrived) override;
  void lanes_exited(const Warp& w, uint32_t lanes) override;
  void report(const Report& r) override;
  void launch_end(LaunchStatus status) override;

 private:
  // A region named through synclab_region, as this launch sees it.
  struct TraceRegion {
    uint64_t base, end, elem_bytes;
    uint32_t id;
    bool bits;
  };
  // A __shared__ array named through synclab_region_shared, where this launch has it: offsets
  // in each block's shared memory.
  struct TraceShared {
    uint64_t off, end, elem_bytes;
    uint32_t id;
    bool bits;
  };
  // A named region in memory the host may write while the kernel runs (mapped pinned memory,
  // cudaHostRegister'ed memory, managed memory): the simulator does not see the host's stores,
  // so the recorder compares the region with a copy of what it last saw at every warp step and
  // records a HostAccess for each element that changed when no device write explains it.
  struct HostRegion {
    uint64_t base, bytes;
    uint32_t grain;  // bytes compared and recorded at a time: the element size (1, 2, 4 or 8)
    trace::MemSpace space;
    bool aligned;                // base is a multiple of grain (the quick check below applies)
    std::vector<uint64_t> seen;  // each grain's contents at the last look
  };
  void watch_host_regions();
  void look_for_host_writes();
  void device_wrote(uint64_t generic, uint32_t size);
  void snapshot();  // the regions' contents as the launch begins
  void shared_update(const Warp& w, int lane, uint64_t off, uint32_t size, uint64_t value);
  void region_update(const Warp& w, int lane, uint64_t generic, uint32_t size, uint64_t value);
  void simple(uint32_t warp, trace::EventKind kind, uint8_t lane, uint16_t aux, uint64_t a, uint64_t b);
  uint32_t warp_id(const Warp& w) const;  // the warp's number in the trace

  const KernelRun& k_;
  trace::Writer* tw_;
  uint64_t launch_index_ = 0;
  std::vector<TraceRegion> tregions_;
  std::vector<TraceShared> tshared_;
  std::vector<HostRegion> host_regions_;
  // Device writes into host regions since the last look ([lo, hi) address ranges): a changed
  // element they cover is the device's, not the host's.
  std::vector<std::pair<uint64_t, uint64_t>> device_wrote_;
  // The latest Buffered event of each memory-model location (KernelRun::mm_key), until it is
  // visible to all.
  struct BufferedWrite {
    uint32_t warp;
    uint8_t lane;
    uint16_t aux;  // space and size
    uint64_t a, value;
  };
  std::unordered_map<uint64_t, BufferedWrite> buffered_;
};

}  // namespace synclab::sim
