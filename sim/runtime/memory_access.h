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
cudaError_t plan_copy(const char* api, void* dst, const void* src, uint64_t n, cudaMemcpyKind kind,
                      CopyPlan* plan);

// Performs a planned copy. Host sides go through checked_copy, so a bad host pointer is an
// error, not a crash. Returns false with *why filled when a host side was not accessible.
bool execute_copy(const CopyPlan& plan, void* dst, const void* src, uint64_t n, std::string* why);

// The name a runtime allocation gets in reports: "cudaMalloc #3 (1024 bytes)".
std::string allocation_name(const char* api, uint64_t bytes);

}  // namespace synclab::rt
