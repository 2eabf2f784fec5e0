// Tokenizer for PTX text. Tokens are views into the caller's text, which must outlive them.
//
// A Word is an identifier, directive or dotted opcode in one piece: ".reg", "%r12", "%tid.x",
// "$L__BB0_1", "atom.global.cas.b32", "ld.shared::cta.u32" (a "::" inside a word is kept).
// A Number starts with a digit and runs over letters, digits and dots ("42", "0x1F", "9.0",
// "0f3F800000", "1.5e-3"); the parser interprets it. Signs are separate Punct tokens.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace synclab::sim::ptx {

enum class Tok : uint8_t { End, Word, Number, String, Punct };

struct Token {
  Tok kind = Tok::End;
  uint32_t line = 0;      // 1-based
  std::string_view text;  // String tokens include their quotes
  bool is(char c) const { return kind == Tok::Punct && text[0] == c; }
  bool is(std::string_view w) const { return kind == Tok::Word && text == w; }
};

// Raised for text that is not PTX at the character level (garbage bytes, unterminated
// strings or comments).
struct LexError : std::runtime_error {
  LexError(uint32_t l, const std::string& m) : std::runtime_error(m), line(l) {}
  uint32_t line;
};

// The whole text as tokens, ending with one Tok::End token. Throws LexError.
std::vector<Token> tokenize(std::string_view text);

}  // namespace synclab::sim::ptx
