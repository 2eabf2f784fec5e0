// The interpreter's per-instruction flags (annotate_for_exec, sim/exec/kernel_run.cpp), on
// hand-written PTX: kExecNoAcquireAfter marks the instructions after which no path of the function
// reaches one that may acquire (the relaxed model lets a morally strong relaxed load so marked read
// a store that waits for a release: docs/memory-model.md, "What `relaxed` cannot produce").
#include <synclab/catch.h>

#include <string>

#include "sim/exec/kernel_run.h"
#include "sim/ptx/parser.h"

using namespace synclab::sim;

namespace exec_flags_test {

// A module (its header added) with every function annotated.
ptx::Module annotated_module(const std::string& functions) {
  ptx::Module m = ptx::parse_module(".version 8.0\n.target sm_80\n.address_size 64\n" + functions, "flags.ptx");
  for (ptx::Function& f : m.functions) annotate_for_exec(f, false);
  return m;
}

// One kernel k(.param .u64 k_p) with this body, annotated.
ptx::Function annotated(const std::string& body) {
  ptx::Module m = annotated_module(".visible .entry k(.param .u64 k_p)\n{\n" + body + "\n}\n");
  REQUIRE(m.functions.size() == 1);
  return m.functions[0];
}

bool no_acquire_after(const ptx::Function& f, size_t i) {
  REQUIRE(i < f.code.size());
  return (f.code[i].exec & ptx::Instr::kExecNoAcquireAfter) != 0;
}

}  // namespace exec_flags_test

TEST_CASE("no acquire after: a loop's load before a fence is not marked, a load followed by stores is",
          "[exec][relaxed]") {
  using namespace exec_flags_test;
  const ptx::Function f = annotated(R"(
  .reg .b32 %r<5>; .reg .b64 %rd<3>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [k_p];
$L_spin:
  ld.relaxed.gpu.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_spin;
  fence.acq_rel.gpu;
  ld.relaxed.gpu.global.u32 %r2, [%rd1+4];
  st.relaxed.gpu.global.u32 [%rd1+8], %r2;
  fence.release.gpu;
  st.global.u32 [%rd1+12], %r2;
  ret;)");
  REQUIRE(f.code.size() == 10);
  CHECK(f.code[1].op == ptx::Op::Ld);
  CHECK_FALSE(no_acquire_after(f, 1));  // the spin's load: the fence after the loop
  CHECK_FALSE(no_acquire_after(f, 3));  // the branch back
  CHECK(no_acquire_after(f, 4));        // the fence itself: only what follows counts
  CHECK(f.code[5].op == ptx::Op::Ld);
  CHECK(no_acquire_after(f, 5));  // stores and a release fence follow
  CHECK(no_acquire_after(f, 9));
}

TEST_CASE("no acquire after: an acquire load, a barrier or a branch to one unmarks what comes before",
          "[exec][relaxed]") {
  using namespace exec_flags_test;
  const ptx::Function f = annotated(R"(
  .reg .b32 %r<5>; .reg .b64 %rd<3>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [k_p];
  ld.relaxed.gpu.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_bar;
  ld.relaxed.gpu.global.u32 %r2, [%rd1+4];
  ld.acquire.gpu.global.u32 %r3, [%rd1+8];
  ld.relaxed.gpu.global.u32 %r4, [%rd1+12];
  ret;
$L_bar:
  bar.sync 0;
  ret;)");
  REQUIRE(f.code.size() == 10);
  CHECK_FALSE(no_acquire_after(f, 1));  // both paths acquire later
  CHECK_FALSE(no_acquire_after(f, 4));  // the acquire load after it
  CHECK(no_acquire_after(f, 5));        // the acquire load itself: nothing after it acquires
  CHECK(no_acquire_after(f, 6));
  CHECK(no_acquire_after(f, 7));        // the return
  CHECK_FALSE(no_acquire_after(f, 3));  // the branch: its target's barrier
  CHECK(no_acquire_after(f, 8));        // the barrier itself
}

TEST_CASE("no acquire after: only the taken branch's target acquires", "[exec][relaxed]") {
  using namespace exec_flags_test;
  const ptx::Function f = annotated(R"(
  .reg .b32 %r<5>; .reg .b64 %rd<3>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [k_p];
  ld.relaxed.gpu.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra $L_acq;
  st.relaxed.gpu.global.u32 [%rd1+4], %r1;
  ret;
$L_acq:
  fence.acq_rel.gpu;
  ret;)");
  REQUIRE(f.code.size() == 8);
  CHECK_FALSE(no_acquire_after(f, 1));  // the branch's target holds a fence
  CHECK_FALSE(no_acquire_after(f, 3));
  CHECK(no_acquire_after(f, 4));  // the fall-through path: a store and the end
  CHECK(no_acquire_after(f, 6));  // the fence itself
}

TEST_CASE("no acquire after: in a called function, the return to the caller may acquire", "[exec][relaxed]") {
  const ptx::Module m = exec_flags_test::annotated_module(R"(.func helper(.param .b64 helper_p)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  ld.param.b64 %rd1, [helper_p];
  ld.relaxed.gpu.global.u32 %r1, [%rd1];
  st.relaxed.gpu.global.u32 [%rd1+4], %r1;
  ret;
}
.visible .entry k(.param .u64 k_p)
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [k_p];
  ld.relaxed.gpu.global.u32 %rd2, [%rd1];
  ret;
}
)");
  const int h = m.find_function("helper"), k = m.find_function("k");
  REQUIRE(h >= 0);
  REQUIRE(k >= 0);
  const ptx::Function& helper = m.functions[size_t(h)];
  REQUIRE(helper.code.size() == 4);
  CHECK_FALSE(exec_flags_test::no_acquire_after(helper, 1));  // its caller may fence after the return
  CHECK(exec_flags_test::no_acquire_after(helper, 3));        // the return itself
  const ptx::Function& kernel = m.functions[size_t(k)];
  CHECK(exec_flags_test::no_acquire_after(kernel, 1));  // a kernel's return ends the thread
}

TEST_CASE("no acquire after: a relaxed read-modify-write or reduction unmarks what comes before", "[exec][relaxed]") {
  using namespace exec_flags_test;
  const ptx::Function f = annotated(R"(
  .reg .b32 %r<5>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [k_p];
  ld.relaxed.gpu.global.u32 %r1, [%rd1];
  atom.relaxed.gpu.global.exch.b32 %r2, [%rd1], 2;
  ld.relaxed.gpu.global.u32 %r3, [%rd1+4];
  red.relaxed.gpu.global.add.u32 [%rd1+4], 1;
  ld.relaxed.gpu.global.u32 %r4, [%rd1+8];
  ret;)");
  REQUIRE(f.code.size() == 7);
  CHECK(f.code[2].op == ptx::Op::Atom);
  CHECK(f.code[4].op == ptx::Op::Red);
  // (a load that read a store waiting for a release would leave a read-modify-write of its
  // location nothing else to read, and that write would pass on the release too early)
  CHECK_FALSE(no_acquire_after(f, 1));  // the exchange after it
  CHECK_FALSE(no_acquire_after(f, 3));  // the reduction after it
  CHECK(no_acquire_after(f, 4));
  CHECK(no_acquire_after(f, 5));
}
