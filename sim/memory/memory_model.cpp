#include "sim/memory/memory_model.h"

#include "sim/memory/relaxed/relaxed_model.h"
#include "sim/memory/sc_model.h"

namespace synclab::sim {

std::unique_ptr<ConsistencyModel> make_consistency_model(bool relaxed, uint64_t seed, uint32_t threads_per_block,
                                                         bool record) {
  if (!relaxed) return std::make_unique<ScModel>();
  return std::make_unique<relaxed::RelaxedModel>(seed, threads_per_block, record);
}

}  // namespace synclab::sim
