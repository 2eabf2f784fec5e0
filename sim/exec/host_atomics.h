// The host's atomics: what a program built by synclab-nvcc tells the simulator about the
// cuda::atomic_ref objects its host threads make. The simulator runs kernels, not the host's code,
// so it cannot see the scope of a host atomic; synclab-nvcc's <cuda/atomic>
// (sim/tools/synclab-nvcc-include/cuda/atomic) calls synclab_rt_host_atomic_ref whenever a host
// thread makes an atomic_ref at thread_scope_device or thread_scope_block, and the race checker's
// host rules (host_checker.h) take a host write made after such a note as not morally strong with
// any device access. Host threads add notes at any time; the device thread reads them.
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

}  // namespace synclab::sim::host_atomics
