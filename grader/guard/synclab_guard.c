// libsynclab_guard.so: what a graded test program may ask of the kernel. The grader preloads it
// (LD_PRELOAD) into every run of a program linked with a student's files and sets SYNCLAB_GUARD.
// Its constructor runs before any code of the program itself (the executable's initialisers run
// after those of the libraries loaded with it) and installs a seccomp filter that the process and
// its threads keep until they end:
//   - no new processes (fork, vfork, clone without CLONE_THREAD; clone3 answers ENOSYS so that
//     the C library falls back to clone for threads) and no execve;
//   - signals only to itself; no ptrace, no reading or writing another process's memory;
//   - no network (sockets other than AF_UNIX, which the CUDA driver opens and listens on; no
//     connect or accept), no new sessions or process groups, no namespaces, mounts, modules,
//     io_uring, BPF or perf events;
//   - it also makes the process non-dumpable, so that processes of the same user cannot open
//     its /proc files, and the filter keeps it so.
// Everything else (files, memory, threads, time) is left to the sandbox's user and limits.
//
// SYNCLAB_GUARD=1: install, or go on without it (a kernel without seccomp); =require: install or
// exit with status 125 and a message; =selftest: install, check that fork() is refused, then
// exit 0 (or 126 when it is not). Unset: do nothing.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __x86_64__
#error "libsynclab_guard.so is written for x86-64"
#endif

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

// Filter program builders.
#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG0_LO BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERRNO(e) (SECCOMP_RET_ERRNO | ((e)&SECCOMP_RET_DATA))

static const int denied[] = {SYS_fork,
                             SYS_vfork,
                             SYS_execve,
                             SYS_execveat,
                             SYS_ptrace,
                             SYS_process_vm_readv,
                             SYS_process_vm_writev,
                             SYS_tkill,
                             SYS_socketpair,
                             SYS_connect,
                             SYS_accept,
                             SYS_accept4,
                             SYS_setsid,
                             SYS_setpgid,
                             SYS_unshare,
                             SYS_setns,
                             SYS_mount,
                             SYS_umount2,
                             SYS_pivot_root,
                             SYS_chroot,
                             SYS_keyctl,
                             SYS_add_key,
                             SYS_request_key,
                             SYS_bpf,
                             SYS_perf_event_open,
                             SYS_userfaultfd,
                             SYS_io_uring_setup,
                             SYS_io_uring_enter,
                             SYS_io_uring_register,
                             SYS_open_by_handle_at,
                             SYS_name_to_handle_at,
                             SYS_init_module,
                             SYS_finit_module,
                             SYS_delete_module,
                             SYS_kexec_load,
                             SYS_kexec_file_load,
                             SYS_reboot,
                             SYS_personality,
                             SYS_process_madvise,
                             SYS_pidfd_open,
                             SYS_pidfd_getfd,
                             SYS_pidfd_send_signal,
                             SYS_kcmp};

static int install(void) {
  const unsigned self = (unsigned)getpid();
  struct sock_filter prog[160];
  size_t n = 0;
  // Only x86-64 system calls (no x32, no 32-bit entry).
  prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
  prog[n++] = (struct sock_filter)RET(SECCOMP_RET_KILL_PROCESS);
  prog[n++] = (struct sock_filter)LOAD_NR;
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
  prog[n++] = (struct sock_filter)RET(ERRNO(EPERM));
  for (size_t i = 0; i < ARRAY_LEN(denied); ++i) {
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[i], 0, 1);
    prog[n++] = (struct sock_filter)RET(ERRNO(EPERM));
  }
  // socket: local (AF_UNIX) only, which the CUDA driver creates, binds and listens on at start-up;
  // with connect and accept refused, nothing can talk to it or through it.
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 4);
  prog[n++] = (struct sock_filter)LOAD_ARG0_LO;
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0);
  prog[n++] = (struct sock_filter)RET(ERRNO(EPERM));
  prog[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
  // clone3: "not implemented", so that pthread_create falls back to clone.
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
  prog[n++] = (struct sock_filter)RET(ERRNO(ENOSYS));
  // clone: threads only.
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 3);
  prog[n++] = (struct sock_filter)LOAD_ARG0_LO;
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0);
  prog[n++] = (struct sock_filter)RET(ERRNO(EPERM));
  prog[n++] = (struct sock_filter)LOAD_NR;  // (reached only by clone with CLONE_THREAD: reload)
  // kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo: to this process only.
  static const int to_self[] = {SYS_kill, SYS_tgkill, SYS_rt_sigqueueinfo, SYS_rt_tgsigqueueinfo};
  for (size_t i = 0; i < ARRAY_LEN(to_self); ++i) {
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)to_self[i], 0, 4);
    prog[n++] = (struct sock_filter)LOAD_ARG0_LO;
    prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 1, 0);
    prog[n++] = (struct sock_filter)RET(ERRNO(EPERM));
    prog[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
  }
  // prctl: not to become dumpable again, nor to let another process trace this one.
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 5);
  prog[n++] = (struct sock_filter)LOAD_ARG0_LO;
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_DUMPABLE, 2, 0);
  prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_PTRACER, 1, 0);
  prog[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
  prog[n++] = (struct sock_filter)RET(ERRNO(EPERM));
  prog[n++] = (struct sock_filter)RET(SECCOMP_RET_ALLOW);
  if (n > ARRAY_LEN(prog)) abort();  // (a programming error, caught by the self-test)

  struct sock_fprog fprog = {(unsigned short)n, prog};
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) return -1;
  return 0;
}

static void say(const char* a, const char* b) {
  // (stdio may not be ready this early; write(2) is)
  ssize_t r = write(2, a, strlen(a));
  r = write(2, b, strlen(b));
  r = write(2, "\n", 1);
  (void)r;
}

__attribute__((constructor(101))) static void synclab_guard(void) {
  const char* mode = getenv("SYNCLAB_GUARD");
  if (!mode || !*mode) return;
  if (install() != 0) {
    if (strcmp(mode, "require") == 0 || strcmp(mode, "selftest") == 0) {
      say("synclab guard: cannot install the system-call filter: ", strerror(errno));
      _exit(125);
    }
    return;
  }
  if (strcmp(mode, "selftest") == 0) {
    pid_t p = fork();
    if (p == 0) _exit(0);  // (a child means the filter does not work)
    if (p > 0 || errno != EPERM) {
      say("synclab guard: self-test failed: ", "fork() was not refused");
      _exit(126);
    }
    if (kill(1, 0) == 0 || errno != EPERM) {
      say("synclab guard: self-test failed: ", "kill() of another process was not refused");
      _exit(126);
    }
    _exit(0);
  }
}
