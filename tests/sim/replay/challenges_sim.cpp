// Challenge mode (labs/NN-topic/challenges.txt, viz/core/challenge.h): for every challenge of
// labs 01-03, the untouched run (the harness arguments as the file gives them) does not reach the
// goal, and the scripted schedule next to this file (challenges/NN-NAME.schedule, replayed with
// SYNCLAB_SCHEDULE) does; the evaluator's step count is the number of WarpSteps up to the event
// it names, counted here from the raw events. Plus the evaluator on checks it must refuse.
#include <synclab/catch.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_schedule.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "viz/core/challenge.h"

namespace tr = synclab::trace;
namespace vz = synclab::viz;

namespace {

const std::string kDir = CHALLENGE_TEST_DIR, kSource = PROJECT_SOURCE, kBin = SIM_BIN_DIR;

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

struct Line {
  std::string lab, program, name, args, goal, check;
};

std::vector<Line> challenges(const std::string& lab_dir) {
  std::ifstream in(kSource + "/labs/" + lab_dir + "/challenges.txt");
  REQUIRE(in);
  std::vector<Line> out;
  std::string program, line;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t.rfind("program:", 0) == 0) {
      program = trim(t.substr(8));
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(t);
    for (std::string p; std::getline(ss, p, '|');) f.push_back(trim(p));
    REQUIRE(f.size() == 4);
    out.push_back({lab_dir.substr(0, 2), program, f[0], f[1], f[2], f[3]});
  }
  REQUIRE(!program.empty());
  return out;
}

std::string with_trace(std::string args, const std::string& trace) {
  const size_t at = args.find("{trace}");
  REQUIRE(at != std::string::npos);
  return args.replace(at, 7, trace);
}

int run(const std::string& env, const std::string& cmd) {
  const std::string full = "cd '" + kDir + "' && env SYNCLAB_QUIET=1 " + env + " " + cmd + " >run.log 2>&1";
  const int rc = std::system(full.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::unique_ptr<tr::Trace> open(const std::string& name) {
  std::string err;
  auto t = tr::load(kDir + "/" + name, &err);
  INFO(err);
  REQUIRE(t);
  return t;
}

// WarpSteps of launch `launch` at or before `cursor`, from the raw events.
uint64_t steps_up_to(const tr::Trace& t, size_t launch, uint64_t cursor) {
  const tr::Launch& L = t.launches[launch];
  uint64_t n = 0;
  for (size_t i = L.first_event; i <= L.first_event + cursor && i < L.end_event; ++i)
    n += t.event(i).kind == uint8_t(tr::EventKind::WarpStep);
  return n;
}

size_t schedule_steps(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  tr::Schedule sc;
  int line = 0;
  std::string err;
  INFO(path << ":" << line << ": " << err);
  REQUIRE(tr::parse_schedule(s.str(), &sc, &line, &err));
  return sc.steps(0);
}

void check_lab(const std::string& lab_dir) {
  const std::vector<Line> all = challenges(lab_dir);
  CHECK(all.size() >= 2);
  for (const Line& c : all) {
    INFO("challenge " << c.lab << " " << c.name);
    vz::ChallengeCheck check;
    std::string err;
    INFO(err);
    REQUIRE(vz::parse_challenge_check(c.check, &check, &err));
    const std::string exe = kBin + "/" + c.program;
    // The untouched run does not reach the goal.
    const std::string untouched = c.lab + "-" + c.name + ".trace";
    std::remove((kDir + "/" + untouched).c_str());
    CHECK(run("", "'" + exe + "' " + with_trace(c.args, untouched)) != 3);
    auto u = open(untouched);
    const vz::ChallengeResult ur = vz::evaluate_challenge(check, *u);
    INFO("untouched: " << vz::describe(ur));
    CHECK_FALSE(ur.reached);
    CHECK(!ur.what.empty());
    // The scripted schedule reaches it.
    const std::string schedule = kSource + "/tests/sim/replay/challenges/" + c.lab + "-" + c.name + ".schedule";
    const std::string steered = c.lab + "-" + c.name + ".steered.trace";
    std::remove((kDir + "/" + steered).c_str());
    REQUIRE(run("SYNCLAB_SCHEDULE='" + schedule + "'", "'" + exe + "' " + with_trace(c.args, steered)) != 3);
    auto s = open(steered);
    const vz::ChallengeResult sr = vz::evaluate_challenge(check, *s);
    INFO("steered: " << vz::describe(sr));
    CHECK(sr.reached);
    CHECK(sr.steps > 0);
    CHECK(sr.steps == steps_up_to(*s, sr.launch, sr.cursor));
    CHECK(vz::describe(sr).rfind("goal reached in " + std::to_string(sr.steps) + " step", 0) == 0);
    // The goal's event is what the check is about.
    const tr::Event& e = s->event(s->launches[sr.launch].first_event + sr.cursor);
    if (check.kind == vz::ChallengeCheck::Kind::Stuck)
      CHECK(e.kind == uint8_t(tr::EventKind::KernelEnd));
    else
      CHECK(e.kind == uint8_t(tr::EventKind::RegionUpdate));
    // Where the goal falls inside the scripted steps, it is reached at the script's last step or
    // before; the first-set challenges script exactly the steps up to the winning atomicCAS.
    if (check.kind == vz::ChallengeCheck::Kind::FirstSet) CHECK(sr.steps == schedule_steps(schedule));
  }
}

}  // namespace

TEST_CASE("lab 01 challenges: the untouched run misses the goal, the scripted schedule reaches it",
          "[challenge][lab01]") {
  check_lab("01-data-races");
}

TEST_CASE("lab 02 challenges: the untouched run misses the goal, the scripted schedule reaches it",
          "[challenge][lab02]") {
  check_lab("02-peterson-bakery");
}

TEST_CASE("lab 03 challenges: the untouched run misses the goal, the scripted schedule reaches it",
          "[challenge][lab03]") {
  check_lab("03-atomic-locks");
}

TEST_CASE("the stuck check: lab 03's naive lock deadlocks its warp under lockstep, not under its",
          "[challenge][lab03]") {
  vz::ChallengeCheck stuck;
  std::string err;
  REQUIRE(vz::parse_challenge_check("stuck", &stuck, &err));
  const std::string exe = kBin + "/lab03";
  run("", "'" + exe + "' naive --blocks 1 --threads 4 --models lockstep --show deadlock --trace stuck.trace");
  auto t = open("stuck.trace");
  const vz::ChallengeResult r = vz::evaluate_challenge(stuck, *t);
  INFO(vz::describe(r));
  REQUIRE(r.reached);
  const tr::Launch& L = t->launches[r.launch];
  CHECK(r.cursor + 1 == L.event_count());  // the launch's KernelEnd, its last event
  CHECK(t->event(L.first_event + r.cursor).kind == uint8_t(tr::EventKind::KernelEnd));
  CHECK(r.steps == steps_up_to(*t, r.launch, r.cursor));
  run("", "'" + exe + "' naive --blocks 1 --threads 4 --models its --show finished --trace finished.trace");
  const vz::ChallengeResult f = vz::evaluate_challenge(stuck, *open("finished.trace"));
  CHECK_FALSE(f.reached);
  CHECK(vz::describe(f) == "goal not reached: the launch finished");
}

TEST_CASE("challenge checks: parsing and refusals", "[challenge][parse]") {
  vz::ChallengeCheck c;
  std::string err;
  REQUIRE(vz::parse_challenge_check("final x == 1", &c, &err));
  CHECK(c.kind == vz::ChallengeCheck::Kind::FinalEq);
  CHECK(c.region == "x");
  CHECK(c.value == 1);
  REQUIRE(vz::parse_challenge_check("max inside the critical section >= 2", &c, &err));
  CHECK(c.region == "inside the critical section");
  REQUIRE(vz::parse_challenge_check("final counter, sections[1] != 4", &c, &err));
  CHECK(c.region == "counter, sections");
  CHECK(c.element == 1);
  CHECK(c.kind == vz::ChallengeCheck::Kind::FinalNe);
  REQUIRE(vz::parse_challenge_check("first-set lock by warp 3", &c, &err));
  CHECK(c.warp == 3);
  REQUIRE(vz::parse_challenge_check("stuck", &c, &err));
  CHECK_FALSE(vz::parse_challenge_check("final x = 1", &c, &err));
  CHECK(err.find("final needs") != std::string::npos);
  CHECK_FALSE(vz::parse_challenge_check("first-set lock", &c, &err));
  CHECK_FALSE(vz::parse_challenge_check("deadlock please", &c, &err));
  CHECK_FALSE(vz::parse_challenge_check("max >= 2", &c, &err));
}
