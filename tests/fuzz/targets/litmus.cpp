// Fuzz target "litmus": the litmus-test reader (sim/memory/oracle/litmus.cpp) and the oracle's
// enumeration of a test's outcomes. Any text must give tests or a LitmusError naming a line; a
// test read back from its own text must read the same; a small test's outcomes must enumerate
// (or be refused as too big), and under the PTX model every sequentially consistent outcome is
// allowed.
#include <string>

#include "sim/memory/oracle/enumerate.h"
#include "sim/memory/oracle/litmus.h"
#include "tests/fuzz/targets/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synclab::memory;
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<LitmusTest> tests;
  try {
    tests = parse_litmus(text, "fuzz.litmus");
  } catch (const LitmusError& e) {
    if (std::string(e.what()).rfind("fuzz.litmus:", 0) != 0) __builtin_trap();  // names where
    return 0;
  }
  for (const LitmusTest& t : tests) {
    const std::string again = t.to_text();
    std::vector<LitmusTest> back;
    try {
      back = parse_litmus(again, "again.litmus");
    } catch (const LitmusError&) {
      __builtin_trap();  // the writer's text must read
    }
    if (back.size() != 1 || back[0].to_text() != again) __builtin_trap();
    EnumerateOptions opt;
    opt.max_candidates = 20000;
    try {
      const Enumeration e = enumerate_outcomes(t, opt);
      for (const auto& o : e.sc)
        if (!e.ptx.count(o)) __builtin_trap();  // SC is one of the executions PTX allows
    } catch (const LitmusError&) {
      // too big to enumerate, or a test the oracle cannot model: refused with a message
    }
  }
  return 0;
}
