// Checking the pointers the program hands to copies and frees against the simulator's
// allocation table, with messages that say what the pointer is (host memory, freed memory, past
// the end of which allocation) and what to do.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "sim/exec/memory.h"

namespace synclab::rt {

// The live allocation containing [p, p+n) (n may be 0: p itself), copied out.
bool find_allocation(const void* p, uint64_t n, sim::Allocation* out);

// Describes why [p, p+n) is not usable device memory: null, host memory, freed, or running past
// the end of an allocation. `role` is "destination", "source", "pointer", ...
std::string describe_bad_device_range(const void* p, uint64_t n, const char* role);

// A validated copy: which sides are device memory (then their ranges were checked).
struct CopyPlan {
  bool dst_device = false, src_device = false;
};

// Validates a cudaMemcpy-style copy (direction, null pointers, device ranges). Records the error
// with a message naming `api` when invalid.
cudaError_t plan_copy(const char* api, void* dst, const void* src, uint64_t n, cudaMemcpyKind kind, CopyPlan* plan);

// Performs a planned copy. Host sides go through checked_copy, so a bad host pointer is an
// error, not a crash. Returns false with *why filled when a host side was not accessible.
bool execute_copy(const CopyPlan& plan, void* dst, const void* src, uint64_t n, std::string* why);

// The name a runtime allocation gets in reports: "cudaMalloc #3 (1024 bytes)".
std::string allocation_name(const char* api, uint64_t bytes);

// cudaHostRegister'ed ranges. add_ returns false when the range overlaps one registered before.
bool add_registered_range(const void* p, uint64_t n);
bool remove_registered_range(const void* p);
bool in_registered_range(const void* p, uint64_t n);

// Page-locked host memory: from cudaHostAlloc/cudaMallocHost, or registered.
bool is_pinned_host(const void* p, uint64_t n);

// An asynchronous copy in stream order, with CUDA's rules for pageable host memory: a copy
// from pageable memory takes its data when the call is made (CUDA stages it), and a copy into
// pageable memory returns only once it is done. Copies between device and pinned memory are
// truly asynchronous. `rows` copies of `width` bytes, `dpitch`/`spitch` apart (1 row for 1D).
// Returns the call's status (cudaSuccess, or the error of a synchronous part).
cudaError_t copy_in_stream(const char* api, cudaStream_t stream, const CopyPlan& plan, void* dst, size_t dpitch,
                           const void* src, size_t spitch, size_t width, size_t rows);

}  // namespace synclab::rt
