// The trace options read from SYNCLAB_TRACE_* variables.
#include <synclab/trace_writer.h>

#include <synclab/catch.h>

#include <cstdlib>

using namespace synclab::trace;

namespace {
struct Env {
  const char* name;
  Env(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~Env() { unsetenv(name); }
};
}  // namespace

TEST_CASE("parse_size", "[trace][options]") {
  uint64_t b = 0;
  CHECK((parse_size("1000", &b) && b == 1000));
  CHECK((parse_size("512K", &b) && b == 512ull << 10));
  CHECK((parse_size("64m", &b) && b == 64ull << 20));
  CHECK((parse_size("2G", &b) && b == 2ull << 30));
  CHECK((parse_size("3GiB", &b) && b == 3ull << 30));
  CHECK((parse_size(" 16MB ", &b) && b == 16ull << 20));
  CHECK((parse_size("1T", &b) && b == 1ull << 40));
  for (const char* bad : {"", "0", "-5", "K", "12Q", "1.5G", "99999999999999999999", "20000000000000G", "0x10"})
    CHECK_FALSE(parse_size(bad, &b));
}

TEST_CASE("writer options from the environment", "[trace][options]") {
  for (const char* v : {"SYNCLAB_TRACE_LIMIT", "SYNCLAB_TRACE_KERNELS", "SYNCLAB_TRACE_BLOCKS",
                        "SYNCLAB_TRACE_RANGES", "SYNCLAB_TRACE_KINDS"})
    unsetenv(v);
  SECTION("nothing set: defaults") {
    WriterOptions o;
    std::string err;
    REQUIRE(parse_writer_options_from_env(&o, &err));
    CHECK(o.size_limit == 1ull << 30);
    CHECK(o.kernels.empty());
    CHECK(o.block_first == -1);
    CHECK(o.address_ranges.empty());
    CHECK(o.kinds == ~0u);
  }
  SECTION("all set") {
    Env a("SYNCLAB_TRACE_LIMIT", "256M"), b("SYNCLAB_TRACE_KERNELS", "lock_kernel, _Z3fooPi"),
        c("SYNCLAB_TRACE_BLOCKS", "2-5"), d("SYNCLAB_TRACE_RANGES", "0x1000-0x2000,4096-8192"),
        e("SYNCLAB_TRACE_KINDS", "step,barrier,region");
    WriterOptions o;
    std::string err;
    REQUIRE(parse_writer_options_from_env(&o, &err));
    CHECK(o.size_limit == 256ull << 20);
    CHECK(o.kernels == std::vector<std::string>{"lock_kernel", "_Z3fooPi"});
    CHECK(o.block_first == 2);
    CHECK(o.block_last == 5);
    REQUIRE(o.address_ranges.size() == 2);
    CHECK(o.address_ranges[0] == std::make_pair<uint64_t, uint64_t>(0x1000, 0x2000));
    CHECK(o.address_ranges[1] == std::make_pair<uint64_t, uint64_t>(4096, 8192));
    const uint32_t want = (1u << unsigned(EventKind::WarpStep)) | (1u << unsigned(EventKind::BarrierArrive)) |
                          (1u << unsigned(EventKind::BarrierRelease)) | (1u << unsigned(EventKind::RegionUpdate));
    CHECK(o.kinds == want);
  }
  SECTION("one block") {
    Env a("SYNCLAB_TRACE_BLOCKS", "7");
    WriterOptions o;
    std::string err;
    REQUIRE(parse_writer_options_from_env(&o, &err));
    CHECK(o.block_first == 7);
    CHECK(o.block_last == 7);
  }
  SECTION("bad values name the variable and leave the options alone") {
    struct Bad {
      const char* var;
      const char* value;
      const char* expect;
    };
    for (const Bad& bad : {Bad{"SYNCLAB_TRACE_LIMIT", "lots", "K, M or G"},
                           Bad{"SYNCLAB_TRACE_BLOCKS", "5-2", "first-last"},
                           Bad{"SYNCLAB_TRACE_BLOCKS", "a-b", "first-last"},
                           Bad{"SYNCLAB_TRACE_RANGES", "0x2000-0x1000", "lo < hi"},
                           Bad{"SYNCLAB_TRACE_RANGES", "12", "lo-hi"},
                           Bad{"SYNCLAB_TRACE_KINDS", "step,warps", "unknown event kind \"warps\""},
                           Bad{"SYNCLAB_TRACE_KERNELS", " , ", "kernel names"}}) {
      Env e(bad.var, bad.value);
      WriterOptions o;
      o.size_limit = 5;
      std::string err;
      INFO(bad.var << "=" << bad.value);
      CHECK_FALSE(parse_writer_options_from_env(&o, &err));
      CHECK(err.find(bad.var) != std::string::npos);
      CHECK(err.find(bad.expect) != std::string::npos);
      CHECK(o.size_limit == 5);
    }
  }
}

TEST_CASE("kind names", "[trace][options]") {
  CHECK(kind_bits("atomic") == ((1u << 3) | (1u << 4)));
  CHECK(kind_bits("all") == ~0u);
  CHECK(kind_bits("nope") == 0);
  CHECK(std::string(event_kind_name(uint8_t(EventKind::BarrierRelease))) == "barrier-release");
  CHECK(std::string(event_kind_name(200)) == "unknown");
}
