// huge_pages_probe: calls restart_on_huge_pages (viz/core/huge_pages.h) as synclab-viz does, then
// prints GLIBC_TUNABLES as the program now sees it, and whether a block that glibc's malloc maps
// (8 MiB) was marked for transparent huge pages ("hg" in its VmFlags, /proc/self/smaps): what the
// tunable does once the program has started again with it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "viz/core/huge_pages.h"

namespace {

int advised(const void* p) {
  std::FILE* f = std::fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  bool in = false;
  int found = -1;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
      in = reinterpret_cast<unsigned long>(p) >= lo && reinterpret_cast<unsigned long>(p) < hi;
      continue;
    }
    if (in && std::strncmp(line, "VmFlags:", 8) == 0) {
      found = std::strstr(line, " hg") != nullptr;
      break;
    }
  }
  std::fclose(f);
  return found;
}

}  // namespace

int main(int, char** argv) {
  synclab::viz::restart_on_huge_pages(argv);
  const char* t = std::getenv("GLIBC_TUNABLES");
  std::printf("GLIBC_TUNABLES=%s\n", t ? t : "(unset)");
  const size_t len = size_t(8) << 20;
  char* block = static_cast<char*>(std::malloc(len));
  if (!block) return 1;
  std::memset(block, 1, len);
  const int a = advised(block);
  if (a < 0) {
    std::fprintf(stderr, "huge_pages_probe: cannot read the block's VmFlags in /proc/self/smaps\n");
    return 1;
  }
  std::printf("malloc'd 8 MiB advised: %s\n", a ? "yes" : "no");
  std::free(block);
  return 0;
}
