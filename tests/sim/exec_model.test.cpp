// The execution model: warp models, schedulers, barriers, warp synchronization, progress
// reports, faults. Kernels are in kernels/exec_kernels.cu, compiled to PTX by the build.
#include <synclab/catch.h>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <synclab/trace_reader.h>

#include "sim/exec/simulator.h"

using namespace synclab::sim;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Line of the CUDA source marked "LINE:<tag>".
uint32_t line_of(const std::string& tag) {
  std::istringstream in(read_file(SYNCLAB_EXEC_KERNELS_CU));
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n)
    if (line.find("LINE:" + tag) != std::string::npos) return n;
  FAIL("no line tagged " << tag);
  return 0;
}

struct Kit {
  Simulator& sim = Simulator::instance();
  int mod = -1;
  Kit() {
    static int loaded = Simulator::instance().load_module(read_file(SYNCLAB_EXEC_KERNELS_PTX), "exec_kernels.ptx");
    mod = loaded;
    sim.config() = Config{};
    sim.config().quiet = true;
    for (const char* v : {"lockw", "counter", "flag", "arrived"}) std::memset(var(v), 0, 4);
  }
  int* var(const char* name) {
    uint64_t a = sim.symbol_address(mod, name);
    REQUIRE(a != 0);
    return reinterpret_cast<int*>(a);
  }
  int kernel(const std::string& name) {
    const auto& M = sim.module(mod);
    const std::string key = std::to_string(name.size()) + name;
    for (size_t i = 0; i < M.functions.size(); ++i)
      if (M.functions[i].is_entry && M.functions[i].name.find(key) != std::string::npos) return static_cast<int>(i);
    FAIL("no kernel " << name);
    return -1;
  }
  template <class T>
  T* array(size_t n) {
    return static_cast<T*>(sim.memory().allocate(n * sizeof(T), AllocKind::Device, "test array"));
  }
  LaunchResult launch(const std::string& name, Dim3 grid, Dim3 block, std::vector<uint64_t> args = {}) {
    LaunchParams p;
    p.module = mod;
    p.function = kernel(name);
    p.grid = grid;
    p.block = block;
    const auto& M = sim.module(mod);
    const auto& F = M.functions[p.function];
    p.params.assign(F.param_bytes, 0);
    for (size_t i = 0; i < args.size() && i < F.params.size(); ++i) {
      const auto& s = M.symbols[F.params[i]];
      std::memcpy(p.params.data() + s.offset, &args[i], s.size);
    }
    return sim.launch(p);
  }
};

uint64_t ptr(const void* p) { return reinterpret_cast<uint64_t>(p); }

}  // namespace

TEST_CASE("the naive lock deadlocks under lockstep and names the spin line", "[exec][lockstep]") {
  Kit k;
  for (bool taken_first : {true, false}) {
    k.sim.config().model = WarpModel::Lockstep;
    k.sim.config().lockstep_taken_first = taken_first;
    *k.var("lockw") = 0;
    LaunchResult r = k.launch("naive_lock", {1, 1, 1}, {8, 1, 1});
    REQUIRE(r.status == LaunchStatus::Deadlock);
    REQUIRE(r.reports.size() == 1);
    CHECK(r.reports[0].kind == ReportKind::Deadlock);
    CHECK(r.reports[0].where.line == line_of("naive_spin"));
    CHECK(r.reports[0].details.find("lanes 1-7 spin") != std::string::npos);
    CHECK(r.reports[0].details.find("lane 0 waits at the reconvergence point") != std::string::npos);
    CHECK(r.reports[0].details.find("lockw") != std::string::npos);
  }
}

TEST_CASE("the naive lock completes under independent thread scheduling", "[exec][its]") {
  Kit k;
  LaunchResult r = k.launch("naive_lock", {1, 1, 1}, {32, 1, 1});
  REQUIRE(r.status == LaunchStatus::Success);
  CHECK(*k.var("counter") == 32);
  CHECK(*k.var("lockw") == 0);
}

TEST_CASE("the fixed lock completes under both models and every scheduler", "[exec]") {
  Kit k;
  for (WarpModel m : {WarpModel::Lockstep, WarpModel::Its}) {
    for (SchedPolicy s : {SchedPolicy::RoundRobin, SchedPolicy::Random, SchedPolicy::Pct}) {
      for (uint64_t seed : {1, 2, 3}) {
        k.sim.config().model = m;
        k.sim.config().sched = s;
        k.sim.config().seed = seed;
        *k.var("counter") = 0;
        LaunchResult r = k.launch("fixed_lock", {3, 1, 1}, {40, 1, 1});
        INFO(model_name(m) << " " << sched_name(s) << " seed " << seed << ": " << r.message);
        REQUIRE(r.status == LaunchStatus::Success);
        CHECK(*k.var("counter") == 120);
      }
    }
  }
}

TEST_CASE("schedulers are deterministic per seed and explore both outcomes of a race", "[exec][sched]") {
  Kit k;
  int* x = k.array<int>(1);
  for (SchedPolicy s : {SchedPolicy::Random, SchedPolicy::Pct}) {
    std::set<int> outcomes;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
      k.sim.config().sched = s;
      k.sim.config().seed = seed;
      *x = 0;
      REQUIRE(k.launch("racy_increment", {2, 1, 1}, {1, 1, 1}, {ptr(x)}).status == LaunchStatus::Success);
      const int first = *x;
      *x = 0;
      REQUIRE(k.launch("racy_increment", {2, 1, 1}, {1, 1, 1}, {ptr(x)}).status == LaunchStatus::Success);
      CHECK(*x == first);  // the same seed replays the same interleaving
      outcomes.insert(first);
    }
    INFO(sched_name(s));
    CHECK(outcomes == std::set<int>{1, 2});  // the lost update and the serial result
  }
}

TEST_CASE("one warp's converged lanes load before any of them stores", "[exec]") {
  Kit k;
  int* x = k.array<int>(1);
  for (WarpModel m : {WarpModel::Lockstep, WarpModel::Its}) {
    k.sim.config().model = m;
    *x = 0;
    REQUIRE(k.launch("racy_increment", {1, 1, 1}, {2, 1, 1}, {ptr(x)}).status == LaunchStatus::Success);
    CHECK(*x == 1);
  }
}

TEST_CASE("a counting global barrier hangs when blocks exceed residency, completes otherwise", "[exec][residency]") {
  Kit k;
  const DeviceProfile& prof = k.sim.profile();
  const uint32_t resident = prof.sm_count * prof.max_ctas_per_sm;  // small blocks: the CTA limit binds
  int* out = k.array<int>(64);
  *k.var("arrived") = 0;
  LaunchResult ok = k.launch("count_barrier", {resident, 1, 1}, {32, 1, 1}, {ptr(out)});
  REQUIRE(ok.status == LaunchStatus::Success);
  for (uint32_t b = 0; b < resident; ++b) CHECK(out[b] == 1);

  *k.var("arrived") = 0;
  LaunchResult r = k.launch("count_barrier", {resident + 1, 1, 1}, {32, 1, 1}, {ptr(out)});
  REQUIRE(r.status == LaunchStatus::Hang);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].where.line == line_of("count_barrier_spin"));
  CHECK(r.reports[0].details.find("1 more block(s) wait for a free SM slot") != std::string::npos);
  CHECK(r.reports[0].details.find("arrived") != std::string::npos);
}

TEST_CASE("a spin on a flag nobody sets is a hang, long computation is not", "[exec][progress]") {
  Kit k;
  k.sim.config().budget = 50'000'000;
  LaunchResult r = k.launch("wait_forever", {1, 1, 1}, {4, 1, 1});
  REQUIRE(r.status == LaunchStatus::Hang);
  CHECK(r.reports[0].where.line == line_of("wait_forever"));
  CHECK(r.reports[0].details.find("flag") != std::string::npos);
  CHECK(r.warp_steps < 1'000'000);  // found by the detector, not by the budget

  unsigned* out = k.array<unsigned>(32);
  const int iters = 40000;  // ~200k warp-steps without a store: longer than the quiet window
  LaunchResult c = k.launch("long_compute", {1, 1, 1}, {32, 1, 1}, {ptr(out), uint64_t(iters)});
  REQUIRE(c.status == LaunchStatus::Success);
  for (unsigned t = 0; t < 32; ++t) {
    unsigned x = t + 1;
    for (int i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
    CHECK(out[t] == x);
  }
}

TEST_CASE("a loop that never repeats its state runs into the step budget", "[exec][progress]") {
  Kit k;
  k.sim.config().budget = 200'000;
  unsigned* out = k.array<unsigned>(1);
  LaunchResult r = k.launch("count_forever", {1, 1, 1}, {1, 1, 1}, {ptr(out)});
  REQUIRE(r.status == LaunchStatus::BudgetExhausted);
  CHECK(r.warp_steps == 200'000);
}

TEST_CASE("an out-of-bounds store is a fault at its line, naming the allocation", "[exec][fault]") {
  Kit k;
  int* a = k.array<int>(16);
  LaunchResult r = k.launch("out_of_bounds", {1, 1, 1}, {4, 1, 1}, {ptr(a), 16});
  REQUIRE(r.status == LaunchStatus::Fault);
  CHECK(r.reports[0].kind == ReportKind::Fault);
  CHECK(r.reports[0].where.line == line_of("oob_store"));
  CHECK(r.reports[0].details.find("runs past the end of test array") != std::string::npos);
}

TEST_CASE("threads blocked at barriers that can never fill are a deadlock", "[exec][progress]") {
  Kit k;
  for (WarpModel m : {WarpModel::Lockstep, WarpModel::Its}) {
    k.sim.config().model = m;
    LaunchResult r = k.launch("crossed_barriers", {1, 1, 1}, {64, 1, 1});
    REQUIRE(r.status == LaunchStatus::Deadlock);
    CHECK(r.reports[0].details.find("waiting at barrier 1 (32 of 64 threads arrived)") != std::string::npos);
    CHECK(r.reports[0].details.find("waiting at barrier 2 (32 of 64 threads arrived)") != std::string::npos);
  }
}

TEST_CASE("barrier reductions count, and, or over the whole block", "[exec][barrier]") {
  Kit k;
  int* out = k.array<int>(3);
  for (uint32_t n : {1u, 33u, 96u, 256u}) {
    REQUIRE(k.launch("barrier_reductions", {1, 1, 1}, {n, 1, 1}, {ptr(out)}).status == LaunchStatus::Success);
    CHECK(out[0] == int((n + 2) / 3));
    CHECK(out[1] == 1);
    CHECK(out[2] == (n > 17 ? 1 : 0));
  }
}

TEST_CASE("half-warp shuffles with their own member masks under both models", "[exec][warp]") {
  Kit k;
  int* out = k.array<int>(32);
  for (WarpModel m : {WarpModel::Lockstep, WarpModel::Its}) {
    k.sim.config().model = m;
    REQUIRE(k.launch("half_warp_shuffles", {1, 1, 1}, {32, 1, 1}, {ptr(out)}).status == LaunchStatus::Success);
    for (int lane = 0; lane < 32; ++lane) {
      // Width 16: shfl_down within lanes 0-15 (the last lane keeps its value); shfl_up within
      // 16-31 (the first two keep theirs).
      int expect = lane < 16 ? (lane + 1 < 16 ? (lane + 1) * 10 : lane * 10)
                             : (lane - 2 >= 16 ? (lane - 2) * 10 : lane * 10);
      INFO(model_name(m) << " lane " << lane);
      CHECK(out[lane] == expect);
    }
  }
}

TEST_CASE("recursive device functions", "[exec][call]") {
  Kit k;
  int* out = k.array<int>(64);
  auto fib = [](int n) {
    int a = 0, b = 1;
    for (int i = 0; i < n; ++i) { int t = a + b; a = b; b = t; }
    return a;
  };
  for (WarpModel m : {WarpModel::Lockstep, WarpModel::Its}) {
    k.sim.config().model = m;
    REQUIRE(k.launch("recursion", {1, 1, 1}, {64, 1, 1}, {ptr(out)}).status == LaunchStatus::Success);
    for (int t = 0; t < 64; ++t) CHECK(out[t] == fib(t % 12));
  }
}

TEST_CASE("invalid launch configurations are refused with a reason", "[exec][config]") {
  Kit k;
  int* x = k.array<int>(1);
  LaunchResult z = k.launch("racy_increment", {0, 1, 1}, {1, 1, 1}, {ptr(x)});
  CHECK(z.status == LaunchStatus::InvalidConfiguration);
  CHECK(z.message.find("zero") != std::string::npos);
  LaunchResult big = k.launch("racy_increment", {1, 1, 1}, {2048, 1, 1}, {ptr(x)});
  CHECK(big.status == LaunchStatus::InvalidConfiguration);
  CHECK(big.message.find("2048 threads") != std::string::npos);
}

TEST_CASE("a traced run executes what an untraced one does, and the trace holds every access", "[exec][trace]") {
  Kit k;
  constexpr int kThreads = 64;
  int* a = k.array<int>(kThreads);
  int* counts = k.array<int>(4);
  // Written by the host below (as cudaMemcpy would mark them): no uninitialized reads to report.
  k.sim.memory().mark_initialized(ptr(a), kThreads * sizeof(int));
  k.sim.memory().mark_initialized(ptr(counts), 4 * sizeof(int));
  const std::string path = "exec_model_observer.trace";
  for (WarpModel m : {WarpModel::Lockstep, WarpModel::Its}) {
    INFO(model_name(m));
    LaunchResult runs[2];
    for (int traced = 0; traced < 2; ++traced) {
      k.sim.config() = Config{};
      k.sim.config().quiet = true;
      k.sim.config().model = m;
      if (traced) k.sim.config().trace_path = path;
      for (int i = 0; i < kThreads; ++i) a[i] = i;
      std::memset(counts, 0, 4 * sizeof(int));
      runs[traced] = k.launch("per_lane_rows", {1, 1, 1}, {kThreads, 1, 1}, {ptr(a), ptr(counts)});
      REQUIRE(runs[traced].status == LaunchStatus::Success);
      for (int i = 0; i < kThreads; ++i) CHECK(a[i] == 3 * i);
      for (int c = 0; c < 4; ++c) CHECK(counts[c] == kThreads / 4);
    }
    k.sim.close_trace();
    // The same steps and the same instructions: the observer watched, it did not steer.
    CHECK(runs[1].warp_steps == runs[0].warp_steps);
    CHECK(runs[1].thread_instructions == runs[0].thread_instructions);
    CHECK(runs[0].reports.empty());
    CHECK(runs[1].reports.empty());
    // Every lane's load, store and atomic is in the trace, after its warp's step.
    std::string err;
    std::unique_ptr<synclab::trace::Trace> t = synclab::trace::load(path, &err);
    REQUIRE(t);
    size_t loads = 0, stores = 0, atomics = 0, accesses_before_a_step = 0;
    std::set<uint32_t> stepped;  // warps that have had a WarpStep so far
    for (size_t i = 0; i < t->event_count(); ++i) {
      const synclab::trace::Event& e = t->event(i);
      const auto kind = synclab::trace::EventKind(e.kind);
      if (kind == synclab::trace::EventKind::WarpStep) stepped.insert(e.warp);
      const bool access = kind == synclab::trace::EventKind::MemAccess || kind == synclab::trace::EventKind::Atomic;
      if (access && !stepped.count(e.warp)) ++accesses_before_a_step;
      if (kind == synclab::trace::EventKind::MemAccess) ++((e.aux & synclab::trace::kAuxWrite) ? stores : loads);
      if (kind == synclab::trace::EventKind::Atomic) ++atomics;
    }
    CHECK(loads == kThreads);
    CHECK(stores == kThreads);
    CHECK(atomics == kThreads);
    CHECK(accesses_before_a_step == 0);
  }
  std::remove(path.c_str());
}
