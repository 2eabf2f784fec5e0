// Fuzz target "ptx": the PTX front end, text to IR (lexer, parser, CFG, layout and line table,
// inline asm and .loc included). A bad text must end in ParseError, nothing else.
#include <string_view>

#include "sim/ptx/parser.h"
#include "tests/fuzz/targets/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    synclab::sim::ptx::parse_module(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ptx");
  } catch (const synclab::sim::ptx::ParseError&) {
  }
  return 0;
}
