// The loader's layout of static shared memory: each kernel gets the __shared__ variables it (and
// the functions it calls) uses, aligned, one after the other; a variable several kernels use has
// one offset, after what any of them placed before it. Expected values follow from the PTX
// declarations (sizes and alignments) and that rule.
#include <synclab/catch.h>

#include <algorithm>
#include <string>

#include "sim/exec/simulator.h"
#include "tests/sim/ptx_samples.h"

using namespace synclab::sim;

namespace {

// A variable of any scope by name (function-scope ones too, which find_symbol leaves out).
const ptx::Symbol& symbol(const ptx::Module& m, const std::string& name) {
  for (const ptx::Symbol& s : m.symbols)
    if (s.name == name) return s;
  FAIL("no variable " << name);
  return m.symbols.front();
}

}  // namespace

TEST_CASE("static shared memory is laid out per kernel, aligned, without overlap", "[exec]") {
  Simulator& sim = Simulator::instance();
  // sh1: 12 bytes, align 8; sh2: 4 bytes, align 16. k1 uses both, k2 only sh2.
  const std::string text = R"(.version 8.0
.target sm_80
.address_size 64
.shared .align 8 .b8 sh1[12];
.shared .align 16 .b8 sh2[4];
.visible .entry k1()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  st.shared.u32 [sh1], %r1;
  st.shared.u32 [sh2], %r1;
  ret;
}
.visible .entry k2()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 2;
  st.shared.u32 [sh2], %r1;
  ret;
}
.visible .entry k3()
{
  ret;
}
)";
  const int mod = sim.load_module(text, "shared_layout.ptx");
  const ptx::Module& m = sim.module(mod);
  CHECK(symbol(m, "sh1").offset == 0);
  CHECK(symbol(m, "sh2").offset == 16);  // after sh1's 12 bytes, at the next multiple of 16
  CHECK(sim.static_shared_bytes(mod, m.find_function("k1")) == 20);
  CHECK(sim.static_shared_bytes(mod, m.find_function("k2")) == 20);  // (sh2 keeps its one offset)
  CHECK(sim.static_shared_bytes(mod, m.find_function("k3")) == 0);
}

TEST_CASE("nvcc's demoted __shared__ arrays get their kernel's static shared memory", "[exec]") {
  Simulator& sim = Simulator::instance();
  const int mod = sim.load_module(read_ptx_sample("misc_sm80.ptx"), "misc_sm80.ptx");
  const ptx::Module& m = sim.module(mod);
  // int s[64] in kbar (256 bytes, align 4), double st[16] in kdyn (128 bytes, align 8).
  const ptx::Symbol& s = symbol(m, "_ZZ4kbarPiE1s");
  const ptx::Symbol& st = symbol(m, "_ZZ4kdynPfE2st");
  CHECK(s.offset % 4 == 0);
  CHECK(st.offset % 8 == 0);
  CHECK(sim.static_shared_bytes(mod, m.find_function("_Z4kbarPi")) >= s.offset + 256);
  CHECK(sim.static_shared_bytes(mod, m.find_function("_Z4kdynPf")) >= st.offset + 128);
}

TEST_CASE("cub's TempStorage variables are aligned and fit their kernels' static shared memory", "[exec]") {
  Simulator& sim = Simulator::instance();
  const int mod = sim.load_module(read_ptx_sample("cub_sm75.ptx"), "cub_sm75.ptx");
  const ptx::Module& m = sim.module(mod);
  uint64_t end = 0, most = 0;
  for (const ptx::Symbol& s : m.symbols)
    if (s.space == ptx::Space::Shared && !s.is_dynamic_shared) {
      CHECK(s.offset % s.align == 0);
      end = std::max(end, s.offset + s.size);
    }
  for (size_t f = 0; f < m.functions.size(); ++f)
    if (m.functions[f].is_entry) most = std::max(most, sim.static_shared_bytes(mod, int(f)));
  CHECK(end > 0);
  CHECK(most == end);  // the kernel that needs the most has the variable that ends last
}
