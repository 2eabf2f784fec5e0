// Lab 07 (global barriers): the graded tests. Points are in the tags ([pts:N]); each case is graded
// on its own (the grader runs it in its own process). On the simulator every case explores
// schedules (rr, pct and random seeds under both warp models) with all checkers on: the values must
// be right under every explored schedule and the checkers must stay silent. The GPU barriers
// publish each round's slots through their counters and flags, so their cases also run under the
// relaxed memory model (docs/memory-model.md): a barrier without its __threadfence() is caught
// there. On a GPU the same cases repeat the run and check the results (the case that expects a
// hang does not launch it). Expected values come from the host references in this file, written
// apart from the harness: the exchange, a sort, the Smith-Waterman recurrence, and the number of
// steps of each application.
#include <synclab/catch.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "lab07.h"

namespace {

using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

// Small enough that the whole lab's suite runs in well under a minute on two cores.
Exploration exploration(int seeds, std::vector<std::string> memories = {"sc"}) {
  Exploration e;
  e.memories = std::move(memories);
  e.pct_seeds = seeds;
  e.random_seeds = seeds;
  e.gpu_runs = 20;
  return e;
}

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab07", args, s);
}

// ---- host references ------------------------------------------------------------------------------

// The exchange: in round r, the value of thread t of block b becomes 3x + (thread t of block
// (b + 1) mod N's value) + r.
std::vector<unsigned> host_exchange(const std::vector<unsigned>& in, int blocks, int threads, int rounds) {
  std::vector<unsigned> x = in;
  for (int r = 0; r < rounds; ++r) {
    std::vector<unsigned> y(x.size());
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threads; ++t)
        y[size_t(b) * threads + t] =
            3u * x[size_t(b) * threads + t] + x[size_t((b + 1) % blocks) * threads + t] + unsigned(r);
    x = y;
  }
  return x;
}

// Smith-Waterman with a linear gap, row by row (the scores of lab07.h).
std::vector<int> host_sw(const std::string& a, const std::string& b) {
  const lab07::SwScores sc = lab07::sw_scores();
  const size_t w = b.size() + 1;
  std::vector<int> H((a.size() + 1) * w, 0);
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const int diag = H[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? sc.match : sc.mismatch);
      H[i * w + j] = std::max({0, diag, H[(i - 1) * w + j] - sc.gap, H[i * w + j - 1] - sc.gap});
    }
  return H;
}

// Batcher's network on n = 2^p keys: for k = 2, 4, ..., n the merge takes log2(k) steps, so
// p (p + 1) / 2 steps in all, each needing the one before it done by every block.
long long host_bitonic_steps(int n) {
  long long p = 0;
  while ((1 << p) < n) ++p;
  return p * (p + 1) / 2;
}

// ---- messages -------------------------------------------------------------------------------------

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

std::string shape_args(lab07::Way w, int blocks, int threads, int rounds) {
  return std::string(lab07::name(w)) + " --blocks " + std::to_string(blocks) + " --threads " +
         std::to_string(threads) + " --rounds " + std::to_string(rounds);
}

// Tasks 1-6 and 10: the exchange right under every schedule, nothing reported. blocks = 0:
// coresident(). device: the simulator's device profile the runs use ("": the default), named in
// the replay line.
void check_exchange(lab07::Way w, int blocks, int threads, int rounds, int seeds,
                    const std::vector<std::string>& memories, const std::string& device = "") {
  if (blocks == 0) {
    blocks = lab07::coresident(w, threads);
    if (!(blocks >= 1)) FAIL("coresident_blocks() says " << blocks << " blocks of " << threads
                                                             << " threads fit at once (is TODO(7) done?)");
  }
  const std::vector<unsigned> in = lab07::random_inputs(blocks * threads, lab07::inputs_seed(blocks, threads));
  std::vector<unsigned> want = host_exchange(in, blocks, threads, rounds);
  // Task 10: a second launch of rounds + 1 rounds on the first one's values (run_exchange).
  if (w == lab07::Way::own) want = host_exchange(want, blocks, threads, rounds + 1);
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds, memories))) {
    lab07::ExchangeResult r = synclab::lab::run_under(
        s, [&] { return lab07::run_exchange(w, in, blocks, threads, rounds, /*keep_stuck=*/true); });
    const std::string what = std::string(lab07::name(w)) + " exchange <<<" + std::to_string(blocks) + ", " +
                             std::to_string(threads) + ">>>, " + std::to_string(rounds) + " rounds";
    const std::string cmd =
        replay(shape_args(w, blocks, threads, rounds) + (device.empty() ? "" : " --device " + device) +
                   (s.memory == "sc" && !s.on_gpu() && memories.size() > 1 ? " --memory sc" : ""),
               s);
    std::string wrong;
    if (r.stuck) {
      wrong = "the launch " + synclab::lab::stuck_word(r.reports);
    } else if (r.faulted) {
      wrong = "a launch failed: " + r.error;
    } else {
      for (size_t i = 0; wrong.empty() && i < want.size(); ++i)
        if (r.values[i] != want[i])
          wrong = "thread " + std::to_string(i % threads) + " of block " + std::to_string(i / threads) + " ended with " +
                  std::to_string(r.values[i]) + ", expected " + std::to_string(want[i]);
    }
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the values were right in this run" : wrong, r.reports, cmd,
                     lab07::exchange_advice(w, r, r.values == want, r.values == in)));
  }
  // The barriers in one launch arrive once per block: their atomics, counted on the simulator in one
  // rr run, are at most two per block and round (the tree's group and top counters, the sense
  // barrier's add and reset). A barrier where every thread arrives orders the rounds too, with a
  // block's worth of atomics and spinning threads per block.
  if (lab07::in_one_launch(w) && w != lab07::Way::grid_sync && synclab::lab::on_simulator()) {
    synclab_sim_counts c{};
    synclab::lab::run_counted([&] { return lab07::run_exchange(w, in, blocks, threads, rounds, true); }, &c);
    REQUIRE((c.launches >= 1 && c.warps_launched > 0));
    const int all_rounds = lab07::barrier_rounds(w, rounds);
    const uint64_t allowed = 2ull * uint64_t(blocks) * uint64_t(all_rounds);
    CHECKED_ELSE(c.global_atomic_lane_ops <= allowed)
    FAIL(std::string(lab07::name(w)) + " exchange <<<" + std::to_string(blocks) + ", " + std::to_string(threads) +
         ">>>, " + std::to_string(rounds) + " rounds: " + std::to_string(c.global_atomic_lane_ops) +
         " atomic operations for " + std::to_string(blocks) + " blocks in " + std::to_string(all_rounds) +
         " rounds, more than two per block and round. " + lab07::atomics_advice(w) + " " +
         synclab::lab::program_command("lab07") + " " + shape_args(w, blocks, threads, rounds) +
         (device.empty() ? "" : " --device " + device) + " counts them.");
  }
}

// ---- tasks 1 and 2: the CPU as the barrier --------------------------------------------------------

// More blocks than the simulator's `teaching` profile holds at once: a barrier made of kernel
// launches needs no co-residency.
TEST_CASE("lab07 task1 cpu_explicit_rounds runs one launch per round with more blocks than fit at once",
          "[lab07][task1][pts:2]") {
  check_exchange(lab07::Way::cpu_explicit, 6, 32, 3, 1, {"sc"});
}

TEST_CASE("lab07 task2 cpu_implicit_rounds queues the launches back to back in one stream", "[lab07][task2][pts:2]") {
  check_exchange(lab07::Way::cpu_implicit, 6, 32, 3, 1, {"sc"});
}

// ---- tasks 3-6: barriers in one launch, under both memory models ----------------------------------

TEST_CASE("lab07 task3 gpu_sync_simple orders every round under both memory models", "[lab07][task3][pts:6]") {
  check_exchange(lab07::Way::simple, 3, 32, 3, 4, {"sc", "relaxed"});
  check_exchange(lab07::Way::simple, 4, 32, 2, 4, {"sc", "relaxed"});
}

TEST_CASE("lab07 task4 gpu_sync_tree orders every round under both memory models", "[lab07][task4][pts:4]") {
  check_exchange(lab07::Way::tree, 3, 32, 3, 4, {"sc", "relaxed"});
  check_exchange(lab07::Way::tree, 4, 32, 2, 4, {"sc", "relaxed"});
}

TEST_CASE("lab07 task5 gpu_sync_lockfree orders every round under both memory models", "[lab07][task5][pts:5]") {
  check_exchange(lab07::Way::lockfree, 3, 32, 3, 4, {"sc", "relaxed"});
  check_exchange(lab07::Way::lockfree, 4, 32, 2, 4, {"sc", "relaxed"});
}

TEST_CASE("lab07 task6 gpu_sync_sense orders every round under both memory models", "[lab07][task6][pts:4]") {
  check_exchange(lab07::Way::sense, 3, 32, 3, 4, {"sc", "relaxed"});
  check_exchange(lab07::Way::sense, 4, 32, 2, 4, {"sc", "relaxed"});
}

// ---- task 7: co-residency -------------------------------------------------------------------------

TEST_CASE("lab07 task7a coresident_blocks lets the simple barrier run with every block that fits",
          "[lab07][task7][pts:3]") {
  check_exchange(lab07::Way::simple, 0, 64, 2, 1, {"sc"});
  check_exchange(lab07::Way::sense, 0, 128, 2, 1, {"sc"});
}

TEST_CASE("lab07 task7b one block more than fits at once hangs the simple barrier", "[lab07][task7][pts:2]") {
  const int threads = 64;
  const int most = lab07::coresident(lab07::Way::simple, threads);
  if (!(most >= 1)) FAIL("coresident_blocks() says " << most << " blocks fit at once (is TODO(7) done?)");
  if (!synclab::lab::on_simulator()) {
    SUCCEED("on a GPU the launch would hang for good: not run");
    return;
  }
  const int blocks = most + 1;
  const std::vector<unsigned> in = lab07::random_inputs(blocks * threads, lab07::inputs_seed(blocks, threads));
  Exploration e = exploration(1);
  for (const Schedule& s : synclab::lab::schedules(e)) {
    lab07::ExchangeResult r = synclab::lab::run_under(
        s, [&] { return lab07::run_exchange(lab07::Way::simple, in, blocks, threads, 2, /*keep_stuck=*/true); });
    const std::string cmd = replay(shape_args(lab07::Way::simple, blocks, threads, 2), s);
    CHECKED_ELSE(r.stuck)
    FAIL("simple exchange <<<" << blocks << ", " << threads << ">>> (one block more than coresident_blocks() = " << most
                               << ") finished: the resident blocks should wait at the first barrier for a block that "
                                  "cannot start until one of them ends (is TODO(3) done, and does TODO(7) count what "
                                  "really fits?)\n  replay: "
                               << cmd);
    if (!r.stuck) continue;
    // The simulator says who waits and who never started.
    const std::vector<Report> hangs = synclab::lab::of_kind(r.reports, "hang");
    CHECKED_ELSE(!hangs.empty())
    FAIL("the launch got stuck without a hang report: " << (r.reports.empty() ? "" : r.reports.front().text));
  }
}

TEST_CASE("lab07 task7c a cooperative launch of one block more than fits is refused", "[lab07][task7][pts:2]") {
  const int threads = 64;
  const int most = lab07::coresident(lab07::Way::grid_sync, threads);
  if (!(most >= 1)) FAIL("coresident_blocks() says " << most << " blocks fit at once (is TODO(7) done?)");
  const std::vector<unsigned> in = lab07::random_inputs(most * threads, lab07::inputs_seed(most, threads));
  lab07::ExchangeResult ok = lab07::run_exchange(lab07::Way::grid_sync, in, most, threads, 2);
  CHECKED_ELSE(!ok.refused)
  FAIL("a cooperative launch of coresident_blocks() = " << most << " blocks was refused (" << ok.error
                                                        << "): TODO(7) counts more blocks than fit");
  if (!ok.refused) REQUIRE(ok.values == host_exchange(in, most, threads, 2));
  const std::vector<unsigned> in2 = lab07::random_inputs((most + 1) * threads, 1);
  lab07::ExchangeResult big = lab07::run_exchange(lab07::Way::grid_sync, in2, most + 1, threads, 2);
  CHECKED_ELSE(big.refused)
  FAIL("a cooperative launch of coresident_blocks() + 1 = " << most + 1
                                                            << " blocks was accepted: TODO(7) counts fewer blocks than "
                                                               "fit (per SM times the SM count)");
}

// ---- tasks 8 and 9: the applications --------------------------------------------------------------

void check_bitonic(int n, int blocks, int threads, int seeds) {
  const std::vector<unsigned> keys = lab07::random_inputs(n, lab07::inputs_seed(blocks, n));
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab07::SortResult r = synclab::lab::run_under(s, [&] { return lab07::run_bitonic(keys, blocks, threads); });
    std::string wrong = r.stuck ? "the launch " + synclab::lab::stuck_word(r.reports) : "";
    for (size_t i = 0; wrong.empty() && i < want.size(); ++i)
      if (r.keys[i] != want[i])
        wrong = "keys[" + std::to_string(i) + "] is " + std::to_string(r.keys[i]) + ", expected " +
                std::to_string(want[i]) + (r.keys == keys ? " (the keys never moved: is TODO(8) done?)" : "");
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message("bitonic_sort_grid<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>> over " +
                         std::to_string(n) + " keys",
                     wrong.empty() ? "sorted in this run" : wrong, r.reports,
                     replay("bitonic --n " + std::to_string(n) + " --blocks " + std::to_string(blocks) +
                                " --threads " + std::to_string(threads),
                            s),
                     lab07::grid_app_advice(r.reports, "step (k, j)", "pairs")));
  }
}

TEST_CASE("lab07 task8 bitonic_sort_grid sorts with a grid barrier per step", "[lab07][task8][pts:4]") {
  check_bitonic(128, 4, 16, 1);
  check_bitonic(64, 3, 8, 1);
}

void check_sw(int m, int n, int blocks, int threads, int seeds) {
  const uint32_t seed = lab07::inputs_seed(m, n);
  const std::string a = lab07::random_sequence(m, seed), b = lab07::random_sequence(n, seed + 1);
  const std::vector<int> want = host_sw(a, b);
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab07::SwResult r = synclab::lab::run_under(s, [&] { return lab07::run_sw(a, b, blocks, threads); });
    std::string wrong = r.stuck ? "the launch " + synclab::lab::stuck_word(r.reports) : "";
    for (size_t k = 0; wrong.empty() && k < want.size(); ++k)
      if (r.H[k] != want[k])
        wrong = "H[" + std::to_string(k / (n + 1)) + "][" + std::to_string(k % (n + 1)) + "] is " +
                std::to_string(r.H[k]) + ", expected " + std::to_string(want[k]) +
                (std::all_of(r.H.begin(), r.H.end(), [](int v) { return v == 0; }) ? " (is TODO(9) done?)" : "");
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message("sw_fill_grid<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>, " +
                         std::to_string(m) + " x " + std::to_string(n),
                     wrong.empty() ? "the matrix was right in this run" : wrong, r.reports,
                     replay("sw --m " + std::to_string(m) + " --n " + std::to_string(n) + " --blocks " +
                                std::to_string(blocks) + " --threads " + std::to_string(threads),
                            s),
                     lab07::grid_app_advice(r.reports, "anti-diagonal", "cells")));
  }
}

TEST_CASE("lab07 task9 sw_fill_grid fills the matrix one anti-diagonal at a time", "[lab07][task9][pts:4]") {
  check_sw(12, 9, 3, 4, 1);
  check_sw(7, 16, 2, 8, 1);
}

TEST_CASE("lab07 task9b count the grid barriers of both applications", "[lab07][task9][pts:2]") {
  for (int n : {2, 64, 1024, 1 << 20}) {
    CHECKED_ELSE(lab07::predicted_bitonic_barriers(n) == host_bitonic_steps(n))
    FAIL_CHECK("bitonic_barriers(" << n << ") = " << lab07::predicted_bitonic_barriers(n)
                                   << " disagrees with the steps of the network (TODO(9b): count the (k, j) pairs)");
  }
  for (auto [m, n] : {std::pair<int, int>{12, 9}, {1, 1}, {1000, 3000}}) {
    // Anti-diagonals d = i + j run from 2 to m + n: m + n - 1 of them, a barrier after each.
    const long long want = m + n - 1;
    CHECKED_ELSE(lab07::predicted_sw_barriers(m, n) == want)
    FAIL_CHECK("sw_barriers(" << m << ", " << n << ") = " << lab07::predicted_sw_barriers(m, n)
                              << " disagrees with the anti-diagonals of the matrix (TODO(9b): one grid.sync() each)");
  }
}

}  // namespace

// ---- task 10: a barrier of your own design ---------------------------------------------------------
// Graded by its contract (lab07_kernels.cuh, above own_grid_barrier) and nothing else: any design
// that keeps it passes (the reference solution's central counter and generation word, and the
// combining tree of tests/labs/designs/07-global-barriers/, both do). Each shape runs the exchange
// as two launches on one barrier state, zeroed before the first only; every explored run must give
// the host's values with nothing reported and no hang, under both warp models and both memory
// models; and the atomics, counted in one run, are at most two per block and round.

TEST_CASE("lab07 task10 own_grid_barrier keeps its contract over two launches on one state under both warp and "
          "memory models",
          "[lab07][task10][pts:4]") {
  check_exchange(lab07::Way::own, 1, 32, 3, 2, {"sc", "relaxed"});
  check_exchange(lab07::Way::own, 3, 32, 3, 2, {"sc", "relaxed"});
  check_exchange(lab07::Way::own, 4, 64, 2, 2, {"sc", "relaxed"});
}

// The teaching profile holds 4 blocks at once; the simulated H100 holds 40 blocks of 32 threads
// (so does a real one).
TEST_CASE("lab07 task10 own_grid_barrier holds more blocks than threads per block (40 blocks of 32 threads)",
          "[lab07][task10][pts:2]") {
  const synclab::lab::DeviceProfileScope h100("h100");
  check_exchange(lab07::Way::own, 40, 32, 3, 1, {"sc", "relaxed"}, "h100");
}
