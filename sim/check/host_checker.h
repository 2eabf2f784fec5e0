// The host as a thread at system scope (part of the race checker, SYNCLAB_CHECK=race).
//
// Host threads read and write mapped pinned and managed memory while a kernel runs; the simulator
// does not execute their code, but it sees what they write: before every device access to such
// memory it compares the words the device has touched in this launch with what it last saw there,
// and a difference no device write explains is a host write (made between the two looks). The host
// is then one more thread, outside every block and outside the GPU: only system scope reaches it
// (PTX ISA, "Memory Consistency Model": scope, morally strong, causality order). Two rules:
//
//   H1. A device access of a word after a host write to it, where the access is not morally strong
//       with the host's write (a plain access, or an atomic/strong access at .cta or .gpu scope)
//       and no system-scope acquire by the device read a host write that came after it: a race.
//   H2. A host write to a word the device accessed before, where that access was not morally strong
//       with it and no system-scope release of the device (st.release.sys, atom.release.sys,
//       fence.sc.sys / fence.acq_rel.sys, __threadfence_system()) came between the two: a race.
//
// Both rules assume the best of what is not seen: the host's own accesses are taken to be strong at
// system scope (host atomics; except a host write to a word for which a host thread made a
// cuda::atomic_ref at thread_scope_device or thread_scope_block during the launch, which
// synclab-nvcc's <cuda/atomic> notes (host_atomics.h): such a write is morally strong with no device
// access), every host write is taken as a release (except a store through a cuda::atomic_ref with
// memory_order_relaxed, which <cuda/atomic> notes too: a device acquire of it acquires nothing),
// the host is taken to have acquired every system-scope release of the device made before
// its write, and a system-scope acquire by any device thread counts for every
// device thread. So a report is always a real race under PTX; a race that depends on the host's
// unseen reads is missed (docs/checkers.md, "The host"). Host writes are seen only to words the
// device has accessed in this launch (the first `kMaxWords` of them).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/exec/host_atomics.h"
#include "sim/ptx/ir.h"

namespace synclab::sim {

struct HostFinding {
  enum class Rule : uint8_t { DeviceAfterHost, HostAfterDevice } rule = Rule::DeviceAfterHost;
  uint64_t addr = 0;
  uint32_t size = 0;
  // The device's access: its thread (linear block, thread in block) and instruction.
  uint32_t block = 0, thread = 0;
  const ptx::Instr* instr = nullptr;
  bool write = false;       // the device's access wrote
  bool atomic = false;      // it was a read-modify-write
  uint64_t host_value = 0;  // the value the host wrote
  // H1: the device thread read a host write at system scope with a relaxed access and did not
  // acquire it (no fence after it): that read, for the report.
  const ptx::Instr* unacquired = nullptr;
  // ... and a fence after that read that would have acquired it but for its scope (.gpu or .cta:
  // __threadfence(), __threadfence_block()), for the report.
  const ptx::Instr* unacquired_narrow_fence = nullptr;
  // H2: the device's last release before the host's write, when it was narrower than system
  // scope (the hand-over that does not reach the host), for the report.
  const ptx::Instr* narrow_release = nullptr;
  // H1: the device acquired a flag after the host's write, but the host had raised that flag with a
  // relaxed store (no release): the device's read of the flag and the host's store's line.
  const ptx::Instr* relaxed_flag_read = nullptr;
  std::string relaxed_flag_file;
  uint32_t relaxed_flag_line = 0;
  // The host wrote the word through a cuda::atomic_ref at a scope that does not reach the GPU: the
  // note of that reference (scope 0: none).
  int host_scope = 0;
  std::string host_file;
  uint32_t host_line = 0;
};

class HostChecker {
 public:
  static constexpr size_t kMaxWords = 512;
  // The most passes one look makes over the watched words while the host keeps writing (sweep()).
  static constexpr int kMaxPasses = 64;  // as RelaxedModel::sync_host

  // Before a device access to host-visible memory: compare the watched words with what was last
  // seen there (every difference is a host write, checked against H2).
  void look();
  // After the device's access of `size` bytes at `addr` (memory at `p`): checks H1 and remembers
  // the access. `atomic` for a read-modify-write; `read`: what memory held when a load or
  // read-modify-write read it (a host write made after the look); `left`: what a store or
  // read-modify-write left in memory. Without `left` a write's word is read back, which takes a
  // host write made since the device's for the device's own: a host that answers at once (a flag
  // the device cleared, raised again) would go unseen.
  void access(uint32_t block, uint32_t thread, uint64_t addr, uint32_t size, const uint8_t* p, bool write, bool atomic,
              const ptx::Instr& I, const uint64_t* read, const uint64_t* left = nullptr);
  void fence(uint32_t block, uint32_t thread, const ptx::Instr& I);

  HostChecker() : notes_seen_(host_atomics::count()) {}

  std::vector<HostFinding>& findings() { return findings_; }
  bool any() const { return !words_.empty(); }

  // Whether an access with these semantics is morally strong with a (strong) host access: strong
  // and at system scope (volatile is relaxed at system scope).
  static bool reaches_host(const ptx::Instr& I, bool atomic);

  // For tests: called in every pass of a look before the pass reads its i-th watched word (in the
  // order the words were first accessed), where a host thread may write.
  void between_words_for_test(std::function<void(size_t)> f) { between_words_ = std::move(f); }

 private:
  struct DevAccess {
    uint64_t tick;
    uint32_t block, thread;
    const ptx::Instr* instr;
    bool write, atomic;
  };
  struct Word {
    const uint8_t* p = nullptr;
    uint32_t size = 0;
    uint64_t seen = 0;
    // The last host write seen: made after tick `lo` and by tick `hi` (0: none).
    uint64_t host_lo = 0, host_hi = 0;
    uint64_t host_value = 0;
    const host_atomics::Note* host_narrow = nullptr;  // the last host write was made at a narrow scope
    // the last host write was a relaxed store through an atomic_ref: its note
    const host_atomics::StoreNote* host_relaxed = nullptr;
    bool reported = false;              // a race on this word was reported (one is enough)
    std::vector<DevAccess> since_host;  // device accesses after the last host write (the last few)
  };
  struct ThreadState {
    uint64_t pending = 0;  // a relaxed system-scope read of a host write, not yet acquired (its hi)
    const ptx::Instr* pending_instr = nullptr;
    const ptx::Instr* narrow_fence = nullptr;  // a narrower fence since that read, which did not acquire it
  };
  static uint64_t key(uint64_t addr, uint32_t size) { return addr << 4 | size; }
  static HostFinding finding(HostFinding::Rule rule, uint64_t addr, uint32_t size, const DevAccess& a,
                             uint64_t host_value);
  void report(const HostFinding& f, Word& w);
  void host_wrote(uint64_t k, Word& w, uint64_t v, uint64_t now);
  // One pass over the watched words: every difference is a host write made by `now`. True when
  // it saw one.
  bool pass(uint64_t now);
  // Passes until one sees nothing new (at most kMaxPasses).
  void sweep(uint64_t now);
  // Reads the host's notes of narrow-scope atomic_refs made since the last call.
  void take_notes();
  static void note_scope(HostFinding& f, const host_atomics::Note* n);

  std::unordered_map<uint64_t, Word> words_;
  std::vector<uint64_t> order_;                        // the words' keys, in the order first accessed
  std::unordered_map<uint64_t, ThreadState> threads_;  // by (block << 32 | thread)
  uint64_t tick_ = 1;
  uint64_t last_look_ = 0;
  uint64_t known_ = 0;                          // the latest host write (its hi) some device thread acquired
  uint64_t last_release_ = 0;                   // tick of the device's latest system-scope release
  const ptx::Instr* narrow_release_ = nullptr;  // the device's latest release narrower than .sys
  uint64_t narrow_release_tick_ = 0;
  // The host's latest atomic_ref store to each word (host_atomics::StoreNote), by address.
  std::unordered_map<uint64_t, host_atomics::StoreNote> stores_;
  // The latest device read at system scope of a host write that was a relaxed store (a flag
  // raised without a release): its tick, the read, and the host's store.
  uint64_t relaxed_flag_tick_ = 0;
  const ptx::Instr* relaxed_flag_read_ = nullptr;
  host_atomics::StoreNote relaxed_flag_;
  std::vector<HostFinding> findings_;
  std::function<void(size_t)> between_words_;
  uint64_t notes_seen_;  // host_atomics::count() when the notes were last read (at the launch's start)
  std::unordered_map<uint64_t, host_atomics::Note> narrow_;  // by address: made during this launch
};

}  // namespace synclab::sim
