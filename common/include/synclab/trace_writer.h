// Writing SyncLab trace files (docs/trace-format.md). Used by the simulator and by the GPU
// recorder's host side.
//
//   synclab::trace::WriterOptions opt;
//   std::string err;
//   if (!synclab::trace::parse_writer_options_from_env(&opt, &err)) { /* err says which variable */ }
//   synclab::trace::Writer w;
//   if (!w.open("run.trace", header_json, /*gpu=*/false, opt, &err)) { /* err names the file */ }
//   w.kernel({{"name", "lock_kernel"}, {"launch", 0}, {"grid", {2, 1, 1}}, {"block", {64, 1, 1}},
//             {"warps_per_block", 2}});
//   w.event(e);                       // as many as you like; buffered, filtered
//   uint32_t id = w.report(report_json);
//   w.close();                        // writes the Footer; the destructor does it too
//
// A Writer is not thread-safe: one thread writes (the simulator's kernel thread).
#pragma once

#include <synclab/trace_format.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace synclab {
struct RegionInfo;  // synclab/regions.h
}

namespace synclab::trace {

// What to record. The defaults record everything up to 1 GiB.
struct WriterOptions {
  // Bytes on disk. When the next Events chunk would pass it, recording stops: later events are
  // counted as dropped and one message goes to stderr (the limit, SYNCLAB_TRACE_LIMIT to raise
  // it, how many events were kept). Kernel/Region/Report chunks and the Footer are still
  // written after that (they are small), so the file stays readable and complete.
  uint64_t size_limit = 1ull << 30;
  // Record only launches of these kernels (empty: all). An entry matches the Kernel chunk's
  // "name" (the symbol, often mangled), its "display" (demangled) name, or that name without its
  // parameter list ("lock_kernel" matches "lock_kernel(int*)"). A launch not listed still gets
  // its Kernel chunk, with "recorded": false, and none of its events.
  std::vector<std::string> kernels;
  // Record only events of blocks first..last (inclusive; -1: no limit). The block of an event is
  // warp / warps_per_block (Kernel chunk). KernelBegin, KernelEnd and Report events are kept.
  int64_t block_first = -1, block_last = -1;
  // [lo, hi) ranges: MemAccess and Atomic events are kept only when their address lies in one
  // of them (empty: all). An AtomicWide record follows the fate of its Atomic record.
  std::vector<std::pair<uint64_t, uint64_t>> address_ranges;
  // Bit (1u << EventKind) set: record that kind. AtomicWide follows its Atomic record.
  uint32_t kinds = ~0u;
};

// Reads SYNCLAB_TRACE_LIMIT, SYNCLAB_TRACE_KERNELS, SYNCLAB_TRACE_BLOCKS, SYNCLAB_TRACE_RANGES
// and SYNCLAB_TRACE_KINDS into *opt (unset or empty variables leave the field as it is).
// Returns false with a message naming the variable and the bad value in *error.
bool parse_writer_options_from_env(WriterOptions* opt, std::string* error);

// The same for one variable's value (name as in the environment, e.g. "SYNCLAB_TRACE_LIMIT").
// Returns false with a message in *error for an unknown name or a bad value.
bool parse_writer_option(const std::string& name, const std::string& value, WriterOptions* opt, std::string* error);

// "512K", "64M", "2G", "1000000" -> bytes (K/M/G are powers of 1024; a trailing "B"/"iB" is
// accepted: "64MB", "64MiB"). False for anything else, 0 or an overflow.
bool parse_size(const std::string& s, uint64_t* bytes);

// "step" -> bits for that kind name (see docs/trace-format.md for the names). 0 if unknown.
uint32_t kind_bits(const std::string& name);

// The short name of an event kind ("step", "mem", "atomic", ...), "unknown" otherwise.
const char* event_kind_name(uint8_t kind);

// Region chunk JSON: {id, name, kind, address, bytes, elem_bits, elem_bytes, dims}.
nlohmann::json region_json(uint32_t id, const std::string& name, const std::string& kind, uint64_t address,
                           uint64_t bytes, unsigned elem_bits, const std::vector<unsigned>& dims);
// The same for an entry of the regions registry (synclab/regions.h).
nlohmann::json region_json(uint32_t id, const synclab::RegionInfo& r);
// SharedRegion chunk JSON: {id, name, kind, space: "shared", variable, kernel, bytes, elem_bits,
// elem_bytes, dims}; kernel "" names the variable in every kernel that has it.
nlohmann::json shared_region_json(uint32_t id, const std::string& name, const std::string& kind,
                                  const std::string& variable, const std::string& kernel, uint64_t bytes,
                                  unsigned elem_bits, const std::vector<unsigned>& dims);

class Writer {
 public:
  Writer() = default;
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Creates (truncates) path, writes the Preamble (flags bit 0 = gpu) and the Header chunk.
  // The header gets a "recording" object describing opt unless it has one. False with a message
  // naming the file in *error when the file cannot be written.
  bool open(const std::string& path, const nlohmann::json& header, bool gpu, const WriterOptions& opt,
            std::string* error);

  // Writes a Kernel chunk (pending events first). Starts a new launch: the kernel and block
  // filters are decided here from "name" and "warps_per_block".
  void kernel(const nlohmann::json& k);
  // Writes a Region chunk. Gives it the next free "id" when it has none.
  void region(const nlohmann::json& r);
  // Writes a SharedRegion chunk (a __shared__ array per block); ids as for region(), from the
  // same numbers.
  void shared_region(const nlohmann::json& r);
  // Writes a Report chunk with r["id"] set to a new id (0, 1, ...) and returns that id; the
  // simulator then records a Report event whose a is the id.
  uint32_t report(nlohmann::json r);

  // Records one event (buffered; an Events chunk is written every ~1 MiB). Events the filters
  // reject cost a few comparisons.
  inline void event(const Event& e);

  // False when not open, or after the size limit (or a write error) stopped the recording.
  bool recording() const { return recording_; }
  uint64_t events_written() const { return written_; }
  // Events lost because recording stopped (size limit or write error).
  uint64_t events_dropped() const { return dropped_; }
  // Events the filters left out on purpose.
  uint64_t events_filtered() const { return filtered_; }
  // Bytes in the file so far (pending events not included).
  uint64_t bytes_on_disk() const { return offset_; }
  bool is_open() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }

  // Writes pending events, the Footer chunk ({events, dropped, filtered, stopped, size_limit,
  // bytes, wall_seconds} plus footer_extra's fields), and closes the file. Idempotent.
  void close(const nlohmann::json& footer_extra = {});

 private:
  static constexpr size_t kChunkEvents = (1u << 20) / sizeof(Event);  // 1 MiB of events

  bool accept(const Event& e);  // the block and address filters
  void push(const Event& e);    // after the filters: size limit, buffer, flush
  void flush_events();
  bool write_chunk(ChunkKind kind, const void* data, uint64_t bytes);
  void write_json_chunk(ChunkKind kind, const nlohmann::json& j);
  void stop(const std::string& why, bool size_limit);

  std::FILE* file_ = nullptr;
  std::string path_;
  WriterOptions opt_;
  bool recording_ = false;
  bool filter_any_ = false;       // some filter other than "all kinds" is set
  bool launch_recorded_ = true;   // kernel filter verdict for the current launch
  uint64_t warps_per_block_ = 0;  // current launch (0: unknown)
  bool last_atomic_kept_ = true;  // for the AtomicWide that follows an Atomic
  std::vector<Event> pending_;
  uint64_t offset_ = 0;
  uint64_t written_ = 0, dropped_ = 0, filtered_ = 0;
  uint32_t next_report_id_ = 0, next_region_id_ = 0;
  nlohmann::json with_region_id(const nlohmann::json& r);  // r with its id (given or the next)
  std::string stopped_;                                    // why recording stopped ("" while recording)
  double start_seconds_ = 0;
};

inline void Writer::event(const Event& e) {
  if (!recording_) {
    if (file_) ++dropped_;
    return;
  }
  bool keep;
  if (e.kind == static_cast<uint8_t>(EventKind::AtomicWide)) {
    keep = last_atomic_kept_;  // the second half of a 64-bit atomic goes where its first half went
  } else {
    keep = launch_recorded_ && ((opt_.kinds >> (e.kind & 31)) & 1u) && (!filter_any_ || accept(e));
    if (e.kind == static_cast<uint8_t>(EventKind::Atomic)) last_atomic_kept_ = keep;
  }
  if (keep)
    push(e);
  else
    ++filtered_;
}

}  // namespace synclab::trace
