// Lab 05 (prefix sums): the graded tests. Points are in the tags ([pts:N]); each case is graded on
// its own (the grader runs it in its own process). On the simulator every case explores schedules
// (rr, pct and random seeds under both warp models) with all checkers on: a scan must be right
// under every explored schedule and the checkers must stay silent, so a race must be gone, not
// merely unlucky. The look-back publishes values through flags, so its cases also run under the
// relaxed memory model (docs/memory-model.md), and its blocks start in reverse blockIdx order
// (harness.cu sets SYNCLAB_DISPATCH=reverse unless it is set): more tiles than fit at once must
// still finish. On a GPU the same cases repeat the run and check the results. Expected values come
// from the host references in this file, written apart from the harness.
#include <synclab/catch.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "lab05.h"

namespace {

using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

// Small enough that the whole lab's suite runs in well under two minutes on two cores: tiny
// launches, several seeds each.
Exploration exploration(int seeds, std::vector<std::string> memories = {"sc"}) {
  Exploration e;
  e.memories = std::move(memories);
  e.pct_seeds = seeds;
  e.random_seeds = seeds;
  e.gpu_runs = 20;
  return e;
}

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab05", args, s);
}

// ---- host references ------------------------------------------------------------------------------

// The scan of each segment of `seg` values (0: the whole array), inclusive or exclusive.
std::vector<int> host_scan(const std::vector<int>& v, size_t seg, bool inclusive) {
  std::vector<int> out;
  int running = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (seg != 0 && i % seg == 0) running = 0;
    if (!inclusive) out.push_back(running);
    running += v[i];
    if (inclusive) out.push_back(running);
  }
  return out;
}

// The odd values of v, in order.
std::vector<int> host_compact(const std::vector<int>& v) {
  std::vector<int> out;
  for (int x : v)
    if (x % 2 != 0) out.push_back(x);
  return out;
}

// "out[17] is 40, expected 43" for the first difference ("" when equal).
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

// ---- messages -----------------------------------------------------------------------------------

// The failure message of a run: what ran, what was wrong, the first report, the replay line, advice.
std::string run_message(const std::string& what, const std::string& wrong, const std::vector<Report>& reports,
                        const std::string& replay_line, const std::string& hint) {
  std::ostringstream o;
  o << what << ": " << wrong;
  if (!reports.empty())
    o << "; the simulator reported " << reports.size() << " problem(s), first: " << synclab::lab::brief(reports.front());
  o << "\n  replay: " << replay_line << "\n";
  if (!reports.empty()) o << reports.front().text << "\n";
  if (!hint.empty()) o << "  (" << hint << ")\n";
  return o.str();
}

// ---- tasks 1 and 2 ----------------------------------------------------------------------------------

void check_block(lab05::BlockKernel kernel, const std::string& command, int blocks, int threads, int seeds,
                 const std::string& todo) {
  const int n = blocks * threads;
  const std::vector<int> values = lab05::random_values(n, lab05::values_seed(n, threads));
  REQUIRE(values.size() == size_t(n));
  const std::vector<int> want = host_scan(values, threads, !lab05::exclusive(kernel));
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab05::BlockResult r =
        synclab::lab::run_under(s, [&] { return lab05::run_block(kernel, values, blocks, threads); });
    const std::string what = std::string(lab05::name(kernel)) + "<<<" + std::to_string(blocks) + ", " +
                             std::to_string(threads) + ">>>";
    const std::string cmd =
        replay(command + " --blocks " + std::to_string(blocks) + " --threads " + std::to_string(threads), s);
    std::string wrong = first_difference(r.out, want);
    if (!wrong.empty() && (r.out == values || all_zero(r.out))) wrong += " (" + todo + ")";
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the scan was right in this run" : wrong, r.reports, cmd,
                     r.reports.empty() ? lab05::block_result_advice(kernel, values, threads, r.out)
                                       : lab05::block_advice(kernel, r.reports.front())));
  }
}

TEST_CASE("lab05 task1a scan_hillis_fixed scans in place without the slides' race", "[lab05][task1][pts:3]") {
  check_block(lab05::BlockKernel::hillis_fixed, "hillis --kernel fixed", 1, 32, 3, "is TODO(1a) done?");
  check_block(lab05::BlockKernel::hillis_fixed, "hillis --kernel fixed", 2, 64, 3, "is TODO(1a) done?");
  // The exploration finds the race the slides describe in the provided in-place version.
  if (synclab::lab::on_simulator()) {
    const std::vector<int> values = lab05::random_values(64, lab05::values_seed(64, 64));
    bool raced = false;
    for (const Schedule& s : synclab::lab::schedules(exploration(1)))
      raced = raced || !synclab::lab::of_kind(synclab::lab::run_under(s, [&] {
                                                return lab05::run_block(lab05::BlockKernel::hillis_racy, values, 1, 64);
                                              }).reports,
                                              "race")
                            .empty();
    CHECK(raced);
  }
}

TEST_CASE("lab05 task1b scan_hillis_double scans with one barrier per level", "[lab05][task1][pts:3]") {
  check_block(lab05::BlockKernel::hillis_double, "hillis --kernel double", 1, 32, 3, "is TODO(1b) done?");
  check_block(lab05::BlockKernel::hillis_double, "hillis --kernel double", 2, 64, 3, "is TODO(1b) done?");
}

TEST_CASE("lab05 task2 scan_blelloch computes the exclusive scan with an up-sweep and a down-sweep",
          "[lab05][task2][pts:4]") {
  check_block(lab05::BlockKernel::blelloch, "blelloch", 1, 32, 3, "is TODO(2) done?");
  check_block(lab05::BlockKernel::blelloch, "blelloch", 2, 64, 3, "is TODO(2) done?");
}

// ---- task 3 -------------------------------------------------------------------------------------

void check_multiblock(int n, int threads, int seeds) {
  const std::vector<int> values = lab05::random_values(n, lab05::values_seed(n, threads));
  const std::vector<int> want = host_scan(values, 0, true);
  const int tiles = (n + threads - 1) / threads;
  std::vector<int> tile_totals(tiles, 0);
  for (int i = 0; i < n; ++i) tile_totals[i / threads] += values[i];
  const std::vector<int> want_offsets = host_scan(tile_totals, 0, false);
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab05::ScanResult r = synclab::lab::run_under(s, [&] { return lab05::run_multiblock(values, threads); });
    const std::string what = "tile_sums, scan_tile_sums, scan_tiles over " + std::to_string(n) + " values in " +
                             std::to_string(tiles) + " tiles of " + std::to_string(threads);
    const std::string cmd = replay("multiblock --n " + std::to_string(n) + " --threads " + std::to_string(threads), s);
    std::string wrong = first_difference(r.out, want), hint;
    if (!wrong.empty()) {
      if (all_zero(r.out)) {
        wrong += " (is TODO(3) done?)";
      } else if (r.sums != want_offsets) {
        hint = "after scan_tile_sums, sums[b] must be tile b's offset: the sum of the tiles before it (the exclusive "
               "scan of the tile sums), so sums[0] is 0";
        if (r.sums == host_scan(tile_totals, 0, true))
          hint += "; yours holds the inclusive scan, each tile's offset counts its own values too";
      }
    }
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the scan was right in this run" : wrong, r.reports, cmd, hint));
  }
}

TEST_CASE("lab05 task3 reduce then scan across tiles in three launches", "[lab05][task3][pts:4]") {
  check_multiblock(300, 64, 3);
  check_multiblock(100, 32, 3);
}

// ---- task 4 -------------------------------------------------------------------------------------

void check_lookback(int n, int threads, int seeds) {
  const std::vector<int> values = lab05::random_values(n, lab05::values_seed(n, threads));
  const std::vector<int> want = host_scan(values, 0, true);
  const int tiles = (n + threads - 1) / threads;
  // The flags publish the aggregates and prefixes: explore the relaxed memory model too.
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds, {"sc", "relaxed"}))) {
    lab05::LookbackResult r = synclab::lab::run_under(s, [&] { return lab05::run_lookback(values, threads); });
    const std::string what = "scan_lookback over " + std::to_string(n) + " values in " + std::to_string(tiles) +
                             " tiles of " + std::to_string(threads) + " (blocks dispatched " +
                             lab05::dispatch_words() + ")";
    const std::string cmd = replay("lookback --n " + std::to_string(n) + " --threads " + std::to_string(threads) +
                                       (s.memory == "sc" && !s.on_gpu() ? " --memory sc" : ""),
                                   s);
    std::string wrong;
    if (r.stuck) {
      wrong = "the launch never finished";
    } else {
      wrong = first_difference(r.out, want);
      if (!wrong.empty() && all_zero(r.out)) wrong += " (is TODO(4) done?)";
    }
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the scan was right in this run" : wrong, r.reports, cmd,
                     lab05::lookback_advice(r, s.memory, !wrong.empty())));
    if (r.stuck) continue;
    CHECKED_ELSE(r.tile_counter == unsigned(tiles))
    FAIL(what << ": the tile counter ended at " << r.tile_counter << ", expected " << tiles
              << " (one atomicAdd per block)\n  replay: " << cmd);
    for (int t = 0; t < tiles; ++t) {
      CHECKED_ELSE(r.flags[t] == lab05::kFlagPrefix)
      FAIL(what << ": tile " << t << "'s flag ended at " << r.flags[t] << ", expected kPrefix (" << lab05::kFlagPrefix
                << "): every tile publishes its inclusive prefix, for the tiles after it\n  replay: " << cmd);
    }
  }
}

TEST_CASE("lab05 task4a scan_lookback scans across tiles in one pass under both memory models",
          "[lab05][task4][pts:5]") {
  check_lookback(300, 64, 3);
  check_lookback(100, 32, 3);
}

TEST_CASE("lab05 task4b scan_lookback finishes with more tiles than fit on the GPU when blocks start in reverse order",
          "[lab05][task4][pts:3]") {
  // 8 tiles of 32: the teaching profile runs 4 blocks at once (docs/simulator.md), so half the
  // blocks wait for a running one to finish.
  if (synclab::lab::on_simulator() && lab05::dispatch_order() != "reverse")
    FAIL("this case needs the blocks started in reverse blockIdx order, as the lab's programs start them unless "
         "SYNCLAB_DISPATCH is set; it is set to '"
         << lab05::dispatch_order() << "' here: unset it and run the case again");
  check_lookback(256, 32, 2);
}

// ---- task 5 -------------------------------------------------------------------------------------

void check_compact(int n, int blocks, int threads, int seeds) {
  const std::vector<int> values = lab05::random_values(n, lab05::values_seed(n, threads));
  const std::vector<int> want = host_compact(values);
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab05::CompactResult r = synclab::lab::run_under(s, [&] { return lab05::run_compact(values, blocks, threads); });
    const std::string what = "keep_flags and scatter_kept over " + std::to_string(n) + " values, <<<" +
                             std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
    const std::string cmd = replay("compact --n " + std::to_string(n) + " --blocks " + std::to_string(blocks) +
                                       " --threads " + std::to_string(threads),
                                   s);
    std::string wrong = first_difference(r.out, want), hint;
    if (!wrong.empty() && r.count == 0) wrong += " (no value was kept: is TODO(5) done in keep_flags?)";
    else hint = lab05::compact_advice(r, int(want.size()), !wrong.empty());
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the output was right in this run" : wrong, r.reports, cmd, hint));
  }
}

TEST_CASE("lab05 task5 compact keeps the odd values in order by scan and scatter", "[lab05][task5][pts:4]") {
  check_compact(300, 3, 64, 3);
  check_compact(100, 2, 32, 3);
}

// ---- task 2b: Blelloch without bank conflicts, counted on the simulator -------------------------------
// The wavefronts are those Nsight Compute counts on a GPU (docs/profile.md; tests/profile compares
// them with an H200's, lab 05's Blelloch scans included).

TEST_CASE("lab05 task2b scan_blelloch_padded scans with (nearly) no shared-memory bank conflicts",
          "[lab05][task2b][pts:3]") {
  check_block(lab05::BlockKernel::blelloch_padded, "blelloch --kernel padded", 1, 32, 3, "is TODO(2b) done?");
  check_block(lab05::BlockKernel::blelloch_padded, "blelloch --kernel padded", 2, 64, 3, "is TODO(2b) done?");
  if (!synclab::lab::on_simulator()) {
    WARN("task 2b's bank conflicts are counted on the simulator (on a GPU: Nsight Compute's shared wavefronts)");
    return;
  }
  const int blocks = 4, threads = 256, n = blocks * threads;
  const std::vector<int> values = lab05::random_values(n, lab05::values_seed(n, threads));
  synclab_sim_counts c{};
  const lab05::BlockResult r = synclab::lab::run_counted(
      [&] { return lab05::run_block(lab05::BlockKernel::blelloch_padded, values, blocks, threads); }, &c);
  REQUIRE(c.launches >= 1);
  if (r.out != host_scan(values, threads, false) || !r.reports.empty())
    FAIL("scan_blelloch_padded<<<4, 256>>>: the scan is not right yet, or the run has reports (the cases above say why)");
  const uint64_t wavefronts = c.shared_ld_wavefronts + c.shared_st_wavefronts;
  const uint64_t ideal = c.shared_ld_ideal + c.shared_st_ideal;
  // The padding of GPU Gems 3 leaves none with 256 threads; 10% is slack for another layout.
  CHECKED_ELSE((c.shared_ld_wavefronts > 0 && wavefronts * 10 <= ideal * 11))
  FAIL("scan_blelloch_padded<<<4, 256>>>: its shared-memory accesses took " + std::to_string(wavefronts) +
       " wavefronts where " + std::to_string(ideal) + " would do (" + std::to_string(wavefronts - ideal) +
       " bank conflicts: lanes of a warp that touch different words of one bank wait for each other). At stride d a warp's "
       "threads touch elements 2d apart, so each bank they use is hit 2d times (32 from 2d = 32 on); keep element i at s[i + i / 32] everywhere (the load, both "
       "sweeps, the root and the store) so that every 32 elements shift by one bank. " +
       synclab::lab::program_command("lab05") +
       " blelloch --kernel padded --blocks 4 --threads 256 --profile prints the lines with the most extra "
       "wavefronts.");
}

}  // namespace
