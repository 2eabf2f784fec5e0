// Fuzz target "fatbin": the fatbinary reader (container, entries, decompression, the choice of
// the PTX entry). A bad container must end in FatbinError, nothing else.
#include "sim/runtime/fatbinary_reader.h"
#include "tests/fuzz/targets/fuzz_input.h"

using namespace synclab::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const Fatbin f = parse_fatbin(data, size);
    for (const FatbinEntry& e : f.entries) {
      try {
        entry_text(e, "fuzz.fatbin");
      } catch (const FatbinError&) {
      }
    }
    for (uint32_t arch : {75u, 90u}) {
      try {
        select_ptx(f, arch, "fuzz.fatbin");
      } catch (const FatbinError&) {
      }
    }
  } catch (const FatbinError&) {
  }
  return 0;
}
