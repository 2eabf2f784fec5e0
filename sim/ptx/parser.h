// PTX text -> decoded IR (see ir.h), with CFGs, layout and line table filled in.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/ptx/ir.h"

namespace synclab::sim::ptx {

// Any reason the text cannot be used: malformed or truncated PTX, undeclared names,
// unsupported instructions or modifiers. what() is the full message, e.g.
//   "kernel.ptx:123: unsupported instruction 'tex.1d.v4.f32.s32' (CUDA source /src/lock.cu:17)"
struct ParseError : std::runtime_error {
  ParseError(std::string origin, uint32_t ptx_line, std::string cuda_file, uint32_t cuda_line,
             const std::string& message);
  std::string origin;
  uint32_t ptx_line = 0;  // 0 when not tied to a line (e.g. empty input)
  std::string cuda_file;  // "" when the PTX had no line info there
  uint32_t cuda_line = 0;
  std::string message;  // the message without location
};

// Parses one PTX module and builds the CFG of every defined function. `origin` names the text
// in messages ("lock.ptx", "fatbinary of ./a.out"). Throws ParseError.
Module parse_module(std::string_view text, const std::string& origin);

}  // namespace synclab::sim::ptx
