// hugepages_probe: maps 8 MiB of anonymous memory and an 8 MiB thread-stack-like mapping
// (MAP_STACK), touches both, and prints whether the kernel marked each for transparent huge pages
// ("hg" in the mapping's VmFlags, /proc/self/smaps): what lib/libsynclab_hugepages.so, preloaded,
// must do for the first and must not do for the second. The flag is the madvise itself, whether
// or not the kernel then found huge pages to back it.
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static int advised(void* p) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int in = 0, found = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's first line: "lo-hi perms ..."
      in = (unsigned long)p >= lo && (unsigned long)p < hi;
      continue;
    }
    if (in && strncmp(line, "VmFlags:", 8) == 0) {
      found = strstr(line, " hg") != NULL;
      break;
    }
  }
  fclose(f);
  return found;
}

int main(void) {
  const size_t len = (size_t)8 << 20;
  void* heap = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* stack = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (heap == MAP_FAILED || stack == MAP_FAILED) {
    perror("hugepages_probe: mmap");
    return 1;
  }
  memset(heap, 1, len);
  memset(stack, 1, len);
  int a = advised(heap), b = advised(stack);
  if (a < 0 || b < 0) {
    fprintf(stderr, "hugepages_probe: cannot read the mappings' VmFlags in /proc/self/smaps\n");
    return 1;
  }
  printf("anonymous 8 MiB advised: %s\n", a ? "yes" : "no");
  printf("stack 8 MiB advised: %s\n", b ? "yes" : "no");
  return 0;
}
