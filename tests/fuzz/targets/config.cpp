// Fuzz target "config": the SYNCLAB_* configuration parser (Config::set, what
// Config::from_environment applies to each variable). Input: lines "NAME=value"; a NAME that is
// one byte picks a variable by number, so that the fuzzer reaches every variable quickly.
#include <string>

#include "sim/exec/config.h"
#include "tests/fuzz/targets/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto& names = synclab::sim::Config::variables();
  synclab::sim::Config c;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string name = line.substr(0, eq);
    if (name.size() == 1) name = names[static_cast<unsigned char>(name[0]) % names.size()];
    const synclab::sim::Config before = c;
    const std::string expected = c.set(name, line.substr(eq + 1));
    // A refused value leaves the configuration as it was.
    if (!expected.empty() && (c.memory != before.memory || c.seed != before.seed || c.budget != before.budget ||
                              c.device != before.device || c.check_list != before.check_list))
      __builtin_trap();
  }
  return 0;
}
