// synclab-litmus-gpu: litmus tests (docs/litmus-format.md) as one self-contained CUDA program that
// runs them on a real GPU under memory stress and checks every outcome against the PTX model.
//
//   synclab-litmus-gpu emit FILE... [--test NAME] --out X.cu
//
// Each test becomes a kernel in which every litmus thread is device code issuing each instruction
// as inline PTX, exactly as written (ld.relaxed.gpu, st.release.sys, atom.acq_rel.gpu.cas, ...;
// the plain `ld`/`st` as ld.global/st.global without qualifiers). The set of outcomes the PTX model
// allows (the oracle's enumeration, sim/memory/oracle/enumerate.h, what `synclab-litmus outcomes`
// prints) is embedded in the program: the GPU program counts every outcome of every instance, marks
// the weak ones, and prints FORBIDDEN, exiting non-zero, when an outcome the model forbids shows.
//
// Translation notes:
// - Locations are 32-bit words in global memory, all 0 before each launch. Values are 32-bit (a test
//   with a value outside int32 is skipped).
// - `dep rK` on a load, store, atom or red is an address dependency: the address gets
//   `+ (rK & zero)`, where `zero` is a kernel argument that is 0 at run time (a constant 0 would be
//   folded away by the compiler, and the dependency with it). `dep` on a fence is a control
//   dependency: the fence sits under `if ((rK & zero) == 0)`. A register as a stored value is the
//   data dependency itself.
// - fence.sc/acq_rel/acquire/release at cta/gpu/sys are emitted as written: ptxas 13.0 accepts all
//   four for sm_90. membar.S is read as fence.sc.S (the PTX ISA's equivalence) and emitted so.
// - `red` takes .relaxed and .release only (ptxas: "Illegal modifier '.acquire' for instruction
//   'red'"); a red.acquire/red.acq_rel of a test is emitted as atom with the same semantics and
//   scope, its result unused: at least as strong (its read may form an acquire pattern, which a
//   red's read never does), so it allows no outcome the written test forbids.
// - Placement: `cta C` threads share a block, `warp W` threads of a block share a warp (lanes of it,
//   in thread order). Tests with a host thread or bar.sync are skipped, with the reason printed.
//
// The program's stress and placement follow Alglave et al., "GPU concurrency: weak behaviours and
// programming assumptions", ASPLOS 2015 (memory stress, thread randomisation, thread
// synchronisation, parallel testing) and Levine et al., "MC Mutants", ASPLOS 2023 (GPUHarbor:
// many instances per launch, randomized thread and memory placement, stress patterns, pre-stress,
// a spin barrier per instance, memory stride): bench/results/litmus_gpu.md says how.
//
// Where things are (the sections below, in this order):
//   Limits and usage    what a test may have (kMaxCta, kMaxThreads, kMaxOutcomes, ...); usage
//   Text                cstr (a C string literal), comment (text for a C++ comment)
//   Instructions        emit_op: one litmus instruction as inline PTX (sem_name, value_expr, addr_expr,
//                       ldst_quals)
//   Placement           Placed, place: each litmus thread's block, warp and lane role, or why the test
//                       cannot run on a GPU
//   One test            Emitted, emit_test: the thread functions, the kernel, the tables of allowed outcomes
//                       and the test's TestMeta entry
//   Program prelude     kPrelude, the part of the generated program that is the same for every test: Launch;
//                       which litmus thread of which instance a GPU thread plays (place, mem_slot); stress
//                       (stress_run, pre_stress); start_barrier; the outcome classifier (classify); TestMeta
//   Program main        kMain, the generated program's host code: Options, help, parse, selected; run_test
//                       (launches in batches until the test's time is up, then its report); main
//   Command             cmd_emit: reads the files and writes the program; main

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/memory/oracle/enumerate.h"
#include "sim/memory/oracle/litmus.h"

using namespace synclab::memory;

namespace {

constexpr int kMaxCta = 8, kMaxWarp = 8, kMaxLane = 8, kMaxThreads = 16, kMaxOutcome = 64, kMaxOutcomes = 8192;

int usage() {
  std::fprintf(stderr,
               "usage: synclab-litmus-gpu emit FILE... [--test NAME] --out X.cu\n"
               "  writes one CUDA program that runs every test of the files (or only NAME) on a GPU under memory\n"
               "  stress, counts each outcome and checks it against the outcomes the PTX model allows (the oracle's\n"
               "  enumeration, embedded in the program). Build it with\n"
               "    nvcc -O3 -gencode arch=compute_90,code=sm_90 -o litmus_gpu X.cu\n"
               "  and run `./litmus_gpu --help` for its options.\n");
  return 2;
}

// A C string literal for any text.
std::string cstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else if (static_cast<unsigned char>(c) < 32) {
      o += fmt::format("\\{:03o}", static_cast<unsigned char>(c));
    } else {
      o += c;
    }
  }
  return o + "\"";
}

// Text for a C++ comment (no line breaks, no comment terminators).
std::string comment(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  for (size_t p; (p = s.find("*/")) != std::string::npos;) s.replace(p, 2, "* /");
  return s;
}

const char* sem_name(const LitmusOp& op) {
  return op.acquire && op.release ? "acq_rel" : op.acquire ? "acquire" : op.release ? "release" : "relaxed";
}

// A 32-bit operand for a value: the register, or the constant.
std::string value_expr(const LitmusValue& v) {
  if (v.is_reg) return fmt::format("r{}", v.value);
  return fmt::format("{}u", static_cast<uint32_t>(static_cast<int32_t>(v.value)));
}

// The global address of location `loc`, with the instruction's `dep` registers made real.
std::string addr_expr(const LitmusOp& op) {
  std::string a = fmt::format("a{}", op.loc);
  if (op.deps.empty()) return fmt::format("lg::gaddr({})", a);
  std::string d;
  for (size_t i = 0; i < op.deps.size(); ++i) d += fmt::format("{}r{}", i ? " | " : "", op.deps[i]);
  return fmt::format("lg::gaddr({} + (({}) & L.zero))", a, d);
}

// The qualifiers of a load or store: "" (weak), ".volatile", ".relaxed.gpu", ".acquire.cta", ...
std::string ldst_quals(const LitmusOp& op) {
  if (op.is_volatile) return ".volatile";
  if (op.scope == Scope::Thread) return "";
  return fmt::format(".{}.{}", op.acquire ? "acquire" : op.release ? "release" : "relaxed", scope_name(op.scope));
}

// One instruction as CUDA C++ with inline PTX.
std::string emit_op(const LitmusOp& op) {
  std::string s = fmt::format("  // {}\n", comment(op.text));
  switch (op.kind) {
    case LitmusOp::Kind::Ld:
      s += fmt::format("  asm volatile(\"ld{}.global.u32 %0, [%1];\" : \"=r\"(r{}) : \"l\"({}) : \"memory\");\n",
                       ldst_quals(op), op.reg, addr_expr(op));
      break;
    case LitmusOp::Kind::St:
      s += fmt::format("  asm volatile(\"st{}.global.u32 [%0], %1;\" :: \"l\"({}), \"r\"({}) : \"memory\");\n",
                       ldst_quals(op), addr_expr(op), value_expr(op.value));
      break;
    case LitmusOp::Kind::Atom:
    case LitmusOp::Kind::Red: {
      const bool red_as_atom = op.kind == LitmusOp::Kind::Red && op.acquire;
      const std::string out = op.kind == LitmusOp::Kind::Atom ? fmt::format("r{}", op.reg) : "unused";
      if (red_as_atom)
        s += "  // (red takes no .acquire/.acq_rel: atom with the same semantics and scope, at least as strong)\n";
      if (op.kind == LitmusOp::Kind::Red && !red_as_atom) {
        s += fmt::format(
            "  asm volatile(\"red.{}.{}.global.add.u32 [%0], %1;\" :: \"l\"({}), \"r\"({}) : \"memory\");\n",
            sem_name(op), scope_name(op.scope), addr_expr(op), value_expr(op.value));
        break;
      }
      if (red_as_atom) s += "  { unsigned unused;\n";
      if (op.rmw == LitmusOp::Rmw::Cas)
        s += fmt::format(
            "  asm volatile(\"atom.{}.{}.global.cas.b32 %0, [%1], %2, %3;\" : \"=r\"({}) : \"l\"({}), \"r\"({}), "
            "\"r\"({}) : \"memory\");\n",
            sem_name(op), scope_name(op.scope), out, addr_expr(op), value_expr(op.value), value_expr(op.value2));
      else
        s += fmt::format(
            "  asm volatile(\"atom.{}.{}.global.{} %0, [%1], %2;\" : \"=r\"({}) : \"l\"({}), \"r\"({}) : "
            "\"memory\");\n",
            sem_name(op), scope_name(op.scope), op.rmw == LitmusOp::Rmw::Add ? "add.u32" : "exch.b32", out,
            addr_expr(op), value_expr(op.value));
      if (red_as_atom) s += "  (void)unused; }\n";
      break;
    }
    case LitmusOp::Kind::Fence: {
      const std::string f =
          fmt::format("asm volatile(\"fence.{}.{};\" ::: \"memory\");", fence_name(op.fence), scope_name(op.scope));
      if (op.deps.empty()) {
        s += "  " + f + "\n";
      } else {
        std::string d;
        for (size_t i = 0; i < op.deps.size(); ++i) d += fmt::format("{}r{}", i ? " | " : "", op.deps[i]);
        s += fmt::format("  if ((({}) & L.zero) == 0u) {}  // control dependency\n", d, f);
      }
      break;
    }
    case LitmusOp::Kind::Bar: s += "  __syncthreads();\n"; break;  // (tests with bar.sync are skipped)
  }
  return s;
}

struct Placed {
  int C = 0, maxnw = 0, G = 0;
  std::vector<int> nw;                    // warps used per block role
  std::vector<int> cta, warp, lane;       // per thread: block role, warp role, lane role
  int role[kMaxCta][kMaxWarp][kMaxLane];  // -> thread, or -1
};

// Why the test cannot run on the GPU ("" when it can); fills the placement.
std::string place(const LitmusTest& t, Placed* p) {
  if (t.threads.size() > size_t(kMaxThreads)) return fmt::format("more than {} threads", kMaxThreads);
  for (size_t i = 0; i < t.threads.size(); ++i) {
    if (t.threads[i].place.host) return fmt::format("thread {} is a host (CPU) thread", i);
    for (const LitmusOp& op : t.threads[i].ops)
      if (op.kind == LitmusOp::Kind::Bar) return fmt::format("bar.sync in thread {}", i);
  }
  std::vector<uint32_t> ctas;
  std::vector<std::vector<uint32_t>> warps;
  std::map<std::pair<int, int>, int> lanes;
  for (const LitmusThread& th : t.threads) {
    auto it = std::find(ctas.begin(), ctas.end(), th.place.cta);
    int c = int(it - ctas.begin());
    if (it == ctas.end()) {
      ctas.push_back(th.place.cta);
      warps.emplace_back();
    }
    auto& ws = warps[size_t(c)];
    auto wt = std::find(ws.begin(), ws.end(), th.place.warp);
    int w = int(wt - ws.begin());
    if (wt == ws.end()) ws.push_back(th.place.warp);
    int l = lanes[{c, w}]++;
    p->cta.push_back(c);
    p->warp.push_back(w);
    p->lane.push_back(l);
  }
  p->C = int(ctas.size());
  if (p->C > kMaxCta) return fmt::format("more than {} blocks", kMaxCta);
  for (auto& ws : warps) {
    if (ws.size() > size_t(kMaxWarp)) return fmt::format("more than {} warps in one block", kMaxWarp);
    p->nw.push_back(int(ws.size()));
    p->maxnw = std::max(p->maxnw, int(ws.size()));
  }
  for (auto& [cw, n] : lanes) {
    if (n > kMaxLane) return fmt::format("more than {} lanes of one warp", kMaxLane);
    p->G = std::max(p->G, n);
  }
  for (auto& a : p->role)
    for (auto& b : a)
      for (int& r : b) r = -1;
  for (size_t i = 0; i < t.threads.size(); ++i) p->role[p->cta[i]][p->warp[i]][p->lane[i]] = int(i);
  return "";
}

struct Emitted {
  std::string code;   // device code and tables
  std::string entry;  // the TestMeta initializer
  std::string skip;   // why the test does not run on the GPU ("" when it does)
};

Emitted emit_test(const LitmusTest& t, int idx, const std::string& skip_in) {
  Emitted e;
  std::string skip = skip_in;
  Placed pl;
  if (skip.empty()) skip = place(t, &pl);
  Enumeration en;
  if (skip.empty()) {
    try {
      en = enumerate_outcomes(t);
    } catch (const LitmusError& err) {
      skip = fmt::format("the oracle could not enumerate it: {}", err.what());
    }
  }
  const size_t osize = outcome_size(t);
  if (skip.empty() && osize > size_t(kMaxOutcome))
    skip = fmt::format("an outcome of {} values (at most {})", osize, kMaxOutcome);
  if (skip.empty() && en.ptx.size() > size_t(kMaxOutcomes))
    skip = fmt::format("{} allowed outcomes (at most {})", en.ptx.size(), kMaxOutcomes);
  if (skip.empty())
    for (const Outcome& o : en.ptx)
      for (int64_t v : o)
        if (v < INT32_MIN || v > INT32_MAX) skip = "a value outside 32 bits";
  for (const LitmusThread& th : t.threads)
    for (const LitmusOp& op : th.ops)
      for (const LitmusValue* v : {&op.value, &op.value2})
        if (!v->is_reg && (v->value < INT32_MIN || v->value > UINT32_MAX)) skip = "a value outside 32 bits";

  const std::string where = fmt::format("{}:{}", t.file, t.line);
  bool oracle_exists = false;
  for (const Outcome& o : en.ptx) oracle_exists |= satisfies(t, o);
  const std::string expect = t.expect_allowed ? (*t.expect_allowed ? "allowed" : "forbidden") : "";

  std::string& c = e.code;
  c += fmt::format("\n// ---- test {}: {} ({})\n", idx, comment(t.name), comment(where));
  const std::string text = t.to_text();
  for (size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    if (b == std::string::npos) b = text.size();
    c += "// " + comment(text.substr(a, b - a)) + "\n";
  }

  if (!skip.empty()) {
    e.skip = skip;
    c += fmt::format("// skipped: {}\n", comment(skip));
    e.entry = fmt::format("  {{{}, {}, {}, {}, {}, {}, nullptr}},\n", cstr(t.name), cstr(where), cstr(skip),
                          cstr(t.cond_text()), cstr(expect), oracle_exists ? 1 : 0);
    return e;
  }

  // Thread bodies.
  std::vector<int> regbase(t.threads.size(), 0);
  for (size_t i = 1; i < t.threads.size(); ++i) regbase[i] = regbase[i - 1] + t.threads[i - 1].regs;
  const int nregs = int(osize - t.locs.size());
  for (size_t i = 0; i < t.threads.size(); ++i) {
    const LitmusThread& th = t.threads[i];
    c += fmt::format("__device__ __forceinline__ void t{}_{}(const lg::Launch& L, unsigned* p, unsigned* out) {{\n",
                     idx, i);
    std::set<uint32_t> used;
    for (const LitmusOp& op : th.ops)
      if (op.kind != LitmusOp::Kind::Fence && op.kind != LitmusOp::Kind::Bar) used.insert(op.loc);
    for (uint32_t l : used) c += fmt::format("  unsigned* const a{} = p + {}ull * L.ks;  // [{}]\n", l, l, t.locs[l]);
    if (th.regs > 0) {
      c += "  unsigned";
      for (int r = 0; r < th.regs; ++r) c += fmt::format("{} r{} = 0u", r ? "," : "", r);
      c += ";\n";
    }
    c += "  (void)L;\n";
    for (const LitmusOp& op : th.ops) c += emit_op(op);
    for (int r = 0; r < th.regs; ++r) c += fmt::format("  out[{}] = r{};\n", r, r);
    c += "}\n";
  }
  c += fmt::format("__global__ void k{}(const __grid_constant__ lg::Launch L) {{\n", idx);
  c += "  const lg::Slot s = lg::place(L);\n";
  c += "  if (s.thread < 0) {\n    if (s.stress) lg::stress_run(L);\n    return;\n  }\n";
  c += "  unsigned* const p = L.locs + (size_t)lg::mem_slot(L, s.inst) * L.stride;\n";
  c += "  unsigned* const out = L.regs + (size_t)s.inst * L.nregs;\n";
  c += "  lg::pre_stress(L);\n  lg::start_barrier(L, s.inst);\n  switch (s.thread) {\n";
  for (size_t i = 0; i < t.threads.size(); ++i)
    c += fmt::format("    case {}: t{}_{}(L, p, out + {}); break;\n", i, idx, i, regbase[i]);
  c += "  }\n  lg::finish(L);\n}\n";

  // Outcome table: every outcome PTX allows, weak ones (not sequentially consistent) marked.
  std::vector<std::string> names;
  for (size_t th = 0; th < t.threads.size(); ++th)
    for (int r = 0; r < t.threads[th].regs; ++r) names.push_back(fmt::format("{}:r{}", th, r));
  for (const std::string& l : t.locs) names.push_back(l);
  c += fmt::format("static const int o{}[] = {{", idx);
  size_t k = 0;
  for (const Outcome& o : en.ptx)
    for (int64_t v : o) c += fmt::format("{}{}", k++ ? "," : "", v);
  c += "};\n";
  c += fmt::format("static const unsigned char w{}[] = {{", idx);
  k = 0;
  for (const Outcome& o : en.ptx) c += fmt::format("{}{}", k++ ? "," : "", en.sc.count(o) ? 0 : 1);
  c += "};\n";
  c += fmt::format("static const unsigned char x{}[] = {{", idx);
  k = 0;
  for (const Outcome& o : en.ptx) c += fmt::format("{}{}", k++ ? "," : "", satisfies(t, o) ? 1 : 0);
  c += "};\n";
  c += fmt::format("static const char* const n{}[] = {{", idx);
  for (size_t i = 0; i < names.size(); ++i) c += (i ? ", " : "") + cstr(names[i]);
  c += "};\n";

  std::string placement;
  for (size_t i = 0; i < t.threads.size(); ++i)
    placement += fmt::format("{}t{}:b{}w{}l{}", i ? " " : "", i, pl.cta[i], pl.warp[i], pl.lane[i]);
  std::string nw = "{";
  for (int i = 0; i < kMaxCta; ++i) nw += fmt::format("{}{}", i ? "," : "", i < pl.C ? pl.nw[size_t(i)] : 0);
  nw += "}";
  std::string role = "{";
  for (int a = 0; a < kMaxCta; ++a) {
    role += a ? ",{" : "{";
    for (int b = 0; b < kMaxWarp; ++b) {
      role += b ? ",{" : "{";
      for (int l = 0; l < kMaxLane; ++l) role += fmt::format("{}{}", l ? "," : "", pl.role[a][b][l]);
      role += "}";
    }
    role += "}";
  }
  role += "}";
  e.entry = fmt::format(
      "  {{{}, {}, nullptr, {}, {}, {}, (const void*)k{}, {}, {}, {}, {}, {}, o{}, w{}, x{}, n{}, {}, {}, {}, {}, "
      "{}}},\n",
      cstr(t.name), cstr(where), cstr(t.cond_text()), cstr(expect), oracle_exists ? 1 : 0, idx, cstr(placement),
      t.threads.size(), t.locs.size(), nregs, en.ptx.size(), idx, idx, idx, idx, pl.C, pl.maxnw, pl.G, nw, role);
  return e;
}

// The part of the program that is the same for every test: launch parameters, placement, stress,
// the start barrier and the classification of outcomes.
const char* kPrelude = R"CU(
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <vector>

#define LG_CHECK(x)                                                                                   \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(3);                                                                                   \
    }                                                                                                 \
  } while (0)

namespace lg {

constexpr int kMaxCta = 8, kMaxWarp = 8, kMaxLane = 8, kMaxOutcome = 64;

// One launch: where everything is, and this launch's random placement.
struct Launch {
  unsigned* locs;     // location words of this launch (a random offset into the buffer)
  unsigned* regs;     // per instance: every register of every thread (nregs words)
  unsigned* bar;      // per instance: arrivals at the start barrier
  unsigned* done;     // test threads finished (stress threads stop when all are)
  unsigned* scratch;  // what stress threads hammer
  unsigned long long* timeouts;  // start barriers given up on
  unsigned long long ks;         // words between location l and l+1 of one instance (K * stride)
  unsigned K, stride, nregs, nthreads, total_test_threads;
  unsigned nblocks, test_blocks, ba, bs;  // block b plays virtual block (ba*b+bs) % nblocks
  unsigned wpb, wa, ws, lx;               // warp w plays (wa*w + mix(b^ws)) % wpb; lane l plays l^lx
  unsigned ma, ms;                        // instance i uses memory slot (ma*i+ms) % K
  unsigned C, maxnw, WG, G, LS;           // test shape: blocks, warps per block, warp groups, lanes, lane slots
  unsigned pattern, pre_iters, stress_cap, stress_lines, line_words, spin_cap, barrier;
  unsigned zero;  // 0 at run time: keeps `dep` dependencies real
  unsigned char nw[kMaxCta];
  signed char role[kMaxCta][kMaxWarp][kMaxLane];
};

__device__ __forceinline__ unsigned long long gaddr(const unsigned* p) {
  return (unsigned long long)__cvta_generic_to_global(p);
}
__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
  return v;
}
__device__ __forceinline__ unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

struct Slot {
  int thread;     // the litmus thread this GPU thread plays, or -1
  unsigned inst;  // the instance
  int stress;     // (thread < 0) whether it stresses memory
};

// Which litmus thread of which instance this GPU thread plays. Blocks, warps and lanes are
// permuted by this launch's random parameters (bijections), so each instance gets one GPU thread per
// litmus thread, with the test's block/warp/lane sharing, at places that change every launch.
__device__ __forceinline__ Slot place(const Launch& L) {
  Slot s{-1, 0u, 1};
  const unsigned b = blockIdx.x, w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
  const unsigned v = (unsigned)(((unsigned long long)L.ba * b + L.bs) % L.nblocks);
  if (v >= L.test_blocks) return s;  // a stress block
  const unsigned c = v % L.C, g = v / L.C;
  const unsigned vw = (unsigned)(((unsigned long long)L.wa * w + mix32(b ^ L.ws)) % L.wpb);
  const unsigned wg = vw / L.maxnw, rw = vw % L.maxnw;
  if (wg >= L.WG || rw >= L.nw[c]) return s;  // a warp the test does not use: stress
  s.stress = 0;
  const unsigned vl = lane ^ L.lx, ls = vl / L.G, j = vl % L.G;
  if (ls >= L.LS) return s;
  const int t = L.role[c][rw][j];
  if (t < 0) return s;
  s.thread = t;
  s.inst = (g * L.WG + wg) * L.LS + ls;
  return s;
}

__device__ __forceinline__ unsigned mem_slot(const Launch& L, unsigned inst) {
  return (unsigned)(((unsigned long long)L.ma * inst + L.ms) % L.K);
}

// The word of the scratch region this GPU thread hammers: its warp's line (warps spread over the
// lines, shifted every launch), its lane's word in the line.
__device__ __forceinline__ unsigned* stress_word(const Launch& L) {
  const unsigned gw = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  return L.scratch + ((gw + L.ws) % L.stress_lines) * L.line_words + ((threadIdx.x & 31u) % L.line_words);
}

// One iteration of an access pattern (MC Mutants' four: store-store, store-load, load-store,
// load-load), volatile so that every access reaches the memory system.
__device__ __forceinline__ void stress_step(unsigned* w, unsigned i, unsigned pattern) {
  volatile unsigned* a = w;
  switch (pattern & 3u) {
    case 0: a[0] = i; a[0] = i + 1u; break;
    case 1: { a[0] = i; unsigned v = a[0]; (void)v; } break;
    case 2: { unsigned v = a[0]; a[0] = v + i; } break;
    default: { unsigned v = a[0]; unsigned u = a[0]; (void)v; (void)u; } break;
  }
}

// Stress threads: the pattern until every test thread of the launch is done (or stress_cap).
__device__ __noinline__ void stress_run(const Launch& L) {
  if (!L.stress_cap) return;
  unsigned* w = stress_word(L);
  for (unsigned i = 0; i < L.stress_cap; ++i) {
    stress_step(w, i, L.pattern);
    if ((i & 31u) == 31u && ld_relaxed(L.done) >= L.total_test_threads) break;
  }
}

// Test threads, before the test: the same pattern for a while (pre-stress).
__device__ __forceinline__ void pre_stress(const Launch& L) {
  if (!L.pre_iters) return;
  unsigned* w = stress_word(L);
  for (unsigned i = 0; i < L.pre_iters; ++i) stress_step(w, i, L.pattern);
}

// The instance's threads wait for each other, so that they start the test together. The arrival
// count also tells the classifier that every thread of the instance ran.
__device__ __forceinline__ void start_barrier(const Launch& L, unsigned inst) {
  atomicAdd(L.bar + inst, 1u);
  if (!L.barrier) return;
  for (unsigned n = 0; ld_relaxed(L.bar + inst) < L.nthreads; ++n)
    if (n >= L.spin_cap) {
      atomicAdd(L.timeouts, 1ull);
      break;
    }
}

__device__ __forceinline__ void finish(const Launch& L) { atomicAdd(L.done, 1u); }

// After a launch: each instance's outcome (registers, then the final value of each location),
// looked up among the outcomes PTX allows; counted per outcome, or kept as unexpected. Resets the
// locations, the barrier and `done` for the next launch.
__global__ void classify(const Launch L, const int* __restrict__ table, int nout, int osize, int nlocs,
                         unsigned long long* counts, unsigned* unexp_n, int* unexp_buf, unsigned unexp_cap,
                         unsigned long long* harness) {
  extern __shared__ unsigned hist[];
  for (int i = threadIdx.x; i < nout; i += blockDim.x) hist[i] = 0u;
  __syncthreads();
  const int nregs = (int)L.nregs;
  for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < L.K; k += gridDim.x * blockDim.x) {
    int o[kMaxOutcome];
    const unsigned* rg = L.regs + (size_t)k * nregs;
    for (int i = 0; i < nregs; ++i) o[i] = (int)rg[i];
    unsigned* p = L.locs + (size_t)mem_slot(L, k) * L.stride;
    for (int l = 0; l < nlocs; ++l) {
      o[nregs + l] = (int)p[(size_t)l * L.ks];
      p[(size_t)l * L.ks] = 0u;
    }
    if (L.bar[k] != L.nthreads) atomicAdd(harness, 1ull);
    L.bar[k] = 0u;
    int found = -1;
    for (int j = 0; j < nout && found < 0; ++j) {
      const int* t = table + (size_t)j * osize;
      int i = 0;
      while (i < osize && t[i] == o[i]) ++i;
      if (i == osize) found = j;
    }
    if (found >= 0) {
      atomicAdd(&hist[found], 1u);
    } else {
      const unsigned at = atomicAdd(unexp_n, 1u);
      if (at < unexp_cap)
        for (int i = 0; i < osize; ++i) unexp_buf[(size_t)at * osize + i] = o[i];
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nout; i += blockDim.x)
    if (hist[i]) atomicAdd(counts + i, (unsigned long long)hist[i]);
  if (blockIdx.x == 0 && threadIdx.x == 0) *L.done = 0u;
}

struct TestMeta {
  const char* name;
  const char* where;
  const char* skip;         // why it does not run here, or nullptr
  const char* exists_text;  // the test's `exists`
  const char* expect;       // the file's verdict ("" if none)
  int oracle_exists;        // whether PTX allows the `exists` outcome (the oracle)
  const void* kernel;
  const char* placement;  // tN:bBwWlL: block role, warp role, lane role of each thread
  int nthreads, nlocs, nregs, nout;
  const int* outcomes;           // nout x (nregs + nlocs): every outcome PTX allows
  const unsigned char* weak;     // per outcome: not sequentially consistent
  const unsigned char* exists;   // per outcome: satisfies `exists`
  const char* const* names;      // per outcome value: "0:r0", ..., "x"
  int C, maxnw, G;
  unsigned char nw[kMaxCta];
  signed char role[kMaxCta][kMaxWarp][kMaxLane];
};

}  // namespace lg
)CU";

// The host program: options, the per-test loop, reports.
const char* kMain = R"CU(
namespace lg {

struct Options {
  double time = 0;             // total seconds (0: no limit)
  double per_test = 1.0;       // seconds per test at most
  double min_per_test = 0.05;  // ... and at least, when the total limit is what shares time out
  unsigned long long max_instances = 0;  // per test (0: no limit)
  int block = 256;
  int blocks = 0;             // blocks per launch (0: as many as fit at once on the GPU)
  double stress_frac = 0.25;  // of the blocks, stress blocks
  unsigned stride = 32;       // words between instances' copies of a location
  int pattern = -1;           // 0..3, or -1: a random one per launch
  unsigned pre_iters = 64, stress_cap = 4096, stress_lines = 64, line_words = 32, spin_cap = 1u << 20;
  bool barrier = true, shuffle = true, quiet = false, list = false;
  unsigned long long seed = 1;
  std::vector<std::string> only;
  std::string csv;
};

void help() {
  std::printf(
      "usage: litmus_gpu [options]\n"
      "  --time S            total time limit in seconds (tests not reached are reported NOT RUN)\n"
      "  --per-test S        at most S seconds per test (default 1); with --time, each test gets\n"
      "                      min(S, time left / tests left), at least --min-per-test (default 0.05)\n"
      "  --max-instances N   stop a test after N instances\n"
      "  --only A,B,...      only these tests (a trailing * matches a prefix)\n"
      "  --list              list the tests and exit\n"
      "  --block N           threads per block (default 256)\n"
      "  --blocks N          blocks per launch (default: as many as are resident at once)\n"
      "  --stress-frac F     fraction of the blocks that only stress memory (default 0.25)\n"
      "  --stride W          words between two instances' copies of a location (default 32: a line each)\n"
      "  --pattern P         stress pattern 0 st-st, 1 st-ld, 2 ld-st, 3 ld-ld, -1 random per launch (default)\n"
      "  --pre N             pre-stress iterations of the test threads (default 64)\n"
      "  --stress-cap N      most iterations of a stress thread in one launch (default 4096; 0: no stress)\n"
      "  --lines N           scratch lines the stress threads hammer (default 64)\n"
      "  --line-words N      words per scratch line (default 32)\n"
      "  --no-barrier        no start barrier per instance\n"
      "  --no-shuffle        no random placement (identity permutations, no location offset)\n"
      "  --seed S            random seed (default 1)\n"
      "  --csv FILE          every outcome's count of every test, as CSV\n"
      "  --quiet             one line per test\n");
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "litmus_gpu: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") { help(); std::exit(0); }
    else if (a == "--time") o->time = std::atof(next());
    else if (a == "--per-test") o->per_test = std::atof(next());
    else if (a == "--min-per-test") o->min_per_test = std::atof(next());
    else if (a == "--max-instances") o->max_instances = std::strtoull(next(), nullptr, 10);
    else if (a == "--block") o->block = std::atoi(next());
    else if (a == "--blocks") o->blocks = std::atoi(next());
    else if (a == "--stress-frac") o->stress_frac = std::atof(next());
    else if (a == "--stride") o->stride = (unsigned)std::strtoul(next(), nullptr, 10);
    else if (a == "--pattern") o->pattern = std::atoi(next());
    else if (a == "--pre") o->pre_iters = (unsigned)std::strtoul(next(), nullptr, 10);
    else if (a == "--stress-cap") o->stress_cap = (unsigned)std::strtoul(next(), nullptr, 10);
    else if (a == "--lines") o->stress_lines = (unsigned)std::strtoul(next(), nullptr, 10);
    else if (a == "--line-words") o->line_words = (unsigned)std::strtoul(next(), nullptr, 10);
    else if (a == "--no-barrier") o->barrier = false;
    else if (a == "--no-shuffle") o->shuffle = false;
    else if (a == "--seed") o->seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--csv") o->csv = next();
    else if (a == "--quiet") o->quiet = true;
    else if (a == "--list") o->list = true;
    else if (a == "--only") {
      std::string s = next(), cur;
      for (char c : s + ",") {
        if (c == ',') { if (!cur.empty()) o->only.push_back(cur); cur.clear(); }
        else cur += c;
      }
    } else {
      std::fprintf(stderr, "litmus_gpu: unknown option %s (--help)\n", a.c_str());
      return false;
    }
  }
  if (o->block < 32 || o->block > 1024 || o->block % 32 || o->stride == 0 || o->stress_lines == 0 ||
      o->line_words == 0 || o->stress_frac < 0 || o->stress_frac >= 1 || o->pattern < -1 || o->pattern > 3) {
    std::fprintf(stderr, "litmus_gpu: an option is out of range (--help)\n");
    return false;
  }
  return true;
}

bool selected(const Options& o, const char* name) {
  if (o.only.empty()) return true;
  for (const std::string& s : o.only) {
    if (!s.empty() && s.back() == '*') {
      if (std::strncmp(name, s.c_str(), s.size() - 1) == 0) return true;
    } else if (s == name) {
      return true;
    }
  }
  return false;
}

struct Rng {
  unsigned long long s;
  unsigned long long next() {
    unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned n) { return n ? (unsigned)(next() % n) : 0u; }
};

unsigned gcd(unsigned a, unsigned b) {
  while (b) { unsigned t = a % b; a = b; b = t; }
  return a;
}
unsigned coprime(Rng& r, unsigned n) {
  if (n <= 2) return 1;
  for (;;) {
    unsigned a = 1 + r.below(n - 1);
    if (gcd(a, n) == 1) return a;
  }
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  void need(size_t m) {
    if (m <= n) return;
    if (p) LG_CHECK(cudaFree(p));
    LG_CHECK(cudaMalloc(&p, m * sizeof(T)));
    n = m;
  }
};

struct Totals {
  int run = 0, skipped = 0, not_run = 0, forbidden_tests = 0;
  unsigned long long instances = 0, forbidden = 0, harness = 0, timeouts = 0;
  int weak_allowed = 0, weak_seen = 0;
};

std::string outcome_text(const TestMeta& t, const int* v) {
  std::string s;
  for (int i = 0; i < t.nregs + t.nlocs; ++i) {
    if (i) s += ' ';
    s += t.names[i];
    s += '=';
    s += std::to_string(v[i]);
  }
  return s;
}

void run_test(const TestMeta& t, const Options& o, double budget, const cudaDeviceProp& prop, FILE* csv,
              Totals* tot) {
  DevBuf<unsigned> locs, regs, bar, misc;
  static DevBuf<unsigned> scratch;
  DevBuf<unsigned long long> counts, cnt64;
  DevBuf<int> table, unexp;
  int per_sm = 0;
  LG_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, t.kernel, o.block, 0));
  unsigned nb = (unsigned)(per_sm * prop.multiProcessorCount);
  if (o.blocks > 0) nb = std::min(nb, (unsigned)o.blocks);
  const unsigned stress_blocks = (unsigned)(nb * o.stress_frac);
  const unsigned test_blocks = (nb - stress_blocks) / t.C * t.C;
  const unsigned wpb = (unsigned)o.block / 32u, WG = wpb / (unsigned)t.maxnw, LS = 32u / (unsigned)t.G;
  const unsigned K = test_blocks / t.C * WG * LS;
  if (K == 0) {
    std::printf("SKIP %s: does not fit (%u blocks resident, %d per SM)\n", t.name, nb, per_sm);
    ++tot->skipped;
    return;
  }
  const int osize = t.nregs + t.nlocs;
  const unsigned unexp_cap = 4096;
  locs.need((size_t)t.nlocs * K * o.stride + o.stride);
  regs.need((size_t)K * t.nregs + 1);
  bar.need(K);
  misc.need(2);  // done, unexpected count
  cnt64.need(2);  // barrier timeouts, harness errors
  counts.need(t.nout);
  table.need((size_t)t.nout * osize);
  unexp.need((size_t)unexp_cap * osize);
  scratch.need((size_t)o.stress_lines * o.line_words);
  LG_CHECK(cudaMemset(locs.p, 0, locs.n * sizeof(unsigned)));
  LG_CHECK(cudaMemset(regs.p, 0, regs.n * sizeof(unsigned)));
  LG_CHECK(cudaMemset(bar.p, 0, bar.n * sizeof(unsigned)));
  LG_CHECK(cudaMemset(misc.p, 0, misc.n * sizeof(unsigned)));
  LG_CHECK(cudaMemset(cnt64.p, 0, cnt64.n * sizeof(unsigned long long)));
  LG_CHECK(cudaMemset(counts.p, 0, counts.n * sizeof(unsigned long long)));
  LG_CHECK(cudaMemset(scratch.p, 0, scratch.n * sizeof(unsigned)));
  LG_CHECK(cudaMemcpy(table.p, t.outcomes, (size_t)t.nout * osize * sizeof(int), cudaMemcpyHostToDevice));

  Launch L{};
  L.regs = regs.p;
  L.bar = bar.p;
  L.done = misc.p;
  L.scratch = scratch.p;
  L.timeouts = cnt64.p;
  L.K = K;
  L.stride = o.stride;
  L.ks = (unsigned long long)K * o.stride;
  L.nregs = (unsigned)t.nregs;
  L.nthreads = (unsigned)t.nthreads;
  L.total_test_threads = K * (unsigned)t.nthreads;
  L.nblocks = nb;
  L.test_blocks = test_blocks;
  L.wpb = wpb;
  L.C = (unsigned)t.C;
  L.maxnw = (unsigned)t.maxnw;
  L.WG = WG;
  L.G = (unsigned)t.G;
  L.LS = LS;
  L.pre_iters = o.pre_iters;
  L.stress_cap = o.stress_cap;
  L.stress_lines = o.stress_lines;
  L.line_words = o.line_words;
  L.spin_cap = o.spin_cap;
  L.barrier = o.barrier ? 1u : 0u;
  L.zero = 0u;
  std::memcpy(L.nw, t.nw, sizeof L.nw);
  std::memcpy(L.role, t.role, sizeof L.role);

  Rng rng{o.seed * 0x2545F4914F6CDD1Dull + std::hash<std::string>{}(t.name)};
  const unsigned cgrid = std::min((K + 255u) / 256u, (unsigned)prop.multiProcessorCount * 8u);
  const size_t shm = (size_t)t.nout * sizeof(unsigned);
  const double t0 = now();
  unsigned long long launches = 0;
  unsigned batch = 4;
  for (;;) {
    const double b0 = now();
    for (unsigned i = 0; i < batch; ++i) {
      if (o.shuffle) {
        L.ba = coprime(rng, nb);
        L.bs = rng.below(nb);
        L.wa = coprime(rng, wpb);
        L.ws = (unsigned)rng.next();
        L.lx = rng.below(32);
        L.ma = coprime(rng, K);
        L.ms = rng.below(K);
        L.locs = locs.p + rng.below(o.stride);
      } else {
        L.ba = 1; L.bs = 0; L.wa = 1; L.ws = 0; L.lx = 0; L.ma = 1; L.ms = 0;
        L.locs = locs.p;
      }
      L.pattern = o.pattern < 0 ? rng.below(4) : (unsigned)o.pattern;
      void* args[] = {&L};
      LG_CHECK(cudaLaunchKernel(t.kernel, dim3(nb), dim3(o.block), args, 0, 0));
      classify<<<cgrid, 256, shm>>>(L, table.p, t.nout, osize, t.nlocs, counts.p, misc.p + 1, unexp.p, unexp_cap,
                                    cnt64.p + 1);
      LG_CHECK(cudaGetLastError());
    }
    LG_CHECK(cudaDeviceSynchronize());
    launches += batch;
    const double e = now() - t0;
    if (e >= budget || (o.max_instances && launches * K >= o.max_instances)) break;
    if (now() - b0 < 0.05 && batch < 4096) batch *= 2;
    else if (now() - b0 > 0.2 && batch > 1) batch /= 2;
  }
  const double secs = now() - t0;
  std::vector<unsigned long long> c(t.nout), c64(2);
  unsigned un[2];
  LG_CHECK(cudaMemcpy(c.data(), counts.p, t.nout * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  LG_CHECK(cudaMemcpy(c64.data(), cnt64.p, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  LG_CHECK(cudaMemcpy(un, misc.p, 2 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const unsigned kept = std::min(un[1], unexp_cap);
  std::vector<int> ub((size_t)kept * osize);
  if (kept) LG_CHECK(cudaMemcpy(ub.data(), unexp.p, ub.size() * sizeof(int), cudaMemcpyDeviceToHost));
  std::map<std::vector<int>, unsigned long long> bad;
  for (unsigned i = 0; i < kept; ++i) ++bad[std::vector<int>(ub.begin() + (size_t)i * osize, ub.begin() + (size_t)(i + 1) * osize)];

  const unsigned long long inst = launches * K;
  int weak_allowed = 0, weak_seen = 0;
  unsigned long long exists_count = 0, weak_count = 0;
  for (int i = 0; i < t.nout; ++i) {
    weak_allowed += t.weak[i];
    weak_seen += t.weak[i] && c[i];
    if (t.weak[i]) weak_count += c[i];
    if (t.exists[i]) exists_count += c[i];
  }
  std::printf("TEST %s  [%s]  %s\n", t.name, t.where, t.placement);
  std::printf("  exists %s: PTX %s%s%s%s\n", t.exists_text, t.oracle_exists ? "allows it" : "forbids it",
              *t.expect ? " (file: " : "", t.expect, *t.expect ? ")" : "");
  std::printf("  %llu instances = %llu launches x %u (%u blocks: %u test, %u stress; %d per SM), %.2f s;"
              " barrier timeouts %llu\n",
              inst, launches, K, nb, test_blocks, nb - test_blocks, per_sm, secs, c64[0]);
  if (!o.quiet)
    for (int i = 0; i < t.nout; ++i)
      std::printf("  %14llu  %-4s  %s%s\n", c[i], t.weak[i] ? "weak" : "sc", outcome_text(t, t.outcomes + (size_t)i * osize).c_str(),
                  t.exists[i] ? "   <- exists" : "");
  for (auto& [v, n] : bad)
    std::printf("  %14llu  FORBIDDEN  %s   <- an outcome the PTX model forbids\n", n, outcome_text(t, v.data()).c_str());
  if (un[1] > kept) std::printf("  (%u outcomes the model forbids in all; the first %u are tallied above)\n", un[1], kept);
  if (c64[1]) std::printf("  HARNESS ERROR: %llu instances where not every thread ran\n", c64[1]);
  std::printf("RESULT %s instances=%llu weak_seen=%d/%d weak_count=%llu exists=%s exists_count=%llu forbidden=%u\n",
              t.name, inst, weak_seen, weak_allowed, weak_count, t.oracle_exists ? "allowed" : "forbidden",
              exists_count, un[1]);
  std::fflush(stdout);
  if (csv) {
    for (int i = 0; i < t.nout; ++i)
      std::fprintf(csv, "%s,\"%s\",%s,%d,%llu,%llu\n", t.name, outcome_text(t, t.outcomes + (size_t)i * osize).c_str(),
                   t.weak[i] ? "weak" : "sc", t.exists[i], c[i], inst);
    for (auto& [v, n] : bad)
      std::fprintf(csv, "%s,\"%s\",FORBIDDEN,-,%llu,%llu\n", t.name, outcome_text(t, v.data()).c_str(), n, inst);
    std::fflush(csv);
  }
  ++tot->run;
  tot->instances += inst;
  tot->forbidden += un[1];
  tot->forbidden_tests += un[1] ? 1 : 0;
  tot->harness += c64[1];
  tot->timeouts += c64[0];
  tot->weak_allowed += weak_allowed;
  tot->weak_seen += weak_seen;
  for (DevBuf<unsigned>* b : {&locs, &regs, &bar, &misc}) LG_CHECK(cudaFree(b->p));
  for (DevBuf<unsigned long long>* b : {&counts, &cnt64}) LG_CHECK(cudaFree(b->p));
  for (DevBuf<int>* b : {&table, &unexp}) LG_CHECK(cudaFree(b->p));
}

}  // namespace lg

int main(int argc, char** argv) {
  using namespace lg;
  Options o;
  if (!parse(argc, argv, &o)) return 2;
  if (o.list) {
    for (int i = 0; i < kNumTests; ++i)
      if (selected(o, kTests[i].name))
        std::printf("%s  %s%s%s\n", kTests[i].name, kTests[i].where, kTests[i].skip ? "  skipped: " : "",
                    kTests[i].skip ? kTests[i].skip : "");
    return 0;
  }
  cudaDeviceProp prop;
  LG_CHECK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  LG_CHECK(cudaDriverGetVersion(&drv));
  LG_CHECK(cudaRuntimeGetVersion(&rt));
  char date[64];
  const std::time_t tt = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&tt));
  char head[1024];
  std::snprintf(head, sizeof head,
                "device %s (sm_%d%d, %d SMs, L2 %d KiB), CUDA driver API %d, runtime %d, built with nvcc %d.%d.%d, %s\n"
                "params: block %d, blocks %d (0: all resident), stress-frac %.2f, stride %u words, pattern %d, pre %u, "
                "stress-cap %u, lines %u x %u words, barrier %s, shuffle %s, per-test %.2f s, min-per-test %.2f s, "
                "time %.0f s, max-instances %llu, seed %llu\n",
                prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1024, drv, rt,
                __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__, __CUDACC_VER_BUILD__, date, o.block, o.blocks,
                o.stress_frac, o.stride, o.pattern, o.pre_iters, o.stress_cap, o.stress_lines, o.line_words,
                o.barrier ? "on" : "off", o.shuffle ? "on" : "off", o.per_test, o.min_per_test, o.time,
                o.max_instances, o.seed);
  std::printf("%s", head);
  FILE* csv = nullptr;
  if (!o.csv.empty()) {
    csv = std::fopen(o.csv.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "litmus_gpu: cannot write %s\n", o.csv.c_str());
      return 2;
    }
    std::string h = head;
    for (size_t p = 0, q; p < h.size(); p = q + 1) {
      q = h.find('\n', p);
      if (q == std::string::npos) q = h.size();
      std::fprintf(csv, "# %s\n", h.substr(p, q - p).c_str());
    }
    std::fprintf(csv, "test,outcome,kind,exists,count,instances\n");
  }
  std::vector<int> todo;
  Totals tot;
  for (int i = 0; i < kNumTests; ++i) {
    if (!selected(o, kTests[i].name)) continue;
    if (kTests[i].skip) {
      std::printf("SKIP %s [%s]: %s\n", kTests[i].name, kTests[i].where, kTests[i].skip);
      if (csv) std::fprintf(csv, "%s,\"\",SKIP: %s,-,0,0\n", kTests[i].name, kTests[i].skip);
      ++tot.skipped;
      continue;
    }
    todo.push_back(i);
  }
  const double start = now();
  for (size_t n = 0; n < todo.size(); ++n) {
    const TestMeta& t = kTests[todo[n]];
    double budget = o.per_test;
    if (o.time > 0) {
      const double left = o.time - (now() - start);
      if (left <= 0) {
        std::printf("NOT RUN %s: the time limit (%.0f s) was reached\n", t.name, o.time);
        if (csv) std::fprintf(csv, "%s,\"\",NOT RUN,-,0,0\n", t.name);
        ++tot.not_run;
        continue;
      }
      budget = std::min(budget, std::max(o.min_per_test, left / double(todo.size() - n) * 0.95));
    }
    run_test(t, o, budget, prop, csv, &tot);
    std::printf("progress: %zu/%zu tests, %.1f s\n", n + 1, todo.size(), now() - start);
  }
  std::printf(
      "SUMMARY: %d tests run, %d skipped, %d not run; %llu instances; weak outcomes seen %d of %d PTX allows; "
      "barrier timeouts %llu; outcomes PTX forbids: %llu (in %d tests); harness errors %llu; %.1f s\n",
      tot.run, tot.skipped, tot.not_run, tot.instances, tot.weak_seen, tot.weak_allowed, tot.timeouts, tot.forbidden,
      tot.forbidden_tests, tot.harness, now() - start);
  if (csv) std::fclose(csv);
  if (tot.forbidden) {
    std::printf("FORBIDDEN: the GPU produced outcomes the PTX model forbids (lines marked FORBIDDEN above)\n");
    return 1;
  }
  return tot.harness ? 4 : 0;
}
)CU";

int cmd_emit(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string only, out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--test" && i + 1 < args.size())
      only = args[++i];
    else if (args[i] == "--out" && i + 1 < args.size())
      out = args[++i];
    else if (!args[i].empty() && args[i][0] == '-')
      return usage();
    else
      files.push_back(args[i]);
  }
  if (files.empty() || out.empty()) return usage();
  std::vector<LitmusTest> tests;
  for (const std::string& f : files) {
    try {
      for (LitmusTest& t : read_litmus_file(f))
        if (only.empty() || t.name == only) tests.push_back(std::move(t));
    } catch (const LitmusError& e) {
      std::fprintf(stderr, "synclab-litmus-gpu: %s\n", e.what());
      return 2;
    }
  }
  if (tests.empty()) {
    std::fprintf(stderr, "synclab-litmus-gpu: no test named '%s' in the files\n", only.c_str());
    return 2;
  }
  std::string code, table;
  std::set<std::string> names;
  int skipped = 0;
  for (size_t i = 0; i < tests.size(); ++i) {
    std::string skip;
    if (!names.insert(tests[i].name).second) skip = "a second test of this name";
    Emitted e = emit_test(tests[i], int(i), skip);
    if (!e.skip.empty()) {
      ++skipped;
      std::fprintf(stderr, "skip %s (%s:%d): %s\n", tests[i].name.c_str(), tests[i].file.c_str(), tests[i].line,
                   e.skip.c_str());
    }
    code += e.code;
    table += e.entry;
  }
  std::string text = "// Generated by synclab-litmus-gpu from";
  for (const std::string& f : files) text += " " + f;
  if (!only.empty()) text += " (test " + only + ")";
  text +=
      "; do not edit.\n"
      "// Each litmus thread is device code issuing its instructions as inline PTX, as written in the test\n"
      "// (comments give the litmus text); the outcomes the PTX model allows come from the oracle.\n"
      "// Build: nvcc -O3 -gencode arch=compute_90,code=sm_90 -o litmus_gpu THIS.cu; run: ./litmus_gpu --help\n";
  text += kPrelude;
  text += code;
  text += "\nnamespace lg {\nstatic const TestMeta kTests[] = {\n" + table + "};\n";
  text += fmt::format("static const int kNumTests = {};\n}}  // namespace lg\n", tests.size());
  text += kMain;
  std::ofstream of(out, std::ios::binary);
  if (!of || !(of << text)) {
    std::fprintf(stderr, "synclab-litmus-gpu: cannot write %s\n", out.c_str());
    return 2;
  }
  std::fprintf(stderr, "%s: %zu tests (%d skipped)\n", out.c_str(), tests.size(), skipped);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "emit") return cmd_emit(args);
  return usage();
}
