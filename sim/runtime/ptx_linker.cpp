#include "sim/runtime/ptx_linker.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

namespace synclab::rt {

namespace {

// ---- tokens: enough of PTX's lexical structure to find names, numbers and item boundaries ------

struct Tok {
  enum Kind { Ident, Dir, Num, Str, Punct, Comment, Space, Newline } kind;
  size_t begin, end;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::vector<Tok> tokenize(std::string_view s) {
  std::vector<Tok> out;
  size_t i = 0, n = s.size();
  while (i < n) {
    size_t b = i;
    char c = s[i];
    if (c == '\n') {
      out.push_back({Tok::Newline, b, ++i});
    } else if (c == ' ' || c == '\t' || c == '\r') {
      while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
      out.push_back({Tok::Space, b, i});
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      out.push_back({Tok::Comment, b, i});
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      size_t e = s.find("*/", i + 2);
      i = e == std::string_view::npos ? n : e + 2;
      out.push_back({Tok::Comment, b, i});
    } else if (c == '"') {
      ++i;
      while (i < n && s[i] != '"') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      i = std::min(n, i + 1);
      out.push_back({Tok::Str, b, i});
    } else if (c == '.' && i + 1 < n && (std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '_')) {
      ++i;
      while (i < n && ident_char(s[i])) ++i;
      out.push_back({Tok::Dir, b, i});
    } else if (ident_start(c)) {
      ++i;
      while (i < n && ident_char(s[i])) ++i;
      out.push_back({Tok::Ident, b, i});
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_')) ++i;
      out.push_back({Tok::Num, b, i});
    } else {
      out.push_back({Tok::Punct, b, ++i});
    }
  }
  return out;
}

// ---- module-scope items ------------------------------------------------------------------------

struct Item {
  size_t first = 0, last = 0;  // token range [first, last)
  enum Kind { Header, File, Section, Func, Entry, Var, Other } kind = Other;
  std::string linkage;  // ".extern", ".visible", ".weak", ".common" or ""
  std::string name;
  bool definition = false;          // a function with a body, a variable that is not .extern
  std::vector<std::string> labels;  // .section labels
  bool drop = false;
};

struct Module {
  std::string_view text;
  std::vector<Tok> toks;
  std::vector<Item> items;
  uint32_t version_major = 0, version_minor = 0;
  std::string target, address_size;
};

bool significant(const Tok& t) { return t.kind != Tok::Space && t.kind != Tok::Newline && t.kind != Tok::Comment; }

void parse_items(Module& m, const std::string& origin) {
  auto text = [&](size_t k) { return m.text.substr(m.toks[k].begin, m.toks[k].end - m.toks[k].begin); };
  const size_t n = m.toks.size();
  size_t i = 0;
  while (i < n) {
    Item it;
    it.first = i;
    size_t j = i;
    while (j < n && !significant(m.toks[j])) ++j;
    if (j == n) {
      it.last = n;
      it.kind = Item::Other;
      m.items.push_back(it);
      break;
    }
    std::string_view head = text(j);
    auto to_line_end = [&](size_t k) {
      while (k < n && m.toks[k].kind != Tok::Newline) ++k;
      return std::min(n, k + 1);
    };
    auto matching = [&](size_t k, char open, char close) {  // k at `open`; returns index after `close`
      int depth = 0;
      for (; k < n; ++k) {
        if (m.toks[k].kind != Tok::Punct) continue;
        char c = m.text[m.toks[k].begin];
        if (c == open) ++depth;
        if (c == close && --depth == 0) return k + 1;
      }
      throw PtxLinkError(fmt::format("{}: unbalanced '{}' in the PTX", origin, open));
    };
    if (head == ".version" || head == ".target" || head == ".address_size") {
      it.kind = Item::Header;
      it.last = to_line_end(j);
      size_t k = j + 1;
      while (k < it.last && !significant(m.toks[k])) ++k;
      std::string value;
      for (size_t q = k; q < it.last; ++q)
        if (m.toks[q].kind != Tok::Newline && m.toks[q].kind != Tok::Comment) value += std::string(text(q));
      while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
      if (head == ".version") {
        unsigned a = 0, b = 0;
        std::sscanf(value.c_str(), "%u.%u", &a, &b);
        m.version_major = a;
        m.version_minor = b;
      } else if (head == ".target") {
        m.target = value;
      } else {
        m.address_size = value;
      }
    } else if (head == ".file") {
      it.kind = Item::File;
      it.last = to_line_end(j);
    } else if (head == ".section") {
      it.kind = Item::Section;
      size_t k = j;
      while (k < n && !(m.toks[k].kind == Tok::Punct && m.text[m.toks[k].begin] == '{')) ++k;
      if (k == n) throw PtxLinkError(fmt::format("{}: .section without a body", origin));
      it.last = matching(k, '{', '}');
      for (size_t q = k; q + 1 < it.last; ++q) {
        if (m.toks[q].kind != Tok::Ident) continue;
        size_t r = q + 1;
        while (r < it.last && !significant(m.toks[r])) ++r;
        if (r < it.last && m.toks[r].kind == Tok::Punct && m.text[m.toks[r].begin] == ':')
          it.labels.emplace_back(text(q));
      }
    } else {
      // A declaration or definition: up to ';' at depth 0, or through a body '{...}'.
      int paren = 0, brace = 0;
      std::string_view prev;
      size_t k = j;
      size_t header_end = n;
      for (; k < n; ++k) {
        const Tok& t = m.toks[k];
        if (t.kind != Tok::Punct) {
          if (significant(t)) prev = text(k);
          continue;
        }
        char c = m.text[t.begin];
        if (c == '(')
          ++paren;
        else if (c == ')')
          --paren;
        else if (c == '{') {
          if (paren == 0 && brace == 0 && prev != "=") {  // a body
            header_end = k;
            it.definition = true;
            k = matching(k, '{', '}');
            break;
          }
          ++brace;
        } else if (c == '}') {
          --brace;
        } else if (c == ';' && paren == 0 && brace == 0) {
          header_end = k;
          ++k;
          break;
        }
        prev = text(k);
      }
      it.last = k;
      // Classify from the header's tokens.
      bool func = false, entry = false, var = false;
      for (size_t q = j; q < std::min(header_end, it.last); ++q) {
        if (m.toks[q].kind != Tok::Dir) continue;
        std::string_view d = text(q);
        if (d == ".extern" || d == ".visible" || d == ".weak" || d == ".common")
          it.linkage = std::string(d);
        else if (d == ".func")
          func = true;
        else if (d == ".entry")
          entry = true;
        else if (d == ".global" || d == ".const" || d == ".shared" || d == ".local" || d == ".tex")
          var = var || (!func && !entry);
        if ((func || entry || var) && it.name.empty()) {
          // The name: for .func after an optional (return parameter) list; else the next name.
          size_t r = q + 1;
          while (r < header_end && !significant(m.toks[r])) ++r;
          if (func && r < header_end && m.toks[r].kind == Tok::Punct && m.text[m.toks[r].begin] == '(')
            r = matching(r, '(', ')');
          for (; r < header_end; ++r)
            if (m.toks[r].kind == Tok::Ident) {
              it.name = std::string(text(r));
              break;
            }
        }
      }
      if (func)
        it.kind = Item::Func;
      else if (entry)
        it.kind = Item::Entry;
      else if (var) {
        it.kind = Item::Var;
        it.definition = it.linkage != ".extern";
      }
    }
    m.items.push_back(it);
    i = it.last;
  }
}

}  // namespace

LinkedPtx link_ptx(const std::vector<PtxPart>& parts) {
  LinkedPtx out;
  std::vector<Module> mods(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    mods[i].text = parts[i].text;
    mods[i].toks = tokenize(mods[i].text);
    parse_items(mods[i], parts[i].origin);
  }

  // Names each module declares at module scope, and its internal ones.
  std::vector<std::unordered_set<std::string>> declared(mods.size()), internal(mods.size());
  std::unordered_map<std::string, size_t> visible_def;  // name -> module
  std::unordered_map<std::string, size_t> weak_first;   // name -> module of the first .weak definition
  for (size_t i = 0; i < mods.size(); ++i) {
    for (auto& it : mods[i].items) {
      for (auto& l : it.labels) {
        declared[i].insert(l);
        internal[i].insert(l);
      }
      if (it.name.empty() || (it.kind != Item::Func && it.kind != Item::Entry && it.kind != Item::Var)) continue;
      declared[i].insert(it.name);
      if (it.linkage.empty()) internal[i].insert(it.name);
      if (!it.definition) continue;
      if (it.linkage == ".visible") {
        auto [pos, fresh] = visible_def.emplace(it.name, i);
        if (!fresh && pos->second != i)
          throw PtxLinkError(
              fmt::format("multiple definition of '{}': in {} and in {} (as nvlink would say, "
                          "make one of them static or inline, or keep one definition)",
                          it.name, parts[pos->second].origin, parts[i].origin));
      } else if (it.linkage == ".weak") {
        weak_first.emplace(it.name, i);
      }
    }
  }
  // Later (or overridden) copies of .weak definitions go.
  for (size_t i = 0; i < mods.size(); ++i)
    for (auto& it : mods[i].items)
      if (it.definition && it.linkage == ".weak") {
        bool overridden = visible_def.count(it.name) != 0;
        auto first = weak_first.find(it.name);
        if (overridden || (first != weak_first.end() && first->second != i)) it.drop = true;
      }

  // Renames: an internal name that another module also declares gets a per-module suffix.
  out.renamed.resize(mods.size());
  for (size_t i = 0; i < mods.size(); ++i)
    for (const auto& name : internal[i])
      for (size_t j = 0; j < mods.size(); ++j)
        if (j != i && declared[j].count(name)) {
          out.renamed[i][name] = fmt::format("{}$rdc{}", name, i);
          break;
        }

  // Header: the highest .version, the first module's .target and .address_size.
  uint32_t vmaj = 0, vmin = 0;
  for (auto& m : mods)
    if (std::tie(m.version_major, m.version_minor) > std::tie(vmaj, vmin)) {
      vmaj = m.version_major;
      vmin = m.version_minor;
    }
  std::string target = mods.empty() ? "sm_75" : mods[0].target;
  std::string address_size = mods.empty() || mods[0].address_size.empty() ? "64" : mods[0].address_size;
  out.text = fmt::format(
      "//\n// Joined by simcudart from {} relocatable modules (-rdc)\n//\n\n.version {}.{}\n"
      ".target {}\n.address_size {}\n",
      mods.size(), vmaj, vmin, target, address_size);

  for (size_t i = 0; i < mods.size(); ++i) {
    const Module& m = mods[i];
    const auto& ren = out.renamed[i];
    const uint32_t file_offset = 1000u * uint32_t(i);
    out.text += fmt::format("\n// ---- module {}: {}\n", i, parts[i].origin);
    for (const auto& it : m.items) {
      if (it.kind == Item::Header) continue;
      if (it.drop) {
        out.text += "\n";
        continue;
      }
      bool renumber_next = false;
      for (size_t k = it.first; k < it.last; ++k) {
        const Tok& t = m.toks[k];
        std::string_view s = m.text.substr(t.begin, t.end - t.begin);
        if (t.kind == Tok::Dir && (s == ".file" || s == ".loc")) renumber_next = true;
        if (t.kind == Tok::Ident && s == "inlined_at") renumber_next = true;
        if (t.kind == Tok::Num && renumber_next) {
          renumber_next = false;
          unsigned long v = std::strtoul(std::string(s).c_str(), nullptr, 10);
          out.text += std::to_string(v + file_offset);
          continue;
        }
        if (significant(t) && t.kind != Tok::Dir && t.kind != Tok::Ident && t.kind != Tok::Num) renumber_next = false;
        if (t.kind == Tok::Ident && !ren.empty()) {
          auto r = ren.find(std::string(s));
          if (r != ren.end()) {
            out.text += r->second;
            continue;
          }
        }
        out.text.append(s);
      }
    }
  }
  return out;
}

}  // namespace synclab::rt
