// Lab 07 (global barriers): the harness program (provided). One sub-command per task; each runs the
// student's code, checks the result against a host reference, and says what went wrong.
//
//   lab07 explicit|implicit   [--blocks B --threads T --rounds R --data-seed S]     tasks 1, 2
//   lab07 simple|tree|lockfree|sense|grid-sync|own
//                             [--blocks B --threads T --rounds R --data-seed S --device P]
//                             tasks 3-6 and 10 (--blocks 0: as many as coresident_blocks() says fit
//                             at once; --device: the simulator's device profile, e.g. h100)
//   lab07 residency           [--threads T]   task 7: the co-resident maximum, a barrier with one
//                             block more (hangs), a cooperative launch with one more (refused)
//   lab07 bitonic             [--n N --blocks B --threads T --data-seed S]   task 8
//                             (without options: the first shape of the graded tests, 128 keys over <<<4, 16>>>)
//   lab07 sw                  [--m M --n N --blocks B --threads T --data-seed S]   task 9
//                             (without options: the first shape of the graded tests, 12 x 9 over <<<3, 4>>>)
//   lab07 all                 every task's check
//   (every command but residency and all also takes --show any|bad|good --trace FILE: the
//   barriers of tasks 1-6 also --show race|clean)
//   (and the exploration options of synclab_lab.h: --seeds N, --model M (or --models), --sched P,
//   --seed S, --memory M, ...)
//
// Without shape options a command runs the launch shapes and inputs of the task's graded tests,
// over the same schedules (rr, pct and random seeds; both warp models; the GPU barriers also under
// the relaxed memory model); on a GPU it repeats the run. Every failure names the command that
// replays it. --trace records one run: the first explored run that --show names (synclab_lab.h).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "lab07.h"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;
using synclab::lab::print_reports;

namespace {

Exploration exploration(const Args& a, int seeds, const std::vector<std::string>& memories = {"sc"}) {
  return synclab::lab::exploration_from(a, seeds, 5, memories);
}

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab07", args, s);
}

using synclab::lab::TraceChoice;

bool exchange_command(const Args& a, lab07::Way w) {
  const bool gpu_barrier = lab07::in_one_launch(w);
  struct Shape {
    int blocks, threads, rounds;
    std::string device;  // "" : the program's
    int seeds;           // pct and random seeds 1..seeds (--seeds overrides)
  };
  std::vector<Shape> shapes;
  if (a.has("blocks") || a.has("threads") || a.has("rounds") || a.has("device"))
    shapes.push_back({int(a.num("blocks", 3)), int(a.num("threads", 32)), int(a.num("rounds", 3)), a.get("device", ""),
                      gpu_barrier ? 4 : 1});
  else if (w == lab07::Way::own)  // the graded tests' shapes and seeds (task 10)
    shapes = {{1, 32, 3, "", 2}, {3, 32, 3, "", 2}, {4, 64, 2, "", 2}, {40, 32, 3, "h100", 1}};
  else if (gpu_barrier)
    shapes = {{3, 32, 3, "", 4}, {4, 32, 2, "", 4}};
  else
    shapes = {{6, 32, 3, "", 1}};
  const std::vector<std::string> mem = gpu_barrier ? std::vector<std::string>{"sc", "relaxed"}
                                                   : std::vector<std::string>{"sc"};
  bool ok = true;
  for (const Shape& sh : shapes) {
    const synclab::lab::DeviceProfileScope device(sh.device);
    int blocks = sh.blocks;
    if (blocks == 0) {
      blocks = lab07::coresident(w, sh.threads);
      std::printf("coresident_blocks() for %d threads: %d\n", sh.threads, blocks);
      if (blocks < 1) {
        std::printf("  NOT YET: is TODO(7) done?\n");
        ok = false;
        continue;
      }
    }
    const uint32_t seed = uint32_t(a.num("data-seed", lab07::inputs_seed(blocks, sh.threads)));
    const std::vector<unsigned> in = lab07::random_inputs(blocks * sh.threads, seed);
    std::vector<unsigned> want = lab07::exchange_on_host(in, blocks, sh.threads, sh.rounds);
    // Task 10: two launches on one barrier state, the second of rounds + 1 rounds (run_exchange).
    if (w == lab07::Way::own) want = lab07::exchange_on_host(want, blocks, sh.threads, sh.rounds + 1);
    std::string args = std::string(lab07::name(w)) + " --blocks " + std::to_string(blocks) + " --threads " +
                       std::to_string(sh.threads) + " --rounds " + std::to_string(sh.rounds);
    if (!sh.device.empty()) args += " --device " + sh.device;
    if (a.has("data-seed")) args += " --data-seed " + std::to_string(seed);
    const std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, sh.seeds, mem));
    int bad = 0;
    std::vector<Report> reports;
    std::string first_cmd, advice;
    // race: a run that was reported; clean: one that was not.
    const TraceChoice trace(a, "any", {"race", "clean"});
    for (const Schedule& s : ss) {
      lab07::ExchangeResult r;
      try {
        r = synclab::lab::run_under(s, [&] { return lab07::run_exchange(w, in, blocks, sh.threads, sh.rounds, true); });
      } catch (const synclab::lab::CudaFailure& e) {
        std::printf("  %s: %s\n", replay(args, s).c_str(), e.what());
        ++bad;
        continue;
      }
      const bool wrong = r.refused || r.stuck || r.faulted || r.values != want;
      if (trace.wants(wrong || !r.reports.empty(), r.reports.empty() ? "clean" : "race")) {
        trace.recording(s);
        synclab::lab::run_under(s, [&] {
          return lab07::run_exchange(w, in, blocks, sh.threads, sh.rounds, true, trace.file().c_str());
        });
      }
      reports.insert(reports.end(), r.reports.begin(), r.reports.end());
      if (!wrong && r.reports.empty()) continue;
      if (!bad++) {
        first_cmd = replay(args, s);
        advice = lab07::exchange_advice(w, r, !wrong, r.values == in);
      }
    }
    const std::string second =
        w == lab07::Way::own ? " then " + std::to_string(sh.rounds + 1) + " in a second launch" : "";
    const std::string device_note = sh.device.empty() ? "" : ", device " + sh.device;
    std::printf("%s<<<%d, %d>>>, %d rounds%s%s, %s: %s\n", lab07::name(w), blocks, sh.threads, sh.rounds,
                second.c_str(), device_note.c_str(), synclab::lab::describe(ss).c_str(),
                bad ? (std::to_string(bad) + " bad runs").c_str() : "every run right, nothing reported");
    print_reports(reports);
    if (bad) {
      std::printf("  replay: %s\n", first_cmd.c_str());
      if (!advice.empty()) std::printf("  (%s)\n", advice.c_str());
    }
    ok = ok && bad == 0;
    // The graded tests' count of atomics (one run: its, rr, sc): at most two per block and round.
    if (gpu_barrier && w != lab07::Way::grid_sync && synclab::lab::on_simulator()) {
      synclab_sim_counts c{};
      synclab::lab::run_counted([&] { return lab07::run_exchange(w, in, blocks, sh.threads, sh.rounds, true); }, &c);
      const int all_rounds = lab07::barrier_rounds(w, sh.rounds);
      const unsigned long long allowed = 2ull * unsigned(blocks) * unsigned(all_rounds);
      std::printf("  atomic operations (its, rr): %llu for %d blocks in %d rounds; at most %llu allowed%s\n",
                  (unsigned long long)c.global_atomic_lane_ops, blocks, all_rounds, allowed,
                  c.global_atomic_lane_ops <= allowed ? "" : ": NOT YET");
      if (c.global_atomic_lane_ops > allowed) {
        std::printf("  (%s)\n", lab07::atomics_advice(w).c_str());
        ok = false;
      }
    }
  }
  return ok;
}

// Task 7: the co-resident maximum; one block more hangs the simple barrier and is refused as a
// cooperative launch.
bool residency_command(const Args& a) {
  const int threads = int(a.num("threads", 64));
  const int most = lab07::coresident(lab07::Way::simple, threads);
  const int coop = lab07::coresident(lab07::Way::grid_sync, threads);
  std::printf("coresident_blocks(exchange_gpu, %d threads) = %d; (exchange_grid_sync) = %d\n", threads, most, coop);
  if (most < 1 || coop < 1) {
    std::printf("  NOT YET: is TODO(7) done?\n");
    return false;
  }
  bool ok = true;
  const std::vector<unsigned> in = lab07::random_inputs(most * threads, lab07::inputs_seed(most, threads));
  lab07::ExchangeResult r = lab07::run_exchange(lab07::Way::simple, in, most, threads, 2, true);
  const bool fits = !r.stuck && r.values == lab07::exchange_on_host(in, most, threads, 2);
  std::printf("simple barrier with %d blocks: %s\n", most, fits ? "completes, right values" : "NOT right");
  ok = ok && fits;
  if (synclab::lab::on_simulator()) {
    const std::vector<unsigned> in2 = lab07::random_inputs((most + 1) * threads, 1);
    lab07::ExchangeResult h = lab07::run_exchange(lab07::Way::simple, in2, most + 1, threads, 2, true);
    std::printf("simple barrier with %d blocks (one more than fit): %s\n", most + 1,
                h.stuck ? "stuck, as expected" : "finished (it should not: is the barrier done?)");
    print_reports(h.reports, 2);
    if (h.stuck && !h.reports.empty()) std::printf("%s\n", h.reports.front().text.c_str());
    ok = ok && h.stuck;
  } else {
    std::printf("(on a GPU the launch with one block more would hang for good: not run)\n");
  }
  const std::vector<unsigned> in3 = lab07::random_inputs((coop + 1) * threads, 1);
  lab07::ExchangeResult c = lab07::run_exchange(lab07::Way::grid_sync, in3, coop + 1, threads, 2);
  std::printf("cooperative launch of %d blocks: %s\n", coop + 1,
              c.refused ? ("refused (" + c.error + "), as expected").c_str() : "NOT refused");
  ok = ok && c.refused;
  return ok;
}

bool bitonic_command(const Args& a) {
  const int n = int(a.num("n", 128)), blocks = int(a.num("blocks", 4)), threads = int(a.num("threads", 16));
  const uint32_t seed = uint32_t(a.num("data-seed", lab07::inputs_seed(blocks, n)));
  const std::vector<unsigned> keys = lab07::random_inputs(n, seed);
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());
  const std::string args = "bitonic --n " + std::to_string(n) + " --blocks " + std::to_string(blocks) +
                           " --threads " + std::to_string(threads);
  const std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 1));
  int bad = 0;
  std::string first;
  bool moved = false;
  std::vector<Report> reports;
  const TraceChoice trace(a, "any");
  for (const Schedule& s : ss) {
    lab07::SortResult r = synclab::lab::run_under(s, [&] { return lab07::run_bitonic(keys, blocks, threads); });
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    moved = moved || r.stuck || r.keys != keys;
    if (trace.wants(r.keys != want || !r.reports.empty())) {
      trace.recording(s);
      synclab::lab::run_under(s, [&] { return lab07::run_bitonic(keys, blocks, threads, trace.file().c_str()); });
    }
    if (r.keys == want && r.reports.empty()) continue;
    if (!bad++) first = replay(args, s);
  }
  std::printf("bitonic_sort_grid<<<%d, %d>>> over %d keys, %s: %s\n", blocks, threads, n,
              synclab::lab::describe(ss).c_str(), bad ? "NOT sorted in every run" : "sorted, nothing reported");
  print_reports(reports);
  if (bad) std::printf("  replay: %s\n", first.c_str());
  if (bad && !moved) std::printf("  (the keys never moved: is TODO(8) done?)\n");
  else if (bad && !reports.empty())
    std::printf("  (%s)\n", lab07::grid_app_advice(reports, "step (k, j)", "pairs").c_str());
  std::printf("grid barriers: your bitonic_barriers(%d) = %lld\n", n, lab07::predicted_bitonic_barriers(n));
  return bad == 0;
}

std::vector<int> host_sw(const std::string& a, const std::string& b) {
  const int m = int(a.size()), n = int(b.size());
  const lab07::SwScores sc = lab07::sw_scores();
  std::vector<int> H(size_t(m + 1) * (n + 1), 0);
  for (int i = 1; i <= m; ++i)
    for (int j = 1; j <= n; ++j) {
      int h = H[(i - 1) * (n + 1) + j - 1] + (a[i - 1] == b[j - 1] ? sc.match : sc.mismatch);
      h = std::max(h, H[(i - 1) * (n + 1) + j] - sc.gap);
      h = std::max(h, H[i * (n + 1) + j - 1] - sc.gap);
      H[i * (n + 1) + j] = std::max(h, 0);
    }
  return H;
}

bool sw_command(const Args& a) {
  const int m = int(a.num("m", 12)), n = int(a.num("n", 9)), blocks = int(a.num("blocks", 3)),
            threads = int(a.num("threads", 4));
  const uint32_t seed = uint32_t(a.num("data-seed", lab07::inputs_seed(m, n)));
  const std::string x = lab07::random_sequence(m, seed), y = lab07::random_sequence(n, seed + 1);
  const std::vector<int> want = host_sw(x, y);
  const std::string args = "sw --m " + std::to_string(m) + " --n " + std::to_string(n) + " --blocks " +
                           std::to_string(blocks) + " --threads " + std::to_string(threads);
  const std::vector<Schedule> ss = synclab::lab::schedules(exploration(a, 1));
  int bad = 0;
  std::string first;
  std::vector<Report> reports;
  bool filled = false;
  const TraceChoice trace(a, "any");
  for (const Schedule& s : ss) {
    lab07::SwResult r = synclab::lab::run_under(s, [&] { return lab07::run_sw(x, y, blocks, threads); });
    reports.insert(reports.end(), r.reports.begin(), r.reports.end());
    if (trace.wants(r.H != want || !r.reports.empty())) {
      trace.recording(s);
      synclab::lab::run_under(s, [&] { return lab07::run_sw(x, y, blocks, threads, trace.file().c_str()); });
    }
    filled = filled || r.stuck || std::any_of(r.H.begin(), r.H.end(), [](int v) { return v != 0; });
    if (r.H == want && r.reports.empty()) continue;
    if (!bad++) first = replay(args, s);
  }
  std::printf("sw_fill_grid<<<%d, %d>>>, %d x %d, %s: %s (best score %d)\n", blocks, threads, m, n,
              synclab::lab::describe(ss).c_str(), bad ? "NOT right in every run" : "right, nothing reported",
              *std::max_element(want.begin(), want.end()));
  print_reports(reports);
  if (bad) std::printf("  replay: %s\n", first.c_str());
  if (bad && !filled) std::printf("  (the matrix stayed 0: is TODO(9) done?)\n");
  else if (bad && !reports.empty())
    std::printf("  (%s)\n", lab07::grid_app_advice(reports, "anti-diagonal", "cells").c_str());
  std::printf("grid barriers: your sw_barriers(%d, %d) = %lld (one per anti-diagonal)\n", m, n,
              lab07::predicted_sw_barriers(m, n));
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab07", "Lab 07: global barriers (labs/07-global-barriers/README.md)");
  const std::vector<std::string> shape{"blocks", "threads", "rounds", "data-seed", "device", "trace", "show"};
  const struct {
    lab07::Way w;
    const char* help;
  } ways[] = {
      {lab07::Way::cpu_explicit, "task 1: one launch per round, the host waiting between"},
      {lab07::Way::cpu_implicit, "task 2: one launch per round, back to back in one stream"},
      {lab07::Way::simple, "task 3: the lock-based barrier (one counter, goal N x round)"},
      {lab07::Way::tree, "task 4: the two-level tree barrier"},
      {lab07::Way::lockfree, "task 5: the lock-free barrier (Arrayin/Arrayout)"},
      {lab07::Way::sense, "task 6: the sense-reversing barrier"},
      {lab07::Way::grid_sync, "the reference: cooperative groups' grid.sync() in a cooperative launch"},
      {lab07::Way::own, "task 10: a grid barrier of your own design (its contract: lab07_kernels.cuh)"},
  };
  for (const auto& x : ways) {
    const lab07::Way w = x.w;
    cmds.add(lab07::name(w),
             "[--blocks B --threads T --rounds R --data-seed S --device P] [--show any|bad|good|race|clean --trace FILE]",
             x.help, shape, [w](const Args& a) { return exchange_command(a, w); });
  }
  cmds.add("residency", "[--threads T]",
           "task 7: coresident_blocks(); one block more hangs a barrier and is refused as a cooperative launch",
           {"threads"}, residency_command, false);
  cmds.add("bitonic", "[--n N --blocks B --threads T --data-seed S] [--show any|bad|good --trace FILE]",
           "task 8: bitonic sort with a grid barrier per step", {"n", "blocks", "threads", "data-seed", "show", "trace"},
           bitonic_command);
  cmds.add("sw", "[--m M --n N --blocks B --threads T --data-seed S] [--show any|bad|good --trace FILE]",
           "task 9: the Smith-Waterman fill, a grid barrier per anti-diagonal",
           {"m", "n", "blocks", "threads", "data-seed", "show", "trace"}, sw_command);
  return cmds.run(argc, argv);
}
