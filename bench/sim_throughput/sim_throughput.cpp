// bench/sim_throughput: how many thread-instructions per second the simulator executes on one
// host thread, with the checkers off, for three kernels typical of the labs (kernels.cu).
// Each kernel's result is checked against a host reference before its time counts.
//
//   build/bin/sim_throughput [--model its|lockstep] [--memory sc|relaxed] [--checks none|LIST] [--repeat N] [--json
//   FILE]
//                            [--only NAME] [--clock wall|cpu]
//
// --clock cpu times each launch by the CPU time of the launching thread (the simulator runs the
// kernel on it) instead of wall time: steadier on a shared machine, for before/after comparisons.
//
// Prints a table; --json writes the numbers for bench/results/.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/exec/simulator.h"

using namespace synclab::sim;

namespace {

bool g_cpu_clock = false;

double now_seconds() {
  if (g_cpu_clock) {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Row {
  std::string kernel;
  std::string shape;
  uint64_t thread_instructions = 0;
  uint64_t warp_steps = 0;
  double seconds = 0;
  bool correct = false;
};

template <class T>
T* device_array(size_t n, const char* name) {
  // The host fills these arrays directly, so they count as written (initcheck).
  void* p = Simulator::instance().memory().allocate(n * sizeof(T), AllocKind::Device, name);
  if (p) Simulator::instance().memory().mark_initialized(reinterpret_cast<uint64_t>(p), n * sizeof(T));
  return static_cast<T*>(p);
}

void put(std::vector<uint8_t>& params, size_t offset, const void* p, size_t n) {
  if (params.size() < offset + n) params.resize(offset + n);
  std::memcpy(params.data() + offset, p, n);
}

// Packs arguments at the offsets the PTX entry declares.
std::vector<uint8_t> pack(int module, int fn, const std::vector<std::pair<const void*, size_t>>& args) {
  const auto& M = Simulator::instance().module(module);
  const auto& F = M.functions[fn];
  std::vector<uint8_t> params(F.param_bytes, 0);
  for (size_t i = 0; i < args.size() && i < F.params.size(); ++i)
    put(params, M.symbols[F.params[i]].offset, args[i].first, args[i].second);
  return params;
}

Row timed(int module, const char* name, Dim3 grid, Dim3 block, std::vector<uint8_t> params, int repeat,
          const std::function<void()>& reset, const std::function<bool()>& check) {
  Simulator& sim = Simulator::instance();
  Row row;
  row.kernel = name;
  row.shape = fmt::format("<<<{}, {}>>>", grid.x, block.x);
  LaunchParams p;
  p.module = module;
  p.function = sim.find_function(module, name);
  p.grid = grid;
  p.block = block;
  p.params = std::move(params);
  std::vector<double> times;
  bool ok = true;
  for (int r = 0; r < repeat; ++r) {
    reset();
    const double t0 = now_seconds();
    LaunchResult res = sim.launch(p);
    const double s = now_seconds() - t0;
    if (res.status != LaunchStatus::Success) {
      std::fprintf(stderr, "%s: launch failed: %s\n", name, res.message.c_str());
      ok = false;
      break;
    }
    ok = ok && check();
    times.push_back(s);
    row.thread_instructions = res.thread_instructions;
    row.warp_steps = res.warp_steps;
  }
  std::sort(times.begin(), times.end());
  row.seconds = times.empty() ? 0 : times[times.size() / 2];
  row.correct = ok;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  std::string ptx_path = SIM_BENCH_PTX, json_path, model = "its", memory = "sc", checks = "none", only;
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--ptx")
      ptx_path = next();
    else if (a == "--json")
      json_path = next();
    else if (a == "--model")
      model = next();
    else if (a == "--memory")
      memory = next();
    else if (a == "--checks")
      checks = next();
    else if (a == "--only")
      only = next();
    else if (a == "--clock") {
      const std::string c = next();
      if (c != "wall" && c != "cpu") {
        std::fprintf(stderr, "--clock must be wall or cpu\n");
        return 2;
      }
      g_cpu_clock = c == "cpu";
    } else if (a == "--repeat")
      repeat = std::max(1, std::atoi(next().c_str()));
    else if (a == "--help" || a == "-h") {
      std::puts(
          "usage: sim_throughput [--model its|lockstep] [--memory sc|relaxed] [--checks none|all|race,...] [--repeat "
          "N] [--json FILE] "
          "[--ptx FILE] [--only reduce_tree|scan_hillis|lock_counter] [--clock wall|cpu]");
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument %s (try --help)\n", a.c_str());
      return 2;
    }
  }
  Simulator& sim = Simulator::instance();
  if (!parse_memory(memory, &sim.config().memory)) {
    std::fprintf(stderr, "--memory must be sc or relaxed\n");
    return 2;
  }
  if (!parse_model(model, &sim.config().model)) {
    std::fprintf(stderr, "--model must be its or lockstep\n");
    return 2;
  }
  if (checks == "none") {
    sim.config().checks = false;
  } else {
    if (std::string why = check_list_problem(checks); !why.empty()) {
      std::fprintf(stderr, "--checks: %s\n", why.c_str());
      return 2;
    }
    sim.config().checks = true;
    sim.config().check_list = checks;
  }
  sim.config().sched = SchedPolicy::RoundRobin;
  std::ifstream f(ptx_path);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", ptx_path.c_str());
    return 2;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  const int mod = sim.load_module(ss.str(), ptx_path);
  std::vector<Row> rows;
  // --only NAME: time just the kernels whose name contains NAME (for profiling one of them).
  auto wanted = [&](const char* name) { return only.empty() || std::strstr(name, only.c_str()) != nullptr; };

  if (wanted("reduce_tree")) {  // 2^22-element reduction
    const int n = 1 << 22;
    int* in = device_array<int>(n, "in");
    auto* out = device_array<unsigned long long>(1, "out");
    unsigned long long ref = 0;
    for (int i = 0; i < n; ++i) {
      in[i] = static_cast<int>((static_cast<int64_t>(i) * 7919) % 1000) - 500;
      ref += static_cast<unsigned long long>(static_cast<long long>(in[i]));
    }
    uint64_t pin = reinterpret_cast<uint64_t>(in), pout = reinterpret_cast<uint64_t>(out);
    int fn = sim.find_function(mod, "_Z11reduce_treePKiPyi");
    rows.push_back(timed(
        mod, "_Z11reduce_treePKiPyi", {256, 1, 1}, {256, 1, 1}, pack(mod, fn, {{&pin, 8}, {&pout, 8}, {&n, 4}}), repeat,
        [&] { *out = 0; }, [&] { return *out == ref; }));
    rows.back().kernel = "reduce_tree (2^22 ints)";
  }
  if (wanted("scan_hillis")) {  // Hillis-Steele scan of 2^18 elements in blocks of 1024
    const int n = 1 << 18;
    int* in = device_array<int>(n, "in");
    int* out = device_array<int>(n, "out");
    for (int i = 0; i < n; ++i) in[i] = (i % 13) - 6;
    uint64_t pin = reinterpret_cast<uint64_t>(in), pout = reinterpret_cast<uint64_t>(out);
    int fn = sim.find_function(mod, "_Z11scan_hillisPKiPii");
    rows.push_back(timed(
        mod, "_Z11scan_hillisPKiPii", {n / 1024, 1, 1}, {1024, 1, 1}, pack(mod, fn, {{&pin, 8}, {&pout, 8}, {&n, 4}}),
        repeat, [&] { std::memset(out, 0, n * sizeof(int)); },
        [&] {
          for (int b = 0; b < n; b += 1024) {
            int run = 0;
            for (int i = b; i < b + 1024; ++i) {
              run += in[i];
              if (out[i] != run) return false;
            }
          }
          return true;
        }));
    rows.back().kernel = "scan_hillis (2^18 ints, blocks of 1024)";
  }
  if (wanted("lock_counter")) {  // contended global lock
    int* lock = device_array<int>(1, "lock");
    int* counter = device_array<int>(1, "counter");
    const int rounds = 4;
    const Dim3 grid{8, 1, 1}, block{128, 1, 1};
    uint64_t pl = reinterpret_cast<uint64_t>(lock), pc = reinterpret_cast<uint64_t>(counter);
    int fn = sim.find_function(mod, "_Z12lock_counterPiS_i");
    rows.push_back(timed(
        mod, "_Z12lock_counterPiS_i", grid, block, pack(mod, fn, {{&pl, 8}, {&pc, 8}, {&rounds, 4}}), repeat,
        [&] {
          *lock = 0;
          *counter = 0;
        },
        [&] { return *counter == int(grid.x * block.x) * rounds && *lock == 0; }));
    rows.back().kernel = "lock_counter (1024 threads x 4 critical sections)";
  }

  std::printf("simulator throughput, model %s, memory %s, scheduler rr, device %s, checks %s, median of %d%s\n",
              model.c_str(), memory.c_str(), sim.profile().name.c_str(), checks.c_str(), repeat,
              g_cpu_clock ? " (thread CPU time)" : "");
  std::printf("%-52s %-14s %14s %12s %10s %14s %8s\n", "kernel", "launch", "thread-instr", "warp-steps", "seconds",
              "thr-instr/s", "check");
  bool all_ok = true;
  for (const Row& r : rows) {
    std::printf("%-52s %-14s %14llu %12llu %10.3f %14.3e %8s\n", r.kernel.c_str(), r.shape.c_str(),
                static_cast<unsigned long long>(r.thread_instructions), static_cast<unsigned long long>(r.warp_steps),
                r.seconds, r.seconds > 0 ? r.thread_instructions / r.seconds : 0.0, r.correct ? "ok" : "WRONG");
    all_ok = all_ok && r.correct;
  }
  if (!json_path.empty()) {
    std::ofstream j(json_path);
    j << "{\n  \"model\": \"" << model << "\",\n  \"memory\": \"" << memory << "\",\n  \"checks\": \"" << checks
      << "\",\n  \"device_profile\": \"" << sim.profile().name << "\",\n  \"clock\": \""
      << (g_cpu_clock ? "cpu" : "wall") << "\",\n  \"repeat\": " << repeat << ",\n  \"kernels\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      j << fmt::format(
          "    {{\"kernel\": \"{}\", \"launch\": \"{}\", \"thread_instructions\": {}, \"warp_steps\": {}, "
          "\"seconds\": {:.4f}, \"thread_instructions_per_second\": {:.4e}, \"correct\": {}}}{}\n",
          r.kernel, r.shape, r.thread_instructions, r.warp_steps, r.seconds,
          r.seconds > 0 ? r.thread_instructions / r.seconds : 0.0, r.correct ? "true" : "false",
          i + 1 < rows.size() ? "," : "");
    }
    j << "  ]\n}\n";
  }
  return all_ok ? 0 : 1;
}
