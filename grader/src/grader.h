// The grading pipeline: collect the submission's student files, build them against the lab's
// pristine harness and graded tests (and an instructor's hidden tests), run each graded case in
// its own sandboxed process, score it from Catch2's report, and write results.json.
#pragma once

#include <string>
#include <vector>

namespace synclab::grade {

struct Options {
  std::string lab;               // "01" or "01-data-races"
  std::string submission;        // directory with the student's files
  std::string results;           // results.json to write
  std::string hidden;            // directory of hidden Catch2 test files ("" for none)
  std::string backend = "auto";  // sim | gpu | auto
  std::string grade_dir;         // build/grade (the manifests)
  std::string source_root;       // the repository (shortened to nothing in messages)
  double timeout_s = 300;        // per test case
  double compile_timeout_s = 180;
  // Programs of one grading run at once: the student files' compiles and, on the simulator, the
  // test cases (0: the machine's cores, at most 4).
  unsigned parallel = 0;
  unsigned long long memory_mb = 8192;
  // Where to keep the programs built from the submission ("" for nowhere): KEEP/<program>, its
  // harness program (the lab's harness and main with the submission's files), which the failed
  // cases' replay lines then run, and KEEP/<program>_tests, the graded test program. Without it,
  // replay lines are `./synclab run --lab NN --submission DIR ...`, which builds the same harness.
  std::string keep;
  // How replay lines name the submission's directory ("" for its path; Gradescope's
  // run_autograder names the student's own copy).
  std::string replay_submission;
  std::string work;  // work directory to use ("" for a fresh one under $TMPDIR)
  // The object cache of compiled student files (object_cache.h): a directory, "" for the default
  // (<grade_dir>/../grade-cache) or "off".
  std::string object_cache;
  bool keep_work = false;
  bool quiet = false;         // no progress lines (the table and the summary still print)
  bool sanitizer = true;      // on the GPU, also run passed cases under compute-sanitizer
  std::string guard_library;  // libsynclab_guard.so (preloaded into the test programs)
  // The student id that draws the student's own cases in tasks with variants (SYNCLAB_STUDENT of
  // the test programs; "" for the default cases). labs/common/synclab_lab.h, student_draw.
  std::string student;
};

// Grades and writes the results file (in every case). Returns the process exit status: 0 when
// grading ran (whatever the score), 2 when the grader itself could not (the results file then
// says why, with a score of 0).
int run_grading(const Options& opt);

// Builds the harness program of opt.submission's files (as grading builds them, with the same
// checks) into the directory `out`: out/<program>, the graded test program out/<program>_tests and
// the student files as taken, out/src/. An up-to-date build there (the same files, lab and
// grader) is kept as it is, silently. Returns 0 when out/<program> is there, 1 when the files do
// not compile or break the rules for student files (the reasons on stderr), 2 when it cannot build.
int build_command(const Options& opt, const std::string& out);

// Rewrites a results.json for comparison with an approved copy: execution times and measured
// times become placeholders. Returns 0, or 2 with a message on stderr.
int normalize_results(const std::string& in, const std::string& out);

// Writes the reference solution's simulated time for each of lab opt.lab's speed-graded cases to
// `out` (case<TAB>ms): what a student release grades speed against. Returns 0, or 2 with a message.
int reference_times_command(const Options& opt, const std::string& out);

// Checks compiled student files against the rules of object_check.h and prints what breaks them.
// Returns 0 when none does, 1 when one does, 2 when a file cannot be checked.
int check_objects_command(const std::vector<std::string>& objects);

}  // namespace synclab::grade
