#include "sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace synclab::grade {

namespace {

// Whether a process runs as `uid` (real or effective), from the owners of /proc/<pid>.
bool uid_in_use(uid_t uid) {
  DIR* d = opendir("/proc");
  if (!d) return true;  // cannot tell: do not use it
  bool used = false;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    struct stat st {};
    if (stat(fmt::format("/proc/{}", e->d_name).c_str(), &st) == 0 && st.st_uid == uid) {
      used = true;
      break;
    }
  }
  closedir(d);
  return used;
}

}  // namespace

Identity sandbox_identity() {
  Identity id;
  if (geteuid() != 0) return id;
  id.drop = true;
  constexpr uid_t kFirst = 62000, kCount = 3000;
  const uid_t start = uid_t(getpid()) % kCount;
  for (uid_t k = 0; k < kCount; ++k) {
    const uid_t uid = kFirst + (start + k) % kCount;
    if (getpwuid(uid) || getgrgid(gid_t(uid))) continue;
    // Claimed while this process lives (flock ends with it); a stale file claims nothing.
    int fd = open(fmt::format("/tmp/.synclab-grade-uid-{}.lock", uid).c_str(),
                  O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) continue;
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_uid != 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      continue;
    }
    if (uid_in_use(uid)) {
      close(fd);
      continue;
    }
    id.uid = uid;
    id.gid = gid_t(uid);
    id.exclusive = true;
    id.name = fmt::format("uid {}", uid);
    return id;  // (fd stays open: the claim)
  }
  const passwd* pw = getpwnam("nobody");
  id.uid = pw ? pw->pw_uid : 65534;
  const group* gr = getgrnam("nogroup");
  id.gid = gr ? gr->gr_gid : (pw ? pw->pw_gid : 65534);
  id.name = "nobody";
  return id;
}

void kill_leftovers(const Identity& id) {
  if (!id.drop || !id.exclusive) return;
  // kill(-1) from a process of that uid reaches every process of it (and not the caller).
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(id.gid) != 0 || setuid(id.uid) != 0) _exit(1);
    kill(-1, SIGKILL);
    _exit(0);
  }
  if (pid > 0) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  const char* what = strsignal(sig);
  return fmt::format("SIG{} ({})", name ? name : std::to_string(sig).c_str(), what ? what : "unknown signal");
}

namespace {

// In the child, between fork and exec: only async-signal-safe calls. Reports a failure on `err_fd`.
[[noreturn]] void child_exec(const RunSpec& spec, const std::vector<char*>& argv, const std::vector<char*>& envp,
                             int out_fd, int err_fd_in) {
  // Out of the way of the descriptors set up below.
  const int err_fd = fcntl(err_fd_in, F_DUPFD_CLOEXEC, 900);
  if (err_fd < 0) _exit(127);
  auto fail = [&](const char* what) {
    int e = errno;
    (void)!write(err_fd, what, strlen(what));
    (void)!write(err_fd, ": ", 2);
    const char* why = strerror(e);
    (void)!write(err_fd, why, strlen(why));
    _exit(127);
  };
  setpgid(0, 0);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull < 0 || dup2(devnull, 0) < 0) fail("stdin");
  if (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) fail("stdout");
  if (spec.extra_fd >= 0 && spec.extra_fd != 4 && dup2(spec.extra_fd, 4) < 0) fail("fd 4");
  if (spec.extra_fd == 4) fcntl(4, F_SETFD, 0);
  // Everything else closes (err_fd closes on exec).
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != err_fd && !(fd == 4 && spec.extra_fd >= 0)) close(fd);
  rlimit lim;
  lim.rlim_cur = lim.rlim_max = spec.memory_bytes;
  if (setrlimit(RLIMIT_AS, &lim) != 0) fail("memory limit");
  lim.rlim_cur = lim.rlim_max = spec.file_bytes;
  if (setrlimit(RLIMIT_FSIZE, &lim) != 0) fail("file size limit");
  lim.rlim_cur = lim.rlim_max = 0;
  setrlimit(RLIMIT_CORE, &lim);
  lim.rlim_cur = lim.rlim_max = 256;
  setrlimit(RLIMIT_NOFILE, &lim);
  if (spec.processes && spec.identity.drop && spec.identity.exclusive) {
    lim.rlim_cur = lim.rlim_max = spec.processes;  // (counts the threads of that uid)
    if (setrlimit(RLIMIT_NPROC, &lim) != 0) fail("process limit");
  }
  // CPU time: a backstop for the wall clock (twice it, for programs with threads).
  lim.rlim_cur = lim.rlim_max = rlim_t(spec.timeout_s * 2 + spec.grace_s + 10);
  setrlimit(RLIMIT_CPU, &lim);
  if (spec.identity.drop) {
    if (setgroups(0, nullptr) != 0) fail("setgroups");
    if (setgid(spec.identity.gid) != 0) fail("setgid");
    if (setuid(spec.identity.uid) != 0) fail("setuid");
    if (setuid(0) == 0) {  // must not be able to return
      errno = EPERM;
      fail("dropping root");
    }
  }
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) fail("chdir");
  signal(SIGPIPE, SIG_DFL);
  execve(argv[0], argv.data(), envp.data());
  fail(argv[0]);
  _exit(127);
}

}  // namespace

RunResult run_sandboxed(const RunSpec& spec) {
  RunResult res;
  if (spec.argv.empty()) {
    res.error = "nothing to run";
    return res;
  }
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    res.error = fmt::format("pipe: {}", strerror(errno));
    return res;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    res.error = fmt::format("pipe: {}", strerror(errno));
    close(out[0]);
    close(out[1]);
    return res;
  }
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    res.error = fmt::format("fork: {}", strerror(errno));
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    return res;
  }
  if (pid == 0) {
    close(out[0]);
    close(err[0]);
    child_exec(spec, argv, envp, out[1], err[1]);
  }
  setpgid(pid, pid);  // (also done by the child: whichever runs first)
  close(out[1]);
  close(err[1]);

  // Did exec work? The error pipe closes on exec, or carries the reason.
  std::string exec_error;
  {
    char buf[512];
    ssize_t n;
    while ((n = read(err[0], buf, sizeof buf)) > 0) exec_error.append(buf, size_t(n));
    close(err[0]);
  }

  std::string head, tail;
  size_t dropped = 0;
  auto keep = [&](const char* p, size_t n) {
    size_t take = std::min(n, spec.output_head - std::min(spec.output_head, head.size()));
    head.append(p, take);
    p += take;
    n -= take;
    if (!n) return;
    tail.append(p, n);
    if (tail.size() > 2 * spec.output_tail) {
      size_t cut = tail.size() - spec.output_tail;
      dropped += cut;
      tail.erase(0, cut);
    }
  };
  using clock = std::chrono::steady_clock;
  const auto deadline = t0 + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(spec.timeout_s));
  auto kill_at = clock::time_point::max();
  bool open = true;
  int status = 0;
  bool reaped = false;
  // Once its output has closed, the program is waited for on a pidfd, which wakes when it exits;
  // where the kernel has none, by sleeps of 1 ms doubling up to 50. (A fixed 50 ms sleep made
  // each short run, such as a test program's listing, cost about 50 ms more than it took.)
  int pidfd = -1;
  bool pidfd_tried = false;
  int backoff_ms = 1;
  while (!reaped) {
    auto now = clock::now();
    if (!res.timed_out && now >= deadline) {
      res.timed_out = true;
      kill(-pid, SIGUSR1);  // the simulator stops the running kernel and says where its threads are
      kill_at = now + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(spec.grace_s));
    }
    if (res.timed_out && now >= kill_at) {
      kill(-pid, SIGKILL);
      kill_at = clock::time_point::max();
    }
    auto until = std::min(res.timed_out ? kill_at : deadline, now + std::chrono::milliseconds(200));
    int wait_ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count());
    if (wait_ms < 1) wait_ms = 1;
    if (open) {
      pollfd p{out[0], POLLIN, 0};
      int r = poll(&p, 1, wait_ms);
      if (r > 0) {
        char buf[65536];
        ssize_t n = read(out[0], buf, sizeof buf);
        if (n > 0) {
          keep(buf, size_t(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          open = false;
        }
      }
    } else {
      if (!pidfd_tried) {
        pidfd_tried = true;
        pidfd = int(syscall(SYS_pidfd_open, pid, 0));  // (glibc 2.36's <sys/pidfd.h> lacks extern "C")
      }
      if (pidfd >= 0) {
        pollfd p{pidfd, POLLIN, 0};
        poll(&p, 1, wait_ms);
      } else {
        usleep(useconds_t(std::min(wait_ms, backoff_ms)) * 1000);
        backoff_ms = std::min(backoff_ms * 2, 50);
      }
    }
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) reaped = true;
  }
  // Drain what is left, without waiting for leftovers of the group that might hold the pipe.
  if (open) {
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    char buf[65536];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0) keep(buf, size_t(n));
  }
  close(out[0]);
  if (pidfd >= 0) close(pidfd);
  kill(-pid, SIGKILL);                                          // anything the program left running
  if (spec.kill_identity_after) kill_leftovers(spec.identity);  // ... also outside its process group
  res.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  res.output = head;
  if (dropped) res.output += fmt::format("\n[... {} bytes of output left out ...]\n", dropped);
  res.output += tail;
  res.output_dropped = dropped;
  if (!exec_error.empty()) {
    res.error = exec_error;
    return res;
  }
  res.started = true;
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.signal = WTERMSIG(status);
  return res;
}

std::vector<RunResult> run_sandboxed_together(const std::vector<RunSpec>& specs, unsigned at_once,
                                              const Starting& starting) {
  std::vector<RunResult> results(specs.size());
  std::vector<Identity> used;  // (each identity that ran something, once)
  std::atomic<size_t> next{0};
  std::mutex m;
  auto work = [&](unsigned slot) {
    for (size_t i; (i = next++) < specs.size();) {
      RunSpec spec = specs[i];
      spec.kill_identity_after = false;
      {
        std::lock_guard<std::mutex> lock(m);
        try {
          if (starting) starting(i, slot, spec);
        } catch (const std::exception& e) {  // (not started: the result says why)
          results[i].error = e.what();
          continue;
        }
        bool seen = false;
        for (const Identity& u : used) seen = seen || (u.uid == spec.identity.uid && u.drop == spec.identity.drop);
        if (!seen) used.push_back(spec.identity);
      }
      results[i] = run_sandboxed(spec);
    }
  };
  const unsigned threads = unsigned(std::min<size_t>(std::max(1u, at_once), specs.size()));
  if (threads <= 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (std::thread& t : pool) t.join();
  }
  for (const Identity& u : used) kill_leftovers(u);
  return results;
}

}  // namespace synclab::grade
