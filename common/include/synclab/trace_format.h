// The SyncLab trace format: one versioned binary file for simulator and GPU runs.
// docs/trace-format.md is the specification; this header is its C++ form, shared by the writers
// (the simulator, trace.cuh on the GPU) and the reader (the viz, `synclab trace`).
//
// File = Preamble, then chunks until the end of the file. Each chunk is a ChunkHeader and
// `bytes` of payload (padded with zeros to a multiple of 8). Chunk kinds:
//   Header  (JSON, exactly one, first): program, backend, device profile, warp model, scheduler,
//           seed, source files, function line tables.
//   Kernel  (JSON, one per launch, before that launch's events): kernel name, launch index, grid
//           and block shape, warps per block, dynamic shared memory; "recorded": false when the
//           kernel filter left the launch's events out.
//   Region  (JSON): a named region {id, name, kind, address, bytes, elem_bits, elem_bytes, dims}
//           (elem_bits is 1 for lock-bits, where elem_bytes is 0).
//   SharedRegion (JSON): a named __shared__ array, one per block:
//           {id, name, kind, space: "shared", variable, kernel, bytes, elem_bits, elem_bytes, dims}.
//           Its id is drawn from the same numbers as Region ids (RegionUpdate aux bits 0-7).
//           Each Kernel chunk lists where the launch found it: "shared_regions": [{id, offset}]
//           (offset: the variable's byte offset in each block's shared memory). Its
//           RegionUpdate events are per block: the block is the event's warp / warps_per_block.
//           Readers that predate it skip the chunk (an unknown kind) and its updates.
//   Report  (JSON): a checker or progress report {id, kind, severity, title, text, launch,
//           parties:[{block, warp, lane, line, file, ptx_line, access}]}.
//   Events  (binary): whole Event records, payload bytes a multiple of 32.
//   Footer  (JSON, last when the writer closed cleanly): event count, dropped and filtered
//           events, why recording stopped (size limit), wall time.
// A file without a Footer was cut short (the program crashed or was killed); the reader keeps
// every complete chunk before the damage and says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::trace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'T', 'R', 'C', '1'};
constexpr uint32_t kVersion = 1;

struct Preamble {  // 16 bytes
  char magic[8];
  uint32_t version;
  uint32_t flags;  // bit 0: recorded on a GPU (trace.cuh); otherwise the simulator
};

enum class ChunkKind : uint32_t {
  Header = 1,
  Kernel = 2,
  Region = 3,
  Report = 4,
  Events = 5,
  Footer = 6,
  SharedRegion = 7,  // added in format version 1 as an optional chunk: older readers skip it
};

struct ChunkHeader {  // 16 bytes
  uint32_t kind;      // ChunkKind
  uint32_t reserved;
  uint64_t bytes;  // payload bytes that follow (before padding)
};

enum class EventKind : uint8_t {
  WarpStep = 1,   // a: active mask (low 32) | pc (high 32); b: line (low 32) | function (bits 32-47) | file (48-63);
                  // aux: InstrClass. Written before the events of its instruction, which have its time.
  MemAccess = 2,  // lane; a: address; b: value (low `size` bytes); aux: MemAux bits, memory order
  Atomic = 3,     // lane; a: address; b: old (low 32) | new (high 32) for 32-bit and smaller;
                  //   aux: MemAux bits with kAux64. A 64-bit atomic is followed by an
                  //   AtomicWide record: a = old, b = new.
  AtomicWide = 4,
  BarrierArrive = 5,    // a: lanes arriving (mask); b: block; aux: barrier id
  BarrierRelease = 6,   // a: threads released; b: block; aux: barrier id; warp: first warp of the block
  RegionUpdate = 7,     // lane (writer); a: element index; b: new value; aux: region id (bits
                        //   0-7), and for a lock-bits region written a byte at a time, bits 8-11
                        //   the bytes written (1..8): then a is the first bit and b the new bytes;
                        //   bit 12 (kRegionSnapshot): the contents when the launch began, not a write
  KernelBegin = 8,      // a: launch index; b: total warps of the launch
  KernelEnd = 9,        // a: launch index; b: KernelEndStatus
  Report = 10,          // a: report id (Report chunk); b: line; aux: report kind (ReportKindCode)
  LaneExit = 11,        // a: lanes exiting (mask)
  Mark = 12,            // a user mark (trace.cuh): a and b are the user's values; aux: tag
  BlockPlacement = 13,  // a: block linear index; b: SM the block ran on (%smid); warp: the block's first warp
  MemoryModel = 14,     // what the relaxed memory model did (SYNCLAB_MEMORY=relaxed): aux: MemoryModelKind
                        //   and space; lane; a: address; b: a value (see MemoryModelKind). Right after
                        //   the access it is about.
  HostAccess = 15,      // the host's access to a named region of host-mapped or managed memory while
                        //   a kernel ran (simulator traces): warp 0 and lane kAllLanes (the host is no
                        //   warp); a: address; b: the value written or read (low `size` bytes); aux:
                        //   MemAux bits (space, kAuxWrite, size). time: the warp step before which the
                        //   access happened (after the previous step began). Reads and writes where
                        //   the header's "host_accesses" says "reads and writes", else writes only,
                        //   found by change detection. Added in version 1 (reads later,
                        //   in version 1 too: older readers skip them as malformed).
};

// MemoryModel events: aux bits 0-7 the kind, bits 8-10 the MemSpace of the address (shared
// memory: a is the offset in the block's shared memory, as in MemAccess), bits 11-13 log2 of the
// access size in bytes.
constexpr uint16_t kMemoryModelKindMask = 0xff;
constexpr uint16_t kMemoryModelSpaceShift = 8;
constexpr uint16_t kMemoryModelSizeShift = 11;
enum class MemoryModelKind : uint16_t {
  StaleRead = 1,   // the lane's load at a read an older value (its MemAccess has it); b: the newest
                   //   value (memory's)
  EarlyStore = 2,  // the lane's store at a went before a newer write in coherence order, so it was
                   //   overwritten at once; b: the value memory keeps
  Buffered = 3,    // the lane's write at a is the newest, but older values of a can still be read by
                   //   threads that have not synchronized with it; b: the value written
  Visible = 4,     // the write of the last Buffered event at a (this warp and lane) became the only
                   //   value any thread can read; b: its value
  LateLoad = 5,    // load buffering: the lanes of a (mask, lane kAllLanes) ran the store at source
                   //   line b before their earlier load, which runs at the warp's next step
};

// Instruction classes of WarpStep.aux.
enum class InstrClass : uint16_t {
  Alu = 0,
  Load = 1,
  Store = 2,
  Atomic = 3,
  Branch = 4,
  Barrier = 5,
  WarpSync = 6,
  Fence = 7,
  Call = 8,
  Return = 9,
  Exit = 10,
  Other = 11,
};

// MemAccess / Atomic aux bits.
constexpr uint16_t kAuxSpaceMask = 0x7;  // MemSpace
constexpr uint16_t kAuxWrite = 0x8;
constexpr uint16_t kAuxSizeShift = 4;  // log2(size in bytes) in bits 4..6
constexpr uint16_t kAux64 = 0x80;      // Atomic: 64-bit, an AtomicWide record follows
enum class MemSpace : uint16_t { Global = 0, Shared = 1, Local = 2, Const = 3, HostMapped = 4 };
// MemAccess / Atomic aux bits 8-10: the instruction's memory order (simulator traces). 0 is a
// plain access, and also what GPU traces and older simulator traces hold.
constexpr uint16_t kAuxOrderShift = 8;
constexpr uint16_t kAuxOrderMask = 0x700;
enum class MemOrder : uint16_t { Plain = 0, Volatile = 1, Relaxed = 2, Acquire = 3, Release = 4, AcqRel = 5, Sc = 6 };
// Bits 11-12: the scope of a non-plain order: 0 none, 1 block (.cta), 2 device (.gpu, .cluster), 3 system.
constexpr uint16_t kAuxScopeShift = 11;
constexpr uint16_t kAuxScopeMask = 0x1800;

// RegionUpdate aux fields.
constexpr uint16_t kRegionIdMask = 0xff;
constexpr uint16_t kRegionBytesMask = 0xf00;
constexpr uint16_t kRegionBytesShift = 8;
// Set on the RegionUpdate events right after a launch's KernelBegin that give a region's contents
// as the launch found them (host copies and memsets, earlier launches): lane kAllLanes, warp 0,
// no writer. Elements they do not name were zero.
constexpr uint16_t kRegionSnapshot = 0x1000;

// How a launch ended (KernelEnd's b).
enum class KernelEndStatus : uint64_t { Ok = 0, Fault = 1, Deadlock = 2, Hang = 3, Budget = 4 };

enum class ReportKindCode : uint16_t {
  Fault = 0,
  Trap = 1,
  Assert = 2,
  Deadlock = 3,
  Hang = 4,
  Budget = 5,
  Race = 6,
  Sync = 7,
  Init = 8,
  Mem = 9 /* no longer written: memory errors are faults */,
  Info = 10,
};

// One event record: 32 bytes, little-endian, naturally aligned.
struct Event {
  uint64_t time;  // simulator: global warp-step counter; GPU: %globaltimer in ns
  uint32_t warp;  // warp within the launch: block_linear * warps_per_block + warp_in_block
  uint8_t kind;   // EventKind
  uint8_t lane;   // 0..31, or kAllLanes for a whole-warp event
  uint16_t aux;   // kind-specific
  uint64_t a;
  uint64_t b;
};
static_assert(sizeof(Event) == 32, "trace events are 32 bytes");
constexpr uint8_t kAllLanes = 0xff;

// A HostAccess event readers can use: a read or a write of 1, 2, 4 or 8 bytes to global or
// host-mapped memory. Readers skip others and say so.
inline bool host_access_well_formed(const Event& e) {
  const auto space = static_cast<MemSpace>(e.aux & kAuxSpaceMask);
  return (space == MemSpace::Global || space == MemSpace::HostMapped) && ((e.aux >> kAuxSizeShift) & 7) <= 3;
}
// A well-formed HostAccess that writes (the others read and change nothing).
inline bool host_access_writes(const Event& e) { return host_access_well_formed(e) && (e.aux & kAuxWrite); }

// An event from its fields (tools, tests and benchmarks that write traces by hand).
inline Event make_event(uint64_t time, uint32_t warp, EventKind kind, uint8_t lane, uint16_t aux, uint64_t a,
                        uint64_t b) {
  Event e{};
  e.time = time;
  e.warp = warp;
  e.kind = static_cast<uint8_t>(kind);
  e.lane = lane;
  e.aux = aux;
  e.a = a;
  e.b = b;
  return e;
}

}  // namespace synclab::trace
