#include "viz/core/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace synclab::viz {

void restart_on_huge_pages(char** argv) {
  const char* no = std::getenv("SYNCLAB_NO_HUGEPAGES");
  if (no && std::strcmp(no, "1") == 0) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb")) return;  // set already (by us, or by the user)
  const std::string before = tunables ? tunables : "";
  const std::string with = before.empty() ? "glibc.malloc.hugetlb=1" : before + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", with.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not started again: go on as we are, with the environment as it was.
  if (tunables)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace synclab::viz
