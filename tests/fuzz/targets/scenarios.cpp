// Fuzz target "scenarios": a lab's scenarios.txt, read the way `./synclab scenario` and
// scripts/build-slides read it (scripts/scenarios.sh), then each scenario's words handed to the
// two parsers they reach:
//   - the harness arguments (field 2, {trace} replaced, split on blanks as the shell splits an
//     unquoted word list) to a harness program's sub-command parser (labs/common/synclab_lab.h:
//     Commands, Args, exploration_from), with sub-commands like the labs' own;
//   - the synclab-viz options (field 4 on, split with quotes respected as xargs does) to the
//     viewer's command line (viz/app/cli.cpp) and, when that accepts them, to the view options
//     (--launch, --step, --report, --select; --from and --to as cursor specs) on a recorded trace.
// Each must give a result or a clear refusal: a usage error with a message, never a crash.
//
// The shell's own splitting (sed, grep, read, xargs) is mirrored here, not fuzzed: bash and xargs
// read any bytes safely, and the script turns off pathname expansion for the harness words.
// Output is silenced (many inputs are usage errors that print the usage); SYNCLAB_FUZZ_VERBOSE=1
// shows it, e.g. when replaying a finding.
#include <cctype>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "labs/common/synclab_lab.h"
#include "tests/fuzz/targets/fuzz_input.h"
#include "viz/app/options.h"

namespace {

using synclab::lab::Args;

// Silences stdout and stderr while alive (unless SYNCLAB_FUZZ_VERBOSE is set).
class Quiet {
 public:
  Quiet() {
    static const bool verbose = std::getenv("SYNCLAB_FUZZ_VERBOSE") != nullptr;
    if (verbose) return;
    std::fflush(stdout);
    std::fflush(stderr);
    const int null = open("/dev/null", O_WRONLY);
    if (null < 0) return;
    saved_[0] = dup(1);
    saved_[1] = dup(2);
    dup2(null, 1);
    dup2(null, 2);
    close(null);
  }
  ~Quiet() {
    std::fflush(stdout);
    std::fflush(stderr);
    for (int fd = 1; fd <= 2; ++fd)
      if (saved_[fd - 1] >= 0) {
        dup2(saved_[fd - 1], fd);
        close(saved_[fd - 1]);
      }
  }

 private:
  int saved_[2] = {-1, -1};
};

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The words of an unquoted shell expansion ($args with the default IFS: blanks only).
std::vector<std::string> shell_words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!w.empty()) out.push_back(w), w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

// xargs's splitting: blanks separate, '...' and "..." quote (no escapes inside), a backslash
// outside quotes takes the next character. false on an unmatched quote (xargs refuses the line).
bool xargs_words(const std::string& s, std::vector<std::string>* out) {
  std::string w;
  bool have = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\'' || c == '"') {
      const size_t close = s.find(c, i + 1);
      const size_t nl = s.find('\n', i + 1);
      if (close == std::string::npos || (nl != std::string::npos && nl < close)) return false;
      w += s.substr(i + 1, close - i - 1);
      have = true;
      i = close;
    } else if (c == '\\' && i + 1 < s.size()) {
      w += s[++i];
      have = true;
    } else if (blank(c)) {
      if (have) out->push_back(w), w.clear(), have = false;
    } else {
      w += c;
      have = true;
    }
  }
  if (have) out->push_back(w);
  return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// A harness program with sub-commands like the labs' (names, option lists, exploration).
int run_harness(const std::vector<std::string>& words) {
  synclab::lab::Commands commands("fuzz_harness", "a harness with sub-commands like the labs'");
  auto task = [](const Args& a) {
    const synclab::lab::Exploration e = synclab::lab::exploration_from(a, 10, 20, {"sc", "relaxed"});
    (void)a.num("threads", 2);
    (void)a.num("ordering", 0);
    (void)a.get("where", "warps");
    (void)a.get("trace", "");
    return !e.models.empty();
  };
  commands.add("v1", "[--where warps|lanes] [--show WHAT] [--trace FILE]", "a task", {"where", "show", "trace"}, task);
  commands.add("orderings", "[--ordering K] [--show WHAT] [--trace FILE]", "a task", {"ordering", "show", "trace"},
               task);
  commands.add("bakery", "[--threads N] [--where warps|lanes]", "a task", {"threads", "where", "show", "trace"}, task);
  commands.add("message-passing", "[--show stale]", "not graded", {"show", "trace"}, task, true, false);
  commands.add("puzzle", "", "no exploration", {"trace"}, task, false);
  std::vector<std::string> storage{"fuzz_harness"};
  storage.insert(storage.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (std::string& w : storage) argv.push_back(w.data());
  argv.push_back(nullptr);
  return commands.run(int(storage.size()), argv.data());
}

// The viewer on one recorded trace, opened once.
synclab::viz::app::App* viewer() {
  static std::unique_ptr<synclab::viz::app::App> app = [] {
    const char* env = std::getenv("SYNCLAB_FUZZ_SCENARIO_TRACE");
    const std::string path = env && *env ? env : SYNCLAB_FUZZ_SCENARIO_TRACE;
    std::string error;
    auto model = synclab::viz::Model::open(path, &error);
    if (!model || model->launches().empty()) {
      std::fprintf(stderr, "fuzz_scenarios: cannot open the trace %s: %s (set SYNCLAB_FUZZ_SCENARIO_TRACE)\n",
                   path.c_str(), error.c_str());
      std::exit(2);
    }
    synclab::viz::app::AppOptions options;
    options.interactive = false;
    return std::make_unique<synclab::viz::app::App>(std::move(model), options);
  }();
  return app.get();
}

void run_viewer(const std::vector<std::string>& options) {
  using namespace synclab::viz::app;
  std::vector<std::string> storage{"synclab-viz", "scenario.trace"};
  storage.insert(storage.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  for (const std::string& w : storage) argv.push_back(w.c_str());
  CliOptions o;
  if (parse_command_line(int(argv.size()), argv.data(), &o) >= 0) return;  // refused (or --help)
  App& app = *viewer();
  app.set_launch(app.default_launch());
  std::string error;
  if (!apply_view_options(app, o, &error)) {
    if (error.empty()) __builtin_trap();  // a refusal must say why
    return;
  }
  for (const std::string* spec : {&o.from, &o.to}) {
    uint64_t cursor = 0;
    error.clear();
    if (!spec->empty() && !resolve_cursor(app, *spec, &cursor, &error) && error.empty()) __builtin_trap();
    if (!spec->empty() && error.empty() && cursor >= app.steps()) __builtin_trap();  // past the launch
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Quiet quiet;
  for (std::string line : split(text, '\n')) {
    // scenario_lines: no comments, blank lines, the program line or gif lines.
    size_t first = line.find_first_not_of(" \t\r\v\f");
    if (first == std::string::npos || line[first] == '#' || line.compare(first, 8, "program:") == 0) continue;
    if (line.compare(first, 4, "gif:") == 0) {
      // scenario_gif_lines: "NAME | synclab-viz options"; build-slides hands the options to the
      // viewer (after its own --export FILE.gif).
      const size_t bar = line.find('|', first);
      std::vector<std::string> options;
      if (bar != std::string::npos && xargs_words(line.substr(bar + 1), &options)) run_viewer(options);
      continue;
    }
    // IFS='|' read -r n a _ v: the fourth variable takes the rest of the line.
    std::vector<std::string> fields = split(line, '|');
    std::string args = fields.size() > 1 ? fields[1] : "";
    // scenario_viz_options: the fields after the third are viewer options, or "layout: KEYS"
    // (--layout KEYS, spaces removed).
    std::string viz, layout;
    for (size_t i = 3; i < fields.size(); ++i) {
      const std::string& f = fields[i];
      const size_t at = f.find_first_not_of(" \t");
      if (at != std::string::npos && f.compare(at, 7, "layout:") == 0) {
        for (char c : f.substr(at + 7))
          if (!std::isspace(static_cast<unsigned char>(c))) layout += c;
      } else {
        viz += (viz.empty() ? "" : " ") + f;
      }
    }
    // args="${args//\{trace\}/$trace}"
    for (size_t at; (at = args.find("{trace}")) != std::string::npos;)
      args.replace(at, 7, "build/scenarios/00-fuzz.trace");
    run_harness(shell_words(args));
    std::vector<std::string> options;
    if (xargs_words(viz, &options)) {
      if (!layout.empty()) options.insert(options.end(), {"--layout", layout});
      run_viewer(options);
    }
  }
  return 0;
}
