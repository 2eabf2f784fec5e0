// The visualizer's trace model: everything the viewer draws, computed from a trace file, with no
// drawing code (the ImGui windows in viz/app/ only read from here).
//
//   std::string err;
//   std::unique_ptr<synclab::viz::Model> m = synclab::viz::Model::open("run.trace", &err);
//   if (!m) { show(err); return; }                      // not a trace: "run.trace: byte 16: ..."
//   if (!m->warning().empty()) show(m->warning());      // e.g. cut short: a partial model
//   int launch = 0;
//   uint64_t c = m->first_interesting(launch);          // where the viewer opens
//   synclab::viz::State s;
//   m->state_at(launch, c, &s);                         // every warp's lanes, every region's cells
//
// ---- Cursors ------------------------------------------------------------------------------------
// A cursor is a position in ONE launch: the index of an event among that launch's events,
// 0 .. LaunchInfo::steps - 1 (global trace index = LaunchInfo::first_event + cursor). The state
// "at" cursor c is the state AFTER applying events 0..c of the launch (event c included), so the
// event under the cursor has just happened. Every event is a cursor position (several events can
// share one Event::time: a warp step and its memory accesses). Times (Event::time: warp steps on
// the simulator, nanoseconds on a GPU) are what the timeline draws; cursor_at_time() and
// time_of() convert. A launch with no events has no cursor positions (steps == 0): state_at()
// then gives every lane Inactive.
//
// ---- Lane states (State::warps[w].lanes[l]) ---------------------------------------------------
// The warp's current instruction is its last WarpStep up to the cursor (WarpView::has_step false:
// none yet). The simulator records an instruction's WarpStep FIRST, then the memory, atomic,
// region, barrier and exit events it causes, all with the step's time, so in the middle of an
// instruction its step is already the warp's last one.
// From the launch's events up to the cursor:
//   Active     the lane is in the active mask of its warp's current instruction (it executes
//              or just executed the warp's latest instruction).
//   MaskedOff  live (started, not exited), not at a barrier, but not in that mask: diverged, or
//              (ITS) in another thread group of the warp.
//   AtBarrier  a BarrierArrive named the lane, and the block's BarrierRelease of that barrier id
//              has not come yet.
//   Spinning   the cursor lies inside a spin interval (synclab::trace::analyze: an idle loop that
//              re-reads the same addresses) whose lanes include the lane: from the interval's
//              first to its last event, inclusive (a spin still open at the end: to the end).
//   InCritical the lane holds a lock bit: a RegionUpdate of a "lock-bits" region by that lane
//              set the bit from 0 to 1, and no later update has cleared it (in a shared region:
//              in its block's copy). Read from the CriticalSection spans (Model::spans).
//   Exited     a LaneExit named the lane.
//   StaleRead  the lane's current instruction read an older value of a location than memory's
//              newest (a MemoryModel StaleRead event after the warp's last WarpStep; relaxed
//              memory model runs only).
//   Inactive   the lane has not appeared in any event of its warp yet (block not yet resident,
//              or a lane beyond the block's thread count).
// A lane is "started" once any WarpStep, BarrierArrive or LaneExit of its warp up to the cursor
// names it.
// When several apply, the first in this order wins:
//   Exited > AtBarrier > InCritical > StaleRead > Spinning > Active > MaskedOff   (Inactive: none applies)
//
// ---- Regions (State::regions[r].cells[i]) -----------------------------------------------------
// Every cell starts at value 0 with no writer. A simulator trace then gives each launch's
// starting contents (what host copies, memsets and earlier launches left there): RegionUpdate
// events with trace::kRegionSnapshot right after KernelBegin. They set values only (no writer,
// owner or completion, no navigation mark, no warp); the launch's own writes follow.
//   lock-bits  one cell per bit; value 0/1. A byte-wide RegionUpdate writes each bit it covers
//              (bits past the region's element count are ignored). writer = the last update
//              that wrote the bit (changed or not); owner = the lane whose update set it 0 -> 1
//              (none once an update sets it back to 0).
//   flags / array / matrix   one cell per element; value = the last RegionUpdate's value,
//              writer = that update. No owner.
//   Relaxed memory model traces (MemoryModel events at a region's address): Buffered marks the
//   cell's latest write as not yet visible to all (CellView::buffered_cursor) until a Visible
//   event or the cell's next write; an EarlyStore sets the value to the one memory kept (b): the
//   store's own RegionUpdate gave the value it wrote, which a newer write already overwrote.
//   completion (all kinds) = the first update of the cell (its event and time) once the cursor
//              has reached it; for a matrix this is the wavefront's arrival at that cell.
//   Shared regions (SharedRegion chunks, RegionInfo::shared): one copy of the cells per block
//              of the launch; a RegionUpdate changes the copy of its warp's block
//              (Event::warp / warps_per_block). A launch starts with every copy unwritten
//              (value 0, no writer): shared memory holds nothing a program may read until a
//              thread of the block writes it. state_at shows StateOptions::block's copy; a
//              launch the kernel chunk does not list the region for has no cells for it.
//
// ---- The host (State::host, Model::host_accesses) ------------------------------------------------
// HostAccess events (docs/trace-format.md) are the host's accesses to named regions of mapped
// or managed memory while the kernel ran: its reads and writes (the trace header's
// "host_accesses" says whether reads were recorded). They belong to no warp (their warp field is
// 0 and means nothing): the lanes and timeline windows draw them on a row of their own. A host
// write sets the region cells it covers like a RegionUpdate (value, writer, completion;
// CellView::writer_host), except that a lock bit the host sets has no holder (owner stays none);
// a host read changes no cell. A HostAccess that names no region changes no cell. One is
// malformed, skipped and counted in warning(), when its size is above 8 bytes or its space is
// not global or host-mapped memory.
//
// ---- Seeking --------------------------------------------------------------------------------
// Model::open replays every launch once and keeps sparse checkpoints of the replay state (warps
// and region cells, stored as copy-on-write chunks so unchanged parts are shared between
// checkpoints; a checkpoint is taken only while the checkpoints' memory stays under
// ModelOptions::checkpoint_bytes_per_event). state_at() finds the checkpoint before the cursor
// by binary search and replays at most the events up to the next checkpoint. A Player keeps its
// replay state between calls, so stepping forward by one applies one event; stepping back
// restores the previous checkpoint and replays.
//
// ---- Memory ---------------------------------------------------------------------------------
// The events stay in the trace's read-only mapping (never copied). Per event the model keeps at
// most: per WarpStep 12 bytes (its time, cursor and a running lane count, for the timeline's
// activity and per-warp navigation; the time is 4 bytes, an offset from the launch's first time,
// when the launch's times span less than 2^32, else 8), a 4-byte cursor per navigation mark
// (reports, acquires, releases, barrier arrivals/releases, exits, region updates), 60 bytes per
// derived interval (Span and its index), and checkpoints within
// ModelOptions::checkpoint_bytes_per_event. So a trace of only WarpSteps costs about 12 + 3.5
// bytes per event; a simulator trace, where most events are per-lane memory accesses, far less.
// bench/viz_core measures it (bench/results/viz_core.md).
//
// ---- Errors ---------------------------------------------------------------------------------
// Model::open never throws and never crashes on a damaged file: a file that is not a readable
// trace gives nullptr and a message; a cut-short file gives a model of what was kept and a
// warning. Bad values inside a readable file (a warp index beyond the launch, a region element
// out of range, a JSON field of the wrong type) are skipped and counted in warning().
//
// Damaged times: event times never decrease within a launch in a well-formed trace. When they do
// (LaunchInfo::time_backsteps > 0, also named in warning()), the timeline queries (activity,
// step_count, spans_in) treat each event as happening at the latest time of the events up to it,
// so they stay consistent; time_of() still gives the recorded time and cursor_at_time() some
// cursor of the launch.
//
// Thread safety: a Model is immutable after open(); const member functions may be called from
// several threads. A Player is for one thread.
#pragma once

#include <algorithm>
#include <synclab/trace_analysis.h>
#include <synclab/trace_format.h>
#include <synclab/trace_reader.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace synclab::viz {

using synclab::trace::Event;
using synclab::trace::EventKind;

constexpr uint64_t kNoCursor = ~0ull;  // "no such position" (navigation found nothing)
constexpr uint32_t kNoWarp = ~0u;
constexpr uint8_t kNoLane = 0xff;

// The block a warp of a launch belongs to (Event::warp counts the launch's warps block by block);
// a launch without a recorded block size counts as one warp per block.
inline uint64_t block_of_warp(uint64_t warp, uint64_t warps_per_block) {
  return warp / std::max<uint64_t>(warps_per_block, 1);
}

// ---- what the file says -------------------------------------------------------------------------

struct HeaderInfo {
  std::string program;         // Header "program"
  std::string backend;         // "sim" or "gpu"
  bool gpu = false;            // recorded on a GPU (times are ns; usually no WarpSteps)
  std::string device;          // device name (Header "device" string, or its "name")
  std::string device_profile;  // simulator device profile ("teaching", "h100", ...) or ""
  std::string model;           // warp model "its" / "lockstep" ("" on a GPU)
  std::string scheduler;       // "rr" / "random" / "pct" ("" when missing)
  uint64_t seed = 0;
  bool has_seed = false;
  std::string time_unit;  // "warp step" on the simulator, "ns" on a GPU
  std::string created;    // ISO 8601 or ""
  nlohmann::json json;    // the whole Header chunk
};

enum class LaunchStatus : uint8_t { Ok = 0, Fault = 1, Deadlock = 2, Hang = 3, Budget = 4, Unknown = 5, Running = 6 };
const char* launch_status_name(LaunchStatus s);  // "ok", "fault", ..., "unknown", "no end (cut short)"

struct LaunchInfo {
  int index = 0;        // index into Model::launches(); what every per-launch call takes
  uint64_t launch = 0;  // the Kernel chunk's "launch" (launch number in the program)
  std::string name;     // kernel symbol
  std::string display;  // demangled name (or name)
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t threads_per_block = 0;
  uint32_t warps_per_block = 0;
  uint64_t blocks = 0;     // grid x*y*z
  uint32_t warps = 0;      // warps of the launch: KernelBegin "b", else blocks * warps_per_block
  size_t first_event = 0;  // global event indices [first_event, end_event)
  size_t end_event = 0;
  uint64_t steps = 0;                           // cursor positions: end_event - first_event
  uint64_t first_time = 0;                      // Event::time of its first event
  uint64_t last_time = 0;                       // the latest Event::time of its events (its last event's, unless
                                                // the times go backwards)
  uint64_t time_backsteps = 0;                  // events whose time is below an earlier event's: 0 in an
                                                // undamaged trace (see "Damaged times" below)
  LaunchStatus status = LaunchStatus::Running;  // KernelEnd "b"; Running: no KernelEnd recorded
  bool recorded = true;                         // false: the kernel filter left its events out
  int module = -1;                              // index into Model::modules() (its source files/line tables), -1: none
  // Per Model region: where a shared region lies in this launch's blocks' shared memory (byte
  // offset), -1 when the launch does not have it (and for global regions).
  std::vector<int64_t> shared_offset;
  nlohmann::json json;  // the Kernel chunk
};

enum class RegionKind : uint8_t { LockBits, Flags, Matrix, Array, Unknown };

struct RegionInfo {
  uint32_t id = 0;  // Region chunk "id" (RegionUpdate aux bits 0-7)
  std::string name;
  std::string kind_name;  // "lock-bits", "flags", "matrix", "array"
  RegionKind kind = RegionKind::Unknown;
  uint64_t address = 0, bytes = 0;
  uint32_t elem_bits = 0, elem_bytes = 0;
  uint32_t rows = 1, cols = 0;  // dims: [n] gives rows 1, cols n; [r, c] gives rows r, cols c
  uint64_t cells = 0;           // rows * cols; element i is at row i / cols, column i % cols
  // A SharedRegion chunk: a __shared__ array, one copy per block (cells is one block's). Its
  // updates are per block; State shows the copy of StateOptions::block. address is 0.
  bool shared = false;
  std::string variable;  // the __shared__ variable's name
  std::string kernel;    // the kernel it belongs to ("" every kernel that has the variable)
};

struct ReportParty {
  int64_t block = -1;
  int64_t warp = -1;  // warp within the launch (as Event::warp; the chunk's warp within
                      // the block is converted), -1 unknown
  int lane = -1;
  int64_t line = 0;
  std::string file;
  std::string access;  // "write 4 bytes at 0x...", or ""
};

struct ReportInfo {
  uint64_t id = 0;       // Report chunk "id"
  std::string kind;      // "deadlock", "hang", "race", ...
  std::string severity;  // "error", "warning", "info"
  std::string title, text;
  std::string file;             // the report's source file ("" when unknown)
  int64_t line = 0;             // its CUDA source line (0 when unknown)
  int launch = -1;              // index into launches() (-1: none)
  uint64_t cursor = kNoCursor;  // cursor of its Report event in that launch (kNoCursor: no event)
  uint64_t time = 0;            // that event's time
  std::vector<ReportParty> parties;
  nlohmann::json json;
};

// One module's source information (Kernel chunk "files" / "functions" of its first launch).
struct SourceFunction {
  std::string name, display;
  std::vector<uint32_t> lines;  // lines[pc]: CUDA source line of instruction pc (0: none)
  std::vector<uint32_t> files;  // files[pc]: index into SourceModule::files
};
struct SourceModule {
  std::vector<std::string> files;         // WarpStep "file id" indexes this
  std::vector<SourceFunction> functions;  // WarpStep "function id" indexes this
};

// ---- state at a cursor --------------------------------------------------------------------------

enum class LaneState : uint8_t { Inactive, Active, MaskedOff, AtBarrier, Spinning, InCritical, Exited, StaleRead };
const char* lane_state_name(LaneState s);  // "inactive", "active", "masked off", "at barrier", ...

struct WarpView {
  uint32_t warp = 0;  // Event::warp
  uint32_t block = 0, warp_in_block = 0;
  LaneState lanes[32] = {};  // see "Lane states" above
  uint32_t exists = 0;       // lanes that exist (the block's thread count)
  uint32_t started = 0;      // lanes started (see above)
  // Lanes in each state (the same as lanes[], as masks).
  uint32_t exited = 0, at_barrier = 0, critical = 0, spinning = 0, stale = 0;
  uint32_t barrier = 0;  // barrier id the at_barrier lanes wait at
  // The current instruction (see "Lane states"): the warp's last WarpStep at or before the
  // cursor. has_step false: the warp has not executed anything yet.
  bool has_step = false;
  uint32_t last_mask = 0;                             // its active mask
  uint32_t pc = 0, function = 0, line = 0, file = 0;  // its pc, function id, source line, file id
  uint16_t instr_class = 0;                           // synclab::trace::InstrClass
  uint64_t last_step_time = 0;                        // its time
  uint64_t last_step_cursor = kNoCursor;              // its cursor
  uint64_t last_event_cursor = kNoCursor;             // the warp's last event up to the cursor (any kind
                                                      // but BarrierRelease, which names the block's first warp)
};

struct CellView {
  uint64_t value = 0;
  uint64_t writer_cursor = kNoCursor;  // the last update that wrote it (kNoCursor: none yet)
  uint64_t writer_time = 0;
  uint32_t writer_warp = kNoWarp;
  uint8_t writer_lane = kNoLane;
  uint8_t owner_lane = kNoLane;  // lock-bits: the holder (kNoLane: free)
  uint32_t owner_warp = kNoWarp;
  uint64_t owner_cursor = kNoCursor;       // when the holder set it
  uint64_t completion_cursor = kNoCursor;  // the cell's first update, once reached
  uint64_t completion_time = 0;
  // Relaxed memory model runs: the cell's latest write is not yet visible to every thread (older
  // values may still be read by threads that have not synchronized with its writer) since the
  // MemoryModel event at this cursor (Buffered, or EarlyStore); kNoCursor: visible to all.
  uint64_t buffered_cursor = kNoCursor;
  bool writer_host = false;  // the last write was the host's (a HostAccess; writer_warp is kNoWarp)
};

struct RegionView {
  int region = -1;              // index into Model::regions()
  std::vector<CellView> cells;  // RegionInfo::cells entries; empty: not in this launch
  int64_t block = -1;           // a shared region: the block whose copy cells shows; -1 global
};

struct State {
  int launch = -1;
  uint64_t cursor = kNoCursor;  // the position this state is at
  uint64_t time = 0;            // Event::time of the event at the cursor
  Event event{};                // that event (zeroed when the launch has none)
  uint32_t first_warp = 0;      // warps[i] is warp first_warp + i
  std::vector<WarpView> warps;
  std::vector<RegionView> regions;  // one per Model::regions(), same order
  // The host row: HostAccess events of the launch up to the cursor (see "The host" above).
  uint64_t host_accesses = 0;             // how many
  uint64_t last_host_cursor = kNoCursor;  // the latest one's cursor (kNoCursor: none yet)
};

// Which parts state_at computes (a big grid: only the warps on screen).
struct StateOptions {
  uint32_t first_warp = 0;
  uint32_t warp_count = ~0u;  // clipped to the launch's warps
  bool regions = true;
  // Shared regions (RegionInfo::shared) show this block's copy (clipped to the launch's blocks).
  uint64_t block = 0;
};

// ---- navigation ---------------------------------------------------------------------------------

enum class Mark : uint8_t {
  Report,   // a Report event
  Acquire,  // a lock bit set from 0 to 1 (lock-bits RegionUpdate)
  Release,  // a lock bit cleared from 1 to 0
  BarrierArrive,
  BarrierRelease,
  SpinStart,  // the first event of a spin interval
  LaneExit,
  WarpStep,      // any WarpStep (with a warp filter: that warp's next instruction)
  RegionUpdate,  // any region update
  StaleRead,     // a load read an older value (MemoryModel StaleRead)
  Reordering,    // a store went before a newer write, or ran before an earlier load (EarlyStore, LateLoad)
  Visible,       // a buffered write became visible to all (MemoryModel Visible)
};
const char* mark_name(Mark m);

// ---- timeline -----------------------------------------------------------------------------------

enum class SpanKind : uint8_t { BarrierWait = 0, Spin = 1, CriticalSection = 2 };

// A derived interval (synclab::trace::analyze), compact, in launch cursors and times. The analysis
// knows global regions only: the critical sections on the bits of shared lock-bits regions (each
// block's copy) are the model's own, found the same way while it replays the launch.
struct Span {
  uint64_t begin = 0, end = 0;   // Event::time, end >= begin
  uint32_t first = 0, last = 0;  // cursors of the events that open and close it
  uint32_t warp = 0;             // the warp it is drawn on
  uint32_t lanes = 0;            // BarrierWait: lanes that arrived; Spin: lanes that spun;
                                 // CriticalSection: 1 << holder lane
  uint32_t info = 0;             // BarrierWait: barrier id; Spin: source line; CS: region id
  uint32_t element = 0;          // CS: element index; Spin: iterations
  SpanKind kind = SpanKind::BarrierWait;
  uint8_t lane = kNoLane;    // CS: holder lane
  bool open_at_end = false;  // still open when the launch's events ended
};

// Steps of one warp in one bucket of a time window.
struct ActivityBucket {
  uint32_t steps = 0;  // WarpSteps in the bucket
  uint32_t lanes = 0;  // sum of their active-lane counts (lanes / steps = average)
};

struct ModelOptions {
  // Checkpoint memory allowed per event of a launch (bytes), and the fewest events between two
  // checkpoints. Smaller budget: less memory, longer replays (bench/viz_core's steps-only trace
  // takes one about every 2,200 events with 3.5 bytes; its mixed one about every 18,000).
  double checkpoint_bytes_per_event = 3.5;
  uint32_t min_checkpoint_interval = 1024;
  synclab::trace::AnalysisOptions analysis{};
};

class Player;

class Model {
 public:
  // Loads through synclab::trace::load and replays each launch once. nullptr and *error on a
  // file that is not a readable trace; a partial model and warning() for a cut-short file.
  static std::unique_ptr<Model> open(const std::string& path, std::string* error, const ModelOptions& opt = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // -- the file
  const std::string& path() const;
  const HeaderInfo& header() const;
  bool complete() const;                       // the trace had its Footer
  const std::string& warning() const;          // "" or lines: the reader's warnings and the model's
  uint64_t total_events() const;               // all events in the file
  const synclab::trace::Trace& trace() const;  // raw access (events stay mapped)

  // -- contents
  const std::vector<LaunchInfo>& launches() const;
  const std::vector<RegionInfo>& regions() const;
  const std::vector<ReportInfo>& reports() const;  // file order
  const std::vector<SourceModule>& modules() const;
  const SourceModule* module_of(int launch) const;  // nullptr when the launch has none
  // Source file path / function of a WarpStep's ids in a launch ("" / nullptr when unknown).
  const std::string& file_path(int launch, uint32_t file_id) const;
  const SourceFunction* function(int launch, uint32_t function_id) const;
  // Indices into reports() of the launch's reports, in cursor order.
  const std::vector<uint32_t>& launch_reports(int launch) const;
  // Lines of a source file (read once, then cached; line n is [n - 1]); nullptr when it cannot
  // be read (the trace names the path as it was when the program was built).
  const std::vector<std::string>* source_lines(const std::string& path) const;

  // -- cursors and times (launch: index into launches())
  const Event& event_at(int launch, uint64_t cursor) const;  // cursor < steps
  uint64_t time_of(int launch, uint64_t cursor) const;
  // The last cursor whose time is <= t (0 when t is before the first event).
  uint64_t cursor_at_time(int launch, uint64_t t) const;

  // -- state
  // State after the launch's events 0..cursor (cursor clipped to steps - 1). Reuses out's buffers.
  void state_at(int launch, uint64_t cursor, State* out, const StateOptions& opt = {}) const;
  State state_at(int launch, uint64_t cursor, const StateOptions& opt = {}) const;

  // -- navigation: the next (> cursor) / previous (< cursor) event of a kind; with warp !=
  // kNoWarp only events of that warp (for BarrierRelease: of that warp's block). kNoCursor
  // when there is none. Pass cursor = kNoCursor to next() to search from the launch's start.
  uint64_t next(int launch, uint64_t cursor, Mark m, uint32_t warp = kNoWarp) const;
  uint64_t prev(int launch, uint64_t cursor, Mark m, uint32_t warp = kNoWarp) const;
  // Where the viewer opens: the launch's first Report event; else its first barrier release or
  // lock acquire (whichever is earlier); else 0.
  uint64_t first_interesting(int launch) const;
  // The first cursor at which the regions (indices into regions()) together reach their largest
  // total over the launch: NonZero counts the cells that are non-zero (lock bits held, flags set,
  // elements not 0), Sum adds the cells' values. kNoCursor when the total is never above 0.
  // (synclab-viz --step most:REGIONS / max:REGIONS: "the moment the most locks are held".)
  enum class PeakMeasure : uint8_t { NonZero, Sum };
  // Shared regions count the copy of `block` only (kAllBlocks: every block's copy).
  static constexpr uint64_t kAllBlocks = ~0ull;
  uint64_t peak(int launch, const std::vector<int>& regions, PeakMeasure how, uint64_t block = kAllBlocks) const;

  // -- timeline
  // All spans of the launch, sorted by (warp, first).
  const std::vector<Span>& spans(int launch) const;
  // Indices into spans(launch) of the warp's spans that overlap the time window [t0, t1].
  void spans_in(int launch, uint32_t warp, uint64_t t0, uint64_t t1, std::vector<uint32_t>* out) const;
  // The warp's WarpSteps in [t0, t1) split into `buckets` equal time buckets (out resized).
  void activity(int launch, uint32_t warp, uint64_t t0, uint64_t t1, uint32_t buckets,
                std::vector<ActivityBucket>* out) const;
  // Number of WarpSteps of the warp in [t0, t1).
  uint64_t step_count(int launch, uint32_t warp, uint64_t t0, uint64_t t1) const;
  // Warps of the launch that have at least one event (sorted).
  const std::vector<uint32_t>& active_warps(int launch) const;
  // Cursors of the launch's well-formed HostAccess events, sorted (the host row; see "The host").
  const std::vector<uint32_t>& host_accesses(int launch) const;
  // The region (index into regions(), -1 none) and cell a HostAccess names: its first byte's.
  int host_access_region(int launch, uint64_t cursor, uint64_t* cell) const;

  // -- memory accounting (what the bench reports)
  size_t memory_bytes() const;  // bytes the model holds besides the mapping
  size_t checkpoint_count(int launch) const;

  struct Impl;

 private:
  Model();
  std::unique_ptr<Impl> impl_;
  friend class Player;
};

// An incremental cursor over one launch: keeps its replay state, so seek(c + 1) applies one
// event and seek(c - 1) replays from the checkpoint before c. state() computes the view. The
// Model must outlive its Players.
class Player {
 public:
  Player(const Model& m, int launch);
  ~Player();
  Player(Player&&) noexcept;
  Player& operator=(Player&&) noexcept;

  int launch() const;
  uint64_t cursor() const;     // kNoCursor before the first seek
  void seek(uint64_t cursor);  // clipped to steps - 1
  void step(int64_t delta);    // seek(cursor + delta), clipped to [0, steps - 1]
  void state(State* out, const StateOptions& opt = {}) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace synclab::viz
