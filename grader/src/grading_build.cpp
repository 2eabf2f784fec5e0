// Building a submission (grading.h): the instructor's hidden tests; each student file compiled
// (or taken from the object cache) and checked; the graded test program and the harness linked.
#include "grading.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <thread>

namespace synclab::grade {

bool Grading::build_hidden() {
  reference_ = be_.reference_tests;
  if (opt_.hidden.empty()) {
    finish_case_list();
    return true;
  }
  std::error_code ec;
  if (!fs::is_directory(opt_.hidden, ec))
    throw GradeError(fmt::format("the hidden tests directory {} does not exist", opt_.hidden));
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(opt_.hidden, ec))
    if (e.is_regular_file() && e.path().extension() == ".cpp") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw GradeError(fmt::format("the hidden tests directory {} has no .cpp files", opt_.hidden));
  progress(fmt::format("  compiling {} hidden test file(s) from {}", files.size(), opt_.hidden));
  // The submission runs as another user: it should not be able to read them (and print them).
  if (identity_.drop && readable_by_submission(fs::absolute(files[0]).string()))
    std::cout << "  note (for the course staff): the hidden tests in " << opt_.hidden
              << " are readable by every user, so a submission could read them; make the directory private "
                 "(chmod 700), as gradescope-package's setup.sh does\n";
  for (const auto& f : files) {
    fs::path obj = dirs_.hidden / (f.filename().string() + ".o");
    RunSpec spec;
    spec.argv = without_ccache(be_.compiler);
    spec.argv.insert(spec.argv.end(), be_.cpp_flags.begin(), be_.cpp_flags.end());
    spec.argv.insert(spec.argv.end(), {"-c", fs::absolute(f).string(), "-o", obj.string()});
    spec.argv[0] = resolve(spec.argv[0]);
    spec.env = base_env(dirs_.hidden);
    spec.cwd = dirs_.hidden.string();
    spec.timeout_s = opt_.compile_timeout_s;
    RunResult r = run_sandboxed(spec);
    if (!r.started || r.exit_code != 0)
      throw GradeError(
          fmt::format("the hidden test file {} does not compile:\n{}", f.string(), last_lines(r.error + r.output, 40)));
    hidden_objs_.push_back(obj.string());
  }
  // The reference program with the hidden tests, for the list of cases and speed references.
  fs::path ref = dirs_.bin / "reference";
  std::vector<std::string> objs;
  for (const auto& f : manifest_.student_files) objs.push_back(be_.solution_objects.at(f));
  RunResult r = link(ref, objs, /*sandboxed=*/false);
  if (!r.started || r.exit_code != 0)
    throw GradeError(fmt::format("the hidden tests do not link with the reference solution:\n{}",
                                 last_lines(r.error + r.output, 40)));
  reference_ = ref.string();
  std::set<std::string> known(public_names_.begin(), public_names_.end());
  std::vector<std::string> hidden;
  for (const auto& n : list_names(reference_))
    if (!known.count(n)) hidden.push_back(n);
  auto tags = tags_of_all(reference_, hidden);
  for (const auto& n : hidden) {
    TestResult t;
    t.name = n;
    t.tags = std::move(tags[n]);
    t.visibility = "after_published";
    results_.push_back(t);
  }
  finish_case_list();
  return true;
}

std::vector<std::string> Grading::without_ccache(std::vector<std::string> cmd) {
  if (cmd.size() > 1 && fs::path(cmd[0]).filename() == "ccache") cmd.erase(cmd.begin());
  return cmd;
}

std::string Grading::resolve(const std::string& cmd) const {
  if (cmd.find('/') != std::string::npos) return cmd;
  std::string p = find_program(cmd);
  return p.empty() ? cmd : p;
}

RunResult Grading::link(const fs::path& out, const std::vector<std::string>& student_objs, bool sandboxed,
                        bool harness_program) {
  return run_sandboxed(link_spec(out, student_objs, sandboxed, harness_program));
}

RunSpec Grading::link_spec(const fs::path& out, const std::vector<std::string>& student_objs, bool sandboxed,
                           bool harness_program) {
  RunSpec spec;
  spec.argv = without_ccache(be_.linker);
  if (harness_program) {
    spec.argv.insert(spec.argv.end(), be_.main_objects.begin(), be_.main_objects.end());
  } else {
    spec.argv.insert(spec.argv.end(), be_.test_objects.begin(), be_.test_objects.end());
    spec.argv.insert(spec.argv.end(), hidden_objs_.begin(), hidden_objs_.end());
  }
  spec.argv.insert(spec.argv.end(), be_.harness_objects.begin(), be_.harness_objects.end());
  spec.argv.insert(spec.argv.end(), student_objs.begin(), student_objs.end());
  spec.argv.insert(spec.argv.end(), be_.libs.begin(), be_.libs.end());
  spec.argv.insert(spec.argv.end(), {"-o", out.string()});
  spec.argv[0] = resolve(spec.argv[0]);
  fs::path home = sandboxed ? dirs_.build : dirs_.hidden;
  spec.env = base_env(home);
  spec.cwd = home.string();
  spec.timeout_s = opt_.compile_timeout_s;
  if (sandboxed) spec.identity = identity_;
  return spec;
}

void Grading::fail_all(const std::string& why) {
  for (auto& t : results_) {
    t.passed = false;
    t.score = 0;
    t.output = why;
  }
}

unsigned Grading::at_once() const {
  if (opt_.parallel) return opt_.parallel;
  return std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
}

void Grading::open_cache() {
  if (opt_.object_cache == "off") return;
  const fs::path dir =
      opt_.object_cache.empty() ? fs::path(opt_.grade_dir).parent_path() / "grade-cache" : fs::path(opt_.object_cache);
  if ((identity_.drop && !identity_.exclusive) || (!identity_.drop && geteuid() == 0)) {
    progress("  (no object cache: the submission does not run as a user of its own; every student file compiles)");
    return;
  }
  cache_ = ObjectCache(dir);
  if (!cache_.enabled()) {
    progress(
        fmt::format("  (no object cache: {} is not a private directory of this user; every student file "
                    "compiles)",
                    dir.string()));
    return;
  }
  // What a cached compile's checks stand for: this grader's rules (its own program) and the lab's
  // list of student files (which a student file may include).
  cache_context_ = sha256_file("/proc/self/exe");
  for (const auto& f : manifest_.student_files) cache_context_ += " " + f;
}

std::string Grading::cache_key(const std::vector<std::string>& argv, const fs::path& folder, const std::string& file) {
  return cache_.key(argv, cache_work(), read_private(folder / file, kMaxStudentFile),
                    cache_context_ + "\n" + folder.string());
}

bool Grading::take_cached(const std::string& key, const fs::path& obj, const std::string& file) {
  const auto hit = cache_.find(key, cache_work());
  if (!hit) return false;
  std::error_code ec;
  fs::remove(obj, ec);
  ec.clear();
  fs::copy_file(hit->object, obj, fs::copy_options::none, ec);
  if (ec) return false;
  chmod(obj.c_str(), 0644);
  progress(fmt::format("  {}: compiled before with the same inputs (object cache {})", file,
                       shorten(cache_.dir().string())));
  return true;
}

void Grading::store_cached(const std::string& key, const fs::path& obj, const fs::path& deps, const std::string& file) {
  const std::string why = cache_.store(key, obj, deps, cache_work());
  if (!why.empty()) progress(fmt::format("  (the object cache did not keep {}: {})", file, why));
}

bool Grading::build_submission() {
  std::vector<std::string> objs;
  const std::vector<std::string>& files = manifest_.student_files;
  // The student files compile side by side; their results are taken in the manifest's order.
  struct Outputs {
    fs::path obj, deps, keep;  // the object, its dependency list, nvcc's intermediate files
  };
  std::vector<Outputs> outs;
  std::vector<RunSpec> specs;
  std::vector<std::string> keys(files.size());
  std::vector<bool> cached(files.size(), false);
  std::vector<size_t> compiling;  // the files compiled (specs[i] is files[compiling[i]]'s)
  for (const auto& f : files) {
    const size_t i = outs.size();
    outs.push_back({dirs_.build / (f + ".o"), dirs_.build / (f + ".d"), dirs_.build / (f + ".keep")});
    const auto& [obj, deps, keep] = outs.back();
    RunSpec spec;
    spec.argv = without_ccache(be_.compiler);
    spec.argv.insert(spec.argv.end(), be_.cu_flags.begin(), be_.cu_flags.end());
    fs::create_directories(keep);
    own(keep, identity_, 0700);
    spec.argv.insert(spec.argv.end(), {"-MD", "-MF", deps.string(), "--keep", "--keep-dir", keep.string()});
    spec.argv.insert(spec.argv.end(), {"-c", (dirs_.src / f).string(), "-o", obj.string()});
    spec.argv[0] = resolve(spec.argv[0]);
    spec.env = base_env(dirs_.build);
    spec.cwd = dirs_.build.string();
    spec.timeout_s = opt_.compile_timeout_s;
    spec.identity = identity_;
    spec.processes = 512;
    // Compiled before with these inputs (by an earlier grading): the object, not a compile.
    if (cache_.enabled()) {
      keys[i] = cache_key(spec.argv, dirs_.src, f);
      if (take_cached(keys[i], obj, f)) {
        cached[i] = true;
        continue;
      }
    }
    compiling.push_back(i);
    specs.push_back(std::move(spec));
  }
  // Cores left over (one file changed since the last grading: the common case of a re-grade)
  // go to nvcc's own threads, which run its host and device passes side by side (about 10%
  // of a compile on 2 cores). Not part of the cache key: the object does not depend on it.
  const unsigned threads = specs.empty() ? 1 : std::max(1u, at_once() / unsigned(specs.size()));
  if (threads > 1)
    for (RunSpec& spec : specs) {
      const auto c = std::find(spec.argv.begin(), spec.argv.end(), "-c");
      spec.argv.insert(c, {"-t", std::to_string(threads)});
    }
  const std::vector<RunResult> ran = run_sandboxed_together(specs, at_once(), [&](size_t k, unsigned, RunSpec&) {
    progress(fmt::format("  compiling {}", files[compiling[k]]));
  });
  std::vector<RunResult> compiled(files.size());
  for (size_t k = 0; k < compiling.size(); ++k) compiled[compiling[k]] = ran[k];
  bool stored = false;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& f = files[i];
    const auto& [obj, deps, keep] = outs[i];
    if (cached[i]) {
      objs.push_back(obj.string());
      continue;
    }
    const RunResult& r = compiled[i];
    std::error_code ec;
    if (!r.started || r.timed_out || r.exit_code != 0 || !fs::exists(obj, ec)) {
      std::string why;
      if (!r.started)
        why = "the compiler could not be started: " + r.error;
      else if (r.timed_out)
        why = fmt::format("compiling took longer than {} s and was stopped", opt_.compile_timeout_s);
      else
        why = "the compiler said:";
      build_error_ = fmt::format("{} does not compile; {}\n{}", f, why, shorten(last_lines(r.output, 60)));
      fail_all(fmt::format("not run: the submission did not compile ({}; see the top of the report)", f));
      progress("  " + build_error_);
      return false;
    }
    // What the file may include, contain and call (all three, so that one report lists everything).
    std::vector<std::string> problems = check_includes(deps);
    for (const auto& p : check_host_code(f, keep)) problems.push_back(p);
    for (const auto& p : check_object(f, obj)) problems.push_back(p);
    if (!problems.empty()) {
      std::string list;
      for (const auto& p : problems) list += "  - " + p + "\n";
      build_error_ = fmt::format(
          "{} is rejected:\n{}A student file may compute, launch kernels and print. It may include the other "
          "student files, the lab's headers and the CUDA and C++ headers; it may not open files, start processes "
          "or threads, send signals, change the environment, replace functions of the libraries or of the tests, "
          "run code before main or at exit, or contain assembly in its host code (inline PTX in __device__ and "
          "__global__ functions is fine). The graded tests alone decide the score.",
          f, list);
      fail_all(fmt::format("not run: {} breaks the rules for student files (see the top of the report)", f));
      progress("  " + build_error_);
      return false;
    }
    objs.push_back(obj.string());
    if (cache_.enabled()) {
      store_cached(keys[i], obj, deps, f);
      stored = true;
    }
  }
  if (stored) cache_.trim();
  // The graded tests and the lab's harness program (what the failed cases' replay lines run) link
  // side by side.
  fs::path built = dirs_.build / "tests";
  const fs::path built_harness = dirs_.build / manifest_.program;
  std::vector<RunSpec> links = {link_spec(built, objs, /*sandboxed=*/true, false)};
  if (!be_.main_objects.empty()) links.push_back(link_spec(built_harness, objs, true, /*harness_program=*/true));
  const std::vector<RunResult> linked = run_sandboxed_together(links, at_once(), [&](size_t i, unsigned, RunSpec&) {
    progress(i == 0 ? std::string("  linking the graded tests") : "  linking the harness program " + manifest_.program);
  });
  const RunResult& r = linked[0];
  std::error_code ec;
  if (!r.started || r.timed_out || r.exit_code != 0 || !fs::exists(built, ec)) {
    build_error_ = fmt::format(
        "the graded tests do not link with the submission (a function of the lab "
        "renamed, removed or defined twice?); the linker said:\n{}",
        shorten(last_lines(r.error + r.output, 40)));
    fail_all("not run: the submission did not link (see the top of the report)");
    progress("  " + build_error_);
    return false;
  }
  // The program the cases run is the grader's copy: a case cannot replace it for the next one.
  program_ = dirs_.bin / "tests";
  fs::copy_file(built, program_, fs::copy_options::overwrite_existing);
  chmod(program_.c_str(), 0755);
  // The lab's harness program with the same objects: what the failed cases' replay lines run.
  if (be_.main_objects.empty()) {
    harness_error_ = fmt::format(
        "the lab's manifest ({}) names no harness main: configure the build again "
        "(./synclab build)",
        shorten(manifest_.path));
    return true;
  }
  const RunResult& h = linked[1];
  if (!h.started || h.timed_out || h.exit_code != 0 || !fs::exists(built_harness, ec)) {
    harness_error_ = "the lab's harness program does not link with the submission; the linker said:\n" +
                     shorten(last_lines(h.error + h.output, 20));
    return true;
  }
  harness_ = dirs_.bin / manifest_.program;
  fs::copy_file(built_harness, harness_, fs::copy_options::overwrite_existing);
  chmod(harness_.c_str(), 0755);
  return true;
}

}  // namespace synclab::grade
