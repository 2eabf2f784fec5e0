// The host's atomics: what a program built by synclab-nvcc tells the simulator about the
// cuda::atomic_ref objects its host threads make. The simulator runs kernels, not the host's code,
// so it cannot see the scope of a host atomic; synclab-nvcc's <cuda/atomic>
// (sim/tools/synclab-nvcc-include/cuda/atomic) calls synclab_rt_host_atomic_ref whenever a host
// thread makes an atomic_ref at thread_scope_device or thread_scope_block, and the race checker's
// host rules (host_checker.h) take a host write made after such a note as not morally strong with
// any device access; it calls synclab_rt_host_atomic_store before every store through an
// atomic_ref, with the store's memory order, and the host rules take a relaxed one as no release.
// Host threads add notes at any time; the device thread reads them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::sim::host_atomics {

struct Note {
  uint64_t addr = 0;
  int scope = 1;  // 1: thread_scope_device, 2: thread_scope_block
  std::string file;
  uint32_t line = 0;
  uint64_t seq = 0;  // when it was last made: the value of count() just after
};

// How many atomic_refs at a narrow scope host threads have made in this process so far.
uint64_t count();
// Appends to `out` the notes (one per word, scope and source line) made again or first after
// count() was `after`.
void notes_after(uint64_t after, std::vector<Note>& out);
// Host thread (through synclab_rt_host_atomic_ref): one note.
void note(const void* p, int scope, const char* file, uint32_t line);

// The latest store a host thread made through a cuda::atomic_ref at system scope to a word (noted
// by synclab-nvcc's <cuda/atomic> just before the store), with its memory order: a relaxed store
// releases nothing.
struct StoreNote {
  uint64_t addr = 0;
  int order = 5;  // cuda::memory_order: 0 relaxed, 3 release, 5 seq_cst
  std::string file;
  uint32_t line = 0;
  uint64_t seq = 0;  // the value of count() just after it was made
  // The store's source names a fence (atomic_thread_fence, __sync_synchronize) above the store's
  // line in the same definition, or cannot be read: a fence before a relaxed store makes it a
  // release (PTX ISA, "Release and Acquire Patterns"), and the host's fences are not seen, so such
  // a store is taken as a release (a fence after the store is not).
  bool fenced = false;
  // A store that releases nothing.
  bool relaxed() const { return order == 0 && !fenced; }
};
// Appends to `out` the latest store note of each word whose latest store came after count() was
// `after`.
void stores_after(uint64_t after, std::vector<StoreNote>& out);
// Host thread (through synclab_rt_host_atomic_store): a store is about to be made.
void note_store(const void* p, int order, const char* file, uint32_t line);
// The simulator, loading a module: an absolute source path its line table names. A store note's
// file is as the compiler was given it, often relative to a folder the program does not run in;
// these paths find it.
void known_source(const std::string& path);

}  // namespace synclab::sim::host_atomics
