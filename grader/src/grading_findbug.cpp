// The find-the-bug task (grading.h; findbug.h, docs/findbug.md): the line the student names in
// findbug.txt, and the fixed program findbug.cu run under exploration.
#include "grading.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "findbug.h"

namespace synclab::grade {

bool Grading::findbug_beside() {
  findbug_id_ = identity_;
  findbug_at_once_ = at_once();
  if (backend_ != "sim" || at_once() < 2) return false;
  if (identity_.drop && identity_.exclusive) {
    Identity other = sandbox_identity();
    if (!other.drop || !other.exclusive) return false;
    findbug_id_ = other;
  }  // (else kill_leftovers kills no user's processes: the same user will do)
  // One run at a time: the core that the compile's phases, one after another, leave idle.
  findbug_at_once_ = 1;
  return true;
}

std::vector<TestResult> Grading::grade_findbug() {
  std::vector<TestResult> out;
  const findbug::Pool pool = findbug::find_pool(manifest_.lab_dir);
  if (pool.empty()) return out;
  std::string name = findbug::draw(pool, manifest_.lab, opt_.student);
  const std::string nn = manifest_.lab.substr(0, 2);
  const fs::path given = dirs_.src / "findbug";
  std::error_code ec;
  // Without a student id (a student grading their own work), the program is the one the
  // submission's findbug.cu is a copy of (its first line is the program's), as for `./synclab
  // findbug`; the course's grader draws it by the id.
  bool own_copy = false;
  if (opt_.student.empty() && fs::exists(given / "findbug.cu", ec)) {
    const std::string own = findbug::copy_of(pool, read_private(given / "findbug.cu", kMaxStudentFile));
    if (!own.empty()) {
      own_copy = own != name;
      name = own;
    }
  }
  const std::string handed = fmt::format("labs/{}/findbug/{}.cu", manifest_.lab, name);
  const std::string get = fmt::format("`./synclab findbug {}`{} gives it to you", nn,
                                      opt_.student.empty() ? "" : " (with SYNCLAB_STUDENT=" + opt_.student + ")");
  progress(fmt::format("  find the bug: the program is {}{}", handed,
                       !opt_.student.empty() ? " (drawn for student id '" + opt_.student + "')"
                       : own_copy ? " (no student id: the program your findbug.cu is a copy of; the course's grader "
                                    "grades the one your id draws: set SYNCLAB_STUDENT to check)"
                                  : " (no student id: set SYNCLAB_STUDENT to your id, as the course's grader will)"));
  std::ifstream in(pool.path(name));
  const std::string original{std::istreambuf_iterator<char>(in), {}};

  const fs::path answers = fs::path(manifest_.solutions_dir) / "findbug" / "answers.tsv";
  if (manifest_.has_reference && fs::exists(answers, ec)) {
    TestResult t;
    t.name = "Find the bug: the line (findbug.txt)";
    t.max_score = 2;
    t.tags = {"findbug"};
    const std::map<std::string, std::vector<int>> accepted = findbug::read_answers(answers.string());
    if (!accepted.count(name)) throw GradeError(fmt::format("{} has no row for {}", answers.string(), name));
    const std::string text = read_private(given / "findbug.txt", kMaxStudentFile);
    const findbug::Answer a = findbug::parse_answer(text);
    const std::vector<int>& ok = accepted.at(name);
    if (!fs::exists(given / "findbug.txt", ec)) {
      t.output = fmt::format(
          "findbug.txt is not in the submission: write the line of the bug in {} there "
          "('line: N'); {}",
          handed, get);
    } else if (!a.problems.empty()) {
      t.output = "findbug.txt cannot be read:\n";
      for (const auto& p : a.problems) t.output += "  - " + p + "\n";
    } else if (!a.program.empty() && a.program != name) {
      t.output = fmt::format("findbug.txt names program '{}', but your program is '{}' ({}); {}", a.program, name,
                             handed, get);
    } else if (a.line == 0) {
      t.output = "findbug.txt names no line: write 'line: N', N the line of the bug in " + handed;
    } else if (std::find(ok.begin(), ok.end(), a.line) != ok.end()) {
      t.passed = true;
      t.score = t.max_score;
      t.output = fmt::format("passed: line {} of {} is the line of the bug", a.line, handed);
    } else {
      t.output = fmt::format("line {} of {} is not where the bug is", a.line, handed);
    }
    out.push_back(t);
  } else {
    findbug_note_ =
        "Find the bug: the line (findbug.txt) is graded by the course's grader only (a student "
        "release has no answers); the fix is graded here.";
  }

  TestResult t;
  t.name = "Find the bug: the fix (findbug.cu)";
  t.max_score = 4;
  t.tags = {"findbug"};
  t.output = findbug_fix(name, handed, get, original, given);
  t.passed = t.output.rfind("passed", 0) == 0;
  t.score = t.passed ? t.max_score : 0;
  out.push_back(t);
  return out;
}

std::string Grading::findbug_fix(const std::string& name, const std::string& handed, const std::string& get,
                                 const std::string& original, const fs::path& given) {
  std::error_code ec;
  const std::string nn = manifest_.lab.substr(0, 2);
  if (!fs::exists(given / "findbug.cu", ec))
    return fmt::format("findbug.cu is not in the submission: it is your program, {}, with the bug fixed; {}", handed,
                       get);
  const findbug::FixCheck f = findbug::check_fix(original, read_private(given / "findbug.cu", kMaxStudentFile));
  if (!f.problems.empty()) {
    // The first problem on the first line: a summary shows only that one.
    std::string out =
        fmt::format("findbug.cu is not {} with a small fix, so it was not run: {}\n", handed, f.problems.front());
    for (size_t i = 1; i < f.problems.size(); ++i) out += "  - " + f.problems[i] + "\n";
    return out + fmt::format("(`diff {} labs/{}/findbug.cu` shows what you changed; {})", handed, manifest_.lab, get);
  }
  const fs::path bin = fs::path(opt_.grade_dir).parent_path() / "bin";
  // Built where the student files are (item 2 of docs/grader.md): in the kept programs folder when
  // they are compiled there, so that the object, which names its source file, names one that
  // stays, and the next grading, which builds in the same folder, takes it from the object cache;
  // else in this grading's work folder.
  const fs::path dir = src_kept_ ? keep_dir_ / "findbug" : dirs_.run / "findbug";
  fs::create_directories(dir);
  own(dir, findbug_id_, 0700);
  fs::copy_file(given / "findbug.cu", dir / "findbug.cu", fs::copy_options::overwrite_existing);
  own(dir / "findbug.cu", findbug_id_, 0600);
  // Compiled (or taken from the object cache), then linked: two synclab-nvcc calls.
  const fs::path obj = dir / "findbug.o", deps = dir / "findbug.d";
  RunSpec cc;
  cc.argv = {(bin / "synclab-nvcc").string(), "-std=c++17", "-MD",       "-MF", deps.string(), "-c",
             (dir / "findbug.cu").string(),   "-o",         obj.string()};
  cc.env = base_env(dir);
  cc.cwd = dir.string();
  cc.timeout_s = opt_.compile_timeout_s;
  cc.identity = findbug_id_;
  cc.processes = 512;
  std::string key;
  bool cached = false;
  if (cache_.enabled()) {
    key = cache_key(cc.argv, dir, "findbug.cu");
    cached = take_cached(key, obj, "findbug.cu");
  }
  auto not_built = [&](const RunResult& c, const fs::path& out) {
    return !c.started || c.timed_out || c.exit_code != 0 || !fs::exists(out, ec);
  };
  auto compile_error = [&](const RunResult& c) {
    return "findbug.cu does not compile; " +
           (c.started ? (c.timed_out ? std::string("the compiler ran out of time")
                                     : "the compiler said:\n" + shorten(last_lines(c.output, 30)))
                      : "the compiler could not be started: " + c.error);
  };
  if (!cached) {
    progress("  compiling findbug.cu");
    const RunResult c = run_sandboxed(cc);
    if (not_built(c, obj)) return compile_error(c);
    if (cache_.enabled()) {
      store_cached(key, obj, deps, "findbug.cu");
      cache_.trim();
    }
  }
  RunSpec ld = cc;
  ld.argv = {(bin / "synclab-nvcc").string(), "-std=c++17", "-o", (dir / name).string(), obj.string()};
  const RunResult l = run_sandboxed(ld);
  if (not_built(l, dir / name)) return compile_error(l);
  const std::vector<findbug::Run> runs = findbug::exploration();
  std::vector<RunSpec> specs;
  for (const auto& r : runs) {
    RunSpec spec;
    spec.argv = {(dir / name).string()};
    spec.env = base_env(dir);
    for (const auto& e : r.env()) spec.env.push_back(e);
    spec.env.push_back("SYNCLAB_ERROR_EXITCODE=1");
    if (guard_) {
      spec.env.push_back("LD_PRELOAD=" + opt_.guard_library);
      spec.env.push_back("SYNCLAB_GUARD=require");
    }
    spec.cwd = dir.string();
    spec.timeout_s = std::min(30.0, opt_.timeout_s);
    spec.memory_bytes = opt_.memory_mb << 20;
    spec.identity = findbug_id_;
    spec.processes = 512;
    specs.push_back(std::move(spec));
  }
  progress(fmt::format("  running findbug.cu {} times (its and lockstep x sc and relaxed x pct and random seeds 1-4)",
                       runs.size()));
  const std::vector<RunResult> ran = run_sandboxed_together(specs, findbug_at_once_);
  // A run fails on a wrong result, an error report (exit status 1) and a warning report too (a
  // race between lanes of one warp is a warning): a fix leaves no report at all.
  auto warned = [](const RunResult& r) { return r.output.find("SyncLab WARNING") != std::string::npos; };
  size_t failed = 0, first = runs.size();
  for (size_t i = 0; i < ran.size(); ++i)
    if (!ran[i].started || ran[i].timed_out || ran[i].signal || ran[i].exit_code != 0 || warned(ran[i])) {
      ++failed;
      if (first == runs.size()) first = i;
    }
  if (failed == 0)
    return fmt::format(
        "passed: your fix of {} ran {} times (warp models its and lockstep, memory models sc and "
        "relaxed, pct and random seeds 1-4) with the right result and no report",
        handed, runs.size());
  const RunResult& r = ran[first];
  std::string why = !r.started    ? "could not be started: " + r.error
                    : r.timed_out ? "was still running after 30 s (a hang?)"
                    : r.signal    ? "was killed by " + signal_text(r.signal)
                    : r.exit_code ? fmt::format("exited with status {}", r.exit_code)
                                  : std::string("printed a warning report (a fix leaves no report, warnings too)");
  // The first lines of its output (the checks' message or the first report), naming findbug.cu
  // as the student's own copy does.
  std::string head;
  size_t lines = 0, at = 0;
  while (at < r.output.size() && lines < 25) {
    const size_t nl = r.output.find('\n', at);
    head += r.output.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
    at = nl == std::string::npos ? r.output.size() : nl + 1;
    ++lines;
  }
  if (at < r.output.size()) head += "...\n";
  head = replace_all(head, (dir / "findbug.cu").string(), "findbug.cu");
  // The summary line (the table shows only it) ends with what the run said first: the first
  // report's title, else the program's own first line (its checks' message).
  std::string said;
  std::istringstream in(head);
  for (std::string l; std::getline(in, l);) {
    const size_t tag = l.find("SyncLab ERROR");
    const size_t warn = l.find("SyncLab WARNING");
    if (tag != std::string::npos || warn != std::string::npos) {
      said = l.substr(tag != std::string::npos ? tag + 8 : warn + 8);
      break;
    }
    if (said.empty() && !l.empty() && l.rfind("=========", 0) != 0) said = l;
  }
  return fmt::format(
      "your fix still fails {} of {} runs; the first ({}) {}{}\nits output:\n{}\nreplay it: ./synclab findbug {} {}",
      failed, runs.size(), runs[first].options(), why, said.empty() ? "" : ": " + shorten(said),
      indent(shorten(head), "  | "), nn, runs[first].options());
}

}  // namespace synclab::grade
