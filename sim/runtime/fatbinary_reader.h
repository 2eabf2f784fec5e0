// Reads the device code that nvcc embeds in a program: the registration wrapper
// (__fatBinC_Wrapper_t, magic 0x466243B1) points at a fatbinary container (magic 0xBA55ED50)
// holding one entry per target: PTX text (kind 1) or a SASS cubin (kind 2), each possibly
// compressed (LZ4 for --compress-mode=speed, Zstandard for the default since CUDA 12.4).
//
// The layout is not documented by NVIDIA; it was read from nvcc 13.0's own output (the
// x.fatbin.c that `nvcc --keep` leaves behind), and every read here is bounds-checked, so a
// truncated or corrupt container is an error message, never a crash.
//
//   container header (16 bytes): u32 magic, u16 version (1), u16 header size, u64 entries size
//   entry header (header size bytes, at least 0x40):
//     +0x00 u16 kind (1 PTX, 2 ELF)   +0x02 u16 entry version   +0x04 u32 header size
//     +0x08 u64 payload size (padded)  +0x10 u32 compressed size  +0x14 u32 offset of the
//     options descriptor               +0x18 u16 PTX ISA minor    +0x1a u16 PTX ISA major
//     +0x1c u32 architecture (75 = sm_75/compute_75)              +0x20 u32 name offset
//     +0x24 u32 name length            +0x28 u64 flags (0x2000 LZ4, 0x8000 Zstandard)
//     +0x38 u64 uncompressed size (when compressed)
//   the payload follows the entry header; PTX is NUL-padded.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace synclab::rt {

// What went wrong reading a fatbinary; what() is a complete message for the user.
struct FatbinError : std::runtime_error {
  enum class Kind {
    Corrupt,      // not a fatbinary, truncated, inconsistent sizes
    NoPtx,        // only SASS (or nothing): built without synclab-nvcc
    Undecodable,  // PTX compressed in a format this build cannot decode
  };
  FatbinError(Kind k, const std::string& what) : std::runtime_error(what), kind(k) {}
  explicit FatbinError(const std::string& what) : FatbinError(Kind::Corrupt, what) {}
  Kind kind;
};

constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u;
constexpr uint32_t kFatbinMagic = 0xBA55ED50u;

enum class FatbinEntryKind : uint16_t { Ptx = 1, Elf = 2 };
enum class Compression { None, Lz4, Zstd, Unknown };

struct FatbinEntry {
  uint16_t kind = 0;
  uint32_t arch = 0;  // 75 for compute_75 / sm_75
  uint16_t ptx_major = 0, ptx_minor = 0;
  uint64_t flags = 0;
  Compression compression = Compression::None;
  std::string name;     // source file name (present with -lineinfo), may be empty
  std::string options;  // ptxas options recorded by nvcc, may be empty
  const uint8_t* payload = nullptr;
  uint64_t payload_size = 0;  // bytes stored (compressed size when compressed)
  uint64_t uncompressed_size = 0;
};

struct Fatbin {
  uint64_t total_size = 0;  // container header + entries
  std::vector<FatbinEntry> entries;
};

// The layout of nvcc's registration wrapper (fatbinary_section.h).
struct FatbinWrapper {
  int32_t magic;
  int32_t version;
  const unsigned long long* data;
  void* filename_or_fatbins;
};

// Parses the container at `data`; no byte at or beyond data + available is read.
Fatbin parse_fatbin(const uint8_t* data, uint64_t available);

// Parses the container that nvcc's registration wrapper points to. The wrapper gives no size, so
// the container's own header bounds the reads (after sanity checks on it).
Fatbin parse_fatbin_wrapper(const void* wrapper);

struct PtxImage {
  std::string text;
  uint32_t arch = 0;
  std::string source;  // entry name (the .cu file) when nvcc recorded one
};

// Picks the PTX entry to run on a device of compute capability `device_arch` (e.g. 75): the
// highest architecture not above it, else the lowest one above it. Decompresses it when needed.
// Throws FatbinError when there is no PTX (SASS only: built without synclab-nvcc) or the entry
// cannot be decoded. `what` names the program for messages.
PtxImage select_ptx(const Fatbin& fatbin, uint32_t device_arch, const std::string& what);

// Decompressed (or copied) payload of one entry, without the NUL padding.
std::string entry_text(const FatbinEntry& e, const std::string& what);

// True when this build of simcudart can decode the compression format.
bool can_decompress(Compression c);
const char* compression_name(Compression c);

}  // namespace synclab::rt
