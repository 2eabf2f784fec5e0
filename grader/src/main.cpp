// synclab-grade: the autograder (docs/grader.md). `./synclab grade` runs it.
//
//   synclab-grade grade --lab 01 --submission DIR [--results FILE] [--hidden DIR] [--backend auto]
//   synclab-grade normalize RESULTS OUT      (for comparing with approved results)
//   synclab-grade check-object FILE.o...     (the rules for student code, object_check.h)
//   synclab-grade build --lab 01 --submission DIR --out DIR   (its harness program: ./synclab run)
//   synclab-grade findbug --lab 04 [--student ID] [--check FILE | --copy-of FILE]   (./synclab findbug)
//   synclab-grade findbug --runs     (the 32 runs that grade a fix, as synclab-run options)
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

#include "findbug.h"
#include "grader.h"

namespace fs = std::filesystem;

namespace {

// The build directory this program belongs to: <build>/bin/synclab-grade.
fs::path own_build_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fs::current_path();
  return self.parent_path().parent_path();
}

int grade_main(int argc, char** argv) {
  CLI::App app{
      "synclab-grade: grades a lab submission on the simulator (or a GPU) and writes results.json "
      "in Gradescope's format"};
  app.require_subcommand(1);

  synclab::grade::Options opt;
  opt.grade_dir = (own_build_dir() / "grade").string();
  opt.guard_library = (own_build_dir() / "lib" / "libsynclab_guard.so").string();
#ifdef SYNCLAB_SOURCE_DIR
  opt.source_root = SYNCLAB_SOURCE_DIR;
#endif
  CLI::App* grade = app.add_subcommand("grade", "grade one submission");
  grade->add_option("--lab", opt.lab, "the lab: 01, 1 or 01-data-races")->required();
  grade->add_option("--submission", opt.submission, "directory with the student's files")->required();
  grade->add_option("--results", opt.results, "results.json to write")->required();
  grade->add_option("--hidden", opt.hidden, "directory of hidden Catch2 test files (*.cpp) to compile in");
  grade->add_option("--backend", opt.backend, "sim, gpu or auto (gpu when a CUDA device is present)")
      ->check(CLI::IsMember({"sim", "gpu", "auto"}));
  grade->add_option("--timeout", opt.timeout_s, "wall-clock seconds per test case")->check(CLI::Range(1.0, 86400.0));
  grade
      ->add_option("--parallel", opt.parallel,
                   "programs run at once: the student files' compiles and, on the simulator, the test cases "
                   "(default: the machine's cores, at most 4)")
      ->check(CLI::Range(1u, 64u));
  grade->add_option("--memory-mb", opt.memory_mb, "address-space limit per test case, MiB")
      ->check(CLI::Range(256ull, 1ull << 24));
  grade->add_option("--grade-dir", opt.grade_dir, "where the lab manifests are (<build>/grade)");
  grade->add_option("--work", opt.work, "work directory (default: a new one under $TMPDIR)");
  grade->add_flag("--keep-work", opt.keep_work, "keep the work directory");
  if (const char* c = std::getenv("SYNCLAB_OBJECT_CACHE")) opt.object_cache = c;
  grade->add_option("--object-cache", opt.object_cache,
                    "the compiled student files of earlier gradings: a directory, or off (default: "
                    "$SYNCLAB_OBJECT_CACHE, else <build>/grade-cache)");
  grade->add_option("--keep", opt.keep,
                    "keep the programs built from the submission in this directory (its harness program, which "
                    "replay lines then run, and the graded test program)");
  grade->add_option("--replay-submission", opt.replay_submission,
                    "how replay lines name the submission's directory (default: its path)");
  grade->add_flag("--quiet", opt.quiet, "no progress lines");
  if (const char* id = std::getenv("SYNCLAB_STUDENT")) opt.student = id;
  grade->add_option("--student", opt.student,
                    "the student id that draws the student's own cases in tasks with variants (default: "
                    "$SYNCLAB_STUDENT; none: the default cases)");
  bool no_sanitizer = false;
  grade->add_flag("--no-sanitizer", no_sanitizer, "on the GPU: plain runs only, no compute-sanitizer");

  std::string build_out;
  synclab::grade::Options build_opt = opt;
  CLI::App* build = app.add_subcommand(
      "build", "build the harness program of a submission's files as grading does (./synclab run runs it)");
  build->add_option("--lab", build_opt.lab, "the lab: 01, 1 or 01-data-races")->required();
  build->add_option("--submission", build_opt.submission, "directory with the student's files")->required();
  build->add_option("--out", build_out, "directory for the programs (an up-to-date build there is reused)")->required();
  build->add_option("--grade-dir", build_opt.grade_dir, "where the lab manifests are (<build>/grade)");
  build->add_flag("--quiet", build_opt.quiet, "no progress lines");

  std::string norm_in, norm_out;
  CLI::App* norm = app.add_subcommand("normalize", "rewrite a results.json without run-to-run differences");
  norm->add_option("results", norm_in, "results.json")->required();
  norm->add_option("out", norm_out, "where to write")->required();

  std::string times_lab, times_out;
  CLI::App* times = app.add_subcommand(
      "reference-times", "write the reference's simulated times of a lab's speed cases (for a student release)");
  times->add_option("--lab", times_lab, "the lab: 01, 1 or 01-data-races")->required();
  times->add_option("out", times_out, "file to write (labs/NN-topic/reference-times.tsv of the release)")->required();

  std::vector<std::string> objects;
  CLI::App* check = app.add_subcommand(
      "check-object",
      "check compiled student files (.o) against the rules for student code; exit 1 if any breaks them");
  check->add_option("objects", objects, "object files")->required();

  std::string fb_lab, fb_student, fb_check, fb_program, fb_copy;
  CLI::App* fb = app.add_subcommand(
      "findbug", "print NAME<TAB>PATH of the find-the-bug program drawn for a student (docs/findbug.md)");
  bool fb_runs = false;
  fb->add_option("--lab", fb_lab, "the lab: 01, 1 or 01-data-races");
  fb->add_flag("--runs", fb_runs,
               "print the exploration that grades a fix instead: one run's synclab-run options a line (32 lines)");
  fb->add_option("--student", fb_student, "the student id (default: $SYNCLAB_STUDENT; none: the pool's first)");
  fb->add_option("--program", fb_program, "that program of the pool instead of the one drawn (with --check)");
  fb->add_option("--check", fb_check,
                 "also check that FILE is that program with a fix the grader runs (exit 1 and the reasons if not)");
  fb->add_option("--copy-of", fb_copy,
                 "print NAME<TAB>PATH of the program FILE is a copy of instead (its first line; nothing when none)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (norm->parsed()) return synclab::grade::normalize_results(norm_in, norm_out);
  if (check->parsed()) return synclab::grade::check_objects_command(objects);
  if (fb->parsed()) {
    if (fb_runs) {
      for (const auto& r : synclab::grade::findbug::exploration()) fmt::print("{}\n", r.options());
      return 0;
    }
    if (fb_lab.empty()) {
      fmt::print(stderr, "synclab-grade findbug: --lab NN is required (or --runs)\n");
      return 2;
    }
    if (fb_student.empty())
      if (const char* s = std::getenv("SYNCLAB_STUDENT")) fb_student = s;
    return synclab::grade::findbug::command(opt.grade_dir, fb_lab, fb_student, fb_check, fb_program, fb_copy);
  }
  if (build->parsed()) return synclab::grade::build_command(build_opt, build_out);
  if (times->parsed()) {
    opt.lab = times_lab;
    return synclab::grade::reference_times_command(opt, times_out);
  }
  opt.sanitizer = !no_sanitizer;
  return synclab::grade::run_grading(opt);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return grade_main(argc, argv);
  } catch (const std::exception& e) {  // (each command reports its own failures; this is what is left)
    std::cerr << "synclab-grade: " << e.what() << "\n";
    return 2;
  }
}
