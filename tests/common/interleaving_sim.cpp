// The interleaving of a real simulator trace: lab 01's increment_racy<<<2, 1>>> (++x[0] in two
// blocks), recorded by the lab's harness at test time (the run that ends with x[0] == 1, a lost
// update). The reference is the trace's own events, read here without the library: every
// access to region "x", in order. The kernel starts from x[0] == 0 (the harness sets it) and each
// thread adds 1, so a lost update is: two loads of 0, then two stores of 1.
#include <synclab/catch.h>
#include <synclab/interleaving.h>
#include <synclab/trace_reader.h>
#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace tr = synclab::trace;

namespace {

const std::string kTrace = SIM_LOST_UPDATE_TRACE;

std::unique_ptr<tr::Trace> open_trace() {
  std::string err;
  auto t = tr::load(kTrace, &err);
  INFO(err);
  REQUIRE(t);
  REQUIRE(t->launches.size() == 1);
  return t;
}

// The MemAccess events on region "x" (element 0), as global event indices.
std::vector<size_t> accesses_to_x(const tr::Trace& t, uint64_t* x) {
  *x = 0;
  for (const nlohmann::json& r : t.regions)
    if (r.value("name", "") == "x") *x = r.value("address", uint64_t(0));
  REQUIRE(*x != 0);
  std::vector<size_t> out;
  for (size_t i = 0; i < t.event_count(); ++i) {
    const tr::Event& e = t.event(i);
    if (e.kind == uint8_t(tr::EventKind::MemAccess) && e.a == *x) out.push_back(i);
  }
  return out;
}

bool is_store(const tr::Event& e) { return (e.aux & tr::kAuxWrite) != 0; }

}  // namespace

TEST_CASE("lab01 increment race: two loads of 0 precede two stores of 1, as the interleaving lists them",
          "[interleaving][sim]") {
  auto t = open_trace();
  uint64_t x = 0;
  const std::vector<size_t> acc = accesses_to_x(*t, &x);
  // The reference, from the raw events: load, load, store, store by the two blocks' threads.
  REQUIRE(acc.size() == 4);
  const tr::Launch& L = t->launches[0];
  std::set<uint32_t> warps;
  for (size_t k = 0; k < 4; ++k) {
    const tr::Event& e = t->event(acc[k]);
    CHECK(is_store(e) == (k >= 2));
    CHECK(e.b == (k < 2 ? 0u : 1u));
    warps.insert(e.warp);
  }
  CHECK(warps.size() == 2);  // one thread in each block

  tr::Interleaving il;
  std::string err;
  REQUIRE(tr::find_interleaving(*t, {}, &il, &err));
  CHECK(il.picked_default);
  CHECK(il.report_kind == "race");
  CHECK(il.address == x);
  std::vector<size_t> listed;
  for (const tr::InterleavingItem& it : il.items)
    if (it.kind == tr::InterleavingItemKind::Load || it.kind == tr::InterleavingItemKind::Store) {
      listed.push_back(it.event);
      CHECK(it.cursor == it.event - L.first_event);
      CHECK(it.line > 0);
      CHECK(it.file.find("increment.cu") != std::string::npos);
      CHECK(it.value == t->event(it.event).b);
    }
  CHECK(listed == acc);
  // The two accesses the report names are among them, from different blocks.
  REQUIRE(il.racing[0] >= 0);
  REQUIRE(il.racing[1] >= 0);
  CHECK(il.items[size_t(il.racing[0])].block != il.items[size_t(il.racing[1])].block);
  CHECK(il.explanation.find("both read 0 before either stored; each stored 1, so one increment is lost") !=
        std::string::npos);

  // What the race report tells students to run.
  const std::string cmd = std::string(SYNCLAB_TRACE_TOOL) + " interleaving " + kTrace + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  INFO(out);
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  size_t marks = 0;
  for (size_t at = out.find("\n>>"); at != std::string::npos; at = out.find("\n>>", at + 1)) ++marks;
  CHECK(marks == 2);
  CHECK(out.find("one increment is lost") != std::string::npos);
}
