// A relocatable ELF64 object (x86-64), read for the grader's checks of a student's compiled file:
// its sections, symbols and relocations. Read-only; every offset is bounds-checked, and a file
// that is not such an object gives an error, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::grade {

struct ElfSection {
  std::string name;
  uint32_t type = 0;   // SHT_*
  uint64_t flags = 0;  // SHF_*
  uint64_t offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  bool executable() const;
};

struct ElfSymbol {
  std::string name;
  uint8_t type = 0;      // STT_*
  uint8_t binding = 0;   // STB_*
  uint16_t section = 0;  // SHN_UNDEF, SHN_ABS, ... or a section index
  uint64_t value = 0, size = 0;
  bool undefined() const;
};

struct ElfRelocation {
  uint32_t section = 0;  // the section the relocation patches
  uint64_t offset = 0;   // where in it
  uint32_t symbol = 0;   // index into symbols
  uint32_t type = 0;
  int64_t addend = 0;
};

struct ElfObject {
  std::vector<ElfSection> sections;
  std::vector<ElfSymbol> symbols;  // index 0 is the null symbol
  std::vector<ElfRelocation> relocations;

  // The function symbol of `section` that covers `offset` (the nearest one that starts at or
  // before it when sizes are missing), or nullptr.
  const ElfSymbol* function_at(uint32_t section, uint64_t offset) const;
  // Whether `s` is defined in a section of this object that holds code (executable) or data.
  bool in_code(const ElfSymbol& s) const;
  bool in_data(const ElfSymbol& s) const;
  // "name", or for a section symbol "section+0x..".
  std::string describe(const ElfRelocation& r) const;
};

// Reads `path`. Returns false and sets `error` when it is not a relocatable ELF64 x86-64 object.
bool read_elf_object(const std::string& path, ElfObject& out, std::string& error);

}  // namespace synclab::grade
