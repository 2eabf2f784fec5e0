// Lab 01 (data races): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab01 increment [--blocks B --threads T] [--kernel racy|fixed] [--seeds N]
//                   [--show VALUE --trace FILE]
//   lab01 histogram [--kernel racy|atomic|privatized] [--marks N] [--blocks B --threads T]
//                   [--seeds N] [--show lost --trace FILE]
//   lab01 sssp      [--kernel racy|atomic] [--nodes N] [--blocks B --threads T] [--seeds N]
//                   [--show wrong --trace FILE]
//   lab01 all       every task's check
//
// On the simulator the commands explore schedules (pct and random seeds, both warp models);
// on a GPU they repeat the run. --trace records one run (the first explored schedule that shows
// --show) as a trace for synclab-viz.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "lab01.h"
#include "lab01_kernels.cuh"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

Exploration exploration(const Args& a, int default_seeds) {
  Exploration e;
  e.pct_seeds = e.random_seeds = int(a.num("seeds", default_seeds));
  e.gpu_runs = int(a.num("runs", 20));
  return e;
}

std::string explored_what(const std::vector<Schedule>& ss) {
  if (ss.empty()) return "nothing";
  if (ss[0].on_gpu()) return std::to_string(ss.size()) + " runs on the GPU";
  return std::to_string(ss.size()) + " schedules (rr, pct and random seeds; models its and lockstep)";
}

std::string set_text(const std::set<int>& s) {
  std::string t = "{";
  for (int v : s) t += (t.size() > 1 ? ", " : "") + std::to_string(v);
  return t + "}";
}

// Prints the distinct checker reports (kind, line) of a list, at most `limit`.
void print_reports(const std::vector<Report>& rs, size_t limit = 4) {
  std::set<std::string> seen;
  for (const Report& r : rs) {
    std::string b = synclab::lab::brief(r);
    if (!seen.insert(b).second) continue;
    if (seen.size() > limit) { std::printf("    ...\n"); break; }
    std::printf("    %s\n", b.c_str());
  }
}

// Records one run with `schedule` into `trace` (the caller re-runs with the same settings).
void announce_trace(const Schedule& s, const char* trace) {
  std::printf("recording %s with %s\n", trace, s.replay().c_str());
}

// ---- increment ----------------------------------------------------------------------------------
bool increment_shape(const Args& a, lab01::IncrementKernel kernel, int blocks, int threads) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 10));
  std::set<int> seen;
  std::vector<Report> reports;
  const int show = int(a.num("show", -1));
  const std::string trace = a.get("trace", "");
  bool traced = false;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab01::IncrementResult r = lab01::run_increment(kernel, blocks, threads);
    seen.insert(r.value);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    if (!trace.empty() && !traced && r.value == show) {
      announce_trace(s, trace.c_str());
      synclab::lab::apply(s);
      lab01::run_increment(kernel, blocks, threads, trace.c_str());
      traced = true;
    }
  }
  const bool racy = kernel == lab01::IncrementKernel::racy;
  std::printf("%s<<<%d, %d>>>: x[0] starts at 0; over %s the final values were %s\n",
              racy ? "increment_racy" : "increment_fixed", blocks, threads, explored_what(ss).c_str(),
              set_text(seen).c_str());
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  if (!trace.empty() && !traced)
    std::printf("  no explored run ended with %d, so no trace was recorded\n", show);
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

bool cmd_increment(const Args& a) {
  std::string k = a.get("kernel", "racy");
  if (k != "racy" && k != "fixed") throw std::invalid_argument("--kernel is racy or fixed");
  auto kernel = k == "racy" ? lab01::IncrementKernel::racy : lab01::IncrementKernel::fixed;
  if (a.has("blocks") || a.has("threads"))
    return increment_shape(a, kernel, int(a.num("blocks", 1)), int(a.num("threads", 1)));
  if (kernel == lab01::IncrementKernel::racy)
    return increment_shape(a, kernel, 2, 1) & increment_shape(a, kernel, 1, 2);
  return increment_shape(a, kernel, 2, 1) & increment_shape(a, kernel, 1, 2) &
         increment_shape(a, kernel, 3, 40);
}

bool cmd_increment_fixed(const Args& a) {
  return increment_shape(a, lab01::IncrementKernel::fixed, 2, 1) &
         increment_shape(a, lab01::IncrementKernel::fixed, 1, 2) &
         increment_shape(a, lab01::IncrementKernel::fixed, 3, 40);
}

// ---- histogram ----------------------------------------------------------------------------------
// Marks 0..100 from a fixed generator (the same class every run).
std::vector<int> class_marks(int n, unsigned seed) {
  std::vector<int> m(n);
  unsigned x = seed * 2654435761u + 12345u;
  for (int& v : m) {
    x = x * 1103515245u + 12345u;
    v = int((x >> 8) % 101u);
  }
  return m;
}

bool histogram_kernel(const Args& a, lab01::HistogramKernel kernel) {
  const int n = int(a.num("marks", 80));
  const int blocks = int(a.num("blocks", 2)), threads = int(a.num("threads", 32));
  std::vector<int> marks = class_marks(n, unsigned(a.num("data-seed", 4)));
  std::vector<unsigned> want(lab01::kGrades, 0);
  for (int m : marks) want[lab01::grade_of(m)]++;
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 6));
  const std::string trace = a.get("trace", "");
  bool traced = false;
  int wrong_runs = 0;
  long long worst_lost = 0;
  std::string worst_replay;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab01::HistogramResult r = lab01::run_histogram(kernel, marks, blocks, threads);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    long long counted = 0;
    for (unsigned b : r.bins) counted += b;
    if (r.bins != want) {
      ++wrong_runs;
      if (n - counted > worst_lost || worst_replay.empty()) {
        worst_lost = n - counted;
        worst_replay = s.replay();
      }
    }
    if (!trace.empty() && !traced && (a.get("show", "lost") != "lost" || counted < n)) {
      announce_trace(s, trace.c_str());
      synclab::lab::apply(s);
      lab01::run_histogram(kernel, marks, blocks, threads, trace.c_str());
      traced = true;
    }
  }
  std::printf("histogram_%s<<<%d, %d>>> over %d marks, %s:\n", lab01::name(kernel), blocks, threads, n,
              explored_what(ss).c_str());
  std::printf("  expected (host):");
  for (int g = 0; g < lab01::kGrades; ++g) std::printf(" %s=%u", lab01::kGradeNames[g], want[g]);
  std::printf("\n");
  if (wrong_runs)
    std::printf("  wrong counts in %d of %zu runs; worst: %lld marks lost (%s)\n", wrong_runs, ss.size(),
                worst_lost, worst_replay.c_str());
  else
    std::printf("  every run counted right\n");
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  if (!trace.empty() && !traced) std::printf("  no explored run lost a count, so no trace was recorded\n");
  return wrong_runs == 0 && reports.empty();
}

bool cmd_histogram(const Args& a) {
  if (!a.has("kernel"))
    return histogram_kernel(a, lab01::HistogramKernel::atomic) &
           histogram_kernel(a, lab01::HistogramKernel::privatized);
  std::string k = a.get("kernel", "");
  if (k == "racy") return histogram_kernel(a, lab01::HistogramKernel::racy);
  if (k == "atomic") return histogram_kernel(a, lab01::HistogramKernel::atomic);
  if (k == "privatized") return histogram_kernel(a, lab01::HistogramKernel::privatized);
  throw std::invalid_argument("--kernel is racy, atomic or privatized");
}

// ---- sssp ---------------------------------------------------------------------------------------
// A small road map: a ring of towns plus shortcuts, weights 1..20, from a fixed generator.
lab01::Graph road_map(int nodes, unsigned seed) {
  lab01::Graph g;
  g.nodes = nodes;
  unsigned x = seed * 747796405u + 1u;
  auto next = [&x] { x = x * 1103515245u + 12345u; return x >> 8; };
  g.row_start.push_back(0);
  for (int u = 0; u < nodes; ++u) {
    g.neighbour.push_back((u + 1) % nodes);
    g.weight.push_back(1 + next() % 20);
    for (int k = 0; k < 3; ++k) {
      g.neighbour.push_back(int(next() % unsigned(nodes)));
      g.weight.push_back(1 + next() % 20);
    }
    g.row_start.push_back(int(g.neighbour.size()));
  }
  return g;
}

// Bellman-Ford on the host.
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

bool cmd_sssp(const Args& a) {
  std::string k = a.get("kernel", "atomic");
  if (k != "racy" && k != "atomic") throw std::invalid_argument("--kernel is racy or atomic");
  auto kernel = k == "racy" ? lab01::RelaxKernel::racy : lab01::RelaxKernel::atomic;
  const int nodes = int(a.num("nodes", 96));
  const int blocks = int(a.num("blocks", 2)), threads = int(a.num("threads", 64));
  lab01::Graph g = road_map(nodes, unsigned(a.num("data-seed", 1)));
  std::vector<unsigned> want = host_distances(g, 0);
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 4));
  const std::string trace = a.get("trace", "");
  bool traced = false;
  int wrong_runs = 0;
  std::string first_wrong;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab01::RelaxResult r = lab01::run_sssp(kernel, g, 0, blocks, threads);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    bool wrong = r.dist != want;
    if (wrong && !wrong_runs++) {
      for (int v = 0; v < nodes; ++v)
        if (r.dist[v] != want[v]) {
          first_wrong = "node " + std::to_string(v) + ": got " + std::to_string(r.dist[v]) + ", shortest is " +
                        std::to_string(want[v]) + " (" + s.replay() + ")";
          break;
        }
    }
    if (!trace.empty() && !traced && (a.get("show", "any") == "any" || wrong)) {
      announce_trace(s, trace.c_str());
      synclab::lab::apply(s);
      lab01::run_sssp(kernel, g, 0, blocks, threads, trace.c_str());
      traced = true;
    }
  }
  std::printf("sssp with relax_%s<<<%d, %d>>> on a %d-node map, %s:\n", k.c_str(), blocks, threads, nodes,
              explored_what(ss).c_str());
  if (wrong_runs) std::printf("  wrong distances in %d runs; first: %s\n", wrong_runs, first_wrong.c_str());
  else std::printf("  every run found the shortest distances\n");
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  return wrong_runs == 0 && reports.empty();
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab01", "Lab 01: data races (labs/01-data-races/README.md)");
  cmds.add("increment", "[--blocks B --threads T] [--kernel racy|fixed]",
           "task 1a: explore ++x[0]; compare with your prediction", cmd_increment);
  cmds.add("increment-fixed", "", "task 1b: increment_fixed must always count every thread", cmd_increment_fixed);
  cmds.add("histogram", "[--kernel racy|atomic|privatized] [--marks N]",
           "task 2: the grading histogram against a host count", cmd_histogram);
  cmds.add("sssp", "[--kernel racy|atomic] [--nodes N]", "task 3: shortest paths against a host reference",
           cmd_sssp);
  return cmds.run(argc, argv);
}
