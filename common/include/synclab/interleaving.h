// The interleaving behind a report: the accesses to one memory location, in the order the trace
// recorded them, with the synchronization of the threads involved in between. Shared by
// `synclab-trace interleaving` (text) and the visualizer's Reports window (a list to click).
//
//   synclab::trace::InterleavingRequest req;            // nothing set: the first race report
//   req.report = 1;                                     // or report 1 (as numbered by `summary`)
//   synclab::trace::Interleaving il;
//   std::string err;
//   if (!synclab::trace::find_interleaving(*t, req, &il, &err)) { show(err); return 1; }
//   synclab::trace::write_interleaving(*t, il, std::cout);
//
// How a race report becomes accesses. A Report chunk names the threads (parties: block, warp in
// the block, lane, source line, "read"/"write"/"atomic") but not the address; the trace's events
// have it. The report's first party is the access that completed the race: the last access of
// that thread (the Report event's warp and lane), of that kind and at that line, before the
// Report event. Its bytes are the location. The second party is the earlier access: that
// thread's last access of that kind and line to those bytes before the first one. When a party's
// lane finds nothing, any lane of its warp is tried (a party's lane may be counted across the
// grid rather than within its block).
//
// Which events are listed. Every MemAccess and Atomic that overlaps the location's bytes (shared
// memory: in the same block), and between them the synchronization of the threads involved:
// barrier releases of their blocks, their fences, their acquire/release/volatile accesses and
// atomics elsewhere (memory orders are MemAccess/Atomic aux bits 8-10, recorded by the
// simulator), and warp syncs when both racing threads share a warp. By default only a window:
// from the last barrier release of the racing threads' blocks before the earlier racing access
// (else the launch's start), with at most 6 accesses before that access (the racing threads' own
// always kept), to the later racing access (its whole instruction), and then the store that
// completes a racing thread's read-modify-write when it comes before their blocks' next barrier;
// other threads' accesses after the later racing access are counted, not listed. Without a race:
// up to the report's event (16 accesses) or, for an address alone, the launch's first 40
// accesses. `all` lists the whole launch. Lanes of one instruction that did the same are
// one item (a lane mask), and repeated identical items (a spin reading the same value) one item
// with a count.
//
// The explanation is computed from the listed accesses: two threads that each loaded V and then
// stored, where both loads come before both stores, lost an update ("both threads read 0 before
// either stored; each stored 1, so one increment is lost").
#pragma once

#include <synclab/trace_reader.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace synclab::trace {

struct InterleavingRequest {
  int64_t report = -1;  // Report chunk "id" (`synclab-trace summary` prints "report N"); -1: none
  std::string address;  // "" or an address: "0x7f00", "32512", or "shared:0x10" (shared memory offset)
  int64_t block = -1;   // with a shared address: whose shared memory (-1: the first block that uses it)
  int launch = -1;      // with an address and no report: index into Trace::launches (-1: the first
                        // launch that accesses the address)
  bool all = false;     // every access in the launch, not only the window around the race
};

enum class InterleavingItemKind : uint8_t {
  Load,        // a MemAccess read of the location
  Store,       // a MemAccess write of the location
  Atomic,      // an Atomic on the location (old -> new)
  Barrier,     // a BarrierRelease of an involved block
  Fence,       // a fence (membar/fence) by an involved thread
  WarpSync,    // a warp-synchronizing step (__syncwarp, shuffles, votes) by an involved warp
  SyncAccess,  // an acquire/release/volatile access or an atomic elsewhere by an involved thread
  Report,      // the report's own Report event
  Elided,      // events left out: a long run of synchronization, or other threads' accesses
               // after the race (how many in `repeat`)
};

struct InterleavingItem {
  InterleavingItemKind kind = InterleavingItemKind::Load;
  size_t event = 0;          // global event index (Trace::event)
  uint64_t cursor = 0;       // index within the launch: what synclab-viz --step takes
  uint64_t last_cursor = 0;  // merged items: the cursor of the last one (else == cursor)
  uint32_t repeat = 1;       // how many identical events this item stands for
  uint32_t warp = 0;         // Event::warp (launch warp)
  uint8_t lane = kAllLanes;  // kAllLanes for whole-warp and block events; else the first lane
  uint32_t lanes = 0;        // the lanes of the warp it stands for: lanes of one instruction
                             // that did the same are one item
  uint64_t time = 0;         // Event::time
  int64_t block = -1;        // the block (-1 when warps_per_block is unknown)
  int64_t thread = -1;       // thread index within the block (-1 for whole-warp events)
  uint64_t address = 0;      // accesses: the address (shared: offset in the block's shared memory)
  uint32_t size = 0;         // accesses: bytes
  MemSpace space = MemSpace::Global;
  uint8_t order = 0;       // MemOrder (aux bits 8-10); 0: plain or not recorded
  uint64_t value = 0;      // Load/Store: the value; Atomic: the old value
  uint64_t new_value = 0;  // Atomic: the value after it
  std::string place;       // SyncAccess: the region element it touches ("victim element 0"), or ""
  uint32_t line = 0;       // CUDA source line (0: unknown)
  std::string file;        // source file ("" when unknown)
  bool racing = false;     // one of the two accesses the report names
  bool host = false;       // the host's access (a HostAccess event): no warp, lane, block or thread
  std::string what;        // "load", "store", "atomic", "acquire load", "barrier 0 released", ...
};

struct Interleaving {
  int launch = -1;      // index into Trace::launches
  int64_t report = -1;  // the report used (its "id"), -1: none
  std::string report_kind, report_title;
  size_t race_reports = 0;      // race reports in the whole trace
  bool picked_default = false;  // no report or address was asked: the first race report was taken
  // When picked by default: the first report of another kind (sync, hang) made before that race
  // report, which the race may follow from ("": none). Its id, kind and title.
  int64_t earlier_id = -1;
  std::string earlier_kind, earlier_title;
  // The location.
  MemSpace space = MemSpace::Global;
  int64_t block = -1;  // shared memory: whose; -1 otherwise
  uint64_t address = 0;
  uint32_t bytes = 0;
  std::string location;  // "global 0x7f..00, 4 bytes (region "x" element 0)"
  std::string place;     // the same, short: "x[0]", "global 0x7f..00", "shared 0x10 of block 1"
  std::vector<InterleavingItem> items;
  int racing[2] = {-1, -1};        // indices into items: the earlier and the later racing access
  size_t hidden_before = 0;        // accesses to the location before the first listed one (window)
  size_t hidden_after = 0;         // ... after the last listed one
  bool windowed = false;           // items are a window, not the whole launch
  std::string explanation;         // "" unless a pattern was recognised (the lost update)
  std::vector<std::string> notes;  // how the report was matched to events, what was assumed
};

// Memory orders in MemAccess / Atomic aux bits 8-10 (trace_format.h kAuxOrder*).
const char* mem_order_name(uint8_t order);  // "", "volatile", "relaxed", "acquire", ...

// Parses "0x1f", "31" or "shared:0x10". false and *error on anything else.
bool parse_interleaving_address(const std::string& text, uint64_t* address, bool* shared, std::string* error);

// Fills *out. false and *error (what was wrong and what to try) when: the report number does not
// exist; the trace has no race report and none was asked for; the report names no address and
// its threads' accesses are not in the trace (give an address); the address lies outside every
// region and every range the trace's accesses touch (the message lists them); nothing accessed
// an address inside a region.
bool find_interleaving(const Trace& t, const InterleavingRequest& req, Interleaving* out, std::string* error);

// The text `synclab-trace interleaving` prints: the report, the location, one line per item
// (">>" marks the racing accesses), what was left out and the explanation.
void write_interleaving(const Trace& t, const Interleaving& il, std::ostream& out);

// "block 1 thread 0 (warp 0 lane 0)" for an item (or "warp 3 lane 2" when blocks are unknown);
// brief: without the part in parentheses.
std::string interleaving_thread_name(const InterleavingItem& it, bool brief = false);

// "load 0", "store 1", "atomic 0 -> 1", "barrier 0 released", ... (what and value, short).
std::string interleaving_item_text(const InterleavingItem& it);

}  // namespace synclab::trace
