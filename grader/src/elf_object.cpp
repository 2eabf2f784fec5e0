#include "elf_object.h"

#include <elf.h>
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace synclab::grade {

bool ElfSection::executable() const { return (flags & SHF_EXECINSTR) != 0; }
bool ElfSymbol::undefined() const { return section == SHN_UNDEF; }

namespace {

struct Reader {
  const std::string& data;
  bool in_range(uint64_t off, uint64_t len) const { return off <= data.size() && len <= data.size() - off; }
  template <class T>
  bool get(uint64_t off, T& out) const {
    if (!in_range(off, sizeof(T))) return false;
    std::memcpy(&out, data.data() + off, sizeof(T));
    return true;
  }
  // A NUL-terminated name in the string table [base, base+size).
  std::string name(uint64_t base, uint64_t size, uint64_t at) const {
    if (at >= size || !in_range(base, size)) return {};
    const char* p = data.data() + base + at;
    size_t n = strnlen(p, size_t(size - at));
    return std::string(p, n);
  }
};

}  // namespace

const ElfSymbol* ElfObject::function_at(uint32_t section, uint64_t offset) const {
  const ElfSymbol* best = nullptr;
  for (const auto& s : symbols) {
    if (s.section != section || s.type != STT_FUNC || s.value > offset) continue;
    if (s.size && offset >= s.value + s.size) continue;
    if (!best || s.value > best->value) best = &s;
  }
  return best;
}

bool ElfObject::in_code(const ElfSymbol& s) const {
  return !s.undefined() && s.section < sections.size() && sections[s.section].executable();
}

bool ElfObject::in_data(const ElfSymbol& s) const {
  return !s.undefined() && s.section < sections.size() && !sections[s.section].executable();
}

std::string ElfObject::describe(const ElfRelocation& r) const {
  if (r.symbol >= symbols.size()) return "?";
  const ElfSymbol& s = symbols[r.symbol];
  if (s.type == STT_SECTION && s.section < sections.size())
    return fmt::format("{}+0x{:x}", sections[s.section].name, uint64_t(r.addend));
  return s.name;
}

bool read_elf_object(const std::string& path, ElfObject& out, std::string& error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    error = "cannot read " + path;
    return false;
  }
  const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Reader rd{data};
  Elf64_Ehdr eh{};
  if (!rd.get(0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    error = "not an ELF file";
    return false;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_REL ||
      eh.e_machine != EM_X86_64) {
    error = "not a relocatable x86-64 ELF64 object";
    return false;
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum ||
      !rd.in_range(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr))) {
    error = "damaged section header table";
    return false;
  }
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  for (size_t i = 0; i < sh.size(); ++i) rd.get(eh.e_shoff + i * sizeof(Elf64_Shdr), sh[i]);
  const Elf64_Shdr& names = sh[eh.e_shstrndx];
  out.sections.clear();
  for (const auto& s : sh) {
    ElfSection e;
    e.name = rd.name(names.sh_offset, names.sh_size, s.sh_name);
    e.type = s.sh_type;
    e.flags = s.sh_flags;
    e.offset = s.sh_offset;
    e.size = s.sh_size;
    e.link = s.sh_link;
    e.info = s.sh_info;
    if (e.type != SHT_NOBITS && !rd.in_range(e.offset, e.size)) {
      error = fmt::format("section {} lies outside the file", e.name);
      return false;
    }
    out.sections.push_back(e);
  }
  // The symbol table (one, in an object).
  out.symbols.clear();
  for (const auto& s : out.sections) {
    if (s.type != SHT_SYMTAB) continue;
    if (s.link >= out.sections.size()) {
      error = "the symbol table names no string table";
      return false;
    }
    const ElfSection& str = out.sections[s.link];
    const uint64_t n = s.size / sizeof(Elf64_Sym);
    for (uint64_t i = 0; i < n; ++i) {
      Elf64_Sym y{};
      rd.get(s.offset + i * sizeof(Elf64_Sym), y);
      ElfSymbol e;
      e.name = rd.name(str.offset, str.size, y.st_name);
      e.type = ELF64_ST_TYPE(y.st_info);
      e.binding = ELF64_ST_BIND(y.st_info);
      e.section = y.st_shndx;
      e.value = y.st_value;
      e.size = y.st_size;
      out.symbols.push_back(e);
    }
    break;
  }
  out.relocations.clear();
  for (const auto& s : out.sections) {
    if (s.type != SHT_RELA) continue;
    const uint64_t n = s.size / sizeof(Elf64_Rela);
    for (uint64_t i = 0; i < n; ++i) {
      Elf64_Rela r{};
      rd.get(s.offset + i * sizeof(Elf64_Rela), r);
      ElfRelocation e;
      e.section = s.info;
      e.offset = r.r_offset;
      e.symbol = uint32_t(ELF64_R_SYM(r.r_info));
      e.type = uint32_t(ELF64_R_TYPE(r.r_info));
      e.addend = r.r_addend;
      if (e.symbol >= out.symbols.size() || e.section >= out.sections.size()) {
        error = fmt::format("relocation section {} refers to a missing symbol or section", s.name);
        return false;
      }
      out.relocations.push_back(e);
    }
  }
  return true;
}

}  // namespace synclab::grade
