// The `replay` scheduler (SYNCLAB_SCHEDULE, sim/sched/replay_scheduler.h) on lab programs:
//   - determinism: the schedule of a recorded run (synclab::trace::schedule_of), replayed with
//     the same program arguments, gives the same events (lab 01's lost update, lab 02's Peterson
//     v1, lab 03's naive lock; its and lockstep; rr, random and pct; relaxed memory once);
//   - steering: a prefix of a lost-update run plus other choices ends with another value;
//   - bad input: each message and exit status 3.
// The reference for "the same events" is the first trace itself; addresses differ between two
// processes (ASLR), so they are compared by the order in which each trace first names them.
#include <synclab/catch.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_schedule.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace tr = synclab::trace;

namespace {

const std::string kDir = REPLAY_TEST_DIR;

struct Run {
  int status = -1;
  std::string out;  // stdout and stderr
};

// Runs `env program args` in the shell; the harness's own exit status is not the test's concern
// (a skeleton's TODO may fail it), the schedule's (3) is.
Run run(const std::string& env, const std::string& program, const std::string& args) {
  const std::string log = kDir + "/last.log";
  const std::string cmd = "cd '" + kDir + "' && env SYNCLAB_QUIET=1 " + env + " '" + program + "' " + args + " >'" +
                          log + "' 2>&1";
  Run r;
  const int rc = std::system(cmd.c_str());
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  r.out = s.str();
  return r;
}

std::unique_ptr<tr::Trace> open(const std::string& path) {
  std::string err;
  auto t = tr::load(kDir + "/" + path, &err);
  INFO(err);
  REQUIRE(t);
  return t;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream out(kDir + "/" + path, std::ios::binary | std::ios::trunc);
  out << text;
}

bool has_address(const tr::Event& e) {
  switch (static_cast<tr::EventKind>(e.kind)) {
    case tr::EventKind::MemAccess:
    case tr::EventKind::Atomic:
    case tr::EventKind::HostAccess: return (e.aux & tr::kAuxSpaceMask) != uint16_t(tr::MemSpace::Shared);
    case tr::EventKind::MemoryModel:
      return ((e.aux >> tr::kMemoryModelSpaceShift) & 7) != uint16_t(tr::MemSpace::Shared) &&
             (e.aux & tr::kMemoryModelKindMask) != uint16_t(tr::MemoryModelKind::LateLoad);
    default: return false;
  }
}

bool is_visible(const tr::Event& e) {
  return e.kind == uint8_t(tr::EventKind::MemoryModel) &&
         (e.aux & tr::kMemoryModelKindMask) == uint16_t(tr::MemoryModelKind::Visible);
}

// The events of every launch, with addresses replaced by their order of first appearance. The
// relaxed model's Visible events of one moment (a launch's end makes every write visible) come in
// the order of a hash table of addresses, which differ between processes: a run of them is
// compared as a sorted list of what each says (space, size, value).
std::vector<std::string> canonical_events(const tr::Trace& t) {
  std::map<uint64_t, size_t> names;
  std::vector<std::string> out;
  size_t run_start = 0;
  bool in_run = false;
  for (size_t i = 0; i < t.event_count(); ++i) {
    const tr::Event& e = t.event(i);
    const bool visible = is_visible(e);
    if (visible && !in_run) run_start = out.size();
    if (!visible && in_run) std::sort(out.begin() + static_cast<std::ptrdiff_t>(run_start), out.end());
    in_run = visible;
    uint64_t a = e.a;
    char buf[160];
    if (visible) {
      std::snprintf(buf, sizeof buf, "%llu visible x%u b%llx", static_cast<unsigned long long>(e.time), e.aux,
                    static_cast<unsigned long long>(e.b));
    } else {
      if (has_address(e)) a = names.emplace(e.a, names.size()).first->second;
      std::snprintf(buf, sizeof buf, "%llu w%u k%u l%u x%u a%llx b%llx", static_cast<unsigned long long>(e.time),
                    e.warp, e.kind, e.lane, e.aux, static_cast<unsigned long long>(a),
                    static_cast<unsigned long long>(e.b));
    }
    out.push_back(buf);
  }
  if (in_run) std::sort(out.begin() + static_cast<std::ptrdiff_t>(run_start), out.end());
  return out;
}

size_t steps(const tr::Trace& t) {
  size_t n = 0;
  for (size_t i = 0; i < t.event_count(); ++i) n += t.event(i).kind == uint8_t(tr::EventKind::WarpStep);
  return n;
}

// Records `args --trace a.trace`, writes its schedule, replays it into b.trace, compares.
void check_replay(const std::string& program, const std::string& args, const std::string& name) {
  INFO(name << ": " << args);
  const Run first = run("", program, args + " --trace " + name + ".trace");
  INFO(first.out);
  REQUIRE(first.status != 3);
  auto a = open(name + ".trace");
  REQUIRE(steps(*a) > 0);
  const std::string schedule = tr::schedule_of(*a);
  write(name + ".schedule", schedule);
  tr::Schedule parsed;
  int line = 0;
  std::string err;
  REQUIRE(tr::parse_schedule(schedule, &parsed, &line, &err));
  CHECK(parsed.steps(0) == steps(*a));
  const Run second = run("SYNCLAB_SCHEDULE=" + name + ".schedule", program, args + " --trace " + name + ".replay.trace");
  INFO(second.out);
  REQUIRE(second.status == first.status);
  auto b = open(name + ".replay.trace");
  const std::vector<std::string> ea = canonical_events(*a), eb = canonical_events(*b);
  REQUIRE(ea.size() == eb.size());
  for (size_t i = 0; i < ea.size(); ++i) {
    INFO("event " << i);
    REQUIRE(ea[i] == eb[i]);
  }
  CHECK(a->reports.size() == b->reports.size());
}

// The last value region `name` (element 0) was given in the trace.
int64_t final_value(const tr::Trace& t, const std::string& name) {
  int64_t id = -1;
  for (const nlohmann::json& r : t.regions)
    if (r.value("name", "") == name) id = r.value("id", int64_t(-1));
  REQUIRE(id >= 0);
  int64_t v = -1;
  for (size_t i = 0; i < t.event_count(); ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind == uint8_t(tr::EventKind::RegionUpdate) && (e.aux & tr::kRegionIdMask) == id && e.a == 0)
      v = static_cast<int64_t>(e.b);
  }
  return v;
}

// The one stderr line of a schedule that cannot be followed.
std::string schedule_error(const Run& r) {
  std::istringstream in(r.out);
  std::string line, found;
  int n = 0;
  while (std::getline(in, line))
    if (line.rfind("synclab: schedule ", 0) == 0) {
      found = line;
      ++n;
    }
  CHECK(n == 1);
  return found;
}

const std::string kLab01 = LAB01_EXE, kLab02 = LAB02_EXE, kLab03 = LAB03_EXE;
const std::string kIncrement = "increment --blocks 2 --threads 1 --show 1";

}  // namespace

TEST_CASE("replaying a run's schedule gives the same events", "[replay][determinism]") {
  check_replay(kLab01, kIncrement + " --model its", "lab01-its-rr");
  check_replay(kLab01, kIncrement + " --model lockstep", "lab01-lockstep-rr");
  // Peterson's lock (the provided ordering 0 of task 4).
  check_replay(kLab02, "orderings --ordering 0 --show any --model its --sched random --seed 3", "lab02-its-random");
  check_replay(kLab02, "orderings --ordering 0 --show any --model lockstep --sched pct --seed 2",
               "lab02-lockstep-pct");
  check_replay(kLab03, "naive --blocks 1 --threads 4 --show finished --model its --sched pct --seed 5",
               "lab03-its-pct");
  check_replay(kLab03, "naive --blocks 1 --threads 4 --show deadlock --model lockstep", "lab03-lockstep-rr");
  // Relaxed memory: Peterson's lock with release stores and acquire loads (task 4b), and the
  // message-passing run whose reader sees the flag and then an old value of data.
  check_replay(kLab02, "orderings --store-buffers --show any --model its --memory relaxed --sched random --seed 7",
               "lab02-relaxed");
  check_replay(kLab02, "message-passing --show stale", "lab02-message-passing");
}

TEST_CASE("a schedule prefix and another choice steer a lost update into a correct count", "[replay][steer]") {
  const Run first = run("", kLab01, kIncrement + " --model its --trace lost.trace");
  auto lost = open("lost.trace");
  REQUIRE(final_value(*lost, "x") == 1);  // the recorded run lost an update
  // Stop after warp 0's first step, then run warp 0 to its end before warp 1 starts.
  const tr::Launch& L = lost->launches[0];
  uint64_t cursor = 0;
  uint32_t first_warp = 99;
  for (size_t i = L.first_event; i < L.end_event; ++i)
    if (lost->event(i).kind == uint8_t(tr::EventKind::WarpStep)) {
      cursor = i - L.first_event;
      first_warp = lost->event(i).warp;
      break;
    }
  REQUIRE(first_warp != 99);
  std::string text = tr::schedule_prefix(*lost, 0, cursor);
  // synclab-trace schedule prints the same text (after its first line, which names the file as given).
  auto body = [](const std::string& s) { return s.substr(s.find('\n') + 1); };
  const Run tool = run("", TRACE_TOOL_EXE, "schedule lost.trace --launch 0 --event " + std::to_string(cursor));
  CHECK(tool.status == 0);
  CHECK(body(tool.out) == body(text));
  const Run whole = run("", TRACE_TOOL_EXE, "schedule lost.trace");
  CHECK(body(whole.out) == body(tr::schedule_of(*lost)));
  CHECK(run("", TRACE_TOOL_EXE, "schedule lost.trace --launch 1 --event 0").status == 2);
  tr::Schedule s;
  int line = 0;
  std::string err;
  REQUIRE(tr::parse_schedule(text, &s, &line, &err));
  CHECK(s.steps(0) == 1);
  for (int k = 0; k < 5; ++k) text += "step " + std::to_string(first_warp) + "\n";  // the rest of warp 0's steps
  write("steer.schedule", text);
  const Run second = run("SYNCLAB_SCHEDULE=steer.schedule", kLab01, kIncrement + " --model its --trace steer.trace");
  INFO(second.out);
  REQUIRE(second.status != 3);
  auto steered = open("steer.trace");
  CHECK(final_value(*steered, "x") == 2);  // one thread after the other: nothing lost
  // The same prefix with the other warp next keeps the lost update.
  std::string other = tr::schedule_prefix(*lost, 0, cursor) + "step " + std::to_string(1 - first_warp) + "\n";
  write("steer-other.schedule", other);
  run("SYNCLAB_SCHEDULE=steer-other.schedule", kLab01, kIncrement + " --model its --trace steer-other.trace");
  auto kept = open("steer-other.trace");
  CHECK(final_value(*kept, "x") == 1);
}

TEST_CASE("schedules that cannot be followed: one line naming the file and line, exit status 3", "[replay][errors]") {
  SECTION("a warp that does not exist") {
    write("bad-warp.schedule", "# two blocks of one thread: warps 0 and 1\nstep 5\n");
    const Run r = run("SYNCLAB_SCHEDULE=bad-warp.schedule", kLab01, kIncrement + " --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) ==
          "synclab: schedule bad-warp.schedule:2: warp 5 is not ready at step 0 (the launch has only 2 warps: 0..1); "
          "ready: 0, 1");
  }
  SECTION("a warp that has finished") {
    std::string text;
    for (int k = 0; k < 6; ++k) text += "step 0\n";  // warp 0's six steps: load, add, store, ..., exit
    text += "step 0\n";
    write("finished.schedule", text);
    const Run r = run("SYNCLAB_SCHEDULE=finished.schedule", kLab01, kIncrement + " --model its --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) ==
          "synclab: schedule finished.schedule:7: warp 0 is not ready at step 6 (its block 0 has finished); ready: 1");
  }
  SECTION("a warp waiting at __syncthreads") {
    // A plain program (tests/checks/cross_warp_no_barrier.cu with -DFIX): two warps of one block
    // meet at __syncthreads; warp 0 arrives at its 10th step. Steps of warp 0 alone, one too many.
    std::string text = "# warp 0 alone up to the barrier, then once more\n";
    for (int k = 0; k < 11; ++k) text += "step 0\n";
    write("barrier.schedule", text);
    const Run r = run("SYNCLAB_SCHED=replay SYNCLAB_SCHEDULE=barrier.schedule SYNCLAB_TRACE=barrier.trace",
                      BARRIER_PROGRAM_EXE, "");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) == "synclab: schedule barrier.schedule:12: warp 0 is not ready at step 10 (waiting at "
                               "__syncthreads); ready: 1");
  }
  SECTION("lanes that are not a group under its") {
    write("its-lanes.schedule", "launch 0\nstep 0 0x3\n");
    const Run r = run("SYNCLAB_SCHEDULE=its-lanes.schedule", kLab03,
                      "naive --blocks 1 --threads 4 --show finished --model its --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) == "synclab: schedule its-lanes.schedule:2: lanes 0x00000003 are not a group of warp 0 at "
                               "step 0 (its groups: 0x0000000f)");
  }
  SECTION("lanes that are not a group under lockstep") {
    write("lockstep-lanes.schedule", "step 0 0x3\n");
    const Run r = run("SYNCLAB_SCHEDULE=lockstep-lanes.schedule", kLab03,
                      "naive --blocks 1 --threads 4 --show deadlock --model lockstep --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) == "synclab: schedule lockstep-lanes.schedule:1: lanes 0x00000003 are not a group of "
                               "warp 0 under lockstep (its groups: 0x0000000f)");
  }
  SECTION("a launch the program does not make") {
    write("launch.schedule", "launch 0\nstep 0\nlaunch 2\nstep 0\n");
    const Run r = run("SYNCLAB_SCHEDULE=launch.schedule", kLab01, kIncrement + " --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) == "synclab: schedule launch.schedule:3: the schedule is for launch 2 but the program made "
                               "only 1 launch (counting the launches its trace records)");
  }
  SECTION("choices left when the launch ends") {
    // Warp 0's six steps, then warp 1's six: the launch ends; a 13th step is left over.
    std::string text;
    for (int w = 0; w < 2; ++w)
      for (int k = 0; k < 6; ++k) text += "step " + std::to_string(w) + "\n";
    text += "step 1\n";
    write("left-over.schedule", text);
    const Run r = run("SYNCLAB_SCHEDULE=left-over.schedule", kLab01, kIncrement + " --model its --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) == "synclab: schedule left-over.schedule:13: launch 0 ended after 12 steps, before this "
                               "choice (the schedule has 1 more step for it)");
  }
  SECTION("a malformed line") {
    write("malformed.schedule", "# fine\nlaunch 0\n\nstep zero\n");
    const Run r = run("SYNCLAB_SCHEDULE=malformed.schedule", kLab01, kIncrement + " --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) == "synclab: schedule malformed.schedule:4: 'step zero': a step line is `step W` or "
                               "`step W 0xMASK`, W a warp number");
  }
  SECTION("a missing file") {
    const Run r = run("SYNCLAB_SCHEDULE=no-such.schedule", kLab01, kIncrement + " --trace bad.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r) ==
          "synclab: schedule no-such.schedule:0: cannot open the schedule file (No such file or directory)");
  }
  SECTION("SYNCLAB_SCHED=replay without a file") {
    // A plain program (a lab harness reads SYNCLAB_SCHED itself: replay it with SYNCLAB_SCHEDULE alone).
    const Run r = run("SYNCLAB_SCHED=replay", PLAIN_PROGRAM_EXE, "");
    CHECK(r.status == 2);
    CHECK(r.out.find("SYNCLAB_SCHED=replay needs SYNCLAB_SCHEDULE=FILE") != std::string::npos);
  }
}

TEST_CASE("schedule files: parsing", "[replay][parse]") {
  tr::Schedule s;
  int line = 0;
  std::string err;
  REQUIRE(tr::parse_schedule("then pct\nstep 1\nlaunch 1 # the second\nread 3 1\nstep 0 0xff\n", &s, &line, &err));
  CHECK(s.then == "pct");
  REQUIRE(s.launches.size() == 2);
  CHECK(s.steps(0) == 1);
  CHECK(s.steps(1) == 1);
  CHECK(s.launches[1][0].kind == tr::ScheduleChoice::Kind::Read);
  CHECK(s.launches[1][1].mask == 0xff);
  CHECK(s.launch_lines[1] == 3);
  CHECK_FALSE(tr::parse_schedule("step 1\nthen rr\nthen pct\n", &s, &line, &err));
  CHECK(line == 3);
  CHECK_FALSE(tr::parse_schedule("read 1 0\n", &s, &line, &err));
  CHECK(line == 1);
  CHECK_FALSE(tr::parse_schedule("step 0 0x0\n", &s, &line, &err));
  CHECK_FALSE(tr::parse_schedule("jump 3\n", &s, &line, &err));
  CHECK(err.find("not a schedule line") != std::string::npos);
}

namespace {

// The schedule of `t` with `line` inserted before the step line of step `step` (its event time).
std::string insert_before_step(const tr::Trace& t, uint64_t step, const std::string& line) {
  std::istringstream in(tr::schedule_of(t));
  std::string out, l;
  uint64_t k = 0;
  while (std::getline(in, l)) {
    if (l.rfind("step ", 0) == 0 && k++ == step) out += line + "\n";
    out += l + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("read lines choose the value a relaxed load reads", "[replay][read]") {
  // Lab 02's message passing (relaxed memory, no fence): block 1 waits for flag, then reads data
  // and copies it into "seen". The recorded run reads an old data (0) although 42 was stored.
  const std::string args = "message-passing --show stale";
  run("", kLab02, args + " --trace mp.trace");
  auto t = open("mp.trace");
  REQUIRE(final_value(*t, "seen (the reader's copy of data)") == 0);
  CHECK(t->header.value("memory", "") == "relaxed");  // the harness sets it; the header says so
  CHECK(tr::schedule_of(*t).find("memory relaxed") != std::string::npos);
  uint64_t data = 0;
  for (const nlohmann::json& r : t->regions)
    if (r.value("name", "") == "data") data = r.value("address", uint64_t(0));
  REQUIRE(data != 0);
  // The load of data: a MemAccess read of its address; its step is the event's time.
  uint64_t step = UINT64_MAX, other_step = UINT64_MAX;
  uint8_t lane = 0;
  for (size_t i = 0; i < t->event_count(); ++i) {
    const tr::Event& e = t->event(i);
    if (e.kind == uint8_t(tr::EventKind::MemAccess) && e.a == data && !(e.aux & tr::kAuxWrite)) {
      step = e.time;
      lane = e.lane;
    }
    if (e.kind == uint8_t(tr::EventKind::WarpStep) && e.aux == uint16_t(tr::InstrClass::Alu) && step == UINT64_MAX)
      other_step = e.time;
  }
  REQUIRE(step != UINT64_MAX);
  REQUIRE(other_step != UINT64_MAX);
  const std::string L = std::to_string(lane);
  SECTION("the newest value: the reader sees 42") {
    write("read-newest.schedule", insert_before_step(*t, step, "read " + L + " 0"));
    const Run r = run("SYNCLAB_SCHEDULE=read-newest.schedule", kLab02, args + " --trace read-newest.trace");
    INFO(r.out);
    REQUIRE(r.status != 3);
    CHECK(final_value(*open("read-newest.trace"), "seen (the reader's copy of data)") == 42);
  }
  SECTION("the value before it: the reader sees 0") {
    write("read-old.schedule", insert_before_step(*t, step, "read " + L + " 1"));
    const Run r = run("SYNCLAB_SCHEDULE=read-old.schedule", kLab02, args + " --trace read-old.trace");
    INFO(r.out);
    REQUIRE(r.status != 3);
    CHECK(final_value(*open("read-old.trace"), "seen (the reader's copy of data)") == 0);
  }
  SECTION("a value it cannot read") {
    write("read-bad.schedule", insert_before_step(*t, step, "read " + L + " 2"));
    const Run r = run("SYNCLAB_SCHEDULE=read-bad.schedule", kLab02, args + " --trace read-bad.trace");
    CHECK(r.status == 3);
    const std::string e = schedule_error(r);
    CHECK(e.find("lane " + L + "'s load at step " + std::to_string(step) + " can read only 2 values: read " + L +
                 " 0 (the newest) to read " + L + " 1") != std::string::npos);
  }
  SECTION("a read line in a sequentially consistent run says where read lines work") {
    write("read-sc.schedule", "read 0 1\nstep 0\n");
    const Run r = run("SYNCLAB_SCHEDULE=read-sc.schedule", kLab01, kIncrement + " --model its --trace read-sc.trace");
    CHECK(r.status == 3);
    const std::string e = schedule_error(r);
    INFO(r.out);
    CHECK(e.find("read-sc.schedule:1") != std::string::npos);
    CHECK(e.find("sequentially consistent memory") != std::string::npos);
    CHECK(e.find("SYNCLAB_MEMORY=relaxed") != std::string::npos);
  }
  SECTION("a step without such a load") {
    write("read-none.schedule", insert_before_step(*t, other_step, "read " + L + " 0"));
    const Run r = run("SYNCLAB_SCHEDULE=read-none.schedule", kLab02, args + " --trace read-none.trace");
    CHECK(r.status == 3);
    CHECK(schedule_error(r).find("made no load at step " + std::to_string(other_step) +
                                 " that could read more than one value") != std::string::npos);
  }
}

TEST_CASE("after the file's choices: its then line or SYNCLAB_SCHED_AFTER, not the harness's own scheduler",
          "[replay][after]") {
  // Lab 03's harness sets its scheduler for the run it records (synclab_sim_set_scheduler); after
  // the schedule's one choice, the policy the file or SYNCLAB_SCHED_AFTER names must run instead.
  const std::string args = "naive --blocks 4 --threads 1 --models its --show finished";
  auto warps = [](const tr::Trace& t) {
    std::vector<uint32_t> w;
    for (size_t i = 0; i < t.event_count(); ++i)
      if (t.event(i).kind == uint8_t(tr::EventKind::WarpStep)) w.push_back(t.event(i).warp);
    return w;
  };
  write("after-rr.schedule", "step 3\nthen rr\n");
  write("after-random.schedule", "step 3\nthen random\n");
  write("after-none.schedule", "step 3\n");
  run("SYNCLAB_SCHEDULE=after-rr.schedule", kLab03, args + " --trace after-rr.trace");
  run("SYNCLAB_SCHEDULE=after-random.schedule", kLab03, args + " --trace after-random.trace");
  run("SYNCLAB_SCHEDULE=after-none.schedule SYNCLAB_SCHED_AFTER=random", kLab03, args + " --trace after-env.trace");
  run("SYNCLAB_SCHEDULE=after-none.schedule", kLab03, args + " --trace after-none.trace");
  auto rr = open("after-rr.trace"), random = open("after-random.trace"), env = open("after-env.trace"),
       none = open("after-none.trace");
  CHECK(rr->header.value("scheduler", "") == "rr");
  CHECK(random->header.value("scheduler", "") == "random");
  CHECK(env->header.value("scheduler", "") == "random");
  CHECK(none->header.value("scheduler", "") == "rr");  // the harness's own choice for its recorded run
  // Round robin after the choice: warp 3 first, then blocks in turn; random: another order.
  const std::vector<uint32_t> wr = warps(*rr), wn = warps(*random);
  REQUIRE(wr.size() > 8);
  CHECK(wr[0] == 3);
  CHECK(wn[0] == 3);
  CHECK(wr != wn);
  CHECK(warps(*env) == wn);   // SYNCLAB_SCHED_AFTER=random is the file's `then random`
  CHECK(warps(*none) == wr);  // no then line: the harness's rr
}
