// Lab 04 (reductions): the graded tests. Points are in the tags ([pts:N]); each case is graded on
// its own (the grader runs it in its own process). On the simulator every case explores schedules
// (rr, pct and random seeds under both warp models) with all checkers on: a sum must be right
// under every explored schedule and the checkers must stay silent, so a race must be gone, not
// merely unlucky. Task 5's last block done publishes the partial sums through a ticket, so its
// cases also run under the relaxed memory model (docs/memory-model.md). On a GPU the same cases
// repeat the run and check the results. Expected values come from the host references in this
// file, written apart from the harness: sums and products, the accesses of each level of the
// trees, and which of them conflict between threads and between warps.
#include <synclab/catch.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "lab04.h"
#include "synclab_lab.h"

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
  return synclab::lab::replay_command("lab04", args, s);
}

std::string shape_args(int blocks, int threads) {
  return "--blocks " + std::to_string(blocks) + " --threads " + std::to_string(threads);
}

std::string shape_text(const std::string& kernel, int blocks, int threads) {
  return kernel + "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

// ---- host references ------------------------------------------------------------------------------

int host_sum(const std::vector<int>& v, size_t from, size_t count) {
  int s = 0;
  for (size_t i = from; i < from + count; ++i) s += v[i];
  return s;
}

int levels_of(int threads) {
  int l = 0;
  while ((1 << l) < threads) ++l;
  return l;
}

// The accesses of one level of an in-place tree: thread -> (elements read, elements written).
struct Access {
  std::vector<int> reads, writes;
};
using Level = std::vector<Access>;  // indexed by thread

// The tree of 1b (and of task 3): level k has offset off = threads >> (k + 1); thread t < off reads
// a[t] and a[t + off] and writes a[t].
Level sequential_level(int threads, int k) {
  Level l(threads);
  const int off = threads >> (k + 1);
  for (int t = 0; t < off; ++t) l[t] = {{t, t + off}, {t}};
  return l;
}

// The slides' compaction (task 2): thread t < off reads a[2t] and a[2t + 1] and writes a[t].
Level compact_level(int threads, int k) {
  Level l(threads);
  const int off = threads >> (k + 1);
  for (int t = 0; t < off; ++t) l[t] = {{2 * t, 2 * t + 1}, {t}};
  return l;
}

// Pairs of different threads (p in `first`, q in `second`) whose accesses to one element conflict
// (at least one writes): (element, p, q).
std::vector<std::tuple<int, int, int>> conflicts(const Level& first, const Level& second) {
  std::vector<std::tuple<int, int, int>> out;
  for (size_t p = 0; p < first.size(); ++p)
    for (size_t q = 0; q < second.size(); ++q) {
      if (p == q) continue;
      auto hit = [&](const std::vector<int>& x, const std::vector<int>& y) {
        for (int e : x)
          if (std::find(y.begin(), y.end(), e) != y.end()) out.emplace_back(e, int(p), int(q));
      };
      hit(first[p].writes, second[q].reads);
      hit(first[p].writes, second[q].writes);
      hit(first[p].reads, second[q].writes);
    }
  return out;
}

// Task 3: barrier k of block_sum_skip_barrier may go when nothing the threads do on either side of
// it conflicts, or, under lockstep, when every conflicting pair of threads is one warp (its lanes
// run each instruction together). The barriers before k and after k + 1 still order the rest;
// after the last level the kernel's end does.
std::set<int> host_removable_barriers(const std::string& model, int threads) {
  std::set<int> out;
  const int levels = levels_of(threads);
  for (int k = 0; k < levels; ++k) {
    if (k == levels - 1) {
      out.insert(k);
      continue;
    }
    bool ok = true;
    for (const auto& [e, p, q] : conflicts(sequential_level(threads, k), sequential_level(threads, k + 1))) {
      (void)e;
      ok = ok && model == "lockstep" && p / 32 == q / 32;
    }
    if (ok) out.insert(k);
  }
  return out;
}

// Task 1c: the warps whose lanes do not all add, at one level.
int host_divergent_warps(lab04::Addressing addressing, int threads, int level) {
  int split = 0;
  for (int w = 0; w < threads / 32; ++w) {
    int adding = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int t = w * 32 + lane;
      if (addressing == lab04::Addressing::interleaved)
        adding += t % (2 << level) == 0;
      else
        adding += t < (threads >> (level + 1));
    }
    split += adding != 0 && adding != 32;
  }
  return split;
}

// Task 4c: block_sum_tail_unsafe's warp steps, lane t: a[t] += a[t + off] for off = 32, 16, ..., 1
// with no barrier between the steps. A race needs two lanes with conflicting accesses in steps
// that nothing orders: under its nothing orders the lanes of a warp; under lockstep each step's
// loads run before its stores and the steps run in order, so lanes never overlap.
bool host_tail_races(const std::string& model) {
  if (model != "its") return false;
  Level all(32);
  for (int off = 32; off > 0; off /= 2)
    for (int t = 0; t < 32; ++t) {
      all[t].reads.push_back(t + off);
      all[t].reads.push_back(t);
      all[t].writes.push_back(t);
    }
  return !conflicts(all, all).empty();
}

lab04::Mat host_product(const std::vector<lab04::Mat>& m, size_t from, size_t count) {
  lab04::Mat p{1, 0, 0, 1};
  for (size_t i = from; i < from + count; ++i) {
    const lab04::Mat& x = m[i];
    p = lab04::Mat{p.a * x.a + p.b * x.c, p.a * x.b + p.b * x.d, p.c * x.a + p.d * x.c, p.c * x.b + p.d * x.d};
  }
  return p;
}

// ---- messages -----------------------------------------------------------------------------------

// Advice for the first report of a run, by what the kernel is.
std::string advice(lab04::BlockKernel k, const Report& r) {
  if (r.kind != "race") return "";
  switch (k) {
    case lab04::BlockKernel::interleaved:
    case lab04::BlockKernel::sequential:
      return "every level reads what other threads wrote in the level before: a __syncthreads() after each level, "
             "outside the if, so that every thread of the block reaches it";
    case lab04::BlockKernel::compact_fixed:
      return "in one level a thread writes a[t] while another still reads it as a[2t'] or a[2t'+1]: read both into a "
             "temporary, __syncthreads(), then write a[t], then __syncthreads() again before the next level";
    case lab04::BlockKernel::tail:
      return "under its the lanes of a warp do not run each line together: read a[t + off] into a register, "
             "__syncwarp(), write a[t], __syncwarp() again before the next step";
    case lab04::BlockKernel::shuffle:
      return "warp 0 reads the warps' sums that lane 0 of every warp wrote: one __syncthreads() between the writes "
             "and the reads";
    default: return "";
  }
}

// The failure message of a run: what ran, what was wrong, the first report, the replay line, advice.
std::string run_message(const std::string& what, const std::string& wrong, const std::vector<Report>& reports,
                        const std::string& replay_line, const std::string& hint) {
  std::ostringstream o;
  o << what << ": " << wrong;
  if (!reports.empty())
    o << "; the simulator reported " << reports.size()
      << " problem(s), first: " << synclab::lab::brief(reports.front());
  o << "\n  replay: " << replay_line << "\n";
  if (!reports.empty()) o << reports.front().text << "\n";
  if (!hint.empty()) o << "  (" << hint << ")\n";
  return o.str();
}

// Tasks 1, 2b, 4a, 4b: every block's sum right and nothing reported, under every schedule.
void check_block(lab04::BlockKernel kernel, const std::string& command, int blocks, int threads, int seeds,
                 const std::string& todo) {
  const std::vector<int> values = lab04::random_values(blocks * threads, lab04::values_seed(blocks, threads));
  REQUIRE(values.size() == size_t(blocks) * threads);
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab04::BlockResult r =
        synclab::lab::run_under(s, [&] { return lab04::run_block(kernel, values, blocks, threads); });
    const std::string what = shape_text(lab04::name(kernel), blocks, threads);
    const std::string cmd = replay(command + " " + shape_args(blocks, threads), s);
    REQUIRE(r.sums.size() == size_t(blocks));
    std::string wrong;
    for (int b = 0; wrong.empty() && b < blocks; ++b) {
      const int want = host_sum(values, size_t(b) * threads, threads);
      if (r.sums[b] != want) {
        wrong = "block " + std::to_string(b) + " summed to " + std::to_string(r.sums[b]) + ", expected " +
                std::to_string(want);
        if (r.sums[b] == values[size_t(b) * threads] || r.sums[b] == 0) wrong += " (" + todo + ")";
      }
    }
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the sums were right in this run" : wrong, r.reports, cmd,
                     r.reports.empty() ? "" : advice(kernel, r.reports.front())));
  }
}

// ---- task 1 -------------------------------------------------------------------------------------

TEST_CASE("lab04 task1a block_sum_interleaved sums every block under every schedule", "[lab04][task1][pts:2]") {
  check_block(lab04::BlockKernel::interleaved, "tree --kernel interleaved", 1, 32, 3, "is TODO(1a) done?");
  check_block(lab04::BlockKernel::interleaved, "tree --kernel interleaved", 2, 64, 3, "is TODO(1a) done?");
  check_block(lab04::BlockKernel::interleaved, "tree --kernel interleaved", 1, 128, 3, "is TODO(1a) done?");
}

TEST_CASE("lab04 task1b block_sum_sequential sums every block under every schedule", "[lab04][task1][pts:2]") {
  check_block(lab04::BlockKernel::sequential, "tree --kernel sequential", 1, 32, 3, "is TODO(1b) done?");
  check_block(lab04::BlockKernel::sequential, "tree --kernel sequential", 2, 64, 3, "is TODO(1b) done?");
  check_block(lab04::BlockKernel::sequential, "tree --kernel sequential", 1, 128, 3, "is TODO(1b) done?");
}

TEST_CASE("lab04 task1c predict the divergent warps of each level of both addressings", "[lab04][task1][pts:2]") {
  // Two block sizes: 64 and 256, or the student's own two (SYNCLAB_STUDENT).
  for (int threads : lab04::task1c_sizes(synclab::lab::student_id()))
    for (lab04::Addressing ad : {lab04::Addressing::interleaved, lab04::Addressing::sequential}) {
      const char* an = ad == lab04::Addressing::interleaved ? "interleaved" : "sequential";
      // What a launch shows must agree with the host model, or the comparison proves nothing.
      const std::vector<int> seen = lab04::measure_divergent_warps(ad, threads);
      REQUIRE(seen.size() == size_t(levels_of(threads)));
      for (int level = 0; level < levels_of(threads); ++level) {
        CHECKED_ELSE(seen[level] == host_divergent_warps(ad, threads, level))
        FAIL("the launch counted " << seen[level] << " divergent warps at level " << level << " of " << an
                                   << " addressing with " << threads
                                   << " threads, the host model another number: the harness is at fault, not you");
        const int p = lab04::predicted_divergent_warps(ad, threads, level);
        CHECKED_ELSE(p == seen[level])
        FAIL_CHECK(an << " addressing, " << threads << " threads, level " << level
                      << ": your prediction (predicted_divergent_warps in tree.cu) says " << p
                      << " -- that disagrees with what a launch shows" << (p < 0 ? " (is TODO(1c) done?)" : "")
                      << "\n  watch it: " << synclab::lab::program_command("lab04") << " divergence --threads "
                      << threads);
      }
    }
}

// ---- task 2 -------------------------------------------------------------------------------------

TEST_CASE("lab04 task2a name the conflicts of the first level of the slides' in-place compaction",
          "[lab04][task2][pts:1]") {
  for (int threads : {8, 32, 64}) {
    std::vector<lab04::Conflict> want;
    for (const auto& [e, p, q] : conflicts(compact_level(threads, 0), compact_level(threads, 0))) {
      // (element, p, q): p's access and q's conflict; keep each as (element, reader, writer).
      const Level l = compact_level(threads, 0);
      const bool p_writes = std::find(l[p].writes.begin(), l[p].writes.end(), e) != l[p].writes.end();
      if (!p_writes) want.push_back({e, p, q});
    }
    std::sort(want.begin(), want.end(), [](const lab04::Conflict& x, const lab04::Conflict& y) {
      return std::tie(x.element, x.reader, x.writer) < std::tie(y.element, y.reader, y.writer);
    });
    want.erase(std::unique(want.begin(), want.end()), want.end());
    const std::vector<lab04::Conflict> yours = lab04::first_level_conflicts(threads);
    size_t right = 0;
    for (const lab04::Conflict& c : yours) right += std::find(want.begin(), want.end(), c) != want.end();
    CHECKED_ELSE(yours == want)
    FAIL_CHECK("compact_racy with " << threads << " threads: your first_level_conflicts (inplace.cu) lists "
                                    << yours.size() << " conflict(s), " << right
                                    << " of them right; it should list every element of the first level that one "
                                       "thread reads and another writes, once, by increasing element"
                                    << (yours.empty() ? " (is TODO(2a) done?)" : "")
                                    << "\n  see the race: " << synclab::lab::program_command("lab04")
                                    << " classwork --kernel racy " << shape_args(1, threads));
  }
  // The exploration finds the race the slides describe.
  const std::vector<int> values = lab04::random_values(32, lab04::values_seed(1, 32));
  bool raced = false;
  for (const Schedule& s : synclab::lab::schedules(exploration(1)))
    raced = raced || !synclab::lab::of_kind(
                          synclab::lab::run_under(
                              s, [&] { return lab04::run_block(lab04::BlockKernel::compact_racy, values, 1, 32); })
                              .reports,
                          "race")
                          .empty();
  if (synclab::lab::on_simulator()) CHECK(raced);
}

TEST_CASE("lab04 task2b compact_fixed compacts in place without a race under every schedule", "[lab04][task2][pts:3]") {
  check_block(lab04::BlockKernel::compact_fixed, "classwork --kernel fixed", 1, 32, 3, "is TODO(2b) done?");
  check_block(lab04::BlockKernel::compact_fixed, "classwork --kernel fixed", 2, 64, 3, "is TODO(2b) done?");
}

// ---- task 3 -------------------------------------------------------------------------------------

void check_barriers(int threads) {
  const std::vector<int> values = lab04::random_values(threads, lab04::values_seed(1, threads));
  const int want = host_sum(values, 0, threads);
  for (const std::string model : {"its", "lockstep"}) {
    Exploration e = exploration(2);
    e.models = {model};
    std::set<int> removable;
    if (synclab::lab::on_simulator()) {
      for (int k = 0; k < levels_of(threads); ++k) {
        bool clean = true;
        for (const Schedule& s : synclab::lab::schedules(e)) {
          lab04::BlockResult r = synclab::lab::run_under(
              s, [&] { return lab04::run_block(lab04::BlockKernel::skip_barrier, values, 1, threads, k); });
          clean = clean && r.sums[0] == want && r.reports.empty();
        }
        if (clean) removable.insert(k);
      }
      // Exploration must agree with the host model of the accesses, or the comparison proves nothing.
      REQUIRE(removable == host_removable_barriers(model, threads));
    } else {
      removable = host_removable_barriers(model, threads);  // a GPU cannot show a race
    }
    const std::set<int> p = lab04::predicted_removable_barriers(model, threads);
    size_t missing = 0, extra = 0;
    for (int k : removable) missing += !p.count(k);
    for (int k : p) extra += !removable.count(k);
    CHECKED_ELSE(p == removable)
    FAIL_CHECK("block_sum_skip_barrier<<<1, "
               << threads << ">>> under " << model
               << ": your prediction (predicted_removable_barriers in tree.cu) disagrees with what exploring its "
                  "schedules finds: it misses "
               << missing << " removable barrier(s) and lists " << extra << " that cannot go"
               << (p.empty() ? " (is TODO(3) done?)" : "") << "\n  watch it: " << synclab::lab::program_command("lab04")
               << " barriers --threads " << threads << " --model " << model);
  }
}

// Two block sizes: 64 and 128, or the student's own two (SYNCLAB_STUDENT; lab04::task3_sizes).
TEST_CASE("lab04 task3 predict which barrier of the tree may be left out with the smaller block",
          "[lab04][task3][pts:2]") {
  check_barriers(lab04::task3_sizes(synclab::lab::student_id())[0]);
}

TEST_CASE("lab04 task3 predict which barrier of the tree may be left out with the larger block",
          "[lab04][task3][pts:2]") {
  check_barriers(lab04::task3_sizes(synclab::lab::student_id())[1]);
}

// ---- task 4 -------------------------------------------------------------------------------------

TEST_CASE("lab04 task4a block_sum_shuffle sums every block with warp shuffles", "[lab04][task4][pts:3]") {
  check_block(lab04::BlockKernel::shuffle, "tail --kernel shuffle", 2, 64, 3, "is TODO(4a) done?");
  check_block(lab04::BlockKernel::shuffle, "tail --kernel shuffle", 1, 96, 3, "is TODO(4a) done?");
}

TEST_CASE("lab04 task4b block_sum_tail finishes the last warp without a race under both warp models",
          "[lab04][task4][pts:3]") {
  check_block(lab04::BlockKernel::tail, "tail --kernel tail", 2, 64, 3, "is TODO(4b) done?");
  check_block(lab04::BlockKernel::tail, "tail --kernel tail", 1, 128, 3, "is TODO(4b) done?");
}

TEST_CASE("lab04 task4c predict under which warp model the old warp-synchronous tail races", "[lab04][task4][pts:1]") {
  const std::vector<int> values = lab04::random_values(64, lab04::values_seed(1, 64));
  for (const std::string model : {"its", "lockstep"}) {
    bool races = host_tail_races(model);
    if (synclab::lab::on_simulator()) {
      Exploration e = exploration(2);
      e.models = {model};
      bool seen = false;
      for (const Schedule& s : synclab::lab::schedules(e))
        seen = seen || !synclab::lab::of_kind(
                            synclab::lab::run_under(
                                s, [&] { return lab04::run_block(lab04::BlockKernel::tail_unsafe, values, 1, 64); })
                                .reports,
                            "race")
                            .empty();
      REQUIRE(seen == races);  // exploration agrees with the host model
    }
    const bool p = lab04::predicted_tail_races(model);
    CHECKED_ELSE(p == races)
    FAIL_CHECK("block_sum_tail_unsafe under "
               << model << ": your prediction (predicted_tail_races in warp.cu) says "
               << (p ? "it races" : "it does not race") << " -- that disagrees with what exploring its schedules finds"
               << (p ? "" : " (the untouched skeleton answers false: is TODO(4c) done?)") << "\n  watch it: "
               << synclab::lab::program_command("lab04") << " tail --kernel unsafe --model " << model);
  }
}

// ---- task 5 -------------------------------------------------------------------------------------

// Last block done (tasks 5c and 7): the race report says which side of the hand-over through the
// ticket lacks its fence; a report that names the scope already says what to use.
std::string last_block_advice(const std::vector<Report>& reports) {
  const std::string release = "put __threadfence() after writing the block's partial and before taking the ticket";
  const std::string acquire = "in the last block, put __threadfence() after the ticket, before reading the partials";
  const std::string text = reports.empty() ? "" : reports.front().text;
  if (text.find("insufficient-scope") != std::string::npos) return "";
  if (text.find("the other side did not release") != std::string::npos)
    return "the last block fenced after its ticket, but a partial may still not be visible: the block that wrote "
           "it did not release it -- " + release;
  if (text.find("did not acquire it") != std::string::npos)
    return "every block fenced before its ticket, but the last block read the partials without acquiring them -- " +
           acquire;
  return "the last block may read a partial before it is visible: " + release + "; and " + acquire;
}

std::string grid_advice(lab04::GridKernel k, const lab04::GridResult& r, int want) {
  if (k == lab04::GridKernel::last_block && (!r.reports.empty() || r.sum != want) && r.sum != 0)
    return last_block_advice(r.reports);
  if (r.sum == 0)
    return k == lab04::GridKernel::atomic     ? "is TODO(5a) done?"
           : k == lab04::GridKernel::two_pass ? "is TODO(5b) done?"
                                              : "is TODO(5c) done?";
  if (!r.reports.empty() && r.reports.front().kind == "race")
    return "several blocks add into one word: use atomicAdd, or let one thread of each block write its own partial";
  return "";
}

void check_grid(lab04::GridKernel kernel, const std::string& k, int n, int blocks, int threads, int seeds) {
  const std::vector<int> values = lab04::random_values(n, lab04::values_seed(blocks, n));
  const int want = host_sum(values, 0, values.size());
  // The ticket publishes the partial sums: explore the relaxed memory model too.
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds, {"sc", "relaxed"}))) {
    lab04::GridResult r = synclab::lab::run_under(s, [&] { return lab04::run_grid(kernel, values, blocks, threads); });
    const std::string what =
        shape_text(lab04::name(kernel), blocks, threads) + " over " + std::to_string(n) + " values";
    const std::string cmd =
        replay("grid --kernel " + k + " --n " + std::to_string(n) + " " + shape_args(blocks, threads) +
                   (s.memory == "sc" && !s.on_gpu() ? " --memory sc" : ""),
               s);
    const std::string wrong =
        r.sum == want ? "" : "the sum is " + std::to_string(r.sum) + ", expected " + std::to_string(want);
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the sum was right in this run" : wrong, r.reports, cmd,
                     grid_advice(kernel, r, want)));
    if (kernel == lab04::GridKernel::last_block) CHECKED_ELSE(r.ticket == unsigned(blocks))
    FAIL(what << ": the ticket ended at " << r.ticket << ", expected " << blocks
              << " (one atomicAdd per block)\n  replay: " << cmd);
  }
}

TEST_CASE("lab04 task5a grid_sum_atomic adds the block sums with atomics", "[lab04][task5][pts:2]") {
  check_grid(lab04::GridKernel::atomic, "atomic", 300, 3, 64, 3);
  check_grid(lab04::GridKernel::atomic, "atomic", 100, 4, 32, 3);
}

TEST_CASE("lab04 task5b grid_partials and sum_partials add the block sums in two passes", "[lab04][task5][pts:2]") {
  check_grid(lab04::GridKernel::two_pass, "two-pass", 300, 3, 64, 3);
  check_grid(lab04::GridKernel::two_pass, "two-pass", 100, 4, 32, 3);
}

TEST_CASE("lab04 task5c grid_sum_last_block lets the last block add the partials under both memory models",
          "[lab04][task5][pts:4]") {
  check_grid(lab04::GridKernel::last_block, "last-block", 300, 3, 64, 3);
  check_grid(lab04::GridKernel::last_block, "last-block", 100, 4, 32, 3);
}

// ---- task 7 -------------------------------------------------------------------------------------
// The fast sum is timed on a GPU (bench/lab04_reduction); here its synchronization is graded: awkward
// sizes and alignments, a few blocks, explored like task 5 under both warp and memory models.

std::string fast_advice(const lab04::FastResult& r, unsigned want) {
  if (uint32_t(r.sum) == 0x5a5a5a5au) return "*out was never written: is TODO(7) done?";
  if (!r.reports.empty()) {
    const Report& first = r.reports.front();
    if (first.text.find("shared memory") != std::string::npos)
      return "what one warp writes to shared memory and another warp reads (the warps' sums, the last-block flag) "
             "needs a __syncthreads() between the write and the read, reached by every thread of the block";
    if (first.text.find("insufficient-scope") != std::string::npos) return "";
    // The partials are read by every thread of the last block after a barrier, so the report
    // cannot tell which side's fence is missing: name both, and the block-scope pitfall.
    return "the partials pass from block to block through the ticket, which needs a device-scope fence on both "
           "sides: __threadfence() (not __threadfence_block(), which orders one block only) after writing the "
           "block's partial and before taking the ticket, and in the last block __threadfence() after the "
           "ticket, before the barrier that lets its threads read the partials; the reported line is the read";
  }
  if (uint32_t(r.sum) != want) return "";
  return r.ticket != 0 ? "the last block must set *ticket back to 0 for the next call" : "";
}

TEST_CASE("lab04 task7 reduce_sum_int32 sums awkward sizes and alignments under both warp and memory models",
          "[lab04][task7][pts:3]") {
  struct Case {
    int n, offset, blocks;
  };
  // The reference splits 20000 values over 3 blocks as whole tiles plus a tail; 4099 and 7 leave
  // heads and tails around the 16-byte loads; 0 must give 0.
  for (const Case c : {Case{20000, 1, 3}, Case{4099, 3, 2}, Case{7, 2, 2}, Case{0, 0, 2}}) {
    const std::vector<int> values = lab04::random_values(c.n, uint32_t(c.n * 4 + c.offset));
    unsigned want = 0;
    for (int v : values) want += unsigned(v);
    for (const Schedule& s : synclab::lab::schedules(exploration(2, {"sc", "relaxed"}))) {
      const lab04::FastResult r =
          synclab::lab::run_under(s, [&] { return lab04::run_fast(values, c.offset, c.blocks); });
      const std::string what = "reduce_sum_int32 over " + std::to_string(c.n) + " values at offset " +
                               std::to_string(c.offset) + " with " + std::to_string(c.blocks) + " blocks";
      const std::string cmd = replay("fast --n " + std::to_string(c.n) + " --offset " + std::to_string(c.offset) +
                                         " --blocks " + std::to_string(c.blocks),
                                     s);
      std::string wrong;
      if (uint32_t(r.sum) != want)
        wrong = "the sum is " + std::to_string(r.sum) + ", expected " + std::to_string(int(want));
      else if (r.ticket != 0)
        wrong = "the ticket is " + std::to_string(r.ticket) + " after the launch, expected 0";
      CHECKED_ELSE((wrong.empty() && r.reports.empty()))
      FAIL(run_message(what, wrong.empty() ? "the sum was right in this run" : wrong, r.reports, cmd,
                       fast_advice(r, want)));
    }
  }
}

// ---- task 6 -------------------------------------------------------------------------------------

void check_product(int blocks, int threads, int seeds) {
  const std::vector<lab04::Mat> m = lab04::random_matrices(blocks * threads, lab04::values_seed(blocks, threads));
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab04::ProductResult r = synclab::lab::run_under(s, [&] { return lab04::run_product(m, blocks, threads); });
    const std::string what = shape_text("block_product", blocks, threads);
    const std::string cmd = replay("product " + shape_args(blocks, threads), s);
    std::string wrong;
    for (int b = 0; wrong.empty() && b < blocks; ++b) {
      const lab04::Mat want = host_product(m, size_t(b) * threads, threads);
      if (r.products[b] == want) continue;
      wrong = "block " + std::to_string(b) + "'s product is not seg[0] * seg[1] * ... * seg[" +
              std::to_string(threads - 1) + "]";
      if (r.products[b] == m[size_t(b) * threads])
        wrong += " (seg[0] is unchanged: is TODO(6) done?)";
      else if (r.reports.empty())
        wrong +=
            ": matrices do not commute, so each level must combine neighbours, seg[t] (left) with seg[t + s] "
            "(right) where t is a multiple of 2s -- task 1a's interleaved addressing -- never seg[t] with "
            "seg[t + n/2]";
    }
    CHECKED_ELSE((wrong.empty() && r.reports.empty()))
    FAIL(run_message(what, wrong.empty() ? "the products were right in this run" : wrong, r.reports, cmd,
                     r.reports.empty() ? "" : "a __syncthreads() after each level, outside the if"));
  }
}

TEST_CASE("lab04 task6 block_product multiplies 2x2 matrices in order", "[lab04][task6][pts:3]") {
  check_product(2, 32, 3);
  check_product(1, 64, 3);
}

// ---- task 7b: the fast sum's memory traffic, counted on the simulator -----------------------------
// The counters are those Nsight Compute gives on a GPU (docs/profile.md; tests/profile compares them
// with an H200's): 32-byte sectors per load request against the fewest the bytes need, and atomics.

TEST_CASE("lab04 task7b reduce_sum_int32 loads whole sectors and makes at most one atomic per warp",
          "[lab04][task7b][pts:2]") {
  if (!synclab::lab::on_simulator()) {
    WARN("task 7b is counted on the simulator (on a GPU: Nsight Compute's sectors per request and atomics)");
    return;
  }
  const int n = 65536, blocks = 4;
  const std::vector<int> values = lab04::random_values(n, uint32_t(n * 4));
  unsigned want = 0;
  for (int v : values) want += unsigned(v);
  synclab_sim_counts c{};
  const lab04::FastResult r = synclab::lab::run_counted([&] { return lab04::run_fast(values, 0, blocks); }, &c);
  REQUIRE(c.launches >= 1);
  const std::string what = "reduce_sum_int32 over " + std::to_string(n) + " aligned values with " +
                           std::to_string(blocks) + " blocks";
  const std::string cmd = synclab::lab::program_command("lab04") + " fast --n " + std::to_string(n) +
                          " --offset 0 --blocks " + std::to_string(blocks) + " --profile";
  if (uint32_t(r.sum) != want || !r.reports.empty())
    FAIL(what + ": the sum is not right yet, or the run has reports; task 7 first (its test says why)");
  auto per = [](uint64_t a, uint64_t b) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", double(a) / double(b ? b : 1));
    return std::string(text);
  };
  // Sectors: 10% over the fewest is slack for heads, tails and the last block's partials.
  CHECKED_ELSE((c.global_ld_requests > 0 && c.global_ld_sectors * 10 <= c.global_ld_ideal * 11))
  FAIL(what + ": its global loads took " + std::to_string(c.global_ld_sectors) + " sectors of 32 bytes where " +
       std::to_string(c.global_ld_ideal) + " hold the bytes they read (" + per(c.global_ld_sectors, c.global_ld_requests) +
       " per load instruction of a warp, where " + per(c.global_ld_ideal, c.global_ld_requests) +
       " would do). The lanes of a warp should read neighbouring words in one load -- thread t reads element i + t, "
       "then i + t + (all the threads), ... (a grid-stride loop) -- not each a run of elements of its own. " +
       cmd + " prints the line whose loads take the most extra sectors.");
  CHECKED_ELSE(c.global_atomic_lane_ops <= c.warps_launched)
  FAIL(what + ": it made " + std::to_string(c.global_atomic_lane_ops) + " atomic operations on global memory for " +
       std::to_string(c.warps_launched) + " warps. Add within each warp (shuffles, task 4) and block first, and " +
       "hand each block's sum to the grid with one atomic (or task 5c's last-block ticket). " + cmd +
       " prints the busiest address and its line.");
}

}  // namespace
