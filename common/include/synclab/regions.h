// The regions API: name the memory a visualization should draw (lock bits, flags, a matrix of a
// wavefront, an array). Host code, both backends, header-only, no JSON:
//
//   int* locks;  cudaMalloc(&locks, 128);
//   synclab_region(locks, 128, "locks", "lock-bits", 32, 32);     // 32x32 = 1024 lock bits
//   synclab_region(flags, n * sizeof(int), "ready", "flags", n);  // n flags (4-byte each)
//   synclab_region(grid, 64 * 64 * 4, "grid", "matrix", 64, 64);  // 64x64 matrix of 4-byte ints
//   synclab_region(data, bytes, "data", "array");                 // 4-byte elements by default
//
// Kinds and shapes (dims: 0, 1 or 2 positive integers; the element count is their product):
//   lock-bits  1-bit elements; dims give the shape; none: bytes*8 bits in one row.
//              The element count must fit in bytes*8.
//   flags      one flag per element; 1 dim (the count) or none (4-byte flags).
//   array      1 dim or none (4-byte elements).
//   matrix     2 dims (rows x columns).
//   For flags, array and matrix the element size is bytes / count, which must come out whole;
//   for flags and matrix it must be 1, 2, 4 or 8 bytes.
//
// synclab_region returns 0, or prints one line to stderr saying what is wrong (null pointer,
// empty name, unknown kind, a shape that does not fit the bytes) and returns a non-zero value.
// It never throws. A valid region is
//   (a) appended to a process-wide registry (synclab::regions::count()/get(i)), which the GPU
//       trace recorder turns into Region chunks (synclab::trace::region_json), and
//   (b) passed to the simulator through the weak entry point synclab_sim_region when the program
//       runs on the simulator (simcudart defines it; on a GPU it stays null).
// Registering exactly the same region again (pointer, bytes, name, kind, shape) changes nothing.
//
// Shared memory: a __shared__ array has one copy per block and no address the host can know, so
// it is named by its kernel and its variable name, as declared in the CUDA source:
//
//   __global__ void reduce(const int* in, int* out) { __shared__ int partial[256]; ... }
//   synclab_region_shared(reduce, "partial", 256 * sizeof(int), "array", 256);
//   synclab_region_shared(scan, "tile", 1024 * 4, "matrix", 32, 32);    // extern __shared__ too
//   synclab_region_shared(nullptr, "flags", 32 * 4, "flags", 32);      // every kernel with it
//
// The arguments after the variable are those of synclab_region (bytes, kind, shape), the region's
// name is the variable's, and kind and shape follow the same rules, with elements of 1, 2, 4 or 8
// bytes. kernel is the __global__ function (what <<<>>> launches) or nullptr for every kernel that
// has a shared variable of that name. The simulator finds the variable in the kernel's PTX (nvcc
// keeps its name: _ZZ6reducePKiPiE7partial is reduce(...)::partial); bytes may not exceed a
// static array's size; an extern __shared__ array is sized by each launch (the region covers
// what fits). It records every block's writes to the array (each launch's shared memory starts
// unwritten), and the viewer draws one chosen block's copy (docs/viz.md). On a GPU the call checks
// its arguments and returns 0, but GPU traces (trace.cuh) do not record shared memory.
// synclab_region_shared returns 0, or prints one line to stderr and returns non-zero: a bad
// shape, a kernel pointer that is not a kernel, no such __shared__ variable, an array too small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#if defined(SYNCLAB_REGIONS_IMPLEMENTATION)
#define SYNCLAB_REGIONS_WEAK
#else
#define SYNCLAB_REGIONS_WEAK __attribute__((weak))
#endif

extern "C" {
// Defined by simcudart. elem_bits: bits per element (1 for lock-bits); dims: ndims (1 or 2)
// extents, already validated and filled in (never 0 dims). Returns 0, or non-zero to refuse.
SYNCLAB_REGIONS_WEAK int synclab_sim_region(const void* ptr, size_t bytes, const char* name, const char* kind,
                                            unsigned elem_bits, unsigned ndims, const unsigned* dims);
// Defined by simcudart: a __shared__ variable of `kernel` (its host function; null: any kernel).
SYNCLAB_REGIONS_WEAK int synclab_sim_shared_region(const void* kernel, const char* variable, size_t bytes,
                                                   const char* name, const char* kind, unsigned elem_bits,
                                                   unsigned ndims, const unsigned* dims);
}

#undef SYNCLAB_REGIONS_WEAK

namespace synclab {

// One registered region, with its shape filled in (ndims is 1 or 2).
struct RegionInfo {
  const void* ptr = nullptr;
  size_t bytes = 0;
  std::string name;
  std::string kind;        // "lock-bits", "flags", "matrix" or "array"
  unsigned elem_bits = 0;  // bits per element
  unsigned ndims = 0;
  unsigned dims[2] = {0, 0};
  uint64_t elements() const { return ndims == 2 ? uint64_t(dims[0]) * dims[1] : dims[0]; }
};

namespace regions {
namespace detail {

struct Registry {
  std::mutex mu;
  std::vector<RegionInfo> list;
};
inline Registry& registry() {
  static Registry r;
  return r;
}

inline int fail(const char* name, const char* what, const char* api = "synclab_region") {
  std::fprintf(stderr, "%s(\"%s\"): %s\n", api, name ? name : "(null)", what);
  return 1;
}

// Validates and fills in *out; 0 or non-zero (after a message on stderr).
inline int describe(const void* ptr, size_t bytes, const char* name, const char* kind, unsigned ndims,
                    const unsigned long long* d, RegionInfo* out, const char* api = "synclab_region") {
  char msg[256];
  auto fail = [api](const char* n, const char* what) { return detail::fail(n, what, api); };
  if (!name || !*name) return fail(name, "the name is empty; give the region a name");
  if (!ptr) return fail(name, "the pointer is null (allocate the memory before naming it)");
  if (bytes == 0) return fail(name, "the region has 0 bytes");
  if (!kind) kind = "";
  const bool bits = std::strcmp(kind, "lock-bits") == 0;
  const bool flags = std::strcmp(kind, "flags") == 0;
  const bool matrix = std::strcmp(kind, "matrix") == 0;
  const bool array = std::strcmp(kind, "array") == 0;
  if (!bits && !flags && !matrix && !array) {
    std::snprintf(msg, sizeof msg, "unknown kind \"%s\" (use \"lock-bits\", \"flags\", \"matrix\" or \"array\")", kind);
    return fail(name, msg);
  }
  if (ndims > 2) return fail(name, "at most 2 dimensions");
  for (unsigned i = 0; i < ndims; ++i)
    if (d[i] == 0 || d[i] > 0xffffffffull) {
      std::snprintf(msg, sizeof msg, "dimension %u is %llu; dimensions must be 1 .. 4294967295", i + 1, d[i]);
      return fail(name, msg);
    }
  if (matrix && ndims != 2) return fail(name, "a matrix needs 2 dimensions (rows, columns)");
  if ((flags || array) && ndims > 1) {
    std::snprintf(msg, sizeof msg, "%s takes 1 dimension (the element count) or none", kind);
    return fail(name, msg);
  }
  RegionInfo r;
  r.ptr = ptr;
  r.bytes = bytes;
  r.name = name;
  r.kind = kind;
  unsigned long long count = 1;
  for (unsigned i = 0; i < ndims; ++i) count *= d[i];  // each <= 2^32, so 2 of them fit
  if (bits) {
    if (ndims == 0) {
      if (bytes > 0x1fffffffull) return fail(name, "too many bits for one row; give dimensions");
      count = 8ull * bytes;
      r.ndims = 1;
      r.dims[0] = unsigned(count);
    }
    if (count > 8ull * bytes) {
      std::snprintf(msg, sizeof msg, "%llu lock bits do not fit in %zu bytes (%llu bits)", count, bytes, 8ull * bytes);
      return fail(name, msg);
    }
    r.elem_bits = 1;
  } else {
    unsigned long long elem = 4;
    if (ndims == 0) {
      if (bytes % 4 != 0 || bytes / 4 > 0xffffffffull) {
        std::snprintf(msg, sizeof msg, "%zu bytes are not a whole number of 4-byte elements; give the count", bytes);
        return fail(name, msg);
      }
      count = bytes / 4;
      r.ndims = 1;
      r.dims[0] = unsigned(count);
    } else {
      if (count > bytes || bytes % count != 0) {
        std::snprintf(msg, sizeof msg, "%zu bytes do not divide into %llu equal elements", bytes, count);
        return fail(name, msg);
      }
      elem = bytes / count;
    }
    if ((flags || matrix) && elem != 1 && elem != 2 && elem != 4 && elem != 8) {
      std::snprintf(msg, sizeof msg,
                    "%zu bytes / %llu elements = %llu bytes per element; %s elements must be 1, "
                    "2, 4 or 8 bytes",
                    bytes, count, elem, kind);
      return fail(name, msg);
    }
    if (elem * 8 > 0xffffffffull) return fail(name, "elements are too large");
    r.elem_bits = unsigned(elem * 8);
  }
  if (r.ndims == 0) {
    r.ndims = ndims;
    for (unsigned i = 0; i < ndims; ++i) r.dims[i] = unsigned(d[i]);
  }
  *out = std::move(r);
  return 0;
}

inline bool same(const RegionInfo& a, const RegionInfo& b) {
  return a.ptr == b.ptr && a.bytes == b.bytes && a.name == b.name && a.kind == b.kind && a.elem_bits == b.elem_bits &&
         a.ndims == b.ndims && a.dims[0] == b.dims[0] && a.dims[1] == b.dims[1];
}

inline int add(const void* ptr, size_t bytes, const char* name, const char* kind, unsigned ndims,
               const unsigned long long* d) noexcept {
  try {
    RegionInfo r;
    if (int rc = describe(ptr, bytes, name, kind, ndims, d, &r)) return rc;
    {
      Registry& reg = registry();
      std::lock_guard<std::mutex> lock(reg.mu);
      for (const RegionInfo& old : reg.list)
        if (same(old, r)) return 0;
      reg.list.push_back(r);
    }
    if (synclab_sim_region) {
      int rc = synclab_sim_region(r.ptr, r.bytes, r.name.c_str(), r.kind.c_str(), r.elem_bits, r.ndims, r.dims);
      if (rc != 0) {
        std::fprintf(stderr, "synclab_region(\"%s\"): the simulator refused the region (%d)\n", name, rc);
        return rc;
      }
    }
    return 0;
  } catch (...) {
    return fail(name, "out of memory");
  }
}

inline int add_shared(const void* kernel, const char* variable, size_t bytes, const char* kind, unsigned ndims,
                      const unsigned long long* d) noexcept {
  try {
    RegionInfo r;
    // The shape rules are synclab_region's; a stand-in pointer passes the null check.
    static const char stand_in = 0;
    if (int rc = describe(&stand_in, bytes, variable, kind, ndims, d, &r, "synclab_region_shared")) return rc;
    if (r.elem_bits != 1 && r.elem_bits != 8 && r.elem_bits != 16 && r.elem_bits != 32 && r.elem_bits != 64)
      return fail(variable, "shared region elements must be 1, 2, 4 or 8 bytes", "synclab_region_shared");
    if (synclab_sim_shared_region) {
      int rc = synclab_sim_shared_region(kernel, r.name.c_str(), r.bytes, r.name.c_str(), r.kind.c_str(), r.elem_bits,
                                         r.ndims, r.dims);
      if (rc != 0) {
        std::fprintf(stderr, "synclab_region_shared(\"%s\"): the simulator refused the region (%d)\n", variable, rc);
        return rc;
      }
    }
    return 0;
  } catch (...) {
    return fail(variable, "out of memory", "synclab_region_shared");
  }
}

}  // namespace detail

// How many regions were registered so far.
inline size_t count() {
  detail::Registry& reg = detail::registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  return reg.list.size();
}
// A copy of entry i (registration order; i < count()). An empty RegionInfo when out of range.
inline RegionInfo get(size_t i) {
  detail::Registry& reg = detail::registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  return i < reg.list.size() ? reg.list[i] : RegionInfo{};
}
// A copy of all entries.
inline std::vector<RegionInfo> all() {
  detail::Registry& reg = detail::registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  return reg.list;
}
// Forget every entry (tests; a program that frees and reuses its memory).
inline void clear() {
  detail::Registry& reg = detail::registry();
  std::lock_guard<std::mutex> lock(reg.mu);
  reg.list.clear();
}

}  // namespace regions
}  // namespace synclab

// synclab_region(ptr, bytes, name, kind[, dim1[, dim2]]): see the top of this file.
template <class... Dims>
inline int synclab_region(const void* ptr, size_t bytes, const char* name, const char* kind, Dims... dims) {
  static_assert(sizeof...(Dims) <= 2, "synclab_region takes at most 2 dimensions");
  static_assert((std::is_integral<Dims>::value && ...), "synclab_region dimensions are integers");
  unsigned long long d[2] = {0, 0};
  unsigned n = 0;
  bool negative = false;
  ((negative = negative || (std::is_signed<Dims>::value && (long long)dims < 0), d[n++] = (unsigned long long)dims),
   ...);
  if (negative) return synclab::regions::detail::fail(name, "a dimension is negative");
  return synclab::regions::detail::add(ptr, bytes, name, kind, n, d);
}

// synclab_region_shared(kernel, variable, bytes, kind[, dim1[, dim2]]): see the top of this file.
// kernel: the __global__ function (any function pointer type) or nullptr.
template <class Kernel, class... Dims>
inline int synclab_region_shared(Kernel kernel, const char* variable, size_t bytes, const char* kind, Dims... dims) {
  static_assert(sizeof...(Dims) <= 2, "synclab_region_shared takes at most 2 dimensions");
  static_assert((std::is_integral<Dims>::value && ...), "synclab_region_shared dimensions are integers");
  static_assert(std::is_pointer<Kernel>::value || std::is_null_pointer<Kernel>::value,
                "synclab_region_shared: the first argument is the kernel (or nullptr)");
  unsigned long long d[2] = {0, 0};
  unsigned n = 0;
  bool negative = false;
  ((negative = negative || (std::is_signed<Dims>::value && (long long)dims < 0), d[n++] = (unsigned long long)dims),
   ...);
  if (negative) return synclab::regions::detail::fail(variable, "a dimension is negative", "synclab_region_shared");
  const void* k = nullptr;
  if constexpr (std::is_pointer<Kernel>::value) k = reinterpret_cast<const void*>(kernel);
  return synclab::regions::detail::add_shared(k, variable, bytes, kind, n, d);
}
