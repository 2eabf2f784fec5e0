// Lab 08 (the CPU-GPU handoff): the harness program (provided). One sub-command per task; each runs
// the student's code, checks what came back against a host reference, and says what went wrong.
//
//   lab08 roundtrip [--method memcpy|mapped|persistent|word] [--start X --rounds R] [--show any|bad|good --trace FILE]
//   lab08 host-order [--start X --round K]   task 3's host side alone, its writes in program order
//   lab08 oddeven   [--sides blocks|host] [--version yours|slides] [--last N] [--show any|bad|good --trace FILE]
//   lab08 ring      [--items N] [--show any|bad|good --trace FILE]
//   lab08 queue     [--items N] [--stop last-result|last-item] [--show any|bad|good --trace FILE]
//   lab08 all       every task's check
// (and the exploration options of synclab_lab.h: --seeds N, --model M, --sched P, --seed S, --memory M)
//
// Without options a command runs what the task's graded tests run, over the same schedules (rr,
// pct and random seeds; both warp models; where data is published through a flag, the relaxed
// memory model too); on a GPU it repeats the run. Every failure names the command that replays it.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lab08.h"

using synclab::lab::Args;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

using synclab::lab::print_reports;
using synclab::lab::TraceChoice;

std::string replay(const std::string& args, const Schedule& s) {
  return synclab::lab::replay_command("lab08", args, s);
}

// ---- host references (the graded tests have their own) -----------------------------------------------
int host_work(int x) { return (3 * x + 1) % 1000003; }

std::string check_roundtrips(const lab08::RoundTrips& r, int start, int rounds) {
  int x = start;
  for (int k = 0; k < rounds; ++k) {
    x = host_work(x);
    if (size_t(k) >= r.results.size()) return "round trip " + std::to_string(k + 1) + " never came back";
    if (r.results[size_t(k)] != x)
      return "round trip " + std::to_string(k + 1) + " returned " + std::to_string(r.results[size_t(k)]) +
             " instead of " + std::to_string(x);
  }
  if (!r.stopped) return "the persistent kernel did not return after stop_server";
  return "";
}

std::string check_odd_even(const lab08::OddEven& r, int last) {
  if (r.printed.size() < size_t(last) + 2) return "";
  for (int v = 0; v <= last; ++v) {
    const int want = 1 + v % 2, got = r.printed[size_t(v)];
    if (got == 0) return std::to_string(v) + " was never printed";
    if (got > 100) return std::to_string(v) + " was printed more than once";
    if (got != want) return std::to_string(v) + " was printed by the wrong side";
  }
  if (r.printed[size_t(last) + 1]) return "a number outside 0.." + std::to_string(last) + " was printed";
  return "";
}

std::string check_items(const std::vector<int>& out, int items, bool work_of_index) {
  for (int i = 0; i < items; ++i) {
    const int want = work_of_index ? host_work(i) : host_work(lab08::queue_item(i));
    if (size_t(i) >= out.size() || out[size_t(i)] == -1) return "item " + std::to_string(i) + " never arrived";
    if (out[size_t(i)] != want)
      return "item " + std::to_string(i) + " arrived as " + std::to_string(out[size_t(i)]) + " instead of " +
             std::to_string(want);
  }
  return "";
}

using Run = std::function<std::pair<std::string, lab08::Outcome>(const Schedule&, const char* trace)>;

// Explores `run` over the schedules: prints what it found and each bad run's replay line.
bool explore(const Args& a, const std::string& title, const std::string& args, const std::vector<Schedule>& ss,
             const Run& run, const std::string& hint) {
  return synclab::lab::explore(TraceChoice(a, "any"), {title, hint, "a launch did not finish"}, ss, run,
                               [&](const Schedule& s) { return replay(args, s); });
}

// ---- the commands ------------------------------------------------------------------------------------
bool roundtrip(const Args& a) {
  const std::vector<lab08::Method> methods =
      a.has("method") ? std::vector<lab08::Method>{lab08::method(a.get("method", ""))}
                      : std::vector<lab08::Method>{lab08::Method::memcpy_launch, lab08::Method::mapped_launch,
                                                   lab08::Method::persistent, lab08::Method::one_word};
  const int start = int(a.num("start", 5)), rounds = int(a.num("rounds", 4));
  bool ok = true;
  for (lab08::Method m : methods) {
    const bool persistent = m == lab08::Method::persistent || m == lab08::Method::one_word;
    const auto ss = synclab::lab::schedules(synclab::lab::exploration_from(
        a, 2, 20, persistent ? std::vector<std::string>{"sc", "relaxed"} : std::vector<std::string>{"sc"}));
    const std::string args = "roundtrip --method " + std::string(lab08::name(m)) + " --start " + std::to_string(start) +
                             " --rounds " + std::to_string(rounds);
    const std::string hint =
        m == lab08::Method::memcpy_launch   ? "task 1: transform_once and roundtrip_memcpy (TODO(1))"
        : m == lab08::Method::mapped_launch ? "task 2: roundtrip_mapped (TODO(2)); wait for the launch before reading"
        : m == lab08::Method::persistent ? "task 3: persistent_server, roundtrip_persistent and stop_server (TODO(3)); "
                                           "read the words the other side writes through SystemAtomic"
                                         : "task 3b: word_server, roundtrip_word and stop_word_server (TODO(3b)); the "
                                           "value travels in the word of its round, read and written whole";
    ok &= explore(
        a, std::string("round trips by ") + lab08::name(m), args, ss,
        [&](const Schedule&, const char* trace) {
          lab08::RoundTrips r = lab08::run_roundtrips(m, start, rounds, trace);
          return std::make_pair(r.finished ? check_roundtrips(r, start, rounds) : std::string(), lab08::Outcome(r));
        },
        hint);
  }
  return ok;
}

bool host_order(const Args& a) {
  const int x = int(a.num("start", 5));
  const auto round = unsigned(a.num("round", 3));
  if (round < 1) throw std::invalid_argument("--round takes 1 or more");
  const lab08::HostOrder h = lab08::run_host_order(x, round);
  std::printf("roundtrip_persistent(mailbox, %d, %u) on the host alone, the mailbox already answering round %u:\n", x,
              round, round);
  if (!h.supported) {
    std::printf("  (this machine cannot note the host's writes one by one: x86-64 Linux only)\n");
    return true;
  }
  std::printf("  its writes to the mailbox, in program order:\n");
  bool request_written = false, ok = true, asked = false;
  for (const lab08::HostWrite& w : h.writes) {
    std::printf("    %s = %d\n", w.field.c_str(), w.value);
    if (w.field == "request") request_written = w.value == x;
    if (w.field == "asked" && unsigned(w.value) == round && !asked) {
      asked = true;
      ok = request_written;
    }
  }
  if (h.writes.empty()) std::printf("    (none)\n");
  std::printf("  it returned %d (the answer waiting in the mailbox: %d)\n", h.result, host_work(x));
  if (!asked)
    std::printf("  asked never became %u: the kernel would wait for the request forever\n", round);
  else if (!ok)
    std::printf(
        "  BAD: asked = %u came before the request %d; a kernel that sees asked == %u may read the request of the\n"
        "  round before. Write the request first, then publish asked with a release store.\n",
        round, x, round);
  else
    std::printf("  ok: the request is written before asked is raised\n");
  return asked && ok && h.result == host_work(x);
}

bool oddeven(const Args& a) {
  const std::string version = a.get("version", "yours");
  if (version != "yours" && version != "slides") throw std::invalid_argument("--version takes yours or slides");
  std::vector<std::string> sides = {"blocks", "host"};
  if (a.has("sides"))
    sides = {a.get("sides", "")};
  else if (version == "slides")
    sides = {"blocks"};
  // Without --last: the graded tests' games, 0..2 (where pct reaches the last hand-over: 200 pct
  // seeds) and 0..10 between two blocks, 0..10 between the host and a kernel.
  std::vector<int> lasts = {2, 10};
  if (a.has("last")) lasts = {int(a.num("last", 10))};
  bool ok = true;
  for (const std::string& side : sides)
    for (int last : lasts) {
      if (side != "blocks" && side != "host") throw std::invalid_argument("--sides takes blocks or host");
      if (side == "host" && last != lasts.back()) continue;
      synclab::lab::Exploration e = synclab::lab::exploration_from(
          a, side == "blocks" ? (last <= 2 ? 200 : 6) : 1, 20,
          side == "host" ? std::vector<std::string>{"sc", "relaxed"} : std::vector<std::string>{"sc"});
      if (side == "blocks" && last <= 2 && !a.has("seeds")) e.random_seeds = 6;
      const auto ss = synclab::lab::schedules(e);
      const std::string args = "oddeven --sides " + side + " --version " + version + " --last " + std::to_string(last);
      ok &= explore(
          a,
          "odd/even 0.." + std::to_string(last) + " between " +
              (side == "blocks" ? "two blocks" : "the host and a kernel") + " (" + version + ")",
          args, ss,
          [&](const Schedule&, const char* trace) {
            lab08::OddEven r =
                lab08::run_odd_even(side == "blocks" ? lab08::Sides::blocks : lab08::Sides::host_gpu,
                                    version == "slides" ? lab08::Version::slides : lab08::Version::yours, last, trace);
            return std::make_pair(r.finished ? check_odd_even(r, last) : std::string(), lab08::Outcome(r));
          },
          version == "slides"
              ? "the slides' loops: a side that re-reads the shared counter to decide whether to go on may "
                "find that the other side has moved it past the last number"
              : "task 4: play_turns (TODO(4)); count your own turns, v = parity, parity + 2, ... up to and "
                "including last: a side that re-reads the shared counter to decide whether to go on may find "
                "that the other side has moved it past the last number");
    }
  return ok;
}

bool ring(const Args& a) {
  const int items = int(a.num("items", 10));
  const auto ss = synclab::lab::schedules(synclab::lab::exploration_from(a, 3, 20, {"sc", "relaxed"}));
  return explore(
      a, "ring between two blocks, " + std::to_string(items) + " items", "ring --items " + std::to_string(items), ss,
      [&](const Schedule&, const char* trace) {
        lab08::RingRun r = lab08::run_ring_blocks(items, trace);
        return std::make_pair(r.finished ? check_items(r.out, items, true) : std::string(), lab08::Outcome(r));
      },
      "task 5a: ring_push and ring_pop (TODO(5a)): read head and tail through SystemAtomic at every call; "
      "ring_push writes the slot, then publishes head with a release store; ring_pop reads head with an "
      "acquire load, then the slot, then publishes tail with a release store");
}

bool queue(const Args& a) {
  const int items = int(a.num("items", 12));
  const auto ss = synclab::lab::schedules(synclab::lab::exploration_from(a, 2, 20, {"sc", "relaxed"}));
  // Without --stop: both runs of the graded test, the stop flag after the last result came back, and
  // right after the last item (pushed once every earlier result is back, while the kernel polls).
  std::vector<lab08::StopWhen> whens = {lab08::StopWhen::after_results, lab08::StopWhen::with_last_item};
  if (a.has("stop")) whens = {lab08::stop_when(a.get("stop", ""))};
  bool ok = true;
  for (lab08::StopWhen when : whens) {
    const bool with_last = when == lab08::StopWhen::with_last_item;
    // The last-item window is the host's timing, not the schedule's: each run is repeated 5 times
    // (as in the graded test), and a bad run's replay may need a few tries to show it again.
    std::vector<Schedule> runs;
    for (int rep = 0; rep < (with_last ? 5 : 1); ++rep) runs.insert(runs.end(), ss.begin(), ss.end());
    ok &= explore(
        a,
        "work queue between the host and a persistent kernel, " + std::to_string(items) + " items, stop " +
            (with_last ? "right after the last item" : "after the last result"),
        "queue --items " + std::to_string(items) + " --stop " + lab08::name(when), runs,
        [&](const Schedule&, const char* trace) {
          lab08::RingRun r = lab08::run_queue(items, trace, when);
          std::string what = r.finished ? check_items(r.out, items, false) : std::string();
          if (what.empty() && !r.stopped) what = "the kernel did not return after the stop flag";
          return std::make_pair(what, lab08::Outcome(r));
        },
        with_last ? "task 5b: queue_server (TODO(5b)); the stop flag came right after the last item: read stop "
                    "BEFORE the pop, with memory_order_acquire, and return only when it was set and that pop "
                    "then found the work ring empty (a flag read after a failed pop may be newer than the item "
                    "it missed; a relaxed read of stop may see the flag and still an older head of the ring)"
                  : "task 5b: queue_server (TODO(5b)) on top of 5a's ring_push and ring_pop; read stop before the "
                    "pop that finds the ring empty");
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands cmds("lab08", "Lab 08: the CPU-GPU handoff (labs/08-cpu-gpu-handoff/README.md)");
  cmds.add("roundtrip",
           "[--method memcpy|mapped|persistent|word] [--start X --rounds R] [--show any|bad|good --trace FILE]",
           "tasks 1-3b: round trips by cudaMemcpy and a launch, mapped memory and a launch, a persistent kernel "
           "(two words each way; one word each way)",
           {"method", "start", "rounds", "trace", "show"}, roundtrip);
  cmds.add("host-order", "[--start X --round K]",
           "task 3: roundtrip_persistent on the host alone, its writes to the mailbox in program order",
           {"start", "round"}, host_order);
  cmds.add("oddeven", "[--sides blocks|host] [--version yours|slides] [--last N] [--show any|bad|good --trace FILE]",
           "task 4: the slides' odd/even printing, between two blocks (explored) or the host and a kernel",
           {"sides", "version", "last", "trace", "show"}, oddeven);
  cmds.add("ring", "[--items N] [--show any|bad|good --trace FILE]",
           "task 5a: the ring buffer between two blocks (explored under sc and relaxed)", {"items", "trace", "show"},
           ring);
  cmds.add("queue", "[--items N] [--stop last-result|last-item] [--show any|bad|good --trace FILE]",
           "task 5b: the work queue between the host and a persistent kernel, and its shutdown",
           {"items", "stop", "trace", "show"}, queue);
  return cmds.run(argc, argv);
}
