// Lab 05 (prefix sums): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab05 hillis     [--kernel racy|fixed|double] [--blocks B --threads T --data-seed S]
//                    [--show any|bad|good|race --trace FILE]
//   lab05 blelloch   [--kernel plain|padded] [--blocks B --threads T --data-seed S]
//                    [--show any|bad|good|race --trace FILE]
//   lab05 multiblock [--n N --threads T --data-seed S] [--show any|bad|good|stuck --trace FILE]
//   lab05 lookback   [--n N --threads T --data-seed S] [--show any|bad|good|stuck --trace FILE]
//   lab05 compact    [--n N --blocks B --threads T --data-seed S] [--show any|bad|good --trace FILE]
//   lab05 all        every task's check
//   (and the exploration options of synclab_lab.h: --seeds N, --model M (or --models), --sched P,
//   --seed S, --memory M, ...)
//
// Without shape options a command runs the launch shapes and inputs of the task's graded tests,
// over the same schedules (rr, pct and random seeds; both warp models; task 4 also under the
// relaxed memory model); on a GPU it repeats the run. Every failure names the command that
// replays it. --trace records one run: the first explored run that --show names (synclab_lab.h).
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "lab05.h"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

Exploration exploration(const Args& a, int seeds, const std::vector<std::string>& memories = {"sc"}) {
  return synclab::lab::exploration_from(a, seeds, 5, memories);
}

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab05", args, s);
}

using synclab::lab::print_reports;

using synclab::lab::TraceChoice;

// Host references: the inclusive and exclusive scans of v, segment by segment (seg = 0: whole).
std::vector<int> host_scan(const std::vector<int>& v, size_t seg, bool excl) {
  std::vector<int> out(v.size());
  int sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (seg && i % seg == 0) sum = 0;
    out[i] = excl ? sum : sum + v[i];
    sum += v[i];
  }
  return out;
}

std::string first_difference(const std::vector<int>& got, const std::vector<int>& want) {
  if (got.size() != want.size())
    return "it has " + std::to_string(got.size()) + " values, expected " + std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i])
      return "out[" + std::to_string(i) + "] is " + std::to_string(got[i]) + ", expected " + std::to_string(want[i]);
  return "";
}

bool all_zero(const std::vector<int>& v) {
  for (int x : v)
    if (x != 0) return false;
  return true;
}

// The summary every command prints after exploring one shape.
bool summary(const std::string& what, const std::vector<Schedule>& ss, int bad, const std::string& first_bad,
             const std::vector<Report>& reports, const char* ok_text, const std::string& advice = "") {
  std::printf("%s, %s:\n", what.c_str(), synclab::lab::describe(ss).c_str());
  if (bad)
    std::printf("  wrong or reported in %d runs; first: %s\n", bad, first_bad.c_str());
  else
    std::printf("  %s\n", ok_text);
  if (!reports.empty()) {
    std::printf("  the simulator reported:\n");
    print_reports(reports);
    std::printf("  the first report in full:\n%s\n", reports.front().text.c_str());
  }
  if (bad && !advice.empty()) std::printf("  what to fix (from the first bad run): %s\n", advice.c_str());
  return bad == 0 && reports.empty();
}

struct Shape {
  int n, blocks, threads, seeds;
};

uint32_t data_seed(const Args& a, int n, int threads) {
  return uint32_t(a.num("data-seed", lab05::values_seed(n, threads)));
}

std::string data_arg(const Args& a, uint32_t seed) {
  return a.has("data-seed") ? " --data-seed " + std::to_string(seed) : "";
}

// ---- tasks 1 and 2 --------------------------------------------------------------------------------
bool block_shape(const Args& a, const std::string& command, lab05::BlockKernel kernel, const Shape& sh) {
  const int n = sh.blocks * sh.threads;
  const uint32_t seed = data_seed(a, n, sh.threads);
  const std::vector<int> values = lab05::random_values(n, seed);
  const std::vector<int> want = host_scan(values, sh.threads, lab05::exclusive(kernel));
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds));
  const std::string args = command + " --blocks " + std::to_string(sh.blocks) + " --threads " +
                           std::to_string(sh.threads) + data_arg(a, seed);
  const TraceChoice trace(a, "any", {"race"});  // race: a run that was reported
  int bad = 0;
  std::string first_bad, advice;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    lab05::BlockResult r =
        synclab::lab::run_under(s, [&] { return lab05::run_block(kernel, values, sh.blocks, sh.threads); });
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    std::string what = first_difference(r.out, want);
    if (!what.empty() && (r.out == values || all_zero(r.out)))
      what += kernel == lab05::BlockKernel::hillis_fixed    ? " (is TODO(1a) done?)"
              : kernel == lab05::BlockKernel::hillis_double ? " (is TODO(1b) done?)"
              : kernel == lab05::BlockKernel::blelloch      ? " (is TODO(2) done?)"
              : kernel == lab05::BlockKernel::blelloch_padded ? " (is TODO(2b) done?)"
                                                              : "";
    if (what.empty() && !r.reports.empty()) what = synclab::lab::brief(r.reports.front());
    if (!what.empty() && !bad++) {
      first_bad = what + ", in:\n    " + replay(args, s);
      advice = r.reports.empty() ? lab05::block_result_advice(kernel, values, sh.threads, r.out)
                                 : lab05::block_advice(kernel, r.reports.front());
    }
    if (trace.wants(!what.empty(), r.reports.empty() ? "" : "race")) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab05::run_block(kernel, values, sh.blocks, sh.threads, trace.file().c_str());
    }
  }
  const std::string what = std::string(lab05::name(kernel)) + "<<<" + std::to_string(sh.blocks) + ", " +
                           std::to_string(sh.threads) + ">>>";
  return summary(what, ss, bad, first_bad, reports,
                 lab05::exclusive(kernel) ? "every run scanned every block right (exclusive)"
                                          : "every run scanned every block right (inclusive)",
                 advice);
}

bool has_shape(const Args& a) { return a.has("blocks") || a.has("threads") || a.has("data-seed") || a.has("n"); }

// Graded (1a, 1b, 2): <<<1,32>>> and <<<2,64>>>, 3 seeds.
const std::vector<Shape> kBlockShapes{{0, 1, 32, 3}, {0, 2, 64, 3}};

bool block_command(const Args& a, const std::string& command, const std::string& k) {
  const lab05::BlockKernel kernel = lab05::block_kernel(k);
  if (has_shape(a))
    return block_shape(a, command, kernel, {0, int(a.num("blocks", 1)), int(a.num("threads", 32)), 3});
  bool ok = true;
  for (const Shape& sh : kBlockShapes) ok &= block_shape(a, command, kernel, sh);
  return ok;
}

bool cmd_hillis(const Args& a) {
  if (a.has("kernel")) {
    const std::string k = a.get("kernel", "");
    const bool ok = block_command(a, "hillis --kernel " + k, k);
    if (k == "racy") {
      std::printf("(scan_hillis_racy is the slides' in-place version: its reports are the lesson, not a failure of "
                  "yours)\n");
      return true;
    }
    return ok;
  }
  bool ok = block_command(a, "hillis --kernel fixed", "fixed");
  ok &= block_command(a, "hillis --kernel double", "double");
  return ok;
}

bool cmd_blelloch(const Args& a) {
  const std::string k = a.get("kernel", "");
  if (k == "padded") return block_command(a, "blelloch --kernel padded", "padded");
  if (!k.empty() && k != "plain") throw std::invalid_argument("--kernel takes plain or padded, not '" + k + "'");
  bool ok = block_command(a, k.empty() ? "blelloch --kernel plain" : "blelloch", "blelloch");
  if (k.empty()) ok &= block_command(a, "blelloch --kernel padded", "padded");
  return ok;
}

// ---- tasks 3 and 4 ----------------------------------------------------------------------------------
// Graded: 300 values in tiles of 64 and 100 in tiles of 32 (5 and 4 tiles), 3 seeds; task 4 also
// 256 values in tiles of 32 (8 tiles, twice what the teaching profile runs at once).
bool scan_shape(const Args& a, const std::string& command, bool lookback, const Shape& sh) {
  const uint32_t seed = data_seed(a, sh.n, sh.threads);
  const std::vector<int> values = lab05::random_values(sh.n, seed);
  const std::vector<int> want = host_scan(values, 0, false);
  // The look-back publishes each tile's values through its flag: explore the relaxed memory model too.
  std::vector<Schedule> ss =
      synclab::lab::schedules(exploration(a, sh.seeds, lookback ? std::vector<std::string>{"sc", "relaxed"}
                                                                : std::vector<std::string>{"sc"}));
  const std::string args =
      command + " --n " + std::to_string(sh.n) + " --threads " + std::to_string(sh.threads) + data_arg(a, seed);
  const TraceChoice trace(a, "any", {"stuck"});  // stuck: a launch that never finished
  const int tiles = (sh.n + sh.threads - 1) / sh.threads;
  std::vector<int> tile_totals(tiles, 0);  // task 3: sums after scan_tile_sums = their exclusive scan
  for (int i = 0; i < sh.n; ++i) tile_totals[i / sh.threads] += values[i];
  const std::vector<int> want_offsets = host_scan(tile_totals, 0, true);
  int bad = 0, stuck = 0;
  std::string first_bad, advice;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    std::vector<int> out;
    std::vector<Report> rs;
    bool hung = false;
    std::string state;  // task 4: what is wrong with the tile counter or the flags
    std::string hint;   // task 3: what is wrong with the offsets
    lab05::LookbackResult lr;
    if (lookback) {
      lr = synclab::lab::run_under(s, [&] { return lab05::run_lookback(values, sh.threads); });
      out = lr.out, rs = lr.reports, hung = lr.stuck;
      if (!hung && lr.tile_counter != unsigned(tiles))
        state = "the tile counter ended at " + std::to_string(lr.tile_counter) + ", expected " +
                std::to_string(tiles) + " (one atomicAdd per block)";
      for (int t = 0; !hung && state.empty() && t < tiles; ++t)
        if (lr.flags[t] != lab05::kFlagPrefix)
          state = "tile " + std::to_string(t) + "'s flag ended at " + std::to_string(lr.flags[t]) +
                  ", expected kPrefix (" + std::to_string(lab05::kFlagPrefix) +
                  "): every tile publishes its inclusive prefix, for the tiles after it";
    } else {
      lab05::ScanResult r = synclab::lab::run_under(s, [&] { return lab05::run_multiblock(values, sh.threads); });
      out = r.out, rs = r.reports;
      if (r.sums != want_offsets) {
        hint = "after scan_tile_sums, sums[b] must be tile b's offset: the sum of the tiles before it (the exclusive "
                "scan of the tile sums), so sums[0] is 0";
        if (r.sums == host_scan(tile_totals, 0, false))
          hint += "; yours holds the inclusive scan, each tile's offset counts its own values too";
      }
    }
    reports.insert(reports.end(), rs.begin(), rs.end());
    stuck += hung;
    std::string what = hung ? "the launch never finished" : first_difference(out, want);
    const bool wrong = !what.empty();
    if (wrong && !hung && all_zero(out)) what += lookback ? " (is TODO(4) done?)" : " (is TODO(3) done?)";
    if (what.empty() && !rs.empty()) what = synclab::lab::brief(rs.front());
    if (what.empty()) what = state;
    const std::string memory = lookback && s.memory == "sc" && !s.on_gpu() ? " --memory sc" : "";
    if (!what.empty() && !bad++) {
      first_bad = what + ", in:\n    " + replay(args + memory, s);
      if (lookback) advice = lab05::lookback_advice(lr, s.memory, wrong);
      else if (wrong && !all_zero(out)) advice = hint;
    }
    if (trace.wants(!what.empty(), hung ? "stuck" : "")) {
      trace.recording(s);
      synclab::lab::apply(s);
      if (lookback)
        lab05::run_lookback(values, sh.threads, trace.file().c_str());
      else
        lab05::run_multiblock(values, sh.threads, trace.file().c_str());
    }
  }
  const std::string what = std::string(lookback ? "scan_lookback" : "tile_sums, scan_tile_sums, scan_tiles") +
                           " over " + std::to_string(sh.n) + " values, " + std::to_string(tiles) + " tiles of " +
                           std::to_string(sh.threads) +
                           (lookback ? ", blocks dispatched " + lab05::dispatch_words() : "");
  const bool ok = summary(what, ss, bad, first_bad, reports,
                          lookback ? "every run scanned every value right and left every tile's flag at kPrefix"
                                   : "every run scanned every value right",
                          advice);
  if (stuck)
    std::printf("  %d runs never finished: a block waited for a tile that no running block holds, for a flag that is "
                "never set, or on a flag it loaded only once (through a plain pointer)\n",
                stuck);
  return ok;
}

bool cmd_multiblock(const Args& a) {
  if (has_shape(a))
    return scan_shape(a, "multiblock", false, {int(a.num("n", 300)), 0, int(a.num("threads", 64)), 3});
  return scan_shape(a, "multiblock", false, {300, 0, 64, 3}) & scan_shape(a, "multiblock", false, {100, 0, 32, 3});
}

bool cmd_lookback(const Args& a) {
  if (has_shape(a))
    return scan_shape(a, "lookback", true, {int(a.num("n", 300)), 0, int(a.num("threads", 64)), 3});
  bool ok = scan_shape(a, "lookback", true, {300, 0, 64, 3});
  ok &= scan_shape(a, "lookback", true, {100, 0, 32, 3});
  ok &= scan_shape(a, "lookback", true, {256, 0, 32, 2});
  return ok;
}

// ---- task 5 -------------------------------------------------------------------------------------------
bool compact_shape(const Args& a, const Shape& sh) {
  const uint32_t seed = data_seed(a, sh.n, sh.threads);
  const std::vector<int> values = lab05::random_values(sh.n, seed);
  std::vector<int> want;
  for (int v : values)
    if (v % 2 != 0) want.push_back(v);  // kept() of lab05_kernels.cuh: the odd values
  std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds));
  const std::string args = "compact --n " + std::to_string(sh.n) + " --blocks " + std::to_string(sh.blocks) +
                           " --threads " + std::to_string(sh.threads) + data_arg(a, seed);
  const TraceChoice trace(a, "any");
  int bad = 0;
  std::string first_bad, advice;
  std::vector<Report> reports;
  for (const Schedule& s : ss) {
    lab05::CompactResult r =
        synclab::lab::run_under(s, [&] { return lab05::run_compact(values, sh.blocks, sh.threads); });
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    std::string what = first_difference(r.out, want);
    const bool wrong = !what.empty();
    if (what.empty() && !r.reports.empty()) what = synclab::lab::brief(r.reports.front());
    if (!what.empty() && !bad++) {
      first_bad = what + ", in:\n    " + replay(args, s);
      advice = lab05::compact_advice(r, int(want.size()), wrong);
    }
    if (trace.wants(!what.empty())) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab05::run_compact(values, sh.blocks, sh.threads, trace.file().c_str());
    }
  }
  return summary("keep_flags and scatter_kept over " + std::to_string(sh.n) + " values, <<<" +
                     std::to_string(sh.blocks) + ", " + std::to_string(sh.threads) + ">>>",
                 ss, bad, first_bad, reports, "every run kept the odd values, in order", advice);
}

// Graded: 300 values over <<<3,64>>> and 100 over <<<2,32>>>, 3 seeds.
bool cmd_compact(const Args& a) {
  if (has_shape(a))
    return compact_shape(a, {int(a.num("n", 300)), int(a.num("blocks", 3)), int(a.num("threads", 64)), 3});
  return compact_shape(a, {300, 3, 64, 3}) & compact_shape(a, {100, 2, 32, 3});
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab05", "Lab 05: prefix sums (labs/05-prefix-sums/README.md)");
  cmds.add("hillis", "[--kernel racy|fixed|double] [--blocks B --threads T --data-seed S] [--show any|bad|good|race --trace FILE]",
           "task 1: Hillis-Steele: the slides' racy in-place scan, 1a's fix, 1b's double buffer (default: fixed and\n"
           "      double on the graded <<<1,32>>>, <<<2,64>>>)",
           {"kernel", "blocks", "threads", "data-seed", "show", "trace"}, cmd_hillis);
  cmds.add("blelloch", "[--kernel plain|padded] [--blocks B --threads T --data-seed S] [--show any|bad|good|race --trace FILE]",
           "task 2: the work-efficient exclusive scan, 2b: without bank conflicts (default: both on the graded\n"
           "      <<<1,32>>>, <<<2,64>>>; --profile counts the bank conflicts)",
           {"kernel", "blocks", "threads", "data-seed", "show", "trace"}, cmd_blelloch);
  cmds.add("multiblock", "[--n N --threads T --data-seed S] [--show any|bad|good|stuck --trace FILE]",
           "task 3: reduce, then scan, in three launches (default: the graded 300 values in tiles of 64, 100 in 32)",
           {"n", "threads", "data-seed", "show", "trace"}, cmd_multiblock);
  cmds.add("lookback", "[--n N --threads T --data-seed S] [--show any|bad|good|stuck --trace FILE]",
           "task 4: the single-pass scan with decoupled look-back, under the sc and relaxed memory models\n"
           "      (default: the graded 300 values in tiles of 64, 100 in 32, 256 in 32)",
           {"n", "threads", "data-seed", "show", "trace"}, cmd_lookback);
  cmds.add("compact", "[--n N --blocks B --threads T --data-seed S] [--show any|bad|good --trace FILE]",
           "task 5: stream compaction by scan and scatter (default: the graded 300 values over <<<3,64>>>, 100\n"
           "      over <<<2,32>>>)",
           {"n", "blocks", "threads", "data-seed", "show", "trace"}, cmd_compact);
  return cmds.run(argc, argv);
}
