// The host watch (host_watch.h): protection keys, a fault handler and the trap flag.
//
// A host thread's access to a tagged page raises SIGSEGV with si_code SEGV_PKUERR. The handler
//   1. untags the page (key 0: every thread may use it),
//   2. notes a read with the element's value now (what the instruction is about to read), or, for
//      a write, copies the watched bytes of that page,
//   3. sets the trap flag in the interrupted context, and returns: the instruction runs once and
//      the CPU stops after it with SIGTRAP, where the handler notes each written element (the one
//      the fault named, and any other that changed) and tags the page again.
// While one host thread is between the two signals, another host thread's access to that page is
// not seen (the page is open for a single instruction). Handlers and the device thread share one
// spin lock; nothing in the handlers allocates or calls anything but raw system calls.
#include "sim/exec/host_watch.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <tuple>

#if defined(__x86_64__) && defined(__linux__)
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#define SYNCLAB_HOST_WATCH 1
#endif

namespace synclab::sim::host_watch {

std::atomic<int> g_open_windows{0};
std::atomic<bool> g_watching{false};

#if SYNCLAB_HOST_WATCH
namespace {

constexpr int kMaxRanges = 64;
constexpr uint64_t kRingSize = 1u << 14;
constexpr int kMaxSteppers = 16;
constexpr uint64_t kPage = 4096;
constexpr int kTrapFlag = 0x100;  // EFLAGS.TF
constexpr int kLastReads = 256;   // direct-mapped: the last read noted per element

// A host thread between its fault and its trap.
struct Stepper {
  long tid = 0;  // 0: free
  uint64_t page = 0;
  int npages = 0;
  uint64_t pages[2] = {};
  bool write = false;
  uint64_t write_addr = 0;            // the element the write fault named
  uint64_t copy_lo = 0, copy_hi = 0;  // watched bytes of the page, copied before a write
  uint8_t before[kPage];
};

struct State {
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  bool installed = false, active = false;
  int pkey = -1;
  int nranges = 0;
  Range ranges[kMaxRanges];
  uint64_t page_lo[kMaxRanges] = {}, page_hi[kMaxRanges] = {};
  Access ring[kRingSize];
  uint64_t head = 0, tail = 0, lost = 0;
  Stepper steppers[kMaxSteppers];
  uint64_t last_read_addr[kLastReads] = {}, last_read_value[kLastReads] = {};
  bool last_read_valid[kLastReads] = {};
  struct sigaction old_segv {
  }, old_trap{};
};
const struct sigaction kNoHandler {};
State* g = nullptr;  // allocated once by the first start(), never freed (handlers may run late)

void lock() {
  while (g->lock.test_and_set(std::memory_order_acquire)) __builtin_ia32_pause();
}
void unlock() { g->lock.clear(std::memory_order_release); }

long protect(uint64_t page, uint64_t len, int key) {
  return syscall(SYS_pkey_mprotect, reinterpret_cast<void*>(page), len, PROT_READ | PROT_WRITE, key);
}

uint64_t load(uint64_t addr, uint32_t size) {
  const void* p = reinterpret_cast<const void*>(addr);
  if (addr % size == 0) switch (size) {
      case 1: return __atomic_load_n(static_cast<const uint8_t*>(p), __ATOMIC_RELAXED);
      case 2: return __atomic_load_n(static_cast<const uint16_t*>(p), __ATOMIC_RELAXED);
      case 4: return __atomic_load_n(static_cast<const uint32_t*>(p), __ATOMIC_RELAXED);
      case 8: return __atomic_load_n(static_cast<const uint64_t*>(p), __ATOMIC_RELAXED);
      default: break;
    }
  uint64_t v = 0;
  std::memcpy(&v, p, size < 8 ? size : 8);
  return v;
}

int range_of(uint64_t addr) {
  for (int i = 0; i < g->nranges; ++i)
    if (addr >= g->ranges[i].base && addr < g->ranges[i].base + g->ranges[i].bytes) return i;
  return -1;
}

bool page_tagged(uint64_t page) {
  for (int i = 0; i < g->nranges; ++i)
    if (page >= g->page_lo[i] && page < g->page_hi[i]) return true;
  return false;
}

void note(uint64_t addr, uint64_t value, uint32_t grain, bool write) {
  const int slot = int((addr / grain) % kLastReads);
  if (!write) {
    // A read that returns what this element's last noted read returned adds nothing (a host
    // thread polling a flag): left out.
    if (g->last_read_valid[slot] && g->last_read_addr[slot] == addr && g->last_read_value[slot] == value) return;
    g->last_read_valid[slot] = true;
    g->last_read_addr[slot] = addr;
    g->last_read_value[slot] = value;
  } else if (g->last_read_addr[slot] == addr) {
    g->last_read_valid[slot] = false;
  }
  if (g->head - g->tail >= kRingSize) {
    ++g->lost;
    return;
  }
  g->ring[g->head % kRingSize] = Access{addr, value, grain, write};
  ++g->head;
}

Stepper* stepper(long tid, bool create) {
  for (Stepper& s : g->steppers)
    if (s.tid == tid) return &s;
  if (!create) return nullptr;
  for (Stepper& s : g->steppers)
    if (s.tid == 0) {
      s.tid = tid;
      s.npages = 0;
      s.write = false;
      return &s;
    }
  return nullptr;
}

// Passes a signal that is not the watch's to the handler that was there before.
void chain(const struct sigaction& old, int sig, siginfo_t* si, void* ctx) {
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction) old.sa_sigaction(sig, si, ctx);
    return;
  }
  if (old.sa_handler == SIG_IGN) return;
  if (old.sa_handler == SIG_DFL) {
    // Back to the default action: the fault happens again on return and ends the process as it
    // would have without the watch.
    signal(sig, SIG_DFL);
    if (sig == SIGTRAP) raise(sig);
    return;
  }
  old.sa_handler(sig);
}

void on_segv(int sig, siginfo_t* si, void* ctx) {
  auto* uc = static_cast<ucontext_t*>(ctx);
  const uint64_t addr = reinterpret_cast<uint64_t>(si->si_addr);
  if (si->si_code == SEGV_PKUERR && g) {
    lock();
    const uint64_t page = addr & ~(kPage - 1);
    Stepper* s = g->active && page_tagged(page) ? stepper(syscall(SYS_gettid), true) : nullptr;
    if (s && s->npages < 2) {
      if (s->npages == 0) g_open_windows.fetch_add(1, std::memory_order_acq_rel);
      protect(page, kPage, 0);
      s->pages[s->npages++] = page;
      const int r = range_of(addr);
      if (r >= 0) {
        const Range& R = g->ranges[r];
        const uint64_t elem = R.base + (addr - R.base) / R.grain * R.grain;
        if (uc->uc_mcontext.gregs[REG_ERR] & 2) {
          if (!s->write) {
            s->write = true;
            s->write_addr = elem;
            s->page = page;
            s->copy_lo = R.base > page ? R.base : page;
            const uint64_t end = R.base + R.bytes;
            s->copy_hi = end < page + kPage ? end : page + kPage;
            std::memcpy(s->before, reinterpret_cast<const void*>(s->copy_lo), s->copy_hi - s->copy_lo);
          }
        } else {
          note(elem, load(elem, R.grain), R.grain, false);
        }
      }
      uc->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
      unlock();
      return;
    }
    unlock();
  }
  chain(g ? g->old_segv : kNoHandler, sig, si, ctx);
}

void on_trap(int sig, siginfo_t* si, void* ctx) {
  auto* uc = static_cast<ucontext_t*>(ctx);
  if (g) {
    lock();
    if (Stepper* s = stepper(syscall(SYS_gettid), false)) {
      if (s->write && g->active) {
        const int r = range_of(s->copy_lo);
        if (r >= 0) {
          const Range& R = g->ranges[r];
          for (uint64_t a = s->copy_lo; a + R.grain <= s->copy_hi; a += R.grain) {
            const uint64_t now = load(a, R.grain);
            uint64_t was = 0;
            std::memcpy(&was, s->before + (a - s->copy_lo), R.grain);
            if (now != was || a == s->write_addr) note(a, now, R.grain, true);
          }
        }
      }
      for (int i = 0; i < s->npages; ++i)
        if (g->active && page_tagged(s->pages[i])) protect(s->pages[i], kPage, g->pkey);
      s->tid = 0;
      g_open_windows.fetch_sub(1, std::memory_order_acq_rel);
      uc->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
      unlock();
      return;
    }
    unlock();
  }
  chain(g ? g->old_trap : kNoHandler, sig, si, ctx);
}

}  // namespace

bool g_in_device_access = false;  // device thread only: it holds the lock in a DeviceAccess

bool available(std::string* why) {
  const char* env = std::getenv("SYNCLAB_HOST_READS");
  if (env && (std::strcmp(env, "0") == 0 || std::strcmp(env, "off") == 0)) {
    if (why) *why = "SYNCLAB_HOST_READS=0";
    return false;
  }
  if (g && g->installed) return true;
  // SYNCLAB_NO_PKEYS=1: behave as on a CPU or kernel without protection keys (the tests run the
  // fallback this way on machines that have them).
  const char* no_keys = std::getenv("SYNCLAB_NO_PKEYS");
  const long key = no_keys && std::strcmp(no_keys, "1") == 0 ? -1 : syscall(SYS_pkey_alloc, 0, 0);
  if (key < 0) {
    if (why) *why = "this CPU or kernel has no memory protection keys";
    return false;
  }
  syscall(SYS_pkey_free, key);
  return true;
}

bool start(const std::vector<Range>& ranges) {
  if (ranges.empty() || ranges.size() > size_t(kMaxRanges) || !available(nullptr)) return false;
  if (!g) g = new State();
  if (!g->installed) {
    // Allocated by the device thread: it alone may use pages with this key (access rights 0);
    // every other thread keeps the default, which denies keys other than 0.
    const long key = syscall(SYS_pkey_alloc, 0, 0);
    if (key < 0) return false;
    g->pkey = int(key);
    g->installed = true;
  }
  // The handlers go in at every start: a handler the program (or its test framework) put in since
  // the last launch stays, as the one to pass other faults and traps to.
  for (auto [sig, fn, old] :
       {std::tuple{SIGSEGV, &on_segv, &g->old_segv}, std::tuple{SIGTRAP, &on_trap, &g->old_trap}}) {
    struct sigaction cur {};
    sigaction(sig, nullptr, &cur);
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fn) continue;
    struct sigaction sa {};
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, old);
  }
  const bool held = g_in_device_access;  // (from inside a DeviceAccess: the lock is the device thread's)
  if (!held) lock();
  g->nranges = 0;
  for (const Range& r : ranges) {
    Range& R = g->ranges[g->nranges];
    R = r;
    g->page_lo[g->nranges] = r.base & ~(kPage - 1);
    g->page_hi[g->nranges] = (r.base + r.bytes + kPage - 1) & ~(kPage - 1);
    ++g->nranges;
  }
  bool ok = true;
  for (int i = 0; i < g->nranges && ok; ++i) ok = protect(g->page_lo[i], g->page_hi[i] - g->page_lo[i], g->pkey) == 0;
  if (!ok) {
    for (int i = 0; i < g->nranges; ++i) protect(g->page_lo[i], g->page_hi[i] - g->page_lo[i], 0);
    g->nranges = 0;
  }
  // A launch's first start begins with no notes; a later one (a region found mid-launch) keeps
  // the notes not collected yet.
  if (!g->active) {
    g->head = g->tail = g->lost = 0;
    for (bool& v : g->last_read_valid) v = false;
  }
  g->active = ok;
  g_watching.store(ok, std::memory_order_relaxed);
  if (!held) unlock();
  return ok;
}

uint64_t drain(std::vector<Access>& out, uint64_t upto) {
  if (!g) return 0;
  const bool held = g_in_device_access;  // called from inside a DeviceAccess (a store's event)
  if (!held) lock();
  while (g->tail < g->head && g->tail < upto) out.push_back(g->ring[g->tail++ % kRingSize]);
  const uint64_t lost = g->lost;
  g->lost = 0;
  if (!held) unlock();
  return lost;
}

void stop() {
  if (!g) return;
  const bool held = g_in_device_access;
  if (!held) lock();
  for (int i = 0; i < g->nranges; ++i) protect(g->page_lo[i], g->page_hi[i] - g->page_lo[i], 0);
  g->nranges = 0;
  g->active = false;
  g_watching.store(false, std::memory_order_relaxed);
  if (!held) unlock();
}

uint64_t g_head_at_access = 0;  // device thread only

uint64_t notes_before_device_access() { return g_head_at_access; }
uint64_t notes_drained() { return g ? __atomic_load_n(&g->tail, __ATOMIC_RELAXED) : 0; }

void device_access_begin() {
  // A window lasts one instruction and two signals; a host thread that never comes back (stopped
  // in a debugger) must not stop the simulation: after about 100 ms the device thread goes on.
  for (int i = 0;; ++i) {
    lock();
    g_head_at_access = g->head;
    if (g_open_windows.load(std::memory_order_acquire) == 0 || i >= 100000) {
      g_in_device_access = true;
      return;
    }
    unlock();
    if (i < 64)
      __builtin_ia32_pause();
    else
      usleep(1);
  }
}

void device_access_end() {
  g_in_device_access = false;
  unlock();
}

#else  // not x86-64 Linux: no watch; the recorder finds host writes by change detection

bool available(std::string* why) {
  if (why) *why = "the host watch needs x86-64 Linux";
  return false;
}
bool start(const std::vector<Range>&) { return false; }
uint64_t drain(std::vector<Access>&, uint64_t) { return 0; }
uint64_t notes_before_device_access() { return 0; }
uint64_t notes_drained() { return 0; }
void stop() {}
void device_access_begin() {}
void device_access_end() {}

#endif

}  // namespace synclab::sim::host_watch
