// Run under libsynclab_guard.so by grader_unit_tests: tries what the system-call filter must refuse
// and what a test program needs, and prints one line each: "NAME allowed" or "NAME refused ERRNO".
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

void say(const char* what, bool ok, int err) {
  if (ok) std::printf("%s allowed\n", what);
  else std::printf("%s refused %s\n", what, strerrorname_np(err));
}

}  // namespace

int main() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  errno = 0;
  pid_t p = fork();
  if (p == 0) _exit(0);
  if (p > 0) waitpid(p, nullptr, 0);
  say("fork", p >= 0, errno);

  // /dev/null is no program: without the filter execve fails with EACCES, with it with EPERM (and
  // the probe goes on either way).
  errno = 0;
  char* const argv[] = {const_cast<char*>("/dev/null"), nullptr};
  int r = execv("/dev/null", argv);
  say("execve", r == 0, errno);

  errno = 0;
  r = kill(1, 0);
  say("kill-other", r == 0, errno);
  errno = 0;
  r = kill(getpid(), 0);
  say("kill-self", r == 0, errno);

  errno = 0;
  int s = socket(AF_INET, SOCK_STREAM, 0);
  say("socket-inet", s >= 0, errno);
  errno = 0;
  s = socket(AF_UNIX, SOCK_STREAM, 0);
  say("socket-unix", s >= 0, errno);
  if (s >= 0) {
    sockaddr_un peer {};
    peer.sun_family = AF_UNIX;
    std::strcpy(peer.sun_path + 1, "synclab-guard-probe");  // (abstract: no file)
    errno = 0;
    int c = connect(s, reinterpret_cast<sockaddr*>(&peer), sizeof peer);
    say("connect", c == 0, errno);
  }

  errno = 0;
  long t = ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
  say("ptrace", t == 0, errno);

  errno = 0;
  r = prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  say("set-dumpable", r == 0, errno);
  std::printf("dumpable %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));

  errno = 0;
  r = setsid();
  say("setsid", r >= 0, errno);

  bool ran = false;
  std::thread([&] { ran = true; }).join();
  say("thread", ran, 0);

  errno = 0;
  int fd = open("probe-file.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  bool wrote = fd >= 0 && write(fd, "x", 1) == 1;
  if (fd >= 0) close(fd);
  say("file-write", wrote, errno);
  return 0;
}
