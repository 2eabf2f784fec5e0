// Running the graded cases (grading.h): each case in its own sandboxed process, in parallel on
// the simulator; its verdict from Catch2's report, the exit status and the speed against the reference.
#include "grading.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>

namespace synclab::grade {

Grading::CaseRun Grading::run_case(const std::string& program, const std::string& name, int index, bool sandboxed,
                                   const std::vector<std::string>& wrapper, double timeout_scale) {
  CaseSetup setup = prepare_case(program, name, index, sandboxed, wrapper, timeout_scale);
  RunResult r = run_sandboxed(setup.spec);
  return finish_case(setup, std::move(r));
}

Grading::CaseRun Grading::finish_case(CaseSetup& setup, RunResult r) {
  CaseRun c;
  c.run = std::move(r);
  ::close(setup.mfd);
  setup.mfd = -1;
  c.report = read_case_report(read_private(setup.report, kMaxReport), setup.name);
  c.metrics = read_private(setup.metrics, 4096);
  return c;
}

Grading::CaseSetup Grading::prepare_case(const std::string& program, const std::string& name, int index, bool sandboxed,
                                         const std::vector<std::string>& wrapper, double timeout_scale) {
  fs::path dir = dirs_.run / fmt::format("case{}{}", index, sandboxed ? "" : "-ref");
  if (!wrapper.empty()) dir += "-" + fs::path(wrapper.size() > 2 ? wrapper[2] : "tool").filename().string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path report = dir / "report.xml";
  { std::ofstream touch(report); }
  if (sandboxed) {
    own(dir, identity_, 0700);
    own(report, identity_, 0600);
  }
  fs::path metrics = dirs_.metrics / fmt::format("case{}{}.txt", index, sandboxed ? "" : "-ref");
  int mfd = ::open(metrics.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (mfd < 0) throw GradeError(fmt::format("cannot create {}: {}", metrics.string(), std::strerror(errno)));
  RunSpec spec;
  spec.argv = wrapper;
  spec.argv.insert(spec.argv.end(), {program, catch_test_spec(name), "--reporter", "xml", "--out", report.string()});
  spec.env = base_env(dir);
  spec.env.push_back("SYNCLAB_GRADE_METRICS_FD=4");
  // Replay lines in the case's messages run the submission's own harness (synclab_lab.h,
  // program_command), not the tree's build of labs/.
  if (!replay_program_.empty()) spec.env.push_back("SYNCLAB_REPLAY_PROGRAM=" + replay_program_);
  // Programs linked with the student's files run under the system-call filter (not the
  // sanitizer, which starts the program itself).
  if (sandboxed && wrapper.empty() && guard_) {
    spec.env.push_back("LD_PRELOAD=" + opt_.guard_library);
    spec.env.push_back("SYNCLAB_GUARD=require");
  }
  spec.processes = 512;
  spec.cwd = dir.string();
  spec.timeout_s = opt_.timeout_s * timeout_scale;
  // The CUDA driver (and compute-sanitizer) reserve far more address space than any useful
  // limit: on the GPU there is none.
  spec.memory_bytes = backend_ == "gpu" ? ~0ull : opt_.memory_mb << 20;
  spec.extra_fd = mfd;
  if (sandboxed) spec.identity = identity_;
  return CaseSetup{std::move(spec), dir, report, metrics, mfd, name};
}

std::string Grading::failure_text(const CaseRun& c) const {
  const RunResult& r = c.run;
  std::string why;
  if (!r.started) {
    why = "the test program could not be started: " + r.error;
  } else if (r.timed_out) {
    why = fmt::format("timed out: the case was still running after {} s and was stopped", points(opt_.timeout_s));
    if (r.signal == SIGKILL) why += " (it did not end when asked; nothing below may say where it was)";
  } else if (r.signal) {
    why = "crashed: the test program was killed by " + signal_text(r.signal);
  } else if (!c.report.parsed) {
    why = fmt::format("the test program ended (exit status {}) without a complete report ({})", r.exit_code,
                      c.report.parse_error);
  } else if (c.report.test_cases != 1 || !c.report.name_matches) {
    why = fmt::format("the report does not describe this test case ({} test case(s) in it)", c.report.test_cases);
  } else if (c.report.success && r.exit_code != 0) {
    why = fmt::format("the test program exited with status {} although its checks passed", r.exit_code);
  } else {
    why = c.report.first.empty() ? "failed" : "failed: " + shorten(c.report.first);
  }
  // A case that did not end by itself: what its report got to say (the simulator's word on
  // where the kernel was stuck when the time ran out) belongs in the one-line summary too. A
  // fatal error that only names the signal again adds nothing.
  const bool ended_badly = !r.started || r.timed_out || r.signal || !c.report.parsed;
  if (ended_badly && !c.report.first.empty() && c.report.first.rfind("fatal error: SIG", 0) != 0) {
    // (the simulator's cause is enough: the exception it made a test throw follows in the detail)
    std::string first = c.report.first;
    const size_t exception = first.find("; unexpected exception: ");
    if (exception != std::string::npos && first.rfind("simulator: ", 0) == 0) first.resize(exception);
    why += "; " + shorten(first);
  }
  std::string out = why + "\n";
  if (!c.report.messages.empty()) out += "\n" + shorten(c.report.messages);
  // When the report is complete its messages say what went wrong; otherwise the end of the
  // program's output may (the simulator's hang report, the last thing printed before a crash).
  const bool report_complete = r.started && !r.timed_out && r.signal == 0 && c.report.parsed;
  std::string tail = report_complete ? std::string() : last_lines(r.output, 30);
  if (!tail.empty()) out += "\nthe program's output (last lines):\n" + indent(shorten(tail), "  | ");
  return out;
}

bool Grading::case_passed(const CaseRun& c) {
  return c.run.started && !c.run.timed_out && c.run.signal == 0 && c.run.exit_code == 0 && c.report.parsed &&
         c.report.test_cases == 1 && c.report.name_matches && c.report.success;
}

std::vector<Grading::CaseRun> Grading::first_runs() {
  const size_t n = results_.size();
  std::vector<CaseRun> runs(n);
  unsigned together = backend_ == "sim" ? at_once() : 1;
  std::vector<Identity> slots = {identity_};
  if (identity_.drop)
    while (together > 1 && slots.size() < together) {
      Identity more = sandbox_identity();
      if (!more.drop || !more.exclusive || !identity_.exclusive) {
        together = unsigned(slots.size());  // (no user of its own to be had: fewer at once)
        break;
      }
      slots.push_back(more);
    }
  if (together <= 1) {
    for (size_t i = 0; i < n; ++i) {
      progress(fmt::format("  [{}/{}] {}", i + 1, n, results_[i].name));
      runs[i] = run_case(program_.string(), results_[i].name, int(i), true);
    }
    return runs;
  }
  std::vector<CaseSetup> setups;
  std::vector<RunSpec> specs;
  for (size_t i = 0; i < n; ++i) {
    setups.push_back(prepare_case(program_.string(), results_[i].name, int(i), true, {}, 1));
    specs.push_back(setups.back().spec);
  }
  std::vector<RunResult> ran = run_sandboxed_together(specs, together, [&](size_t i, unsigned slot, RunSpec& spec) {
    progress(fmt::format("  [{}/{}] {}", i + 1, n, results_[i].name));
    if (slot == 0) return;
    spec.identity = slots[slot];
    own(setups[i].dir, spec.identity, 0700);
    own(setups[i].report, spec.identity, 0600);
  });
  for (size_t i = 0; i < n; ++i) runs[i] = finish_case(setups[i], std::move(ran[i]));
  for (size_t i = 0; i < n; ++i)
    if (runs[i].run.timed_out) {
      progress(fmt::format("  [{}/{}] {}: out of time beside other cases; running it again alone", i + 1, n,
                           results_[i].name));
      runs[i] = run_case(program_.string(), results_[i].name, int(i), true);
    }
  return runs;
}

void Grading::run_cases() {
  const size_t n = results_.size();
  std::vector<CaseRun> runs = first_runs();
  for (size_t i = 0; i < n; ++i) {
    TestResult& t = results_[i];
    CaseRun& c = runs[i];
    t.seconds = c.run.seconds;
    if (!case_passed(c)) {
      t.passed = false;
      t.score = 0;
      t.output = failure_text(c);
      continue;
    }
    t.passed = true;
    t.score = t.max_score;
    t.output = "passed";
    if (backend_ == "gpu" && !t.speed && !sanitizer_.empty() && opt_.sanitizer) sanitize(t, int(i));
    if (t.passed && t.speed) score_speed(t, c, int(i));
  }
}

void Grading::sanitize(TestResult& t, int index) {
  for (const char* tool : {"memcheck", "racecheck"}) {
    std::vector<std::string> wrapper = {sanitizer_, "--tool", tool, "--error-exitcode", "97", "--print-limit", "20"};
    CaseRun c = run_case(program_.string(), t.name, index, true, wrapper, 10);
    if (c.run.exit_code == 97) {
      t.passed = false;
      t.score = 0;
      t.output = fmt::format("compute-sanitizer --tool {} reported errors (the plain run passed):\n", tool) +
                 indent(shorten(last_lines(c.run.output, 60)), "  | ");
      return;
    }
    // A case that makes no CUDA call (a prediction checked on the host) gives the tool nothing
    // to instrument: it says so and exits non-zero, though the case's own report passed.
    const bool nothing_to_check =
        c.run.output.find("terminated before first instrumented API call") != std::string::npos && c.report.parsed &&
        c.report.success && c.report.name_matches && !c.run.timed_out && c.run.signal == 0;
    if (nothing_to_check) {
      t.output += " (it makes no CUDA call: nothing for compute-sanitizer to check)";
      return;
    }
    if (!case_passed(c)) {
      // The tool found nothing, but the case failed when run under it (its slower timing gives
      // other interleavings): that failure is the submission's.
      t.passed = false;
      t.score = 0;
      t.output = fmt::format(
                     "failed when run again under compute-sanitizer --tool {}, which found no error "
                     "itself (the plain run passed; the tool's slower timing gave another "
                     "interleaving): ",
                     tool) +
                 failure_text(c);
      return;
    }
  }
  t.output += " (and clean under compute-sanitizer memcheck and racecheck)";
}

void Grading::score_speed(TestResult& t, const CaseRun& c, int index) {
  double mine = 0, ref = 0;
  const char* unit = backend_ == "sim" ? "ms of simulated time" : "ms";
  if (!parse_time(c.metrics, &mine)) {
    t.passed = false;
    t.score = 0;
    t.output = c.metrics.empty() ? "graded on speed, but the case recorded no time (synclab::graded::record_time_ms)"
                                 : "graded on speed, but the case's time record is not the one record the test writes "
                                   "(something else wrote to it): no time, no points";
    return;
  }
  std::string where = "measured in this run";
  if (!manifest_.has_reference) {
    // A student release: the reference's simulated time, recorded when the release was made
    // (the simulator's time is the same on every machine), else no speed score here.
    const std::map<std::string, double> recorded = read_reference_times(fs::path(manifest_.lab_dir) / kReferenceTimes);
    if (backend_ != "sim" || !recorded.count(t.name)) {
      t.output = fmt::format(
          "correct; time {:.4g} {}. This copy of the lab has no reference solution to time "
          "against, so the speed part is not scored here: the course's grader gives full marks "
          "within {:.1f}x of the reference's time",
          mine, unit, kSpeedSlack);
      return;
    }
    ref = recorded.at(t.name);
    where = "recorded in this release's " + std::string(kReferenceTimes);
  } else {
    CaseRun r = run_case(reference_, t.name, index, false);
    if (!case_passed(r) || !parse_time(r.metrics, &ref))
      throw GradeError(fmt::format("the reference solution fails the speed case '{}' or records no time:\n{}", t.name,
                                   failure_text(r)));
  }
  const double ratio = mine / ref;
  if (ratio <= kSpeedSlack) {
    t.score = t.max_score;
  } else {
    t.score = std::floor(t.max_score * kSpeedSlack / ratio * 100) / 100;
  }
  t.passed = t.score >= t.max_score;
  t.output = fmt::format(
      "correct; time {:.4g} {}, the reference solution's {:.4g} {} ({}): {:.2f}x. Full marks "
      "within {:.1f}x, proportionally less beyond: {} of {} points",
      mine, unit, ref, unit, where, ratio, kSpeedSlack, points(t.score), points(t.max_score));
}

}  // namespace synclab::grade
