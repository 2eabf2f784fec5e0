// Joins the PTX of relocatable device code (-rdc) modules into one module, the job nvlink does
// for a GPU build, so that a kernel in one .cu file can call a __device__ function or use a
// __device__ variable defined in another.
//
// Text level, on nvcc's PTX: the modules are concatenated under one header (.version the
// highest, .target and .address_size of the first); names with internal linkage (static
// functions and variables, $str constants, .debug_str labels, non-.visible entries) are renamed
// where another module uses the same name; later copies of a .weak definition are dropped; .file
// numbers are renumbered per module (and the .loc / inlined_at references with them). .extern
// declarations stay: the PTX parser merges a declaration with the definition that follows.
// Two .visible definitions of one name are an error, as for nvlink.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace synclab::rt {

struct PtxLinkError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PtxPart {
  std::string text;
  std::string origin;  // for messages: "prog (a.cu)"
};

struct LinkedPtx {
  std::string text;
  // Per part: the names that were renamed (old -> new), to find registered kernels and
  // variables with internal linkage in the joined module.
  std::vector<std::map<std::string, std::string>> renamed;
};

LinkedPtx link_ptx(const std::vector<PtxPart>& parts);

}  // namespace synclab::rt
