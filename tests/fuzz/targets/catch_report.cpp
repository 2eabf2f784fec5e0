// Fuzz target "catch_report": the grader's reader of Catch2's XML report. Whatever a submission's
// test process prints, the reader must return a verdict (parsed or not), never crash.
#include <string>

#include "grader/src/catch_report.h"
#include "tests/fuzz/targets/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  const auto r = synclab::grade::read_case_report(xml, "task 1: the counter");
  if (r.parsed && !r.parse_error.empty()) __builtin_trap();  // a verdict is one or the other
  synclab::grade::catch_test_spec(xml.substr(0, 256));
  return 0;
}
