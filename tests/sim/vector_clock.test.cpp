// The race detector's vector clocks (VClock in sim/check/race_detector.h), on their own.
//
// Expected values come from a map-based reference clock written here from the header's
// definitions: a block entry (cta, phase) covers every access its threads made before the block's
// phase-th barrier, a thread entry (gid, phase, clock) covers that thread's accesses with clock <=
// clock. A missing entry knows nothing (0). A thread's barrier phase never decreases as its clock
// grows, which the generated clocks respect (phase_of below).
#include <synclab/catch.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "sim/check/race_detector.h"

using namespace synclab::sim;

namespace {

// A thread's barrier phase at a given clock: any non-decreasing function will do.
uint32_t phase_of(uint32_t clock) { return clock / 3; }

struct RefClock {
  std::map<uint32_t, uint32_t> cta;                          // cta -> phase
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> thr;     // gid -> (phase, clock)

  uint32_t cta_phase(uint32_t c) const {
    auto it = cta.find(c);
    return it == cta.end() ? 0 : it->second;
  }
  uint32_t thr_clock(uint32_t g) const {
    auto it = thr.find(g);
    return it == thr.end() ? 0 : it->second.second;
  }
  // Whether an access of thread gid at `clock` (made in phase phase_of(clock)) is covered, the
  // way the detector asks (RaceDetector::known).
  bool knows(uint32_t gid, uint32_t clock, uint32_t tpc) const {
    return cta_phase(gid / tpc) > phase_of(clock) || thr_clock(gid) >= clock;
  }
};

RefClock to_ref(const VClock& v) {
  RefClock r;
  for (const auto& e : v.ctas) r.cta[e.cta] = e.phase;
  for (const auto& e : v.thr) r.thr[e.gid] = {e.phase, e.clock};
  return r;
}

VClock from_ref(const RefClock& r) {
  VClock v;
  for (const auto& [c, p] : r.cta) v.ctas.push_back({c, p});
  for (const auto& [g, pc] : r.thr) v.thr.push_back({g, pc.first, pc.second});
  return v;
}

// Per entry maximum (thread entries compare by clock; with phase_of their phases follow).
RefClock ref_join(const RefClock& a, const RefClock& b) {
  RefClock r = a;
  for (const auto& [c, p] : b.cta) r.cta[c] = std::max(r.cta_phase(c), p);
  for (const auto& [g, pc] : b.thr)
    if (pc.second > r.thr_clock(g)) r.thr[g] = pc;
  return r;
}

// relate()'s bits, entry by entry: 1 when a is ahead somewhere, 2 when b is.
int ref_relate(const RefClock& a, const RefClock& b) {
  int r = 0;
  auto side = [&r](uint32_t x, uint32_t y) {
    if (x > y) r |= 1;
    if (y > x) r |= 2;
  };
  for (const auto& [c, p] : a.cta) side(p, b.cta_phase(c));
  for (const auto& [c, p] : b.cta) side(a.cta_phase(c), p);
  for (const auto& [g, pc] : a.thr) side(pc.second, b.thr_clock(g));
  for (const auto& [g, pc] : b.thr) side(a.thr_clock(g), pc.second);
  return r;
}

bool same(const VClock& a, const VClock& b) {
  if (a.ctas.size() != b.ctas.size() || a.thr.size() != b.thr.size()) return false;
  for (size_t i = 0; i < a.ctas.size(); ++i)
    if (a.ctas[i].cta != b.ctas[i].cta || a.ctas[i].phase != b.ctas[i].phase) return false;
  for (size_t i = 0; i < a.thr.size(); ++i)
    if (a.thr[i].gid != b.thr[i].gid || a.thr[i].phase != b.thr[i].phase || a.thr[i].clock != b.thr[i].clock)
      return false;
  return true;
}

bool sorted_unique(const VClock& v) {
  for (size_t i = 1; i < v.ctas.size(); ++i)
    if (!(v.ctas[i - 1].cta < v.ctas[i].cta)) return false;
  for (size_t i = 1; i < v.thr.size(); ++i)
    if (!(v.thr[i - 1].gid < v.thr[i].gid)) return false;
  return true;
}

// A random clock with about n block and n thread entries drawn from small id ranges (so that two
// clocks share some ids and not others). Phases and clocks are >= 1: every entry knows something.
RefClock random_ref(std::mt19937& rng, size_t n, uint32_t ids) {
  RefClock r;
  std::uniform_int_distribution<uint32_t> id(0, ids - 1), val(1, 12);
  for (size_t i = 0; i < n; ++i) {
    r.cta[id(rng)] = val(rng);
    const uint32_t clock = val(rng);
    r.thr[id(rng) * 5 + 1] = {phase_of(clock), clock};  // gids spread over several blocks
  }
  return r;
}

}  // namespace

TEST_CASE("vector clock: an empty clock knows nothing", "[sim][vclock]") {
  const VClock v;
  for (uint32_t x : {0u, 1u, 7u, 33u, 0xffffffffu}) {
    CHECK(v.cta_phase(x) == 0);
    CHECK(v.thr_clock(x) == 0);
  }
}

TEST_CASE("vector clock: lookups find entries and give 0 between and past them", "[sim][vclock]") {
  VClock v;
  v.ctas = {{1, 3}, {4, 2}, {9, 7}};
  v.thr = {{0, 0, 5}, {2, 1, 3}, {33, 2, 8}};
  CHECK(v.cta_phase(1) == 3);
  CHECK(v.cta_phase(4) == 2);
  CHECK(v.cta_phase(9) == 7);
  CHECK(v.cta_phase(0) == 0);   // before the first entry
  CHECK(v.cta_phase(5) == 0);   // between entries
  CHECK(v.cta_phase(10) == 0);  // past the last
  CHECK(v.thr_clock(0) == 5);
  CHECK(v.thr_clock(2) == 3);
  CHECK(v.thr_clock(33) == 8);
  CHECK(v.thr_clock(1) == 0);
  CHECK(v.thr_clock(32) == 0);
  CHECK(v.thr_clock(34) == 0);
  // Block and thread ids are separate name spaces.
  CHECK(v.thr_clock(4) == 0);
  CHECK(v.cta_phase(33) == 0);
}

TEST_CASE("vector clock: add_cta and add_thr keep the entries sorted and keep the larger knowledge", "[sim][vclock]") {
  std::mt19937 rng(7);
  for (size_t n : {1u, 7u, 33u, 200u}) {
    VClock v;
    RefClock ref;
    std::uniform_int_distribution<uint32_t> id(0, static_cast<uint32_t>(n) * 2), val(0, 20);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t c = id(rng), p = val(rng);
      v.add_cta(c, p);
      ref.cta[c] = std::max(ref.cta.count(c) ? ref.cta[c] : 0u, p);
      const uint32_t g = id(rng), clock = val(rng) + 1;
      v.add_thr(g, phase_of(clock), clock);
      if (clock > ref.thr_clock(g)) ref.thr[g] = {phase_of(clock), clock};
      REQUIRE(sorted_unique(v));
    }
    INFO("n = " << n);
    CHECK(same(v, from_ref(ref)));
  }
}

TEST_CASE("vector clock: add_cta raises a block's phase but never lowers it", "[sim][vclock]") {
  VClock v;
  v.add_cta(3, 2);
  v.add_cta(3, 1);
  CHECK(v.cta_phase(3) == 2);
  v.add_cta(3, 5);
  CHECK(v.cta_phase(3) == 5);
  REQUIRE(v.ctas.size() == 1);
}

TEST_CASE("vector clock: add_thr replaces a thread's entry, phase included, only with a later clock", "[sim][vclock]") {
  VClock v;
  v.add_thr(40, 1, 6);
  v.add_thr(40, 0, 4);  // older: ignored
  REQUIRE(v.thr.size() == 1);
  CHECK(v.thr[0].clock == 6);
  CHECK(v.thr[0].phase == 1);
  v.add_thr(40, 3, 9);  // newer: the whole entry is the new one
  REQUIRE(v.thr.size() == 1);
  CHECK(v.thr[0].clock == 9);
  CHECK(v.thr[0].phase == 3);
}

TEST_CASE("vector clock: join keeps the maximum of each entry and merges both sorted lists", "[sim][vclock]") {
  VClock a, b;
  a.ctas = {{0, 1}, {2, 4}};
  b.ctas = {{1, 2}, {2, 3}, {5, 1}};
  a.thr = {{3, 0, 2}, {7, 1, 5}, {40, 2, 7}};
  b.thr = {{7, 2, 6}, {9, 0, 1}, {40, 1, 4}};
  VClock j = a;
  j.join(b);
  VClock expect;
  expect.ctas = {{0, 1}, {1, 2}, {2, 4}, {5, 1}};
  expect.thr = {{3, 0, 2}, {7, 2, 6}, {9, 0, 1}, {40, 2, 7}};
  CHECK(same(j, expect));
}

TEST_CASE("vector clock: join agrees with the reference and is commutative and idempotent", "[sim][vclock]") {
  std::mt19937 rng(11);
  for (size_t na : {0u, 1u, 7u, 33u}) {
    for (size_t nb : {0u, 1u, 7u, 33u}) {
      for (int rep = 0; rep < 20; ++rep) {
        const RefClock ra = random_ref(rng, na, 16), rb = random_ref(rng, nb, 16);
        const VClock a = from_ref(ra), b = from_ref(rb);
        VClock ab = a, ba = b;
        ab.join(b);
        ba.join(a);
        INFO("sizes " << na << ", " << nb << ", repetition " << rep);
        REQUIRE(sorted_unique(ab));
        CHECK(same(ab, from_ref(ref_join(ra, rb))));
        CHECK(same(ab, ba));
        VClock aa = a;
        aa.join(a);
        CHECK(same(aa, a));
        VClock abb = ab;
        abb.join(b);  // joining what is already known changes nothing
        CHECK(same(abb, ab));
      }
    }
  }
}

TEST_CASE("vector clock: relate reports which side knows more on hand-built clocks", "[sim][vclock]") {
  VClock empty, a, b;
  CHECK(VClock::relate(empty, empty) == 0);

  a.thr = {{1, 0, 3}, {5, 0, 2}};
  b = a;
  CHECK(VClock::relate(a, b) == 0);

  // Same threads (the branch-free path), one clock ahead on one side.
  b.thr[1].clock = 4;
  CHECK(VClock::relate(a, b) == 2);
  CHECK(VClock::relate(b, a) == 1);
  // Ahead on both sides.
  b.thr[0].clock = 1;
  CHECK(VClock::relate(a, b) == 3);

  // Different threads, same count: neither contains the other.
  VClock c, d;
  c.thr = {{1, 0, 3}};
  d.thr = {{2, 0, 3}};
  CHECK(VClock::relate(c, d) == 3);
  // Different counts: a superset knows more.
  d.thr = {{1, 0, 3}, {2, 0, 3}};
  CHECK(VClock::relate(c, d) == 2);
  CHECK(VClock::relate(d, c) == 1);
  CHECK(VClock::relate(empty, d) == 2);
  CHECK(VClock::relate(d, empty) == 1);

  // Block entries alone.
  VClock e, f;
  e.ctas = {{0, 2}};
  f.ctas = {{0, 1}};
  CHECK(VClock::relate(e, f) == 1);
  CHECK(VClock::relate(f, e) == 2);
  f.ctas = {{1, 1}};
  CHECK(VClock::relate(e, f) == 3);

  // Blocks say one thing, threads the other.
  e.ctas = {{0, 2}};
  e.thr = {{4, 0, 1}};
  f.ctas = {{0, 1}};
  f.thr = {{4, 0, 2}};
  CHECK(VClock::relate(e, f) == 3);
  // Blocks equal, threads decide.
  f.ctas = {{0, 2}};
  CHECK(VClock::relate(e, f) == 2);
}

TEST_CASE("vector clock: relate answers 3 for equal clocks with different phases, which only join settles",
          "[sim][vclock]") {
  VClock a, b;
  a.thr = {{3, 1, 5}};
  b.thr = {{3, 2, 5}};
  CHECK(VClock::relate(a, b) == 3);  // the branch-free path (same threads)
  a.thr.push_back({9, 0, 1});        // different counts: the merging path
  CHECK(VClock::relate(a, b) == 3);
}

TEST_CASE("vector clock: relate agrees with the entry-by-entry reference and with join", "[sim][vclock]") {
  std::mt19937 rng(23);
  int seen[4] = {0, 0, 0, 0};
  for (size_t na : {0u, 1u, 7u, 33u}) {
    for (size_t nb : {0u, 1u, 7u, 33u}) {
      for (int rep = 0; rep < 30; ++rep) {
        // Few ids: overlaps, equal entries and identical clocks all occur.
        const RefClock ra = random_ref(rng, na, 4), rb = random_ref(rng, nb, 4);
        VClock a = from_ref(ra), b = from_ref(rb);
        if (rep % 5 == 0) b = a;  // equal clocks too
        const int r = VClock::relate(a, b);
        INFO("sizes " << na << ", " << nb << ", repetition " << rep);
        CHECK(r == ref_relate(to_ref(a), to_ref(b)));
        CHECK(VClock::relate(b, a) == ((r & 1) << 1 | (r & 2) >> 1));  // the mirror image
        // Bit 2 clear means b adds nothing: the join is a itself (what the detector relies on).
        VClock ab = a;
        ab.join(b);
        CHECK(same(ab, a) == !(r & 2));
        CHECK((VClock::relate(ab, a) & 2) == 0);
        CHECK((VClock::relate(ab, b) & 2) == 0);
        ++seen[r];
      }
    }
  }
  // The random clocks exercised every answer.
  for (int r = 0; r < 4; ++r) CHECK(seen[r] > 0);
}

TEST_CASE("vector clock: prune drops exactly the thread entries a block phase covers", "[sim][vclock]") {
  VClock v;
  const uint32_t tpc = 32;
  v.ctas = {{0, 2}, {2, 1}};
  v.thr = {{5, 1, 9},    // block 0, phase 1 < 2: covered, dropped
           {6, 2, 3},    // block 0, phase 2: made after the second barrier, kept
           {40, 0, 4},   // block 1: no block entry, kept
           {70, 0, 2},   // block 2, phase 0 < 1: dropped
           {71, 1, 6}};  // block 2, phase 1: kept
  v.prune(tpc);
  REQUIRE(v.thr.size() == 3);
  CHECK(v.thr[0].gid == 6);
  CHECK(v.thr[1].gid == 40);
  CHECK(v.thr[2].gid == 71);
  CHECK(v.ctas.size() == 2);  // block entries stay

  VClock only_thr;
  only_thr.thr = {{5, 0, 1}};
  only_thr.prune(tpc);  // nothing covers it
  CHECK(only_thr.thr.size() == 1);
}

TEST_CASE("vector clock: prune keeps what the clock knows and removes what the reference says is covered",
          "[sim][vclock]") {
  std::mt19937 rng(5);
  for (uint32_t tpc : {1u, 7u, 32u, 33u}) {
    for (size_t n : {1u, 7u, 33u}) {
      for (int rep = 0; rep < 20; ++rep) {
        RefClock ref;
        std::uniform_int_distribution<uint32_t> gid(0, 4 * tpc - 1), blk(0, 3), val(1, 15), ph(0, 5);
        for (size_t i = 0; i < n; ++i) {
          const uint32_t clock = val(rng);
          ref.thr[gid(rng)] = {phase_of(clock), clock};
          if (i % 3 == 0) ref.cta[blk(rng)] = ph(rng);
        }
        VClock v = from_ref(ref);
        v.prune(tpc);
        REQUIRE(sorted_unique(v));
        RefClock expect = ref;
        for (auto it = expect.thr.begin(); it != expect.thr.end();)
          it = it->second.first < ref.cta_phase(it->first / tpc) ? expect.thr.erase(it) : std::next(it);
        INFO("tpc " << tpc << ", n " << n << ", repetition " << rep);
        CHECK(same(v, from_ref(expect)));
        // Every access of every thread is known after pruning exactly when it was before.
        const RefClock after = to_ref(v);
        for (uint32_t g = 0; g < 4 * tpc; ++g)
          for (uint32_t clock = 1; clock <= 16; ++clock)
            REQUIRE(after.knows(g, clock, tpc) == ref.knows(g, clock, tpc));
      }
    }
  }
}
