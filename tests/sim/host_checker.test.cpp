// The host checker (sim/check/host_checker.h) driven directly: a buffer stands for mapped pinned
// memory, the test writes it as a host thread would between the checker's looks, and the
// findings follow from the rules H1 and H2 of that header. The cases here are the hand-overs of
// lab 08's batch box: the host writes the data, then raises a flag with a release store; a device
// thread acquires the flag at system scope and, after a barrier, other threads read the data.
#include <synclab/catch.h>

#include <cstdint>
#include <cstring>
#include <functional>

#include "sim/check/host_checker.h"

using namespace synclab::sim;

namespace host_checker_test {

ptx::Instr instr(ptx::Sem sem, ptx::Scope scope) {
  ptx::Instr I;
  I.sem = sem;
  I.scope = scope;
  return I;
}

// A box in "mapped memory": word 0 is the flag `full`, word 1 the data `count`.
struct Box {
  alignas(8) uint32_t word[2] = {0, 0};
  const uint8_t* p(int i) const { return reinterpret_cast<const uint8_t*>(&word[i]); }
  uint64_t addr(int i) const { return reinterpret_cast<uintptr_t>(&word[i]); }
  // A host thread's store (the checker's loads are relaxed atomics of the same words).
  void host_store(int i, uint32_t v) { __atomic_store_n(&word[i], v, __ATOMIC_RELEASE); }
};

const ptx::Instr kPlainLoad = instr(ptx::Sem::None, ptx::Scope::None);
const ptx::Instr kAcquireSys = instr(ptx::Sem::Acquire, ptx::Scope::Sys);
const ptx::Instr kReleaseSys = instr(ptx::Sem::Release, ptx::Scope::Sys);

// A device load of word i by (block 0, thread t): the look before it, then the access with the
// value the load read.
void device_load(HostChecker& hc, Box& box, int i, uint32_t t, const ptx::Instr& I, bool look = true) {
  if (look) hc.look();
  const uint64_t v = box.word[i];
  hc.access(0, t, box.addr(i), 4, box.p(i), false, false, I, &v);
}

// A device store of v to word i by (block 0, thread t); `host` runs between the store and the
// checker's record of it (where a host thread may answer), and the record says what the store
// left in memory when `tell` (as the interpreter does) or reads it back when not.
void device_store(HostChecker& hc, Box& box, int i, uint32_t t, uint32_t v, const ptx::Instr& I,
                  const std::function<void()>& host = {}, bool tell = true) {
  hc.look();
  __atomic_store_n(&box.word[i], v, __ATOMIC_RELAXED);
  if (host) host();
  const uint64_t left = v;
  hc.access(0, t, box.addr(i), 4, box.p(i), true, false, I, nullptr, tell ? &left : nullptr);
}

}  // namespace host_checker_test

TEST_CASE("host checker: data written before the flag is dated before the acquire that reads it", "[host_checker]") {
  // A batch before: the device read count and the flag (count first: the order of the passes),
  // and handed the box back with a system-scope release store of full = 0.
  HostChecker hc;
  host_checker_test::Box box;
  host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
  host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys);
  host_checker_test::device_store(hc, box, 0, 0, 0, host_checker_test::kReleaseSys);

  SECTION("the host writes both words between the acquire's look and its load") {
    // The look before thread 0's load sees nothing; the host then writes count and full; the
    // load reads full = 1. The host's write of count was made before that: reading it after a
    // barrier is ordered after the host's write (no race).
    hc.look();
    box.host_store(1, 37);
    box.host_store(0, 1);
    host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys, /*look=*/false);
    host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
    CHECK(hc.findings().empty());
  }
  SECTION("the host writes both words while a look reads them") {
    // The look reads count (still 0), the host writes count and full, the look reads full = 1.
    int passes_at_full = 0;
    hc.between_words_for_test([&](size_t i) {
      if (i == 1 && passes_at_full++ == 0) {
        box.host_store(1, 37);
        box.host_store(0, 1);
      }
    });
    host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys);
    hc.between_words_for_test(nullptr);
    host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
    CHECK(hc.findings().empty());
  }
  SECTION("the host answers between the device's store of the flag and the checker's record of it") {
    // Thread 0 hands the box back (full = 0); before the checker records that store, the host sees
    // full == 0, writes the next batch and raises full again. The store's record must be the 0 the
    // device wrote, so that the 1 its next acquire reads is the host's.
    host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys);
    for (const bool tell : {true, false}) {
      box.host_store(0, 1);
      host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys);
      host_checker_test::device_store(
          hc, box, 0, 0, 0, host_checker_test::kReleaseSys,
          [&] {
            box.host_store(1, tell ? 37 : 38);
            box.host_store(0, 1);
          },
          tell);
      host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys);
      host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
      // Read back instead (the record before this was fixed), the host's 1 looks like the device's
      // own write and the acquire of it acquires nothing: a race is reported that is not there.
      CHECK(hc.findings().size() == (tell ? 0 : 1));
    }
  }
  SECTION("the host answers a read-modify-write that releases the box while the checker records it") {
    // The host raised full; thread 0 takes the box back with one exchange (full = 0) that reads the
    // host's 1; before the checker records the exchange, the host sees full == 0 and writes count.
    // With the exchange a system-scope release, that write comes after the release: no race with
    // thread 32's earlier read of count. A relaxed exchange releases nothing: H2 (its twin).
    for (const bool release : {true, false}) {
      host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);  // after the last release
      hc.look();
      box.host_store(0, 1);
      __atomic_store_n(&box.word[0], 0u, __ATOMIC_RELAXED);  // the exchange
      box.host_store(1, release ? 5 : 6);                    // the host's answer
      const uint64_t was = 1, left = 0;
      const ptx::Instr exch = host_checker_test::instr(release ? ptx::Sem::AcqRel : ptx::Sem::Relaxed, ptx::Scope::Sys);
      hc.access(0, 0, box.addr(0), 4, box.p(0), false, true, exch, &was, &left);
      host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
      if (release) {
        CHECK(hc.findings().empty());
      } else {
        REQUIRE(hc.findings().size() == 1);
        CHECK(hc.findings()[0].rule == HostFinding::Rule::HostAfterDevice);
        CHECK(hc.findings()[0].host_value == 6);
      }
    }
  }
  SECTION("a host write after the device's acquire is still a race (its twin)") {
    // The device acquires the flag, then the host writes count with no flag after it, and the
    // device reads count: H1, one report naming the host's value.
    hc.look();
    box.host_store(0, 1);
    host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kAcquireSys, /*look=*/false);
    hc.look();
    box.host_store(1, 37);
    host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
    REQUIRE(hc.findings().size() == 1);
    CHECK(hc.findings()[0].rule == HostFinding::Rule::DeviceAfterHost);
    CHECK(hc.findings()[0].addr == box.addr(1));
    CHECK(hc.findings()[0].host_value == 37);
    CHECK(hc.findings()[0].thread == 32);
  }
  SECTION("data written before the flag but read with no acquire is a race") {
    // The same writes as the first section, but thread 0 reads the flag with a plain load.
    hc.look();
    box.host_store(1, 37);
    box.host_store(0, 1);
    host_checker_test::device_load(hc, box, 0, 0, host_checker_test::kPlainLoad, /*look=*/false);
    host_checker_test::device_load(hc, box, 1, 32, host_checker_test::kPlainLoad);
    CHECK_FALSE(hc.findings().empty());
  }
}
