#include "sim/runtime/host_copy.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace synclab::rt {

namespace {

std::atomic<bool> g_syscall_ok{true};

// Returns 1 copied, 0 fault, -1 system call unavailable.
int vm_copy(void* dst, const void* src, size_t n) {
  char* d = static_cast<char*>(dst);
  const char* s = static_cast<const char*>(src);
  pid_t self = getpid();
  while (n > 0) {
    size_t chunk = std::min<size_t>(n, size_t(1) << 30);
    iovec local{d, chunk};
    iovec remote{const_cast<char*>(s), chunk};
    ssize_t got = process_vm_readv(self, &local, 1, &remote, 1, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EFAULT) return 0;
      return -1;
    }
    if (got == 0) return 0;
    d += got;
    s += got;
    n -= size_t(got);
  }
  return 1;
}

}  // namespace

bool checked_copy(void* dst, const void* src, size_t n) {
  if (n == 0) return true;
  if (!dst || !src) return false;
  if (g_syscall_ok.load(std::memory_order_relaxed)) {
    int r = vm_copy(dst, src, n);
    if (r >= 0) return r == 1;
    g_syscall_ok.store(false, std::memory_order_relaxed);
  }
  std::memmove(dst, src, n);
  return true;
}

bool readable(const void* p, size_t n) {
  if (n == 0) return true;
  if (!p) return false;
  if (!g_syscall_ok.load(std::memory_order_relaxed)) return true;
  char buf[4096];
  const char* s = static_cast<const char*>(p);
  // Probe one byte per page: enough to catch unmapped memory.
  size_t page = 4096;
  for (size_t off = 0; off < n; off += page - (reinterpret_cast<uintptr_t>(s + off) % page)) {
    int r = vm_copy(buf, s + off, 1);
    if (r == 0) return false;
    if (r < 0) return true;
  }
  return vm_copy(buf, s + n - 1, 1) != 0;
}

bool checked_fill(void* dst, int value, size_t n) {
  if (n == 0) return true;
  if (!dst) return false;
  // Fill a bounce buffer and copy it in, so a bad destination is caught by the system call.
  char buf[4096];
  std::memset(buf, value, sizeof buf);
  char* d = static_cast<char*>(dst);
  while (n > 0) {
    size_t chunk = std::min(n, sizeof buf);
    if (!checked_copy(d, buf, chunk)) return false;
    d += chunk;
    n -= chunk;
  }
  return true;
}

}  // namespace synclab::rt
