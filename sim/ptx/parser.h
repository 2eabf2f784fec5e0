// PTX text -> decoded IR (see ir.h), with CFGs, layout and line table filled in.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/ptx/ir.h"

namespace synclab::sim::ptx {

// Any reason the text cannot be used: malformed or truncated PTX, undeclared names. what() is
// the full message, e.g. "kernel.ptx:123: bad number '0x' (CUDA source /src/lock.cu:17)".
// Instructions the simulator does not model (unknown opcodes or modifiers, special registers
// such as %cluster_ctarank) do not stop the parse: each stays in the code as Op::Unsupported,
// with Module::unsupported[Instr::call] saying what it is, and fails only when executed. (When
// the parse fails anyway, the error names the first unsupported instruction, which is the likely
// cause.)
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
// The message of an unsupported instruction in the style of a ParseError's what():
// "kernel.ptx:123: unsupported instruction 'tex.1d.v4.f32.s32' (CUDA source /src/lock.cu:17)".
std::string unsupported_message(const Module& m, const Instr& in);
Module parse_module(std::string_view text, const std::string& origin);

}  // namespace synclab::sim::ptx
