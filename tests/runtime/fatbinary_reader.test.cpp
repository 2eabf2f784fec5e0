// The fatbinary reader on real nvcc output, built at test-build time from
// data/fatbin_kernels.cu (see CMakeLists.txt): the PTX it extracts must be the PTX `nvcc -ptx`
// writes for the same source and architecture, for every compression nvcc offers; SASS-only and
// undecodable containers are refused with a message that says how to rebuild; corrupt and
// truncated containers are errors, never crashes.
#include <synclab/catch.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sim/runtime/fatbinary_reader.h"

using synclab::rt::Compression;
using synclab::rt::FatbinError;
using synclab::rt::parse_fatbin;
using synclab::rt::parse_fatbin_wrapper;
using synclab::rt::select_ptx;

namespace {

std::vector<uint8_t> read_file(const std::string& name) {
  std::string path = std::string(SYNCLAB_FATBIN_TEST_DIR) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  INFO("test data " << path << " (built by the test's CMakeLists from data/fatbin_kernels.cu)");
  REQUIRE(in.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string read_text(const std::string& name) {
  auto bytes = read_file(name);
  return std::string(bytes.begin(), bytes.end());
}

// nvcc stores PTX in the fatbinary without comments and with each line's whitespace squeezed,
// keeping the line structure (so PTX line numbers stay valid). Normalize both sides that way.
std::vector<std::string> normalized_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t c = line.find("//");
    if (c != std::string::npos) line.resize(c);
    std::string out;
    bool space = false;
    for (char ch : line) {
      if (ch == ' ' || ch == '\t' || ch == '\r') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += ch;
    }
    lines.push_back(out);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

void require_same_ptx(const std::string& extracted, const std::string& reference) {
  auto a = normalized_lines(extracted);
  auto b = normalized_lines(reference);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("PTX line " << i + 1);
    REQUIRE(a[i] == b[i]);
  }
}

template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const FatbinError& e) {
    return e.what();
  }
  return "";
}

// Offset of the first entry header in a container.
size_t first_entry(const std::vector<uint8_t>& fb) {
  uint16_t hs;
  std::memcpy(&hs, fb.data() + 6, 2);
  return hs;
}

}  // namespace

TEST_CASE("uncompressed PTX equals nvcc -ptx output", "[fatbin]") {
  auto fb = read_file("k75_plain.fatbin");
  auto parsed = parse_fatbin(fb.data(), fb.size());
  REQUIRE(parsed.total_size == fb.size());
  REQUIRE(parsed.entries.size() == 1);
  CHECK(parsed.entries[0].kind == 1);
  CHECK(parsed.entries[0].arch == 75);
  CHECK(parsed.entries[0].compression == Compression::None);
  auto img = select_ptx(parsed, 75, "test");
  CHECK(img.arch == 75);
  CHECK(img.source.find("fatbin_kernels.cu") != std::string::npos);  // recorded with -lineinfo
  // Line by line (so PTX line numbers in reports agree with the .ptx file too).
  require_same_ptx(img.text, read_text("k75.ptx"));
}

TEST_CASE("Zstandard-compressed PTX (nvcc's default) decodes to the same PTX", "[fatbin]") {
  auto fb = read_file("k75_zstd.fatbin");
  auto parsed = parse_fatbin(fb.data(), fb.size());
  REQUIRE(parsed.entries.size() == 1);
  REQUIRE(parsed.entries[0].compression == Compression::Zstd);
  CHECK(parsed.entries[0].payload_size < parsed.entries[0].uncompressed_size);
  if (!synclab::rt::can_decompress(Compression::Zstd)) {
    CHECK_THAT(error_of([&] { select_ptx(parsed, 75, "prog"); }), Catch::Contains("--no-compress"));
    return;
  }
  require_same_ptx(select_ptx(parsed, 75, "prog").text, read_text("k75.ptx"));
}

TEST_CASE("LZ4-compressed PTX (--compress-mode=speed) decodes to the same PTX", "[fatbin]") {
  auto fb = read_file("k75_lz4.fatbin");
  auto parsed = parse_fatbin(fb.data(), fb.size());
  REQUIRE(parsed.entries.size() == 1);
  REQUIRE(parsed.entries[0].compression == Compression::Lz4);
  if (!synclab::rt::can_decompress(Compression::Lz4)) {
    CHECK_THAT(error_of([&] { select_ptx(parsed, 75, "prog"); }), Catch::Contains("--no-compress"));
    return;
  }
  require_same_ptx(select_ptx(parsed, 75, "prog").text, read_text("k75.ptx"));
}

TEST_CASE("a compression format simcudart cannot decode is refused with the rebuild message", "[fatbin]") {
  auto fb = read_file("k75_plain.fatbin");
  size_t e = first_entry(fb);
  SECTION("compressed size set but no known format flag") {
    uint32_t csize = 100;
    std::memcpy(fb.data() + e + 0x10, &csize, 4);
  }
  SECTION("both compression flags at once") {
    uint64_t flags;
    std::memcpy(&flags, fb.data() + e + 0x28, 8);
    flags |= 0x2000 | 0x8000;
    std::memcpy(fb.data() + e + 0x28, &flags, 8);
    uint32_t csize = 100;
    std::memcpy(fb.data() + e + 0x10, &csize, 4);
  }
  auto parsed = parse_fatbin(fb.data(), fb.size());
  REQUIRE(parsed.entries[0].compression == Compression::Unknown);
  std::string msg = error_of([&] { select_ptx(parsed, 75, "./prog"); });
  CHECK_THAT(msg, Catch::Contains("./prog"));
  CHECK_THAT(msg, Catch::Contains("compressed"));
  CHECK_THAT(msg, Catch::Contains("synclab-nvcc"));
  CHECK_THAT(msg, Catch::Contains("--no-compress"));
}

TEST_CASE("a corrupt Zstandard payload is an error, not a crash", "[fatbin]") {
  auto fb = read_file("k75_zstd.fatbin");
  auto parsed0 = parse_fatbin(fb.data(), fb.size());
  REQUIRE(parsed0.entries.size() == 1);
  size_t payload = size_t(parsed0.entries[0].payload - fb.data());
  for (size_t i = payload + 8; i < payload + 64 && i < fb.size(); ++i) fb[i] ^= 0x5a;
  auto parsed = parse_fatbin(fb.data(), fb.size());
  if (synclab::rt::can_decompress(Compression::Zstd)) {
    // Either the decoder (or the PTX check after it) refuses it, or what comes out is not the
    // original PTX; what must not happen is a crash.
    bool refused = false;
    std::string text;
    try {
      text = select_ptx(parsed, 75, "prog").text;
    } catch (const FatbinError&) {
      refused = true;
    }
    CHECK((refused || normalized_lines(text) != normalized_lines(read_text("k75.ptx"))));
  }
}

TEST_CASE("the PTX entry is chosen by the device's compute capability", "[fatbin]") {
  // compute_75 and compute_80 PTX plus sm_75 SASS in one container.
  auto fb = read_file("multi.fatbin");
  auto parsed = parse_fatbin(fb.data(), fb.size());
  int ptx = 0, sass = 0;
  for (const auto& e : parsed.entries) (e.kind == 1 ? ptx : sass)++;
  REQUIRE(ptx == 2);
  REQUIRE(sass == 1);
  CHECK(select_ptx(parsed, 75, "p").arch == 75);   // exact
  CHECK(select_ptx(parsed, 86, "p").arch == 80);   // highest not above 8.6
  CHECK(select_ptx(parsed, 90, "p").arch == 80);
  CHECK(select_ptx(parsed, 70, "p").arch == 75);   // none at or below 7.0: the lowest above
  require_same_ptx(select_ptx(parsed, 86, "p").text, read_text("k80.ptx"));
  require_same_ptx(select_ptx(parsed, 75, "p").text, read_text("k75.ptx"));
}

TEST_CASE("SASS without PTX is refused with a message to rebuild with synclab-nvcc", "[fatbin]") {
  auto fb = read_file("sass_only.fatbin");
  auto parsed = parse_fatbin(fb.data(), fb.size());
  REQUIRE(!parsed.entries.empty());
  for (const auto& e : parsed.entries) CHECK(e.kind == 2);
  try {
    select_ptx(parsed, 75, "./student_prog");
    FAIL("a SASS-only fatbinary was accepted");
  } catch (const FatbinError& e) {
    CHECK(e.kind == FatbinError::Kind::NoPtx);
    std::string msg = e.what();
    CHECK_THAT(msg, Catch::Contains("./student_prog"));
    CHECK_THAT(msg, Catch::Contains("sm_75"));
    CHECK_THAT(msg, Catch::Contains("no PTX"));
    CHECK_THAT(msg, Catch::Contains("synclab-nvcc"));
  }
}

TEST_CASE("the registration wrapper leads to the same container", "[fatbin]") {
  auto fb = read_file("k75_plain.fatbin");
  synclab::rt::FatbinWrapper w{int32_t(synclab::rt::kFatbinWrapperMagic), 1,
                               reinterpret_cast<const unsigned long long*>(fb.data()), nullptr};
  auto parsed = parse_fatbin_wrapper(&w);
  REQUIRE(parsed.entries.size() == 1);
  require_same_ptx(select_ptx(parsed, 75, "p").text, read_text("k75.ptx"));

  SECTION("a wrong wrapper magic is refused") {
    w.magic = 0x12345678;
    CHECK_THAT(error_of([&] { parse_fatbin_wrapper(&w); }), Catch::Contains("magic"));
  }
  SECTION("a null data pointer is refused") {
    w.data = nullptr;
    CHECK(!error_of([&] { parse_fatbin_wrapper(&w); }).empty());
  }
  SECTION("an absurd container size is refused before anything is read") {
    uint64_t huge = uint64_t(1) << 40;
    std::memcpy(fb.data() + 8, &huge, 8);
    CHECK_THAT(error_of([&] { parse_fatbin_wrapper(&w); }), Catch::Contains("corrupt"));
  }
}

TEST_CASE("truncated containers are errors at every length", "[fatbin]") {
  for (const char* name : {"k75_plain.fatbin", "k75_zstd.fatbin", "multi.fatbin"}) {
    auto fb = read_file(name);
    for (size_t len = 0; len < fb.size(); len += (len < 256 ? 1 : 97)) {
      // A copy of exactly len bytes, so a read past the end would be caught by sanitizers.
      std::vector<uint8_t> cut(fb.begin(), fb.begin() + long(len));
      INFO(name << " cut to " << len << " bytes");
      CHECK_THROWS_AS(parse_fatbin(cut.data(), cut.size()), FatbinError);
    }
  }
}

TEST_CASE("garbage is an error, not a crash", "[fatbin]") {
  std::mt19937 rng(1234);
  SECTION("random bytes") {
    for (int round = 0; round < 200; ++round) {
      std::vector<uint8_t> junk(size_t(rng() % 4096));
      for (auto& b : junk) b = uint8_t(rng());
      CHECK_THROWS_AS(parse_fatbin(junk.data(), junk.size()), FatbinError);
    }
  }
  SECTION("random corruption of a real container") {
    auto good = read_file("multi.fatbin");
    for (int round = 0; round < 500; ++round) {
      auto fb = good;
      int flips = 1 + int(rng() % 8);
      for (int f = 0; f < flips; ++f) fb[rng() % std::min<size_t>(fb.size(), 512)] ^= uint8_t(1u << (rng() % 8));
      // Either it parses (a harmless flip) or it throws FatbinError; then selecting and
      // decoding may also only throw FatbinError.
      try {
        auto parsed = parse_fatbin(fb.data(), fb.size());
        try {
          (void)select_ptx(parsed, 75, "p");
        } catch (const FatbinError&) {
        }
      } catch (const FatbinError&) {
      }
    }
    SUCCEED("no crash");
  }
  SECTION("null data") { CHECK_THROWS_AS(parse_fatbin(nullptr, 100), FatbinError); }
  SECTION("an empty container holds no device code") {
    uint8_t empty[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
    auto parsed = parse_fatbin(empty, sizeof empty);
    CHECK(parsed.entries.empty());
    CHECK_THAT(error_of([&] { select_ptx(parsed, 75, "p"); }), Catch::Contains("synclab-nvcc"));
  }
}
