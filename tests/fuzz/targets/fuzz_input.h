// Shared by the fuzz targets: the entry point libFuzzer calls, and a file holding the input for
// readers that take a path (traces). Each target is one .cpp file of this directory; the same
// file links into libFuzzer (./synclab fuzz) or into replay_main.cpp (ctest fuzz.NAME).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace synclab::fuzz {

// Writes the input to a file of this process (the same path each time) and returns its path.
inline std::string input_file(const uint8_t* data, size_t size, const char* suffix) {
  static const std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                                  "/synclab-fuzz-" + std::to_string(static_cast<long>(getpid())) + suffix;
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace synclab::fuzz
