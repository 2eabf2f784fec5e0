// A lab as the grader sees it: build/grade/<lab>.json, written by synclab_lab() at configure time
// (cmake/SynclabLab.cmake). It names the student files, and per backend how to compile a
// submission's files and what pristine objects (graded tests, harness, reference solutions) to
// link them with.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace synclab::grade {

struct Backend {
  std::vector<std::string> compiler;   // command (may start with ccache)
  std::vector<std::string> cu_flags;   // for student .cu files
  std::vector<std::string> cpp_flags;  // for test .cpp files (hidden tests)
  std::vector<std::string> linker;     // command and flags
  std::vector<std::string> libs;
  std::vector<std::string> test_objects;                // graded tests + Catch2 main
  std::vector<std::string> harness_objects;             // provided harness
  std::vector<std::string> main_objects;                // the harness program's main (sub-commands)
  std::map<std::string, std::string> solution_objects;  // student file -> reference object
  std::string reference_tests;                          // graded tests linked with the reference solutions
};

struct Manifest {
  std::string path;
  std::string lab;      // "01-data-races"
  std::string program;  // "lab01"
  std::string lab_dir;
  std::string solutions_dir;
  bool has_reference = true;  // false in a student release (no solutions/)
  std::vector<std::string> student_files;
  std::vector<std::string> tests;
  std::map<std::string, Backend> backends;  // "sim", "gpu"
};

// Reads one manifest; throws std::runtime_error naming the file and the problem.
Manifest load_manifest(const std::string& path);

// The manifest of lab `which` ("01", "1", "01-data-races") in `grade_dir` (build/grade); throws
// with the list of labs there when there is no such lab.
Manifest find_manifest(const std::string& grade_dir, const std::string& which);

}  // namespace synclab::grade
