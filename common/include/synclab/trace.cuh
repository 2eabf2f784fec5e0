// trace.cuh: record what a CUDA program's kernels did, on a real GPU or on the SyncLab simulator,
// into a SyncLab trace file (the format of trace_format.h; docs/gpu-traces.md is the guide).
//
// The program records selected moments itself: kernels write 32-byte trace::Event records into a
// preallocated device buffer, and the host copies them back after each launch and writes the
// file. Every record carries %globaltimer (ns), the warp within the launch and %laneid.
//
//   #include "synclab/trace.cuh"
//   namespace gt = synclab::gputrace;
//
//   __global__ void k(gt::Handle h, int* data, uint16_t data_region) {
//     gt::block_begin(h);                              // BlockPlacement: this block ran on SM %smid
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     data[i] = i * i;
//     gt::region_update(h, data_region, i, data[i]);  // RegionUpdate: element i is now i*i
//     gt::mark(h, 7, i, 0);                           // Mark with tag 7 and two user values
//   }
//
//   gt::Recorder rec(1 << 20);                         // room for 1M events (32 MiB)
//   synclab_region(d_data, bytes, "data", "matrix", 64, 64);
//   uint16_t rid = gt::region_id(d_data);            // the Region chunk's id
//   rec.begin_launch("k", grid, block);
//   k<<<grid, block>>>(rec.handle(), d_data, rid);
//   rec.end_launch();                                  // waits, copies the records back
//   rec.write("run.trace", "my_program");             // then: ./synclab trace summary run.trace
//
// When the buffer is full a record is not written and the device's dropped counter is
// incremented instead: the kernel never writes past the buffer, and the file's footer says how
// many records were dropped. A default-constructed Handle records nothing (all calls are no-ops).
//
// The same source builds with nvcc (GPU) and synclab-nvcc (simulator): there %globaltimer is the
// simulated time and %smid the virtual SM. Include it from .cu files; the program must also
// link the trace writer (common/src/trace_writer.cpp, part of the synclab_trace library; with
// synclab_add_cuda_program list it and trace_reader.cpp in SOURCES and define FMT_HEADER_ONLY).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "synclab/sim_control.h"
#include "synclab/trace_format.h"

#if !defined(__CUDACC_RTC__)
#include <nlohmann/json.hpp>

#include "synclab/regions.h"
#include "synclab/trace_writer.h"
#endif

namespace synclab::gputrace {

// ---- the device side ---------------------------------------------------------------------------

// What a kernel needs to record: pass it by value as a kernel argument. Plain data; a
// default-constructed Handle (events == nullptr) turns every record call into a no-op.
struct Handle {
  synclab::trace::Event* events = nullptr;  // the device buffer, `capacity` records
  unsigned long long* counter = nullptr;    // slots taken so far (may run past capacity)
  unsigned long long* dropped = nullptr;    // records not written because the buffer was full
  unsigned long long capacity = 0;
};

// User-visible event kinds, for record().
using synclab::trace::EventKind;

#if !defined(__CUDACC_RTC__)
// The id of the region registered (synclab_region) at `ptr`, for region_update(): its index in
// the regions registry, which is the id Recorder::write gives its Region chunk. -1 when no
// region starts at ptr (the most recent registration wins when there are several).
inline int region_id(const void* ptr) {
  const std::vector<synclab::RegionInfo> regs = synclab::regions::all();
  for (size_t i = regs.size(); i-- > 0;)
    if (regs[i].ptr == ptr) return int(i);
  return -1;
}
#endif

#if defined(__CUDACC__)

// %globaltimer: nanoseconds of the GPU's global timer (the simulated time on the simulator).
__device__ __forceinline__ uint64_t globaltimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// %smid: the SM this thread runs on.
__device__ __forceinline__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// %laneid: the lane within the warp.
__device__ __forceinline__ uint32_t laneid() {
  uint32_t l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}

__device__ __forceinline__ uint32_t block_linear() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

__device__ __forceinline__ uint32_t thread_in_block() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ uint32_t warps_per_block() { return (blockDim.x * blockDim.y * blockDim.z + 31u) / 32u; }

// The warp within the launch, as trace events number them: block_linear * warps_per_block +
// thread_in_block / 32.
__device__ __forceinline__ uint32_t warp_in_launch() {
  return block_linear() * warps_per_block() + thread_in_block() / 32u;
}

// Takes a slot in the buffer and writes one event: time = %globaltimer, warp = warp_in_launch(),
// lane = %laneid (or `lane` when given, e.g. synclab::trace::kAllLanes). The timer is read before
// the slot is taken, so a record made after observing another thread's record (through a flag)
// has a time not earlier than that record's. Returns false when the record was dropped (buffer
// full) or the handle is empty.
__device__ __forceinline__ bool record(const Handle& h, EventKind kind, uint16_t aux, uint64_t a, uint64_t b,
                                       int lane = -1) {
  if (h.events == nullptr) return false;
  synclab::trace::Event e;
  e.time = globaltimer();
  e.warp = warp_in_launch();
  e.kind = static_cast<uint8_t>(kind);
  e.lane = static_cast<uint8_t>(lane < 0 ? laneid() : static_cast<uint32_t>(lane));
  e.aux = aux;
  e.a = a;
  e.b = b;
  unsigned long long slot = atomicAdd(h.counter, 1ull);
  if (slot >= h.capacity) {
    atomicAdd(h.dropped, 1ull);
    return false;
  }
  h.events[slot] = e;
  return true;
}

// A user mark: `tag` identifies what happened (aux), a and b are free values.
__device__ __forceinline__ bool mark(const Handle& h, uint16_t tag, uint64_t a = 0, uint64_t b = 0) {
  return record(h, EventKind::Mark, tag, a, b);
}

// Element `index` of region `region_id` (gputrace::region_id of its pointer) now holds `value`.
__device__ __forceinline__ bool region_update(const Handle& h, uint16_t region_id, uint64_t index, uint64_t value) {
  return record(h, EventKind::RegionUpdate, region_id, index, value);
}

// Where this block runs: thread 0 of the block records a BlockPlacement (a = block linear index,
// b = %smid, warp = the block's first warp). Call it at the top of a kernel from every thread;
// the others do nothing.
__device__ __forceinline__ bool block_begin(const Handle& h) {
  if (thread_in_block() != 0) return false;
  return record(h, EventKind::BlockPlacement, 0, block_linear(), smid(), synclab::trace::kAllLanes);
}

namespace detail {
// Stamps %globaltimer into *out: launched before and after the recorded kernel on the same
// (legacy default) stream, it brackets the kernel's records with KernelBegin/KernelEnd times.
template <int Unused = 0>
__global__ void stamp_time(unsigned long long* out) {
  *out = globaltimer();
}
}  // namespace detail

#endif  // __CUDACC__

// ---- the host side -----------------------------------------------------------------------------

#if !defined(__CUDACC_RTC__) && defined(__CUDACC__)

// Fills the bytes after the buffer (the guard) so a write past the capacity would show.
constexpr unsigned char kGuardByte = 0xA5;

// Owns the device buffer, collects each launch's records and writes the trace file.
//
//   Recorder rec(capacity_events);       // cudaMalloc; check rec.ok() / rec.error()
//   rec.begin_launch(name, grid, block); // before each recorded launch
//   kernel<<<grid, block>>>(rec.handle(), ...);
//   rec.end_launch();                    // synchronizes, copies, sorts by time, resets the buffer
//   rec.write(path, program);            // the trace file, with regions from synclab_region()
//
// Every CUDA failure is turned into a message (with the cudaError name) in error() and a false
// return, never an exception or a crash. The buffer holds `capacity` events for each launch
// (it is emptied at end_launch).
class Recorder {
 public:
  struct Launch {
    nlohmann::json kernel;                      // the Kernel chunk
    std::vector<synclab::trace::Event> events;  // KernelBegin, the records sorted by time, KernelEnd
    uint64_t dropped = 0;                       // records dropped in this launch
    int status = 0;                             // KernelEnd status: 0 ok, 1 fault
  };

  explicit Recorder(size_t capacity_events = size_t(1) << 20, size_t guard_events = 4)
      : capacity_(capacity_events), guard_(guard_events) {
    if (capacity_ == 0) {
      fail("Recorder: the capacity must be at least one event");
      return;
    }
    const size_t buf_bytes = (capacity_ + guard_) * sizeof(synclab::trace::Event);
    void* p = nullptr;
    if (!cuda(cudaMalloc(&p, buf_bytes), "cudaMalloc of the trace buffer")) return;
    buffer_ = static_cast<synclab::trace::Event*>(p);
    if (!cuda(cudaMalloc(&p, 4 * sizeof(unsigned long long)), "cudaMalloc of the trace counters")) return;
    counters_ = static_cast<unsigned long long*>(p);
    if (!cuda(cudaMemset(buffer_, 0, capacity_ * sizeof(synclab::trace::Event)), "cudaMemset of the trace buffer"))
      return;
    if (guard_ > 0 && !cuda(cudaMemset(buffer_ + capacity_, kGuardByte, guard_ * sizeof(synclab::trace::Event)),
                            "cudaMemset of the trace buffer's guard"))
      return;
    if (!cuda(cudaMemset(counters_, 0, 4 * sizeof(unsigned long long)), "cudaMemset of the trace counters")) return;
    ok_ = true;
  }

  ~Recorder() {
    // Errors are ignored here: after a device fault the frees fail too, and that is fine.
    if (buffer_) cudaFree(buffer_);
    if (counters_) cudaFree(counters_);
  }

  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

  // For kernels: pass by value. Empty (records nothing) when the recorder failed.
  Handle handle() const {
    Handle h;
    if (!ok_) return h;
    h.events = buffer_;
    h.counter = counters_;
    h.dropped = counters_ + 1;
    h.capacity = capacity_;
    return h;
  }

  size_t capacity() const { return capacity_; }
  size_t guard_bytes() const { return guard_ * sizeof(synclab::trace::Event); }
  const void* device_buffer() const { return buffer_; }

  // Call before the launch: names it and stamps its begin time. Returns false (see error()) when
  // the recorder failed or a launch is already open.
  bool begin_launch(const std::string& kernel_name, dim3 grid, dim3 block, size_t dynamic_smem = 0) {
    if (!ok_) return false;
    if (open_) return fail("begin_launch(" + kernel_name + "): end_launch() was not called for " + cur_name_);
    open_ = true;
    cur_name_ = kernel_name;
    cur_grid_ = grid;
    cur_block_ = block;
    cur_smem_ = dynamic_smem;
    detail::stamp_time<<<1, 1>>>(counters_ + 2);
    return cuda(cudaGetLastError(), "the launch that stamps the kernel's begin time");
  }

  // Call after the launch: waits for the device, copies the launch's records back, sorts them by
  // time and adds KernelBegin/KernelEnd. A kernel that failed is recorded with status 1 (fault)
  // and its message is in error(); the function then returns false.
  bool end_launch() {
    if (!ok_) return false;
    if (!open_) return fail("end_launch() without begin_launch()");
    open_ = false;

    Launch L;
    const uint64_t index = launches_.size();
    const uint64_t blocks = uint64_t(cur_grid_.x) * cur_grid_.y * cur_grid_.z;
    const uint64_t threads = uint64_t(cur_block_.x) * cur_block_.y * cur_block_.z;
    const uint64_t wpb = (threads + 31) / 32;
    L.kernel = {{"name", cur_name_},
                {"launch", index},
                {"grid", {cur_grid_.x, cur_grid_.y, cur_grid_.z}},
                {"block", {cur_block_.x, cur_block_.y, cur_block_.z}},
                {"warps_per_block", wpb},
                {"dynamic_smem", cur_smem_}};

    bool good = true;
    cudaError_t launch_err = cudaGetLastError();  // the user's launch itself (bad configuration)
    if (launch_err != cudaSuccess) {
      good = cuda(launch_err, "the launch of " + cur_name_);
    } else {
      detail::stamp_time<<<1, 1>>>(counters_ + 3);
      cudaError_t e = cudaGetLastError();
      if (e == cudaSuccess) e = cudaDeviceSynchronize();
      if (e != cudaSuccess) good = cuda(e, "kernel " + cur_name_);
    }

    unsigned long long ctr[4] = {0, 0, 0, 0};
    if (good) good = cuda(cudaMemcpy(ctr, counters_, sizeof ctr, cudaMemcpyDeviceToHost), "copying the trace counters");
    std::vector<synclab::trace::Event> recs;
    if (good) {
      const uint64_t n = std::min<uint64_t>(ctr[0], capacity_);
      recs.resize(n);
      if (n > 0)
        good = cuda(cudaMemcpy(recs.data(), buffer_, n * sizeof(synclab::trace::Event), cudaMemcpyDeviceToHost),
                    "copying the trace records");
      if (!good) recs.clear();
    }
    if (good) good = cuda(cudaMemset(counters_, 0, 2 * sizeof(unsigned long long)), "resetting the trace counters");

    // The device counts the drops itself; taken slots beyond the capacity say the same.
    L.dropped = good ? std::max<uint64_t>(ctr[1], ctr[0] > capacity_ ? ctr[0] - capacity_ : 0) : 0;
    L.status = good ? 0 : 1;
    dropped_ += L.dropped;

    // Sort by time; records with the same time keep the order in which they took their slots.
    std::vector<size_t> order(recs.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return recs[x].time < recs[y].time; });

    uint64_t t_begin = ctr[2], t_end = ctr[3];
    if (!recs.empty()) {
      // Keep KernelBegin/End around the records even if a stamp failed or the clocks disagree.
      t_begin = std::min<uint64_t>(t_begin ? t_begin : recs[order.front()].time, recs[order.front()].time);
      t_end = std::max<uint64_t>(t_end, recs[order.back()].time);
    }
    if (t_end < t_begin) t_end = t_begin;

    synclab::trace::Event kb{};
    kb.time = t_begin;
    kb.warp = 0;
    kb.kind = static_cast<uint8_t>(EventKind::KernelBegin);
    kb.lane = synclab::trace::kAllLanes;
    kb.a = index;
    kb.b = blocks * wpb;
    L.events.reserve(recs.size() + 2);
    L.events.push_back(kb);
    for (size_t k : order) L.events.push_back(recs[k]);
    synclab::trace::Event ke = kb;
    ke.time = t_end;
    ke.kind = static_cast<uint8_t>(EventKind::KernelEnd);
    ke.b = static_cast<uint64_t>(L.status);
    L.events.push_back(ke);
    L.kernel["recorded_events"] = recs.size();
    L.kernel["dropped_events"] = L.dropped;
    launches_.push_back(std::move(L));
    return good;
  }

  // True when the bytes after the buffer still hold the guard pattern (nothing wrote past the
  // capacity). Copies the guard back; false with a message in *why otherwise.
  bool guard_intact(std::string* why = nullptr) {
    if (!ok_ || guard_ == 0) return ok_;
    std::vector<unsigned char> g(guard_bytes());
    cudaError_t e = cudaMemcpy(g.data(), buffer_ + capacity_, g.size(), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
      if (why) *why = std::string("copying the guard: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
      return false;
    }
    for (size_t k = 0; k < g.size(); ++k)
      if (g[k] != kGuardByte) {
        if (why) *why = "the guard after the trace buffer was overwritten at byte " + std::to_string(k);
        return false;
      }
    return true;
  }

  const std::vector<Launch>& launches() const { return launches_; }
  uint64_t dropped() const { return dropped_; }
  uint64_t recorded() const {
    uint64_t n = 0;
    for (const Launch& L : launches_) n += L.events.size() - 2;
    return n;
  }

  // Extra fields for the file's header (merged in at write()), e.g. the program's parameters.
  nlohmann::json& header_extra() { return header_extra_; }

  // Writes every launch recorded so far into a trace file (gpu flag set, backend "gpu"), with the
  // regions registered through synclab_region(). Prints a line to stderr when records were
  // dropped. Returns false with the reason in error() (and *err when given).
  bool write(const std::string& path, const std::string& program, std::string* err = nullptr) {
    if (open_) {
      fail("write(" + path + "): the launch of " + cur_name_ + " was begun but end_launch() was not called");
      if (err) *err = error_;
      return false;
    }
    nlohmann::json header = header_extra_.is_object() ? header_extra_ : nlohmann::json::object();
    header["program"] = program;
    header["backend"] = "gpu";
    header["recorder"] = "trace.cuh";
    header["simulated"] = synclab::sim::active();
    header["time_unit"] = "ns";
    header["capacity_events"] = capacity_;
    nlohmann::json device = nlohmann::json::object();
    int dev = 0;
    cudaDeviceProp prop;
    std::memset(&prop, 0, sizeof prop);
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
      device["name"] = std::string(prop.name);
      device["sm_count"] = prop.multiProcessorCount;
      device["compute_capability"] = std::to_string(prop.major) + "." + std::to_string(prop.minor);
      device["warp_size"] = prop.warpSize;
      device["max_threads_per_sm"] = prop.maxThreadsPerMultiProcessor;
      device["shared_memory_per_sm"] = prop.sharedMemPerMultiprocessor;
      device["global_memory"] = prop.totalGlobalMem;
    } else {
      cudaGetLastError();
      device["name"] = "unknown";
    }
    header["device"] = device;
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess) cudaGetLastError();
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) cudaGetLastError();
    header["driver_version"] = driver;
    header["runtime_version"] = runtime;

    // SYNCLAB_TRACE_LIMIT, _KERNELS, _BLOCKS, _RANGES and _KINDS apply as in the simulator.
    synclab::trace::WriterOptions opts;
    std::string why;
    if (!synclab::trace::parse_writer_options_from_env(&opts, &why)) {
      fail("cannot write the trace " + path + ": " + why);
      if (err) *err = error_;
      return false;
    }
    synclab::trace::Writer w;
    if (!w.open(path, header, /*gpu=*/true, opts, &why)) {
      fail("cannot write the trace " + path + ": " + why);
      if (err) *err = error_;
      return false;
    }
    // Region ids are the registry's indexes (what region_id() gives kernels).
    const std::vector<synclab::RegionInfo> regs = synclab::regions::all();
    for (size_t i = 0; i < regs.size(); ++i) w.region(synclab::trace::region_json(uint32_t(i), regs[i]));
    for (const Launch& L : launches_) {
      w.kernel(L.kernel);
      for (const synclab::trace::Event& e : L.events) w.event(e);
    }
    // The footer's "dropped" counts the records the device buffer had no room for as well as
    // any the writer's size limit left out.
    nlohmann::json footer = {{"device_dropped", dropped_},
                             {"writer_dropped", w.events_dropped()},
                             {"dropped", dropped_ + w.events_dropped()},
                             {"capacity_events", capacity_}};
    if (dropped_ > 0 && w.recording()) {
      std::string which;
      for (size_t l = 0; l < launches_.size(); ++l)
        if (launches_[l].dropped) which += (which.empty() ? "" : ", ") + std::to_string(l);
      footer["stopped"] = "the device buffer (" + std::to_string(capacity_) + " events) filled up in launch " + which;
    }
    w.close(footer);
    if (dropped_ > 0)
      std::fprintf(stderr,
                   "trace.cuh: %llu events were dropped: the buffer holds %zu per launch; pass a larger capacity "
                   "to Recorder\n",
                   static_cast<unsigned long long>(dropped_), capacity_);
    return true;
  }

 private:
  bool fail(const std::string& msg) {
    error_ = msg;
    return false;
  }
  bool cuda(cudaError_t e, const std::string& what) {
    if (e == cudaSuccess) return true;
    error_ = what + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    return false;
  }

  size_t capacity_ = 0, guard_ = 0;
  synclab::trace::Event* buffer_ = nullptr;
  unsigned long long* counters_ = nullptr;  // [0] taken slots, [1] dropped, [2] begin time, [3] end time
  bool ok_ = false;
  std::string error_;
  bool open_ = false;
  std::string cur_name_;
  dim3 cur_grid_, cur_block_;
  size_t cur_smem_ = 0;
  std::vector<Launch> launches_;
  uint64_t dropped_ = 0;
  nlohmann::json header_extra_ = nlohmann::json::object();
};

#endif  // host side

}  // namespace synclab::gputrace
