// synclab-grade's work (grader.h): one grading of a submission (class Grading) and the tool's other commands.
//
// Where things are (the sections below, in this order):
//   Helpers             limits (kSpeedSlack, kMaxStudentFile, ...); small functions on files, text and
//                       programs (read_private, parse_time, disassemble_and_check, last_lines, shell_quote,
//                       fnv1a, find_program); GradeError, TestResult, Dirs
//   Grading             class Grading: run (grade, then write_results and print_table) and build_only, the
//                       build command (build_stamp: whether a kept build is up to date)
//   Setting up          progress, shorten, base_env; grade, the steps in order; choose_backend, make_dirs,
//                       what the sandbox user may read (check_sandbox_access), the system-call filter
//                       (check_guard); cleanup
//   Kept programs       what replay lines run and where the programs are kept (run_line, keep_programs,
//                       keep_usable, lock_keep, keep_in)
//   The submission      collect_submission: the student files taken, missing and ignored
//   Graded cases        the cases and their tags, from the reference program (list_names, tags_of,
//                       list_cases, finish_case_list)
//   Hidden tests        build_hidden; compiling and linking (without_ccache, resolve, link, link_spec)
//   Building            the object cache (open_cache, cache_key, take_cached, store_cached);
//                       build_submission and what a student file may include, contain and call
//                       (check_includes, check_host_code, check_object)
//   Running the cases   one case's run (CaseSetup, prepare_case, run_case, finish_case); first_runs,
//                       run_cases; its verdict (failure_text, case_passed, sanitize, score_speed)
//   Find the bug        grade_findbug: the line (findbug.txt) and the fix (findbug_fix)
//   Results             total, summary, write_results, print_table; the members
//   Commands            run_grading, build_command, normalize_results, reference_times_command,
//                       check_objects_command
#include "grader.h"

#include "findbug.h"

#include <fcntl.h>
#include <signal.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "catch_report.h"
#include "manifest.h"
#include "object_cache.h"
#include "host_source_check.h"
#include "object_check.h"
#include "sandbox.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace synclab::grade {

namespace {

constexpr double kSpeedSlack = 1.2;             // full marks within 1.2x of the reference's time
constexpr uintmax_t kMaxStudentFile = 1 << 20;  // bytes
constexpr size_t kMaxListedIgnored = 50;
constexpr size_t kMaxReport = 16 << 20;  // a case's XML report, bytes
// In a student release's lab directory: "case name<TAB>simulated ms" of the reference solution's
// speed cases (written by `synclab-grade reference-times` when the release is made).
constexpr const char* kReferenceTimes = "reference-times.tsv";

std::map<std::string, double> read_reference_times(const fs::path& file) {
  std::map<std::string, double> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.rfind('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    try {
      const double ms = std::stod(line.substr(tab + 1));
      if (std::isfinite(ms) && ms > 0) out[line.substr(0, tab)] = ms;
    } catch (...) {
    }
  }
  return out;
}

struct GradeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TestResult {
  std::string name;
  double max_score = 0;
  double score = 0;
  bool passed = false;
  std::string output;
  std::vector<std::string> tags;
  std::string visibility = "visible";
  bool speed = false;
  double seconds = 0;
};

// A file the sandboxed program could have replaced: never through a symbolic link, and at most
// `cap` bytes (more than that is treated as no file).
std::string read_private(const fs::path& p, size_t cap) {
  int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  struct stat st {};
  std::string s;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uintmax_t(st.st_size) <= cap) {
    s.resize(size_t(st.st_size));
    size_t got = 0;
    while (got < s.size()) {
      ssize_t n = ::read(fd, s.data() + got, s.size() - got);
      if (n <= 0) break;
      got += size_t(n);
    }
    s.resize(got);
  }
  ::close(fd);
  return s;
}

std::string last_lines(const std::string& text, size_t n);

// A case's one time record ("time_ms T" on a line of its own, written once by
// synclab::graded::record_time_ms after the case checked its result). Anything else in the
// channel (a second record, other text) makes the time invalid.
bool parse_time(const std::string& metrics, double* ms) {
  static const std::regex re("time_ms ([-+0-9.eE]+)\n");
  std::smatch m;
  if (!std::regex_match(metrics, m, re)) return false;
  try {
    *ms = std::stod(m[1].str());
  } catch (...) {
    return false;
  }
  return std::isfinite(*ms) && *ms > 0;
}

// The lines of a listing that are not blank, without trailing white space.
std::vector<std::string> non_empty_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && std::isspace((unsigned char)line.back())) line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// Disassembles a compiled student file with objdump, run as `base` says (its user, environment,
// directory), and checks it against the rules of object_check.h.
ObjectCheck disassemble_and_check(const std::string& objdump, const std::string& obj, RunSpec base) {
  base.argv = {objdump, "-d", "-w", "--no-show-raw-insn", obj};
  base.timeout_s = 60;
  RunResult d = run_sandboxed(base);
  if (!d.started || d.timed_out || d.exit_code != 0) {
    ObjectCheck c;
    c.error = "objdump could not read it: " + last_lines(d.error + d.output, 10);
    return c;
  }
  return check_student_object(obj, d.output);
}

std::string last_lines(const std::string& text, size_t n) {
  size_t count = 0, pos = text.size();
  while (pos > 0) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    if (nl + 1 < text.size() && ++count > n) {
      pos = nl + 1;
      break;
    }
    pos = nl;
  }
  std::string out = text.substr(pos);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

// `word` as one word of a shell command line: as it is when nothing in it is special to the shell,
// else in single quotes.
std::string shell_quote(const std::string& word) {
  static const std::regex plain("[A-Za-z0-9_./:=@%+,-]+");
  if (!word.empty() && std::regex_match(word, plain)) return word;
  return "'" + replace_all(word, "'", "'\\''") + "'";
}

// FNV-1a, 64 bits: what a kept build was made from (build_command's up-to-date check).
void fnv1a(uint64_t& h, const std::string& bytes) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;  // (a separator: "ab","c" and "a","bc" differ)
}

// The file that marks a directory as one that grading keeps programs in (and may empty again),
// and the lock a grading holds on it while it writes there.
constexpr const char* kKeptAbout = "about.txt";
constexpr const char* kKeptLock = ".lock";

std::string points(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return fmt::format("{}", (long long)std::llround(v));
  return fmt::format("{:.2f}", v);
}

void own(const fs::path& p, const Identity& id, mode_t mode) {
  if (id.drop && chown(p.c_str(), id.uid, id.gid) != 0)
    throw GradeError(fmt::format("cannot hand {} to the sandbox user: {}", p.string(), std::strerror(errno)));
  chmod(p.c_str(), mode);
}

bool gpu_present() {
  std::error_code ec;
  if (fs::exists("/dev/nvidia0", ec)) return true;
  if (fs::is_directory("/proc/driver/nvidia/gpus", ec) && !fs::is_empty("/proc/driver/nvidia/gpus", ec)) return true;
  return false;
}

std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs = {}) {
  std::vector<std::string> dirs = extra_dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t colon = p.find(':', start);
      dirs.push_back(p.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  for (const auto& d : dirs) {
    if (d.empty()) continue;
    fs::path c = fs::path(d) / name;
    if (access(c.c_str(), X_OK) == 0) return c.string();
  }
  return {};
}

struct Dirs {
  fs::path root, src, build, bin, run, metrics, hidden;
};

class Grading {
 public:
  explicit Grading(const Options& opt) : opt_(opt), t0_(std::chrono::steady_clock::now()) {}
  ~Grading() {
    if (keep_lock_ >= 0) ::close(keep_lock_);
  }
  Grading(const Grading&) = delete;
  Grading& operator=(const Grading&) = delete;

  int run() {
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

  // build_command: the submission's programs in `out`, built as grading builds them.
  int build_only(const std::string& out) {
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

 private:
  // What a build in build_only() was made from: the lab's manifest, the student files as taken,
  // and the times of the objects they are linked with and of this grader.
  std::string build_stamp() const {
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
      if (stat(p.c_str(), &st) == 0)
        fnv1a(h, fmt::format("{} {}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
    }
    return fmt::format("{:016x}\n", h);
  }

  // ---------------------------------------------------------------------------------------------
  void progress(const std::string& line) {
    if (!opt_.quiet && !hush_) std::cout << line << std::endl;
  }

  std::string shorten(std::string s) const {
    if (!dirs_.src.empty()) s = replace_all(s, dirs_.src.string() + "/", "");
    if (!dirs_.root.empty()) s = replace_all(s, dirs_.root.string(), "<work>");
    if (!opt_.source_root.empty()) s = replace_all(s, opt_.source_root + "/", "");
    return s;
  }

  std::vector<std::string> base_env(const fs::path& home) const {
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

  // ---------------------------------------------------------------------------------------------
  void grade() {
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
    const bool built = build_submission();
    keep_programs(built);
    if (built) run_cases();
    grade_findbug();
  }

  void choose_backend() {
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

  void make_dirs() {
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

  // The sandbox user must read the lab's build (objects, compiler, libraries). Under a private
  // directory (a home directory of mode 700) it cannot: then the submission runs as the invoking
  // user, and the output says so.
  // Whether the submission's user can read `path`.
  bool readable_by_submission(const std::string& path) {
    RunSpec spec;
    spec.argv = {"/usr/bin/test", "-r", path};
    spec.env = base_env(dirs_.run);
    spec.cwd = dirs_.run.string();
    spec.timeout_s = 30;
    spec.identity = identity_;
    RunResult r = run_sandboxed(spec);
    return r.started && r.exit_code == 0;
  }

  void check_sandbox_access() {
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

  // The system-call filter (libsynclab_guard.so, preloaded into the test programs): does it work
  // here? Its self-test installs it in a trivial program and checks that fork() is refused.
  void check_guard() {
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

  void cleanup() {
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

  // ---- the submission's programs, kept; what replay lines run ------------------------------------
  // The ./synclab run line that builds this submission's harness program as this grading did and
  // runs it (with a task's arguments after it).
  std::string run_line() const {
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

  // Keeps the programs built from the submission in opt_.keep (when given) and decides what the
  // failed cases' replay lines run: the kept harness program, else the ./synclab run line. An
  // earlier grading's programs there go first, also when this submission built none.
  void keep_programs(bool built) {
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

  // Whether `keep` may take the programs: a new or empty directory, or one that programs were kept
  // in before (its about.txt); else keep_note_ says why not.
  bool keep_usable(const fs::path& keep) {
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

  // Takes the lock of `keep` for as long as this grading lives, so that two gradings (or builds)
  // never write their programs into one directory at once: `wait` for the other one, or keep
  // nothing (keep_note_ says so).
  bool lock_keep(const fs::path& keep, bool wait) {
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

  // Keeps the programs in `keep` (see keep_programs); false, with keep_note_ saying why, when it
  // keeps nothing. The student files are in its src/ already when they were compiled there.
  bool keep_in(const fs::path& keep, bool built) {
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

  // ---- the submission ---------------------------------------------------------------------------
  void collect_submission() {
    fs::path sub = opt_.submission;
    std::error_code ec;
    if (!fs::is_directory(sub, ec))
      throw GradeError(fmt::format("the submission directory {} does not exist or is not a directory", sub.string()));
    sub = fs::canonical(sub);
    // Every regular file of the submission (symbolic links are never followed).
    std::vector<fs::path> all;
    fs::recursive_directory_iterator it(sub, fs::directory_options::skip_permission_denied, ec), end;
    size_t seen = 0;
    for (; it != end && !ec; it.increment(ec)) {
      if (++seen > 20000) break;
      const auto& e = *it;
      if (e.is_directory() && (e.path().filename() == ".git" || e.path().filename() == "node_modules")) {
        it.disable_recursion_pending();
        continue;
      }
      if (e.is_symlink() || !e.is_regular_file()) {
        if (!e.is_directory() || e.is_symlink())
          skipped_[e.path().filename().string()] =
              fmt::format("{} in the submission is {}", e.path().lexically_relative(sub).string(),
                          e.is_symlink() ? "a symbolic link, which is never followed" : "not a regular file");
        continue;
      }
      all.push_back(e.path().lexically_relative(sub));
    }
    std::sort(all.begin(), all.end(), [](const fs::path& a, const fs::path& b) {
      auto da = std::distance(a.begin(), a.end()), db = std::distance(b.begin(), b.end());
      return da != db ? da < db : a < b;
    });
    std::set<fs::path> used;
    // Where the file f is in the submission: itself, in labs/<lab>/ or <lab>/, else the shallowest.
    auto locate = [&](const std::string& f) {
      for (const fs::path& c : {fs::path(f), fs::path("labs") / manifest_.lab / f, fs::path(manifest_.lab) / f})
        if (std::find(all.begin(), all.end(), c) != all.end()) return c;
      for (const auto& p : all)
        if (p.filename() == f) return p;
      return fs::path();
    };
    // The find-the-bug answer (findbug.txt) and fix (findbug.cu), when the lab has the task.
    if (!findbug::find_pool(manifest_.lab_dir).empty()) {
      fs::create_directories(dirs_.src / "findbug");
      for (const char* f : {"findbug.txt", "findbug.cu"}) {
        const fs::path chosen = locate(f);
        if (chosen.empty()) continue;
        struct stat st {};
        const fs::path from = sub / chosen;
        if (lstat(from.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || uintmax_t(st.st_size) > kMaxStudentFile) continue;
        fs::copy_file(from, dirs_.src / "findbug" / f, fs::copy_options::overwrite_existing);
        chmod((dirs_.src / "findbug" / f).c_str(), 0644);
        used.insert(chosen);
        findbug_taken_.push_back({f, chosen.string()});
      }
    }
    for (const auto& f : manifest_.student_files) {
      fs::path chosen = locate(f);
      fs::path dest = dirs_.src / f;
      if (chosen.empty()) {
        fs::copy_file(fs::path(manifest_.lab_dir) / f, dest, fs::copy_options::overwrite_existing);
        missing_.push_back(f);
      } else {
        fs::path from = sub / chosen;
        struct stat st {};
        if (lstat(from.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
          throw GradeError(fmt::format("{} in the submission is not a regular file", chosen.string()));
        if (uintmax_t(st.st_size) > kMaxStudentFile)
          throw GradeError(fmt::format("{} in the submission is {} bytes; a student file may have at most {}",
                                       chosen.string(), st.st_size, kMaxStudentFile));
        fs::copy_file(from, dest, fs::copy_options::overwrite_existing);
        used.insert(chosen);
        taken_.push_back({f, chosen.string()});
      }
      chmod(dest.c_str(), 0644);
    }
    for (const auto& p : all)
      if (!used.count(p)) ignored_.push_back(p.string());
    for (const auto& [f, from] : taken_) progress(fmt::format("  student file {} <- {}", f, from));
    for (const auto& f : missing_)
      progress(fmt::format("  student file {} is missing{}: the handed-out skeleton is graded in its place", f,
                           skipped_.count(f) ? " (" + skipped_.at(f) + ")" : ""));
    if (!ignored_.empty())
      progress(fmt::format("  {} other file(s) ignored (not student files of this lab)", ignored_.size()));
  }

  // ---- the graded cases, from the trusted reference program ------------------------------------
  std::vector<std::string> list_names(const std::string& program) {
    auto listing = [&](std::vector<std::string> args) {
      RunSpec spec;
      spec.argv = {program};
      spec.argv.insert(spec.argv.end(), args.begin(), args.end());
      spec.env = base_env(dirs_.run);
      spec.cwd = dirs_.run.string();
      spec.timeout_s = 60;
      RunResult r = run_sandboxed(spec);
      if (!r.started) throw GradeError(fmt::format("cannot run {}: {}", program, r.error));
      return r.output;
    };
    std::string names = listing({"--list-test-names-only"});
    std::regex bad("unrecognised|unknown|error", std::regex::icase);
    if (names.empty() || std::regex_search(names, bad)) names = listing({"--list-tests", "--verbosity", "quiet"});
    std::vector<std::string> out = non_empty_lines(names);
    if (out.empty()) throw GradeError(fmt::format("{} lists no test cases", program));
    return out;
  }

  std::vector<std::string> tags_of(const std::string& program, const std::string& name) {
    RunSpec spec;
    spec.argv = {program, "--list-tests", catch_test_spec(name)};
    spec.env = base_env(dirs_.run);
    spec.cwd = dirs_.run.string();
    spec.timeout_s = 60;
    RunResult r = run_sandboxed(spec);
    std::vector<std::string> tags;
    std::istringstream in(r.output);
    std::string line;
    std::regex tag("\\[([^\\]]+)\\]");
    while (std::getline(in, line)) {
      size_t a = line.find_first_not_of(' ');
      if (a == std::string::npos || line[a] != '[') continue;
      for (std::sregex_iterator m(line.begin(), line.end(), tag), e; m != e; ++m) tags.push_back((*m)[1].str());
    }
    return tags;
  }

  void list_cases() {
    public_names_ = list_names(be_.reference_tests);
    if (!opt_.hidden.empty() && !manifest_.has_reference)
      throw GradeError("hidden tests need the reference solutions, and this copy of the lab has none");
    // With hidden tests the reference program is linked later; the public cases are known now.
    for (const auto& n : public_names_) {
      TestResult t;
      t.name = n;
      t.tags = tags_of(be_.reference_tests, n);
      results_.push_back(t);
    }
  }

  void finish_case_list() {
    for (auto& t : results_) {
      bool found = false;
      for (const auto& tag : t.tags) {
        std::smatch m;
        if (std::regex_match(tag, m, std::regex("pts:([0-9]+(\\.[0-9]+)?)"))) {
          t.max_score = std::stod(m[1].str());
          found = true;
        } else if (tag == "speed") {
          t.speed = true;
        } else if (tag.rfind("visibility:", 0) == 0) {
          t.visibility = tag.substr(11);
          static const std::set<std::string> ok = {"visible", "hidden", "after_due_date", "after_published"};
          if (!ok.count(t.visibility))
            throw GradeError(
                fmt::format("test case '{}' has the tag [{}]; the visibility must be one of visible, "
                            "hidden, after_due_date, after_published",
                            t.name, tag));
        }
      }
      if (!found)
        throw GradeError(
            fmt::format("test case '{}' has no [pts:N] tag: every graded case must say what it is worth", t.name));
    }
  }

  // ---- hidden tests (the instructor's; trusted) ------------------------------------------------
  bool build_hidden() {
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
        throw GradeError(fmt::format("the hidden test file {} does not compile:\n{}", f.string(),
                                     last_lines(r.error + r.output, 40)));
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
    for (const auto& n : list_names(reference_)) {
      if (known.count(n)) continue;
      TestResult t;
      t.name = n;
      t.tags = tags_of(reference_, n);
      t.visibility = "after_published";
      results_.push_back(t);
    }
    finish_case_list();
    return true;
  }

  // A compiler command without its ccache launcher: the grader compiles without a cache (the
  // sandbox user must not share one), and a machine may have the compiler but not ccache.
  static std::vector<std::string> without_ccache(std::vector<std::string> cmd) {
    if (cmd.size() > 1 && fs::path(cmd[0]).filename() == "ccache") cmd.erase(cmd.begin());
    return cmd;
  }

  std::string resolve(const std::string& cmd) const {
    if (cmd.find('/') != std::string::npos) return cmd;
    std::string p = find_program(cmd);
    return p.empty() ? cmd : p;
  }

  // Links the graded test program (the graded tests, any hidden ones, the harness and the student
  // objects) or, with `harness_program`, the lab's harness program (its main, the harness and the
  // student objects: what build/bin/sim/labNN is made of).
  RunResult link(const fs::path& out, const std::vector<std::string>& student_objs, bool sandboxed,
                 bool harness_program = false) {
    return run_sandboxed(link_spec(out, student_objs, sandboxed, harness_program));
  }

  RunSpec link_spec(const fs::path& out, const std::vector<std::string>& student_objs, bool sandboxed,
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

  // ---- building the submission ------------------------------------------------------------------
  void fail_all(const std::string& why) {
    for (auto& t : results_) {
      t.passed = false;
      t.score = 0;
      t.output = why;
    }
  }

  // How many programs of the submission run at once: --parallel, else the machine's cores (at
  // most 4).
  unsigned at_once() const {
    if (opt_.parallel) return opt_.parallel;
    return std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  }

  // The object cache (object_cache.h), when the submission cannot reach it: it runs as a user of
  // this grading's own (as root), or as the invoking user who owns the cache anyway (not root).
  // Not when it runs as a shared user (`nobody`) or, as a fallback, as root.
  void open_cache() {
    if (opt_.object_cache == "off") return;
    const fs::path dir = opt_.object_cache.empty() ? fs::path(opt_.grade_dir).parent_path() / "grade-cache"
                                                   : fs::path(opt_.object_cache);
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

  // The cache's key of compiling `file` of `folder` with `argv`: besides the command and the file's
  // text, the grader's rules and the folder, which the object names.
  std::string cache_key(const std::vector<std::string>& argv, const fs::path& folder, const std::string& file) {
    return cache_.key(argv, cache_work(), read_private(folder / file, kMaxStudentFile),
                      cache_context_ + "\n" + folder.string());
  }

  // Takes `key`'s object from the cache into `obj` (a fresh file: whatever the sandbox user left
  // at that path is removed first, never written through), and says so for `file`.
  bool take_cached(const std::string& key, const fs::path& obj, const std::string& file) {
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

  // Keeps `file`'s object, compiled and checked, in the cache under `key`.
  void store_cached(const std::string& key, const fs::path& obj, const fs::path& deps, const std::string& file) {
    const std::string why = cache_.store(key, obj, deps, cache_work());
    if (!why.empty()) progress(fmt::format("  (the object cache did not keep {}: {})", file, why));
  }

  bool build_submission() {
    open_cache();
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
      progress(i == 0 ? std::string("  linking the graded tests")
                      : "  linking the harness program " + manifest_.program);
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

  // What the student file included (the compiler's dependency list): the other student files, the
  // lab's own headers (its include directories), the CUDA toolkit's and the system's, and nothing
  // else; in particular no file of the reference solutions or of the tests.
  std::vector<std::string> check_includes(const fs::path& deps) {
    std::string text = read_private(deps, 4 << 20);
    if (text.empty()) throw GradeError(fmt::format("the compiler wrote no dependency list ({})", deps.string()));
    std::vector<fs::path> roots = {dirs_.src, "/usr/include", "/usr/lib/gcc", "/usr/local/include"};
    const char* cuda = std::getenv("SYNCLAB_CUDA_HOME");
    roots.push_back(cuda && *cuda ? cuda : "/usr/local/cuda");
    // The simulator's compiler driver puts its own toolkit headers first (synclab-nvcc-include,
    // beside it: its <cuda/atomic>).
    const std::vector<std::string> driver = without_ccache(be_.compiler);
    if (!driver.empty()) roots.push_back(fs::path(driver.front()).parent_path() / "synclab-nvcc-include");
    for (size_t i = 0; i < be_.cu_flags.size(); ++i) {
      const std::string& a = be_.cu_flags[i];
      if (a == "-I" && i + 1 < be_.cu_flags.size())
        roots.push_back(be_.cu_flags[i + 1]);
      else if (a.rfind("-I", 0) == 0 && a.size() > 2)
        roots.push_back(a.substr(2));
    }
    std::error_code ec;
    for (auto& r : roots) {
      fs::path c = fs::weakly_canonical(r, ec);
      if (!ec) r = c;
    }
    // Make syntax: "target: dep dep \" continued; spaces in names escaped with a backslash.
    std::vector<std::string> words;
    std::string w;
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
        ++i;
        c = ' ';
      } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
        w += ' ';
        ++i;
        continue;
      }
      if (std::isspace((unsigned char)c)) {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else {
        w += c;
      }
    }
    if (!w.empty()) words.push_back(w);
    std::vector<std::string> outside;
    bool after_colon = false;
    for (const auto& word : words) {
      if (!after_colon) {
        if (!word.empty() && word.back() == ':')
          after_colon = true;
        else if (word == ":")
          after_colon = true;
        continue;
      }
      fs::path d = word;
      if (d.is_relative()) d = dirs_.build / d;
      fs::path c = fs::weakly_canonical(d, ec);
      if (ec) c = d.lexically_normal();
      bool ok = false;
      for (const auto& r : roots) {
        auto rel = c.lexically_relative(r);
        if (!rel.empty() && *rel.begin() != "..") ok = true;
      }
      if (!ok) outside.push_back("includes " + shorten(c.string()) + ", which is not part of the lab as handed out");
    }
    return outside;
  }

  // The host half of the student file as nvcc's front end left it (host_source_check.h).
  std::vector<std::string> check_host_code(const std::string& file, const fs::path& keep) {
    // FILE.cudafe1.cpp, or FILE.compute_NN.cudafe1.cpp when several architectures are built.
    std::error_code ec;
    std::string text;
    for (const auto& e : fs::directory_iterator(keep, ec)) {
      const std::string n = e.path().filename().string();
      if (n.size() > 12 && n.compare(n.size() - 12, 12, ".cudafe1.cpp") == 0) text += read_private(e.path(), 256 << 20);
    }
    if (text.empty())
      throw GradeError(
          fmt::format("the compiler left no host code of {} to check (no *.cudafe1.cpp in {})", file, keep.string()));
    const fs::path src = fs::weakly_canonical(dirs_.src, ec);
    auto is_student = [&](const std::string& name) {
      fs::path p = name;
      if (p.is_relative()) p = dirs_.build / p;
      fs::path c = fs::weakly_canonical(p, ec);
      if (ec) c = p.lexically_normal();
      auto rel = c.lexically_relative(src);
      return !rel.empty() && *rel.begin() != "..";
    };
    std::vector<std::string> problems = check_host_source(text, is_student);
    fs::remove_all(keep, ec);  // (large; only the object is needed from here on)
    return problems;
  }

  // The compiled student file against the rules of object_check.h.
  std::vector<std::string> check_object(const std::string& file, const fs::path& obj) {
    std::string objdump = find_program("objdump");
    if (objdump.empty())
      throw GradeError(
          "objdump (Debian package binutils, installed with g++) is missing: the grader needs it to "
          "check what a student file calls");
    RunSpec spec;
    spec.env = base_env(dirs_.build);
    spec.cwd = dirs_.build.string();
    spec.identity = identity_;
    ObjectCheck c = disassemble_and_check(objdump, obj.string(), spec);
    if (!c.error.empty()) throw GradeError(fmt::format("cannot check the compiled {}: {}", file, c.error));
    return c.problems;
  }

  // ---- running the cases ------------------------------------------------------------------------
  struct CaseRun {
    RunResult run;
    CaseReport report;
    std::string metrics;
  };

  // A case's run, set up (its directory, report and metrics file) and not yet started.
  struct CaseSetup {
    RunSpec spec;
    fs::path dir, report, metrics;
    int mfd = -1;
    std::string name;
  };

  CaseRun run_case(const std::string& program, const std::string& name, int index, bool sandboxed,
                   const std::vector<std::string>& wrapper = {}, double timeout_scale = 1) {
    CaseSetup setup = prepare_case(program, name, index, sandboxed, wrapper, timeout_scale);
    RunResult r = run_sandboxed(setup.spec);
    return finish_case(setup, std::move(r));
  }

  CaseRun finish_case(CaseSetup& setup, RunResult r) {
    CaseRun c;
    c.run = std::move(r);
    ::close(setup.mfd);
    setup.mfd = -1;
    c.report = read_case_report(read_private(setup.report, kMaxReport), setup.name);
    c.metrics = read_private(setup.metrics, 4096);
    return c;
  }

  CaseSetup prepare_case(const std::string& program, const std::string& name, int index, bool sandboxed,
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

  std::string failure_text(const CaseRun& c) const {
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

  static bool case_passed(const CaseRun& c) {
    return c.run.started && !c.run.timed_out && c.run.signal == 0 && c.run.exit_code == 0 && c.report.parsed &&
           c.report.test_cases == 1 && c.report.name_matches && c.report.success;
  }

  // Each case's first run. On the simulator the cases run side by side (at_once); on a GPU one at
  // a time (they would share the device, and its timing). Cases running at once run as users of
  // their own (when the grader runs as root): none can reach another's files or processes. A case
  // that ran out of time beside others runs again alone: only a case too slow by itself times out.
  std::vector<CaseRun> first_runs() {
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

  void run_cases() {
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

  void sanitize(TestResult& t, int index) {
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

  void score_speed(TestResult& t, const CaseRun& c, int index) {
    double mine = 0, ref = 0;
    const char* unit = backend_ == "sim" ? "ms of simulated time" : "ms";
    if (!parse_time(c.metrics, &mine)) {
      t.passed = false;
      t.score = 0;
      t.output = c.metrics.empty()
                     ? "graded on speed, but the case recorded no time (synclab::graded::record_time_ms)"
                     : "graded on speed, but the case's time record is not the one record the test writes "
                       "(something else wrote to it): no time, no points";
      return;
    }
    std::string where = "measured in this run";
    if (!manifest_.has_reference) {
      // A student release: the reference's simulated time, recorded when the release was made
      // (the simulator's time is the same on every machine), else no speed score here.
      const std::map<std::string, double> recorded =
          read_reference_times(fs::path(manifest_.lab_dir) / kReferenceTimes);
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

  // ---- find the bug (findbug.h, docs/findbug.md) -------------------------------------------------
  // Two cases: the line of the bug (findbug.txt, against the reference answers: not in a student
  // release) and the fix (findbug.cu: the student's program with a small change above its checks,
  // built with synclab-nvcc and run under findbug::exploration(); every run must end with status 0
  // and no report).
  void grade_findbug() {
    const findbug::Pool pool = findbug::find_pool(manifest_.lab_dir);
    if (pool.empty()) return;
    const std::string name = findbug::draw(pool, manifest_.lab, opt_.student);
    const std::string nn = manifest_.lab.substr(0, 2);
    const std::string handed = fmt::format("labs/{}/findbug/{}.cu", manifest_.lab, name);
    const std::string get = fmt::format("`./synclab findbug {}`{} gives it to you", nn,
                                        opt_.student.empty() ? "" : " (with SYNCLAB_STUDENT=" + opt_.student + ")");
    progress(fmt::format("  find the bug: the program is {}{}", handed,
                         opt_.student.empty() ? " (no student id)" : " (drawn for student id '" + opt_.student + "')"));
    std::ifstream in(pool.path(name));
    const std::string original{std::istreambuf_iterator<char>(in), {}};
    const fs::path given = dirs_.src / "findbug";
    std::error_code ec;

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
      results_.push_back(t);
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
    results_.push_back(t);
  }

  // The fix case's verdict: "passed: ..." or why not.
  std::string findbug_fix(const std::string& name, const std::string& handed, const std::string& get,
                          const std::string& original, const fs::path& given) {
    std::error_code ec;
    const std::string nn = manifest_.lab.substr(0, 2);
    if (!fs::exists(given / "findbug.cu", ec))
      return fmt::format("findbug.cu is not in the submission: it is your program, {}, with the bug fixed; {}", handed,
                         get);
    const findbug::FixCheck f = findbug::check_fix(original, read_private(given / "findbug.cu", kMaxStudentFile));
    if (!f.problems.empty()) {
      std::string out = fmt::format("findbug.cu is not {} with a small fix, so it was not run:\n", handed);
      for (const auto& p : f.problems) out += "  - " + p + "\n";
      return out + fmt::format("(`diff {} labs/{}/findbug.cu` shows what you changed; {})", handed, manifest_.lab, get);
    }
    const fs::path bin = fs::path(opt_.grade_dir).parent_path() / "bin";
    const fs::path dir = dirs_.run / "findbug";
    fs::create_directories(dir);
    own(dir, identity_, 0700);
    fs::copy_file(given / "findbug.cu", dir / "findbug.cu", fs::copy_options::overwrite_existing);
    own(dir / "findbug.cu", identity_, 0600);
    // Compiled (or taken from the object cache), then linked: two synclab-nvcc calls.
    const fs::path obj = dir / "findbug.o", deps = dir / "findbug.d";
    RunSpec cc;
    cc.argv = {(bin / "synclab-nvcc").string(), "-std=c++17", "-MD",       "-MF", deps.string(), "-c",
               (dir / "findbug.cu").string(),   "-o",         obj.string()};
    cc.env = base_env(dir);
    cc.cwd = dir.string();
    cc.timeout_s = opt_.compile_timeout_s;
    cc.identity = identity_;
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
      spec.identity = identity_;
      spec.processes = 512;
      specs.push_back(std::move(spec));
    }
    progress(fmt::format("  running findbug.cu {} times (its and lockstep x sc and relaxed x pct and random seeds 1-4)",
                         runs.size()));
    const std::vector<RunResult> ran = run_sandboxed_together(specs, at_once());
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
    std::string why = !r.started    ? "it could not be started: " + r.error
                      : r.timed_out ? "it was still running after 30 s (a hang?)"
                      : r.signal    ? "it was killed by " + signal_text(r.signal)
                      : r.exit_code ? fmt::format("it exited with status {}", r.exit_code)
                                    : std::string("it printed a warning report (a fix leaves no report, warnings too)");
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

  // ---- results ----------------------------------------------------------------------------------
  double total() const {
    double s = 0;
    for (const auto& t : results_) s += t.score;
    return std::round(s * 100) / 100;
  }
  double max_total() const {
    double s = 0;
    for (const auto& t : results_) s += t.max_score;
    return s;
  }

  std::string summary() const {
    std::string out;
    if (!internal_error_.empty()) {
      out += "The grader could not grade this submission:\n" + shorten(internal_error_) +
             "\nThe score is 0 until it can; please tell the course staff.\n";
      return out;
    }
    out += fmt::format("Lab {}, graded on the {} ({} backend).\n", manifest_.lab,
                       backend_ == "sim" ? "SyncLab simulator" : "GPU", backend_);
    if (!opt_.student.empty())
      out += fmt::format(
          "Student id: '{}' (tasks with per-student cases, the predictions of labs 01, 02, 03, 04 and 10, "
          "draw yours from it; SYNCLAB_STUDENT='{}' shows them on your machine).\n",
          opt_.student, opt_.student);
    out += "Student files:\n";
    for (const auto& [f, from] : taken_) out += fmt::format("  {} (from {})\n", f, from);
    for (const auto& [f, from] : findbug_taken_) out += fmt::format("  {} (from {})\n", f, from);
    for (const auto& f : missing_)
      out += fmt::format("  {}: {}; the handed-out skeleton was graded\n", f,
                         skipped_.count(f) ? skipped_.at(f) : "not in the submission");
    if (!ignored_.empty()) {
      out += fmt::format("Ignored ({} file(s) that are not student files of this lab):\n", ignored_.size());
      for (size_t i = 0; i < ignored_.size() && i < kMaxListedIgnored; ++i) out += "  " + ignored_[i] + "\n";
      if (ignored_.size() > kMaxListedIgnored)
        out += fmt::format("  ... and {} more\n", ignored_.size() - kMaxListedIgnored);
    }
    bool any_failed = false;
    for (const auto& t : results_) any_failed |= !t.passed;
    if (any_failed && build_error_.empty() && !replay_note_.empty()) out += "\n" + shorten(replay_note_) + "\n";
    if (!keep_note_.empty()) out += "\n" + shorten(keep_note_) + "\n";
    if (!findbug_note_.empty()) out += "\n" + findbug_note_ + "\n";
    if (!sandbox_note_.empty()) out += "\n" + sandbox_note_ + "\n";
    if (!guard_note_.empty()) out += "\n" + guard_note_ + "\n";
    if (!build_error_.empty()) out += "\n" + build_error_ + "\n";
    size_t passed = 0;
    for (const auto& t : results_) passed += t.passed;
    out += fmt::format("\n{} of {} test cases passed; score {} of {}.\n", passed, results_.size(), points(total()),
                       points(max_total()));
    return out;
  }

  void write_results() {
    json j;
    j["score"] = internal_error_.empty() ? total() : 0.0;
    j["execution_time"] =
        int(std::lround(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()));
    j["output"] = summary();
    j["visibility"] = "visible";
    j["stdout_visibility"] = "hidden";
    json tests = json::array();
    if (internal_error_.empty()) {
      for (const auto& t : results_) {
        json x;
        x["name"] = t.name;
        x["score"] = t.score;
        x["max_score"] = t.max_score;
        x["status"] = t.passed ? "passed" : "failed";
        x["output"] = t.output;
        x["tags"] = t.tags;
        x["visibility"] = t.visibility;
        tests.push_back(x);
      }
    }
    j["tests"] = tests;
    json extra;
    extra["lab"] = manifest_.lab;
    extra["backend"] = backend_;
    j["extra_data"] = extra;
    fs::path out = opt_.results;
    if (out.has_parent_path()) fs::create_directories(out.parent_path());
    // A new file of its own (never one somebody prepared), renamed over the results: a reader
    // never sees half of it.
    std::string templ = out.string() + ".tmp.XXXXXX";
    std::vector<char> name(templ.begin(), templ.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", templ, std::strerror(errno)));
    fs::path tmp = name.data();
    const std::string text = j.dump(2) + "\n";
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += size_t(n);
    }
    fchmod(fd, 0644);
    const bool written = done == text.size() && fsync(fd) == 0;
    ::close(fd);
    std::error_code ec;
    if (!written) {
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("writing {} failed", tmp.string()));
    }
    // Something other than a file in its place (a directory a test program made) goes first.
    if (fs::exists(fs::symlink_status(out, ec)) && !fs::is_regular_file(fs::symlink_status(out, ec)))
      fs::remove_all(out, ec);
    fs::rename(tmp, out, ec);
    if (ec) {
      fs::remove(tmp, ec);
      throw std::runtime_error(fmt::format("cannot write {}: {}", out.string(), ec.message()));
    }
    results_written_ = out.string();
  }

  void print_table() const {
    std::cout << "\n";
    if (!internal_error_.empty()) {
      std::cout << "synclab-grade: " << shorten(internal_error_) << "\n";
    } else {
      if (!build_error_.empty()) std::cout << build_error_ << "\n\n";
      for (const auto& t : results_) {
        std::string first = t.output.substr(0, t.output.find('\n'));
        std::cout << fmt::format("{:<5} {:>5}/{:<3} {}\n", t.passed ? "PASS" : "FAIL", points(t.score),
                                 points(t.max_score), t.name);
        if (!t.passed || t.speed) std::cout << "              " << first << "\n";
      }
      std::cout << fmt::format("\nscore: {} of {} ({} backend{})\n", points(total()), points(max_total()), backend_,
                               opt_.student.empty() ? "" : ", student id '" + opt_.student + "'");
      bool any_failed = false;
      for (const auto& t : results_) any_failed |= !t.passed;
      if (any_failed && !replay_note_.empty() && build_error_.empty()) std::cout << shorten(replay_note_) << "\n";
      if (!keep_note_.empty()) std::cout << keep_note_ << "\n";
    }
    if (!results_written_.empty()) std::cout << "results: " << results_written_ << "\n";
  }

  const Options& opt_;
  std::chrono::steady_clock::time_point t0_;
  Manifest manifest_;
  std::string backend_ = "sim";
  Backend be_;
  Identity identity_;
  Dirs dirs_;
  bool made_work_ = false;
  std::string sanitizer_;
  std::vector<std::pair<std::string, std::string>> taken_;
  std::vector<std::string> missing_, ignored_;
  std::map<std::string, std::string> skipped_;  // file name -> why a file of that name was not taken
  std::vector<std::pair<std::string, std::string>> findbug_taken_;  // findbug.txt, findbug.cu: where from
  std::string findbug_note_;                                        // (a student release) why the line is not graded
  std::vector<std::string> public_names_, hidden_objs_;
  std::string reference_;
  fs::path program_;
  std::vector<TestResult> results_;
  std::string build_error_, internal_error_, results_written_, sandbox_note_, guard_note_;
  ObjectCache cache_;
  std::string cache_context_;
  // The work directory the cache's keys leave out: the grading's own temporary one; with --work,
  // none (the objects then name that directory's files, which stay, so only it shares them).
  fs::path cache_work() const { return opt_.work.empty() ? dirs_.root : fs::path(); }
  bool guard_ = false;
  bool hush_ = false;           // progress lines held back for now
  fs::path keep_dir_;           // where the programs are kept (--keep, build's --out), when usable
  bool src_kept_ = false;       // the student files are compiled in keep_dir_/src
  int keep_lock_ = -1;          // the lock held on keep_dir_ (lock_keep)
  fs::path harness_;            // the submission's harness program (bin/<program>), when it linked
  std::string harness_error_;   // why there is none
  std::string replay_program_;  // SYNCLAB_REPLAY_PROGRAM of the cases: what replay lines run
  std::string replay_note_;     // the summary's line on it
  std::string keep_note_;       // why --keep kept nothing
  std::string kept_;            // where the programs were kept
};

}  // namespace

int run_grading(const Options& opt) {
  Grading g(opt);
  return g.run();
}

int build_command(const Options& opt, const std::string& out) {
  Grading g(opt);
  return g.build_only(out);
}

int normalize_results(const std::string& in, const std::string& out) {
  std::ifstream f(in);
  if (!f) {
    std::cerr << "synclab-grade normalize: cannot read " << in << "\n";
    return 2;
  }
  json j;
  try {
    j = json::parse(f);
  } catch (const std::exception& e) {
    std::cerr << "synclab-grade normalize: " << in << " is not valid JSON (" << e.what() << ")\n";
    return 2;
  }
  // What differs from run to run: how long grading took, measured times on a GPU, and addresses.
  j["execution_time"] = 0;
  // Where the tree is decides whether the sandbox user can read it; the note says which ran.
  static const std::regex sandbox_note("\nNote: an unprivileged user cannot read [^\n]*\n");
  if (j.contains("output") && j["output"].is_string())
    j["output"] = std::regex_replace(j["output"].get<std::string>(), sandbox_note, "");
  static const std::regex address("0x[0-9a-f]{10,}");  // (not Catch2's 8-digit values)
  static const std::regex gpu_time("time ([0-9.eE+-]+) ms, the reference solution's ([0-9.eE+-]+) ms \\(");
  // Where a stopped kernel's threads were depends on when the time limit struck: which PTX
  // instruction of the spinning loop (the source line stays the same).
  static const std::regex ptx_line("PTX line [0-9]+");
  if (j.contains("tests"))
    for (auto& t : j["tests"])
      if (t.contains("output") && t["output"].is_string()) {
        std::string o = std::regex_replace(
            std::regex_replace(t["output"].get<std::string>(), gpu_time, "time T ms, the reference solution's R ms ("),
            address, "0xADDRESS");
        if (o.rfind("timed out:", 0) == 0) o = std::regex_replace(o, ptx_line, "PTX line N");
        t["output"] = o;
      }
  std::ofstream o(out);
  o << j.dump(2) << "\n";
  if (!o) {
    std::cerr << "synclab-grade normalize: cannot write " << out << "\n";
    return 2;
  }
  return 0;
}

int reference_times_command(const Options& opt, const std::string& out_path) {
  Manifest m;
  try {
    m = find_manifest(opt.grade_dir, opt.lab);
  } catch (const std::exception& e) {
    std::cerr << "synclab-grade reference-times: " << e.what() << "\n";
    return 2;
  }
  if (!m.has_reference || !m.backends.count("sim")) {
    std::cerr << "synclab-grade reference-times: lab " << m.lab << " has no reference solution in this build\n";
    return 2;
  }
  const std::string program = m.backends.at("sim").reference_tests;
  char dir_template[] = "/tmp/synclab-reference-times.XXXXXX";
  if (!mkdtemp(dir_template)) {
    std::cerr << "synclab-grade reference-times: cannot create a work directory\n";
    return 2;
  }
  const fs::path dir = dir_template;
  auto run = [&](std::vector<std::string> args, int fd) {
    RunSpec spec;
    spec.argv = {program};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir.string(), "LANG=C.UTF-8",
                "SYNCLAB_GRADE_METRICS_FD=4"};
    spec.cwd = dir.string();
    spec.timeout_s = 600;
    spec.extra_fd = fd;
    return run_sandboxed(spec);
  };
  // The speed cases: [speed] in the tag listing.
  const std::vector<std::string> names = non_empty_lines(run({"[speed]", "--list-test-names-only"}, -1).output);
  std::string text = "# The reference solution's simulated times for lab " + m.lab +
                     "'s speed-graded cases (synclab-grade reference-times): case<TAB>ms\n";
  int status = 0;
  for (const auto& name : names) {
    const fs::path metrics = dir / "metrics.txt";
    int fd = ::open(metrics.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    RunResult r = run({catch_test_spec(name)}, fd);
    ::close(fd);
    double ms = 0;
    if (r.exit_code != 0 || !parse_time(read_private(metrics, 4096), &ms)) {
      std::cerr << "synclab-grade reference-times: the reference fails '" << name << "' or records no time\n";
      status = 2;
      continue;
    }
    text += fmt::format("{}\t{:.9g}\n", name, ms);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (status != 0) return status;
  if (names.empty()) {
    std::cout << "lab " << m.lab << " has no speed-graded cases: nothing written\n";
    return 0;
  }
  std::ofstream o(out_path);
  o << text;
  if (!o) {
    std::cerr << "synclab-grade reference-times: cannot write " << out_path << "\n";
    return 2;
  }
  std::cout << out_path << ": " << names.size() << " speed case(s)\n";
  return 0;
}

int check_objects_command(const std::vector<std::string>& objects) {
  std::string objdump = find_program("objdump");
  if (objdump.empty()) {
    std::cerr << "synclab-grade check-object: objdump (binutils) is missing\n";
    return 2;
  }
  int status = 0;
  for (const auto& obj : objects) {
    RunSpec spec;
    spec.env = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
    ObjectCheck c = disassemble_and_check(objdump, obj, spec);
    if (!c.error.empty()) {
      std::cout << obj << ": cannot check: " << c.error << "\n";
      status = 2;
      continue;
    }
    if (c.problems.empty()) {
      std::cout << obj << ": ok\n";
      continue;
    }
    for (const auto& p : c.problems) std::cout << obj << ": " << p << "\n";
    if (status == 0) status = 1;
  }
  return status;
}

}  // namespace synclab::grade
