// Running untrusted programs (a submission's compiler run, its test program): each in its own
// process group, with a wall-clock time limit, resource limits, a minimal environment, and, when
// the grader runs as root, as an unprivileged user that this grading alone uses (no other process
// runs as it, so that when a program ends everything left of it can be killed, and two gradings
// on one machine cannot reach each other's files or processes).
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace synclab::grade {

struct Identity {
  bool drop = false;       // switch to uid/gid before exec (only possible as root)
  bool exclusive = false;  // this grading alone uses uid: after each run, all its processes are killed
  uid_t uid = 0;
  gid_t gid = 0;
  std::string name;  // for messages: "uid 62417" or "nobody"
};

// When running as root: an unused uid (and gid) of 62000-64999 that no account names and no
// process runs as, claimed for this process's lifetime with a lock file; `nobody` when none is
// free. Otherwise the current user (drop = false).
Identity sandbox_identity();

// Kills every process running as `id` (when it is exclusive): what a program left behind.
void kill_leftovers(const Identity& id);

struct RunSpec {
  std::vector<std::string> argv;  // argv[0]: a path
  std::string cwd;
  std::vector<std::string> env;  // "NAME=value", the whole environment
  double timeout_s = 300;
  double grace_s = 10;                           // after the time limit: SIGUSR1, then SIGKILL after this long
  unsigned long long memory_bytes = 8ull << 30;  // RLIMIT_AS
  unsigned long long file_bytes = 512ull << 20;  // RLIMIT_FSIZE
  Identity identity;
  int extra_fd = -1;                 // passed to the program as fd 4 (a metrics file), or -1
  unsigned long long processes = 0;  // RLIMIT_NPROC for an exclusive identity (0: none)
  size_t output_head = 16 << 10;     // keep this much of the start of stdout+stderr ...
  size_t output_tail = 48 << 10;     // ... and of its end
  // After the run, kill every process of an exclusive identity (kill_leftovers). Off only for runs
  // made together (run_sandboxed_together), which kill them once all have ended.
  bool kill_identity_after = true;
};

struct RunResult {
  bool started = false;  // false: could not start (error says why)
  std::string error;
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  bool timed_out = false;
  double seconds = 0;
  std::string output;  // stdout and stderr, merged (head and tail when long)
  size_t output_dropped = 0;
};

RunResult run_sandboxed(const RunSpec& spec);

// Runs the specs with at most `at_once` of them running at a time (each as run_sandboxed does,
// its own time limit included); the results in the order of the specs. `starting(i, slot, spec)`,
// when given, is called (one call at a time) just before spec i starts as the slot-th of those
// running at once (0 <= slot < at_once), with the copy of the spec that will run: it may change
// it (give each slot an identity of its own). What the programs left running is killed once every
// one has ended.
using Starting = std::function<void(size_t i, unsigned slot, RunSpec& spec)>;
std::vector<RunResult> run_sandboxed_together(const std::vector<RunSpec>& specs, unsigned at_once,
                                              const Starting& starting = {});

// "SIGSEGV (segmentation fault)"
std::string signal_text(int sig);

}  // namespace synclab::grade
