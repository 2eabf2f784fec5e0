// Lab 10 (the memory model): the harness's host side and task 1's litmus kernels (provided).
// run_litmus launches one of the litmus kernels: on the simulator one instance per launch (the
// scheduler seed, and under `relaxed` the memory model's choices, vary between launches); on a GPU
// many instances per launch, each role in a randomly chosen block, between blocks that stress
// memory. The other run_* functions launch tasks 4 and 5 and read their results back.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab10.h"
#include "lab10_kernels.cuh"
#include "lab_harness.cuh"
#include "synclab_lab.h"

namespace lab10 {

using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::TraceScope;

// ---- task 1's kernels: relaxed accesses at .gpu scope, nothing else ------------------------------
__global__ void litmus_mp(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);  // the data
      device_ref<int>(in.y()).store(1, relaxed);  // the flag
      break;
    case 1:
      in.r(0) = device_ref<int>(in.y()).load(relaxed);
      in.r(1) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_sb(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      in.r(0) = device_ref<int>(in.y()).load(relaxed);
      break;
    case 1:
      device_ref<int>(in.y()).store(1, relaxed);
      in.r(1) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_lb(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      const int r = device_ref<int>(in.x()).load(relaxed);
      device_ref<int>(in.y()).store(1, relaxed);
      in.r(0) = r;  // after the store: the store must not depend on it
      break;
    }
    case 1: {
      const int r = device_ref<int>(in.y()).load(relaxed);
      device_ref<int>(in.x()).store(1, relaxed);
      in.r(1) = r;  // after the store: the store must not depend on it
      break;
    }
    default: stress(L);
  }
}

__global__ void litmus_iriw(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: device_ref<int>(in.x()).store(1, relaxed); break;
    case 1: device_ref<int>(in.y()).store(1, relaxed); break;
    case 2:
      in.r(0) = device_ref<int>(in.x()).load(relaxed);
      in.r(1) = device_ref<int>(in.y()).load(relaxed);
      break;
    case 3:
      in.r(2) = device_ref<int>(in.y()).load(relaxed);
      in.r(3) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_corr(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: device_ref<int>(in.x()).store(1, relaxed); break;
    case 1:
      in.r(0) = device_ref<int>(in.x()).load(relaxed);
      in.r(1) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_2p2w(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      device_ref<int>(in.y()).store(2, relaxed);
      break;
    case 1:
      device_ref<int>(in.y()).store(1, relaxed);
      device_ref<int>(in.x()).store(2, relaxed);
      break;
    default: stress(L);
  }
}

// The pool's other tests (a student id draws six of the eleven: task1_tests).
__global__ void litmus_s(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(2, relaxed);
      device_ref<int>(in.y()).store(1, relaxed);
      break;
    case 1:
      in.r(0) = device_ref<int>(in.y()).load(relaxed);
      device_ref<int>(in.x()).store(1, relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_r(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      device_ref<int>(in.y()).store(1, relaxed);
      break;
    case 1:
      device_ref<int>(in.y()).store(2, relaxed);
      in.r(0) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_wrc(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: device_ref<int>(in.x()).store(1, relaxed); break;
    case 1: {
      const int r = device_ref<int>(in.x()).load(relaxed);
      device_ref<int>(in.y()).store(1, relaxed);
      in.r(0) = r;
      break;
    }
    case 2:
      in.r(1) = device_ref<int>(in.y()).load(relaxed);
      in.r(2) = device_ref<int>(in.x()).load(relaxed);
      break;
    default: stress(L);
  }
}

__global__ void litmus_cowr(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0:
      device_ref<int>(in.x()).store(1, relaxed);
      in.r(0) = device_ref<int>(in.x()).load(relaxed);
      break;
    case 1: device_ref<int>(in.x()).store(2, relaxed); break;
    default: stress(L);
  }
}

__global__ void litmus_corw(Litmus L) {
  Instance in;
  switch (role_of(L, &in)) {
    case 0: {
      const int r = device_ref<int>(in.x()).load(relaxed);
      device_ref<int>(in.x()).store(1, relaxed);
      in.r(0) = r;  // after the store: the store must not depend on it
      break;
    }
    case 1: device_ref<int>(in.x()).store(2, relaxed); break;
    default: stress(L);
  }
}

// ---- the tests ------------------------------------------------------------------------------------
namespace {
using KernelFn = void (*)(Litmus);
struct Entry {
  LitmusTest test;
  KernelFn kernel;
};
const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{
      {{"mp", "litmus_mp", "harness.cu", 2, false, {"r0", "r1"}, "r0=1 r1=0"}, litmus_mp},
      {{"sb", "litmus_sb", "harness.cu", 2, false, {"r0", "r1"}, "r0=0 r1=0"}, litmus_sb},
      {{"lb", "litmus_lb", "harness.cu", 2, false, {"r0", "r1"}, "r0=1 r1=1"}, litmus_lb},
      {{"iriw", "litmus_iriw", "harness.cu", 4, false, {"r0", "r1", "r2", "r3"}, "r0=1 r1=0 r2=1 r3=0"},
       litmus_iriw},
      {{"corr", "litmus_corr", "harness.cu", 2, false, {"r0", "r1"}, "r0=1 r1=0"}, litmus_corr},
      {{"2+2w", "litmus_2p2w", "harness.cu", 2, false, {"x", "y"}, "x=1 y=1"}, litmus_2p2w},
      {{"s", "litmus_s", "harness.cu", 2, false, {"r0", "x"}, "r0=1 x=2"}, litmus_s},
      {{"r", "litmus_r", "harness.cu", 2, false, {"r0", "y"}, "r0=0 y=2"}, litmus_r},
      {{"wrc", "litmus_wrc", "harness.cu", 3, false, {"r0", "r1", "r2"}, "r0=1 r1=1 r2=0"}, litmus_wrc},
      {{"cowr", "litmus_cowr", "harness.cu", 2, false, {"r0", "x"}, "r0=2 x=1"}, litmus_cowr},
      {{"corw", "litmus_corw", "harness.cu", 2, false, {"r0", "x"}, "r0=2 x=2"}, litmus_corw},
      {{"mp_fixed", "mp_fixed", "fences.cu", 2, false, {"r0", "r1"}, "r0=1 r1=0"}, mp_fixed},
      {{"sb_fixed", "sb_fixed", "fences.cu", 2, false, {"r0", "r1"}, "r0=0 r1=0"}, sb_fixed},
      {{"lb_fixed", "lb_fixed", "fences.cu", 2, false, {"r0", "r1"}, "r0=1 r1=1"}, lb_fixed},
      {{"iriw_fixed", "iriw_fixed", "fences.cu", 4, false, {"r0", "r1", "r2", "r3"}, "r0=1 r1=0 r2=1 r3=0"},
       iriw_fixed},
      {{"2+2w_fixed", "w2p2w_fixed", "fences.cu", 2, false, {"x", "y"}, "x=1 y=1"}, w2p2w_fixed},
      {{"mp_same_block", "mp_same_block", "fences.cu", 2, true, {"r0", "r1"}, "r0=1 r1=0"}, mp_same_block},
      {{"mp_cross_block", "mp_cross_block", "fences.cu", 2, false, {"r0", "r1"}, "r0=1 r1=0"}, mp_cross_block},
  };
  return all;
}
const Entry& entry(const std::string& name) {
  for (const Entry& e : entries())
    if (name == e.test.name) return e;
  std::string list;
  for (const Entry& e : entries()) list += std::string(list.empty() ? "" : ", ") + e.test.name;
  throw std::invalid_argument("no litmus test named '" + name + "' (tests: " + list + ")");
}

std::string outcome_of(const LitmusTest& t, const int* mem, const int* regs) {
  std::string s;
  for (const std::string& what : t.show) {
    const int v = what[0] == 'r' ? regs[what[1] - '0'] : mem[(what[0] == 'x' ? 0 : 1) * kSpacing];
    s += (s.empty() ? "" : " ") + what + "=" + std::to_string(v);
  }
  return s;
}
}  // namespace

const std::vector<LitmusTest>& litmus_tests() {
  static const std::vector<LitmusTest> all = [] {
    std::vector<LitmusTest> v;
    for (const Entry& e : entries()) v.push_back(e.test);
    return v;
  }();
  return all;
}

const LitmusTest& litmus_test(const std::string& name) { return entry(name).test; }

std::vector<std::string> task1_tests(const std::string& student) {
  // Four of the two-thread tests whose weak outcome breaks no coherence rule, one of the tests of
  // three or four threads, one that tests coherence: every draw asks the same kinds of question.
  static const std::vector<std::string> two{"mp", "sb", "lb", "2+2w", "s", "r"}, more{"iriw", "wrc"},
      coherence{"corr", "cowr", "corw"};
  if (student.empty()) return {"mp", "sb", "lb", "2+2w", "iriw", "corr"};
  std::vector<std::string> tests = synclab::lab::student_pick(student, "lab10 task1 two", two, 4);
  tests.push_back(synclab::lab::student_pick(student, "lab10 task1 more", more, 1)[0]);
  tests.push_back(synclab::lab::student_pick(student, "lab10 task1 coherence", coherence, 1)[0]);
  return tests;
}

LitmusResult run_litmus(const LitmusTest& t, long instances, bool with_stress, unsigned shuffle_seed,
                        const char* trace) {
  const Entry& e = entry(t.name);
  const bool sim = synclab::sim::active();
  if (sim || instances < 1) instances = 1;
  if (instances > 0xfffff) throw std::invalid_argument("at most 1048575 instances per launch");
  const int stress_blocks = (sim || t.same_block || !with_stress) ? 0 : int(instances / 4);
  const int blocks = t.same_block ? int(instances) : int(instances) * t.roles + stress_blocks;
  DeviceArray<int> mem(size_t(instances) * kLocations * kSpacing, synclab::lab::zeroed);
  DeviceArray<int> regs(size_t(instances) * kRegisters, synclab::lab::zeroed);
  DeviceArray<int> place(blocks);
  DeviceArray<int> scratch(stress_blocks ? 64 * 64 : 1, synclab::lab::zeroed);
  // Which block plays which role of which instance: in order on the simulator (its scheduler
  // explores the interleavings), shuffled among the stress blocks on a GPU.
  std::vector<int> host_place(blocks, -1);
  if (!t.same_block) {
    std::vector<int> order(blocks);
    for (int b = 0; b < blocks; ++b) order[b] = b;
    if (!sim) std::shuffle(order.begin(), order.end(), std::mt19937(shuffle_seed));
    for (long i = 0; i < instances; ++i)
      for (int r = 0; r < t.roles; ++r) host_place[order[i * t.roles + r]] = (r << 20) | int(i);
  }
  place.upload(host_place);
  if (trace) {
    synclab_region(mem.ptr, sizeof(int), "x", "flags", 1);
    synclab_region(mem.ptr + kSpacing, sizeof(int), "y", "flags", 1);
    const int shown = int(std::count_if(t.show.begin(), t.show.end(), [](const std::string& w) { return w[0] == 'r'; }));
    if (shown) synclab_region(regs.ptr, sizeof(int) * shown, "r", "array", shown);
  }
  LitmusResult r;
  {
    TraceScope scope(trace);
    Litmus L{mem.ptr, regs.ptr, place.ptr, stress_blocks ? scratch.ptr : nullptr, t.roles, t.same_block ? 1 : 0};
    e.kernel<<<blocks, t.same_block ? 32 * t.roles : (sim ? 1 : 32)>>>(L);
    finish_launch(r.reports);
  }
  const std::vector<int> m = mem.download(), g = regs.download();
  for (long i = 0; i < instances; ++i)
    ++r.counts[outcome_of(t, m.data() + i * kLocations * kSpacing, g.data() + i * kRegisters)];
  return r;
}

// ---- tasks 1 and 4: the student's tables (synclab::lab::answer_rows) ------------------------------

Prediction prediction(const std::string& test) {
  for (const std::vector<std::string>& w : synclab::lab::answer_rows(predictions_text())) {
    if (w[0] != test) continue;
    if (w.size() < 4)
      throw std::invalid_argument("predictions.cu: the row of " + test + " needs three verdicts (sc, tso, ptx)");
    return {w[w.size() - 3], w[w.size() - 2], w[w.size() - 1]};
  }
  return {};
}

std::string task4_answer(const std::string& question) {
  return synclab::lab::answer_in(task4_answers_text(), question);
}

// ---- tasks 2-3: the PTX of a kernel ------------------------------------------------------------------
namespace {
const std::string& program_image() {
  static const std::string image = [] {
    std::ifstream f("/proc/self/exe", std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
  }();
  return image;
}

// The text of the PTX function whose header starts at `at`, up to its closing brace.
std::string body_at(const std::string& image, size_t at) {
  const size_t end = image.find("\n}\n", at);
  return image.substr(at, end == std::string::npos ? std::string::npos : end + 2 - at);
}

void scan(const std::string& body, SyncUse& u) {
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string op;
    words >> op;
    if (!op.empty() && op[0] == '@') words >> op;  // a predicate
    const bool fence = op.rfind("fence.", 0) == 0 && op.rfind("fence.proxy", 0) != 0;
    const bool membar = op.rfind("membar.", 0) == 0;
    const bool access = op.rfind("ld.", 0) == 0 || op.rfind("st.", 0) == 0 || op.rfind("atom.", 0) == 0 ||
                        op.rfind("red.", 0) == 0;
    auto has = [&](const char* part) { return (op + ".").find(part) != std::string::npos; };
    const bool ordered = has(".acquire.") || has(".release.") || has(".acq_rel.");
    if (!(fence || membar || (access && (ordered || has(".sys.")))))
      continue;
    if (op.back() == ';') op.pop_back();
    u.instructions.push_back(op);
    if (membar || has(".sc.")) ++u.fence_sc;
    else if (fence) ++u.fence_acq_rel;
    else if (ordered) ++u.acquire_release;
    if (fence || membar || has(".release.") || has(".acq_rel.")) ++u.releases;
    if (fence || membar || has(".acquire.") || has(".acq_rel.")) ++u.acquires;
    if (has(".cta.") || op == "membar.cta") u.scopes.insert("cta");
    if (has(".gpu.") || op == "membar.gl") u.scopes.insert("gpu");
    if (has(".sys.")) u.scopes.insert("sys");
  }
}
}  // namespace

SyncUse sync_use(const std::string& kernel) {
  SyncUse u;
  const std::string& image = program_image();
  const std::string head = ".entry _ZN5lab10" + std::to_string(kernel.size()) + kernel;
  const size_t at = image.find(head);
  if (at == std::string::npos) return u;
  u.found = true;
  const std::string body = body_at(image, at);
  scan(body, u);
  // The functions it calls (a helper nvcc did not inline): their fences count too.
  std::set<std::string> seen;
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    const size_t call = line.find("call");
    if (call == std::string::npos || line.find_first_not_of(" \t") != call) continue;
    std::string rest = line.substr(line.find_first_of(" \t", call));
    const size_t paren = rest.find(')');
    if (rest.find('(') < rest.find(',') && paren != std::string::npos) rest = rest.substr(paren + 1);
    std::string name;
    for (char c : rest)
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$') name += c;
      else if (!name.empty()) break;
    if (name.empty() || !seen.insert(name).second) continue;
    const size_t f = image.find(".func", 0);
    for (size_t p = f; p != std::string::npos; p = image.find(".func", p + 5)) {
      const size_t n = image.find(name + "(", p);
      if (n != std::string::npos && image.find('\n', p) > n) {
        scan(body_at(image, p), u);
        break;
      }
    }
  }
  return u;
}

// ---- task 4 -------------------------------------------------------------------------------------------
HandoffResult run_handoff(int n, const char* trace) {
  if (n < 1 || n > 1024) throw std::invalid_argument("--n must be in 1..1024");
  DeviceArray<int> data(n, synclab::lab::zeroed), flag(1, synclab::lab::zeroed), out(1, synclab::lab::zeroed);
  if (trace) {
    synclab_region(data.ptr, data.bytes(), "data", "array", n);
    synclab_region(flag.ptr, flag.bytes(), "flag", "flags", 1);
    synclab_region(out.ptr, out.bytes(), "out", "array", 1);
  }
  HandoffResult r;
  {
    TraceScope scope(trace);
    handoff<<<2, 1>>>(data.ptr, n, flag.ptr, out.ptr);
    finish_launch(r.reports);
  }
  r.sum = out.download()[0];
  r.flag = flag.download()[0];
  return r;
}

// ---- task 5 -------------------------------------------------------------------------------------------
const char* name(Pattern p) {
  switch (p) {
    case Pattern::last_block: return "last-block";
    case Pattern::look_back: return "look-back";
    case Pattern::barrier: return "barrier";
    case Pattern::queue: return "queue";
  }
  return "?";
}

Pattern pattern(const std::string& n) {
  for (Pattern p : {Pattern::last_block, Pattern::look_back, Pattern::barrier, Pattern::queue})
    if (n == name(p)) return p;
  throw std::invalid_argument("unknown pattern '" + n + "' (last-block, look-back, barrier, queue)");
}

PatternResult run_pattern(Pattern p, int blocks, const char* trace) {
  if (blocks < 2 || blocks > 64) throw std::invalid_argument("--blocks must be in 2..64");
  PatternResult r;
  DeviceArray<int> a(blocks, synclab::lab::zeroed), b(blocks, synclab::lab::zeroed), c(blocks, synclab::lab::zeroed);
  DeviceArray<unsigned> u(1, synclab::lab::zeroed);
  TraceScope scope(trace);
  switch (p) {
    case Pattern::last_block:
      if (trace) synclab_region(a.ptr, a.bytes(), "partial", "array", blocks);
      last_block<<<blocks, 1>>>(a.ptr, u.ptr, c.ptr);
      finish_launch(r.reports);
      r.values = {c.download()[0], int(u.download()[0])};
      break;
    case Pattern::look_back:
      if (trace) {
        synclab_region(a.ptr, a.bytes(), "sum", "array", blocks);
        synclab_region(b.ptr, b.bytes(), "flag", "flags", blocks);
      }
      look_back<<<blocks, 1>>>(a.ptr, b.ptr);
      finish_launch(r.reports);
      r.values = a.download();
      break;
    case Pattern::barrier:
      if (trace) synclab_region(a.ptr, a.bytes(), "slot", "array", blocks);
      barrier_exchange<<<blocks, 1>>>(a.ptr, u.ptr, c.ptr);
      finish_launch(r.reports);
      r.values = c.download();
      break;
    case Pattern::queue:
      if (trace) {
        synclab_region(a.ptr, a.bytes(), "items", "array", blocks);
        synclab_region(b.ptr, sizeof(int), "tail", "array", 1);
      }
      queue_pass<<<2, 1>>>(a.ptr, blocks, b.ptr, c.ptr);
      finish_launch(r.reports);
      r.values = c.download();
      break;
  }
  return r;
}

}  // namespace lab10
