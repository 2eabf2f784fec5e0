// Lab 03 (atomic locks): the graded tests. Points are in the tags ([pts:N]); each case is graded
// on its own (the grader runs it in its own process). On the simulator every case explores
// schedules (rr, pct and random seeds under both warp models) with all checkers on: a lock must
// keep mutual exclusion and make progress in every explored schedule (right counts, no hang or
// deadlock, no report at all), within one warp, across warps and across blocks. On a GPU the same
// cases repeat the run and check the results. Expected values come from the host references in
// this file, written apart from the harness: an explicit-state model of the naive lock under both
// warp models, an enumeration of the puzzle's interleavings, and a host hash table.
#include <synclab/catch.h>
#include <synclab/graded.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lab03.h"
#include "synclab_lab.h"

namespace {

using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

// Small enough that the whole lab's suite runs in well under two minutes on two cores.
// Every lock runs under both memory models: sc (interleavings) and relaxed (also the reorderings
// the PTX memory model allows).
Exploration exploration(int seeds) {
  Exploration e;
  e.memories = {"sc", "relaxed"};
  e.pct_seeds = seeds;
  e.random_seeds = seeds;
  e.gpu_runs = 20;
  return e;
}

std::string shape_text(const char* kernel, int blocks, int threads) {
  return std::string(kernel) + "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

// The harness command that runs one schedule of a case: `args` names the sub-command and the
// options that fix the run (kernel, shape, rounds, input); the schedule adds --model/--sched/--seed.
std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab03", args, s); }

std::string shape_args(int blocks, int threads) {
  return "--blocks " + std::to_string(blocks) + " --threads " + std::to_string(threads);
}

// A failed or noisy run as a failure message: what failed, the first report (with its details:
// for a deadlock the lock word polled and who last wrote it), and the command that replays it.
// The failure message of a launch that did not finish or was reported: its first line says what
// ran and why it failed (the grader shows that line first), then the replay line, the first
// report and advice. `todo`: a hint naming the TODO when the outcome looks untouched ("" = none).
std::string outcome_message(const lab03::Outcome& r, const std::string& replay_line, const std::string& what,
                            const std::string& todo = "") {
  std::ostringstream o;
  const std::string how = synclab::lab::stuck_word(r.reports);
  o << what << ": ";
  if (!r.finished) o << "the launch did not finish" << (how.empty() ? " (" + r.error + ")" : ": it " + how);
  else o << "the simulator reported " << r.reports.size() << " problem(s)";
  if (!r.reports.empty()) o << "; first: " << synclab::lab::brief(r.reports.front());
  if (!todo.empty()) o << " (" << todo << ")";
  o << "\n  replay: " << replay_line << "\n";
  if (!r.reports.empty()) {
    o << r.reports.front().text << "\n";
    const std::string& k = r.reports.front().kind;
    if (k == "deadlock" || k == "hang")
      o << "  (a lane that won the lock must release it before its warp can reconverge: under lockstep the\n"
           "   winner waits at the end of the loop for the lanes that spin on the lock it holds)\n";
    else if (k == "race")
      o << "  (a lock must order each critical section after the previous one: atomicCAS then\n"
           "   __threadfence() to take it, __threadfence() then atomicExch to give it back, all of device scope)\n";
  }
  return o.str();
}

// ---- host references ------------------------------------------------------------------------

// The naive lock (spin on atomicCAS, then critical section and unlock after the loop; one round)
// as an explicit-state model. Lanes of one warp are interchangeable, so a warp's state is counts.
//   its:      every thread on its own: spinning -> holding (CAS wins on a free lock) -> done (unlock).
//   lockstep: a warp is one thread of control. While some lanes are in the loop, the warp runs the
//             loop for them: the CAS of one of them may win (that lane leaves the loop and waits at
//             the reconvergence point holding the lock). When no lane is left in the loop, the warp
//             reconverges and its waiting lanes run the critical section and unlock.
enum class Progress { always, never, sometimes };

Progress host_naive_progress(const std::string& model, int blocks, int threads) {
  // Warps and their lane counts.
  // Under its the warps do not matter: all threads form one pool (and the state stays small).
  std::vector<int> lanes;
  if (model == "its") lanes.push_back(blocks * threads);
  else
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threads; t += 32) lanes.push_back(std::min(32, threads - t));
  const int W = int(lanes.size());
  // State: lock, then per warp (spinning, holding) counts; done = lanes - spinning - holding.
  using State = std::vector<int>;
  State start(1 + 2 * W, 0);
  for (int w = 0; w < W; ++w) start[1 + 2 * w] = lanes[w];
  auto successors = [&](const State& s) {
    std::vector<State> next;
    for (int w = 0; w < W; ++w) {
      const int spin = s[1 + 2 * w], hold = s[2 + 2 * w];
      if (model == "its") {
        if (spin > 0 && s[0] == 0) { State n = s; n[0] = 1; n[1 + 2 * w]--; n[2 + 2 * w]++; next.push_back(n); }
        if (hold > 0) { State n = s; n[0] = 0; n[2 + 2 * w]--; next.push_back(n); }
      } else {
        if (spin > 0) {
          if (s[0] == 0) { State n = s; n[0] = 1; n[1 + 2 * w]--; n[2 + 2 * w]++; next.push_back(n); }
        } else if (hold > 0) {
          State n = s; n[0] = 0; n[2 + 2 * w] = 0; next.push_back(n);  // reconverged: CS and unlock
        }
      }
    }
    return next;
  };
  auto final_state = [&](const State& s) {
    for (int w = 0; w < W; ++w)
      if (s[1 + 2 * w] || s[2 + 2 * w]) return false;
    return true;
  };
  // Reachable states and their edges.
  std::map<State, std::vector<State>> graph;
  std::vector<State> todo{start};
  while (!todo.empty()) {
    State s = todo.back();
    todo.pop_back();
    if (graph.count(s)) continue;
    graph[s] = successors(s);
    for (const State& n : graph[s]) todo.push_back(n);
  }
  // States from which the end can be reached (backwards from the final states).
  std::set<State> can_finish;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [s, next] : graph) {
      if (can_finish.count(s)) continue;
      bool ok = final_state(s);
      for (const State& n : next) ok = ok || can_finish.count(n);
      if (ok) { can_finish.insert(s); grew = true; }
    }
  }
  if (!can_finish.count(start)) return Progress::never;
  for (const auto& [s, next] : graph)
    if (!can_finish.count(s)) return Progress::sometimes;
  return Progress::always;  // from every reachable state the kernel can still finish
}

// Every output of the puzzle kernel (three atomicCAS on gg per thread, see puzzle.cu) over every
// interleaving of the threads' steps, in any order of the lanes of a warp: a depth-first search
// over (step of each thread, gg, lines so far), remembering the states already seen.
std::set<lab03::PuzzleOutput> host_puzzle_enumeration(int blocks, int threads) {
  const int n = blocks * threads;
  struct State {
    std::vector<int> step;
    int gg;
    std::vector<std::string> lines;
    bool operator<(const State& o) const { return std::tie(step, gg, lines) < std::tie(o.step, o.gg, o.lines); }
  };
  std::set<lab03::PuzzleOutput> outputs;
  std::set<State> seen;
  std::vector<State> todo{{std::vector<int>(n, 0), 0, {}}};
  while (!todo.empty()) {
    State s = todo.back();
    todo.pop_back();
    if (!seen.insert(s).second) continue;
    bool any = false;
    for (int i = 0; i < n; ++i) {
      if (s.step[i] == 3) continue;
      any = true;
      const int t = i % threads;  // threadIdx.x
      State x = s;
      const int compare = x.step[i] < 2 ? 0 : t, swap = x.step[i] < 2 ? t + 1 : -1;
      if (x.gg == compare) {
        x.gg = swap;
        x.lines.push_back("Thread " + std::to_string(t) + " succeeded " + std::to_string(x.step[i] + 1) + ".");
        std::sort(x.lines.begin(), x.lines.end());
      }
      x.step[i]++;
      todo.push_back(x);
    }
    if (!any) outputs.insert(lab03::normalized(s.lines));
  }
  return outputs;
}

// The same outputs by the argument of the slide, for launches too large to enumerate: whoever
// applies the first CAS (any thread w) leaves gg = w + 1, never 0 again; a thread w + 1 (if the
// block has one) matches it in its third CAS, and the first such thread sets gg to -1.
std::set<lab03::PuzzleOutput> host_puzzle_rule(int blocks, int threads) {
  std::set<lab03::PuzzleOutput> outputs;
  if (blocks < 1) return outputs;
  for (int w = 0; w < threads; ++w) {
    lab03::PuzzleOutput o{"Thread " + std::to_string(w) + " succeeded 1."};
    if (w + 1 < threads) o.push_back("Thread " + std::to_string(w + 1) + " succeeded 3.");
    outputs.insert(lab03::normalized(o));
  }
  return outputs;
}

std::string outputs_text(const std::set<lab03::PuzzleOutput>& outs, size_t limit = 6) {
  std::ostringstream o;
  size_t i = 0;
  std::vector<lab03::PuzzleOutput> listed(outs.begin(), outs.end());
  std::sort(listed.begin(), listed.end(), lab03::output_less);  // "Thread 9" before "Thread 10"
  for (const lab03::PuzzleOutput& out : listed) {
    if (i++ == limit) { o << "\n    ... (" << outs.size() << " in all)"; break; }
    o << "\n    {";
    for (size_t k = 0; k < out.size(); ++k) o << (k ? " / " : "") << out[k];
    o << "}";
  }
  return outs.empty() ? "\n    (none)" : o.str();
}

// The bucket of a key: the multiplicative hash of lab03_kernels.cuh, written again here.
int host_bucket(int key, int buckets) { return int((uint32_t(key) * 2654435761u >> 8) % uint32_t(buckets)); }

// The keys a case inserts: the harness's generator, so that `lab03 buckets` with the case's table
// inserts the same keys.
std::vector<int> test_keys(int n, int buckets) {
  std::vector<int> keys = lab03::random_keys(n, lab03::keys_seed(n, buckets));
  REQUIRE(keys.size() == size_t(n));
  return keys;
}

// ---- task 1a: which naive launches finish ---------------------------------------------------------

TEST_CASE("lab03 task1a predict which launches of the naive atomicCAS lock finish", "[lab03][task1][pts:2]") {
  // The six launches: the student's own (SYNCLAB_STUDENT; lab03::task1a_launches), or the README's.
  for (const lab03::NaiveLaunch& sh : lab03::task1a_launches(synclab::lab::student_id())) {
    const Progress model = host_naive_progress(sh.model, sh.blocks, sh.threads);
    REQUIRE(model != Progress::sometimes);  // the shapes are chosen so that the answer is clear
    const bool want = model == Progress::always;
    const bool predicted = lab03::predicted_naive_finishes(sh.model, sh.blocks, sh.threads);
    const std::string watch = synclab::lab::program_command("lab03") + " naive " + shape_args(sh.blocks, sh.threads) +
                              " --model " + sh.model;
    // Exploration must agree with the host model, or the comparison proves nothing. A GPU runs
    // only the its launches (it has no lockstep mode).
    Exploration e = exploration(2);
    e.models = {sh.model};
    e.gpu_runs = sh.model == "its" ? 3 : 0;
    for (const Schedule& s : synclab::lab::schedules(e)) {
      lab03::CountResult r = synclab::lab::run_under(s, [&] {
        return lab03::run_count(lab03::CountKernel::naive, sh.blocks, sh.threads, 1);
      });
      CHECKED_ELSE(r.finished == want)
        FAIL(shape_text("count_naive", sh.blocks, sh.threads)
             << ": the host model of the lock says " << (want ? "it always finishes" : "it never finishes")
             << ", but a run " << (r.finished ? "finished" : "did not finish") << " (replay: "
             << replay("naive " + shape_args(sh.blocks, sh.threads), s) << "): the simulator is at fault, not you");
    }
    // The message says which prediction disagrees and how to watch the launch, not the answer.
    CHECKED_ELSE((predicted == want))  // FAIL_CHECK: every launch's prediction is reported
      FAIL_CHECK(shape_text("count_naive", sh.blocks, sh.threads)
           << " under " << sh.model << ": your prediction (predicted_naive_finishes in lock.cu) says it "
           << (predicted ? "finishes" : "never finishes") << " -- that disagrees with what exploring its schedules finds"
           << "\n  watch it: " << watch);
  }
}

// ---- task 1b/1c: count_locked --------------------------------------------------------------------

// `command`: the harness command that runs this kernel ("lock --kernel locked", "contention --kernel backoff").
void check_count(lab03::CountKernel kernel, const std::string& command, int blocks, int threads, int rounds, int seeds) {
  const int want = blocks * threads * rounds;
  const int want_sections =
      kernel == lab03::CountKernel::warp_aggregated ? blocks * ((threads + 31) / 32) * rounds : want;
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab03::CountResult r = synclab::lab::run_under(s, [&] {
      return lab03::run_count(kernel, blocks, threads, rounds);
    });
    const std::string what = shape_text(lab03::name(kernel), blocks, threads) + " with " + std::to_string(rounds) +
                             " round(s)";
    const std::string cmd = replay(command + " " + shape_args(blocks, threads) + " --rounds " + std::to_string(rounds), s);
    // An untouched skeleton: try_lock never succeeds (the lock word stays 0 while threads wait for
    // it), or the critical section runs without the lock (races on the counter).
    std::string todo;
    if (!r.finished && r.lock == 0) todo = "the lock word is still 0 while threads wait for it: is try_lock's TODO(1b) done?";
    else if (r.finished && !r.reports.empty() && r.reports.front().kind == "race" &&
             r.reports.front().text.find("did not acquire it") == std::string::npos &&
             r.reports.front().text.find("did not release") == std::string::npos &&
             r.reports.front().text.find("insufficient-scope") == std::string::npos &&
             r.reports.front().text.find("one atomic operation") == std::string::npos)
      // (a report that names the missing acquire, release, scope or atomic already says what to do)
      todo = std::string("are the TODOs of ") + lab03::name(kernel) + " and of try_lock/unlock done?";
    CHECKED_ELSE((r.finished && r.reports.empty())) FAIL(outcome_message(r, cmd, what, todo));
    INFO(what << ", replay: " << cmd);
    CHECKED_ELSE(!(r.counter != want))
      FAIL("the counter ended at " << r.counter << " but " << want
                                   << " critical sections should each have added 1 (32 per warp when aggregated): "
                                      "two threads were inside at once, or a section never ran");
    CHECKED_ELSE(!(r.sections != want_sections))
      FAIL(r.sections << " critical sections ran, expected " << want_sections
                      << (kernel == lab03::CountKernel::warp_aggregated
                              ? " (one per warp and round: one lane takes the lock for its warp)"
                              : " (one per thread and round)"));
    CHECKED_ELSE(r.lock == 0) FAIL("the lock word was left at " << r.lock << ": a holder never released it");
  }
}

TEST_CASE("lab03 task1 count_locked keeps mutual exclusion and finishes within one warp",
          "[lab03][task1][pts:3]") {
  check_count(lab03::CountKernel::locked, "lock --kernel locked", 1, 32, 2, 4);
  check_count(lab03::CountKernel::locked, "lock --kernel locked", 1, 5, 3, 4);
}

TEST_CASE("lab03 task1 count_locked keeps mutual exclusion and finishes across warps and blocks",
          "[lab03][task1][pts:3]") {
  check_count(lab03::CountKernel::locked, "lock --kernel locked", 1, 64, 1, 3);
  check_count(lab03::CountKernel::locked, "lock --kernel locked", 3, 40, 1, 3);
  check_count(lab03::CountKernel::locked, "lock --kernel locked", 4, 1, 3, 3);
}

// ---- task 2: single -----------------------------------------------------------------------------

void check_single(bool per_block, int blocks, int threads, int seeds) {
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab03::SingleResult r = synclab::lab::run_under(s, [&] {
      return per_block ? lab03::run_single_per_block(blocks, threads) : lab03::run_single_grid(blocks, threads);
    });
    const std::string what = shape_text(per_block ? "single_per_block" : "single_grid", blocks, threads);
    const std::string cmd = replay("single " + shape_args(blocks, threads), s);
    CHECKED_ELSE((r.finished && r.reports.empty())) FAIL(outcome_message(r, cmd, what));
    INFO(what << ", replay: " << cmd);
    REQUIRE(r.entered.size() == size_t(per_block ? blocks : 1));
    for (size_t b = 0; b < r.entered.size(); ++b) {
      const int limit = per_block ? threads : blocks * threads;
      CHECKED_ELSE(!(r.entered[b] != 1))
        FAIL(r.entered[b] << " threads ran the single section" << (per_block ? " of block " + std::to_string(b) : "")
                          << ", expected exactly 1"
                          << (r.entered[b] > 1 ? " (was the flag reset?)"
                                               : r.entered[b] == 0 ? " (is the TODO of task 2 done?)" : ""));
      CHECKED_ELSE(!(r.chosen[b] < 0 || r.chosen[b] >= limit))
        FAIL("chosen = " << r.chosen[b] << " is not a thread index of the " << (per_block ? "block" : "grid"));
    }
  }
}

TEST_CASE("lab03 task2a single_grid lets exactly one thread of the grid in under every schedule",
          "[lab03][task2][pts:2]") {
  check_single(false, 1, 32, 3);
  check_single(false, 3, 40, 3);
  check_single(false, 4, 1, 3);
}

TEST_CASE("lab03 task2b single_per_block lets exactly one thread of each block in under every schedule",
          "[lab03][task2][pts:3]") {
  check_single(true, 3, 40, 3);
  check_single(true, 2, 64, 3);
  check_single(true, 2, 1, 2);
}

// ---- task 3: the puzzle -------------------------------------------------------------------------

// The student's prediction against the host reference, and against what running it shows.
void check_puzzle(int blocks, int threads, const std::set<lab03::PuzzleOutput>& reference) {
  std::set<lab03::PuzzleOutput> seen;
  for (const Schedule& s : synclab::lab::schedules(exploration(4))) {
    lab03::PuzzleResult r = synclab::lab::run_under(s, [&] { return lab03::run_puzzle(blocks, threads); });
    const std::string what = shape_text("cas_puzzle", blocks, threads);
    if (!r.finished || !r.reports.empty()) FAIL(outcome_message(r, replay("puzzle " + shape_args(blocks, threads), s), what));
    seen.insert(r.output);
  }
  std::set<lab03::PuzzleOutput> predicted;
  for (const lab03::PuzzleOutput& o : lab03::predicted_puzzle_outputs(blocks, threads))
    predicted.insert(lab03::normalized(o));
  INFO(shape_text("cas_puzzle", blocks, threads) << " with gg = 0 before");
  INFO("your prediction (predicted_puzzle_outputs in puzzle.cu):" << outputs_text(predicted));
  // What runs show must be possible: otherwise the simulator is at fault, not you.
  for (const lab03::PuzzleOutput& o : seen) {
    CHECKED_ELSE(reference.count(o) == 1)
      FAIL("a run printed" << outputs_text(std::set<lab03::PuzzleOutput>{o})
                           << ", which the host reference does not allow: the simulator is at fault, not you");
  }
  // Runs show some of the possible outputs (a warp's lanes apply an atomic in some order the
  // hardware picks; the simulator and most GPUs take lane order): the prediction must contain
  // every one of them and be exactly the set of outputs CUDA allows. The messages say how the
  // prediction is off, not what the right set is: that is the task.
  size_t unpredicted = 0;
  for (const lab03::PuzzleOutput& o : seen) unpredicted += !predicted.count(o);
  const std::string see = "\n  see what runs print: " + synclab::lab::program_command("lab03") + " puzzle " +
                          shape_args(blocks, threads);
  CHECKED_ELSE(unpredicted == 0)
    FAIL(shape_text("cas_puzzle", blocks, threads)
         << ": " << unpredicted << " output(s) that runs printed are not in the prediction"
         << (predicted.empty() ? " (the prediction is empty: is the TODO of task 3 done?)" : "") << see);
  size_t missing = 0, extra = 0;
  for (const lab03::PuzzleOutput& o : reference) missing += !predicted.count(o);
  for (const lab03::PuzzleOutput& o : predicted) extra += !reference.count(o);
  CHECKED_ELSE((missing == 0 && extra == 0))
    FAIL(shape_text("cas_puzzle", blocks, threads)
         << ": the prediction is not the set of outputs CUDA allows: it misses " << missing
         << " possible one(s) and lists " << extra << " impossible one(s)" << see
         << "\n  (runs apply a warp's atomics in lane order, so they print only some of the outputs CUDA allows: "
            "CUDA does not say which lane of a warp applies its atomicCAS first, so reason about every thread "
            "that could win the first one)");
}

TEST_CASE("lab03 task3 predict the outputs of the slide's puzzle with 2 blocks of 32 threads",
          "[lab03][task3][pts:3]") {
  // Too many threads to enumerate: the argument of the slide, checked here against the
  // enumeration on every launch of up to 6 threads.
  for (int blocks = 1; blocks <= 3; ++blocks)
    for (int threads = 1; blocks * threads <= 6; ++threads) {
      INFO("host rule vs host enumeration for <<<" << blocks << ", " << threads << ">>>");
      REQUIRE(host_puzzle_rule(blocks, threads) == host_puzzle_enumeration(blocks, threads));
    }
  check_puzzle(2, 32, host_puzzle_rule(2, 32));
}

TEST_CASE("lab03 task3 predict the outputs of the puzzle for small launches", "[lab03][task3][pts:2]") {
  // <<<3,1>>>, <<<1,2>>> and <<<2,3>>>, or the student's own three (lab03::task3_small_launches).
  for (const auto& [blocks, threads] : lab03::task3_small_launches(synclab::lab::student_id()))
    check_puzzle(blocks, threads, host_puzzle_enumeration(blocks, threads));
}

// ---- task 4: the bucket table ------------------------------------------------------------------

void check_buckets(int n, int buckets, int blocks, int threads, unsigned backoff, int seeds) {
  std::vector<int> keys = test_keys(n, buckets);
  std::vector<std::multiset<int>> want(buckets);
  for (int k : keys) want[host_bucket(k, buckets)].insert(k);
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab03::BucketResult r = synclab::lab::run_under(s, [&] {
      return lab03::run_buckets(keys, buckets, blocks, threads, backoff);
    });
    const std::string what = shape_text("insert_keys", blocks, threads) + " of " + std::to_string(n) + " keys into " +
                             std::to_string(buckets) + " buckets (backoff " + std::to_string(backoff) + " ns)";
    const std::string cmd = replay("buckets --keys " + std::to_string(n) + " --buckets " + std::to_string(buckets) + " " +
                                       shape_args(blocks, threads) + " --backoff " + std::to_string(backoff), s);
    CHECKED_ELSE((r.finished && r.reports.empty())) FAIL(outcome_message(r, cmd, what));
    INFO(what << ", replay: " << cmd);
    for (int b = 0; b < buckets; ++b) {
      CHECKED_ELSE(!(r.counts[b] != int(want[b].size())))
        FAIL("bucket " << b << " holds " << r.counts[b] << " keys, expected " << want[b].size()
                       << " (two inserts into one bucket overlapped, or a key went to the wrong bucket)");
      CHECKED_ELSE(!(std::multiset<int>(r.items[b].begin(), r.items[b].end()) != want[b]))
        FAIL("bucket " << b << " holds other keys than the host table (a key was overwritten by another)");
      CHECKED_ELSE(r.locks[b] == 0) FAIL("bucket " << b << "'s lock was left at " << r.locks[b]);
    }
  }
}

TEST_CASE("lab03 task4 insert_keys fills every bucket exactly under heavy contention",
          "[lab03][task4][pts:4]") {
  check_buckets(32, 2, 1, 32, 0, 3);   // one warp: lanes want the same bucket in one iteration
  check_buckets(96, 3, 2, 48, 0, 3);   // warps and blocks
}

TEST_CASE("lab03 task4 insert_keys with many buckets and blocks and with backoff", "[lab03][task4][pts:2]") {
  check_buckets(160, 16, 4, 40, 0, 2);
  check_buckets(96, 4, 3, 32, 64, 2);
}

// ---- task 5: contention ------------------------------------------------------------------------

TEST_CASE("lab03 task5a count_backoff keeps mutual exclusion and finishes with backoff",
          "[lab03][task5][pts:2]") {
  check_count(lab03::CountKernel::backoff, "contention --kernel backoff", 1, 32, 2, 3);
  check_count(lab03::CountKernel::backoff, "contention --kernel backoff", 3, 40, 1, 3);
}

TEST_CASE("lab03 task5b count_warp_aggregated takes the lock once per warp and round",
          "[lab03][task5][pts:3]") {
  check_count(lab03::CountKernel::warp_aggregated, "contention --kernel aggregated", 1, 32, 3, 3);
  check_count(lab03::CountKernel::warp_aggregated, "contention --kernel aggregated", 3, 64, 2, 3);
}

// Graded on speed: the grader runs this case on the reference solution too, in the same grading
// run, and gives full marks within 1.2x of its time, proportionally less beyond (docs/grader.md).
// On the simulator the time is the simulated one (the same on every machine).
TEST_CASE("lab03 task5b count_warp_aggregated is about as fast as the reference",
          "[lab03][task5][speed][pts:1]") {
  const int blocks = 4, threads = 128, rounds = 4;
  Schedule s{"its", "rr", 1, 3};
  if (!synclab::lab::on_simulator()) s = Schedule{"gpu", "gpu", 1, 0};
  lab03::CountResult r = synclab::lab::run_under(s, [&] {
    return lab03::run_count(lab03::CountKernel::warp_aggregated, blocks, threads, rounds);
  });
  const std::string what = shape_text("count_warp_aggregated", blocks, threads) + " with 4 rounds";
  const std::string cmd = replay("contention --kernel aggregated " + shape_args(blocks, threads) + " --rounds 4", s);
  CHECKED_ELSE((r.finished && r.reports.empty())) FAIL(outcome_message(r, cmd, what));
  CHECKED_ELSE(!(r.counter != blocks * threads * rounds))
    FAIL("the counter ended at " << r.counter << " but " << blocks * threads * rounds << " were expected");
  CHECKED_ELSE(!(r.sections != blocks * (threads / 32) * rounds))
    FAIL(r.sections << " critical sections ran, expected one per warp and round");
  REQUIRE(r.kernel_ms > 0);
  double ms = r.kernel_ms;
  if (!synclab::lab::on_simulator()) {
    // On a GPU one launch is noise (the first also loads the module): the median of 11 timed
    // launches after it. The simulator's time is the same every run, so one launch is enough.
    std::vector<double> times;
    for (int i = 0; i < 11; ++i) {
      lab03::CountResult again = lab03::run_count(lab03::CountKernel::warp_aggregated, blocks, threads, rounds);
      REQUIRE(again.finished);
      REQUIRE(again.counter == blocks * threads * rounds);
      times.push_back(again.kernel_ms);
    }
    std::sort(times.begin(), times.end());
    ms = times[times.size() / 2];
  }
  synclab::graded::record_time_ms(ms);
}

}  // namespace

// ---- task 6: a lock of your own design -------------------------------------------------------------
// Graded by its contract (lab03_kernels.cuh, above own_locked) and nothing else: any lock that keeps
// it passes (the reference solution's ticket lock and the array lock of
// tests/labs/designs/03-atomic-locks/ both do). Each run's sections must be counted right and each
// request must enter once, in every explored schedule (the check is written here from the record the
// sections left, apart from the harness's own); and a counted run under contention may take at most
// two atomics per section beside the harness's one.

namespace {

std::string own_check(const lab03::OwnResult& r, int n, int sections) {
  if (r.counter != sections)
    return std::to_string(r.counter) + " sections counted instead of " + std::to_string(sections) +
           " (two sections ran at once, or one did not run)";
  if (int(r.entered.size()) != sections || r.requests != sections) return "the sections' record is incomplete";
  std::vector<int> order = r.entered;
  std::sort(order.begin(), order.end());
  for (int k = 0; k < sections; ++k)
    if (order[size_t(k)] != k) return "the requests that entered are not each request once";
  return "";
}

std::string own_message(const lab03::OwnResult& r, const std::string& what, const std::string& problem,
                         const std::string& replay_line) {
  std::ostringstream o;
  o << what << ": ";
  if (!problem.empty())
    o << problem;
  else if (!r.finished)
    o << "the launch did not finish"
      << (synclab::lab::stuck_word(r.reports).empty() ? " (" + r.error + ")"
                                                       : ": it " + synclab::lab::stuck_word(r.reports));
  else
    o << "the simulator reported " << r.reports.size() << " problem(s)";
  if (!r.reports.empty()) o << "; first: " << synclab::lab::brief(r.reports.front());
  o << "\n  replay: " << replay_line << "\n";
  if (!r.reports.empty()) o << r.reports.front().text << "\n";
  const std::string advice = lab03::own_advice(r, problem);
  if (!advice.empty()) o << "  (" << advice << ")\n";
  return o.str();
}

}  // namespace

TEST_CASE("lab03 task6 own_locked runs every section alone under both warp and memory models", "[lab03][task6][pts:3]") {
  struct Shape {
    int blocks, threads, rounds;
  };
  for (const Shape& sh : {Shape{1, 32, 3}, Shape{2, 16, 3}, Shape{3, 4, 2}}) {
    const int n = sh.blocks * sh.threads, sections = n * sh.rounds;
    const std::string args = "own " + shape_args(sh.blocks, sh.threads) + " --rounds " + std::to_string(sh.rounds);
    for (const Schedule& s : synclab::lab::schedules(exploration(2))) {
      lab03::OwnResult r =
          synclab::lab::run_under(s, [&] { return lab03::run_own(sh.blocks, sh.threads, sh.rounds); });
      const std::string problem = r.finished ? own_check(r, n, sections) : "";
      if (!r.finished || !problem.empty() || !r.reports.empty())
        FAIL(own_message(r, shape_text("own_count", sh.blocks, sh.threads) + ", " + std::to_string(sh.rounds) +
                                 " rounds",
                          problem, replay(args, s)));
    }
  }
}

// The counted run (its, rr, as a GPU's profile counts): the harness takes one atomic per section for
// the request number, so a lock may add two.
TEST_CASE("lab03 task6 own_locked costs at most two atomic operations per section", "[lab03][task6][pts:3]") {
  const int blocks = 2, threads = 16, rounds = 3, sections = blocks * threads * rounds;
  const Schedule counted = synclab::lab::counting_schedule();
  synclab_sim_counts c{};
  lab03::OwnResult r = synclab::lab::on_simulator()
                            ? synclab::lab::run_counted([&] { return lab03::run_own(blocks, threads, rounds); }, &c)
                            : lab03::run_own(blocks, threads, rounds);
  const std::string problem = r.finished ? own_check(r, blocks * threads, sections) : "";
  const std::string args = "own " + shape_args(blocks, threads) + " --rounds " + std::to_string(rounds);
  if (!r.finished || !problem.empty() || !r.reports.empty())
    FAIL(own_message(r, "own_count<<<2, 16>>>, 3 rounds (the counted run)", problem, replay(args, counted)));
  if (!synclab::lab::on_simulator()) return;  // (on a GPU Nsight Compute counts the atomics)
  const unsigned long long atomics = c.global_atomic_lane_ops + c.shared_atomic_lane_ops;
  const unsigned long long bound = 3ull * sections;
  CHECKED_ELSE(atomics <= bound)
  FAIL(std::to_string(atomics) + " atomic operations for " + std::to_string(sections) +
       " sections, more than the harness's one and two of the lock's per section (" + std::to_string(bound) +
       "): a lock whose waiting threads retry an atomic (atomicCAS in the wait loop, or whenever they see the lock "
       "free) pays one per try, and with many threads waiting that is many per section. Take your place with one "
       "atomic, wait with loads (through a volatile pointer) until it is your turn, and pass the turn on with a "
       "volatile store (the wait's loop shape and fences as in task 1). " +
       synclab::lab::program_command("lab03") + " " + args + " prints the count.");
}
