#include "sim/runtime/fatbinary_reader.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#if SYNCLAB_HAVE_ZSTD
#include <zstd.h>
#endif
#if SYNCLAB_HAVE_LZ4
#include <lz4.h>
#endif

namespace synclab::rt {

namespace {

constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kContainerHeaderSize = 16;
constexpr uint64_t kMinEntryHeaderSize = 0x40;
// No program embeds a gigabyte of device code; a larger size is a corrupt header.
constexpr uint64_t kMaxFatbinSize = 1ull << 30;
// Nor hundreds of megabytes of PTX in one entry: a bigger decompressed size is corrupt.
constexpr uint64_t kMaxPtxSize = 256ull << 20;

template <typename T>
T read_at(const uint8_t* base, uint64_t off) {
  T v;
  std::memcpy(&v, base + off, sizeof(T));
  return v;
}

const char* kRebuildHint =
    "rebuild the program with synclab-nvcc (it asks nvcc for uncompressed PTX), or add "
    "--no-compress to your nvcc flags";

std::string arch_list(const Fatbin& fb, uint16_t kind) {
  std::string out;
  for (const auto& e : fb.entries) {
    if (e.kind != kind) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{}_{}", kind == uint16_t(FatbinEntryKind::Ptx) ? "compute" : "sm", e.arch);
  }
  return out;
}

}  // namespace

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::None: return "none";
    case Compression::Lz4: return "LZ4";
    case Compression::Zstd: return "Zstandard";
    case Compression::Unknown: return "an unknown format";
  }
  return "?";
}

bool can_decompress(Compression c) {
  switch (c) {
    case Compression::None: return true;
    case Compression::Lz4: return SYNCLAB_HAVE_LZ4 != 0;
    case Compression::Zstd: return SYNCLAB_HAVE_ZSTD != 0;
    case Compression::Unknown: return false;
  }
  return false;
}

Fatbin parse_fatbin(const uint8_t* data, uint64_t available) {
  if (!data) throw FatbinError("fatbinary: the device code pointer is null");
  if (available < kContainerHeaderSize)
    throw FatbinError(fmt::format("fatbinary: truncated: {} bytes, the container header alone is {}", available,
                                  kContainerHeaderSize));
  uint32_t magic = read_at<uint32_t>(data, 0);
  if (magic != kFatbinMagic)
    throw FatbinError(
        fmt::format("fatbinary: bad magic 0x{:08x} (expected 0x{:08x}): this is not "
                    "nvcc device code, or it is corrupt",
                    magic, kFatbinMagic));
  uint16_t version = read_at<uint16_t>(data, 4);
  uint16_t header_size = read_at<uint16_t>(data, 6);
  uint64_t entries_size = read_at<uint64_t>(data, 8);
  if (version != 1)
    throw FatbinError(
        fmt::format("fatbinary: container version {} is not supported (expected 1); "
                    "was the program built by a CUDA toolkit newer than 13.x?",
                    version));
  if (header_size < kContainerHeaderSize || header_size > available)
    throw FatbinError(fmt::format("fatbinary: corrupt container header size {}", header_size));
  if (entries_size > kMaxFatbinSize || header_size + entries_size > available)
    throw FatbinError(
        fmt::format("fatbinary: truncated: the header announces {} bytes of entries "
                    "but only {} bytes are there",
                    entries_size, available - header_size));
  Fatbin fb;
  fb.total_size = header_size + entries_size;
  uint64_t off = header_size;
  const uint64_t end = fb.total_size;
  while (off < end) {
    if (end - off < kMinEntryHeaderSize) {
      // nvcc pads nothing after the last entry, but tolerate zero padding.
      bool all_zero = std::all_of(data + off, data + end, [](uint8_t b) { return b == 0; });
      if (all_zero) break;
      throw FatbinError(fmt::format("fatbinary: truncated entry header at offset {}", off));
    }
    FatbinEntry e;
    e.kind = read_at<uint16_t>(data, off);
    uint32_t ehs = read_at<uint32_t>(data, off + 4);
    uint64_t psize = read_at<uint64_t>(data, off + 8);
    if (ehs < kMinEntryHeaderSize || ehs > end - off)
      throw FatbinError(fmt::format("fatbinary: entry at offset {} has a corrupt header size {}", off, ehs));
    if (psize > end - off - ehs)
      throw FatbinError(
          fmt::format("fatbinary: entry at offset {} is truncated: {} payload bytes "
                      "announced, {} left in the container",
                      off, psize, end - off - ehs));
    uint32_t csize = read_at<uint32_t>(data, off + 0x10);
    e.ptx_minor = read_at<uint16_t>(data, off + 0x18);
    e.ptx_major = read_at<uint16_t>(data, off + 0x1a);
    e.arch = read_at<uint32_t>(data, off + 0x1c);
    e.flags = read_at<uint64_t>(data, off + 0x28);
    uint32_t name_off = read_at<uint32_t>(data, off + 0x20);
    uint32_t name_len = read_at<uint32_t>(data, off + 0x24);
    if (name_len && name_off >= kMinEntryHeaderSize && name_off <= ehs && name_len <= ehs - name_off)
      e.name.assign(reinterpret_cast<const char*>(data + off + name_off),
                    strnlen(reinterpret_cast<const char*>(data + off + name_off), name_len));
    uint32_t opt_desc = read_at<uint32_t>(data, off + 0x14);
    if (opt_desc >= kMinEntryHeaderSize && opt_desc <= ehs - 8) {
      uint32_t o_off = read_at<uint32_t>(data, off + opt_desc);
      uint32_t o_len = read_at<uint32_t>(data, off + opt_desc + 4);
      if (o_len && o_off <= ehs && o_len <= ehs - o_off)
        e.options.assign(reinterpret_cast<const char*>(data + off + o_off),
                         strnlen(reinterpret_cast<const char*>(data + off + o_off), o_len));
    }
    bool lz4 = e.flags & kFlagLz4, zstd = e.flags & kFlagZstd;
    if (lz4 && zstd)
      e.compression = Compression::Unknown;
    else if (lz4)
      e.compression = Compression::Lz4;
    else if (zstd)
      e.compression = Compression::Zstd;
    else if (csize != 0)
      e.compression = Compression::Unknown;  // compressed, format not known
    e.payload = data + off + ehs;
    e.payload_size = psize;
    if (e.compression != Compression::None) {
      if (csize == 0 || csize > psize)
        throw FatbinError(
            fmt::format("fatbinary: entry at offset {} has a corrupt compressed size "
                        "{} (payload {} bytes)",
                        off, csize, psize));
      e.payload_size = csize;
      e.uncompressed_size = ehs >= 0x40 ? read_at<uint64_t>(data, off + 0x38) : 0;
    } else {
      e.uncompressed_size = psize;
    }
    fb.entries.push_back(std::move(e));
    off += ehs + psize;
  }
  return fb;
}

Fatbin parse_fatbin_wrapper(const void* wrapper) {
  if (!wrapper) throw FatbinError("fatbinary: the registration wrapper pointer is null");
  FatbinWrapper w;
  std::memcpy(&w, wrapper, sizeof w);
  if (uint32_t(w.magic) != kFatbinWrapperMagic)
    throw FatbinError(
        fmt::format("fatbinary: the registration wrapper has magic 0x{:08x}, expected "
                    "0x{:08x}: the program was not built by nvcc, or by an "
                    "unsupported toolkit",
                    uint32_t(w.magic), kFatbinWrapperMagic));
  if (w.version != 1 && w.version != 2)
    throw FatbinError(fmt::format("fatbinary: registration wrapper version {} is not supported", w.version));
  const auto* data = reinterpret_cast<const uint8_t*>(w.data);
  if (!data) throw FatbinError("fatbinary: the registration wrapper has no device code");
  // The container header tells its size; check it before trusting it as the bound.
  if (read_at<uint32_t>(data, 0) != kFatbinMagic) return parse_fatbin(data, kContainerHeaderSize);
  uint64_t entries_size = read_at<uint64_t>(data, 8);
  uint16_t header_size = read_at<uint16_t>(data, 6);
  if (entries_size > kMaxFatbinSize || header_size < kContainerHeaderSize || header_size > 4096)
    throw FatbinError(fmt::format("fatbinary: corrupt container header (header {} bytes, entries {} bytes)",
                                  header_size, entries_size));
  return parse_fatbin(data, header_size + entries_size);
}

std::string entry_text(const FatbinEntry& e, const std::string& what) {
  std::string out;
  switch (e.compression) {
    case Compression::None: out.assign(reinterpret_cast<const char*>(e.payload), e.payload_size); break;
    case Compression::Zstd:
#if SYNCLAB_HAVE_ZSTD
    {
      unsigned long long n = ZSTD_getFrameContentSize(e.payload, e.payload_size);
      if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN) n = e.uncompressed_size;
      if (n == 0 || n > kMaxPtxSize)
        throw FatbinError(fmt::format("{}: the Zstandard-compressed PTX entry is corrupt (size {})", what, n));
      out.resize(n);
      size_t got = ZSTD_decompress(out.data(), out.size(), e.payload, e.payload_size);
      if (ZSTD_isError(got))
        throw FatbinError(fmt::format("{}: decompressing the PTX (Zstandard) failed: {}; {}", what,
                                      ZSTD_getErrorName(got), kRebuildHint));
      out.resize(got);
      break;
    }
#else
      throw FatbinError(FatbinError::Kind::Undecodable,
                        fmt::format("{}: the PTX is Zstandard-compressed and this simcudart was "
                                    "built without libzstd; {}",
                                    what, kRebuildHint));
#endif
    case Compression::Lz4:
#if SYNCLAB_HAVE_LZ4
    {
      uint64_t n = e.uncompressed_size;
      // LZ4 cannot expand more than 255:1.
      if (n == 0 || n > kMaxPtxSize || n > e.payload_size * 255 + 64 || e.payload_size > uint64_t(INT32_MAX))
        throw FatbinError(fmt::format("{}: the LZ4-compressed PTX entry is corrupt (size {})", what, n));
      out.resize(n);
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(e.payload), out.data(), int(e.payload_size), int(n));
      if (got < 0) throw FatbinError(fmt::format("{}: decompressing the PTX (LZ4) failed; {}", what, kRebuildHint));
      out.resize(size_t(got));
      break;
    }
#else
      throw FatbinError(FatbinError::Kind::Undecodable,
                        fmt::format("{}: the PTX is LZ4-compressed and this simcudart was built "
                                    "without liblz4; {}",
                                    what, kRebuildHint));
#endif
    case Compression::Unknown:
      throw FatbinError(FatbinError::Kind::Undecodable,
                        fmt::format("{}: the PTX in the program's fatbinary is compressed with a "
                                    "format simcudart cannot decode (entry flags 0x{:x}); {}",
                                    what, e.flags, kRebuildHint));
  }
  // PTX entries are NUL-padded to 8 bytes.
  size_t nul = out.find('\0');
  if (nul != std::string::npos) out.resize(nul);
  return out;
}

PtxImage select_ptx(const Fatbin& fb, uint32_t device_arch, const std::string& what) {
  const FatbinEntry* best_below = nullptr;  // highest arch <= device_arch
  const FatbinEntry* best_above = nullptr;  // lowest arch > device_arch
  for (const auto& e : fb.entries) {
    if (e.kind != uint16_t(FatbinEntryKind::Ptx)) continue;
    if (e.arch <= device_arch) {
      if (!best_below || e.arch > best_below->arch) best_below = &e;
    } else if (!best_above || e.arch < best_above->arch) {
      best_above = &e;
    }
  }
  const FatbinEntry* pick = best_below ? best_below : best_above;
  if (!pick) {
    std::string sass = arch_list(fb, uint16_t(FatbinEntryKind::Elf));
    if (!sass.empty())
      throw FatbinError(
          FatbinError::Kind::NoPtx,
          fmt::format("{}: the program's device code holds only SASS ({}) and no PTX, so the simulator cannot "
                      "run its kernels (wrong toolkit or flags). Rebuild it with synclab-nvcc, which asks nvcc "
                      "for PTX (-gencode arch=compute_XX,code=compute_XX).",
                      what, sass));
    throw FatbinError(FatbinError::Kind::NoPtx,
                      fmt::format("{}: the program's fatbinary holds no device code at all; rebuild "
                                  "it with synclab-nvcc",
                                  what));
  }
  PtxImage img;
  img.arch = pick->arch;
  img.source = pick->name;
  img.text = entry_text(*pick, what);
  if (img.text.find(".version") == std::string::npos)
    throw FatbinError(
        fmt::format("{}: the PTX entry for compute_{} does not look like PTX text "
                    "(no .version directive); the fatbinary is corrupt",
                    what, pick->arch));
  return img;
}

}  // namespace synclab::rt
