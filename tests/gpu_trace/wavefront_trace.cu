// wavefront_trace: a tiny-lock wavefront recorded with trace.cuh, on a GPU or on the simulator.
//
// The kernel fills an N x N Needleman-Wunsch score matrix, one thread per cell. A cell waits
// for the flags of its north and west neighbours (volatile loads, then __threadfence), computes
// its score from the north, west and north-west scores, takes a completion number from a global
// counter, records two region updates (matrix[cell] = score, flags[cell] = completion number)
// and publishes its own flag (__threadfence, then the flag). Thread 0 of each block records
// where its block runs (BlockPlacement with %smid).
//
// Blocks take their place in the wavefront from a ticket counter (atomicAdd by thread 0 as the
// block starts) rather than from blockIdx: CUDA does not promise to start blocks in index
// order, and a block that waited for a block not yet started could wait for ever (the
// simulator's random scheduler starts them out of order and finds that hang). With tickets a
// block only waits for blocks that started before it. A Mark (tag kTicketMark, a = blockIdx
// linear, b = ticket) records the pairing.
//
// Layout: the cells of one anti-diagonal are independent, so each warp takes cells of a single
// anti-diagonal (a diagonal longer than 32 cells gets several warps; unused lanes exit). A warp
// therefore never waits for one of its own lanes, only for earlier warps: the kernel completes
// under both the lockstep (pre-Volta) and the independent-thread-scheduling warp models, and
// every block waits only for blocks with smaller tickets.
//
//   wavefront_trace [--n N] [--seed S] TRACE     record, check the results against a host
//                                                reference, write TRACE, re-open and check it
//   wavefront_trace --overflow TRACE             a buffer far too small: the drops are counted
//                                                exactly, nothing is written past the buffer
//                                                (guard), the trace is still readable
//   wavefront_trace --check TRACE [--hardware]   check an existing trace (e.g. one recorded on a
//                                                GPU; --hardware: it must come from a real GPU)
//
// Prints "PASS wavefront_trace" and exits 0, or prints what is wrong ("FAIL: ...") and exits 1.
#include "synclab/trace.cuh"
#include "synclab/trace_reader.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gt = synclab::gputrace;
namespace tr = synclab::trace;

namespace {

// Needleman-Wunsch scoring.
constexpr int kMatch = 2, kMismatch = -1, kGap = 1;
constexpr int kBlock = 128;  // threads per block (a multiple of 32)
constexpr uint16_t kTicketMark = 1;  // Mark: a = block linear index, b = the block's ticket

// ---- device ----------------------------------------------------------------------------------

__global__ void wavefront(gt::Handle h, const char* a, const char* b, const int* cell_of, int threads,
                          int n, volatile int* score, volatile int* flags, unsigned* order,
                          unsigned* tickets, uint16_t matrix_rid, uint16_t flags_rid) {
  gt::block_begin(h);
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) {
    ticket = atomicAdd(tickets, 1u);
    gt::mark(h, kTicketMark, blockIdx.x, ticket);
  }
  __syncthreads();
  const int t = int(ticket) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const int cell = cell_of[t];
  if (cell < 0) return;  // an unused lane of a diagonal's last warp
  const int i = cell / n, j = cell % n;

  // Tiny locks: wait for the north and west cells to be published.
  if (i > 0)
    while (flags[cell - n] == 0) {
    }
  if (j > 0)
    while (flags[cell - 1] == 0) {
    }
  __threadfence();

  // H(-1,-1) = 0, H(-1,c) = -(c+1)*gap, H(r,-1) = -(r+1)*gap.
  const int north = i > 0 ? score[cell - n] : -(j + 1) * kGap;
  const int west = j > 0 ? score[cell - 1] : -(i + 1) * kGap;
  const int nw = i == 0 ? -j * kGap : j == 0 ? -i * kGap : score[cell - n - 1];
  const int diag = nw + (a[i] == b[j] ? kMatch : kMismatch);
  const int best = max(diag, max(north - kGap, west - kGap));
  score[cell] = best;

  const unsigned done = atomicAdd(order, 1u) + 1u;  // 1, 2, ... in completion order
  gt::region_update(h, matrix_rid, uint64_t(cell), uint64_t(uint32_t(best)));
  gt::region_update(h, flags_rid, uint64_t(cell), done);
  __threadfence();
  flags[cell] = int(done);
}

// ---- host reference --------------------------------------------------------------------------

std::string sequence(int n, uint32_t seed) {
  static const char kBases[4] = {'A', 'C', 'G', 'T'};
  std::string s(static_cast<size_t>(n), 'A');
  uint32_t x = seed * 2654435761u + 12345u;
  for (int k = 0; k < n; ++k) {
    x = x * 1664525u + 1013904223u;
    s[size_t(k)] = kBases[(x >> 16) & 3];
  }
  return s;
}

std::vector<int> reference_scores(const std::string& a, const std::string& b) {
  const int n = int(a.size());
  std::vector<int> H(static_cast<size_t>(n) * n, 0);
  auto at = [&](int r, int c) -> int {
    if (r < 0 && c < 0) return 0;
    if (r < 0) return -(c + 1) * kGap;
    if (c < 0) return -(r + 1) * kGap;
    return H[size_t(r) * n + c];
  };
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      int d = at(r - 1, c - 1) + (a[size_t(r)] == b[size_t(c)] ? kMatch : kMismatch);
      H[size_t(r) * n + c] = std::max(d, std::max(at(r - 1, c) - kGap, at(r, c - 1) - kGap));
    }
  return H;
}

// Thread t computes cell cell_of[t] (-1: none). Anti-diagonal d = i + j goes to whole warps of
// its own, in order of d, so the cells a thread waits for belong to earlier warps.
std::vector<int> diagonal_layout(int n) {
  std::vector<int> out;
  for (int d = 0; d <= 2 * n - 2; ++d) {
    for (int i = std::max(0, d - n + 1); i <= std::min(d, n - 1); ++i) out.push_back(i * n + (d - i));
    while (out.size() % 32 != 0) out.push_back(-1);
  }
  return out;
}

// ---- failure reporting -------------------------------------------------------------------------

int g_failures = 0;

void failf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void failf(const char* fmt, ...) {
  if (++g_failures > 20) return;  // the first 20 say enough
  va_list ap;
  va_start(ap, fmt);
  std::fputs("FAIL: ", stdout);
  std::vprintf(fmt, ap);
  std::fputs("\n", stdout);
  va_end(ap);
}

#define CUDA_OK(call)                                                                           \
  do {                                                                                          \
    cudaError_t e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                    \
      std::printf("FAIL: %s at %s:%d: %s: %s\n", #call, __FILE__, __LINE__, cudaGetErrorName(e_), \
                  cudaGetErrorString(e_));                                                      \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// ---- checking a trace file ---------------------------------------------------------------------

struct TraceExpect {
  bool hardware = false;      // must come from a real GPU (header "simulated": false)
  int64_t capacity = -1;      // overflow mode: exactly this many records kept
  int64_t dropped = 0;        // records the device must have dropped (-1: do not check)
};

uint64_t json_u64(const nlohmann::json& j, const char* key, uint64_t fallback = ~0ull) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return fallback;
  return it->get<uint64_t>();
}

// Checks everything the wavefront trace must show; returns the number of problems found.
int check_trace(const std::string& path, const TraceExpect& expect) {
  const int before = g_failures;
  std::string err;
  std::unique_ptr<tr::Trace> t = tr::load(path, &err);
  if (!t) {
    failf("cannot read the trace: %s", err.c_str());
    return g_failures - before;
  }
  if (!t->warning.empty()) failf("reader warnings: %s", t->warning.c_str());
  if (!t->gpu) failf("%s: preamble flag says simulator, expected a trace.cuh (gpu) trace", path.c_str());
  const nlohmann::json& H = t->header;
  if (H.value("backend", std::string()) != "gpu") failf("header backend is not \"gpu\"");
  if (H.value("recorder", std::string()) != "trace.cuh") failf("header recorder is not \"trace.cuh\"");
  if (!H.contains("device") || !H["device"].is_object() || !H["device"].contains("name"))
    failf("header has no device name");
  if (expect.hardware && H.value("simulated", true)) failf("expected a real GPU trace, header says simulated");
  if (!t->complete) failf("trace is not complete (no footer)");
  if (!H.contains("wavefront") || !H["wavefront"].is_object()) {
    failf("header has no \"wavefront\" parameters");
    return g_failures - before;
  }
  const nlohmann::json& W = H["wavefront"];
  const int n = int(json_u64(W, "n", 0));
  const uint32_t seed = uint32_t(json_u64(W, "seed", 0));
  if (n < 1 || n > 1024) {
    failf("header wavefront.n = %d is out of range", n);
    return g_failures - before;
  }
  if (json_u64(W, "block", 0) != uint64_t(kBlock)) failf("header wavefront.block is not %d", kBlock);
  const int cells = n * n;
  const std::vector<int> ref = reference_scores(sequence(n, seed), sequence(n, seed + 1));
  const std::vector<int> cell_of = diagonal_layout(n);
  const int threads = int(cell_of.size());
  const int blocks = (threads + kBlock - 1) / kBlock;
  std::vector<int> thread_of(static_cast<size_t>(cells), -1);
  for (int k = 0; k < threads; ++k)
    if (cell_of[size_t(k)] >= 0) thread_of[size_t(cell_of[size_t(k)])] = k;

  // Regions: "matrix" (n x n) and "flags" (n*n).
  int matrix_id = -1, flags_id = -1;
  for (const nlohmann::json& r : t->regions) {
    std::string name = r.value("name", std::string());
    std::vector<unsigned> dims;
    if (r.contains("dims") && r["dims"].is_array())
      for (const auto& d : r["dims"]) dims.push_back(d.get<unsigned>());
    if (name == "matrix") {
      matrix_id = int(json_u64(r, "id", ~0ull));
      if (r.value("kind", std::string()) != "matrix" || dims != std::vector<unsigned>{unsigned(n), unsigned(n)})
        failf("region matrix is not a %dx%d matrix", n, n);
    } else if (name == "flags") {
      flags_id = int(json_u64(r, "id", ~0ull));
      if (r.value("kind", std::string()) != "flags" || dims != std::vector<unsigned>{unsigned(cells)})
        failf("region flags is not %d flags", cells);
    }
  }
  if (matrix_id < 0 || flags_id < 0 || matrix_id == flags_id) {
    failf("regions matrix and flags are missing (matrix id %d, flags id %d)", matrix_id, flags_id);
    return g_failures - before;
  }

  // One launch, of the wavefront kernel.
  if (t->launches.size() != 1) {
    failf("%zu launches, expected 1", t->launches.size());
    return g_failures - before;
  }
  const tr::Launch& L = t->launches[0];
  if (L.name != "wavefront") failf("launch name \"%s\", expected wavefront", L.name.c_str());
  if (L.grid[0] != unsigned(blocks) || L.block[0] != unsigned(kBlock))
    failf("launch shape %u x %u, expected %d x %d", L.grid[0], L.block[0], blocks, kBlock);
  const uint64_t wpb = kBlock / 32;
  if (L.warps_per_block != wpb) failf("warps_per_block %llu, expected %llu", (unsigned long long)L.warps_per_block,
                                      (unsigned long long)wpb);

  // Event counts.
  const uint64_t attempts = uint64_t(2) * cells + uint64_t(2) * blocks;  // two per cell, placement + ticket per block
  const uint64_t n_events = t->event_count();
  const bool overflow = expect.capacity >= 0;
  const uint64_t want_records = overflow ? uint64_t(expect.capacity) : attempts;
  if (n_events != want_records + 2)
    failf("%llu events in the file, expected %llu records + KernelBegin + KernelEnd", (unsigned long long)n_events,
          (unsigned long long)want_records);
  if (t->complete) {
    const uint64_t f_dropped = json_u64(t->footer, "dropped");
    const uint64_t f_device_dropped = json_u64(t->footer, "device_dropped");
    const uint64_t want_dropped = overflow ? attempts - uint64_t(expect.capacity) : 0;
    if (f_device_dropped != want_dropped || f_dropped != want_dropped)
      failf("footer says %llu dropped (device %llu), expected %llu", (unsigned long long)f_dropped,
            (unsigned long long)f_device_dropped, (unsigned long long)want_dropped);
    if (json_u64(t->footer, "events") != n_events)
      failf("footer events %llu, file holds %llu", (unsigned long long)json_u64(t->footer, "events"),
            (unsigned long long)n_events);
  }
  if (n_events < 2) return g_failures - before;

  // KernelBegin first, KernelEnd (status ok) last, times never decreasing in between.
  const tr::Event& kb = t->event(0);
  const tr::Event& ke = t->event(n_events - 1);
  if (kb.kind != uint8_t(tr::EventKind::KernelBegin) || kb.a != 0 || kb.b != blocks * wpb)
    failf("first event is not KernelBegin(launch 0, %llu warps)", (unsigned long long)(blocks * wpb));
  if (ke.kind != uint8_t(tr::EventKind::KernelEnd) || ke.b != 0) failf("last event is not KernelEnd with status ok");
  for (uint64_t k = 1; k < n_events; ++k)
    if (t->event(k).time < t->event(k - 1).time) {
      failf("event %llu is earlier than event %llu", (unsigned long long)k, (unsigned long long)(k - 1));
      break;
    }

  // Per cell: the matrix update (value = reference score) and the flags update (completion
  // number); per block: one placement.
  std::vector<int> m_count(static_cast<size_t>(cells), 0), f_count(static_cast<size_t>(cells), 0);
  std::vector<uint64_t> f_value(static_cast<size_t>(cells), 0), f_time(static_cast<size_t>(cells), 0);
  std::vector<int> placed(static_cast<size_t>(blocks), 0), ticketed(static_cast<size_t>(blocks), 0);
  std::vector<int64_t> block_of_ticket(static_cast<size_t>(blocks), -1);
  std::set<uint64_t> sms;
  const uint64_t sm_count = H["device"].is_object() ? json_u64(H["device"], "sm_count", 0) : 0;
  // First the tickets (which block computed which part of the wavefront).
  for (uint64_t k = 1; k + 1 < n_events; ++k) {
    const tr::Event& e = t->event(k);
    if (e.kind != uint8_t(tr::EventKind::Mark)) continue;
    if (e.aux != kTicketMark || e.a >= uint64_t(blocks) || e.b >= uint64_t(blocks)) {
      failf("unexpected mark (tag %u, a %llu, b %llu)", e.aux, (unsigned long long)e.a, (unsigned long long)e.b);
      continue;
    }
    ++ticketed[size_t(e.a)];
    if (block_of_ticket[size_t(e.b)] >= 0) failf("ticket %llu was given out twice", (unsigned long long)e.b);
    block_of_ticket[size_t(e.b)] = int64_t(e.a);
    if (e.warp != uint32_t(e.a * wpb) || e.lane != 0)
      failf("ticket mark of block %llu: warp %u lane %u, expected warp %llu lane 0", (unsigned long long)e.a, e.warp,
            e.lane, (unsigned long long)(e.a * wpb));
  }
  for (uint64_t k = 1; k + 1 < n_events; ++k) {
    const tr::Event& e = t->event(k);
    if (e.time < kb.time || e.time > ke.time) failf("event %llu lies outside its kernel's begin/end times", (unsigned long long)k);
    if (e.kind == uint8_t(tr::EventKind::Mark)) continue;  // seen above
    if (e.kind == uint8_t(tr::EventKind::RegionUpdate)) {
      if (e.a >= uint64_t(cells)) {
        failf("region update of element %llu (only %d cells)", (unsigned long long)e.a, cells);
        continue;
      }
      const int cell = int(e.a);
      // The cell's thread in the layout, in the block that held its ticket.
      const int thread = thread_of[size_t(cell)];
      const int64_t hw_block = block_of_ticket[size_t(thread / kBlock)];
      const int64_t warp = hw_block * int64_t(wpb) + (thread % kBlock) / 32;
      if (hw_block >= 0 && (int64_t(e.warp) != warp || e.lane != uint32_t(thread % 32)))
        failf("cell %d: recorded by warp %u lane %u, its thread %d (ticket %d, block %lld) is warp %lld lane %d", cell,
              e.warp, e.lane, thread, thread / kBlock, (long long)hw_block, (long long)warp, thread % 32);
      if (e.aux == matrix_id) {
        ++m_count[size_t(cell)];
        if (int32_t(uint32_t(e.b)) != ref[size_t(cell)])
          failf("cell %d (%d,%d): score %d in the trace, reference %d", cell, cell / n, cell % n, int32_t(uint32_t(e.b)),
                ref[size_t(cell)]);
      } else if (e.aux == flags_id) {
        ++f_count[size_t(cell)];
        f_value[size_t(cell)] = e.b;
        f_time[size_t(cell)] = e.time;
      } else {
        failf("region update of unknown region %u", e.aux);
      }
    } else if (e.kind == uint8_t(tr::EventKind::BlockPlacement)) {
      if (e.a >= uint64_t(blocks)) {
        failf("placement of block %llu (only %d blocks)", (unsigned long long)e.a, blocks);
        continue;
      }
      ++placed[size_t(e.a)];
      sms.insert(e.b);
      if (e.warp != uint32_t(e.a * wpb) || e.lane != tr::kAllLanes)
        failf("placement of block %llu: warp %u lane %u, expected warp %llu, all lanes", (unsigned long long)e.a, e.warp,
              e.lane, (unsigned long long)(e.a * wpb));
      if (sm_count && e.b >= sm_count)
        failf("block %llu ran on SM %llu, the device has %llu", (unsigned long long)e.a, (unsigned long long)e.b,
              (unsigned long long)sm_count);
    } else {
      failf("unexpected event kind %u at %llu", e.kind, (unsigned long long)k);
    }
  }

  if (overflow) {
    // What was kept must be consistent, but it is only part of the run.
    for (int c = 0; c < cells; ++c)
      if (m_count[size_t(c)] > 1 || f_count[size_t(c)] > 1) failf("cell %d recorded more than once", c);
    for (int b = 0; b < blocks; ++b)
      if (placed[size_t(b)] > 1 || ticketed[size_t(b)] > 1) failf("block %d placed or ticketed more than once", b);
    return g_failures - before;
  }

  for (int b = 0; b < blocks; ++b)
    if (placed[size_t(b)] != 1 || ticketed[size_t(b)] != 1)
      failf("block %d has %d BlockPlacement and %d ticket records, expected 1 each", b, placed[size_t(b)],
            ticketed[size_t(b)]);
  std::vector<int> seen(static_cast<size_t>(cells) + 1, 0);
  for (int c = 0; c < cells; ++c) {
    if (m_count[size_t(c)] != 1 || f_count[size_t(c)] != 1) {
      failf("cell %d has %d matrix and %d flags updates, expected 1 each", c, m_count[size_t(c)], f_count[size_t(c)]);
      continue;
    }
    const uint64_t v = f_value[size_t(c)];
    if (v < 1 || v > uint64_t(cells) || seen[size_t(v)]++) failf("cell %d: completion number %llu is not unique in 1..%d", c, (unsigned long long)v, cells);
  }
  // Dependencies: a cell completes after its north and west neighbours, in completion number
  // (strictly) and in %globaltimer (never earlier).
  int order_ok = 0;
  for (int c = 0; c < cells; ++c) {
    const int i = c / n, j = c % n;
    for (int d : {i > 0 ? c - n : -1, j > 0 ? c - 1 : -1}) {
      if (d < 0 || f_count[size_t(c)] != 1 || f_count[size_t(d)] != 1) continue;
      if (f_value[size_t(c)] <= f_value[size_t(d)])
        failf("cell (%d,%d) completed as number %llu, not after its neighbour (%d,%d) (number %llu)", i, j,
              (unsigned long long)f_value[size_t(c)], d / n, d % n, (unsigned long long)f_value[size_t(d)]);
      else if (f_time[size_t(c)] < f_time[size_t(d)])
        failf("cell (%d,%d) completed at %llu ns, before its neighbour (%d,%d) at %llu ns", i, j,
              (unsigned long long)f_time[size_t(c)], d / n, d % n, (unsigned long long)f_time[size_t(d)]);
      else
        ++order_ok;
    }
  }
  const int deps = 2 * n * (n - 1);
  if (order_ok != deps) failf("%d of %d dependencies in order", order_ok, deps);
  if (g_failures == before)
    std::printf("trace %s: %d cells, %d dependencies in order, %d blocks on %zu SMs, %.3f us, device %s%s\n",
                path.c_str(), cells, order_ok, blocks, sms.size(), double(ke.time - kb.time) / 1000.0,
                H["device"].value("name", std::string("?")).c_str(),
                H.value("simulated", false) && H["device"].value("name", std::string()).find("simulated") == std::string::npos ? " (simulated)" : "");
  return g_failures - before;
}

// ---- recording ---------------------------------------------------------------------------------

// Runs the wavefront once with a recorder of `capacity` events (and `guard` guard events after
// the buffer), checks the results against the host reference and writes the trace.
int record(const std::string& path, int n, uint32_t seed, size_t capacity, size_t guard, bool overflow) {
  const int before = g_failures;
  const int cells = n * n;
  const std::string a = sequence(n, seed), b = sequence(n, seed + 1);
  const std::vector<int> cell_of = diagonal_layout(n);
  const int threads = int(cell_of.size());
  const int blocks = (threads + kBlock - 1) / kBlock;

  char *d_a = nullptr, *d_b = nullptr;
  int *d_cell_of = nullptr, *d_score = nullptr, *d_flags = nullptr;
  unsigned *d_order = nullptr, *d_tickets = nullptr;
  CUDA_OK(cudaMalloc(&d_a, size_t(n)));
  CUDA_OK(cudaMalloc(&d_b, size_t(n)));
  CUDA_OK(cudaMalloc(&d_cell_of, sizeof(int) * threads));
  CUDA_OK(cudaMalloc(&d_score, sizeof(int) * cells));
  CUDA_OK(cudaMalloc(&d_flags, sizeof(int) * cells));
  CUDA_OK(cudaMalloc(&d_order, sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_tickets, sizeof(unsigned)));
  CUDA_OK(cudaMemcpy(d_a, a.data(), size_t(n), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_b, b.data(), size_t(n), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_cell_of, cell_of.data(), sizeof(int) * threads, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_score, 0xff, sizeof(int) * cells));  // poison: every cell must be written
  CUDA_OK(cudaMemset(d_flags, 0, sizeof(int) * cells));
  CUDA_OK(cudaMemset(d_order, 0, sizeof(unsigned)));
  CUDA_OK(cudaMemset(d_tickets, 0, sizeof(unsigned)));

  if (synclab_region(d_score, sizeof(int) * cells, "matrix", "matrix", n, n) != 0 ||
      synclab_region(d_flags, sizeof(int) * cells, "flags", "flags", cells) != 0) {
    failf("synclab_region refused a region");
    return g_failures - before;
  }
  const int matrix_rid = gt::region_id(d_score), flags_rid = gt::region_id(d_flags);
  if (matrix_rid < 0 || flags_rid < 0) {
    failf("region_id did not find the regions just registered");
    return g_failures - before;
  }

  gt::Recorder rec(capacity, guard);
  if (!rec.ok()) {
    failf("Recorder: %s", rec.error().c_str());
    return g_failures - before;
  }
  rec.header_extra()["wavefront"] = {{"n", n}, {"seed", seed}, {"block", kBlock}, {"threads", threads},
                                     {"match", kMatch}, {"mismatch", kMismatch}, {"gap", kGap}};
  const dim3 grid(static_cast<unsigned>(blocks)), block(static_cast<unsigned>(kBlock));
  if (!rec.begin_launch("wavefront", grid, block)) {
    failf("begin_launch: %s", rec.error().c_str());
    return g_failures - before;
  }
  wavefront<<<grid, block>>>(rec.handle(), d_a, d_b, d_cell_of, threads, n, d_score, d_flags, d_order, d_tickets, uint16_t(matrix_rid),
                             uint16_t(flags_rid));
  if (!rec.end_launch()) {
    failf("end_launch: %s", rec.error().c_str());
    return g_failures - before;
  }

  // The results, against the host reference.
  struct {
    std::vector<int> score, flags;
  } r;
  r.score.resize(size_t(cells));
  r.flags.resize(size_t(cells));
  CUDA_OK(cudaMemcpy(r.score.data(), d_score, sizeof(int) * cells, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(r.flags.data(), d_flags, sizeof(int) * cells, cudaMemcpyDeviceToHost));
  const std::vector<int> ref = reference_scores(a, b);
  for (int c = 0; c < cells; ++c)
    if (r.score[size_t(c)] != ref[size_t(c)])
      failf("cell (%d,%d): score %d, reference %d", c / n, c % n, r.score[size_t(c)], ref[size_t(c)]);
  std::vector<int> seen(static_cast<size_t>(cells) + 1, 0);
  for (int c = 0; c < cells; ++c) {
    const int v = r.flags[size_t(c)];
    if (v < 1 || v > cells || seen[size_t(v)]++) failf("cell %d: flag %d is not a unique completion number", c, v);
    const int i = c / n, j = c % n;
    if (i > 0 && v <= r.flags[size_t(c - n)]) failf("cell (%d,%d) finished before its north neighbour", i, j);
    if (j > 0 && v <= r.flags[size_t(c - 1)]) failf("cell (%d,%d) finished before its west neighbour", i, j);
  }

  // The recorder's own counts, and the guard after the buffer.
  const uint64_t attempts = uint64_t(2) * cells + uint64_t(2) * blocks;
  const uint64_t want_dropped = attempts > capacity ? attempts - capacity : 0;
  if (rec.dropped() != want_dropped || rec.recorded() != attempts - want_dropped)
    failf("recorder: %llu recorded, %llu dropped; expected %llu and %llu", (unsigned long long)rec.recorded(),
          (unsigned long long)rec.dropped(), (unsigned long long)(attempts - want_dropped),
          (unsigned long long)want_dropped);
  if (overflow && want_dropped == 0) failf("overflow mode: the buffer was large enough, nothing was dropped");
  if (guard > 0) {
    // Read the bytes after the buffer ourselves rather than trusting guard_intact() alone.
    std::vector<unsigned char> g(rec.guard_bytes(), 0);
    CUDA_OK(cudaMemcpy(g.data(), static_cast<const char*>(rec.device_buffer()) + capacity * sizeof(tr::Event), g.size(),
                       cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < g.size(); ++k)
      if (g[k] != gt::kGuardByte) {
        failf("guard byte %zu after the trace buffer is 0x%02x: something wrote past the buffer", k, g[k]);
        break;
      }
    std::string why;
    if (!rec.guard_intact(&why)) failf("guard_intact: %s", why.c_str());
  }

  std::string err;
  if (!rec.write(path, "wavefront_trace", &err)) failf("write: %s", err.c_str());
  for (void* p : {(void*)d_a, (void*)d_b, (void*)d_cell_of, (void*)d_score, (void*)d_flags, (void*)d_order, (void*)d_tickets})
    CUDA_OK(cudaFree(p));
  if (g_failures != before) return g_failures - before;

  TraceExpect expect;
  if (overflow) {
    expect.capacity = int64_t(capacity);
    expect.dropped = int64_t(want_dropped);
  }
  check_trace(path, expect);
  if (g_failures == before)
    std::printf("%s: %d x %d wavefront, %llu events recorded, %llu dropped, guard intact\n",
                overflow ? "overflow" : "record", n, n, (unsigned long long)rec.recorded(),
                (unsigned long long)rec.dropped());
  return g_failures - before;
}

int usage() {
  std::fprintf(stderr,
               "usage: wavefront_trace [--n N] [--seed S] TRACE\n"
               "       wavefront_trace --overflow [--n N] TRACE\n"
               "       wavefront_trace --check TRACE [--hardware]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int n = 64;
  uint32_t seed = 2024;
  bool overflow = false, check = false, hardware = false;
  std::string path;
  for (int k = 1; k < argc; ++k) {
    std::string arg = argv[k];
    if (arg == "--n" && k + 1 < argc) {
      n = std::atoi(argv[++k]);
    } else if (arg == "--seed" && k + 1 < argc) {
      seed = uint32_t(std::strtoul(argv[++k], nullptr, 10));
    } else if (arg == "--overflow") {
      overflow = true;
    } else if (arg == "--check") {
      check = true;
    } else if (arg == "--hardware") {
      hardware = true;
    } else if (!arg.empty() && arg[0] != '-' && path.empty()) {
      path = arg;
    } else {
      return usage();
    }
  }
  if (path.empty() || n < 2 || n > 256) return usage();

  if (check) {
    TraceExpect expect;
    expect.hardware = hardware;
    check_trace(path, expect);
  } else if (overflow) {
    // 16x16: 512 region updates and a placement and a ticket per block, into room for 100.
    record(path, 16, seed, 100, 16, true);
  } else {
    // Room for every record: two per cell and two per block, plus a little.
    const size_t blocks = (diagonal_layout(n).size() + kBlock - 1) / kBlock;
    record(path, n, seed, size_t(2) * n * n + 2 * blocks + 16, 16, false);
  }
  if (g_failures) {
    std::printf("FAIL wavefront_trace (%d problems)\n", g_failures);
    return 1;
  }
  std::printf("PASS wavefront_trace\n");
  return 0;
}
