// The regions API: validation, the registry, the simulator hook, the Region chunk JSON.
#include "trace_test_util.h"

#include <synclab/regions.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_writer.h>

#include <synclab/catch.h>

#include <functional>

namespace {

// Stands in for simcudart's definition of the weak hook, to see what it is given.
struct HookCall {
  const void* ptr;
  size_t bytes;
  std::string name, kind;
  unsigned elem_bits, ndims, dims[2];
};
std::vector<HookCall> g_calls;
int g_hook_rc = 0;

}  // namespace

extern "C" int synclab_sim_region(const void* ptr, size_t bytes, const char* name, const char* kind,
                                  unsigned elem_bits, unsigned ndims, const unsigned* dims) {
  HookCall c{ptr, bytes, name, kind, elem_bits, ndims, {0, 0}};
  for (unsigned i = 0; i < ndims && i < 2; ++i) c.dims[i] = dims[i];
  g_calls.push_back(c);
  return g_hook_rc;
}

namespace {
struct SharedCall {
  const void* kernel;
  std::string variable, name, kind;
  size_t bytes;
  unsigned elem_bits, ndims, dims[2];
};
std::vector<SharedCall> g_shared;
int g_shared_rc = 0;
void some_kernel(int*) {}
}  // namespace

extern "C" int synclab_sim_shared_region(const void* kernel, const char* variable, size_t bytes, const char* name,
                                         const char* kind, unsigned elem_bits, unsigned ndims, const unsigned* dims) {
  SharedCall c{kernel, variable, name, kind, bytes, elem_bits, ndims, {0, 0}};
  for (unsigned i = 0; i < ndims && i < 2; ++i) c.dims[i] = dims[i];
  g_shared.push_back(c);
  return g_shared_rc;
}

TEST_CASE("regions: shared arrays are named by kernel and variable", "[regions]") {
  synclab::regions::clear();
  g_shared.clear();
  g_shared_rc = 0;
  CHECK(synclab_region_shared(some_kernel, "partial", 256 * 4, "array", 256) == 0);
  CHECK(synclab_region_shared(nullptr, "tile", 32 * 32 * 4, "matrix", 32, 32) == 0);
  CHECK(synclab_region_shared(some_kernel, "held", 4, "lock-bits") == 0);
  REQUIRE(g_shared.size() == 3);
  CHECK(g_shared[0].kernel == reinterpret_cast<const void*>(some_kernel));
  CHECK(g_shared[0].variable == "partial");
  CHECK(g_shared[0].name == "partial");
  CHECK(g_shared[0].elem_bits == 32);
  CHECK(g_shared[0].ndims == 1);
  CHECK(g_shared[0].dims[0] == 256);
  CHECK(g_shared[1].kernel == nullptr);
  CHECK(g_shared[1].ndims == 2);
  CHECK(g_shared[1].dims[1] == 32);
  CHECK(g_shared[2].elem_bits == 1);
  CHECK(g_shared[2].dims[0] == 32);
  // Not in the global registry (the GPU recorder has no address for them).
  CHECK(synclab::regions::count() == 0);
  // Refused before reaching the simulator: bad shapes, empty names, odd element sizes.
  CHECK(synclab_region_shared(some_kernel, "partial", 256 * 4, "array", 255) != 0);
  CHECK(synclab_region_shared(some_kernel, "", 16, "array", 4) != 0);
  CHECK(synclab_region_shared(some_kernel, "s", 16, "bogus", 4) != 0);
  CHECK(synclab_region_shared(some_kernel, "s", 48, "array", 4) != 0);  // 12-byte elements
  CHECK(synclab_region_shared(some_kernel, "s", 16, "array", -4) != 0);
  CHECK(g_shared.size() == 3);
  // The simulator's refusal is the caller's result.
  g_shared_rc = 7;
  CHECK(synclab_region_shared(some_kernel, "nope", 16, "array", 4) == 7);
  g_shared_rc = 0;
}

TEST_CASE("regions: a SharedRegion chunk is checked by the reader", "[regions]") {
  nlohmann::json ok = synclab::trace::shared_region_json(3, "partial", "array", "partial", "", 256, 32, {64});
  CHECK(ok["space"] == "shared");
  CHECK(synclab::trace::shared_region_problem(ok).empty());
  auto with = [&](const char* key, nlohmann::json v) {
    nlohmann::json j = ok;
    if (v.is_null())
      j.erase(key);
    else
      j[key] = v;
    return synclab::trace::shared_region_problem(j);
  };
  CHECK(with("id", 256).find("0 .. 255") != std::string::npos);
  CHECK(with("id", nullptr).find("\"id\"") != std::string::npos);
  CHECK(with("variable", "").find("\"variable\"") != std::string::npos);
  CHECK(with("dims", nlohmann::json::array({65})).find("do not fit") != std::string::npos);
  CHECK(with("dims", nlohmann::json::array({1, 2, 3})).find("1 or 2") != std::string::npos);
  CHECK(with("dims", nlohmann::json::array({0})).find("positive") != std::string::npos);
  CHECK(with("elem_bits", 12).find("elem_bits") != std::string::npos);
  CHECK(with("bytes", 0).find("\"bytes\"") != std::string::npos);
}

TEST_CASE("regions: valid shapes are registered and passed to the simulator", "[regions]") {
  synclab::regions::clear();
  g_calls.clear();
  g_hook_rc = 0;
  static int buf[4096];
  CHECK(synclab_region(buf, 128, "locks", "lock-bits", 32, 32) == 0);
  CHECK(synclab_region(buf, 16384, "grid", "matrix", 64, 64) == 0);
  CHECK(synclab_region(buf, 64, "ready", "flags", 16) == 0);
  CHECK(synclab_region(buf, 64, "bytes", "flags", 64u) == 0);  // 1-byte flags
  CHECK(synclab_region(buf, 40, "data", "array") == 0);         // 10 ints by default
  CHECK(synclab_region(buf, 36, "structs", "array", 3) == 0);    // 12-byte elements are fine
  CHECK(synclab_region(buf, 8, "bits", "lock-bits") == 0);      // 64 bits in one row
  CHECK(synclab_region(buf, 128, "few", "lock-bits", 100) == 0); // fewer bits than fit
  REQUIRE(synclab::regions::count() == 8);
  auto all = synclab::regions::all();
  CHECK(all[0].elem_bits == 1);
  CHECK(all[0].ndims == 2);
  CHECK(all[0].elements() == 1024);
  CHECK(all[1].elem_bits == 32);
  CHECK(all[1].elements() == 4096);
  CHECK(all[2].elem_bits == 32);
  CHECK(all[3].elem_bits == 8);
  CHECK(all[4].ndims == 1);
  CHECK(all[4].dims[0] == 10);
  CHECK(all[5].elem_bits == 96);
  CHECK(all[6].dims[0] == 64);
  CHECK(all[6].elem_bits == 1);
  CHECK(all[7].elements() == 100);
  REQUIRE(g_calls.size() == 8);
  CHECK(g_calls[0].name == "locks");
  CHECK(g_calls[0].kind == "lock-bits");
  CHECK(g_calls[0].ptr == buf);
  CHECK(g_calls[0].bytes == 128);
  CHECK(g_calls[0].elem_bits == 1);
  CHECK(g_calls[0].ndims == 2);
  CHECK(g_calls[0].dims[0] == 32);
  CHECK(g_calls[0].dims[1] == 32);
  CHECK(g_calls[4].ndims == 1);  // filled in: never 0 dims
  CHECK(g_calls[4].dims[0] == 10);
  // The same region again is not added twice.
  CHECK(synclab_region(buf, 128, "locks", "lock-bits", 32, 32) == 0);
  CHECK(synclab::regions::count() == 8);
  CHECK(synclab::regions::get(1).name == "grid");
  CHECK(synclab::regions::get(99).name.empty());
}

TEST_CASE("regions: bad arguments give a message and a non-zero result", "[regions]") {
  synclab::regions::clear();
  g_calls.clear();
  static int buf[64];
  std::vector<std::pair<std::function<int()>, const char*>> cases = {
      {[] { return synclab_region(nullptr, 128, "locks", "lock-bits", 32, 32); }, "null"},
      {[] { return synclab_region(buf, 128, "", "lock-bits", 32, 32); }, "name is empty"},
      {[] { return synclab_region(buf, 128, nullptr, "lock-bits"); }, "name is empty"},
      {[] { return synclab_region(buf, 128, "x", "mutex"); }, "unknown kind \"mutex\""},
      {[] { return synclab_region(buf, 128, "x", nullptr); }, "unknown kind"},
      {[] { return synclab_region(buf, 128, "x", "lock-bits", 33, 32); }, "1056 lock bits do not fit in 128 bytes"},
      {[] { return synclab_region(buf, 16384, "x", "matrix", 64); }, "2 dimensions"},
      {[] { return synclab_region(buf, 16384, "x", "matrix", 64, 65); }, "do not divide"},
      {[] { return synclab_region(buf, 75, "x", "matrix", 5, 5); }, "must be 1, 2, 4 or 8 bytes"},
      {[] { return synclab_region(buf, 64, "x", "flags", 4, 4); }, "1 dimension"},
      {[] { return synclab_region(buf, 64, "x", "array", 0); }, "dimension 1 is 0"},
      {[] { return synclab_region(buf, 64, "x", "array", -2); }, "negative"},
      {[] { return synclab_region(buf, 10, "x", "array"); }, "4-byte elements"},
      {[] { return synclab_region(buf, 0, "x", "array"); }, "0 bytes"},
  };
  for (auto& [call, expect] : cases) {
    tt::StderrCapture cap;
    int rc = call();
    std::string msg = cap.text();
    INFO(expect << " / " << msg);
    CHECK(rc != 0);
    CHECK(msg.find(expect) != std::string::npos);
    CHECK(msg.find("synclab_region") != std::string::npos);
  }
  CHECK(synclab::regions::count() == 0);
  CHECK(g_calls.empty());
}

TEST_CASE("regions: the simulator may refuse a region", "[regions]") {
  synclab::regions::clear();
  g_calls.clear();
  g_hook_rc = 5;
  static int buf[64];
  tt::StderrCapture cap;
  CHECK(synclab_region(buf, 128, "locks", "lock-bits", 32, 32) == 5);
  CHECK(cap.text().find("refused") != std::string::npos);
  g_hook_rc = 0;
}

TEST_CASE("regions: registry entries become Region chunk JSON", "[regions]") {
  synclab::regions::clear();
  static int buf[64];
  REQUIRE(synclab_region(buf, 128, "locks", "lock-bits", 32, 32) == 0);
  nlohmann::json j = synclab::trace::region_json(3, synclab::regions::get(0));
  CHECK(j["id"] == 3);
  CHECK(j["name"] == "locks");
  CHECK(j["kind"] == "lock-bits");
  CHECK(j["address"] == reinterpret_cast<uintptr_t>(buf));
  CHECK(j["bytes"] == 128);
  CHECK(j["elem_bits"] == 1);
  CHECK(j["elem_bytes"] == 0);
  CHECK(j["dims"] == nlohmann::json({32, 32}));
  synclab::regions::clear();
}
