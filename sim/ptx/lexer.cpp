// PTX tokenizer: one pass over the text, comments and whitespace dropped.
#include "sim/ptx/lexer.h"

#include <cstdio>

namespace synclab::sim::ptx {
namespace {

bool is_word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' || c == '.';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word_char(char c) { return is_word_start(c) || is_digit(c); }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string describe_byte(unsigned char c) {
  char buf[32];
  if (c >= 0x21 && c < 0x7f)
    std::snprintf(buf, sizeof buf, "'%c'", c);
  else
    std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  return buf;
}

}  // namespace

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  out.reserve(s.size() / 4 + 16);
  uint32_t line = 1;
  size_t i = 0, n = s.size();
  auto push = [&](Tok k, size_t b, size_t e) { out.push_back({k, line, s.substr(b, e - b)}); };

  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      uint32_t start = line;
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= n) throw LexError(start, "unterminated /* comment");
      i += 2;
      continue;
    }
    size_t b = i;
    if (is_word_start(c)) {
      ++i;
      for (;;) {
        if (i < n && is_word_char(s[i])) {
          ++i;
          continue;
        }
        // "::" joins state-space/cache qualifiers: shared::cta, L2::cache_hint.
        if (i + 2 < n && s[i] == ':' && s[i + 1] == ':' && is_word_char(s[i + 2])) {
          i += 2;
          continue;
        }
        break;
      }
      push(Tok::Word, b, i);
      continue;
    }
    if (is_digit(c)) {
      bool hexlike = c == '0' && i + 1 < n &&
                     (s[i + 1] == 'x' || s[i + 1] == 'X' || s[i + 1] == 'f' || s[i + 1] == 'F' || s[i + 1] == 'd' ||
                      s[i + 1] == 'D');
      ++i;
      while (i < n && (is_alnum(s[i]) || s[i] == '.' || s[i] == '_')) {
        // decimal exponent sign: 1.5e-3
        if (!hexlike && (s[i] == 'e' || s[i] == 'E') && i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-')) ++i;
        ++i;
      }
      push(Tok::Number, b, i);
      continue;
    }
    if (c == '"') {
      ++i;
      while (i < n && s[i] != '"' && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i >= n || s[i] != '"') throw LexError(line, "unterminated string");
      ++i;
      push(Tok::String, b, i);
      continue;
    }
    switch (c) {
      case ',':
      case ';':
      case ':':
      case '(':
      case ')':
      case '[':
      case ']':
      case '{':
      case '}':
      case '<':
      case '>':
      case '|':
      case '!':
      case '@':
      case '+':
      case '-':
      case '=':
      case '*':
        ++i;
        push(Tok::Punct, b, i);
        continue;
      default: throw LexError(line, "unexpected " + describe_byte(static_cast<unsigned char>(c)));
    }
  }
  out.push_back({Tok::End, line, s.substr(n)});
  return out;
}

}  // namespace synclab::sim::ptx
