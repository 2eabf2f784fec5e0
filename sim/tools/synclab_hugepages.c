// libsynclab_hugepages.so: a build-speed helper preloaded (LD_PRELOAD) into the compilers that
// synclab-nvcc and the C++ build run. It asks the kernel for transparent huge pages
// (madvise(MADV_HUGEPAGE)) on every large anonymous mapping the process makes, and changes
// nothing else.
//
// Why: cicc (nvcc's device compiler, with its own allocator) and cc1plus (GCC's garbage-collected
// heap) take their memory straight from mmap in chunks of megabytes and touch it 4 KiB page by
// page. On a virtual machine each first touch is a costly fault: a small lab file's nvcc compile
// takes about 85,000 of them. With huge pages it takes about 15,000 and compiles a quarter
// faster (bench/build_hugepages.sh, bench/results/build_hugepages.md). glibc's own tunable
// (glibc.malloc.hugetlb) reaches only what malloc allocates, not these mappings.
//
// Where the kernel's transparent huge pages are off ("never"), madvise fails and the mapping is
// used as it is. Thread stacks (MAP_STACK) and mappings under 2 MiB (no huge page fits) are
// left alone.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

typedef void* (*mmap_fn)(void*, size_t, int, int, int, off_t);

static mmap_fn next_mmap(void) {
  static mmap_fn next;
  if (!next) next = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
  return next;
}

static void* advise(void* p, size_t len, int flags) {
  const size_t huge = (size_t)2 << 20;
  if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && !(flags & MAP_STACK) && len >= huge)
    (void)madvise(p, len, MADV_HUGEPAGE);
  return p;
}

void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  mmap_fn next = next_mmap();
  if (!next) {
    errno = ENOSYS;
    return MAP_FAILED;
  }
  return advise(next(addr, len, prot, flags, fd, off), len, flags);
}

void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap(addr, len, prot, flags, fd, off);
}
