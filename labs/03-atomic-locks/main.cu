// Lab 03 (atomic locks): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab03 naive      [--blocks B --threads T] [--models its,lockstep] [--show deadlock|finished --trace FILE]
//   lab03 lock       [--blocks B --threads T] [--rounds R] [--kernel locked|naive] [--show finished --trace FILE]
//   lab03 single     [--blocks B --threads T]
//   lab03 puzzle     [--blocks B --threads T]
//   lab03 buckets    [--keys N --buckets K --blocks B --threads T --backoff NS] [--show finished --trace FILE]
//   lab03 contention [--blocks B --threads T --rounds R]
//   lab03 all        every task's check
//
// On the simulator the commands explore schedules (rr, pct and random seeds; both warp models
// unless --models says otherwise); on a GPU they repeat the run. --trace records one run (the
// first explored schedule that shows --show) as a trace for synclab-viz.
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab03.h"
#include "lab03_kernels.cuh"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

Exploration exploration(const Args& a, int default_seeds) {
  Exploration e;
  e.pct_seeds = e.random_seeds = int(a.num("seeds", default_seeds));
  e.gpu_runs = int(a.num("runs", 5));
  if (a.has("models")) {
    e.models.clear();
    std::stringstream ss(a.get("models", ""));
    for (std::string m; std::getline(ss, m, ',');)
      if (m == "its" || m == "lockstep") e.models.push_back(m);
      else throw std::invalid_argument("--models takes its, lockstep or its,lockstep");
  }
  return e;
}

std::string explored_what(const std::vector<Schedule>& ss) {
  if (ss.empty()) return "nothing";
  if (ss[0].on_gpu()) return std::to_string(ss.size()) + " runs on the GPU";
  std::set<std::string> models;
  for (const Schedule& s : ss) models.insert(s.model);
  std::string m;
  for (const std::string& x : models) m += (m.empty() ? "" : " and ") + x;
  return std::to_string(ss.size()) + " schedules (rr, pct and random seeds; " + m + ")";
}

// Prints the distinct reports (kind, line) of a list, at most `limit`, and the first one whole.
void print_reports(const std::vector<Report>& rs, size_t limit = 4) {
  std::set<std::string> seen;
  for (const Report& r : rs) {
    std::string b = synclab::lab::brief(r);
    if (!seen.insert(b).second) continue;
    if (seen.size() > limit) { std::printf("    ...\n"); break; }
    std::printf("    %s\n", b.c_str());
  }
}

void print_first_report(const std::vector<Report>& rs) {
  if (rs.empty()) return;
  std::printf("  the first report in full:\n%s\n", rs.front().text.c_str());
}

bool wants_trace(const Args& a, bool traced, bool shows) {
  return a.has("trace") && !traced && shows;
}

void announce_trace(const Schedule& s, const std::string& trace) {
  std::printf("recording %s with %s\n", trace.c_str(), s.replay().c_str());
}

// ---- task 1a: the naive lock ---------------------------------------------------------------------
bool naive_shape(const Args& a, int blocks, int threads) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 2));
  std::map<std::string, std::set<bool>> finished;  // per model: the outcomes seen
  std::map<std::string, std::vector<Report>> reports;
  const std::string show = a.get("show", "deadlock"), trace = a.get("trace", "");
  bool traced = false;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab03::CountResult r = lab03::run_count(lab03::CountKernel::naive, blocks, threads, 1);
    finished[s.model].insert(r.finished);
    reports[s.model].insert(reports[s.model].end(), r.reports.begin(), r.reports.end());
    if (wants_trace(a, traced, r.finished == (show == "finished"))) {
      announce_trace(s, trace);
      synclab::lab::apply(s);
      lab03::run_count(lab03::CountKernel::naive, blocks, threads, 1, trace.c_str());
      traced = true;
    }
  }
  std::printf("count_naive<<<%d, %d>>>, %s:\n", blocks, threads, explored_what(ss).c_str());
  bool ok = true;
  for (const auto& [model, seen] : finished) {
    const char* what = seen == std::set<bool>{true} ? "always finished"
                       : seen == std::set<bool>{false} ? "never finished" : "finished in some runs only";
    std::printf("  %s: %s\n", model.c_str(), what);
    if (!reports[model].empty()) print_reports(reports[model], 2);
    if (seen.size() == 1) {
      bool p = lab03::predicted_naive_finishes(model, blocks, threads);
      std::printf("    your prediction (predicted_naive_finishes in lock.cu): %s -> %s\n",
                  p ? "finishes" : "never finishes", p == *seen.begin() ? "right" : "WRONG");
      ok = ok && p == *seen.begin();
    }
  }
  for (const auto& [model, rs] : reports)
    if (!rs.empty() && show == "deadlock") {
      std::printf("  (%s)", model.c_str());
      print_first_report(rs);
      break;
    }
  if (a.has("trace") && !traced) std::printf("  no explored run showed '%s', so no trace was recorded\n", show.c_str());
  return ok;
}

bool cmd_naive(const Args& a) {
  if (a.has("blocks") || a.has("threads"))
    return naive_shape(a, int(a.num("blocks", 1)), int(a.num("threads", 32)));
  bool ok = naive_shape(a, 1, 32);
  ok &= naive_shape(a, 4, 1);
  ok &= naive_shape(a, 2, 2);
  return ok;
}

// ---- task 1c and 5: counting under a lock -------------------------------------------------------
bool count_shape(const Args& a, lab03::CountKernel kernel, int blocks, int threads, int rounds) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 3));
  const int want = blocks * threads * rounds;
  const int want_sections = kernel == lab03::CountKernel::warp_aggregated ? blocks * ((threads + 31) / 32) * rounds : want;
  const std::string trace = a.get("trace", "");
  bool traced = false;
  int bad = 0;
  std::string first_bad;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab03::CountResult r = lab03::run_count(kernel, blocks, threads, rounds);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    std::string what;
    if (!r.finished) what = "did not finish (" + r.error + ")";
    else if (r.counter != want) what = "counter " + std::to_string(r.counter) + ", expected " + std::to_string(want);
    else if (r.sections != want_sections)
      what = std::to_string(r.sections) + " critical sections, expected " + std::to_string(want_sections);
    else if (r.lock != 0) what = "the lock word was left at " + std::to_string(r.lock);
    if (!what.empty() && !bad++) first_bad = what + " under " + s.replay();
    if (wants_trace(a, traced, r.finished)) {
      announce_trace(s, trace);
      synclab::lab::apply(s);
      lab03::run_count(kernel, blocks, threads, rounds, trace.c_str());
      traced = true;
    }
  }
  std::printf("%s<<<%d, %d>>>, %d round(s), %s:\n", lab03::name(kernel), blocks, threads, rounds,
              explored_what(ss).c_str());
  if (bad) std::printf("  wrong in %d runs; first: %s\n", bad, first_bad.c_str());
  else std::printf("  every run counted %d in %d critical sections\n", want, want_sections);
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  return bad == 0 && reports.empty();
}

lab03::CountKernel count_kernel(const Args& a, const std::string& fallback) {
  std::string k = a.get("kernel", fallback);
  if (k == "naive") return lab03::CountKernel::naive;
  if (k == "locked") return lab03::CountKernel::locked;
  if (k == "backoff") return lab03::CountKernel::backoff;
  if (k == "aggregated") return lab03::CountKernel::warp_aggregated;
  throw std::invalid_argument("--kernel is naive, locked, backoff or aggregated");
}

bool cmd_lock(const Args& a) {
  lab03::CountKernel k = count_kernel(a, "locked");
  const int rounds = int(a.num("rounds", 2));
  if (a.has("blocks") || a.has("threads"))
    return count_shape(a, k, int(a.num("blocks", 1)), int(a.num("threads", 32)), rounds);
  bool ok = count_shape(a, k, 1, 32, rounds);  // one warp
  ok &= count_shape(a, k, 1, 64, rounds);      // two warps
  ok &= count_shape(a, k, 3, 40, rounds);      // blocks, and a part-full warp
  return ok;
}

bool cmd_contention(const Args& a) {
  const int rounds = int(a.num("rounds", 2));
  if (a.has("kernel"))
    return count_shape(a, count_kernel(a, "backoff"), int(a.num("blocks", 2)), int(a.num("threads", 64)), rounds);
  bool ok = count_shape(a, lab03::CountKernel::backoff, 1, 32, rounds);
  ok &= count_shape(a, lab03::CountKernel::backoff, 3, 40, rounds);
  ok &= count_shape(a, lab03::CountKernel::warp_aggregated, 1, 32, rounds);
  ok &= count_shape(a, lab03::CountKernel::warp_aggregated, 3, 64, rounds);
  return ok;
}

// ---- task 2: single -----------------------------------------------------------------------------
bool single_shape(const Args& a, bool per_block, int blocks, int threads) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 3));
  int bad = 0;
  std::string first_bad;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab03::SingleResult r = per_block ? lab03::run_single_per_block(blocks, threads)
                                      : lab03::run_single_grid(blocks, threads);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    std::string what;
    if (!r.finished) what = "did not finish (" + r.error + ")";
    for (size_t b = 0; what.empty() && b < r.entered.size(); ++b) {
      const int limit = per_block ? threads : blocks * threads;
      if (r.entered[b] != 1)
        what = std::to_string(r.entered[b]) + " threads ran the section" + (per_block ? " of block " + std::to_string(b) : "");
      else if (r.chosen[b] < 0 || r.chosen[b] >= limit)
        what = "chosen = " + std::to_string(r.chosen[b]) + " is not a thread of the launch";
    }
    if (!what.empty() && !bad++) first_bad = what + " under " + s.replay();
  }
  std::printf("%s<<<%d, %d>>>, %s:\n", per_block ? "single_per_block" : "single_grid", blocks, threads,
              explored_what(ss).c_str());
  if (bad) std::printf("  wrong in %d runs; first: %s\n", bad, first_bad.c_str());
  else std::printf("  in every run exactly one thread%s ran the section\n", per_block ? " per block" : "");
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  return bad == 0 && reports.empty();
}

bool cmd_single(const Args& a) {
  if (a.has("blocks") || a.has("threads"))
    return single_shape(a, false, int(a.num("blocks", 3)), int(a.num("threads", 40))) &
           single_shape(a, true, int(a.num("blocks", 3)), int(a.num("threads", 40)));
  return single_shape(a, false, 3, 40) & single_shape(a, true, 3, 40) & single_shape(a, true, 2, 1);
}

// ---- task 3: the puzzle -------------------------------------------------------------------------
std::string output_text(const lab03::PuzzleOutput& o) {
  std::string t;
  for (const std::string& l : o) t += (t.empty() ? "" : " / ") + l;
  return t.empty() ? "(nothing)" : t;
}

bool puzzle_shape(const Args& a, int blocks, int threads) {
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 4));
  std::set<lab03::PuzzleOutput> seen;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab03::PuzzleResult r = lab03::run_puzzle(blocks, threads);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    if (r.finished) seen.insert(r.output);
  }
  std::set<lab03::PuzzleOutput> predicted;
  for (const lab03::PuzzleOutput& o : lab03::predicted_puzzle_outputs(blocks, threads))
    predicted.insert(lab03::normalized(o));
  std::printf("cas_puzzle<<<%d, %d>>>, %s: %zu different output(s)\n", blocks, threads,
              explored_what(ss).c_str(), seen.size());
  for (const lab03::PuzzleOutput& o : seen)
    std::printf("  seen:      %s%s\n", output_text(o).c_str(), predicted.count(o) ? "" : "   <- not in your prediction");
  int unseen = 0;
  for (const lab03::PuzzleOutput& o : predicted)
    if (!seen.count(o) && ++unseen <= 4) std::printf("  predicted: %s (not seen here)\n", output_text(o).c_str());
  if (unseen > 4) std::printf("  ... and %d more predicted outputs not seen here\n", unseen - 4);
  if (predicted.empty()) std::printf("  your prediction (predicted_puzzle_outputs in puzzle.cu): none yet (TODO 3)\n");
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  std::printf("  (exploration shows what this simulator's schedules produce; it applies the lanes of one\n"
              "   warp's atomic in lane order, so a prediction may rightly contain outputs not seen here)\n");
  bool contains = true;
  for (const lab03::PuzzleOutput& o : seen) contains = contains && predicted.count(o);
  return !predicted.empty() && contains;
}

bool cmd_puzzle(const Args& a) {
  if (a.has("blocks") || a.has("threads"))
    return puzzle_shape(a, int(a.num("blocks", 2)), int(a.num("threads", 32)));
  return puzzle_shape(a, 2, 32) & puzzle_shape(a, 1, 2) & puzzle_shape(a, 3, 1);
}

// ---- task 4: buckets ----------------------------------------------------------------------------
std::vector<int> some_keys(int n, unsigned seed) {
  std::vector<int> k(n);
  unsigned x = seed * 2246822519u + 7u;
  for (int& v : k) {
    x = x * 1103515245u + 12345u;
    v = int((x >> 4) & 0xfffff);
  }
  return k;
}

bool cmd_buckets(const Args& a) {
  const int n = int(a.num("keys", 96)), nb = int(a.num("buckets", 3));
  const int blocks = int(a.num("blocks", 2)), threads = int(a.num("threads", 32));
  const unsigned backoff = unsigned(a.num("backoff", 0));
  std::vector<int> keys = some_keys(n, unsigned(a.num("data-seed", 3)));
  std::vector<std::multiset<int>> want(nb);
  for (int k : keys) want[lab03::bucket_of(k, nb)].insert(k);
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 3));
  const std::string trace = a.get("trace", "");
  bool traced = false;
  int bad = 0;
  std::string first_bad;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    synclab::lab::apply(s);
    lab03::BucketResult r = lab03::run_buckets(keys, nb, blocks, threads, backoff);
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    std::string what;
    if (!r.finished) what = "did not finish (" + r.error + ")";
    for (int b = 0; what.empty() && b < nb; ++b) {
      std::multiset<int> got(r.items[b].begin(), r.items[b].end());
      if (r.counts[b] != int(want[b].size()))
        what = "bucket " + std::to_string(b) + " holds " + std::to_string(r.counts[b]) + " keys, expected " +
               std::to_string(want[b].size());
      else if (got != want[b]) what = "bucket " + std::to_string(b) + " holds other keys than it should";
      else if (r.locks[b] != 0) what = "bucket " + std::to_string(b) + "'s lock was left taken";
    }
    if (!what.empty() && !bad++) first_bad = what + " under " + s.replay();
    if (wants_trace(a, traced, r.finished)) {
      announce_trace(s, trace);
      synclab::lab::apply(s);
      lab03::run_buckets(keys, nb, blocks, threads, backoff, trace.c_str());
      traced = true;
    }
  }
  std::printf("insert_keys<<<%d, %d>>>: %d keys into %d buckets, backoff %u ns, %s:\n", blocks, threads, n, nb,
              backoff, explored_what(ss).c_str());
  if (bad) std::printf("  wrong in %d runs; first: %s\n", bad, first_bad.c_str());
  else std::printf("  every run filled every bucket exactly\n");
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  return bad == 0 && reports.empty();
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab03", "Lab 03: atomic locks (labs/03-atomic-locks/README.md)");
  cmds.add("naive", "[--blocks B --threads T] [--models its,lockstep]",
           "task 1a: does the CPU-style lock finish? compare with your prediction", cmd_naive);
  cmds.add("lock", "[--blocks B --threads T] [--rounds R] [--kernel locked|naive]",
           "task 1b/1c: count_locked must count right, finish and stay silent", cmd_lock);
  cmds.add("single", "[--blocks B --threads T]", "task 2: exactly one thread (per grid, per block)", cmd_single);
  cmds.add("puzzle", "[--blocks B --threads T]", "task 3: the atomicCAS puzzle against your prediction",
           cmd_puzzle);
  cmds.add("buckets", "[--keys N --buckets K --blocks B --threads T --backoff NS]",
           "task 4: the per-bucket lock table against a host table", cmd_buckets);
  cmds.add("contention", "[--kernel backoff|aggregated --blocks B --threads T]",
           "task 5: backoff and warp-aggregated locking", cmd_contention);
  return cmds.run(argc, argv);
}
