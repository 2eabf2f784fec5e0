// Lab 09 (tiny-lock wavefronts): the graded tests. Points are in the tags ([pts:N]); each case is
// graded on its own (the grader runs it in its own process). On the simulator every case explores
// schedules (rr, pct and random seeds under both warp models, `its` and the pre-Volta `lockstep`)
// with all checkers on, and requires the right results and no report at all; where a value is
// published through a lock bit or a flag (tasks 1 and 4) the relaxed memory model runs too
// (docs/memory-model.md). On a GPU the same cases repeat the run and check the results. Expected
// values come from the host references in this file, written apart from the harness.
#include <synclab/catch.h>

#include <algorithm>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "lab09.h"

namespace {

using synclab::lab::Exploration;
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
  return synclab::lab::replay_command("lab09", args, s);
}

// ---- host references ---------------------------------------------------------------------------------

int host_channel_value(int lane, int i) { return lane * 1000 + i * 7 + 1; }

std::vector<int> host_hist(const std::vector<int>& keys, int bins) {
  std::vector<int> h(size_t(bins), 0);
  for (int k : keys) ++h[size_t(k)];
  return h;
}

std::vector<int> host_balances(const std::vector<lab09::Transfer>& ts) {
  std::vector<int> b = lab09::opening_balances();
  for (const lab09::Transfer& t : ts) b[size_t(t.from)] -= t.amount, b[size_t(t.to)] += t.amount;
  return b;
}

// Listing 10 on 16 warps: A[tid + 32] = A[tid] + tid, serially.
std::vector<int> host_chain(const std::vector<int>& input) {
  std::vector<int> A(input);
  A.resize(32 + 512);
  for (int tid = 0; tid < 512; ++tid) A[size_t(tid + 32)] = A[size_t(tid)] + tid;
  return std::vector<int>(A.begin() + 32, A.end());
}

// Needleman-Wunsch (the paper's Equation 1), row by row: S(i, j) from its north, west and
// north-west neighbours; p = +2 for a match, -1 otherwise; gap penalty 1.
std::vector<int> host_nw(const std::vector<int>& a, const std::vector<int>& b) {
  const int n = int(a.size());
  std::vector<int> S(size_t((n + 1) * (n + 1)));
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      int& s = S[size_t(i * (n + 1) + j)];
      if (i == 0 || j == 0) {
        s = -(i + j);
        continue;
      }
      const int p = a[size_t(i - 1)] == b[size_t(j - 1)] ? 2 : -1;
      s = std::max({S[size_t((i - 1) * (n + 1) + j - 1)] + p, S[size_t((i - 1) * (n + 1) + j)] - 1,
                    S[size_t(i * (n + 1) + j - 1)] - 1});
    }
  return S;
}

// ---- failure messages --------------------------------------------------------------------------------

bool report_says(const lab09::Outcome& r, const std::string& words) {
  for (const auto& rep : r.reports)
    if (rep.text.find(words) != std::string::npos) return true;
  return false;
}

std::string advice(const lab09::Outcome& r, const Schedule& s, const std::string& task) {
  const std::string kind = r.reports.empty() ? "" : r.reports.front().kind;
  if (task == "2" && !r.finished && s.model == "lockstep")
    return "SIMD deadlock: lanes of one warp wait for one lock bit, and under lockstep the lane that got it waits\n"
           "   at the reconvergence point after the wait loop for its warp-mates, which spin on the bit it holds. Try\n"
           "   the lock inside the loop and do the critical section and the unlock inside it too, on the iteration\n"
           "   that got the bit (the paper's Listing 7): volatile bool done = false; while (!done) { if "
           "(tl_try_lock(...))\n"
           "   { ...; tl_unlock(...); done = true; } }. Keep done volatile: for Volta and later nvcc may otherwise\n"
           "   move the count and the unlock after the loop (legal under independent thread scheduling), which brings\n"
           "   the deadlock back (README, task 2)";
  if (task == "3" && r.stuck.find("alias deadlock") != std::string::npos)
    return "alias deadlock: two addresses whose bits 2-11 are equal share one lock bit, and a thread that holds it\n"
           "   waits for it again. When tl_bit(a) == tl_bit(b), take that bit once (and release it once)";
  if (task == "3" && !r.finished)
    return "lock-order deadlock: two warps each hold one lock bit and wait for the other's. Take the two bits in\n"
           "   one order for every warp: the lower lock bit (tl_bit) first, not the lower address, since aliasing\n"
           "   makes the order of addresses and of bits differ";
  if (task == "1" && (kind == "race" || s.memory == "relaxed"))
    return "the channel's hand-over lacks ordering: put must write the value before it sets the bit (tl_set is a\n"
           "   release), and get must put __threadfence_block() between seeing the bit set and reading the value\n"
           "   (acquire); put likewise after seeing the bit clear";
  if (task == "1") return "TODO(1a)/(1b): put waits while the bit is set, get waits while it is clear (tl_is_set)";
  if (task == "4b" && kind == "race" &&
      r.reports.front().text.find(" had not synchronized with ") != std::string::npos)
    return "a lane read its input before its producer's write was published: lane 0's st_release_cta raised the\n"
           "   warp's flag when only its own write was done, and a release publishes only what its thread wrote or\n"
           "   had synchronized with. Put __syncwarp() between the warp's 32 writes of A[tid + 32] and lane 0's\n"
           "   st_release_cta";
  if (task == "4b" && kind == "race")
    return "a lane read its input before its producer's write was published: flag_hop must __syncwarp() after the\n"
           "   32 writes, then lane 0 raises the flag with st_release_cta, and the consumer reads the flag with\n"
           "   ld_acquire_cta in its wait loop";
  if (task == "4a" && kind == "race")
    return "a lane read its input before its producer's write was published: the producer must write\n"
           "   A[tid + 32] before it releases that word's bit (tl_unlock is the release), and the consumer must\n"
           "   read A[tid] only after tl_lock got A[tid]'s bit (tl_lock is the acquire): lock, compute, then unlock\n"
           "   both";
  if (task == "4a")
    return "TODO(4a): the setup takes the bit of A[tid + 32] (tl_try_lock); the hop waits for the bit of A[tid]\n"
           "   (tl_lock, wid > 0), computes A[tid + 32], and only then releases both bits (tl_unlock)";
  if (task == "5b" && (kind == "fault" || r.error.find("illegal memory access") != std::string::npos))
    return "a block read or wrote outside ready[] or S: index the flags by the tile, not by the ticket (tickets go\n"
           "   along the anti-diagonals): wait for ready[(ti - 1) * tiles + tj] (north) and ready[ti * tiles + tj - 1]\n"
           "   (west), raise ready[ti * tiles + tj]";
  if (task == "5b" && (kind == "race" || s.memory == "relaxed"))
    return "a tile read its neighbours' cells before their writes were published to it: thread 0 must wait for\n"
           "   ready[(ti - 1) * tiles + tj] (north) and ready[ti * tiles + tj - 1] (west) with ld_acquire_gpu, then\n"
           "   __syncthreads() before the block computes, and raise ready[ti * tiles + tj] with st_release_gpu after\n"
           "   the tile's last __syncthreads (the end of nw_tile); index the flags by the tile, not by the ticket";
  if (task == "5a" && (kind == "fault" || r.error.find("illegal memory access") != std::string::npos))
    return "a block computed a tile outside the grid: every tile (ti, tj) must have 0 <= ti, tj < tiles; in\n"
           "   nw_diagonal, ti = max(0, td - tiles + 1) + blockIdx.x and tj = td - ti, with as many blocks as\n"
           "   diagonal td has tiles (td < tiles ? td + 1 : 2 * tiles - 1 - td)";
  if (task == "5a")
    return "TODO(5a): nw_diagonal maps block k of diagonal td to tile (max(0, td - tiles + 1) + k, td - ti);\n"
           "   nw_wavefront launches it once per tile diagonal, td = 0 .. 2 * tiles - 2";
  if (task == "5b")
    return "TODO(5b): thread 0 waits for the north and west tiles' flags, ready[(ti - 1) * tiles + tj] and\n"
           "   ready[ti * tiles + tj - 1] (ld_acquire_gpu), __syncthreads, nw_tile, then thread 0 raises\n"
           "   ready[ti * tiles + tj] (st_release_gpu); index the flags by the tile, not by the ticket";
  if (task == "6" && kind == "race" && r.reports.front().text.find("write-after-read") != std::string::npos)
    return "a send wrote a value into the link while its receiver had not yet read the one before: one slot per\n"
           "   lane means a send must wait until the receiver has taken the previous value (a counter or flag the\n"
           "   receiver releases after reading, which the sender acquires before writing). Where one lane waits or\n"
           "   releases for its warp, put a __syncwarp() between its wait and the lanes' writes, and one between\n"
           "   the lanes' reads and its release";
  if (task == "6-todo")
    return "every value the last warp wrote came from a pipe_receive that returned 0 (700 + lane each): are the\n"
           "   TODO(6)s of pipe_send and pipe_receive done?";
  if (task == "6" && kind == "race")
    return "a lane read a value before its sender's write was published to it, or a lane's write was not in the\n"
           "   release: a release (or acquire) by one lane covers its warp-mates only through __syncwarp().\n"
           "   Put a __syncwarp() after the 32 writes and before the releasing store, and one after the acquiring load\n"
           "   and before the 32 reads";
  if (task == "6" && !r.finished)
    return "the pipeline got stuck: a warp waits for something the other side of its link never does. Check that\n"
           "   every value sent can be received and every value received frees its slot, from the first value on\n"
           "   (the link's words are 0 before the first), and that all 32 lanes reach each __syncwarp()";
  if (task == "6")
    return "a value was lost, repeated or read before it was written: a send must wait until its receiver took the\n"
           "   value before (one slot per lane), a receive until a new value was sent; and on each side\n"
           "   put a __syncwarp() between the lane that waits or publishes and the lanes that read or write";
  if (task == "4b") return "TODO(4b): flags down in the setup, acquire-wait and release-raise in the hop";
  if (task == "2" && kind == "race")
    return "a race on the bins: either a lane counted without holding the bin's bit (do the count and tl_unlock\n"
           "   inside the loop, on the iteration that got the bit), or the bins were copied out before every lane's\n"
           "   count was in: put a __syncthreads() between the counting loop and the copy to out (the locks order\n"
           "   the counts among themselves, not the copy after them)";
  if (task == "2")
    return "TODO(2): each lane adds 1 to *counter while it holds the counter's tiny lock: tl_try_lock in a loop,\n"
           "   the count and tl_unlock inside it on the iteration that got the bit (README, hint 2)";
  if (task == "3")
    return "TODO(3): hold the bits of *a and *b while moving amount[w]: lock the lower tl_bit first, the other\n"
           "   only if its bit differs, move, unlock in reverse (README, hint 3)";
  return "";
}

std::string failure(const lab09::Outcome& r, const std::string& what, const std::string& problem,
                    const std::string& replay_line, const Schedule& s, const std::string& task) {
  std::ostringstream o;
  o << what << ": ";
  const std::string how = synclab::lab::stuck_word(r.reports);
  if (!problem.empty())
    o << problem;
  else if (!r.finished)
    o << "the launch did not finish" << (how.empty() ? " (" + r.error + ")" : ": it " + how);
  else
    o << "the simulator reported " << r.reports.size() << " problem(s)";
  if (!r.reports.empty()) o << "; first report: " << synclab::lab::brief(r.reports.front());
  o << "\n  replay: " << replay_line << "\n";
  if (!r.stuck.empty()) {
    std::string stuck = r.stuck;
    for (size_t at = stuck.find('\n'); at != std::string::npos; at = stuck.find('\n', at + 5))
      stuck.replace(at, 1, "\n    ");
    o << "  lock bits when it got stuck:\n    " << stuck << "\n";
  }
  if (!r.reports.empty()) o << r.reports.front().text << "\n";
  const std::string a = advice(r, s, task);
  if (!a.empty()) o << "  (" << a << ")\n";
  return o.str();
}

std::string compare(const std::vector<int>& got, const std::vector<int>& want, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (i >= got.size()) return "no " + what + " " + std::to_string(i);
    if (got[i] != want[i])
      return what + " " + std::to_string(i) + " is " + std::to_string(got[i]) + " instead of " +
             std::to_string(want[i]);
  }
  return "";
}

}  // namespace

TEST_CASE("lab09 task1 channels hand every value over in order", "[lab09][task1][pts:3]") {
  const int values = 3;
  std::vector<int> want;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < values; ++i) want.push_back(host_channel_value(lane, i));
  for (const Schedule& s : synclab::lab::schedules(exploration(2, {"sc", "relaxed"}))) {
    lab09::ChannelRun r = synclab::lab::run_under(s, [&] { return lab09::run_channels(values); });
    const std::string problem = r.finished ? compare(r.out, want, "received value") : "";
    if (!r.finished || !problem.empty() || !r.reports.empty())  // the message's first line is the summary's
      FAIL(failure(r, "32 channels of 3 values", problem, replay("channel --values 3", s), s, "1"));
  }
}

TEST_CASE("lab09 task2 lanes of one warp count under tiny locks without a SIMD deadlock", "[lab09][task2][pts:4]") {
  for (const auto& [n, bins] : std::vector<std::pair<int, int>>{{32, 2}, {64, 5}}) {
    for (const Schedule& s : synclab::lab::schedules(exploration(2))) {
      const uint64_t seed = s.seed;
      lab09::CountRun r = synclab::lab::run_under(s, [&] { return lab09::run_count(n, bins, seed); });
      const std::string problem =
          r.finished ? compare(r.hist, host_hist(lab09::count_keys(n, bins, seed), bins), "bin") : "";
      const std::string args =
          "count --keys " + std::to_string(n) + " --bins " + std::to_string(bins) + " --input " + std::to_string(seed);
      if (!r.finished || !problem.empty() || !r.reports.empty())  // the message's first line is the summary's
        FAIL(failure(r, std::to_string(n) + " keys into " + std::to_string(bins) + " bins", problem, replay(args, s), s,
                     "2"));
    }
  }
}

// ---- task 2: the questions ----------------------------------------------------------------------------
// The expected answers of the first case are derived here, from runs of the harness's naive first
// try (tl_lock; count; tl_unlock) under each warp model: "deadlock" when an explored run does not
// finish, and, under lockstep, where the lanes that got their bit wait: the simulator's report says
// they wait at the reconvergence point for warp-mates that spin in tl_lock's loop, that is where
// the loop ends. The second case's answer is what the test
// labs.09-tiny-lock-wavefronts.nvcc_unlock_placement asserts of the installed nvcc 13.0
// (tests/labs/unlock_placement.py compiles the reference's lock_count with and without `volatile`
// on `done`). (The checks use `if`, not CHECK: Catch2 would print the expansion, and with it the
// expected answer.)
// The answer `given` to `question` of the table `table` (its file and function), or a failure that
// says what the row needs.
std::string answer_row(const std::string& table, const std::string& todo, const std::string& question,
                       const std::string& given, const std::string& choices) {
  if (given.empty())
    FAIL(table << ": the table has no row '" << question << "' (" << todo << "): add it back, " << question
               << " followed by " << choices);
  if (given == "?") FAIL(table << ": the row '" << question << "' is not answered yet (" << todo << "): " << choices);
  return given;
}

std::string answer2(const std::string& question, const std::string& choices) {
  return answer_row("locks.cu, task2_answers_text()", "TODO(2q)", question, lab09::task2_answer(question), choices);
}

struct NaiveRuns {
  std::string verdict = "finishes";  // or "deadlock"
  bool holders_wait_for_spinners = false;
};

NaiveRuns naive_runs(const std::string& model) {
  NaiveRuns out;
  Exploration e = exploration(2);
  e.models = {model};
  for (const Schedule& s : synclab::lab::schedules(e)) {
    const lab09::CountRun r =
        synclab::lab::run_under(s, [&] { return lab09::run_count(32, 2, s.seed, nullptr, lab09::Version::naive); });
    if (!r.finished) out.verdict = "deadlock";
    for (const synclab::lab::Report& rep : r.reports)
      if (rep.text.find("wait at the reconvergence point") != std::string::npos &&
          rep.text.find(" spin at ") != std::string::npos)
        out.holders_wait_for_spinners = true;
  }
  return out;
}

TEST_CASE("lab09 task2q says what the naive lock does under each warp model and where its lanes wait",
          "[lab09][task2][pts:1]") {
  const std::string naive = synclab::lab::program_command("lab09") + " count --version naive";
  const std::string lockstep = answer2("naive_lockstep", "deadlock or finishes");
  const std::string its = answer2("naive_its", "deadlock or finishes");
  const std::string waits = answer2("naive_waits", "in-loop or after-loop");
  NaiveRuns ls, it;
  if (synclab::lab::on_simulator()) {
    ls = naive_runs("lockstep"), it = naive_runs("its");
  } else {
    // On a GPU there is no lockstep to run: the verdicts these runs give on the simulator (where the
    // graded tests derive them in every CI run: tests/grader/approved/reference-09.json).
    ls.verdict = "deadlock", ls.holders_wait_for_spinners = true, it.verdict = "finishes";
  }
  REQUIRE(ls.verdict == "deadlock");  // the reference itself: the naive try is task 2's deadlock
  REQUIRE(ls.holders_wait_for_spinners);
  if (lockstep != ls.verdict)
    FAIL_CHECK("naive_lockstep: you answered " << lockstep << ". Run it: " << naive << " --model lockstep, and read "
                                               << "what the lanes that got a bit do while the others spin");
  if (its != it.verdict)
    FAIL_CHECK("naive_its: you answered " << its << ". Run it: " << naive << " --model its --sched random --seed 1 "
                                          << "(and a few seeds): under independent thread scheduling a lane that "
                                          << "holds the bit is scheduled on its own");
  if (waits != "after-loop")
    FAIL_CHECK("naive_waits: you answered " << waits << ". Under lockstep the warp runs one path at a time: the "
                                            << "lanes that leave tl_lock's loop wait where the loop's paths come "
                                            << "together again for the lanes still in it (the report of "
                                            << naive << " --model lockstep names that reconvergence point)");
}

TEST_CASE("lab09 task2q says where nvcc puts the unlock of a Listing 7 loop whose done is not volatile",
          "[lab09][task2][pts:1]") {
  const std::string unlock = answer2("unlock", "in-loop or after-loop");
  if (unlock != "after-loop")
    FAIL_CHECK("unlock: you answered " << unlock << ". Compile locks.cu without `volatile` on done (README, question "
                                       << "2: nvcc -ptx -arch=compute_75) and find lock_count's atom.shared.or (the "
                                       << "try) and atom.shared.and (the unlock): is there a branch back to the try "
                                       << "between them?");
}

TEST_CASE("lab09 task3 transfers between aliasing accounts finish and keep every balance", "[lab09][task3][pts:4]") {
  // 6 warps: accounts share lock bits; 32 warps: most pairs have bits of their own, so a transfer
  // that unlocks before it writes the balances races with the next holder.
  for (const int warps : {6, 32}) {
    for (const Schedule& s : synclab::lab::schedules(exploration(2))) {
      const uint64_t seed = s.seed;
      lab09::TransferRun r = synclab::lab::run_under(s, [&] { return lab09::run_transfers(warps, seed); });
      const std::string problem =
          r.finished ? compare(r.balance, host_balances(lab09::transfer_list(warps, seed)), "account") : "";
      if (!r.finished || !problem.empty() || !r.reports.empty())  // the message's first line is the summary's
        FAIL(failure(r, std::to_string(warps) + " transfers", problem,
                     replay("transfer --warps " + std::to_string(warps) + " --input " + std::to_string(seed), s), s, "3"));
    }
  }
}

namespace {
void check_chain(const std::string& scheme, const std::string& task) {
  for (const Schedule& s : synclab::lab::schedules(exploration(2, {"sc", "relaxed"}))) {
    const uint64_t seed = s.seed;
    lab09::ChainRun r = synclab::lab::run_under(s, [&] { return lab09::run_chain(lab09::scheme_index(scheme), seed); });
    const std::string problem =
        r.finished ? compare(r.out, host_chain(lab09::chain_input(seed)), "A[32 + i] for i =") : "";
    if (!r.finished || !problem.empty() || !r.reports.empty())  // the message's first line is the summary's
      FAIL(failure(r, "the 16-warp chain, " + scheme, problem,
                   replay("chain --scheme " + scheme + " --input " + std::to_string(seed), s), s, task));
  }
}
}  // namespace

TEST_CASE("lab09 task4a the tiny_lock chain hands the token along 16 warps", "[lab09][task4a][pts:3]") {
  check_chain("tiny_lock", "4a");
}

TEST_CASE("lab09 task4b the release-acquire flag chain hands the token along 16 warps", "[lab09][task4b][pts:3]") {
  check_chain("flag", "4b");
}

namespace {
void check_nw(lab09::NwVersion v, int n, const std::string& task, std::vector<std::string> memories) {
  for (const Schedule& s : synclab::lab::schedules(exploration(2, std::move(memories)))) {
    const uint64_t seed = s.seed;
    lab09::NwRun r = synclab::lab::run_under(s, [&] {
      try {
        return lab09::run_nw(v, n, seed);
      } catch (const std::exception& e) {  // a failed launch (an access outside S): an outcome, with advice
        lab09::NwRun failed;
        failed.finished = false;
        failed.error = e.what();
        return failed;
      }
    });
    std::string problem =
        r.finished ? compare(r.S, host_nw(lab09::nw_sequence(n, seed), lab09::nw_sequence(n, seed + 1000)), "score")
                   : "";
    if (!problem.empty() && problem.rfind("score ", 0) == 0) {  // "score K ...": name the cell S(i, j)
      const size_t end = problem.find(' ', 6);
      const int k = std::stoi(problem.substr(6, end - 6));
      problem = "S(" + std::to_string(k / (n + 1)) + ", " + std::to_string(k % (n + 1)) + ")" + problem.substr(end);
    }
    const std::string args = "nw --version " + std::string(lab09::name(v)) + " --n " + std::to_string(n) + " --input " +
                             std::to_string(seed);
    if (!r.finished || !problem.empty() || !r.reports.empty())  // the message's first line is the summary's
      FAIL(failure(
          r, "Needleman-Wunsch, " + std::string(lab09::name(v)) + ", " + std::to_string(n) + " x " + std::to_string(n),
          problem, replay(args, s), s, task));
  }
}
}  // namespace

// ---- task 4: the question -------------------------------------------------------------------------------
// The data the answers are derived from: warp 15's cycles per scheme on an NVIDIA H200 (2026-11-27,
// nvcc 13.0, median of 51 launches; bench/results/lab09_tinylock.md, the README's table) and the
// paper's speeds against atom_lock on a GTX 570 (Fermi; ICS'15, Table 2; 0: no row there).
struct SchemeSpeed {
  const char* name;
  double h200_cycles;
  double fermi_vs_atom;
  bool emulated;  // a Fermi instruction emulated with atomics on shared words (tinylock.cuh)
};
const SchemeSpeed kSpeeds[] = {{"atom_lock", 3104, 1.0, false}, {"warp_barr", 1052, 2.6, false},
                               {"shrd_lock", 8036, 0.8, false}, {"tiny_lock", 10840, 4.0, true},
                               {"warp_vote", 9267, 2.0, true},  {"mbarrier", 2347, 0, false},
                               {"flag", 3392, 0, false}};

std::string answer4(const std::string& question, const std::string& choices) {
  return answer_row("chain.cu, task4_answers_text()", "TODO(4q)", question, lab09::task4_answer(question), choices);
}

TEST_CASE("lab09 task4q names the fastest scheme on the H200 and the one that lost most since Fermi and why",
          "[lab09][task4][pts:1]") {
  const SchemeSpeed* fastest = &kSpeeds[0];
  const SchemeSpeed* drop = nullptr;
  double worst = 0;
  for (const SchemeSpeed& s : kSpeeds) {
    if (s.h200_cycles < fastest->h200_cycles) fastest = &s;
    if (s.fermi_vs_atom <= 0) continue;
    const double kept = kSpeeds[0].h200_cycles / s.h200_cycles / s.fermi_vs_atom;  // H200's speed over Fermi's
    if (!drop || kept < worst) drop = &s, worst = kept;
  }
  REQUIRE(drop != nullptr);
  REQUIRE(drop->emulated);  // the data itself: what lost most is a Fermi instruction emulated with atomics
  const std::string f = answer4("fastest", "one of atom_lock, warp_barr, shrd_lock, tiny_lock, warp_vote, mbarrier, flag");
  const std::string d = answer4("biggest_drop", "one of the schemes of the paper's Table 2");
  const std::string w = answer4("why", "emulated, divergence or scheduling");
  if (f != fastest->name)
    FAIL_CHECK("fastest: you answered " << f << ". Read the cycles column of task 4's table in the README (an H200's "
                                        << "measurement): fewer cycles is faster");
  if (d != drop->name)
    FAIL_CHECK("biggest_drop: you answered " << d << ". For each scheme with a Fermi number, divide its speed "
                                             << "against atom_lock on the H200 (the \"vs atom_lock\" column) by "
                                             << "the paper's; the smallest quotient lost most");
  if (w != "emulated")
    FAIL_CHECK("why: you answered " << w << ". Read how tinylock.cuh makes one try at a bit (README, \"The "
                                    << "emulation\", and the paragraph under task 4's table) and what Fermi did "
                                    << "in one instruction");
}

TEST_CASE("lab09 task5a the tile wavefront scores two sequences like the host", "[lab09][task5a][pts:3]") {
  check_nw(lab09::NwVersion::wavefront, 32, "5a", {"sc"});
}

TEST_CASE("lab09 task5b the dataflow tiles score two sequences like the host", "[lab09][task5b][pts:4]") {
  check_nw(lab09::NwVersion::dataflow, 48, "5b", {"sc", "relaxed"});
}

// ---- task 6: a hand-over of your own design --------------------------------------------------------------
// Graded by its contract (lab09_kernels.cuh, above pipe_send) and nothing else: any design that keeps
// it passes (the reference solution's two counters per link and the named barriers of
// tests/labs/designs/09-tiny-lock-wavefronts/ both do).

namespace {
// What the last warp writes: pipe_value, then pipe_step of warps 1..7 (lab09_kernels.cuh's
// formulas, written again here).
std::vector<int> host_pipeline(int values) {
  std::vector<int> out;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < values; ++i) {
      int v = lane * 1000 + i * 7 + 1;
      for (int w = 1; w < 8; ++w) v = 3 * v + 100 * w + lane;
      out.push_back(v);
    }
  return out;
}
}  // namespace

TEST_CASE("lab09 task6 pipe_send and pipe_receive hand every value through seven links once and in order",
          "[lab09][task6][pts:4]") {
  const int values = 4;
  const std::vector<int> want = host_pipeline(values);
  for (const Schedule& s : synclab::lab::schedules(exploration(2, {"sc", "relaxed"}))) {
    lab09::PipeRun r = synclab::lab::run_under(s, [&] { return lab09::run_pipeline(values); });
    const std::string problem = r.finished ? compare(r.out, want, "value") : "";
    // (the skeleton: pipe_receive returns 0, so warp 7 writes pipe_step(7, lane, 0) = 700 + lane)
    bool untouched = r.finished && !r.out.empty();
    for (size_t k = 0; untouched && k < r.out.size(); ++k) untouched = r.out[k] == 700 + int(k) / values;
    if (!r.finished || !problem.empty() || !r.reports.empty())
      FAIL(failure(r, "8 warps, 4 values per lane", problem, replay("pipeline --values 4", s), s,
                   untouched ? "6-todo" : "6"));
  }
}

// The counted run (its, rr, as for a GPU's profile): shared and global atomics together. (On a GPU
// the simulator's counters are not there: the case checks one run's values; Nsight Compute counts.)
TEST_CASE("lab09 task6 the hand-over costs at most two atomic operations per warp and value", "[lab09][task6][pts:2]") {
  const int values = 4;
  synclab_sim_counts c{};
  const Schedule counted = synclab::lab::counting_schedule();
  lab09::PipeRun r = synclab::lab::on_simulator()
                         ? synclab::lab::run_counted([&] { return lab09::run_pipeline(values); }, &c)
                         : lab09::run_pipeline(values);
  const std::string problem = r.finished ? compare(r.out, host_pipeline(values), "value") : "";
  if (!r.finished || !problem.empty() || !r.reports.empty())
    FAIL(failure(r, "8 warps, 4 values per lane (the counted run)", problem, replay("pipeline --values 4", counted),
                 counted, "6"));
  if (!synclab::lab::on_simulator()) return;
  const unsigned long long atomics = c.shared_atomic_lane_ops + c.global_atomic_lane_ops;
  const unsigned long long bound = 2ull * 8 * values;
  CHECKED_ELSE(atomics <= bound)
  FAIL(std::to_string(atomics) + " atomic operations for 8 warps x " + std::to_string(values) +
       " values, more than two per warp and value (" + std::to_string(bound) +
       "): a hand-over where every lane takes part with an atomic (a lock bit or a mailbox per lane) costs 32 per "
       "warp and value, and a wait that polls with an atomic (tl_is_set, atomicOr(x, 0), atomicAdd(x, 0)) costs one "
       "per poll. One lane can wait and publish for its warp, polling with loads (ld_acquire_cta), with "
       "__syncwarp() passing what it acquired to the other lanes and gathering their writes before it "
       "releases. " +
       synclab::lab::program_command("lab09") + " pipeline prints the count.");
}
