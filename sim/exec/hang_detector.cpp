#include "sim/exec/hang_detector.h"

#include <algorithm>

namespace synclab::sim {

std::vector<std::unique_ptr<HangDetector::WriterTable>>& HangDetector::WriterTable::spares() {
  // Tables given back on this thread, for its next launches.
  thread_local std::vector<std::unique_ptr<WriterTable>> tables;
  return tables;
}

std::unique_ptr<HangDetector::WriterTable> HangDetector::WriterTable::take() {
  std::unique_ptr<WriterTable> t;
  auto& spare = spares();
  if (!spare.empty()) {
    t = std::move(spare.back());
    spare.pop_back();
  } else {
    t = std::make_unique<WriterTable>();
    t->entries.reset(new Entry[kWriterSlots]());
  }
  if (++t->gen == 0) {  // the generations wrapped: forget every entry once
    std::fill(t->entries.get(), t->entries.get() + kWriterSlots, Entry{});
    t->gen = 1;
  }
  return t;
}

void HangDetector::WriterTable::give_back(std::unique_ptr<WriterTable> table) {
  auto& spare = spares();
  if (table && spare.size() < kMaxSpare) spare.push_back(std::move(table));
}

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
