#include "sim/runtime/exit_status.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace synclab::rt {

namespace {

// Plain atomics (constant-initialized, no destructor): the exit hook runs after static
// destructors of objects created later than it was registered.
std::atomic<uint64_t> g_error_reports{0};
std::atomic<uint64_t> g_error_launches{0};
std::atomic<bool> g_program_decides{false};
std::atomic<int> g_error_exitcode{1};
std::atomic<bool> g_quiet{false};

// on_exit handler: sees the status the program passed to exit() or returned from main.
void on_program_exit(int status, void*) {
  if (status != 0 || g_program_decides.load()) return;
  const uint64_t errors = g_error_reports.load();
  const int code = g_error_exitcode.load();
  if (errors == 0 || code == 0) return;
  std::cout.flush();
  std::clog.flush();
  std::fflush(stdout);
  if (!g_quiet.load()) {
    const uint64_t launches = g_error_launches.load();
    std::fprintf(stderr,
                 "========= SyncLab EXIT STATUS %d: the program exited 0, but %llu error report%s came from "
                 "%llu kernel launch%s (SYNCLAB_ERROR_EXITCODE=0 keeps the program's own status)\n",
                 code, static_cast<unsigned long long>(errors), errors == 1 ? "" : "s",
                 static_cast<unsigned long long>(launches), launches == 1 ? "" : "es");
  }
  std::fflush(nullptr);
  // exit() cannot be asked for another status; the handlers still to run are those registered
  // before this one (the earliest of all, see below), so little is skipped.
  _exit(code);
}

// Registered before anything else of the program (simcudart's constructors run before the
// program's, and this one first among them), so it runs last: after the device thread has
// finished the running kernel, after the trace is closed and the leak summary printed.
__attribute__((constructor(101))) void register_exit_hook() { on_exit(on_program_exit, nullptr); }

}  // namespace

void exit_status_configure(const sim::Config& cfg) {
  g_error_exitcode.store(cfg.error_exitcode);
  g_quiet.store(cfg.quiet);
}

void exit_status_count(const sim::LaunchResult& result) {
  uint64_t n = 0;
  for (const sim::Report& r : result.reports) n += r.severity == sim::Severity::Error;
  if (n == 0) return;
  g_error_reports.fetch_add(n);
  g_error_launches.fetch_add(1);
}

void exit_status_program_decides() { g_program_decides.store(true); }

}  // namespace synclab::rt
