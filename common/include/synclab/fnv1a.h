// FNV-1a, 64 bits (Fowler, Noll and Vo; the offset basis and prime of the published 64-bit
// variant): a quick hash of bytes that is not for security. It names the build of a program: in a
// trace's header (synclab-viz's steering checks it) and in a saved litmus run (synclab-litmus run
// --save). (The grader, built on its own, keeps its own copy: grader/src/grader.cpp.)
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace synclab {

constexpr uint64_t kFnv1aBasis = 14695981039346656037ull;

// The hash of `s` continued from `h` (kFnv1aBasis for a new one).
inline uint64_t fnv1a(std::string_view s, uint64_t h = kFnv1aBasis) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The hash of a file's bytes and their number; false when it cannot be read.
inline bool file_fnv1a(const std::string& path, uint64_t* hash, uint64_t* bytes) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  uint64_t h = kFnv1aBasis, n = 0;
  std::vector<char> buf(1 << 16);
  while (f.read(buf.data(), std::streamsize(buf.size())) || f.gcount() > 0) {
    h = fnv1a(std::string_view(buf.data(), size_t(f.gcount())), h);
    n += uint64_t(f.gcount());
  }
  *hash = h;
  *bytes = n;
  return true;
}

}  // namespace synclab
