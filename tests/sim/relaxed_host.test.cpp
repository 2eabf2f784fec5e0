// The relaxed memory model's host (RelaxedModel::host_word, sync_host) driven directly: a buffer
// stands for mapped pinned memory, the test writes it as a host thread would between the model's
// looks, and the device thread's reads must keep to PTX: a thread that acquires the host's flag
// reads what the host wrote before the flag (tests/runtime/programs/host_relaxed_handover.cu,
// the same hand-over run as a program).
#include <synclab/catch.h>

#include <cstdint>

#include "sim/memory/relaxed/relaxed_model.h"

using namespace synclab::sim;

namespace relaxed_host_test {

struct Box {
  alignas(8) uint32_t x = 0, y = 0;
  uint64_t key(const uint32_t& w) const { return reinterpret_cast<uintptr_t>(&w); }
  const uint8_t* p(const uint32_t& w) const { return reinterpret_cast<const uint8_t*>(&w); }
};

// One device read of `word` as the interpreter makes it: the model looks at the host's words,
// then memory is read, then the model chooses the value. `host` runs between the look and the
// read of memory (where a host thread may write).
template <class F>
uint32_t device_read(relaxed::RelaxedModel& m, Box& b, uint32_t& word, ptx::Sem sem, uint64_t now, F host) {
  m.host_word(b.key(word), 4, b.p(word), now);
  host();
  const uint32_t latest = __atomic_load_n(&word, __ATOMIC_RELAXED);
  return uint32_t(m.load(MemThread{0, 0, false}, b.key(word), 4, latest, {sem, ptx::Scope::Sys}, now));
}
uint32_t device_read(relaxed::RelaxedModel& m, Box& b, uint32_t& word, ptx::Sem sem, uint64_t now) {
  return device_read(m, b, word, sem, now, [] {});
}

}  // namespace relaxed_host_test

TEST_CASE("relaxed model: the host's flag, acquired when its word's history has just expired, orders the data",
          "[relaxed_host]") {
  // x is read once early, y is polled: x's history expires first and is started again at the next
  // look, so it outlives y's. The host writes x, then y, right after the look of the poll in
  // which y's history expires (the model's window is 20,000 steps). The acquire of y = 1 must
  // bring x = 1 with it, whatever the seed.
  int stale = 0;
  for (uint64_t seed = 1; seed <= 64; ++seed) {
    relaxed::RelaxedModel m(seed, 32, false);
    m.start_block(0);
    relaxed_host_test::Box box;
    using relaxed_host_test::device_read;
    CHECK(device_read(m, box, box.x, ptx::Sem::Relaxed, 1) == 0);
    CHECK(device_read(m, box, box.y, ptx::Sem::Acquire, 15000) == 0);
    CHECK(device_read(m, box, box.y, ptx::Sem::Acquire, 20002) == 0);  // x's history expires
    CHECK(device_read(m, box, box.y, ptx::Sem::Acquire, 20003) == 0);  // x's starts again
    const uint32_t y = device_read(m, box, box.y, ptx::Sem::Acquire, 35001, [&] {
      __atomic_store_n(&box.x, 1u, __ATOMIC_RELEASE);
      __atomic_store_n(&box.y, 1u, __ATOMIC_RELEASE);
    });
    if (y == 1) stale += device_read(m, box, box.x, ptx::Sem::Relaxed, 35002) == 0;
  }
  CHECK(stale == 0);
}
