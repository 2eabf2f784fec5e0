// Lab 05 (prefix sums): the harness's host side (provided). Each run_* function allocates,
// launches the student files' kernels under the simulator's current settings, copies the result
// back, and collects the simulator's reports (none on a GPU). A fault throws
// synclab::lab::CudaFailure naming this file's line; a look-back that hangs is a result.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab05.h"
#include "lab05_kernels.cuh"
#include "lab_harness.cuh"

namespace lab05 {

using synclab::lab::check_shape;
using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::TraceScope;

static_assert(kFlagPrefix == kPrefix, "lab05.h's kFlagPrefix is lab05_kernels.cuh's kPrefix");

namespace {
// The simulator reads SYNCLAB_* once, when a program makes its first CUDA call. Before that (at
// start-up), ask for blocks in reverse blockIdx order unless the caller chose an order: hardware
// promises none, and reverse is the order that hangs a scan whose blocks wait for the blocks
// before them (docs/simulator.md, "Device profiles"). On a GPU the variable does nothing.
struct ReverseDispatch {
  ReverseDispatch() { setenv("SYNCLAB_DISPATCH", "reverse", 0); }
} reverse_dispatch;
}  // namespace

std::string dispatch_order() {
  if (!synclab::lab::on_simulator()) return "gpu";
  const char* v = std::getenv("SYNCLAB_DISPATCH");
  return v && *v ? v : "default";
}

std::string dispatch_words() {
  const std::string o = dispatch_order();
  if (o == "reverse") return "in reverse blockIdx order";
  if (o == "order") return "in blockIdx order";
  if (o == "random") return "in an order drawn from the seed";
  if (o == "gpu") return "in the order the GPU chooses";
  if (o == "default") return "in the simulator's default order (blockIdx order under rr, random under pct and random)";
  return "in the order SYNCLAB_DISPATCH=" + o + " asks for";
}

const char* name(BlockKernel k) {
  switch (k) {
    case BlockKernel::hillis_racy: return "scan_hillis_racy";
    case BlockKernel::hillis_fixed: return "scan_hillis_fixed";
    case BlockKernel::hillis_double: return "scan_hillis_double";
    case BlockKernel::blelloch: return "scan_blelloch";
    case BlockKernel::blelloch_padded: return "scan_blelloch_padded";
  }
  return "?";
}

bool exclusive(BlockKernel k) { return k == BlockKernel::blelloch || k == BlockKernel::blelloch_padded; }

BlockKernel block_kernel(const std::string& n) {
  for (BlockKernel k :
       {BlockKernel::hillis_racy, BlockKernel::hillis_fixed, BlockKernel::hillis_double, BlockKernel::blelloch,
        BlockKernel::blelloch_padded})
    if (n == name(k)) return k;
  if (n == "racy") return BlockKernel::hillis_racy;
  if (n == "fixed") return BlockKernel::hillis_fixed;
  if (n == "double") return BlockKernel::hillis_double;
  if (n == "blelloch" || n == "plain") return BlockKernel::blelloch;
  if (n == "padded") return BlockKernel::blelloch_padded;
  throw std::invalid_argument("unknown kernel '" + n + "' (racy, fixed, double, blelloch or padded)");
}

std::vector<int> random_values(int n, uint32_t seed) {
  std::vector<int> v(n > 0 ? n : 0);
  synclab::lab::Xorshift64 random{0x9e3779b97f4a7c15ull ^ seed};
  for (int& x : v) x = int(random.next() % 10);
  return v;
}

// ---- tasks 1 and 2 ------------------------------------------------------------------------------
BlockResult run_block(BlockKernel kernel, const std::vector<int>& values, int blocks, int threads,
                      const char* trace) {
  check_shape(blocks, threads);
  if ((threads & (threads - 1)) != 0)
    throw std::invalid_argument(std::string(name(kernel)) + " needs a power of two threads per block, not " +
                                std::to_string(threads));
  if (values.size() != size_t(blocks) * threads)
    throw std::invalid_argument("need blocks x threads = " + std::to_string(blocks * threads) + " values, not " +
                                std::to_string(values.size()));
  const bool in_place = kernel == BlockKernel::hillis_racy || kernel == BlockKernel::hillis_fixed;
  BlockResult r;
  DeviceArray<int> a(values.size()), out(values.size(), synclab::lab::zeroed);
  a.upload(values);
  if (trace) {
    if (in_place) {
      synclab_region(a.ptr, a.bytes(), "a", "array", int(values.size()));
    } else {
      synclab_region(a.ptr, a.bytes(), "in", "array", int(values.size()));
      synclab_region(out.ptr, out.bytes(), "out", "array", int(values.size()));
    }
    // 1b and 2 work in shared memory: the viewer draws one block's copy (synclab-viz --block N).
    int refused = 0;
    if (kernel == BlockKernel::hillis_double)
      refused = synclab_region_shared(scan_hillis_double, "buf", size_t(2 * threads) * sizeof(int), "array",
                                      2 * threads);  // the first buffer, then the second
    else if (kernel == BlockKernel::blelloch)
      refused = synclab_region_shared(scan_blelloch, "s", size_t(threads) * sizeof(int), "array", threads);
    if (refused)
      std::fprintf(stderr, "(%s has no such __shared__ array yet, or under another name: the trace leaves it out)\n",
                   name(kernel));
  }
  {
    TraceScope scope(trace);
    switch (kernel) {
      case BlockKernel::hillis_racy: scan_hillis_racy<<<blocks, threads>>>(a.ptr); break;
      case BlockKernel::hillis_fixed: scan_hillis_fixed<<<blocks, threads>>>(a.ptr); break;
      case BlockKernel::hillis_double: scan_hillis_double<<<blocks, threads>>>(a.ptr, out.ptr); break;
      case BlockKernel::blelloch: scan_blelloch<<<blocks, threads>>>(a.ptr, out.ptr); break;
      case BlockKernel::blelloch_padded: scan_blelloch_padded<<<blocks, threads>>>(a.ptr, out.ptr); break;
    }
    finish_launch(r.reports);
  }
  r.out = in_place ? a.download() : out.download();
  return r;
}

std::string block_advice(BlockKernel k, const Report& r) {
  if (r.kind != "race") return "";
  switch (k) {
    case BlockKernel::hillis_fixed:
      return "at one level thread t reads a[t - off] while thread t - off adds into it: read it into a temporary, "
             "__syncthreads(), then add the temporary into a[t], then __syncthreads() again before the next level "
             "(both barriers outside the if)";
    case BlockKernel::hillis_double:
      return "each level reads one buffer and writes the other: one __syncthreads() after each level's writes, "
             "outside any if, before the next level reads them";
    case BlockKernel::blelloch:
    case BlockKernel::blelloch_padded:
      return "every level of the up-sweep and of the down-sweep reads what other threads wrote at the level before: "
             "a __syncthreads() after each level (and after clearing the last element), outside the if";
    default: return "";
  }
}

std::string block_result_advice(BlockKernel kernel, const std::vector<int>& values, int threads,
                                const std::vector<int>& out) {
  if (kernel != BlockKernel::hillis_double || threads < 2 || out.size() != values.size()) return "";
  // Each segment after every level but the last: what the buffer the last level read holds.
  std::vector<int> before_last(values.size());
  for (size_t b = 0; b < values.size(); b += size_t(threads)) {
    std::vector<int> from(values.begin() + long(b), values.begin() + long(b) + threads), to(from.size());
    for (int off = 1; off < threads / 2; off *= 2) {
      for (int t = 0; t < threads; ++t) to[t] = from[t] + (t >= off ? from[t - off] : 0);
      from.swap(to);
    }
    std::copy(from.begin(), from.end(), before_last.begin() + long(b));
  }
  if (out != before_last) return "";
  return "out holds the buffer of the level before the last: after the last level's swap, the result is in the "
         "buffer that level wrote (the one the next level would read)";
}

namespace {
int tiles_of(size_t n, int threads) { return int((n + threads - 1) / threads); }

void check_tiles(const std::vector<int>& values, int threads, int max_tiles) {
  check_shape(1, threads);
  if (threads % 32 != 0)
    throw std::invalid_argument("the multi-block scans need a multiple of 32 threads per block, not " +
                                std::to_string(threads));
  if (values.empty()) throw std::invalid_argument("need at least one value");
  if (max_tiles > 0 && tiles_of(values.size(), threads) > max_tiles)
    throw std::invalid_argument(std::to_string(tiles_of(values.size(), threads)) + " tiles of " +
                                std::to_string(threads) + " values: at most " + std::to_string(max_tiles));
}
}  // namespace

// ---- task 3 -------------------------------------------------------------------------------------
ScanResult run_multiblock(const std::vector<int>& values, int threads, const char* trace) {
  check_tiles(values, threads, threads);  // scan_tile_sums is one block of `threads`
  const int n = int(values.size()), tiles = tiles_of(values.size(), threads);
  ScanResult r;
  DeviceArray<int> in(values.size()), out(values.size(), synclab::lab::zeroed), sums(tiles, synclab::lab::zeroed);
  in.upload(values);
  if (trace) {
    synclab_region(in.ptr, in.bytes(), "in", "array", n);
    synclab_region(sums.ptr, sums.bytes(), "sums (per tile)", "array", tiles);
    synclab_region(out.ptr, out.bytes(), "out", "array", n);
  }
  {
    TraceScope scope(trace);
    tile_sums<<<tiles, threads>>>(in.ptr, n, sums.ptr);
    finish_launch(r.reports);
    scan_tile_sums<<<1, threads>>>(sums.ptr, tiles);
    finish_launch(r.reports);
    scan_tiles<<<tiles, threads>>>(in.ptr, n, sums.ptr, out.ptr);
    finish_launch(r.reports);
  }
  r.out = out.download();
  r.sums = sums.download();
  return r;
}

// ---- task 4 -------------------------------------------------------------------------------------
LookbackResult run_lookback(const std::vector<int>& values, int threads, const char* trace) {
  check_tiles(values, threads, 0);
  const int n = int(values.size()), tiles = tiles_of(values.size(), threads);
  LookbackResult r;
  DeviceArray<int> in(values.size()), out(values.size(), synclab::lab::zeroed);
  DeviceArray<int> aggregates(tiles, synclab::lab::zeroed), prefixes(tiles, synclab::lab::zeroed);
  DeviceArray<unsigned> counter(1, synclab::lab::zeroed), flags(tiles, synclab::lab::zeroed);
  // Reports name them as scan_lookback's parameters do.
  in.named("in");
  out.named("out");
  aggregates.named("aggregates");
  prefixes.named("prefixes");
  counter.named("tile_counter");
  flags.named("flags");
  in.upload(values);
  if (trace) {
    synclab_region(flags.ptr, flags.bytes(), "flags", "flags", tiles);  // per tile: 1 aggregate, 2 prefix
    synclab_region(aggregates.ptr, aggregates.bytes(), "aggregates", "array", tiles);
    synclab_region(prefixes.ptr, prefixes.bytes(), "prefixes", "array", tiles);
    synclab_region(counter.ptr, counter.bytes(), "tile counter", "array", 1);
    synclab_region(out.ptr, out.bytes(), "out", "array", n);
  }
  synclab::lab::Finish f;
  {
    TraceScope scope(trace);
    scan_lookback<<<tiles, threads>>>(in.ptr, n, out.ptr, counter.ptr, flags.ptr, aggregates.ptr, prefixes.ptr);
    // A look-back that waits for a tile no running block holds never ends: a result, not an error.
    f = finish_launch(r.reports, synclab::lab::OnFailure::keep_any);
  }
  if (!f.ok) {
    r.stuck = true;  // (the device was reset: its memory is gone)
    return r;
  }
  r.out = out.download();
  r.flags = flags.download();
  r.tile_counter = counter.download()[0];
  return r;
}

namespace {
bool any_report(const std::vector<Report>& rs, const std::string& kind, const std::string& in_title) {
  for (const Report& r : rs)
    if ((kind.empty() || r.kind == kind) && r.title.find(in_title) != std::string::npos) return true;
  return false;
}
}  // namespace

std::string lookback_advice(const LookbackResult& r, const std::string& memory, bool wrong) {
  const std::string volatile_flags =
      "read the flags through volatile pointers or atomics: a plain load of a flag that another block writes is "
      "itself a data race, and the compiler may load it once and spin on the register for ever; a fence orders the "
      "loads around it, it does not make a plain load of the flag see the store (the values need no volatile: the "
      "fence after the flag's read, or an acquire load of it, orders their loads)";
  const std::string release =
      "the tile's value must be visible before its flag: write the aggregate or prefix, then __threadfence(), then "
      "the flag (or a release store of the flag), each time thread 0 publishes one";
  const std::string acquire =
      "the flag's read must come before the value's: read the flag, then __threadfence(), then the aggregate or "
      "prefix (or an acquire load of the flag), in the look-back's loop";
  const std::string ordering =
      "a tile's aggregate and prefix are published through its flag, so no block may see the flag before the value: "
      "write the value, then __threadfence(), then the flag; read the flag, then __threadfence(), then the value (or "
      "a release store and an acquire load of the flag). __threadfence_block() is not enough: it orders only for "
      "the threads of the same block, and the reader is another block";
  // A spin on a register: the flag's load was hoisted out of the loop.
  if (any_report(r.reports, "hang", "reads no memory")) return volatile_flags;
  if (r.stuck || any_report(r.reports, "hang", "") || any_report(r.reports, "deadlock", ""))
    return "blocks start in any order (here the reverse of blockIdx order), and a block that is not running cannot "
           "publish its tile: if tile = blockIdx.x, the running blocks wait for tiles of blocks that cannot start "
           "until a running block finishes. Take the tile from atomicAdd(tile_counter, 1) in thread 0 and share it "
           "through shared memory: a block then only waits for tiles that started before it";
  // tile_s and offset_s: thread 0 writes them, every thread reads them.
  if (any_report(r.reports, "race", "shared memory") || any_report(r.reports, "init", "shared memory"))
    return "thread 0 writes the tile (tile_s) and the offset (offset_s) in shared memory and every thread reads them: "
           "a __syncthreads() after thread 0 writes each of them and before the others read it, outside the "
           "if (threadIdx.x == 0)";
  // A race on the values: the race report says which side of the hand-over through the flag lacks
  // its fence (or that the flag itself is read with a plain load).
  for (const Report& x : r.reports) {
    if (x.kind != "race") continue;
    if (x.text.find("reads it with a plain load") != std::string::npos) return volatile_flags;
    if (x.text.find("the other side did not release") != std::string::npos)
      return "a block read a tile's value after seeing its flag, and fenced after the flag's read, but the tile's "
             "writer did not release: " + release;
    if (x.text.find("did not acquire it") != std::string::npos)
      return "a block saw a tile's flag that was released, but did not acquire it before reading the value: " +
             acquire;
    if (x.text.find("without release/acquire ordering") != std::string::npos)
      return "neither side of the hand-over through the flag is ordered: " + release + "; and " + acquire;
    return ordering;
  }
  bool untouched = true;  // out all 0: the message asks whether TODO(4) is done
  for (int x : r.out) untouched = untouched && x == 0;
  if (!wrong || untouched) return "";
  if (memory == "relaxed")
    return "wrong in this run under the relaxed memory model, where a store may become visible late and a load may "
           "read an older value: " + ordering;
  return "the look-back adds the aggregates of tiles tile - 1, tile - 2, ... while their flag is kAggregate, and "
         "when it meets kPrefix adds that tile's prefix and stops (tile 0 publishes only its prefix); and " +
         ordering;
}

// ---- task 5 -------------------------------------------------------------------------------------
std::string compact_advice(const CompactResult& r, int expected, bool wrong) {
  if (any_report(r.reports, "race", ""))
    return "two threads wrote one place of out: write only the kept values (keep[i] == 1); a value that is not kept "
           "has the same positions[i] as the kept value before it";
  if (!wrong) return "";
  if (r.count == 0) return "no value was kept: is TODO(5) done in keep_flags?";
  if (r.count < expected)
    return "fewer values were kept than the host keeps: every i < n needs its flag, whatever the grid (the graded "
           "grids have fewer threads than values): a grid-stride loop, i += gridDim.x * blockDim.x";
  if (r.count == expected)
    return "positions[i] is the inclusive scan of keep: it counts in[i] itself, so the kept in[i] goes to "
           "out[positions[i] - 1]: its place is the number of kept values before it; every i < n, in a grid-stride "
           "loop";
  return "";
}

namespace {
// Provided for task 5: positions = the inclusive scan of keep, by one thread (slow, and simple:
// task 5 is about what happens around the scan).
__global__ void serial_inclusive_scan(const int* keep, int n, int* positions) {
  int sum = 0;
  for (int i = 0; i < n; ++i) positions[i] = sum += keep[i];
}
}  // namespace

CompactResult run_compact(const std::vector<int>& values, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  if (values.empty()) throw std::invalid_argument("need at least one value");
  const int n = int(values.size());
  CompactResult r;
  DeviceArray<int> in(values.size()), keep(values.size(), synclab::lab::zeroed),
      positions(values.size(), synclab::lab::zeroed), out(values.size(), synclab::lab::zeroed);
  in.upload(values);
  if (trace) {
    synclab_region(in.ptr, in.bytes(), "in", "array", n);
    synclab_region(keep.ptr, keep.bytes(), "keep", "flags", n);
    synclab_region(positions.ptr, positions.bytes(), "positions (inclusive scan of keep)", "array", n);
    synclab_region(out.ptr, out.bytes(), "out", "array", n);
  }
  {
    TraceScope scope(trace);
    keep_flags<<<blocks, threads>>>(in.ptr, n, keep.ptr);
    finish_launch(r.reports);
    serial_inclusive_scan<<<1, 1>>>(keep.ptr, n, positions.ptr);
    finish_launch(r.reports);
    scatter_kept<<<blocks, threads>>>(in.ptr, keep.ptr, positions.ptr, n, out.ptr);
    finish_launch(r.reports);
  }
  r.count = positions.download()[size_t(n) - 1];
  std::vector<int> all = out.download();
  if (r.count < 0 || r.count > n) r.count = 0;
  r.out.assign(all.begin(), all.begin() + r.count);
  return r;
}

}  // namespace lab05
