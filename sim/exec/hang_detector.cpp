#include "sim/exec/hang_detector.h"

namespace synclab::sim {

uint64_t hash_registers(const uint64_t* regs, size_t stride, size_t count, uint32_t func, uint32_t pc) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t(func) << 32 | pc);
  for (size_t i = 0; i < count; ++i) {
    h ^= regs[i * stride];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

uint64_t hash_registers(const uint64_t* regs, size_t stride, size_t count, uint32_t func, uint32_t pc,
                        const std::vector<uint8_t>& skip) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t(func) << 32 | pc);
  for (size_t i = 0; i < count; ++i) {
    if (i < skip.size() && skip[i]) continue;
    h ^= regs[i * stride];
    h *= 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace synclab::sim
