// The race detector driven directly, without a kernel: accesses, barriers and release/acquire
// are fed in the order the interpreter would report them (see sim/check/race_checker.cpp), and
// the expected findings follow from happens-before as sim/check/race_detector.h describes it.
#include <synclab/catch.h>

#include <cstdint>
#include <vector>

#include "sim/check/race_detector.h"
#include "sim/exec/warp.h"

using namespace synclab::sim;

namespace {

constexpr uint8_t kRead = 0;
constexpr uint8_t kWrite = RaceDetector::kWrite;
constexpr uint8_t kAtomic = RaceDetector::kAtomic | RaceDetector::kWrite;  // as the race checker flags them

// A detector and some blocks of `tpc` threads. Thread tid belongs to warp tid / 32.
struct Bench {
  RaceDetector det;
  std::vector<Cta> ctas;
  uint32_t tpc;
  Bench(WarpModel m, uint32_t threads_per_cta, size_t blocks = 1)
      : det(m, threads_per_cta, 256), ctas(blocks), tpc(threads_per_cta) {
    for (size_t i = 0; i < blocks; ++i) {
      ctas[i].linear = i;
      ctas[i].threads = ctas[i].live_threads = threads_per_cta;
      det.start_cta(ctas[i]);
    }
  }
  // A 4-byte access; `loc` stands for the instruction (distinct pairs of locs are distinct reports).
  bool shared(uint32_t tid, uint64_t off, uint8_t flags, uint32_t loc, size_t cta = 0) {
    return det.access(ctas[cta], tid, tid / 32, true, off, 4, flags, loc);
  }
  bool global(uint32_t tid, uint64_t addr, uint8_t flags, uint32_t loc, size_t cta = 0) {
    return det.access(ctas[cta], tid, tid / 32, false, addr, 4, flags, loc);
  }
  // __syncthreads() by every thread of the block.
  void syncthreads(size_t cta = 0) {
    std::vector<uint32_t> all;
    for (uint32_t t = 0; t < tpc; ++t) {
      det.barrier_arrive(ctas[cta], t, 0, false);
      all.push_back(t);
    }
    det.barrier_release(ctas[cta], 0, all, ctas[cta].live_threads);
  }
  size_t findings() { return det.findings().size(); }
};

ptx::Instr instr(ptx::Sem sem, ptx::Scope scope) {
  ptx::Instr I;
  I.sem = sem;
  I.scope = scope;
  return I;
}

}  // namespace

TEST_CASE("race detector: unsynchronized accesses of two threads are a finding", "[sim][race]") {
  for (WarpModel m : {WarpModel::Its, WarpModel::Lockstep}) {
    INFO(model_name(m));
    Bench b(m, 33);  // thread 32 is alone in the second warp
    CHECK(b.shared(0, 8, kWrite, 1));
    CHECK_FALSE(b.shared(32, 8, kRead, 2));  // write, then read
    REQUIRE(b.findings() == 1);
    const RaceFinding& f = b.det.findings()[0];
    CHECK(f.prev.gid1 == 1);  // thread 0
    CHECK(f.prev.loc == 1);
    CHECK((f.prev.flags & kWrite) != 0);
    CHECK(f.cur_gid == 32);
    CHECK(f.cur_loc == 2);
    CHECK(f.addr == 8);
    CHECK(f.shared);
    CHECK_FALSE(f.warp_level);

    CHECK(b.shared(5, 16, kRead, 3));
    CHECK_FALSE(b.shared(32, 16, kWrite, 4));  // read, then write
    CHECK_FALSE(b.shared(0, 16, kWrite, 5));   // write, then write
    CHECK(b.findings() == 3);
  }
}

TEST_CASE("race detector: reads alone, and accesses to different words, never race", "[sim][race]") {
  Bench b(WarpModel::Its, 64);
  CHECK(b.shared(0, 0, kRead, 1));
  CHECK(b.shared(40, 0, kRead, 2));
  CHECK(b.shared(63, 0, kRead, 3));
  CHECK(b.shared(0, 4, kWrite, 4));
  CHECK(b.shared(40, 8, kWrite, 5));
  CHECK(b.findings() == 0);
  CHECK_FALSE(b.shared(40, 4, kRead, 6));  // the detector does look: same word, now a finding
  CHECK(b.findings() == 1);
}

TEST_CASE("race detector: a pair of accesses of one thread is never a finding", "[sim][race]") {
  for (WarpModel m : {WarpModel::Its, WarpModel::Lockstep}) {
    INFO(model_name(m));
    Bench b(m, 33);
    for (uint32_t loc = 1; loc <= 6; ++loc) CHECK(b.shared(32, 12, loc % 2 ? kWrite : kRead, loc));
    CHECK(b.global(7, 0x1000, kWrite, 7));
    CHECK(b.global(7, 0x1000, kRead, 8));
    CHECK(b.global(7, 0x1000, kWrite, 9));
    CHECK(b.findings() == 0);
  }
}

TEST_CASE("race detector: __syncthreads orders the block's accesses", "[sim][race]") {
  for (WarpModel m : {WarpModel::Its, WarpModel::Lockstep}) {
    INFO(model_name(m));
    Bench b(m, 33);
    CHECK(b.shared(0, 8, kWrite, 1));
    CHECK(b.shared(32, 20, kWrite, 2));
    b.syncthreads();
    CHECK(b.shared(32, 8, kRead, 3));
    CHECK(b.shared(0, 20, kWrite, 4));
    CHECK(b.findings() == 0);
    // What follows the barrier is unordered again.
    CHECK_FALSE(b.shared(32, 20, kRead, 5));
    CHECK(b.findings() == 1);
  }
}

TEST_CASE("race detector: bar.arrive then bar.sync orders only the producer's earlier accesses",
          "[sim][race]") {
  Bench b(WarpModel::Its, 96);
  CHECK(b.shared(0, 0, kWrite, 1));   // producer's data
  b.det.barrier_arrive(b.ctas[0], 0, 1, true);   // bar.arrive 1 (producer)
  CHECK(b.shared(0, 4, kWrite, 2));   // after its arrival: not published
  b.det.barrier_arrive(b.ctas[0], 64, 1, false);  // bar.sync 1 (consumer)
  b.det.barrier_release(b.ctas[0], 1, {64}, 96);
  CHECK(b.shared(64, 0, kRead, 3));             // ordered by the named barrier
  CHECK(b.findings() == 0);
  CHECK_FALSE(b.shared(64, 4, kRead, 4));       // written after the arrival
  CHECK_FALSE(b.shared(40, 0, kRead, 5));       // a thread outside the barrier
  CHECK(b.findings() == 2);
}

TEST_CASE("race detector: lanes of one warp are ordered under lockstep, not under its", "[sim][race]") {
  {
    Bench b(WarpModel::Lockstep, 64);
    CHECK(b.shared(3, 0, kWrite, 1));
    CHECK(b.shared(17, 0, kRead, 2));
    CHECK(b.findings() == 0);
  }
  {
    Bench b(WarpModel::Its, 64);
    CHECK(b.shared(3, 0, kWrite, 1));
    CHECK_FALSE(b.shared(17, 0, kRead, 2));
    REQUIRE(b.findings() == 1);
    CHECK(b.det.findings()[0].warp_level);  // reported as a warning
    // __syncwarp over both lanes orders them.
    b.det.warp_sync(b.ctas[0], 0, (1u << 3) | (1u << 17));
    CHECK(b.shared(3, 4, kWrite, 3));
    b.det.warp_sync(b.ctas[0], 0, (1u << 3) | (1u << 17));
    CHECK(b.shared(17, 4, kRead, 4));
    CHECK(b.findings() == 1);
  }
}

TEST_CASE("race detector: atomics do not race with atomics, plain accesses do", "[sim][race]") {
  Bench b(WarpModel::Its, 64);
  CHECK(b.shared(0, 0, kAtomic, 1));
  CHECK(b.shared(40, 0, kAtomic, 2));
  CHECK(b.findings() == 0);
  CHECK_FALSE(b.shared(63, 0, kRead, 3));
  CHECK(b.findings() == 1);
}

TEST_CASE("race detector: a block's barrier does not order another block", "[sim][race]") {
  Bench b(WarpModel::Its, 7, 2);  // 7 threads per block, odd on purpose
  CHECK(b.global(0, 0x2000, kWrite, 1, 0));
  b.syncthreads(0);
  b.syncthreads(1);
  CHECK(b.global(6, 0x2000, kRead, 2, 0));  // same block, after its barrier
  CHECK(b.findings() == 0);
  CHECK_FALSE(b.global(0, 0x2000, kRead, 3, 1));  // the other block
  REQUIRE(b.findings() == 1);
  CHECK(b.det.findings()[0].cur_gid == 7);  // thread 0 of block 1
  CHECK_FALSE(b.det.findings()[0].shared);
}

TEST_CASE("race detector: release/acquire between blocks orders the data", "[sim][race]") {
  const uint64_t data = 0x3000, flag = 0x3100;
  for (bool acquire : {true, false}) {
    INFO((acquire ? "ld.acquire" : "ld.relaxed without a fence"));
    Bench b(WarpModel::Its, 32, 2);
    CHECK(b.global(0, data, kWrite, 1, 0));
    const ptx::Instr st = instr(ptx::Sem::Release, ptx::Scope::Gpu);
    CHECK(b.global(0, flag, kWrite | RaceDetector::kStrong, 2, 0));
    b.det.strong_write(b.ctas[0], 0, flag, st, false);
    const ptx::Instr ld = instr(acquire ? ptx::Sem::Acquire : ptx::Sem::Relaxed, ptx::Scope::Gpu);
    CHECK(b.global(0, flag, RaceDetector::kStrong, 3, 1));  // strong vs strong: synchronization
    b.det.strong_read(b.ctas[1], 0, flag, ld);
    CHECK(b.global(0, data, kRead, 4, 1) == acquire);
    CHECK(b.findings() == (acquire ? 0u : 1u));
    if (!acquire) CHECK(b.det.findings()[0].unacquired);  // it read a release it did not acquire
  }
}
