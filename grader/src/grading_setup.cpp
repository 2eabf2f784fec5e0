// One grading's set-up and its steps in order (grading.h): run, build_only, grade; the backend,
// the work and sandbox directories, the system-call filter, clean-up; the programs kept for replay.
#include "grading.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <thread>

namespace synclab::grade {

int Grading::run() {
  int status = 0;
  try {
    grade();
  } catch (const std::exception& e) {
    internal_error_ = e.what();
    status = 2;
  }
  try {
    write_results();
  } catch (const std::exception& e) {
    std::cerr << "synclab-grade: " << e.what() << "\n";
    status = 2;
  }
  print_table();
  cleanup();
  return status;
}

int Grading::build_only(const std::string& out) {
  try {
    if (opt_.submission.empty()) throw GradeError("no submission directory was given (--submission DIR)");
    if (out.empty()) throw GradeError("no directory to build in was given (--out DIR)");
    manifest_ = find_manifest(opt_.grade_dir, opt_.lab);
    backend_ = "sim";
    if (!manifest_.backends.count("sim"))
      throw GradeError(fmt::format("this build has no simulator programs for lab {}", manifest_.lab));
    be_ = manifest_.backends.at("sim");
    identity_ = sandbox_identity();
    const fs::path dir = fs::absolute(out);
    // (a second build of the same directory waits for the first, then finds it up to date)
    if (!keep_usable(dir) || !lock_keep(dir, /*wait=*/true)) throw GradeError(keep_note_);
    keep_dir_ = dir;
    hush_ = true;  // (nothing to say while an earlier build may still be up to date)
    make_dirs();
    check_sandbox_access();
    collect_submission();
    hush_ = false;
    const fs::path program = dir / manifest_.program;
    const std::string stamp = build_stamp();
    std::error_code ec;
    if (!(fs::exists(program, ec) && read_private(dir / "stamp", 4096) == stamp)) {
      progress(fmt::format("building lab {}'s harness program from {} as the grader does", manifest_.lab,
                           fs::weakly_canonical(opt_.submission, ec).string()));
      for (const auto& [f, from] : taken_) progress(fmt::format("  student file {} <- {}", f, from));
      for (const auto& f : missing_)
        progress(fmt::format("  student file {} is missing: the handed-out skeleton is built in its place", f));
      open_cache();
      const bool built = build_submission();
      if (!built) {
        std::cerr << build_error_ << "\n";
        cleanup();
        return 1;
      }
      if (harness_.empty()) throw GradeError(harness_error_);
      if (!keep_in(dir, true)) throw GradeError(keep_note_);
      std::ofstream(dir / "stamp") << stamp;
      progress("built: " + program.string());
    }
    cleanup();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "synclab-grade build: " << shorten(e.what()) << "\n";
    cleanup();
    return 2;
  }
}

std::string Grading::build_stamp() const {
  uint64_t h = 14695981039346656037ull;
  std::ifstream m(manifest_.path);
  fnv1a(h, std::string(std::istreambuf_iterator<char>(m), {}));
  for (const auto& f : manifest_.student_files) {
    fnv1a(h, f);
    fnv1a(h, std::count(missing_.begin(), missing_.end(), f) ? "skeleton" : "taken");
    fnv1a(h, read_private(dirs_.src / f, kMaxStudentFile));
  }
  std::vector<std::string> inputs = be_.main_objects;
  inputs.insert(inputs.end(), be_.harness_objects.begin(), be_.harness_objects.end());
  inputs.insert(inputs.end(), be_.test_objects.begin(), be_.test_objects.end());
  inputs.push_back("/proc/self/exe");
  for (const auto& p : inputs) {
    struct stat st {};
    fnv1a(h, p);
    if (stat(p.c_str(), &st) == 0) fnv1a(h, fmt::format("{} {}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
  }
  return fmt::format("{:016x}\n", h);
}

namespace {
// Progress lines of a thread that works beside the others (the find-the-bug program's), held
// back to be printed in their place.
thread_local std::vector<std::string>* held_progress = nullptr;
}  // namespace

void Grading::progress(const std::string& line) {
  if (opt_.quiet || hush_) return;
  if (held_progress)
    held_progress->push_back(line);
  else
    std::cout << line << std::endl;
}

std::string Grading::shorten(std::string s) const {
  if (!dirs_.src.empty()) s = replace_all(s, dirs_.src.string() + "/", "");
  if (!dirs_.root.empty()) s = replace_all(s, dirs_.root.string(), "<work>");
  if (!opt_.source_root.empty()) s = replace_all(s, opt_.source_root + "/", "");
  return s;
}

std::vector<std::string> Grading::base_env(const fs::path& home) const {
  std::vector<std::string> env = {"PATH=/usr/local/bin:/usr/bin:/bin",
                                  "HOME=" + home.string(),
                                  "TMPDIR=" + home.string(),
                                  "LANG=C.UTF-8",
                                  "SYNCLAB_NO_CCACHE=1",
                                  "CCACHE_DISABLE=1"};
  for (const char* pass : {"SYNCLAB_CUDA_HOME", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"})
    if (const char* v = std::getenv(pass)) env.push_back(std::string(pass) + "=" + v);
  if (!opt_.student.empty()) env.push_back("SYNCLAB_STUDENT=" + opt_.student);
  return env;
}

void Grading::grade() {
  if (opt_.submission.empty()) throw GradeError("no submission directory was given (--submission DIR)");
  manifest_ = find_manifest(opt_.grade_dir, opt_.lab);
  choose_backend();
  be_ = manifest_.backends.at(backend_);
  identity_ = sandbox_identity();
  progress(fmt::format("grading lab {} on the {} ({} backend){}", manifest_.lab,
                       backend_ == "sim" ? "simulator" : "GPU", backend_,
                       identity_.drop ? ", the submission runs as an unprivileged user (" + identity_.name + ")"
                                      : " (not root: the submission runs as you)"));
  if (!opt_.keep.empty() && keep_usable(fs::absolute(opt_.keep)) && lock_keep(fs::absolute(opt_.keep), false))
    keep_dir_ = fs::absolute(opt_.keep);
  make_dirs();
  check_sandbox_access();
  check_guard();
  collect_submission();
  list_cases();
  if (!build_hidden()) return;
  open_cache();
  // The find-the-bug program uses nothing of the student files: it builds and runs beside their
  // build and the cases (a re-grade's one compile leaves a core idle most of the time; nvcc runs
  // its phases one after another), and its lines and cases come after theirs, as alone.
  std::vector<std::string> findbug_lines;
  std::vector<TestResult> findbug_results;
  std::exception_ptr findbug_error;
  std::thread beside;
  if (findbug_beside())
    beside = std::thread([&] {
      held_progress = &findbug_lines;
      try {
        findbug_results = grade_findbug();
      } catch (...) {
        findbug_error = std::current_exception();
      }
      held_progress = nullptr;
    });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{beside};
  const bool built = build_submission();
  keep_programs(built);
  if (built) run_cases();
  if (beside.joinable()) {
    beside.join();
    for (const std::string& line : findbug_lines) progress(line);
    if (findbug_error) std::rethrow_exception(findbug_error);
  } else {
    findbug_results = grade_findbug();
  }
  results_.insert(results_.end(), findbug_results.begin(), findbug_results.end());
}

void Grading::choose_backend() {
  const bool has_gpu_build = manifest_.backends.count("gpu") > 0;
  if (opt_.backend == "sim" || opt_.backend == "gpu") {
    backend_ = opt_.backend;
  } else if (opt_.backend == "auto") {
    backend_ = (has_gpu_build && gpu_present()) ? "gpu" : "sim";
  } else {
    throw GradeError(fmt::format("unknown backend '{}': use sim, gpu or auto", opt_.backend));
  }
  if (!manifest_.backends.count(backend_))
    throw GradeError(
        fmt::format("this build has no {} programs for lab {} ({}); for the GPU build "
                    "configure with -DSYNCLAB_BUILD_GPU=ON (./synclab build --gpu)",
                    backend_, manifest_.lab, manifest_.path));
  if (backend_ == "gpu" && !gpu_present())
    throw GradeError("--backend gpu, but no CUDA device is present (/dev/nvidia0 is missing)");
  if (backend_ == "gpu") {
    std::string cuda = std::getenv("SYNCLAB_CUDA_HOME") ? std::getenv("SYNCLAB_CUDA_HOME") : "/usr/local/cuda";
    sanitizer_ = find_program("compute-sanitizer", {cuda + "/bin", cuda + "/compute-sanitizer"});
  }
}

void Grading::make_dirs() {
  if (!opt_.work.empty()) {
    dirs_.root = fs::absolute(opt_.work).lexically_normal();
    fs::create_directories(dirs_.root);
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/synclab-grade.XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw GradeError(fmt::format("cannot create a work directory {}: {}", templ, std::strerror(errno)));
    dirs_.root = fs::path(buf.data()).lexically_normal();  // (TMPDIR=/tmp/ gives /tmp//...)
    made_work_ = true;
  }
  chmod(dirs_.root.c_str(), 0711);
  dirs_.src = dirs_.root / "src";
  dirs_.build = dirs_.root / "build";
  dirs_.bin = dirs_.root / "bin";
  dirs_.run = dirs_.root / "run";
  dirs_.metrics = dirs_.root / "metrics";
  dirs_.hidden = dirs_.root / "hidden";
  for (const auto& d : {dirs_.src, dirs_.build, dirs_.bin, dirs_.run, dirs_.metrics, dirs_.hidden}) {
    fs::remove_all(d);
    fs::create_directories(d);
  }
  // With a directory to keep the programs in, the student files are compiled there (its src/):
  // the programs' line tables, and so the simulator's reports and the viewer's Source window,
  // then name files that stay when the work directory goes.
  if (!keep_dir_.empty()) {
    std::error_code ec;
    const fs::path kept_src = keep_dir_ / "src";
    fs::remove_all(kept_src, ec);
    fs::remove_all(keep_dir_ / "findbug", ec);  // (the last grading's find-the-bug program: grade_findbug)
    fs::create_directories(kept_src, ec);
    if (!ec) {
      dirs_.src = kept_src;
      src_kept_ = true;
    }
  }
  chmod(dirs_.src.c_str(), 0755);
  chmod(dirs_.bin.c_str(), 0755);
  chmod(dirs_.run.c_str(), 0711);
  chmod(dirs_.metrics.c_str(), 0700);
  own(dirs_.build, identity_, 0700);
}

bool Grading::readable_by_submission(const std::string& path) {
  RunSpec spec;
  spec.argv = {"/usr/bin/test", "-r", path};
  spec.env = base_env(dirs_.run);
  spec.cwd = dirs_.run.string();
  spec.timeout_s = 30;
  spec.identity = identity_;
  RunResult r = run_sandboxed(spec);
  return r.started && r.exit_code == 0;
}

void Grading::check_sandbox_access() {
  if (!identity_.drop) return;
  // The compiler runs as the sandbox user: a kept src/ under a private directory is out of its
  // reach, so the files are compiled in the work directory instead (the reports then name it).
  if (src_kept_ && !readable_by_submission(dirs_.src.string())) {
    dirs_.src = dirs_.root / "src";
    src_kept_ = false;
    chmod(dirs_.src.c_str(), 0755);
  }
  std::vector<std::string> paths = {be_.reference_tests, be_.linker[0]};
  paths.insert(paths.end(), be_.test_objects.begin(), be_.test_objects.end());
  for (const auto& p : paths) {
    if (readable_by_submission(p)) continue;
    sandbox_note_ = fmt::format(
        "Note: an unprivileged user cannot read {} (a directory above it is private), so the submission ran "
        "as root, not as an unprivileged user. For course grading, keep SyncLab where every user can read it.",
        shorten(p));
    progress("  " + sandbox_note_);
    identity_ = Identity{};
    own(dirs_.build, identity_, 0700);
    return;
  }
}

void Grading::check_guard() {
  std::error_code ec;
  std::string why;
  if (opt_.guard_library.empty() || !fs::exists(opt_.guard_library, ec)) {
    why = "libsynclab_guard.so was not built";
  } else {
    RunSpec spec;
    spec.argv = {fs::exists("/usr/bin/true") ? "/usr/bin/true" : "/bin/true"};
    spec.env = base_env(dirs_.run);
    spec.env.push_back("LD_PRELOAD=" + opt_.guard_library);
    spec.env.push_back("SYNCLAB_GUARD=selftest");
    spec.cwd = dirs_.run.string();
    spec.timeout_s = 30;
    spec.identity = identity_;
    RunResult r = run_sandboxed(spec);
    if (r.started && r.exit_code == 0) {
      guard_ = true;
      return;
    }
    why = r.started ? last_lines(r.output, 3) : r.error;
    if (why.empty()) why = fmt::format("its self-test exited with status {}", r.exit_code);
  }
  guard_note_ = fmt::format(
      "Note: the system-call filter is not available here ({}), so the test programs ran "
      "without it.",
      why);
  progress("  " + guard_note_);
}

void Grading::cleanup() {
  if (dirs_.root.empty() || opt_.keep_work) {
    if (!dirs_.root.empty() && opt_.keep_work) std::cout << "work directory kept: " << dirs_.root.string() << "\n";
    return;
  }
  std::error_code ec;
  if (made_work_) {
    fs::remove_all(dirs_.root, ec);
  } else {
    for (const auto& d : {dirs_.src, dirs_.build, dirs_.bin, dirs_.run, dirs_.metrics, dirs_.hidden})
      if (!(src_kept_ && d == dirs_.src)) fs::remove_all(d, ec);
  }
}

std::string Grading::run_line() const {
  std::string line = "./synclab run --lab " + manifest_.lab.substr(0, 2);
  std::error_code ec;
  const fs::path sub = fs::weakly_canonical(opt_.submission, ec);
  const fs::path lab = fs::weakly_canonical(manifest_.lab_dir, ec);
  if (!opt_.replay_submission.empty())
    line += " --submission " + shell_quote(opt_.replay_submission);
  else if (sub != lab)  // (the tree's own labs/NN-topic/ is run's default)
    line += " --submission " + shell_quote(sub.string());
  return line;
}

void Grading::keep_programs(bool built) {
  replay_program_ = run_line();
  std::string subject = "that directory's files";
  if (!opt_.replay_submission.empty())
    subject = opt_.replay_submission + " (your copy of the files)";
  else if (replay_program_.find(" --submission ") == std::string::npos)
    subject = "the files in labs/" + manifest_.lab + "/";
  replay_note_ = fmt::format(
      "Replay lines run {}: it builds the lab's harness program from {} as this grading built it, then runs it.",
      replay_program_, subject);
  if (!built) replay_note_.clear();
  if (!harness_error_.empty() && built) replay_note_ += "\nNote: " + harness_error_;
  if (!keep_dir_.empty()) keep_in(keep_dir_, built);
}

bool Grading::keep_usable(const fs::path& keep) {
  std::error_code ec;
  bool foreign = false;  // something in it that no grading put there
  if (fs::is_directory(keep, ec) && !fs::exists(keep / kKeptAbout, ec))
    for (const auto& e : fs::directory_iterator(keep, ec)) foreign |= e.path().filename() != kKeptLock;
  if (fs::exists(keep, ec) && (!fs::is_directory(keep, ec) || foreign)) {
    keep_note_ = fmt::format(
        "Note: nothing was kept: {} is not a directory of kept programs (it holds other files); name a new "
        "or empty directory with --keep",
        keep.string());
    progress("  " + keep_note_);
    return false;
  }
  return true;
}

bool Grading::lock_keep(const fs::path& keep, bool wait) {
  std::error_code ec;
  fs::create_directories(keep, ec);
  const fs::path lock = keep / kKeptLock;
  keep_lock_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (keep_lock_ >= 0 && flock(keep_lock_, wait ? LOCK_EX : LOCK_EX | LOCK_NB) == 0) return true;
  keep_note_ = fmt::format("Note: nothing was kept: {} {}", keep.string(),
                           keep_lock_ < 0 ? "cannot be written: " + std::string(std::strerror(errno))
                                          : "is in use by another grading; name another directory with --keep");
  progress("  " + keep_note_);
  if (keep_lock_ >= 0) ::close(keep_lock_);
  keep_lock_ = -1;
  return false;
}

bool Grading::keep_in(const fs::path& keep, bool built) {
  std::error_code ec;
  const std::string prog = manifest_.program;
  for (const std::string& name : {prog, prog + "_tests", std::string("stamp"), std::string(kKeptAbout)})
    fs::remove_all(keep / name, ec);
  if (!src_kept_) fs::remove_all(keep / "src", ec);
  fs::create_directories(keep, ec);
  if (ec) {
    keep_note_ = fmt::format("Note: nothing was kept: cannot create {}: {}", keep.string(), ec.message());
    progress("  " + keep_note_);
    return false;
  }
  std::string about = fmt::format("Lab {}: the student files graded from {} are in src/.\n", manifest_.lab,
                                  fs::weakly_canonical(opt_.submission, ec).string());
  if (built) {
    if (!src_kept_) {
      fs::create_directories(keep / "src", ec);
      for (const auto& f : manifest_.student_files)
        fs::copy_file(dirs_.src / f, keep / "src" / f, fs::copy_options::overwrite_existing, ec);
    }
    fs::copy_file(program_, keep / (prog + "_tests"), fs::copy_options::overwrite_existing, ec);
    about += fmt::format(
        "Programs built from them:\n  {}_tests  the graded test program; one case with its messages:\n"
        "              {} \"CASE NAME\"\n",
        prog, (keep / (prog + "_tests")).string());
    if (!harness_.empty()) fs::copy_file(harness_, keep / prog, fs::copy_options::overwrite_existing, ec);
    if (ec) {  // (keeping is a convenience: it never changes the grade)
      keep_note_ =
          fmt::format("Note: nothing was kept: cannot write the programs into {}: {}", keep.string(), ec.message());
      progress("  " + keep_note_);
      std::ofstream(keep / kKeptAbout) << about << "Keeping the programs failed: " << ec.message() << "\n";
      return false;
    }
    if (!harness_.empty()) {
      about += fmt::format(
          "  {}        the lab's harness program (its tasks as sub-commands:\n"
          "              {} help); replay lines run it\n",
          prog, (keep / prog).string());
      // On the GPU the kept harness runs on the GPU; replay lines explore on the simulator.
      if (backend_ == "sim") {
        replay_program_ = shell_quote((keep / prog).string());
        replay_note_ = fmt::format(
            "Replay lines run {}: the lab's harness program built from these files, kept with the graded test "
            "program ({}_tests) in {}.",
            replay_program_, prog, keep.string());
      }
    } else {
      about += "  (no harness program: " + harness_error_ + ")\n";
    }
  } else {
    about += "They did not build (the grading's output says why): no programs were kept.\n";
  }
  std::ofstream(keep / kKeptAbout) << about;
  kept_ = keep.string();
  return true;
}

}  // namespace synclab::grade
