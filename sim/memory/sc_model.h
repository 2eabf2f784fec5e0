// Sequential consistency (SYNCLAB_MEMORY=sc, the default): every execution is an interleaving of
// the threads' instructions, so every load reads memory's newest value and every store becomes it.
// Nothing to remember; fences, barriers and warp synchronization order nothing more than the
// interleaving already does.
#pragma once

#include "sim/memory/memory_model.h"

namespace synclab::sim {

class ScModel final : public ConsistencyModel {
 public:
  bool relaxed() const override { return false; }
  uint64_t load(const MemThread&, uint64_t, uint32_t, uint64_t latest, MemOrder, uint64_t) override { return latest; }
  bool store(const MemThread&, uint64_t, uint32_t, uint64_t, uint64_t, MemOrder, uint64_t) override { return true; }
  uint64_t rmw_read(const MemThread&, uint64_t, uint32_t, uint64_t latest, MemOrder, uint64_t, bool,
                    const uint64_t*) override {
    return latest;
  }
  bool rmw_write(const MemThread&, uint64_t, uint32_t, uint64_t, bool wrote, MemOrder, uint64_t) override {
    return wrote;
  }
};

}  // namespace synclab::sim
