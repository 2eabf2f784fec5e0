// The host's writes in program order: what a host function writes to a block of memory, write by
// write, in the order its instructions run. Lab 08 uses it on task 3's host side: the simulator
// sees a host thread's writes only by the values they leave (docs/simulator.md, "The host's
// accesses"), so a host that publishes `asked` before it writes the request would pass every run,
// where the kernel reads the request a little after the flag. Here the order itself is the data.
//
// How: the block's pages are made read-only while the function runs. Each write faults; the fault
// handler makes the pages writable, copies the block, sets the trap flag and returns, so that the
// writing instruction runs once and the CPU stops after it (SIGTRAP). There the handler notes every
// element of the block that changed (or the one the fault named, when the value written was the
// same), and makes the pages read-only again. Reads do not fault. x86-64 Linux only (the trap
// flag); elsewhere supported() is false and record() runs the function without noting anything.
//
// Only one record() at a time, and nothing else may write the block meanwhile (no kernel running
// on it): the memory should be a page of the caller's own (PageBlock below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__x86_64__) && defined(__linux__)
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#define SYNCLAB_HOST_WRITES 1
#endif

namespace synclab::lab::host_writes {

// One write: the element at byte `offset` of the block (4-byte elements) holds `value` after it.
struct Write {
  size_t offset = 0;
  uint32_t value = 0;
};

// A page of its own, zeroed, for record(); unmapped (or freed) by the destructor. `ptr` is the
// block's first byte.
struct PageBlock {
  void* ptr = nullptr;
  PageBlock();
  PageBlock(const PageBlock&) = delete;
  PageBlock& operator=(const PageBlock&) = delete;
  ~PageBlock();
};

#if SYNCLAB_HOST_WRITES
namespace detail {

constexpr int kMaxWrites = 256;
constexpr size_t kBlock = 4096;
constexpr long long kTrapFlag = 0x100;  // EFLAGS.TF

struct State {
  uint8_t* base = nullptr;
  size_t bytes = 0;
  bool stepping = false;
  size_t fault_offset = 0;
  uint8_t before[kBlock];
  Write writes[kMaxWrites];
  int count = 0;
  int lost = 0;
  struct sigaction old_segv {
  }, old_trap{};
};
inline State g_state;

inline void note(size_t offset, uint32_t value) {
  if (g_state.count < kMaxWrites)
    g_state.writes[g_state.count++] = Write{offset, value};
  else
    ++g_state.lost;
}

inline uint32_t element(size_t offset) {
  uint32_t v = 0;
  std::memcpy(&v, g_state.base + offset, sizeof v);
  return v;
}

// Hands a signal that is not ours to the handler that was there before (or the default action).
inline void chain(const struct sigaction& old, int sig, siginfo_t* si, void* ctx) {
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) {
    old.sa_sigaction(sig, si, ctx);
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);  // the instruction faults again, now with the default action
  }
}

inline void on_segv(int sig, siginfo_t* si, void* ctx) {
  const auto addr = reinterpret_cast<uintptr_t>(si->si_addr);
  const auto base = reinterpret_cast<uintptr_t>(g_state.base);
  if (g_state.stepping || addr < base || addr >= base + kBlock) return chain(g_state.old_segv, sig, si, ctx);
  mprotect(g_state.base, kBlock, PROT_READ | PROT_WRITE);
  std::memcpy(g_state.before, g_state.base, g_state.bytes);
  g_state.fault_offset = size_t(addr - base) & ~size_t(3);
  g_state.stepping = true;
  static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs[REG_EFL] |= kTrapFlag;
}

inline void on_trap(int sig, siginfo_t* si, void* ctx) {
  if (!g_state.stepping) return chain(g_state.old_trap, sig, si, ctx);
  static_cast<ucontext_t*>(ctx)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
  g_state.stepping = false;
  bool changed = false;
  for (size_t off = 0; off + 4 <= g_state.bytes; off += 4)
    if (std::memcmp(g_state.before + off, g_state.base + off, 4) != 0) {
      note(off, element(off));
      changed = true;
    }
  if (!changed && g_state.fault_offset + 4 <= g_state.bytes) note(g_state.fault_offset, element(g_state.fault_offset));
  mprotect(g_state.base, kBlock, PROT_READ);
}

}  // namespace detail

inline bool supported() { return true; }

inline PageBlock::PageBlock() {
  ptr = mmap(nullptr, detail::kBlock, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (ptr == MAP_FAILED) throw std::runtime_error("host_writes::PageBlock: mmap failed");
}
inline PageBlock::~PageBlock() { munmap(ptr, detail::kBlock); }

// Runs fn() with the block [base, base + bytes) watched (base page-aligned, bytes at most a page)
// and returns its writes there in program order.
inline std::vector<Write> record(void* base, size_t bytes, const std::function<void()>& fn) {
  using namespace detail;
  if (reinterpret_cast<uintptr_t>(base) % kBlock != 0 || bytes == 0 || bytes > kBlock)
    throw std::invalid_argument("host_writes::record: the block must start a page and fit in it");
  g_state.base = static_cast<uint8_t*>(base);
  g_state.bytes = bytes;
  g_state.count = g_state.lost = 0;
  g_state.stepping = false;
  struct sigaction sa {};
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sa.sa_sigaction = on_segv;
  sigaction(SIGSEGV, &sa, &g_state.old_segv);
  sa.sa_sigaction = on_trap;
  sigaction(SIGTRAP, &sa, &g_state.old_trap);
  if (mprotect(base, kBlock, PROT_READ) != 0) {
    sigaction(SIGSEGV, &g_state.old_segv, nullptr);
    sigaction(SIGTRAP, &g_state.old_trap, nullptr);
    throw std::runtime_error("host_writes::record: mprotect failed");
  }
  struct Restore {
    void* base;
    ~Restore() {
      mprotect(base, kBlock, PROT_READ | PROT_WRITE);
      sigaction(SIGSEGV, &g_state.old_segv, nullptr);
      sigaction(SIGTRAP, &g_state.old_trap, nullptr);
    }
  } restore{base};
  fn();
  return std::vector<Write>(g_state.writes, g_state.writes + g_state.count);
}
#else
inline bool supported() { return false; }
inline PageBlock::PageBlock() : ptr(std::calloc(1, 4096)) {
  if (!ptr) throw std::bad_alloc();
}
inline PageBlock::~PageBlock() { std::free(ptr); }
inline std::vector<Write> record(void*, size_t, const std::function<void()>& fn) {
  fn();
  return {};
}
#endif

}  // namespace synclab::lab::host_writes
