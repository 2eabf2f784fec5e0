// Lab 09 (tiny-lock wavefronts): the harness program (provided). One sub-command per task; each runs
// the student's kernel, checks what came back against a host reference, and says what went wrong.
//
//   lab09 channel  [--values N] [--show any|bad|good --trace FILE]             task 1
//   lab09 count    [--keys N --bins B --input S] [--version yours|naive] [--show any|bad|good --trace FILE]
//   lab09 transfer [--warps W --input S] [--version yours|naive] [--show any|bad|good --trace FILE]
//                  tasks 2 and 3; --version naive runs the harness's first try, which deadlocks
//   lab09 chain    [--scheme NAME] [--input S] [--show any|bad|good --trace FILE]  task 4 (and the cycles)
//   lab09 nw       [--version wavefront|dataflow] [--n N --input S] [--show any|bad|good --trace FILE]  task 5
//   lab09 pipeline [--values N] [--show any|bad|good --trace FILE]            task 6
//   lab09 all      every task's check
// (and the exploration options of synclab_lab.h: --seeds N, --model M, --sched P, --seed S, --memory M)
//
// Without options a command runs what the task's graded tests run, over the same schedules; on a
// GPU it repeats the run. Every failure names the command that replays it. A stuck launch prints
// who held which lock bit and what each stuck thread waited for.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lab09.h"

using synclab::lab::Args;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab09", args, s);
}

// ---- host references (the graded tests have their own) -------------------------------------------------
std::string first_difference(const std::vector<int>& got, const std::vector<int>& want, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (i >= got.size()) return "no " + what + " " + std::to_string(i);
    if (got[i] != want[i])
      return what + " " + std::to_string(i) + " is " + std::to_string(got[i]) + " instead of " +
             std::to_string(want[i]);
  }
  return "";
}

// Every line after the first indented like the first.
std::string indented(std::string text) {
  for (size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 5))
    text.replace(at, 1, "\n    ");
  return text;
}
using Run = std::function<std::pair<std::string, lab09::Outcome>(const Schedule&, const char* trace)>;

// Explores `run` over the schedules: prints what it found and each bad run's replay line.
bool explore(const Args& a, const std::string& title, const std::vector<Schedule>& ss, const Run& run,
             const std::function<std::string(const Schedule&)>& args_of, const std::string& hint) {
  return synclab::lab::explore(
      synclab::lab::TraceChoice(a, "any"), {title, hint}, ss, run,
      [&](const Schedule& s) { return replay(args_of(s), s); },
      [](const lab09::Outcome& out) {
        return out.stuck.empty() ? std::string() : "; lock bits:\n    " + indented(out.stuck);
      });
}

// The input seed: --input S, else the schedule's seed (as the graded tests do).
uint64_t input_of(const Args& a, const Schedule& s) { return uint64_t(a.num("input", (long long)s.seed)); }

lab09::Version version_of(const Args& a) {
  const std::string v = a.get("version", "yours");
  if (v == "yours") return lab09::Version::yours;
  if (v == "naive") return lab09::Version::naive;
  throw std::invalid_argument("--version takes yours or naive, not '" + v + "'");
}

// Where the naive first tries deadlock, what to look at.
const char* kNaiveCountNote =
    "this is the harness's naive first try (--version naive), meant to show the deadlock: read the lock bits "
    "above and the simulator's report; on a GPU with independent thread scheduling (Volta and later) task 2's "
    "first try does not deadlock: the SIMD deadlock needs lockstep (--model lockstep on the simulator)";
const char* kNaiveTransferNote =
    "this is the harness's naive first try (--version naive), meant to show the deadlocks: read the lock bits "
    "above and the simulator's report; task 3's first try deadlocks under every warp model and on every GPU: a "
    "thread whose two accounts' lock bits alias waits for a bit it holds itself (the alias deadlock), and two "
    "warps that take the same two bits in opposite orders wait for each other";

// ---- the commands -----------------------------------------------------------------------------------------
bool channel(const Args& a) {
  const int values = int(a.num("values", 3));
  std::vector<int> want;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < values; ++i) want.push_back(lane * 1000 + i * 7 + 1);
  return explore(
      a, "32 channels of " + std::to_string(values) + " values",
      synclab::lab::schedules(synclab::lab::exploration_from(a, 2, 20, {"sc", "relaxed"})),
      [&](const Schedule&, const char* trace) {
        lab09::ChannelRun r = lab09::run_channels(values, trace);
        return std::make_pair(r.finished ? first_difference(r.out, want, "received value") : "", lab09::Outcome(r));
      },
      [&](const Schedule&) { return "channel --values " + std::to_string(values); },
      "task 1: channel_put waits while the slot's bit is set, then writes and sets it; channel_get waits while it "
      "is clear, then fences, reads and clears it");
}

// Task 6: the graded tests' run (4 values, rr and seeds 1-2, both warp and memory models), then the
// atomics of one counted run against the contract's bound.
bool pipeline_command(const Args& a) {
  const int values = int(a.num("values", 4));
  std::vector<int> want;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < values; ++i) {
      int v = lane * 1000 + i * 7 + 1;  // pipe_value, then pipe_step of warps 1..7
      for (int w = 1; w < lab09::kPipeWarpsHost; ++w) v = 3 * v + 100 * w + lane;
      want.push_back(v);
    }
  const bool right = explore(
      a, std::to_string(values) + " values per lane through " + std::to_string(lab09::kPipeWarpsHost - 1) + " links",
      synclab::lab::schedules(synclab::lab::exploration_from(a, 2, 20, {"sc", "relaxed"})),
      [&](const Schedule&, const char* trace) {
        lab09::PipeRun r = lab09::run_pipeline(values, trace);
        return std::make_pair(r.finished ? first_difference(r.out, want, "value") : "", lab09::Outcome(r));
      },
      [&](const Schedule&) { return "pipeline --values " + std::to_string(values); },
      "task 6: every value once and in order: a send waits until its receiver took the value before, a receive "
      "until a new value was sent, and what one lane acquires or releases reaches the warp's other lanes through "
      "__syncwarp() (the contract: lab09_kernels.cuh). Every value 700 + lane: pipe_receive returned 0 each time "
      "(are the TODO(6)s done?)");
  if (!synclab::lab::on_simulator()) return right;
  synclab_sim_counts c{};
  lab09::PipeRun r = synclab::lab::run_counted([&] { return lab09::run_pipeline(values); }, &c);
  const unsigned long long atomics = c.shared_atomic_lane_ops + c.global_atomic_lane_ops;
  const unsigned long long bound = 2ull * lab09::kPipeWarpsHost * unsigned(values);
  std::printf("atomic operations (its, rr): %llu for %d warps x %d values; the contract allows %llu%s\n", atomics,
              lab09::kPipeWarpsHost, values, bound,
              atomics <= bound ? ""
                               : ": NOT YET -- let one lane wait and publish for its warp, polling with loads "
                                 "(ld_acquire_cta), not atomics (tl_is_set is one), and pass what it acquired on "
                                 "with __syncwarp()");
  return right && r.finished && atomics <= bound;
}

bool count(const Args& a) {
  const int n = int(a.num("keys", 32)), bins = int(a.num("bins", 2));
  return explore(
      a, std::to_string(n) + " keys into " + std::to_string(bins) + " bins under tiny locks",
      synclab::lab::schedules(synclab::lab::exploration_from(a, 2)),
      [&](const Schedule& s, const char* trace) {
        const uint64_t seed = input_of(a, s);
        lab09::CountRun r = lab09::run_count(n, bins, seed, trace, version_of(a));
        std::vector<int> want(size_t(bins), 0);
        for (int k : lab09::count_keys(n, bins, seed)) ++want[size_t(k)];
        return std::make_pair(r.finished ? first_difference(r.hist, want, "bin") : "", lab09::Outcome(r));
      },
      [&](const Schedule& s) {
        return "count --keys " + std::to_string(n) + " --bins " + std::to_string(bins) + " --input " +
               std::to_string(input_of(a, s)) + (a.has("version") ? " --version " + a.get("version", "") : "");
      },
      version_of(a) == lab09::Version::naive
          ? kNaiveCountNote
          : "task 2: every bin still 0: is TODO(2) done? A hang under lockstep: a lane that got the bit waits at "
            "the loop's end for warp-mates spinning on it (SIMD deadlock): try the lock, and do the count and the "
            "unlock inside the loop (the paper's Listing 7), with its done flag volatile (else nvcc may move the "
            "count and the unlock after the loop, which brings the deadlock back)");
}

bool transfer_at(const Args& a, int warps);

// Graded: 6 warps (accounts share lock bits) and 32 warps (a bit per account pair, so that a
// transfer whose unlock comes before its writes races), rr and seeds 1-2.
bool transfer(const Args& a) {
  if (a.has("warps")) return transfer_at(a, int(a.num("warps", 6)));
  const bool six = transfer_at(a, 6);
  return transfer_at(a, 32) && six;
}

bool transfer_at(const Args& a, int warps) {
  return explore(
      a, std::to_string(warps) + " transfers between accounts (every third between aliasing accounts)",
      synclab::lab::schedules(synclab::lab::exploration_from(a, 2)),
      [&](const Schedule& s, const char* trace) {
        const uint64_t seed = input_of(a, s);
        lab09::TransferRun r = lab09::run_transfers(warps, seed, trace, version_of(a));
        std::vector<int> want = lab09::opening_balances();
        for (const lab09::Transfer& t : lab09::transfer_list(warps, seed))
          want[size_t(t.from)] -= t.amount, want[size_t(t.to)] += t.amount;
        return std::make_pair(r.finished ? first_difference(r.balance, want, "account") : "", lab09::Outcome(r));
      },
      [&](const Schedule& s) {
        return "transfer --warps " + std::to_string(warps) + " --input " + std::to_string(input_of(a, s)) +
               (a.has("version") ? " --version " + a.get("version", "") : "");
      },
      version_of(a) == lab09::Version::naive
          ? kNaiveTransferNote
          : "task 3: take the two lock bits lower bit first, and only once when tl_bit(a) == tl_bit(b)");
}

bool chain(const Args& a) {
  std::vector<int> schemes;
  if (a.has("scheme"))
    schemes.push_back(lab09::scheme_index(a.get("scheme", "")));
  else
    schemes = {3, 6};  // the graded ones: tiny_lock, flag
  bool ok = true;
  for (int sc : schemes) {
    const std::string name = lab09::kSchemeNames[sc];
    long long cycles = 0;
    ok &= explore(
        a, "the 16-warp chain, " + name,
        synclab::lab::schedules(synclab::lab::exploration_from(a, 2, 20, {"sc", "relaxed"})),
        [&](const Schedule& s, const char* trace) {
          const uint64_t seed = input_of(a, s);
          lab09::ChainRun r = lab09::run_chain(sc, seed, trace);
          std::vector<int> A = lab09::chain_input(seed);
          A.resize(544);
          for (int t = 0; t < 512; ++t) A[size_t(t + 32)] = A[size_t(t)] + t;
          cycles = r.cycles;
          return std::make_pair(
              r.finished ? first_difference(r.out, std::vector<int>(A.begin() + 32, A.end()), "A[32 + i] for i =") : "",
              lab09::Outcome(r));
        },
        [&](const Schedule& s) { return "chain --scheme " + name + " --input " + std::to_string(input_of(a, s)); },
        sc == 3
            ? "task 4a: hold your output's bit from the setup; in the hop lock your input's bit (wid > 0), compute, "
              "unlock both"
            : "task 4b: clear the flags in the setup; in the hop wait with ld_acquire_cta, compute, __syncwarp, "
              "lane 0 st_release_cta");
    std::printf("  (clock64 cycles of the last run, from the barrier to warp 15's end: %lld%s)\n", cycles,
                synclab::lab::on_simulator() ? "; simulator steps, not a GPU's time" : "");
  }
  return ok;
}

bool nw(const Args& a) {
  const int n = int(a.num("n", 0));
  std::vector<lab09::NwVersion> versions;
  if (a.has("version"))
    versions.push_back(lab09::nw_version(a.get("version", "")));
  else
    versions = {lab09::NwVersion::wavefront, lab09::NwVersion::dataflow};
  bool ok = true;
  for (lab09::NwVersion v : versions) {
    const bool flow = v == lab09::NwVersion::dataflow;
    const int size = n ? n : flow ? 48 : 32;  // the graded tests' sizes
    ok &= explore(
        a,
        "Needleman-Wunsch, " + std::string(lab09::name(v)) + ", " + std::to_string(size) + " x " + std::to_string(size),
        synclab::lab::schedules(synclab::lab::exploration_from(
            a, 2, 20, flow ? std::vector<std::string>{"sc", "relaxed"} : std::vector<std::string>{"sc"})),
        [&](const Schedule& s, const char* trace) {
          const uint64_t seed = input_of(a, s);
          lab09::NwRun r = lab09::run_nw(v, size, seed, trace);
          // The host reference: Equation 1 row by row.
          const std::vector<int> x = lab09::nw_sequence(size, seed), y = lab09::nw_sequence(size, seed + 1000);
          std::vector<int> S(size_t((size + 1) * (size + 1)));
          for (int i = 0; i <= size; ++i)
            for (int j = 0; j <= size; ++j) {
              const size_t at = size_t(i * (size + 1) + j);
              if (!i || !j)
                S[at] = -(i + j);
              else
                S[at] = std::max(S[at - size_t(size) - 2] + (x[size_t(i - 1)] == y[size_t(j - 1)] ? 2 : -1),
                                 std::max(S[at - size_t(size) - 1], S[at - 1]) - 1);
            }
          std::string wrong = r.finished ? first_difference(r.S, S, "score") : "";
          if (wrong.rfind("score ", 0) == 0) {  // "score K ...": name the cell S(i, j)
            const size_t end = wrong.find(' ', 6);
            const int k = std::stoi(wrong.substr(6, end - 6));
            wrong =
                "S(" + std::to_string(k / (size + 1)) + ", " + std::to_string(k % (size + 1)) + ")" + wrong.substr(end);
          }
          return std::make_pair(wrong, lab09::Outcome(r));
        },
        [&](const Schedule& s) {
          return "nw --version " + std::string(lab09::name(v)) + " --n " + std::to_string(size) + " --input " +
                 std::to_string(input_of(a, s));
        },
        flow ? "task 5b: thread 0 waits for ready[north] and ready[west] with ld_acquire_gpu, __syncthreads, nw_tile, "
               "then "
               "st_release_gpu(&ready[tile], 1)"
             : "task 5a: nw_diagonal's tile is (max(0, td - tiles + 1) + blockIdx.x, td - ti); one launch per tile "
               "diagonal");
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab09", "Lab 09: tiny-lock wavefronts (labs/09-tiny-lock-wavefronts/README.md)");
  cmds.add("channel", "[--values N] [--show any|bad|good --trace FILE]",
           "task 1: 32 producer-consumer channels on lock bits, warp 0 to warp 1 (sc and relaxed)",
           {"values", "trace", "show"}, channel);
  cmds.add("pipeline", "[--values N] [--show any|bad|good --trace FILE]",
           "task 6: your hand-over, 8 warps in a pipeline (sc and relaxed), and its atomics",
           {"values", "trace", "show"}, pipeline_command);
  cmds.add("count", "[--keys N --bins B --input S] [--version yours|naive] [--show any|bad|good --trace FILE]",
           "task 2: counting under tiny locks, lanes of one warp on one bit (the SIMD deadlock)",
           {"keys", "bins", "input", "version", "trace", "show"}, count);
  cmds.add("transfer", "[--warps W --input S] [--version yours|naive] [--show any|bad|good --trace FILE]",
           "task 3: transfers holding two tiny locks, some between aliasing accounts (the alias deadlock)",
           {"warps", "input", "version", "trace", "show"}, transfer);
  cmds.add("chain",
           "[--scheme atom_lock|warp_barr|shrd_lock|tiny_lock|warp_vote|mbarrier|flag] [--input S] [--show "
           "any|bad|good --trace FILE]",
           "task 4: the 16-warp validation kernel (default: the graded tiny_lock and flag)",
           {"scheme", "input", "trace", "show"}, chain);
  cmds.add("nw", "[--version wavefront|dataflow] [--n N --input S] [--show any|bad|good --trace FILE]",
           "task 5: Needleman-Wunsch, one launch per tile diagonal (5a) or tiles with ready flags in one launch (5b)",
           {"version", "n", "input", "trace", "show"}, nw);
  return cmds.run(argc, argv);
}
