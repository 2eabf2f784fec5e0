// Fuzz target "viz_model": the viewer's model of a trace (Model::open replays every launch) and
// the state at the start, middle and end of each launch. A damaged file must give nullptr and a
// message, or a model whose every launch can be shown.
#include "tests/fuzz/targets/fuzz_input.h"
#include "viz/core/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string error;
  auto m = synclab::viz::Model::open(synclab::fuzz::input_file(data, size, ".trace"), &error);
  if (!m) {
    if (error.empty()) __builtin_trap();  // a refusal must say why
    return 0;
  }
  for (const auto& l : m->launches()) {
    const uint64_t steps = l.end_event - l.first_event;
    if (!steps) continue;
    for (uint64_t c : {uint64_t{0}, steps / 2, steps - 1}) {
      m->state_at(l.index, c);
      m->event_at(l.index, c);
    }
  }
  return 0;
}
