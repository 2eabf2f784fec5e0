// The inside of synclab-grade (grader.h): one grading of a submission, class Grading, and the
// helpers its phases and the tool's other commands share. Not installed; only grader/src includes it.
//
// Grading's phases, each in a file of its own:
//   grading_setup.cpp    run, build_only, grade (the steps in order); choosing the backend, the work
//                        and sandbox directories, the system-call filter; the programs kept for replay
//   grading_collect.cpp  the submission's student files; the graded cases and their tags, from the
//                        reference program
//   grading_build.cpp    the hidden tests; compiling (the object cache) and linking the submission
//   grading_check.cpp    what a student file may include, contain and call
//   grading_run.cpp      one case's run in the sandbox and its verdict
//   grading_findbug.cpp  the find-the-bug task: the line (findbug.txt) and the fix (findbug.cu)
//   grading_results.cpp  the score, results.json and the table
// grader.cpp holds the helpers declared here and the commands of grader.h.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "catch_report.h"
#include "grader.h"
#include "manifest.h"
#include "object_cache.h"
#include "object_check.h"
#include "sandbox.h"

namespace synclab::grade {

namespace fs = std::filesystem;

inline constexpr double kSpeedSlack = 1.2;             // full marks within 1.2x of the reference's time
inline constexpr uintmax_t kMaxStudentFile = 1 << 20;  // bytes
inline constexpr size_t kMaxListedIgnored = 50;
inline constexpr size_t kMaxReport = 16 << 20;  // a case's XML report, bytes
// In a student release's lab directory: "case name<TAB>simulated ms" of the reference solution's
// speed cases (written by `synclab-grade reference-times` when the release is made).
inline constexpr const char* kReferenceTimes = "reference-times.tsv";

std::map<std::string, double> read_reference_times(const fs::path& file);

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
std::string read_private(const fs::path& p, size_t cap);

// A case's one time record ("time_ms T" on a line of its own, written once by
// synclab::graded::record_time_ms after the case checked its result). Anything else in the
// channel (a second record, other text) makes the time invalid.
bool parse_time(const std::string& metrics, double* ms);

// The lines of a listing that are not blank, without trailing white space.
std::vector<std::string> non_empty_lines(const std::string& text);

// Disassembles a compiled student file with objdump, run as `base` says (its user, environment,
// directory), and checks it against the rules of object_check.h.
ObjectCheck disassemble_and_check(const std::string& objdump, const std::string& obj, RunSpec base);

// The last n lines of a program's output (a compiler's, a case's).
std::string last_lines(const std::string& text, size_t n);
// Every line of text with prefix in front.
std::string indent(const std::string& text, const std::string& prefix);
std::string replace_all(std::string s, const std::string& from, const std::string& to);

// `word` as one word of a shell command line: as it is when nothing in it is special to the shell,
// else in single quotes.
std::string shell_quote(const std::string& word);

// FNV-1a, 64 bits: what a kept build was made from (build_command's up-to-date check).
void fnv1a(uint64_t& h, const std::string& bytes);

// The file that marks a directory as one that grading keeps programs in (and may empty again),
// and the lock a grading holds on it while it writes there.
inline constexpr const char* kKeptAbout = "about.txt";
inline constexpr const char* kKeptLock = ".lock";

// A score as the table prints it ("2", "1.5").
std::string points(double v);
// Gives p to the sandbox user `id` (when it is another user) with `mode`.
void own(const fs::path& p, const Identity& id, mode_t mode);
// Whether this machine has an NVIDIA GPU to grade on.
bool gpu_present();
// The path of program `name` on PATH or in extra_dirs ("" when none).
std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs = {});

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
  int run();

  // build_command: the submission's programs in `out`, built as grading builds them.
  int build_only(const std::string& out);

 private:
  // What a build in build_only() was made from: the lab's manifest, the student files as taken,
  // and the times of the objects they are linked with and of this grader.
  std::string build_stamp() const;

  // ---------------------------------------------------------------------------------------------
  void progress(const std::string& line);
  std::string shorten(std::string s) const;
  std::vector<std::string> base_env(const fs::path& home) const;

  // ---------------------------------------------------------------------------------------------
  void grade();
  void choose_backend();
  void make_dirs();

  // The sandbox user must read the lab's build (objects, compiler, libraries). Under a private
  // directory (a home directory of mode 700) it cannot: then the submission runs as the invoking
  // user, and the output says so.
  // Whether the submission's user can read `path`.
  bool readable_by_submission(const std::string& path);
  void check_sandbox_access();

  // The system-call filter (libsynclab_guard.so, preloaded into the test programs): does it work
  // here? Its self-test installs it in a trivial program and checks that fork() is refused.
  void check_guard();
  void cleanup();

  // ---- the submission's programs, kept; what replay lines run ------------------------------------
  // The ./synclab run line that builds this submission's harness program as this grading did and
  // runs it (with a task's arguments after it).
  std::string run_line() const;

  // Keeps the programs built from the submission in opt_.keep (when given) and decides what the
  // failed cases' replay lines run: the kept harness program, else the ./synclab run line. An
  // earlier grading's programs there go first, also when this submission built none.
  void keep_programs(bool built);

  // Whether `keep` may take the programs: a new or empty directory, or one that programs were kept
  // in before (its about.txt); else keep_note_ says why not.
  bool keep_usable(const fs::path& keep);

  // Takes the lock of `keep` for as long as this grading lives, so that two gradings (or builds)
  // never write their programs into one directory at once: `wait` for the other one, or keep
  // nothing (keep_note_ says so).
  bool lock_keep(const fs::path& keep, bool wait);

  // Keeps the programs in `keep` (see keep_programs); false, with keep_note_ saying why, when it
  // keeps nothing. The student files are in its src/ already when they were compiled there.
  bool keep_in(const fs::path& keep, bool built);

  // ---- the submission ---------------------------------------------------------------------------
  void collect_submission();

  // ---- the graded cases, from the trusted reference program ------------------------------------
  std::vector<std::string> list_names(const std::string& program);
  std::vector<std::string> tags_of(const std::string& program, const std::string& name);
  // `program args...` in the sandbox, as the case listings run it (list_names, tags_of, tags_of_all).
  RunResult run_listing(const std::string& program, const std::vector<std::string>& args);
  // Every name's tags, from one listing where it can be read (tags_of for the others).
  std::map<std::string, std::vector<std::string>> tags_of_all(const std::string& program,
                                                              const std::vector<std::string>& names);
  void list_cases();
  void finish_case_list();

  // ---- hidden tests (the instructor's; trusted) ------------------------------------------------
  bool build_hidden();

  // A compiler command without its ccache launcher: the grader compiles without a cache (the
  // sandbox user must not share one), and a machine may have the compiler but not ccache.
  static std::vector<std::string> without_ccache(std::vector<std::string> cmd);
  std::string resolve(const std::string& cmd) const;

  // Links the graded test program (the graded tests, any hidden ones, the harness and the student
  // objects) or, with `harness_program`, the lab's harness program (its main, the harness and the
  // student objects: what build/bin/sim/labNN is made of).
  RunResult link(const fs::path& out, const std::vector<std::string>& student_objs, bool sandboxed,
                 bool harness_program = false);

  RunSpec link_spec(const fs::path& out, const std::vector<std::string>& student_objs, bool sandboxed,
                    bool harness_program);

  // ---- building the submission ------------------------------------------------------------------
  void fail_all(const std::string& why);

  // How many programs of the submission run at once: --parallel, else the machine's cores (at
  // most 4).
  unsigned at_once() const;

  // The object cache (object_cache.h), when the submission cannot reach it: it runs as a user of
  // this grading's own (as root), or as the invoking user who owns the cache anyway (not root).
  // Not when it runs as a shared user (`nobody`) or, as a fallback, as root.
  void open_cache();

  // The cache's key of compiling `file` of `folder` with `argv`: besides the command and the file's
  // text, the grader's rules and the folder, which the object names.
  std::string cache_key(const std::vector<std::string>& argv, const fs::path& folder, const std::string& file);

  // Takes `key`'s object from the cache into `obj` (a fresh file: whatever the sandbox user left
  // at that path is removed first, never written through), and says so for `file`.
  bool take_cached(const std::string& key, const fs::path& obj, const std::string& file);

  // Keeps `file`'s object, compiled and checked, in the cache under `key`.
  void store_cached(const std::string& key, const fs::path& obj, const fs::path& deps, const std::string& file);
  bool build_submission();

  // What the student file included (the compiler's dependency list): the other student files, the
  // lab's own headers (its include directories), the CUDA toolkit's and the system's, and nothing
  // else; in particular no file of the reference solutions or of the tests.
  std::vector<std::string> check_includes(const fs::path& deps);

  // The host half of the student file as nvcc's front end left it (host_source_check.h).
  std::vector<std::string> check_host_code(const std::string& file, const fs::path& keep);

  // The compiled student file against the rules of object_check.h.
  std::vector<std::string> check_object(const std::string& file, const fs::path& obj);

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
                   const std::vector<std::string>& wrapper = {}, double timeout_scale = 1);

  CaseRun finish_case(CaseSetup& setup, RunResult r);
  CaseSetup prepare_case(const std::string& program, const std::string& name, int index, bool sandboxed,
                         const std::vector<std::string>& wrapper, double timeout_scale);

  std::string failure_text(const CaseRun& c) const;
  static bool case_passed(const CaseRun& c);

  // Each case's first run. On the simulator the cases run side by side (at_once); on a GPU one at
  // a time (they would share the device, and its timing). Cases running at once run as users of
  // their own (when the grader runs as root): none can reach another's files or processes. A case
  // that ran out of time beside others runs again alone: only a case too slow by itself times out.
  std::vector<CaseRun> first_runs();
  void run_cases();
  void sanitize(TestResult& t, int index);
  void score_speed(TestResult& t, const CaseRun& c, int index);

  // ---- find the bug (findbug.h, docs/findbug.md) -------------------------------------------------
  // Two cases: the line of the bug (findbug.txt, against the reference answers: not in a student
  // release) and the fix (findbug.cu: the student's program with a small change above its checks,
  // built with synclab-nvcc and run under findbug::exploration(); every run must end with status 0
  // and no report). Returns them; it touches no other case, so it may run on a thread of its own
  // beside the build and the cases (findbug_beside).
  std::vector<TestResult> grade_findbug();
  // Whether the find-the-bug program can build and run beside the student files' build and the
  // cases: on the simulator, with two or more runs at once, and as a sandbox user whose leftovers
  // can be killed without touching theirs (findbug_id_: a user of its own when the cases have
  // one; the same otherwise, as then nothing is killed by user).
  bool findbug_beside();

  // The fix case's verdict: "passed: ..." or why not.
  std::string findbug_fix(const std::string& name, const std::string& handed, const std::string& get,
                          const std::string& original, const fs::path& given);

  // ---- results ----------------------------------------------------------------------------------
  double total() const;
  double max_total() const;
  std::string summary() const;
  void write_results();
  void print_table() const;

  const Options& opt_;
  std::chrono::steady_clock::time_point t0_;
  Manifest manifest_;
  std::string backend_ = "sim";
  Backend be_;
  Identity identity_;
  Identity findbug_id_;           // the sandbox user of the find-the-bug program's build and runs
  unsigned findbug_at_once_ = 1;  // its runs at once: at_once(), or one beside the others
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

}  // namespace synclab::grade
