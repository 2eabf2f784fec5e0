// Lab 06 (linked lists and worklists): the graded tests. Points are in the tags ([pts:N]); each case
// is graded on its own (the grader runs it in its own process). On the simulator every case explores
// schedules (rr, pct and random seeds under both warp models) with all checkers on: a list must hold
// every pushed node exactly once under every explored schedule, with no report at all, so a lost
// node must be impossible, not merely unlucky. Tasks 1 and 2a publish a node through the head (or
// the lock), so their cases also run under the relaxed memory model (docs/memory-model.md). On a GPU
// the same cases repeat the run and check the results. Expected values come from the host
// references in this file, written apart from the harness: which list each node belongs to, a walk
// of every list, the list after deletion, and the multiset of worklist items.
#include <synclab/catch.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab06.h"

namespace {

using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

// Small enough that the whole lab's suite runs in well under two minutes on two cores.
Exploration exploration(int seeds, std::vector<std::string> memories = {"sc"}) {
  Exploration e;
  e.memories = std::move(memories);
  e.pct_seeds = seeds;
  e.random_seeds = seeds;
  e.gpu_runs = 20;
  return e;
}

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab06", args, s);
}

std::string shape_args(int blocks, int threads) {
  return "--blocks " + std::to_string(blocks) + " --threads " + std::to_string(threads);
}

std::string shape_text(const std::string& kernel, int blocks, int threads) {
  return kernel + "<<<" + std::to_string(blocks) + ", " + std::to_string(threads) + ">>>";
}

// ---- host references ------------------------------------------------------------------------------

// The value of node i (lab06_kernels.cuh's node_value, written again here).
int host_value(int node) { return 7 * node + 3; }

// Follows next links from `head` until -1; `cycle` is set when a node comes back, `bad` when a
// link leaves the pool.
struct Walk {
  std::vector<int> nodes;
  bool cycle = false, bad = false;
};
Walk host_walk(int head, const std::vector<int>& next) {
  Walk w;
  std::set<int> seen;
  for (int n = head; n != -1; n = next[size_t(n)]) {
    if (n < 0 || size_t(n) >= next.size()) {
      w.bad = true;
      break;
    }
    if (!seen.insert(n).second) {
      w.cycle = true;
      break;
    }
    w.nodes.push_back(n);
  }
  return w;
}

// Tasks 1 and 2a: the list each node must end in ("second": node l < lists is list l's first node,
// node lists + g was pushed by thread g into list g % lists; else node g by thread g into g % lists).
std::string push_problem(lab06::PushKernel k, const lab06::PushResult& r, int pushers, int lists) {
  const bool second = k == lab06::PushKernel::second;
  const int nodes = pushers + (second ? lists : 0);
  auto list_of = [&](int n) { return second ? (n < lists ? n : (n - lists) % lists) : n % lists; };
  std::map<int, int> seen;
  for (int l = 0; l < lists; ++l) {
    const Walk w = host_walk(r.heads[size_t(l)], r.pool.next);
    if (w.cycle) return "list " + std::to_string(l) + " has a cycle";
    if (w.bad) return "list " + std::to_string(l) + " links to a node outside the pool";
    if (second && (w.nodes.empty() || w.nodes[0] != l))
      return "list " + std::to_string(l) + " no longer starts with its first node " + std::to_string(l);
    for (int n : w.nodes) {
      if (list_of(n) != l)
        return "node " + std::to_string(n) + " is in list " + std::to_string(l) + " instead of list " +
               std::to_string(list_of(n));
      if (r.pool.value[size_t(n)] != host_value(n))
        return "node " + std::to_string(n) + " holds value " + std::to_string(r.pool.value[size_t(n)]) +
               " instead of " + std::to_string(host_value(n));
      ++seen[n];
    }
  }
  int lost = 0, first = -1;
  for (int n = 0; n < nodes; ++n) {
    if (seen[n] > 1) return "node " + std::to_string(n) + " is in its list " + std::to_string(seen[n]) + " times";
    if (seen[n] == 0 && !lost++) first = n;
  }
  if (lost)
    return std::to_string(lost) + " of the " + std::to_string(pushers) + " pushed nodes are lost (node " +
           std::to_string(first) + ", list " + std::to_string(list_of(first)) + ", is in no list)";
  for (int l = 0; l < lists; ++l)
    if (r.locks[size_t(l)] != 0) return "list " + std::to_string(l) + "'s lock word is still taken after the kernel";
  for (int n = 0; n < nodes; ++n)
    if (r.pool.lock[size_t(n)] != 0)
      return "node " + std::to_string(n) + "'s lock word is still taken after the kernel";
  if (r.unpublished)
    return std::to_string(r.unpublished) +
           " peek(s) read a node through the head before its value was visible (its value was still 0)";
  return "";
}

// ---- failure messages -----------------------------------------------------------------------------

// The failure message of a bad run: what ran and what was wrong (the grader shows the first line),
// the replay line, the first report in full, and advice for what the run shows.
std::string failure(const lab06::Outcome& r, const std::string& what, const std::string& problem,
                    const std::string& replay_line, const std::string& advice) {
  std::ostringstream o;
  o << what << ": ";
  const std::string how = synclab::lab::stuck_word(r.reports);
  if (!r.finished)
    o << "the launch did not finish" << (how.empty() ? " (" + r.error + ")" : ": it " + how);
  else if (!problem.empty())
    o << problem;
  else
    o << "the simulator reported " << r.reports.size() << " problem(s)";
  if (!r.reports.empty()) o << "; first report: " << synclab::lab::brief(r.reports.front());
  o << "\n  replay: " << replay_line << "\n";
  if (!r.reports.empty()) o << r.reports.front().text << "\n";
  if (!advice.empty()) o << "  (" << advice << ")\n";
  return o.str();
}

// The race checker's words when a hand-over through memory lacks its release: the writer did not
// fence before the atomic that hands over (docs/checkers.md). Race detection is the same under both
// memory models, so this shows under sc as well as under relaxed.
bool missing_release(const lab06::Outcome& r) {
  return !r.reports.empty() && r.reports.front().text.find("did not release") != std::string::npos;
}

// The race checker's words when the new holder of a lock did not fence after the read that took it
// (docs/checkers.md).
bool missing_acquire(const lab06::Outcome& r) {
  return !r.reports.empty() && r.reports.front().text.find("did not acquire") != std::string::npos;
}

// Advice for the lock tasks, from what the run showed. `second`: task 1b, whose shared word is the
// first node's next rather than the list's head.
std::string lock_advice(const lab06::Outcome& r, const std::string& problem, const Schedule& s, bool untouched,
                        bool second) {
  const std::string word = second ? "first's next" : "the head";
  if (untouched)
    return second ? "no node reached its list: is insert_second_locked's TODO(1b) done (with 1a's try_lock and unlock)?"
                  : "no node reached its list: are the TODO(1a)s of try_lock, unlock and push_node_locked done?";
  const std::string kind = r.reports.empty() ? "" : r.reports.front().kind;
  if (!r.finished && (kind == "deadlock" || kind == "hang"))
    return "a lane that won the lock must finish its critical section and release the lock inside the loop: under\n"
           "   lockstep the winner otherwise waits at the end of the loop for the lanes that spin on the lock it holds";
  if (missing_release(r))
    return "the unlock publishes the critical section: every write of the critical section (the node's value and\n"
           "   next, " + word + ") must be visible before the lock looks free, so write them all, then put\n"
           "   __threadfence() before the atomicExch that releases it";
  if (missing_acquire(r))
    return "taking the lock is the acquire: put __threadfence() right after the atomicCAS that wins it, so that\n"
           "   the new holder reads " + word + " as the previous holder left it";
  if (kind == "race")
    return "the lock orders only what lies between its two fences: read and write " + word +
           " only with the lock held\n"
           "   (the slides: lock head first, then copy), after try_lock's __threadfence() right after the winning\n"
           "   atomicCAS, and every write of the critical section before unlock's __threadfence() and atomicExch";
  if (s.memory == "relaxed" && !problem.empty())
    return "under relaxed the next holder read an old " + std::string(second ? "next" : "head") +
           ": every write of the critical section (the node's value and next,\n"
           "   " + word + ") must come before unlock's __threadfence() and atomicExch, and try_lock needs its\n"
           "   __threadfence() right after the winning atomicCAS";
  if (problem.find("lost") != std::string::npos)
    return "read " + word + " only with the lock held (the slides: lock head first, then copy), and write it\n"
           "   before the unlock: a copy made before the lock is taken may be stale by the time the lock is yours,\n"
           "   and the node linked in between is lost";
  return "";
}

struct PushShape {
  int blocks, threads, lists;
};

void check_push(lab06::PushKernel k, const std::string& command, const PushShape& sh, int seeds) {
  // The unlock (or the CAS on the head) publishes the node: explore the relaxed memory model too.
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds, {"sc", "relaxed"}))) {
    lab06::PushResult r =
        synclab::lab::run_under(s, [&] { return lab06::run_push(k, sh.blocks, sh.threads, sh.lists); });
    const std::string what =
        shape_text(lab06::name(k), sh.blocks, sh.threads) + " into " + std::to_string(sh.lists) + " list(s)";
    const std::string cmd =
        replay(command + " " + shape_args(sh.blocks, sh.threads) + " --lists " + std::to_string(sh.lists) +
                   (s.memory == "sc" && !s.on_gpu() ? " --memory sc" : ""),
               s);
    const std::string problem = r.finished ? push_problem(k, r, sh.blocks * sh.threads, sh.lists) : "";
    if (r.finished && r.reports.empty() && problem.empty()) continue;
    bool untouched = r.finished;
    for (size_t l = 0; untouched && l < r.heads.size(); ++l)
      untouched = r.heads[l] == (k == lab06::PushKernel::second ? int(l) : -1) &&
                  (k != lab06::PushKernel::second || r.pool.next[l] == -1);
    std::string advice;
    if (k == lab06::PushKernel::lockfree) {
      if (untouched)
        advice = "no node reached its list: is push_cas's TODO(2a) done?";
      else if (missing_release(r) || r.unpublished || (s.memory == "relaxed" && r.reports.empty()))
        advice =
            "the atomicCAS on the head publishes the node: __threadfence() between writing the node's value and\n"
            "   next and the atomicCAS, so that a thread that reads the head and then the node finds them written";
      else
        advice =
            "link the node to the head the CAS compares against; when the CAS fails, take the head it returned and\n"
            "   try again";
    } else {
      advice = lock_advice(r, problem, s, untouched, k == lab06::PushKernel::second);
    }
    FAIL(failure(r, what, problem, cmd, advice));
  }
}

}  // namespace

// ---- task 1: insertion under a lock ----------------------------------------------------------------

TEST_CASE("lab06 task1a push_locked keeps every node within one warp and across blocks under both memory models",
          "[lab06][task1][pts:3]") {
  check_push(lab06::PushKernel::locked, "locked --kernel locked", {1, 32, 1}, 2);
  check_push(lab06::PushKernel::locked, "locked --kernel locked", {2, 48, 3}, 2);
}

TEST_CASE("lab06 task1b push_second inserts every node as the second under the first node's lock",
          "[lab06][task1][pts:2]") {
  check_push(lab06::PushKernel::second, "locked --kernel second", {1, 32, 2}, 2);
  check_push(lab06::PushKernel::second, "locked --kernel second", {2, 40, 1}, 2);
}

// ---- task 2: lock-free push and ABA ------------------------------------------------------------------

TEST_CASE("lab06 task2a push_lockfree keeps every node and publishes it with the CAS under both memory models",
          "[lab06][task2][pts:3]") {
  check_push(lab06::PushKernel::lockfree, "lockfree", {1, 32, 1}, 2);
  check_push(lab06::PushKernel::lockfree, "lockfree", {2, 48, 3}, 2);
}

namespace {
// Every thread pops and pushes back `rounds` times on a stack of `nodes` > threads nodes: the stack
// is never empty, so every pop succeeds, and afterwards it holds every node exactly once.
void check_stack(int blocks, int threads, int nodes, int rounds, int seeds) {
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab06::StackResult r = synclab::lab::run_under(
        s, [&] { return lab06::run_stack(lab06::StackKernel::tagged, blocks, threads, nodes, rounds); });
    std::string problem;
    if (r.finished) {
      const Walk w = host_walk(r.head, r.pool.next);
      std::set<int> in(w.nodes.begin(), w.nodes.end());
      if (w.cycle)
        problem = "the stack has a cycle (a node popped twice was pushed on top of itself)";
      else if (w.bad)
        problem = "the stack links to a node outside the pool";
      else if (int(in.size()) != nodes)
        problem = "the stack holds " + std::to_string(in.size()) + " of its " + std::to_string(nodes) + " nodes";
      else if (r.pops != blocks * threads * rounds)
        problem = std::to_string(r.pops) + " pops succeeded, expected " + std::to_string(blocks * threads * rounds) +
                  " (the stack is never empty)";
    }
    if (r.finished && r.reports.empty() && problem.empty()) continue;
    const std::string what = shape_text("pop_push_tagged", blocks, threads) + " on " + std::to_string(nodes) +
                             " nodes, " + std::to_string(rounds) + " rounds";
    const std::string cmd = replay("aba --kernel tagged " + shape_args(blocks, threads) + " --nodes " +
                                       std::to_string(nodes) + " --rounds " + std::to_string(rounds),
                                   s);
    std::string advice =
        r.pops == 0 && r.finished
            ? "no pop succeeded: are pop_tagged and push_tagged (TODO(2b)) done?"
            : "compare the whole head word (tag and index) and put back a word whose tag is one more: a node that was\n"
              "   popped and pushed back between your read of the head and your CAS must make the CAS fail (ABA)";
    FAIL(failure(r, what, problem, cmd, advice));
  }
}
}  // namespace

TEST_CASE("lab06 task2b pop_push_tagged keeps every node where the naive pop suffers ABA", "[lab06][task2][pts:3]") {
  // The exploration must be able to show ABA, or a tagged version passing it proves nothing: the
  // provided naive pop, on the same stack, must lose or repeat a node in some explored schedule.
  if (synclab::lab::on_simulator()) {
    bool aba = false;
    for (const Schedule& s : synclab::lab::schedules(exploration(4))) {
      lab06::StackResult r =
          synclab::lab::run_under(s, [&] { return lab06::run_stack(lab06::StackKernel::naive, 4, 1, 6, 3); });
      if (!r.finished) continue;
      const Walk w = host_walk(r.head, r.pool.next);
      aba = aba || w.cycle || w.bad || w.nodes.size() != 6;
    }
    CHECKED_ELSE(aba)
    FAIL(
        "no explored schedule of the provided pop_push_naive<<<4, 1>>> showed ABA ("
        << synclab::lab::program_command("lab06") << " aba --kernel naive):\n"
        "  the exploration is too weak to grade 2b; the simulator is at fault, not you");
  }
  check_stack(2, 2, 6, 3, 4);
  check_stack(4, 1, 6, 3, 4);
}

// ---- task 3: deletion ---------------------------------------------------------------------------------

namespace {
void check_delete(int n, int divisor, int blocks, int threads, int seeds) {
  const lab06::DeleteInput in = lab06::delete_input(n, lab06::delete_seed(n, divisor));
  REQUIRE(in.value.size() == size_t(n));
  REQUIRE(in.order.size() == size_t(n));
  // The host reference: the marks, and the list as the unmarked nodes in their order.
  std::vector<int> want_mark(size_t(n), 0), want_list;
  for (int i = 1; i < n; ++i) want_mark[size_t(i)] = in.value[size_t(i)] % divisor == 0;
  for (int node : in.order)
    if (!want_mark[size_t(node)]) want_list.push_back(node);
  int marked = 0;
  for (int m : want_mark) marked += m;
  REQUIRE(marked >= 2);  // the input is chosen so that there is something to delete
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab06::DeleteResult r = synclab::lab::run_under(s, [&] { return lab06::run_delete(in, divisor, blocks, threads); });
    std::string problem;
    bool marks_right = true;
    if (r.finished) {
      for (int i = 0; i < n && problem.empty(); ++i)
        if (r.pool.mark[size_t(i)] != want_mark[size_t(i)]) {
          marks_right = false;
          problem = "node " + std::to_string(i) + " (value " + std::to_string(in.value[size_t(i)]) + ") is " +
                    (r.pool.mark[size_t(i)] ? "marked but should not be" : "not marked but should be");
        }
      const Walk w = host_walk(0, r.pool.next);
      if (problem.empty() && (w.cycle || w.bad)) problem = "the list from node 0 has a cycle or leaves the pool";
      for (size_t k = 0; problem.empty() && k < std::max(w.nodes.size(), want_list.size()); ++k) {
        if (k < w.nodes.size() && k < want_list.size() && w.nodes[k] == want_list[k]) continue;
        if (k < w.nodes.size() && want_mark[size_t(w.nodes[k])])
          problem = "marked node " + std::to_string(w.nodes[k]) + " is still linked, at position " + std::to_string(k);
        else if (k >= w.nodes.size())
          problem = "unmarked node " + std::to_string(want_list[k]) + " is no longer in the list";
        else
          problem = "position " + std::to_string(k) + " holds node " + std::to_string(w.nodes[k]) + ", expected " +
                    (k < want_list.size() ? "node " + std::to_string(want_list[k]) : std::string("the end"));
      }
    }
    if (r.finished && r.reports.empty() && problem.empty()) continue;
    const std::string what = "mark_nodes + unlink_marked" + std::string("<<<") + std::to_string(blocks) + ", " +
                             std::to_string(threads) + ">>> on " + std::to_string(n) + " nodes, divisor " +
                             std::to_string(divisor);
    const std::string cmd = replay(
        "delete --n " + std::to_string(n) + " --divisor " + std::to_string(divisor) + " " + shape_args(blocks, threads),
        s);
    std::string advice;
    if (!marks_right)
      advice = "mark_nodes (3a): a grid-stride loop over every node, the sentinel 0 never marked";
    else if (r.finished && r.reports.empty())
      advice =
          "no race, yet the list is wrong: every unmarked node must link past the whole run of marked nodes after\n"
          "   it (a loop, not one step), and every node needs its turn: with fewer threads than nodes (" +
          std::to_string(blocks * threads) + " here,\n"
          "   " + std::to_string(n) + " nodes) unlink_marked needs a grid-stride loop, as mark_nodes does";
    else
      advice =
          "two neighbours may both be marked: if a thread writes a next that another thread reads, the order\n"
          "   of the two decides whether a marked node stays linked. Let only unmarked nodes write, each its own\n"
          "   next, skipping the whole run of marked nodes after it";
    FAIL(failure(r, what, problem, cmd, advice));
  }
}
}  // namespace

TEST_CASE("lab06 task3 mark_nodes and unlink_marked delete the marked nodes under every schedule",
          "[lab06][task3][pts:4]") {
  check_delete(24, 3, 1, 32, 2);
  check_delete(24, 3, 2, 4, 2);
}

// ---- task 4: worklists -------------------------------------------------------------------------------

namespace {
void check_worklist(lab06::WorklistKernel k, const std::string& short_name, int blocks, int threads, int seeds) {
  const std::vector<int> counts = lab06::random_counts(blocks * threads, lab06::counts_seed(blocks, threads));
  REQUIRE(counts.size() == size_t(blocks) * threads);
  std::multiset<int> want;
  for (size_t t = 0; t < counts.size(); ++t)
    for (int j = 0; j < counts[t]; ++j) want.insert(int(t) * 8 + j);  // kMaxItems = 8 items a thread at most
  for (const Schedule& s : synclab::lab::schedules(exploration(seeds))) {
    lab06::WorklistResult r =
        synclab::lab::run_under(s, [&] { return lab06::run_worklist(k, counts, blocks, threads); });
    std::string problem;
    if (r.finished) {
      if (r.size != int(want.size()))
        problem = "size ended at " + std::to_string(r.size) + ", expected " + std::to_string(want.size()) + " items";
      else {
        const std::multiset<int> got(r.items.begin(), r.items.begin() + r.size);
        for (int x : want)
          if (got.count(x) != 1) {
            problem = "item " + std::to_string(x) + " of thread " + std::to_string(x / 8) + " is in the worklist " +
                      std::to_string(got.count(x)) +
                      " time(s) (another item was written over it, or it was never written)";
            break;
          }
      }
    }
    // 4b and 4c reserve one share per warp (per block): its items lie together, in thread order.
    const int group = k == lab06::WorklistKernel::warp ? 32 : k == lab06::WorklistKernel::scan ? threads : 0;
    for (int first = 0; r.finished && problem.empty() && group && first < blocks * threads; first += group) {
      std::vector<int> items;
      for (int t = first; t < first + group; ++t)
        for (int j = 0; j < counts[size_t(t)]; ++j) items.push_back(t * 8 + j);
      if (items.empty()) continue;
      const auto at = std::find(r.items.begin(), r.items.begin() + r.size, items[0]);
      if (at + items.size() > r.items.begin() + r.size || !std::equal(items.begin(), items.end(), at))
        problem = "the items of threads " + std::to_string(first) + ".." + std::to_string(first + group - 1) +
                  " are not together in thread order: one " + (group == 32 ? "warp" : "block") +
                  " reserves one share with one atomicAdd";
    }
    if (r.finished && r.reports.empty() && problem.empty()) continue;
    const std::string what = shape_text(lab06::name(k), blocks, threads);
    const std::string cmd = replay("worklist --kernel " + short_name + " " + shape_args(blocks, threads), s);
    std::string advice;
    const char* todo = k == lab06::WorklistKernel::atomic ? "4a" : k == lab06::WorklistKernel::warp ? "4b" : "4c";
    bool in_scan = false;  // a report inside the provided block_exclusive_scan
    for (const Report& rep : r.reports) in_scan = in_scan || rep.text.find("lab06_scan.cuh") != std::string::npos;
    const bool size_wrong = r.finished && r.size != int(want.size());
    if (r.finished && r.size == 0)
      advice = std::string("nothing was pushed: is ") + lab06::name(k) + "'s TODO(" + todo + ") done?";
    else if (k == lab06::WorklistKernel::warp && size_wrong)
      advice =
          "the size is wrong: lane 0's one atomicAdd must add the whole warp's total, lane 31's inclusive sum\n"
          "   (__shfl_sync(mask, sum, 31)), and only lane 0 may add it";
    else if (k == lab06::WorklistKernel::warp)
      advice =
          "lane i writes from the warp's base plus the counts of lanes 0..i-1 (its inclusive sum minus its own "
          "count),\n"
          "   and every lane must use the base that lane 0's atomicAdd returned (__shfl_sync from lane 0)";
    else if (k == lab06::WorklistKernel::scan && in_scan)
      advice =
          "block_exclusive_scan has barriers and fills a shared array: every thread of the block must call it, so\n"
          "   no return or if before it (a thread with no items calls it with 0)";
    else if (k == lab06::WorklistKernel::scan && size_wrong)
      advice =
          "the size is wrong: thread 0's one atomicAdd must reserve the whole block's share, the total that\n"
          "   block_exclusive_scan returns through its second argument";
    else if (k == lab06::WorklistKernel::scan)
      advice =
          "thread 0 reserves the block's share into a __shared__ base; the other threads may read it only after a\n"
          "   __syncthreads()";
    else
      advice = "one atomicAdd per item: its result is the item's slot";
    FAIL(failure(r, what, problem, cmd, advice));
  }
  // 4b and 4c: the atomics themselves, counted on the simulator in one rr run (with a warp's lanes
  // taking their turns in lane order, one atomicAdd per lane also leaves each thread's items
  // together; only the count tells them apart).
  const bool per_warp = k == lab06::WorklistKernel::warp, per_block = k == lab06::WorklistKernel::scan;
  if ((per_warp || per_block) && synclab::lab::on_simulator()) {
    synclab_sim_counts c{};
    const lab06::WorklistResult r =
        synclab::lab::run_counted([&] { return lab06::run_worklist(k, counts, blocks, threads); }, &c);
    REQUIRE((c.launches >= 1 && c.warps_launched > 0));
    const uint64_t allowed = per_warp ? c.warps_launched : uint64_t(blocks);
    CHECKED_ELSE(c.global_atomic_lane_ops <= allowed)
    FAIL(shape_text(lab06::name(k), blocks, threads) + " made " + std::to_string(c.global_atomic_lane_ops) +
         " atomic operations for " + std::to_string(allowed) + (per_warp ? " warps" : " blocks") +
         (r.reports.empty() ? "" : " (and has reports)") + ": the task is one atomicAdd per " +
         (per_warp ? "warp: lane 0 adds the warp's total (lane 31's inclusive sum, __shfl_sync) and passes the base "
                     "it gets to the other lanes with __shfl_sync"
                   : "block: thread 0 adds the block's total (block_exclusive_scan's second result) and passes the "
                     "base to the others through __shared__ memory and a __syncthreads()") +
         ". " + synclab::lab::program_command("lab06") + " worklist --kernel " + short_name + " " +
         shape_args(blocks, threads) + " --profile counts them.");
  }
}
}  // namespace

TEST_CASE("lab06 task4a push_atomic fills the worklist with one atomic per item", "[lab06][task4][pts:1]") {
  check_worklist(lab06::WorklistKernel::atomic, "atomic", 2, 64, 2);
  check_worklist(lab06::WorklistKernel::atomic, "atomic", 1, 96, 2);
}

TEST_CASE("lab06 task4b push_warp_aggregated fills the worklist with one atomic per warp", "[lab06][task4][pts:3]") {
  check_worklist(lab06::WorklistKernel::warp, "warp", 2, 64, 2);
  check_worklist(lab06::WorklistKernel::warp, "warp", 1, 96, 2);
}

TEST_CASE("lab06 task4c push_scan fills the worklist with a block scan and one atomic per block",
          "[lab06][task4][pts:3]") {
  check_worklist(lab06::WorklistKernel::scan, "scan", 2, 64, 2);
  check_worklist(lab06::WorklistKernel::scan, "scan", 1, 96, 2);
}

// ---- task 6: a bounded queue of your own design ----------------------------------------------------
// Graded by its contract (lab06_kernels.cuh, above queue_push) and nothing else: any queue that keeps
// it passes (the reference solution's ring of turn words and the lock of
// tests/labs/designs/06-linked-lists/ both do). The expected results come from a host FIFO (one
// thread alone) and from what each thread pushed (many threads).

namespace {

// One thread alone: what a FIFO of kQueueCapacity values returns for each step of the plan.
std::string queue_alone_problem(const std::vector<int>& plan, const lab06::QueueAloneResult& r) {
  std::vector<int> fifo;
  size_t front = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const size_t held = fifo.size() - front;
    const bool push = plan[i] == 1;
    const bool ok = push ? held < size_t(lab06::kQueueValues) : held > 0;
    const std::string call = (push ? "push of " + std::to_string(i + 1) : std::string("pop")) + " at step " +
                             std::to_string(i + 1) + " with " + std::to_string(held) + " value(s) in the queue";
    if (r.result[i] != int(ok))
      return "the " + call + " returned " + (r.result[i] == 1 ? "true" : "false") + " (capacity " +
             std::to_string(lab06::kQueueValues) + ")";
    if (!ok) continue;
    if (push) {
      fifo.push_back(int(i) + 1);
    } else if (r.value[i] != fifo[front++]) {
      return "the " + call + " took " + std::to_string(r.value[i]) + ", not the oldest, " + std::to_string(fifo[front - 1]);
    }
  }
  return "";
}

// Many threads: each pushed value popped once, nothing else, and each thread's pops of one pusher's
// values in the order they were pushed (thread g pushes g * rounds + 1, ..., g * rounds + rounds).
std::string queue_pairs_problem(const lab06::QueueResult& r, int threads, int rounds) {
  std::map<int, int> popped;
  for (int v : r.got) ++popped[v];
  for (const auto& [v, n] : popped)
    if (v < 1 || v > threads * rounds)
      return "a pop took " + std::to_string(v) + ", a value no thread pushed" + (n > 1 ? " (" + std::to_string(n) + " pops)" : "");
  for (int v = 1; v <= threads * rounds; ++v)
    if (popped[v] != 1)
      return "value " + std::to_string(v) + " (thread " + std::to_string((v - 1) / rounds) + "'s) was popped " +
             std::to_string(popped[v]) + " times";
  for (int g = 0; g < threads; ++g)
    for (int i = 0; i < rounds; ++i)
      for (int j = i + 1; j < rounds; ++j) {
        const int a = r.got[size_t(g * rounds + i)], b = r.got[size_t(g * rounds + j)];
        if ((a - 1) / rounds == (b - 1) / rounds && a > b)
          return "thread " + std::to_string(g) + " popped " + std::to_string(a) + " before " + std::to_string(b) +
                 ", which thread " + std::to_string((a - 1) / rounds) + " pushed first (not FIFO)";
      }
  return "";
}

std::string queue_advice(const lab06::Outcome& r, const std::string& problem) {
  const std::string kind = r.reports.empty() ? "" : r.reports.front().kind;
  if (!r.finished && kind == "hang" && r.reports.front().title.find("reads no memory") != std::string::npos)
    return "queue_pairs tried queue_push (or queue_pop) for ever, and the calls read no memory: they return false\n"
           "   every time. Is TODO(6) done? A call that returns false must read the queue's words again next time\n"
           "   (volatile or atomic loads), so that it can succeed once another thread has moved on";
  if (!r.finished && (kind == "deadlock" || kind == "hang"))
    return "the threads of queue_pairs stopped getting anywhere. If a call waits for another thread (a loop in\n"
           "   queue_push or queue_pop), it must not: under lockstep a lane that waits inside a call holds back its\n"
           "   whole warp, and so the thread it waits for. Take what you need with one atomic and return false when\n"
           "   another thread has it; queue_pairs tries again. If no call waits, a value was lost or the queue's words\n"
           "   were left saying full (or empty) when they are not, and every call now returns false";
  if (kind == "race")
    return "two threads' accesses were not ordered: whatever one thread hands to the next (a value through its slot,\n"
           "   a slot back for the next lap, the lock with the queue's words) needs a release on the handing side and\n"
           "   an acquire on the taking side: __threadfence() between the writes it hands over and the store or atomic\n"
           "   that hands over, and after the read or atomic that takes over, before the accesses it covers (or\n"
           "   release stores and acquire loads, cuda::atomic_ref); and the words that hand over read and written with\n"
           "   volatile or atomic accesses, never plain ones";
  if (!problem.empty())
    return "a value was lost, repeated, invented or popped out of order. Taking a position is not writing a value:\n"
           "   a pop may read a slot whose push took the position but has not written it yet, and a push may write a\n"
           "   slot whose value nobody popped. Let a thread take a position only once the slot says it is ready for\n"
           "   it (a word per slot that its push sets after writing the value and its pop after reading it), or keep\n"
           "   the whole queue under one lock; and wherever such a word or lock hands a slot over, a fence on each side";
  return "";
}

}  // namespace

TEST_CASE("lab06 task6 queue_push and queue_pop keep a FIFO of 8 values for one thread", "[lab06][task6][pts:2]") {
  const std::vector<int> plan = lab06::queue_alone_plan();
  for (const Schedule& s : synclab::lab::schedules(exploration(0, {"sc", "relaxed"}))) {
    lab06::QueueAloneResult r = synclab::lab::run_under(s, [&] { return lab06::run_queue_alone(plan); });
    const std::string problem = r.finished ? queue_alone_problem(plan, r) : "";
    if (r.finished && r.reports.empty() && problem.empty()) continue;
    bool untouched = r.finished;
    for (size_t i = 0; untouched && i < r.result.size(); ++i) untouched = r.result[i] == 0;
    const std::string advice =
        untouched ? "every call returned false: is TODO(6) done?"
        : !problem.empty()
            ? "one thread alone: a push succeeds while fewer than 8 values are in the queue and returns false at 8,\n"
              "   changing nothing; a pop takes the oldest value while there is one and returns false on an empty queue"
            : queue_advice(r, problem);
    FAIL(failure(r, "queue_alone<<<1, 1>>>, " + std::to_string(plan.size()) + " pushes and pops", problem,
                 replay("queue", s), advice));
  }
  // The cost of each call, counted on the simulator (lab06::queue_call_atomics): two atomics for a
  // call that succeeded, none for one that found the queue full or empty.
  if (!synclab::lab::on_simulator()) return;  // (on a GPU Nsight Compute counts them)
  const lab06::QueueCallCosts costs = lab06::queue_call_atomics(plan);
  if (!costs.finished)
    FAIL("the counted run of the first " + std::to_string(costs.atomics.size() + 1) + " calls did not finish");
  for (size_t i = 0; i < costs.atomics.size(); ++i) {
    const size_t k = i + 1;
    const bool push = plan[i] == 1, ok = costs.result[i] == 1;
    const unsigned long long mine = costs.atomics[i], allowed = ok ? 2 : 0;
    CHECKED_ELSE(mine <= allowed)
    FAIL("call " + std::to_string(k) + " of one thread alone (a " + (push ? "push" : "pop") + " that " +
         (ok ? "succeeded" : std::string("found the queue ") + (push ? "full" : "empty")) + ") took " +
         std::to_string(mine) + " atomic operation(s): the contract allows two for a call that succeeds and none " +
         "for a call that finds the queue full or empty. " +
         (ok ? std::string("Take a position (or the lock) with one atomic and hand it on with at most one more.")
             : std::string("Look at the queue with loads first, and return false without an atomic when it is ") +
                   (push ? "full." : "empty.")) +
         " " + synclab::lab::program_command("lab06") + " queue prints the count.");
  }
}

TEST_CASE("lab06 task6 queue_pairs pops every value once and in order under both warp and memory models",
          "[lab06][task6][pts:4]") {
  struct Shape {
    int blocks, threads, rounds;
  };
  for (const Shape& sh : {Shape{1, 32, 3}, Shape{2, 16, 3}, Shape{3, 8, 2}}) {
    for (const Schedule& s : synclab::lab::schedules(exploration(2, {"sc", "relaxed"}))) {
      lab06::QueueResult r =
          synclab::lab::run_under(s, [&] { return lab06::run_queue_pairs(sh.blocks, sh.threads, sh.rounds); });
      const std::string problem = r.finished ? queue_pairs_problem(r, sh.blocks * sh.threads, sh.rounds) : "";
      if (r.finished && r.reports.empty() && problem.empty()) continue;
      const std::string args = "queue " + shape_args(sh.blocks, sh.threads) + " --rounds " + std::to_string(sh.rounds);
      FAIL(failure(r, shape_text("queue_pairs", sh.blocks, sh.threads) + ", " + std::to_string(sh.rounds) + " rounds",
                   problem, replay(args, s), queue_advice(r, problem)));
    }
  }
}
