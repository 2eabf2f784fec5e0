// Lab 04 (reductions): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab04 tree       [--kernel interleaved|sequential] [--blocks B --threads T --data-seed S]
//                    [--show any|bad|good|race|clean --trace FILE]
//   lab04 divergence [--threads T]
//   lab04 classwork  [--kernel racy|fixed] [--blocks B --threads T --data-seed S]
//                    [--show any|bad|good|race|clean --trace FILE]
//   lab04 barriers   [--threads T] [--skip K] [--show any|bad|good|race|clean --trace FILE]
//   lab04 tail       [--kernel shuffle|unsafe|tail] [--blocks B --threads T --data-seed S]
//                    [--show any|bad|good|race|clean --trace FILE]
//   lab04 grid       [--kernel atomic|two-pass|last-block] [--blocks B --threads T --n N --data-seed S]
//                    [--show any|bad|good --trace FILE]
//   lab04 product    [--blocks B --threads T --data-seed S] [--show any|bad|good --trace FILE]
//   lab04 fast       [--n N --offset O --blocks B]
//   lab04 all        every task's check
//   (and the exploration options of synclab_lab.h: --seeds N, --model M (or --models), --sched P,
//   --seed S, --memory M, ...)
//
// Without shape options a command runs the launch shapes and inputs of the task's graded tests,
// over the same schedules (rr, pct and random seeds; both warp models; task 5 also under the
// relaxed memory model); on a GPU it repeats the run. Every failure names the command that
// replays it. --trace records one run: the first explored run that --show names (synclab_lab.h).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lab04.h"
#include "synclab_lab.h"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

Exploration exploration(const Args& a, int seeds, const std::vector<std::string>& memories = {"sc"}) {
  return synclab::lab::exploration_from(a, seeds, 5, memories);
}

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab04", args, s);
}

using synclab::lab::shape_args;

using synclab::lab::print_reports;

using synclab::lab::TraceChoice;

// The words --show takes besides any, bad and good: whether the run was reported.
const char* race_or_clean(bool reported) { return reported ? "race" : "clean"; }

struct Shape {
  int blocks, threads, seeds;
};

std::vector<int> host_block_sums(const std::vector<int>& v, int blocks, int threads) {
  std::vector<int> sums(blocks, 0);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) sums[b] += v[size_t(b) * threads + t];
  return sums;
}

// Explores one block kernel on one shape: right sums, no report. Returns true when every run was.
bool block_shape(const Args& a, const std::string& command, lab04::BlockKernel kernel, const Shape& sh) {
  const uint32_t data_seed = uint32_t(a.num("data-seed", lab04::values_seed(sh.blocks, sh.threads)));
  const std::vector<int> values = lab04::random_values(sh.blocks * sh.threads, data_seed);
  const std::vector<int> want = host_block_sums(values, sh.blocks, sh.threads);
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds));
  std::string args = command + " " + shape_args(sh.blocks, sh.threads);
  if (a.has("data-seed")) args += " --data-seed " + std::to_string(data_seed);
  const TraceChoice trace(a, "any", {"race", "clean"});
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    lab04::BlockResult r =
        synclab::lab::run_under(s, [&] { return lab04::run_block(kernel, values, sh.blocks, sh.threads); });
    std::string what;
    for (int b = 0; what.empty() && b < sh.blocks; ++b)
      if (r.sums[b] != want[b])
        what = "block " + std::to_string(b) + " summed to " + std::to_string(r.sums[b]) + ", expected " +
               std::to_string(want[b]);
    what = tally.add(what, r.reports, replay(args, s));
    if (trace.wants(!what.empty(), race_or_clean(!r.reports.empty()))) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab04::run_block(kernel, values, sh.blocks, sh.threads, -1, trace.file().c_str());
    }
  }
  std::printf("%s<<<%d, %d>>>, %s:\n", lab04::name(kernel), sh.blocks, sh.threads, synclab::lab::describe(ss).c_str());
  tally.print("every run summed every block right");
  if (!tally.reports().empty()) std::printf("  the first report in full:\n%s\n", tally.reports().front().text.c_str());
  return tally.passed();
}

bool has_shape(const Args& a) { return a.has("blocks") || a.has("threads") || a.has("data-seed"); }

bool block_command(const Args& a, const std::string& command, const std::vector<std::string>& kernels,
                   const std::vector<Shape>& graded) {
  std::vector<std::string> ks = kernels;
  if (a.has("kernel")) ks = {a.get("kernel", "")};
  bool ok = true;
  for (const std::string& k : ks) {
    const lab04::BlockKernel kernel = lab04::block_kernel(k);
    const std::string cmd = command + " --kernel " + k;
    if (has_shape(a)) {
      ok &= block_shape(a, cmd, kernel, {int(a.num("blocks", 1)), int(a.num("threads", 64)), 3});
      continue;
    }
    for (const Shape& sh : graded) ok &= block_shape(a, cmd, kernel, sh);
  }
  return ok;
}

// ---- task 1 -------------------------------------------------------------------------------------
// Graded (1a, 1b): <<<1,32>>>, <<<2,64>>>, <<<1,128>>>, 3 seeds.
const std::vector<Shape> kTreeShapes{{1, 32, 3}, {2, 64, 3}, {1, 128, 3}};

bool cmd_tree(const Args& a) { return block_command(a, "tree", {"interleaved", "sequential"}, kTreeShapes); }

// Graded (1c): every level of both addressings, with two block sizes (64 and 256; with a student
// id, the student's own two: lab04::task1c_sizes).
bool cmd_divergence(const Args& a) {
  std::vector<int> sizes = lab04::task1c_sizes(synclab::lab::student_id());
  synclab::lab::print_graded_cases(
      "task 1c is graded with " + std::to_string(sizes[0]) + " and " + std::to_string(sizes[1]) + " threads",
      "two sizes");
  if (a.has("threads")) sizes = {int(a.num("threads", 64))};
  bool ok = true;
  for (int threads : sizes)
    for (lab04::Addressing ad : {lab04::Addressing::interleaved, lab04::Addressing::sequential}) {
      const char* an = ad == lab04::Addressing::interleaved ? "interleaved" : "sequential";
      const std::vector<int> seen = lab04::measure_divergent_warps(ad, threads);
      std::printf("%s addressing, %d threads (%d warps): divergent warps per level, seen / your prediction\n", an,
                  threads, threads / 32);
      for (size_t level = 0; level < seen.size(); ++level) {
        const int p = lab04::predicted_divergent_warps(ad, threads, int(level));
        std::printf("  level %zu: %d / %d%s\n", level, seen[level], p, p == seen[level] ? "" : "   <- differs");
        ok = ok && p == seen[level];
      }
    }
  return ok;
}

// ---- task 2 -------------------------------------------------------------------------------------
// Graded (2b): <<<1,32>>>, <<<2,64>>>, 3 seeds; (2a) 8, 32 and 64 threads.
bool cmd_classwork(const Args& a) {
  const std::string k = a.get("kernel", "fixed");
  bool ok = block_command(a, "classwork", {k}, {{1, 32, 3}, {2, 64, 3}});
  if (k == "racy") {
    std::printf("(compact_racy is the slides' version: the reports above are the lesson, not a failure of yours)\n");
    ok = true;
  }
  if (a.has("kernel")) return ok;
  for (int threads : {8, 32, 64}) {
    // The first level of compact_racy, thread by thread: what each reads and writes.
    std::map<int, int> writer;
    for (int t = 0; t < threads / 2; ++t) writer[t] = t;
    std::vector<lab04::Conflict> host;
    for (int e = 0; e < threads; ++e)
      if (writer.count(e) && writer[e] != e / 2) host.push_back({e, e / 2, writer[e]});
    const std::vector<lab04::Conflict> yours = lab04::first_level_conflicts(threads);
    const bool same = yours == host;
    std::printf("first level of compact_racy with %d threads: your %zu conflict(s) (first_level_conflicts) %s\n",
                threads, yours.size(),
                same ? "match the accesses of the kernel" : "do NOT match the accesses of the kernel");
    ok = ok && same;
  }
  return ok;
}

// ---- task 3 -------------------------------------------------------------------------------------
std::string set_text(const std::set<int>& s) {
  std::string t;
  for (int k : s) t += (t.empty() ? "" : ", ") + std::to_string(k);
  return "{" + t + "}";
}

// Graded: 64 and 128 threads, both models, 2 seeds per barrier.
bool cmd_barriers(const Args& a) {
  if (!synclab::lab::on_simulator()) {
    std::printf("barriers: a GPU shows no race report, so it cannot tell which barrier may go: run this command\n"
                "on the simulator (build/bin/sim/lab04 barriers)\n");
    return true;
  }
  std::vector<int> sizes = lab04::task3_sizes(synclab::lab::student_id());
  synclab::lab::print_graded_cases(
      "task 3 is graded with " + std::to_string(sizes[0]) + " and " + std::to_string(sizes[1]) + " threads",
      "two sizes");
  if (a.has("threads")) sizes = {int(a.num("threads", 64))};
  Exploration e = exploration(a, 2);
  const std::vector<std::string> models = e.models;
  // race: a run whose sum was wrong or that was reported; clean: one right and silent.
  const TraceChoice trace(a, "race", {"race", "clean"});
  bool ok = true;
  for (int threads : sizes) {
    int levels = 0;
    while ((1 << levels) < threads) ++levels;
    const std::vector<int> values = lab04::random_values(threads, lab04::values_seed(1, threads));
    const int want = host_block_sums(values, 1, threads)[0];
    std::vector<int> ks;
    for (int k = 0; k < levels; ++k) ks.push_back(k);
    if (a.has("skip")) ks = {int(a.num("skip", 0))};
    for (const std::string& model : models) {
      Exploration em = e;
      em.models = {model};
      std::set<int> removable;
      std::printf("block_sum_skip_barrier<<<1, %d>>> under %s, %s per barrier:\n", threads, model.c_str(),
                  synclab::lab::describe(synclab::lab::schedules(em)).c_str());
      for (int k : ks) {
        int bad = 0;
        std::string first;
        for (const Schedule& s : synclab::lab::schedules(em)) {
          lab04::BlockResult r = synclab::lab::run_under(
              s, [&] { return lab04::run_block(lab04::BlockKernel::skip_barrier, values, 1, threads, k); });
          const bool wrong = r.sums[0] != want || !r.reports.empty();
          if (wrong && !bad++)
            first = (r.reports.empty() ? "sum " + std::to_string(r.sums[0]) : synclab::lab::brief(r.reports.front())) +
                    "; replay: " +
                    replay("barriers --threads " + std::to_string(threads) + " --skip " + std::to_string(k), s);
          if (trace.wants(wrong, race_or_clean(wrong))) {
            trace.recording(s);
            synclab::lab::apply(s);
            lab04::run_block(lab04::BlockKernel::skip_barrier, values, 1, threads, k, trace.file().c_str());
          }
        }
        if (!bad) removable.insert(k);
        std::printf("  without barrier %d (after off = %d): %s\n", k, threads >> (k + 1),
                    bad ? ("wrong or reported in " + std::to_string(bad) + " runs; first: " + first).c_str()
                        : "right and silent in every run");
      }
      if (a.has("skip")) continue;
      const std::set<int> p = lab04::predicted_removable_barriers(model, threads);
      std::printf("  removable: %s; your prediction (predicted_removable_barriers): %s -> %s\n",
                  set_text(removable).c_str(), set_text(p).c_str(), p == removable ? "right" : "WRONG");
      ok = ok && p == removable;
    }
  }
  return ok;
}

// ---- task 4 -------------------------------------------------------------------------------------
// Graded: shuffle <<<2,64>>>, <<<1,96>>>; tail <<<2,64>>>, <<<1,128>>>; 3 seeds. (4c) the
// unsafe tail <<<1,64>>> under each model.
bool cmd_tail(const Args& a) {
  if (a.has("kernel")) {
    const std::string k = a.get("kernel", "");
    const bool ok = block_command(a, "tail", {k}, {{2, 64, 3}, {1, 128, 3}});
    if (k == "unsafe") std::printf("(block_sum_tail_unsafe is provided: compare what each --model shows)\n");
    return ok || k == "unsafe";
  }
  bool ok = block_command(a, "tail", {"shuffle"}, {{2, 64, 3}, {1, 96, 3}});
  ok &= block_command(a, "tail", {"tail"}, {{2, 64, 3}, {1, 128, 3}});
  if (!synclab::lab::on_simulator()) return ok;  // 4c needs the simulator's race reports
  const std::vector<int> values = lab04::random_values(64, lab04::values_seed(1, 64));
  for (const std::string& model : exploration(a, 3).models) {
    Exploration e = exploration(a, 3);
    e.models = {model};
    bool races = false;
    for (const Schedule& s : synclab::lab::schedules(e)) {
      lab04::BlockResult r =
          synclab::lab::run_under(s, [&] { return lab04::run_block(lab04::BlockKernel::tail_unsafe, values, 1, 64); });
      races = races || !synclab::lab::of_kind(r.reports, "race").empty();
    }
    const bool p = lab04::predicted_tail_races(model);
    std::printf("block_sum_tail_unsafe<<<1, 64>>> under %s: %s; your prediction (predicted_tail_races): %s -> %s\n",
                model.c_str(), races ? "races" : "no race reported", p ? "races" : "no race",
                p == races ? "right" : "WRONG");
    ok = ok && p == races;
  }
  return ok;
}

// ---- task 5 -------------------------------------------------------------------------------------
lab04::GridKernel grid_kernel(const std::string& k) {
  if (k == "atomic") return lab04::GridKernel::atomic;
  if (k == "two-pass") return lab04::GridKernel::two_pass;
  if (k == "last-block") return lab04::GridKernel::last_block;
  throw std::invalid_argument("--kernel is atomic, two-pass or last-block, not '" + k + "'");
}

struct GridShape {
  int n, blocks, threads, seeds;
};

bool grid_shape(const Args& a, const std::string& k, const GridShape& sh) {
  const lab04::GridKernel kernel = grid_kernel(k);
  const uint32_t data_seed = uint32_t(a.num("data-seed", lab04::values_seed(sh.blocks, sh.n)));
  const std::vector<int> values = lab04::random_values(sh.n, data_seed);
  int want = 0;
  for (int v : values) want += v;
  // A flag (the ticket) publishes data: explore the relaxed memory model too.
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds, {"sc", "relaxed"}));
  std::string args = "grid --kernel " + k + " --n " + std::to_string(sh.n) + " " + shape_args(sh.blocks, sh.threads);
  if (a.has("data-seed")) args += " --data-seed " + std::to_string(data_seed);
  const TraceChoice trace(a, "any");
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    lab04::GridResult r =
        synclab::lab::run_under(s, [&] { return lab04::run_grid(kernel, values, sh.blocks, sh.threads); });
    std::string what;
    if (r.sum != want) what = "the sum is " + std::to_string(r.sum) + ", expected " + std::to_string(want);
    what = tally.add(what, r.reports, replay(args + (s.memory == "sc" && !s.on_gpu() ? " --memory sc" : ""), s));
    if (trace.wants(!what.empty())) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab04::run_grid(kernel, values, sh.blocks, sh.threads, trace.file().c_str());
    }
  }
  std::printf("%s<<<%d, %d>>> over %d values, %s:\n", lab04::name(kernel), sh.blocks, sh.threads, sh.n,
              synclab::lab::describe(ss).c_str());
  tally.print("every run summed to " + std::to_string(want));
  if (!tally.reports().empty()) std::printf("  the first report in full:\n%s\n", tally.reports().front().text.c_str());
  return tally.passed();
}

// Graded: each kernel over 300 values <<<3,64>>> and 100 values <<<4,32>>>, 3 seeds, sc and relaxed.
bool cmd_grid(const Args& a) {
  std::vector<std::string> ks{"atomic", "two-pass", "last-block"};
  if (a.has("kernel")) ks = {a.get("kernel", "")};
  bool ok = true;
  for (const std::string& k : ks) {
    if (a.has("n") || a.has("blocks") || a.has("threads") || a.has("data-seed")) {
      ok &= grid_shape(a, k, {int(a.num("n", 300)), int(a.num("blocks", 3)), int(a.num("threads", 64)), 3});
      continue;
    }
    ok &= grid_shape(a, k, {300, 3, 64, 3});
    ok &= grid_shape(a, k, {100, 4, 32, 3});
  }
  return ok;
}

// ---- task 6 -------------------------------------------------------------------------------------
bool product_shape(const Args& a, const Shape& sh) {
  const uint32_t data_seed = uint32_t(a.num("data-seed", lab04::values_seed(sh.blocks, sh.threads)));
  const std::vector<lab04::Mat> m = lab04::random_matrices(sh.blocks * sh.threads, data_seed);
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds));
  std::string args = "product " + shape_args(sh.blocks, sh.threads);
  if (a.has("data-seed")) args += " --data-seed " + std::to_string(data_seed);
  const TraceChoice trace(a, "any");
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    lab04::ProductResult r = synclab::lab::run_under(s, [&] { return lab04::run_product(m, sh.blocks, sh.threads); });
    std::string what;
    for (int b = 0; what.empty() && b < sh.blocks; ++b) {
      lab04::Mat p{1, 0, 0, 1};
      for (int i = 0; i < sh.threads; ++i) {
        const lab04::Mat& x = m[size_t(b) * sh.threads + i];
        p = lab04::Mat{p.a * x.a + p.b * x.c, p.a * x.b + p.b * x.d, p.c * x.a + p.d * x.c, p.c * x.b + p.d * x.d};
      }
      if (r.products[b] != p) what = "block " + std::to_string(b) + "'s product is not m[0] * m[1] * ... in that order";
    }
    what = tally.add(what, r.reports, replay(args, s));
    if (trace.wants(!what.empty())) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab04::run_product(m, sh.blocks, sh.threads, trace.file().c_str());
    }
  }
  std::printf("block_product<<<%d, %d>>>, %s:\n", sh.blocks, sh.threads, synclab::lab::describe(ss).c_str());
  tally.print("every run multiplied every block's matrices in order");
  return tally.passed();
}

// Graded: <<<2,32>>> and <<<1,64>>>, 3 seeds.
bool cmd_product(const Args& a) {
  if (has_shape(a)) return product_shape(a, {int(a.num("blocks", 2)), int(a.num("threads", 32)), 3});
  return product_shape(a, {2, 32, 3}) & product_shape(a, {1, 64, 3});
}

// ---- task 7 -------------------------------------------------------------------------------------
// The check before a GPU timing (bench/lab04_reduction checks again); the graded case of task 7
// (tests/labs/lab04.test.cpp) runs a few of these sizes under every schedule of task 5.
// Awkward sizes at every offset from a 16-byte boundary, 2 blocks, the graded case's schedules.
bool cmd_fast(const Args& a) {
  std::vector<int> sizes{0, 1, 2, 3, 5, 7, 31, 1000, 4099, 20000};
  if (a.has("n")) sizes = {int(a.num("n", 1000))};
  std::vector<int> offsets{0, 1, 2, 3};
  if (a.has("offset")) offsets = {int(a.num("offset", 0))};
  const int blocks = int(a.num("blocks", 2));
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 2, {"sc", "relaxed"}));
  int bad = 0, runs = 0;
  std::vector<Report> reports;
  for (int n : sizes)
    for (int offset : offsets) {
      const std::vector<int> values = lab04::random_values(n, uint32_t(n * 4 + offset));
      int want = 0;
      for (int v : values) want += v;
      for (const Schedule& s : ss) {
        lab04::FastResult r = synclab::lab::run_under(s, [&] { return lab04::run_fast(values, offset, blocks); });
        ++runs;
        reports.insert(reports.end(), r.reports.begin(), r.reports.end());
        if ((r.sum != want || r.ticket != 0 || !r.reports.empty()) && bad++ < 5)
          std::printf("  n = %d, offset %d: sum %d, expected %d; ticket %u after the launch%s\n    replay: %s\n", n,
                      offset, r.sum, want, r.ticket, r.reports.empty() ? "" : "; reported",
                      replay("fast --n " + std::to_string(n) + " --offset " + std::to_string(offset) + " --blocks " +
                                 std::to_string(blocks),
                             s)
                          .c_str());
      }
    }
  std::printf("reduce_sum_int32 with %d blocks: %d runs (%zu sizes x %zu offsets, %s), %d wrong\n", blocks, runs,
              sizes.size(), offsets.size(), synclab::lab::describe(ss).c_str(), bad);
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
  }
  return bad == 0 && reports.empty();
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab04", "Lab 04: reductions (labs/04-reductions/README.md)");
  cmds.add("tree",
           "[--kernel interleaved|sequential] [--blocks B --threads T --data-seed S] [--show any|bad|good|race|clean --trace FILE]",
           "task 1a/1b: the in-place tree, both addressings (default: the graded <<<1,32>>>, <<<2,64>>>, <<<1,128>>>)",
           {"kernel", "blocks", "threads", "data-seed", "show", "trace"}, cmd_tree);
  cmds.add("divergence", "[--threads T]",
           "task 1c: divergent warps per level, seen in a launch, against your prediction (default 64 and 256 threads)",
           {"threads"}, cmd_divergence, false);
  cmds.add("classwork", "[--kernel racy|fixed] [--blocks B --threads T --data-seed S] [--show any|bad|good|race|clean --trace FILE]",
           "task 2: the slides' in-place compaction: compact_racy races, compact_fixed must not; and your list of\n"
           "      the first level's conflicts (default: compact_fixed on the graded <<<1,32>>>, <<<2,64>>>)",
           {"kernel", "blocks", "threads", "data-seed", "show", "trace"}, cmd_classwork);
  cmds.add("barriers", "[--threads T] [--skip K] [--show any|bad|good|race|clean --trace FILE]",
           "task 3: 1b's tree without barrier K, for every K, against your prediction (default 64 and 128 threads)",
           {"threads", "skip", "show", "trace"}, cmd_barriers);
  cmds.add("tail",
           "[--kernel shuffle|unsafe|tail] [--blocks B --threads T --data-seed S] [--show any|bad|good|race|clean --trace FILE]",
           "task 4: block_sum_shuffle and block_sum_tail (default: the graded shapes), and where the provided\n"
           "      block_sum_tail_unsafe races, against your prediction",
           {"kernel", "blocks", "threads", "data-seed", "show", "trace"}, cmd_tail);
  cmds.add("grid", "[--kernel atomic|two-pass|last-block] [--blocks B --threads T --n N --data-seed S] [--show any|bad|good --trace FILE]",
           "task 5: the three grid sums, under the sc and relaxed memory models (default: the graded shapes)",
           {"kernel", "blocks", "threads", "n", "data-seed", "show", "trace"}, cmd_grid);
  cmds.add("product", "[--blocks B --threads T --data-seed S] [--show any|bad|good --trace FILE]",
           "task 6: the ordered product of 2x2 matrices (default: the graded <<<2,32>>>, <<<1,64>>>)",
           {"blocks", "threads", "data-seed", "show", "trace"}, cmd_product);
  cmds.add("fast", "[--n N --offset O --blocks B]",
           "task 7: reduce_sum_int32 on awkward sizes and offsets under sc and relaxed (the check before timing it on a GPU)",
           {"n", "offset", "blocks"}, cmd_fast);
  return cmds.run(argc, argv);
}
