// Reading one word of memory that host threads may write at any moment (mapped pinned or managed
// memory): the memory model reads the host's words this way, and so does the host watch
// (sim/exec/host_watch.h), whose namespace it shares.
#pragma once

#include <cstdint>

namespace synclab::sim::host_watch {

// One word (1, 2, 4 or 8 bytes; 8 for any other size), read at once.
inline uint64_t load_word(const uint8_t* p, uint32_t size) {
  switch (size) {
    case 1: return __atomic_load_n(p, __ATOMIC_RELAXED);
    case 2: return __atomic_load_n(reinterpret_cast<const uint16_t*>(p), __ATOMIC_RELAXED);
    case 4: return __atomic_load_n(reinterpret_cast<const uint32_t*>(p), __ATOMIC_RELAXED);
    default: return __atomic_load_n(reinterpret_cast<const uint64_t*>(p), __ATOMIC_RELAXED);
  }
}

}  // namespace synclab::sim::host_watch
