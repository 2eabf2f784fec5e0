// Copies that touch host memory the runtime cannot vouch for (the host side of cudaMemcpy, a
// host callback's buffer): a bad host pointer must become cudaErrorInvalidValue with a message,
// not a segmentation fault in the runtime. The copy goes through process_vm_readv on our own
// process, which the kernel performs with fault checking; where that system call is not
// allowed (seccomp), it falls back to memcpy.
#pragma once

#include <cstddef>

namespace synclab::rt {

// Copies n bytes; false (and nothing or part copied) when either range is not accessible.
bool checked_copy(void* dst, const void* src, size_t n);
// Fills n bytes with value; false when the range is not writable.
bool checked_fill(void* dst, int value, size_t n);
// True when [p, p+n) can be read.
bool readable(const void* p, size_t n);

}  // namespace synclab::rt
