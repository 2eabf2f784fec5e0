// Reading SyncLab trace files (docs/trace-format.md).
//
//   std::string err;
//   std::unique_ptr<synclab::trace::Trace> t = synclab::trace::load("run.trace", &err);
//   if (!t) { std::cerr << err << "\n"; return 1; }     // "run.trace: byte 16: ..."
//   if (!t->warning.empty()) std::cerr << t->warning << "\n";  // e.g. cut short, unknown chunks
//   for (size_t i = 0; i < t->event_count(); ++i) {
//     const synclab::trace::Event& e = t->event(i);
//     int launch = t->launch_of(i);  // index into t->launches, -1 before the first Kernel chunk
//   }
//
// The file is memory-mapped read-only and the events are read in place (Events payloads are
// 8-byte aligned in the file), so opening costs a walk over the chunk headers and a few dozen
// bytes per Events chunk, whatever the number of events. The Trace owns the mapping: events
// stay valid as long as the Trace lives. Passes over many events (Trace::scan) read the file
// with pread() instead, into a buffer of their own. The file must not be truncated by another process
// while it is open (as with any mapped file, reading a page that vanished would fault).
//
// Damage handling: a bad preamble (empty file, wrong magic, unknown version), a first chunk that
// is not a Header, a complete chunk with bad JSON or an Events payload that is not whole events
// give an error ("FILE: byte N: what") and no Trace. A file that ends inside a chunk (a crash
// while writing, a copy cut short) gives a Trace with every complete chunk before that point and
// a warning naming the byte offset; so does a chunk whose length runs past the end of the file.
// Chunks of unknown kinds are skipped with a warning (a newer writer's additions).
#pragma once

#include <synclab/trace_format.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace synclab::trace {

// One kernel launch (a Kernel chunk) and the events that followed it.
struct Launch {
  nlohmann::json json;           // the Kernel chunk as written
  std::string name;              // json["name"] or "" (the kernel's symbol, often mangled)
  std::string display;           // json["display"] (demangled) when present, else name
  uint64_t warps_per_block = 0;  // json["warps_per_block"] or 0 when missing
  uint32_t grid[3] = {1, 1, 1};  // json["grid"], json["block"] when present
  uint32_t block[3] = {1, 1, 1};
  bool recorded = true;    // false: the kernel filter left its events out
  size_t first_event = 0;  // events [first_event, end_event) belong to this launch
  size_t end_event = 0;
  uint64_t offset = 0;  // byte offset of the Kernel chunk in the file
  size_t event_count() const { return end_event - first_event; }
};

// One Events chunk, read in place.
struct EventChunk {
  const Event* events = nullptr;  // points into the mapping
  size_t first = 0;               // index of events[0] in the whole trace
  size_t count = 0;
  int launch = -1;      // index into Trace::launches, -1 before any Kernel chunk
  uint64_t offset = 0;  // byte offset of the chunk header in the file
};

class Trace {
 public:
  ~Trace();
  Trace(const Trace&) = delete;
  Trace& operator=(const Trace&) = delete;

  std::string path;
  uint64_t file_bytes = 0;
  uint32_t version = 0;
  bool gpu = false;                     // Preamble flags bit 0: recorded on a GPU
  nlohmann::json header;                // the Header chunk
  std::vector<Launch> launches;         // Kernel chunks, in file order
  std::vector<nlohmann::json> regions;  // Region chunks, in file order
  // SharedRegion chunks, in file order, each checked (shared_region_problem) and given
  // "offset_in_file" (the chunk's byte offset); a malformed one is skipped with a warning.
  std::vector<nlohmann::json> shared_regions;
  std::vector<nlohmann::json> reports;  // Report chunks, in file order
  nlohmann::json footer;                // the Footer chunk; null when missing
  bool complete = false;                // the Footer was found (the writer closed the file)
  std::string warning;                  // "" or the warnings below joined by newlines
  std::vector<std::string> warnings;    // cut short, skipped unknown chunks, bytes after the footer

  size_t event_count() const { return event_count_; }
  // Event i (i < event_count()); O(log chunks).
  const Event& event(size_t i) const {
    const EventChunk& c = chunks_[chunk_of(i)];
    return c.events[i - c.first];
  }
  // The launch event i belongs to (index into launches), -1 before the first Kernel chunk.
  int launch_of(size_t i) const { return chunks_[chunk_of(i)].launch; }
  // The Events chunks in file order (for fast sequential scans).
  const std::vector<EventChunk>& chunks() const { return chunks_; }
  // Index into chunks() of the chunk holding event i (i < event_count()). O(1) for the usual
  // chunk sizes (a bucket table narrows the search to the chunks that overlap i's bucket).
  size_t chunk_of(size_t i) const {
    const size_t b = i >> kBucketShift;
    size_t lo = bucket_[b], hi = b + 1 < bucket_.size() ? bucket_[b + 1] : chunks_.size() - 1;
    while (lo < hi) {  // the last chunk in [lo, hi] whose first index is <= i
      size_t mid = (lo + hi + 1) / 2;
      if (chunks_[mid].first <= i)
        lo = mid;
      else
        hi = mid - 1;
    }
    return lo;
  }

  // Visits events [begin, end) in order, calling f(event, index), in place in the mapping: for a
  // short range (a seek's replay), whose pages are often mapped already.
  template <class F>
  void visit(size_t begin, size_t end, F&& f) const {
    each_range(begin, end, [&](const EventChunk& ch, size_t lo, size_t hi) {
      for (size_t k = lo; k < hi; ++k) f(ch.events[k], ch.first + k);
    });
  }
  // The same for a pass over many events: it reads them with pread() in blocks of 8,192 into a
  // buffer of its own rather than touching the mapping, whose first touch costs far more per byte
  // than a copy (page by page, in the kernel: bench/results/viz_core.md). The event is valid only
  // during the call. Where the file cannot be read (it shrank), the rest comes from the mapping.
  template <class F>
  void scan(size_t begin, size_t end, F&& f) const {
    std::vector<Event> buf;
    each_range(begin, end, [&](const EventChunk& ch, size_t lo, size_t hi) {
      if (buf.empty()) buf.resize(kScanBlock);
      for (size_t k = lo; k < hi; k += kScanBlock) {
        const size_t n = hi - k < kScanBlock ? hi - k : kScanBlock;
        const Event* src = read_events(ch, k, n, buf.data()) ? buf.data() : ch.events + k;
        for (size_t j = 0; j < n; ++j) f(src[j], ch.first + k + j);
      }
    });
  }

  // The Report / Region chunk with this "id", or nullptr.
  const nlohmann::json* report_by_id(uint64_t id) const;
  const nlohmann::json* region_by_id(uint64_t id) const;

  // Bytes of memory the Trace holds besides the mapping and the JSON (its chunk index).
  size_t index_bytes() const { return chunks_.capacity() * sizeof(EventChunk) + bucket_.capacity() * sizeof(uint32_t); }

 private:
  Trace() = default;
  friend std::unique_ptr<Trace> load(const std::string& path, std::string* error);
  // g(chunk, lo, hi) for each chunk holding events of [begin, end): its events [lo, hi) are those.
  template <class G>
  void each_range(size_t begin, size_t end, G&& g) const {
    end = end < event_count_ ? end : event_count_;
    if (begin >= end) return;
    for (size_t c = chunk_of(begin); c < chunks_.size() && chunks_[c].first < end; ++c) {
      const EventChunk& ch = chunks_[c];
      g(ch, (begin > ch.first ? begin : ch.first) - ch.first,
        (end < ch.first + ch.count ? end : ch.first + ch.count) - ch.first);
    }
  }
  // Copies events [k, k + n) of chunk ch into out with pread(); false when they cannot be read.
  bool read_events(const EventChunk& ch, size_t k, size_t n, Event* out) const;
  static constexpr size_t kScanBlock = 8192;  // events a pread() of scan() reads (256 KiB)
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  int fd_ = -1;                                 // the file, kept open for scan()
  static constexpr unsigned kBucketShift = 12;  // 4096 events per bucket
  std::vector<EventChunk> chunks_;
  std::vector<uint32_t> bucket_;  // bucket b: the chunk holding event b << kBucketShift
  size_t event_count_ = 0;
};

// Opens and indexes a trace file. Returns nullptr and a message in *error ("FILE: byte N: what
// is wrong") when the file cannot be read as a trace; see the top of this file.
std::unique_ptr<Trace> load(const std::string& path, std::string* error);

// "" when a SharedRegion chunk's JSON is well formed (id 0..255, name, kind, variable, bytes,
// elem_bits 1/8/16/32/64, dims: 1 or 2 positive numbers that fit in bytes), else what is wrong.
std::string shared_region_problem(const nlohmann::json& j);

// The chunk kind's name ("Header", "Events", ...) or "unknown".
const char* chunk_kind_name(uint32_t kind);

}  // namespace synclab::trace
