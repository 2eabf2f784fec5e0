// Lab 01 (data races): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab01 increment  [--kernel racy|fixed] [--blocks B --threads T] [--show any|bad|good|N --trace FILE]
//   lab01 increment-fixed [--blocks B --threads T]
//   lab01 histogram  [--kernel racy|atomic|privatized] [--marks N --blocks B --threads T --data-seed S]
//                    [--show lost|any|bad|good --trace FILE]
//   lab01 sssp       [--kernel racy|atomic] [--round] [--nodes N --blocks B --threads T --data-seed S]
//                    [--show any|bad|good|wrong --trace FILE]
//   lab01 all        every task's check
//   (and the exploration options of synclab_lab.h: --seeds N, --model M, --sched P, --seed S, ...)
//
// Without shape options a command runs the launch shapes and inputs of the task's graded tests,
// over the same schedules (rr, pct and random seeds, both warp models); on a GPU it repeats the
// run. Every failure names the command that replays it. --trace records one run for synclab-viz:
// the first explored run that --show names (synclab_lab.h).
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lab01.h"
#include "synclab_lab.h"
#include "lab01_kernels.cuh"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

// The command that replays one run of this program.
std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab01", args, s); }

using synclab::lab::shape_args;

std::string set_text(const std::set<int>& s) {
  std::string t = "{";
  for (int v : s) t += (t.size() > 1 ? ", " : "") + std::to_string(v);
  return t + "}";
}

// A distance for a message: kInfinity is "unreachable".
std::string dist_text(unsigned d) { return d == lab01::kInfinity ? "unreachable" : std::to_string(d); }

using synclab::lab::print_reports;

using synclab::lab::TraceChoice;

// ---- increment ----------------------------------------------------------------------------------
// Graded: 1a explores 12 seeds, 1b 6 seeds: 12 covers both.
constexpr int kIncrementSeeds = 12;

bool increment_shape(const Args& a, lab01::IncrementKernel kernel, int blocks, int threads) {
  std::vector<Schedule> ss = synclab::lab::schedules(synclab::lab::exploration_from(a, kIncrementSeeds));
  const bool racy = kernel == lab01::IncrementKernel::racy;
  const std::string args = std::string("increment --kernel ") + (racy ? "racy " : "fixed ") + shape_args(blocks, threads);
  std::set<int> seen;
  std::map<int, std::string> first_with;  // final value -> the first run that ended with it
  std::vector<Report> reports;
  std::string first_report;
  // --show N: the first run that ended with x[0] == N; bad: one that lost an update (the fixed
  // kernel: or was reported).
  const TraceChoice trace(a, "any", {"N"});
  for (const Schedule& s : ss) {
    lab01::IncrementResult r = synclab::lab::run_under(s, [&] {
      return lab01::run_increment(kernel, blocks, threads);
    });
    if (seen.insert(r.value).second) first_with[r.value] = replay(args, s);
    if (!r.reports.empty() && first_report.empty()) first_report = replay(args, s);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    if (trace.wants(r.value != blocks * threads || (!racy && !r.reports.empty()), std::to_string(r.value))) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab01::run_increment(kernel, blocks, threads, trace.file().c_str());
    }
  }
  std::printf("%s<<<%d, %d>>>: x[0] starts at 0; over %s the final values were %s\n",
              racy ? "increment_racy" : "increment_fixed", blocks, threads, synclab::lab::describe(ss).c_str(),
              set_text(seen).c_str());
  for (const auto& [value, cmd] : first_with) std::printf("  %d, first in: %s\n", value, cmd.c_str());
  if (!reports.empty()) {
    std::printf("  the simulator reported (first in: %s):\n", first_report.c_str());
    print_reports(reports);
  }
  if (racy) {
    std::vector<int> p = lab01::predicted_final_values(blocks, threads);
    std::set<int> predicted(p.begin(), p.end());
    if (predicted.empty()) {
      std::printf("  your prediction (predicted_final_values in increment.cu): none yet (TODO 1a)\n");
      return false;
    }
    std::printf("  your prediction: %s -> %s\n", set_text(predicted).c_str(),
                predicted == seen ? "matches" : "does not match what exploration found");
    return predicted == seen;
  }
  const int want = blocks * threads;
  bool ok = seen == std::set<int>{want} && reports.empty();
  if (seen != std::set<int>{want}) std::printf("  expected always %d: every thread adds 1\n", want);
  if (!reports.empty()) std::printf("  expected no reports: the race must be gone, not merely unlucky\n");
  return ok;
}

// The graded shapes: 1a <<<2,1>>> and <<<1,2>>> (with a student id, the student's own two:
// lab01::task1a_launches); 1b <<<2,1>>>, <<<1,2>>> and <<<3,40>>>.
bool increment_shapes(const Args& a, lab01::IncrementKernel kernel) {
  if (a.has("blocks") || a.has("threads"))
    return increment_shape(a, kernel, int(a.num("blocks", 1)), int(a.num("threads", 1)));
  if (kernel == lab01::IncrementKernel::fixed)
    return increment_shape(a, kernel, 2, 1) & increment_shape(a, kernel, 1, 2) & increment_shape(a, kernel, 3, 40);
  const std::vector<lab01::Launch> launches = lab01::task1a_launches(synclab::lab::student_id());
  auto launch = [](const lab01::Launch& l) {
    return "<<<" + std::to_string(l.blocks) + ", " + std::to_string(l.threads) + ">>>";
  };
  synclab::lab::print_graded_cases("task 1a is graded with " + launch(launches[0]) + " and " + launch(launches[1]),
                                   "two launches");
  bool ok = true;
  for (const lab01::Launch& l : launches) ok &= increment_shape(a, kernel, l.blocks, l.threads);
  return ok;
}

bool cmd_increment(const Args& a) {
  std::string k = a.get("kernel", "racy");
  if (k != "racy" && k != "fixed") throw std::invalid_argument("--kernel is racy or fixed, not '" + k + "'");
  return increment_shapes(a, k == "racy" ? lab01::IncrementKernel::racy : lab01::IncrementKernel::fixed);
}

bool cmd_increment_fixed(const Args& a) { return increment_shapes(a, lab01::IncrementKernel::fixed); }

// ---- histogram ----------------------------------------------------------------------------------
struct HistogramShape {
  int marks, blocks, threads, seeds;
};

bool histogram_shape(const Args& a, lab01::HistogramKernel kernel, const HistogramShape& sh) {
  const int n = sh.marks, blocks = sh.blocks, threads = sh.threads;
  const uint32_t data_seed = uint32_t(a.num("data-seed", lab01::marks_seed(n, blocks)));
  std::vector<int> marks = lab01::class_marks(n, data_seed);
  std::vector<unsigned> want(lab01::kGrades, 0);
  for (int m : marks) want[lab01::grade_of(m)]++;
  std::vector<Schedule> ss = synclab::lab::schedules(synclab::lab::exploration_from(a, sh.seeds));
  std::string args = std::string("histogram --kernel ") + lab01::name(kernel) + " --marks " + std::to_string(n) + " " +
                     shape_args(blocks, threads);
  if (a.has("data-seed")) args += " --data-seed " + std::to_string(data_seed);
  // lost: a run that counted fewer marks than there are; bad: any wrong count or a report.
  const TraceChoice trace(a, "lost", {"lost"});
  int wrong_runs = 0, zero_runs = 0;
  long long worst_lost = 0;
  std::string worst_replay, first_report;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    lab01::HistogramResult r = synclab::lab::run_under(s, [&] {
      return lab01::run_histogram(kernel, marks, blocks, threads);
    });
    if (!r.reports.empty() && first_report.empty()) first_report = replay(args, s);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    long long counted = 0;
    for (unsigned b : r.bins) counted += b;
    if (r.bins != want) {
      ++wrong_runs;
      zero_runs += counted == 0;
      if (n - counted > worst_lost || worst_replay.empty()) {
        worst_lost = n - counted;
        worst_replay = replay(args, s);
      }
    }
    if (trace.wants(r.bins != want || !r.reports.empty(), counted < n ? "lost" : "")) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab01::run_histogram(kernel, marks, blocks, threads, trace.file().c_str());
    }
  }
  std::printf("histogram_%s<<<%d, %d>>> over %d marks, %s:\n", lab01::name(kernel), blocks, threads, n,
              synclab::lab::describe(ss).c_str());
  std::printf("  expected (host):");
  for (int g = 0; g < lab01::kGrades; ++g) std::printf(" %s=%u", lab01::kGradeNames[g], want[g]);
  std::printf("\n");
  if (n > 0 && zero_runs == int(ss.size()))
    std::printf("  every run left every count at 0: the kernel counted nothing (is its TODO done?)\n");
  else if (wrong_runs)
    std::printf("  wrong counts in %d of %zu runs; worst: %lld marks lost (negative: counted twice), in:\n    %s\n",
                wrong_runs, ss.size(), worst_lost, worst_replay.c_str());
  else
    std::printf("  every run counted right\n");
  if (!reports.empty()) {
    std::printf("  the simulator reported (first in: %s):\n", first_report.c_str());
    print_reports(reports);
  }
  return wrong_runs == 0 && reports.empty();
}

bool histogram_kernel(const Args& a, lab01::HistogramKernel kernel) {
  if (a.has("marks") || a.has("blocks") || a.has("threads") || a.has("data-seed"))
    return histogram_shape(a, kernel, {int(a.num("marks", 80)), int(a.num("blocks", 2)), int(a.num("threads", 32)), 6});
  // The graded shapes (the histogram tests of tasks 2a and 2b); blocks of several warps
  // included, where a missing __syncthreads() races between warps.
  std::vector<HistogramShape> shapes;
  switch (kernel) {
    case lab01::HistogramKernel::racy: shapes = {{80, 2, 32, 6}}; break;
    case lab01::HistogramKernel::atomic: shapes = {{80, 2, 32, 6}, {1000, 4, 64, 2}}; break;
    case lab01::HistogramKernel::privatized: shapes = {{80, 2, 32, 6}, {80, 3, 4, 3}, {500, 2, 128, 2}}; break;
  }
  bool ok = true;
  for (const HistogramShape& sh : shapes) ok &= histogram_shape(a, kernel, sh);
  if (kernel == lab01::HistogramKernel::privatized)
    std::printf("(not checked here: the grader also counts histogram_privatized's global atomics on the simulator,\n"
                " at most 7 per block; a kernel that counts every mark with a global atomic passes here, not there)\n");
  return ok;
}

bool cmd_histogram(const Args& a) {
  if (!a.has("kernel"))
    return histogram_kernel(a, lab01::HistogramKernel::atomic) & histogram_kernel(a, lab01::HistogramKernel::privatized);
  std::string k = a.get("kernel", "");
  if (k == "racy") return histogram_kernel(a, lab01::HistogramKernel::racy);
  if (k == "atomic") return histogram_kernel(a, lab01::HistogramKernel::atomic);
  if (k == "privatized") return histogram_kernel(a, lab01::HistogramKernel::privatized);
  throw std::invalid_argument("--kernel is racy, atomic or privatized, not '" + k + "'");
}

// ---- sssp ---------------------------------------------------------------------------------------
// Bellman-Ford on the host: shortest distances from the source.
std::vector<unsigned> host_distances(const lab01::Graph& g, int source) {
  std::vector<unsigned> d(g.nodes, lab01::kInfinity);
  d[source] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int u = 0; u < g.nodes; ++u)
      if (d[u] != lab01::kInfinity)
        for (int e = g.row_start[u]; e < g.row_start[u + 1]; ++e)
          if (d[u] + g.weight[e] < d[g.neighbour[e]]) {
            d[g.neighbour[e]] = d[u] + g.weight[e];
            changed = true;
          }
  }
  return d;
}

// One relaxation round on the host, from `in`.
std::vector<unsigned> host_round(const lab01::Graph& g, const std::vector<unsigned>& in) {
  std::vector<unsigned> out = in;
  for (int u = 0; u < g.nodes; ++u)
    if (in[u] != lab01::kInfinity)
      for (int e = g.row_start[u]; e < g.row_start[u + 1]; ++e)
        if (in[u] + g.weight[e] < out[g.neighbour[e]]) out[g.neighbour[e]] = in[u] + g.weight[e];
  return out;
}

struct SsspShape {
  bool round;  // one round from half_known(); else SSSP from node 0
  int nodes, data_seed, blocks, threads, seeds;
};

bool sssp_shape(const Args& a, lab01::RelaxKernel kernel, const SsspShape& sh) {
  lab01::Graph g = lab01::hub_graph(sh.nodes, uint32_t(sh.data_seed));
  const std::vector<unsigned> start = lab01::half_known(sh.nodes);
  const std::vector<unsigned> want = sh.round ? host_round(g, start) : host_distances(g, 0);
  std::vector<Schedule> ss = synclab::lab::schedules(synclab::lab::exploration_from(a, sh.seeds));
  const std::string args = std::string("sssp --kernel ") + lab01::name(kernel) + (sh.round ? " --round" : "") +
                           " --nodes " + std::to_string(sh.nodes) + " --data-seed " + std::to_string(sh.data_seed) +
                           " " + shape_args(sh.blocks, sh.threads);
  // wrong: a run whose distances are wrong; bad: that, or a report.
  const TraceChoice trace(a, "any", {"wrong"});
  int wrong_runs = 0;
  std::string first_wrong, first_report;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    lab01::RelaxResult r = synclab::lab::run_under(s, [&] {
      return sh.round ? lab01::run_relax_round(kernel, g, start, sh.blocks, sh.threads)
                      : lab01::run_sssp(kernel, g, 0, sh.blocks, sh.threads);
    });
    if (!r.reports.empty() && first_report.empty()) first_report = replay(args, s);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    const bool wrong = r.dist != want;
    if (wrong && !wrong_runs++) {
      for (int v = 0; v < sh.nodes; ++v)
        if (r.dist[v] != want[v]) {
          first_wrong = "node " + std::to_string(v) + ": got " + dist_text(r.dist[v]) + ", expected " +
                        dist_text(want[v]) + ", in:\n    " + replay(args, s);
          break;
        }
    }
    if (trace.wants(wrong || !r.reports.empty(), wrong ? "wrong" : "")) {
      trace.recording(s);
      synclab::lab::apply(s);
      if (sh.round) lab01::run_relax_round(kernel, g, start, sh.blocks, sh.threads, trace.file().c_str());
      else lab01::run_sssp(kernel, g, 0, sh.blocks, sh.threads, trace.file().c_str());
    }
  }
  std::printf("%s with relax_%s<<<%d, %d>>> on a %d-node graph (data seed %d), %s:\n",
              sh.round ? "one relaxation round" : "sssp from node 0", lab01::name(kernel), sh.blocks, sh.threads,
              sh.nodes, sh.data_seed, synclab::lab::describe(ss).c_str());
  if (wrong_runs) std::printf("  wrong distances in %d runs; first: %s\n", wrong_runs, first_wrong.c_str());
  else std::printf("  every run found the %s\n", sh.round ? "round's distances" : "shortest distances");
  if (!reports.empty()) {
    std::printf("  the simulator reported (first in: %s):\n", first_report.c_str());
    print_reports(reports);
  }
  return wrong_runs == 0 && reports.empty();
}

bool cmd_sssp(const Args& a) {
  std::string k = a.get("kernel", "atomic");
  if (k != "racy" && k != "atomic") throw std::invalid_argument("--kernel is racy or atomic, not '" + k + "'");
  auto kernel = k == "racy" ? lab01::RelaxKernel::racy : lab01::RelaxKernel::atomic;
  // The graded cases: one round on a 96-node graph with <<<2, 64>>> (6 seeds), and SSSP on a
  // 64-node graph with <<<2, 32>>> (3 seeds).
  const SsspShape round{true, 96, 7, 2, 64, 6}, full{false, 64, 3, 2, 32, 3};
  if (a.has("round") || a.has("nodes") || a.has("blocks") || a.has("threads") || a.has("data-seed")) {
    SsspShape sh = a.has("round") ? round : full;
    if (!a.get("round", "").empty()) throw std::invalid_argument("--round takes no value");
    sh.nodes = int(a.num("nodes", sh.nodes));
    sh.data_seed = int(a.num("data-seed", sh.data_seed));
    sh.blocks = int(a.num("blocks", sh.blocks));
    sh.threads = int(a.num("threads", sh.threads));
    if (sh.nodes < 1) throw std::invalid_argument("--nodes needs at least 1");
    return sssp_shape(a, kernel, sh);
  }
  return sssp_shape(a, kernel, round) & sssp_shape(a, kernel, full);
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab01", "Lab 01: data races (labs/01-data-races/README.md)");
  cmds.add("increment", "[--kernel racy|fixed] [--blocks B --threads T] [--show any|bad|good|N --trace FILE]",
           "task 1a: explore ++x[0] (the two graded launches, <<<2,1>>> and <<<1,2>>> without a student id); compare with your prediction",
           {"kernel", "blocks", "threads", "show", "trace"}, cmd_increment);
  cmds.add("increment-fixed", "[--blocks B --threads T]",
           "task 1b: increment_fixed must always count every thread (default <<<2,1>>>, <<<1,2>>>, <<<3,40>>>)",
           {"blocks", "threads"}, cmd_increment_fixed);
  cmds.add("histogram",
           "[--kernel racy|atomic|privatized] [--marks N --blocks B --threads T --data-seed S] [--show lost|any|bad|good --trace FILE]",
           "task 2: the grading histogram against a host count (default: atomic and privatized, in the graded\n"
           "      shapes: 80 marks <<<2,32>>>, 1000 marks <<<4,64>>>, 80 marks <<<3,4>>>, 500 marks <<<2,128>>>)",
           {"kernel", "marks", "blocks", "threads", "data-seed", "show", "trace"}, cmd_histogram);
  cmds.add("sssp",
           "[--kernel racy|atomic] [--round] [--nodes N --blocks B --threads T --data-seed S] [--show any|bad|good|wrong --trace FILE]",
           "task 3: shortest paths against a host reference (default: the graded one round on 96 nodes\n"
           "      <<<2,64>>> and SSSP on 64 nodes <<<2,32>>>; --round: one round from half-known distances)",
           {"kernel", "round", "nodes", "blocks", "threads", "data-seed", "show", "trace"}, cmd_sssp);
  return cmds.run(argc, argv);
}
