// Fuzz target "trace": the trace reader (synclab::trace::load) and a walk over what it indexed.
// A damaged file must give nullptr and a message, or a trace whose every indexed event can be read.
#include <synclab/trace_reader.h>

#include "tests/fuzz/targets/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string error;
  auto t = synclab::trace::load(synclab::fuzz::input_file(data, size, ".trace"), &error);
  if (!t) {
    if (error.empty()) __builtin_trap();  // a refusal must say why
    return 0;
  }
  volatile uint64_t sum = 0;  // (every event read, as a viewer would)
  for (size_t i = 0; i < t->event_count(); ++i) sum = sum + t->event(i).time + size_t(t->launch_of(i) + 1);
  for (const auto& r : t->shared_regions) sum = sum + synclab::trace::shared_region_problem(r).size();
  for (const auto& r : t->reports)
    if (r.is_object() && r.contains("id") && r["id"].is_number_unsigned()) t->report_by_id(r["id"].get<uint64_t>());
  return 0;
}
