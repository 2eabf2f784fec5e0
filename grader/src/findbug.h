// Find the bug (docs/findbug.md): each lab's pool of complete programs with one planted
// synchronization bug each (labs/NN-topic/findbug/NAME.cu), the program a student is given (drawn
// by the student id), the student's answer (findbug.txt: the line of the bug) and fix (findbug.cu:
// the program with a small change above its checks), and the runs that grade the fix. The grader
// (grader.cpp) and `synclab-grade findbug` (what `./synclab findbug` runs) share these.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace synclab::grade::findbug {

// The line that starts a program's checks: a fix changes nothing from it to the end.
inline constexpr const char* kMarker = "// ---- checks";
// The most lines a fix may add and remove, together (as `diff` counts them).
inline constexpr int kMaxChanged = 12;
// The most lines a program or a fix may have (more is refused before any comparison).
inline constexpr size_t kMaxLines = 400;

// A lab's pool: the programs of <lab_dir>/findbug/, by name (NAME.cu), sorted.
struct Pool {
  std::string dir;
  std::vector<std::string> names;
  bool empty() const { return names.empty(); }
  std::string path(const std::string& name) const { return dir + "/" + name + ".cu"; }
};
Pool find_pool(const std::string& lab_dir);

// The program of the pool that student `student` is given in lab `lab` ("04-reductions"): the
// same for the same id whatever its case and surrounding spaces; without an id, the first.
std::string draw(const Pool& pool, const std::string& lab, const std::string& student);

// The program of the pool that `text` (a student's findbug.cu) is a copy of: the one whose first
// line is text's first line (each program's first line names it); "" when none is.
std::string copy_of(const Pool& pool, const std::string& text);

// findbug.txt: "program: NAME" (optional) and "line: N"; '#' starts a comment.
struct Answer {
  std::string program;
  int line = 0;                       // 0: none given
  std::vector<std::string> problems;  // what is wrong with the file, one line each
};
Answer parse_answer(const std::string& text);

// How a fix (the student's findbug.cu) differs from the program as handed out, line by line (spaces
// at a line's ends and the width of a run of spaces inside it do not count).
struct FixCheck {
  int added = 0, removed = 0;
  std::vector<int> touched;           // lines of the original the fix changes or inserts next to
  std::vector<std::string> problems;  // why it is not a fix the grader runs, one line each
};
FixCheck check_fix(const std::string& original, const std::string& fixed);

// solutions/NN-topic/findbug/answers.tsv: name -> the lines a student may name. Throws
// std::runtime_error naming the file and line when a row is malformed.
std::map<std::string, std::vector<int>> read_answers(const std::string& tsv_path);

// One run of the exploration that grades a fix: its SYNCLAB_* settings.
struct Run {
  std::string model, memory, sched;
  uint64_t seed = 1;
  std::string options() const;           // "--model its --memory relaxed --sched pct --seed 3"
  std::vector<std::string> env() const;  // "SYNCLAB_MODEL=its", ...
};
// Warp models its and lockstep x memory models sc and relaxed x pct seeds 1-4 and random seeds
// 1-4: 32 runs (tests/labs/findbug/check_pool.sh runs the same).
std::vector<Run> exploration();

// `synclab-grade findbug` (what `./synclab findbug` runs): prints "NAME<TAB>PATH" of the program
// drawn for `student` in lab `lab` (manifests in grade_dir), or of `program` when it is given;
// with `check_file`, then also whether
// that file is the program with a fix the grader would run (one line per problem). With
// `copy_file` instead: "NAME<TAB>PATH" of the program that file is a copy of (copy_of), nothing
// when none. Returns 0, 1 when check_file breaks a rule, 2 when there is no such lab or pool or a
// file cannot be read.
int command(const std::string& grade_dir, const std::string& lab, const std::string& student,
            const std::string& check_file, const std::string& program = "", const std::string& copy_file = "");

}  // namespace synclab::grade::findbug
