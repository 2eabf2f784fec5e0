// Lab 10 (the memory model): the harness program (provided). One sub-command per task; each runs
// the student's code over the graded tests' schedules, checks the results against a host
// reference, and says what went wrong.
//
//   lab10 predict  [--test T]                     task 1: your predictions (and which rows are missing)
//   lab10 litmus   --test T [--show weak|any|bad|good --trace FILE]   one litmus test's outcomes (sc and relaxed)
//                  on a GPU: --instances N --launches K [--no-stress]
//   lab10 fixed    [--test T]                     tasks 2-3: the weak outcome gone? and the synchronization used
//   lab10 handoff  [--n N] [--show wrong|any|bad|good --trace FILE]   task 4 (on a GPU: --runs 10000)
//   lab10 pattern  [--pattern last-block|look-back|barrier|queue] [--blocks B]   task 5
//   lab10 all      every task's check
//   (and the exploration options of synclab_lab.h: --seeds N, --model M, --sched P, --seed S,
//   --memory M, ...)
//
// Without options a command explores what the task's graded tests explore: the litmus tests one
// thread per block, under `sc` and `relaxed` (docs/memory-model.md), random and pct seeds, the
// warp model its (a litmus test's threads are in different warps, so lockstep adds nothing); tasks 4
// and 5 under both warp models. Every failure names the command that replays it.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lab10.h"
#include "synclab_lab.h"

using synclab::lab::Args;
using synclab::lab::Exploration;
using synclab::lab::Report;
using synclab::lab::Schedule;

namespace {

// The graded tests' exploration: each litmus test under sc over 60 pct and 60 random seeds (every
// outcome must be an interleaving's) and under relaxed over 300 of each (a run is one tiny launch);
// task 4 over 6 seeds and task 5 over 4 (with 2 and 3 blocks), under both warp models and both
// memory models.
constexpr int kScSeeds = 60, kRelaxedSeeds = 300;
constexpr int kProgramSeeds = 6, kPatternSeeds = 4;

// --seeds N sets both counts; --memory M keeps one model.
std::vector<Schedule> litmus_schedules(const Args& a) {
  std::vector<Schedule> all;
  const Exploration given = synclab::lab::exploration_from(a, kRelaxedSeeds, 2, {"sc", "relaxed"});
  for (const std::string& memory : given.memories) {
    Exploration e = given;
    e.memories = {memory};
    if (!a.has("seeds")) e.pct_seeds = e.random_seeds = memory == "sc" ? kScSeeds : kRelaxedSeeds;
    if (!a.has("model") && !a.has("models") && !std::getenv("SYNCLAB_MODEL")) e.models = {"its"};
    if (!a.has("sched")) e.rr = false;
    for (const Schedule& s : synclab::lab::schedules(e)) all.push_back(s);
  }
  return all;
}

std::string replay(const std::string& args, const Schedule& s) { return synclab::lab::replay_command("lab10", args, s); }

// The schedules of each memory model apart (sc and relaxed explore different seed counts).
std::string describe_litmus(const Args& a) {
  std::map<std::string, std::vector<Schedule>> by_memory;
  for (const Schedule& s : litmus_schedules(a)) by_memory[s.memory].push_back(s);
  std::string d;
  for (const auto& [memory, ss] : by_memory) d += (d.empty() ? "" : "; ") + memory + ": " + synclab::lab::describe(ss);
  return d;
}

struct Seen {
  std::map<std::string, std::map<std::string, long>> counts;  // memory -> outcome -> runs
  std::map<std::string, std::string> first;                    // memory -> replay of the first weak run
  std::vector<Report> reports;
};

// Explores one litmus test; records the trace of the first run that --show names (weak, or bad:
// a run that showed the test's weak outcome; good: one that did not; any).
Seen explore(const Args& a, const lab10::LitmusTest& t) {
  Seen seen;
  const synclab::lab::TraceChoice trace(a, "weak", {"weak"});
  for (const Schedule& s : litmus_schedules(a)) {
    lab10::LitmusResult r = synclab::lab::run_under(s, [&] { return lab10::run_litmus(t); });
    seen.reports.insert(seen.reports.end(), r.reports.begin(), r.reports.end());
    for (const auto& [o, n] : r.counts) {
      seen.counts[s.memory][o] += n;
      if (o == t.weak && !seen.first.count(s.memory))
        seen.first[s.memory] = replay("litmus --test " + std::string(t.name), s);
    }
    const bool weak = r.counts.count(t.weak) != 0;
    if (trace.wants(weak, weak ? "weak" : "")) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab10::run_litmus(t, 1, false, 1, trace.file().c_str());
    }
  }
  return seen;
}

void print_counts(const lab10::LitmusTest& t, const std::map<std::string, long>& counts) {
  for (const auto& [o, n] : counts)
    std::printf("    %-26s %9ld%s\n", o.c_str(), n, o == t.weak ? "   <- the weak outcome" : "");
}

// On a GPU: instances x launches, each role in a randomly chosen block among stress blocks.
bool gpu_counts(const Args& a, const lab10::LitmusTest& t) {
  const long instances = a.num("instances", 65536), launches = a.num("launches", 16);
  const bool stress = !a.has("no-stress");
  std::map<std::string, long> counts;
  for (long k = 0; k < launches; ++k) {
    const lab10::LitmusResult r = lab10::run_litmus(t, instances, stress, unsigned(k + 1));
    for (const auto& [o, n] : r.counts) counts[o] += n;
  }
  std::printf("%s (GPU, %ld instances, %s):\n", t.name, instances * launches,
              t.same_block ? "one block per instance, no stress blocks" : stress ? "stress" : "no stress");
  print_counts(t, counts);
  std::printf("  weak outcome %s: %s\n", t.weak.c_str(),
              counts.count(t.weak) ? ("seen " + std::to_string(counts[t.weak]) + " times").c_str()
                                   : "not observed here (which does not make it forbidden)");
  return true;
}

// ---- litmus --------------------------------------------------------------------------------------
bool cmd_litmus(const Args& a) {
  const lab10::LitmusTest& t = lab10::litmus_test(a.get("test", "mp"));
  if (!synclab::lab::on_simulator()) return gpu_counts(a, t);
  const Seen seen = explore(a, t);
  std::printf("%s (kernel %s in %s), %s:\n", t.name, t.kernel, t.file,
              describe_litmus(a).c_str());
  for (const auto& [memory, counts] : seen.counts) {
    std::printf("  memory model %s:\n", memory.c_str());
    print_counts(t, counts);
    if (seen.first.count(memory)) std::printf("    first weak run: %s\n", seen.first.at(memory).c_str());
  }
  if (!seen.reports.empty()) {
    std::printf("  the simulator reported:\n");
    synclab::lab::print_reports(seen.reports);
  }
  return true;
}

// ---- task 1 --------------------------------------------------------------------------------------
bool cmd_predict(const Args& a) {
  const std::string student = synclab::lab::student_id();
  std::vector<std::string> tests = lab10::task1_tests(student);
  std::string names;
  for (const std::string& name : tests) names += (names.empty() ? "" : ", ") + name;
  if (student.empty())
    std::printf("task 1's tests: %s (no student id: set SYNCLAB_STUDENT to the id your course grades with to see "
                "your own six)\n",
                names.c_str());
  else
    std::printf("task 1's tests for student id '%s': %s\n", student.c_str(), names.c_str());
  // The rows predictions.cu lacks, ready to paste.
  std::string missing;
  for (const std::string& name : tests)
    if (lab10::prediction(name).sc.empty()) {
      const lab10::LitmusTest& t = lab10::litmus_test(name);
      missing += "  " + name + std::string(name.size() < 9 ? 9 - name.size() : 1, ' ') + t.weak +
                 std::string(t.weak.size() < 24 ? 24 - t.weak.size() : 1, ' ') + "?           ?           ?\n";
    }
  if (!missing.empty())
    std::printf("predictions.cu has no row for some of them; these rows go in its table (replace each ?):\n%s",
                missing.c_str());
  if (a.has("test")) tests = {a.get("test", "")};
  // Only the predictions: no column of what exploration or the model says (that is for you to find).
  bool ok = true;
  std::printf("your predictions (predictions.cu) of each test's weak outcome, allowed or forbidden:\n");
  for (const std::string& name : tests) {
    const lab10::LitmusTest& t = lab10::litmus_test(name);
    const lab10::Prediction p = lab10::prediction(name);
    auto shown = [](const std::string& v) { return v.empty() ? std::string("?") : v; };
    std::printf("  %-5s %-22s sc: %-9s  tso: %-9s  ptx: %s\n", t.name, t.weak.c_str(), shown(p.sc).c_str(),
                shown(p.tso).c_str(), shown(p.ptx).c_str());
    for (const std::string* v : {&p.sc, &p.tso, &p.ptx})
      if (*v != "allowed" && *v != "forbidden") ok = false;
  }
  std::printf(
      "To test a prediction, run the test: %s litmus --test NAME (exploration under sc and relaxed). A weak\n"
      "outcome it shows is allowed by that model; one it does not show may still be allowed (PTX allows more\n"
      "than one run shows: argue from the axioms). The simulator has no TSO mode: work the tso column out by\n"
      "hand (each thread's stores wait in a FIFO buffer; its own loads see them first).\n",
      synclab::lab::program_command("lab10").c_str());
  if (!ok) std::printf("some predictions are not filled in (each must be allowed or forbidden)\n");
  return ok;
}

// ---- tasks 2 and 3 -------------------------------------------------------------------------------
const std::vector<std::string> kFixed{"mp_fixed", "sb_fixed", "lb_fixed", "iriw_fixed", "2+2w_fixed",
                                      "mp_same_block", "mp_cross_block"};

bool cmd_fixed(const Args& a) {
  std::vector<std::string> tests = kFixed;
  if (a.has("test")) tests = {a.get("test", "")};
  bool ok = true;
  for (const std::string& name : tests) {
    const lab10::LitmusTest& t = lab10::litmus_test(name);
    const Seen seen = explore(a, t);
    long weak = 0, runs = 0;
    for (const auto& [memory, counts] : seen.counts)
      for (const auto& [o, n] : counts) runs += n, weak += o == t.weak ? n : 0;
    std::printf("%s (%s): the weak outcome %s in %ld of %ld runs%s\n", t.name, t.kernel, t.weak.c_str(), weak, runs,
                weak ? "" : " (none in these runs)");
    for (const auto& [memory, cmd] : seen.first) std::printf("    first under %s: %s\n", memory.c_str(), cmd.c_str());
    const lab10::SyncUse u = lab10::sync_use(t.kernel);
    if (!u.found) {
      std::printf("    (this build holds no PTX: the synchronization is checked on the simulator build)\n");
    } else {
      std::string list;
      for (const std::string& i : u.instructions) list += (list.empty() ? "" : ", ") + i;
      std::printf("    synchronization in its PTX: %s\n", list.empty() ? "none" : list.c_str());
    }
    if (!seen.reports.empty()) synclab::lab::print_reports(seen.reports);
    ok = ok && weak == 0 && seen.reports.empty();
  }
  std::printf("(the graded tests also read the synchronization above: they reject too little for PTX even where\n"
              " no run shows the weak outcome, and more or wider than needed: README, section What the grader\n"
              " checks)\n");
  return ok;
}

// ---- task 4 ----------------------------------------------------------------------------------------
bool cmd_handoff(const Args& a) {
  const int n = int(a.num("n", 8));
  const int want = n * (n + 1) / 2;
  const std::vector<Schedule> ss =
      synclab::lab::schedules(synclab::lab::exploration_from(a, kProgramSeeds, 20, {"sc", "relaxed"}));
  const synclab::lab::TraceChoice trace(a, "wrong", {"wrong"});  // wrong: block 1's sum was wrong
  synclab::lab::RunTally tally;
  for (const Schedule& s : ss) {
    const lab10::HandoffResult r = synclab::lab::run_under(s, [&] { return lab10::run_handoff(n); });
    const bool wrong = r.sum != want;
    tally.add(wrong ? "block 1 summed " + std::to_string(r.sum) + ", expected " + std::to_string(want) : "", r.reports,
              replay("handoff --n " + std::to_string(n), s));
    if (trace.wants(wrong || !r.reports.empty(), wrong ? "wrong" : "")) {
      trace.recording(s);
      synclab::lab::apply(s);
      lab10::run_handoff(n, trace.file().c_str());
    }
  }
  std::printf("handoff<<<2, 1>>> with %d values, %s:\n", n, synclab::lab::describe(ss).c_str());
  tally.print("block 1 summed " + std::to_string(want) + " in every run");
  return tally.passed();
}

// ---- task 5 ----------------------------------------------------------------------------------------
std::vector<int> expected(lab10::Pattern p, int blocks) {
  std::vector<int> v;
  switch (p) {
    case lab10::Pattern::last_block: {
      int s = 0;
      for (int b = 0; b < blocks; ++b) s += 10 * (b + 1);
      v = {s, blocks};
      break;
    }
    case lab10::Pattern::look_back:
      for (int b = 0, s = 0; b < blocks; ++b) v.push_back(s += b + 1);
      break;
    case lab10::Pattern::barrier:
      for (int b = 0; b < blocks; ++b) v.push_back(100 + (b + 1) % blocks);
      break;
    case lab10::Pattern::queue:
      for (int i = 0; i < blocks; ++i) v.push_back(7 * i + 1);
      break;
  }
  return v;
}

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return "{" + s + "}";
}

bool cmd_pattern(const Args& a) {
  std::vector<std::string> names{"last-block", "look-back", "barrier", "queue"};
  if (a.has("pattern")) names = {a.get("pattern", "")};
  std::vector<int> shapes{2, 3};  // the graded tests' grids
  if (a.has("blocks")) shapes = {int(a.num("blocks", 3))};
  bool ok = true;
  for (int blocks : shapes)
  for (const std::string& name : names) {
    const lab10::Pattern p = lab10::pattern(name);
    const std::vector<int> want = expected(p, blocks);
    const std::vector<Schedule> ss =
        synclab::lab::schedules(synclab::lab::exploration_from(a, kPatternSeeds, 20, {"sc", "relaxed"}));
    int bad = 0, reported = 0;
    std::string first;
    std::vector<Report> reports;
    for (const Schedule& s : ss) {
      const lab10::PatternResult r = synclab::lab::run_under(s, [&] { return lab10::run_pattern(p, blocks); });
      reports.insert(reports.end(), r.reports.begin(), r.reports.end());
      const bool wrong = r.values != want;
      if (wrong || !r.reports.empty()) {
        if (!wrong) ++reported;
        if (!bad++)
          first = (wrong ? "got " + list(r.values) + ", expected " + list(want) : synclab::lab::brief(r.reports.front())) +
                  ", in:\n    " + replay("pattern --pattern " + name + " --blocks " + std::to_string(blocks), s);
      }
    }
    if (p == lab10::Pattern::queue)  // two blocks; --blocks is the number of items
      std::printf("%s, 2 blocks, %d items, %s:\n", name.c_str(), blocks, synclab::lab::describe(ss).c_str());
    else
      std::printf("%s, %d blocks, %s:\n", name.c_str(), blocks, synclab::lab::describe(ss).c_str());
    if (bad)
      std::printf("  %s; first: %s\n", synclab::lab::failed_runs(bad, reported).c_str(), first.c_str());
    else
      std::printf("  %s in every run\n", list(want).c_str());
    if (!reports.empty()) synclab::lab::print_reports(reports);
    ok = ok && bad == 0;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  synclab::lab::Commands c("lab10", "Lab 10: the memory model (litmus tests, fences and scopes)");
  c.add("predict", "[--test T]", "task 1: your predictions (predictions.cu), and the rows it lacks", {"test"},
        cmd_predict);
  c.add("litmus", "--test T [--show weak|any|bad|good --trace FILE] | on a GPU: [--instances N --launches K --no-stress]",
        "one litmus test's outcomes under sc and relaxed (tests: mp sb lb iriw corr 2+2w and tasks 2-3's)",
        {"test", "trace", "show", "instances", "launches", "no-stress"}, cmd_litmus, true, false);
  c.add("fixed", "[--test T]", "tasks 2-3: the weak outcome must be gone under relaxed (fences.cu)", {"test"}, cmd_fixed);
  c.add("handoff", "[--n N] [--show wrong|any|bad|good --trace FILE]", "task 4: block 1 must sum what block 0 published",
        {"n", "trace", "show"}, cmd_handoff);
  c.add("pattern", "[--pattern last-block|look-back|barrier|queue] [--blocks B]",
        "task 5: the publication patterns of labs 04, 05, 07 and 08", {"pattern", "blocks"}, cmd_pattern);
  return c.run(argc, argv);
}
