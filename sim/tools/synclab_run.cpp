// synclab-run: runs a program built by synclab-nvcc with the simulator configured from flags.
// It validates each value, sets the SYNCLAB_* environment variables the simulator reads, and
// replaces itself with the program, so its exit status is the program's: simcudart inside the
// program turns a 0 into SYNCLAB_ERROR_EXITCODE (--error-exitcode) when kernels produced error
// reports (sim/runtime/exit_status.h).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/exec/config.h"
#include "sim/exec/profile.h"

namespace {

std::string profile_names() {
  std::string names;
  for (const auto& p : synclab::sim::device_profiles()) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

std::string check_list_error(const std::string& list) {
  std::string why = synclab::sim::check_list_problem(list);
  return why.empty() ? why : "--check: " + why;
}

// --check's help: the checker names and what each finds, from the parser's own list.
std::string check_help() {
  std::string all, each;
  for (const auto& c : synclab::sim::checkers()) {
    if (c.in_all) all += (all.empty() ? "" : ", ") + std::string(c.name);
    each += std::string("\n    ") + c.name + ": " + c.what;
  }
  return "checkers: " + synclab::sim::check_list_syntax() + " (default all: " + all + ") [SYNCLAB_CHECK]" + each;
}

int run_main(int argc, char** argv) {
  CLI::App app{
      "Runs a program built by synclab-nvcc on the SyncLab simulator with the given settings.\n"
      "Each flag sets the SYNCLAB_* variable named in its help; unset flags leave the\n"
      "environment as it is (defaults: its model, rr scheduler, checks on, no trace).\n\n"
      "  synclab-run --model lockstep --sched pct --seed 7 -- ./prog arg1 arg2\n\n"
      "Exit status: the program's own, except that a program exiting 0 after its kernels produced\n"
      "an error report (race, sync, init, fault, hang, deadlock, ...) exits with --error-exitcode\n"
      "(default 1); warnings do not count. A program that reads the reports through the control\n"
      "API keeps its own status. 2: a bad option; 127/126: the program could not be started;\n"
      "125: synclab-run itself failed (the message says why).\n",
      "synclab-run"};
  app.prefix_command();  // everything from the program name on belongs to the program

  std::string model, memory, sched, device, trace, check, lockstep_order, dispatch, streams, trace_limit, schedule,
      profile_json;
  uint64_t seed = 0, budget = 0;
  unsigned pct_depth = 0, error_exitcode = 0;
  bool quiet = false, list_devices = false, profile = false;

  app.add_option("--model", model, "warp model: its (Volta+, a PC per thread) or lockstep (pre-Volta) [SYNCLAB_MODEL]")
      ->check(CLI::IsMember({"its", "lockstep"}));
  app.add_option("--memory", memory,
                 "memory model: sc (interleavings only) or relaxed (also the reorderings PTX allows) [SYNCLAB_MEMORY]")
      ->check(CLI::IsMember({"sc", "relaxed"}));
  app.add_option("--sched", sched, "scheduler: rr, random or pct [SYNCLAB_SCHED]")
      ->check(CLI::IsMember({"rr", "random", "pct"}));
  app.add_option("--schedule", schedule,
                 "follow the choices of a schedule FILE in the launches the trace records, then --sched (default rr) "
                 "[SYNCLAB_SCHED=replay SYNCLAB_SCHEDULE; docs/simulator.md, \"Replaying a schedule\"]");
  app.add_option("--seed", seed, "scheduler seed; a report's seed replays its run [SYNCLAB_SEED]");
  app.add_option("--pct-depth", pct_depth, "PCT bug depth d, 1..64 (default 3) [SYNCLAB_PCT_DEPTH]")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--device", device, "device profile (" + profile_names() + ") [SYNCLAB_DEVICE]");
  app.add_option("--budget", budget, "warp-steps per launch before giving up (last-resort hang check) [SYNCLAB_BUDGET]")
      ->check(CLI::PositiveNumber);
  app.add_option("--trace", trace, "write a trace of the run to FILE [SYNCLAB_TRACE]");
  app.add_option("--trace-limit", trace_limit,
                 "stop recording when the trace reaches this size, e.g. 200M (default 1G) [SYNCLAB_TRACE_LIMIT]");
  app.add_flag("--profile", profile,
               "print each launch's performance counters on stderr: global sectors and shared-memory wavefronts "
               "per request, bank conflicts, atomics, warp execution efficiency, the lines with the most excess "
               "(docs/profile.md) [SYNCLAB_PROFILE=1]");
  app.add_option("--profile-json", profile_json,
                 "append each launch's performance counters to FILE.json(l), one JSON line per launch "
                 "[SYNCLAB_PROFILE=FILE]");
  app.add_option("--dispatch", dispatch,
                 "order in which blocks start: order, reverse or random (default: order under rr, random under "
                 "random/pct) [SYNCLAB_DISPATCH]")
      ->check(CLI::IsMember({"order", "reverse", "random"}));
  app.add_option("--streams", streams,
                 "order in which work of different streams runs: order (as queued) or random (from the seed, "
                 "within each stream's order and event waits); default: order under rr, random under "
                 "random/pct [SYNCLAB_STREAMS]")
      ->check(CLI::IsMember({"order", "random"}));
  app.add_option("--check", check, check_help());
  app.add_option("--lockstep-order", lockstep_order,
                 "lockstep: which side of a divergent branch runs first [SYNCLAB_LOCKSTEP_ORDER]")
      ->check(CLI::IsMember({"taken", "fallthrough"}));
  app.add_option("--error-exitcode", error_exitcode,
                 "exit status when kernels produced error reports and the program exited 0; 0: keep the "
                 "program's own (default 1) [SYNCLAB_ERROR_EXITCODE]")
      ->check(CLI::Range(0u, 255u));
  app.add_flag("--quiet", quiet, "do not print reports on stderr (the control API still sees them) [SYNCLAB_QUIET]");
  app.add_flag("--list-devices", list_devices, "print the device profiles and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints the help, or the error and a pointer to --help
    return rc == 0 ? 0 : 2;
  }

  if (list_devices) {
    for (const auto& p : synclab::sim::device_profiles())
      std::printf("%-12s %s: cc %d.%d, %u SMs, %u CTAs / %u threads / %llu KiB shared per SM\n", p.name.c_str(),
                  p.marketing.c_str(), p.cc_major, p.cc_minor, p.sm_count, p.max_ctas_per_sm, p.max_threads_per_sm,
                  static_cast<unsigned long long>(p.shared_per_sm / 1024));
    return 0;
  }

  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (command.empty()) {
    std::fprintf(stderr, "synclab-run: no program given; usage: synclab-run [options] -- ./program [args]\n");
    return 2;
  }
  if (!device.empty() && !synclab::sim::find_profile(device)) {
    std::fprintf(stderr, "synclab-run: --device: unknown device profile '%s'; expected one of: %s\n", device.c_str(),
                 profile_names().c_str());
    return 2;
  }
  if (!check.empty()) {
    std::string err = check_list_error(check);
    if (!err.empty()) {
      std::fprintf(stderr, "synclab-run: %s\n", err.c_str());
      return 2;
    }
  }
  if (!profile_json.empty()) {
    namespace fs = std::filesystem;
    const std::string ext = fs::path(profile_json).extension().string();
    if (ext != ".json" && ext != ".jsonl") {
      std::fprintf(stderr, "synclab-run: --profile-json: %s: the file name must end in .json or .jsonl\n",
                   profile_json.c_str());
      return 2;
    }
    fs::path dir = fs::absolute(fs::path(profile_json)).parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0) {
      std::fprintf(stderr, "synclab-run: --profile-json: cannot write in %s (no such directory, or not writable)\n",
                   dir.c_str());
      return 2;
    }
    if (profile) {
      std::fprintf(stderr, "synclab-run: --profile and --profile-json: give one of them\n");
      return 2;
    }
  }
  if (!trace.empty()) {
    namespace fs = std::filesystem;
    fs::path dir = fs::absolute(fs::path(trace)).parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      std::fprintf(stderr, "synclab-run: --trace: directory %s does not exist; create it first\n", dir.c_str());
      return 2;
    }
    if (access(dir.c_str(), W_OK) != 0) {
      std::fprintf(stderr, "synclab-run: --trace: cannot write in %s\n", dir.c_str());
      return 2;
    }
  }

  auto set = [](const char* name, const std::string& value) { setenv(name, value.c_str(), 1); };
  if (!model.empty()) set("SYNCLAB_MODEL", model);
  if (!memory.empty()) set("SYNCLAB_MEMORY", memory);
  if (!sched.empty()) set(schedule.empty() ? "SYNCLAB_SCHED" : "SYNCLAB_SCHED_AFTER", sched);
  if (!schedule.empty()) {
    set("SYNCLAB_SCHED", "replay");
    set("SYNCLAB_SCHEDULE", std::filesystem::absolute(schedule).string());
  }
  if (app.count("--seed")) set("SYNCLAB_SEED", std::to_string(seed));
  if (app.count("--pct-depth")) set("SYNCLAB_PCT_DEPTH", std::to_string(pct_depth));
  if (!device.empty()) set("SYNCLAB_DEVICE", device);
  if (app.count("--budget")) set("SYNCLAB_BUDGET", std::to_string(budget));
  if (!trace.empty()) set("SYNCLAB_TRACE", trace);
  if (!check.empty()) set("SYNCLAB_CHECK", check);
  if (!lockstep_order.empty()) set("SYNCLAB_LOCKSTEP_ORDER", lockstep_order);
  if (!dispatch.empty()) set("SYNCLAB_DISPATCH", dispatch);
  if (!streams.empty()) set("SYNCLAB_STREAMS", streams);
  if (!trace_limit.empty()) set("SYNCLAB_TRACE_LIMIT", trace_limit);
  if (quiet) set("SYNCLAB_QUIET", "1");
  if (profile) set("SYNCLAB_PROFILE", "1");
  if (!profile_json.empty()) set("SYNCLAB_PROFILE", profile_json);
  if (app.count("--error-exitcode")) set("SYNCLAB_ERROR_EXITCODE", std::to_string(error_exitcode));

  std::vector<char*> cargv;
  for (auto& s : command) cargv.push_back(s.data());
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  int err = errno;
  std::string hint;
  if (err == ENOENT && command.front().find('/') == std::string::npos)
    hint = " (not found on PATH; for a program in this directory write ./" + command.front() + ")";
  std::fprintf(stderr, "synclab-run: cannot run %s: %s%s\n", cargv[0], std::strerror(err), hint.c_str());
  return err == ENOENT ? 127 : 126;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "synclab-run: %s\n", e.what());
    return 125;
  }
}
