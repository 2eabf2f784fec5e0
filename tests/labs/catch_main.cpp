// The main() of every lab's graded test program (tests/labs/labNN.test.cpp holds the cases).
// Wide console lines, so that a failure message (a report's file:line, a replay line) is not
// wrapped in the middle (Catch2 2.x; 3.x takes the width from its build configuration).
//
// Replay lines name the harness program that runs the same code as this test program
// (synclab::lab::program_command reads SYNCLAB_REPLAY_PROGRAM). The grader sets the variable for
// the programs it builds; run by hand or by ctest, this program finds its harness beside itself
// by its own name, and says which program that is before the cases run:
//   labNN_tests_labs       -> labNN            (the tree's build of labs/)
//   labNN_tests_solutions  -> labNN_solutions  (the tree's build of solutions/)
//   labNN_tests            -> labNN            (a grading's kept copy: ./synclab grade --keep)
//   labNN_tests_wrong_W    -> none is built from tests/labs/wrong/W.cu: build/bin/sim/labNN says so
#define CATCH_CONFIG_CONSOLE_WIDTH 300
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

// `p` as a command to type in the current directory: relative below it, else absolute.
std::string as_typed(const fs::path& p) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (!ec) {
    const fs::path rel = p.lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return p.string();
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Sets SYNCLAB_REPLAY_PROGRAM to this program's harness when there is one, and returns the note
// to print before the cases run ("" for none).
std::string choose_replay_program() {
  const char* set = std::getenv("SYNCLAB_REPLAY_PROGRAM");
  if (set && *set) return "";  // the grader's (or the caller's) choice
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const std::string name = self.filename().string();
  const fs::path dir = self.parent_path();
  struct Rule {
    const char* suffix;
    const char* harness_suffix;
    const char* what;
  };
  for (const Rule& r :
       {Rule{"_tests_labs", "", "this tree's build of labs/ (./synclab build rebuilds it after a change)"},
        Rule{"_tests_solutions", "_solutions", "this tree's build of solutions/"},
        Rule{"_tests", "", "built from the same files as this program"}}) {
    if (!ends_with(name, r.suffix)) continue;
    const std::string program = name.substr(0, name.size() - std::string(r.suffix).size());
    const fs::path harness = dir / (program + r.harness_suffix);
    if (program.empty() || access(harness.c_str(), X_OK) != 0) break;
    const std::string cmd = as_typed(harness);
    setenv("SYNCLAB_REPLAY_PROGRAM", cmd.c_str(), 1);
    return "note: replay lines below run " + cmd + ", " + r.what;
  }
  const size_t wrong = name.find("_tests_wrong_");
  if (wrong != std::string::npos)
    return "note: no harness program is built from tests/labs/wrong/" + name.substr(wrong + 13) +
           ".cu; replay lines below run build/bin/sim/" + name.substr(0, wrong) +
           ", this tree's build of labs/, which does not have this program's bug";
  return "";
}

}  // namespace

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (int rc = session.applyCommandLine(argc, argv)) return rc;
  const std::string note = choose_replay_program();
  // Not before a listing: the grader and check_graded.sh read the names from it.
  const auto& c = session.configData();
#if CATCH_VERSION_MAJOR >= 3
  const bool listing = c.listTests || c.listTags || c.listReporters;
#else
  const bool listing = c.listTests || c.listTestNamesOnly || c.listTags || c.listReporters;
#endif
  if (!note.empty() && !listing && !c.showHelp) std::printf("%s\n\n", note.c_str());
  std::fflush(stdout);
  return session.run();
}
