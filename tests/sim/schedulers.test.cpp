// The scheduling policies (sim/exec/scheduler.h) on hand-made warps: only the fields a policy
// reads are set (Warp::runnable, Lane::pct_priority through on_lane_start). Expected picks come
// from the header's contract: rr continues after the warp it picked last, random picks any
// runnable warp, pct runs the runnable lane of highest priority and changes priorities at no
// more than d-1 points; all of them replay exactly from their seed.
#include <synclab/catch.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "sim/sched/policies.h"

using namespace synclab::sim;

namespace {

struct Warps {
  std::vector<Warp> w;
  std::vector<Warp*> p;
  explicit Warps(size_t n, uint32_t runnable = 0xFFFFFFFFu) : w(n) {
    for (size_t i = 0; i < n; ++i) {
      w[i].index = static_cast<uint32_t>(i);
      w[i].runnable = runnable;
      p.push_back(&w[i]);
    }
  }
  size_t size() const { return w.size(); }
  // Gives every lane of every warp its start priority (CTA dispatch).
  void start(Scheduler& s) {
    for (auto& x : w)
      for (int l = 0; l < 32; ++l) s.on_lane_start(x, l);
  }
  std::vector<int64_t> priorities() const {
    std::vector<int64_t> out;
    for (const auto& x : w)
      for (int l = 0; l < 32; ++l) out.push_back(x.lanes[l].pct_priority);
    return out;
  }
};

std::unique_ptr<Scheduler> make(SchedPolicy p, uint64_t seed, uint32_t depth = 3, uint64_t expected = 1000) {
  Config c;
  c.sched = p;
  c.seed = seed;
  c.pct_depth = depth;
  return make_scheduler(c, expected);
}

// Some warps runnable (with a random subset of lanes), some not.
void shuffle_runnable(Warps& ws, std::mt19937& rng, int percent_runnable) {
  std::uniform_int_distribution<int> pct(0, 99);
  for (auto& x : ws.w) {
    const bool on = pct(rng) < percent_runnable;
    const uint32_t lanes = static_cast<uint32_t>(rng());
    const uint32_t one = 1u << (rng() % 32);  // never an empty mask
    x.runnable = on ? lanes | one : 0;
  }
}

// The warp holding the highest-priority runnable lane (PCT's rule), or n.
size_t highest_runnable(const Warps& ws) {
  size_t best = ws.size();
  int64_t best_p = 0;
  for (size_t i = 0; i < ws.size(); ++i)
    for (int l = 0; l < 32; ++l)
      if (ws.w[i].runnable >> l & 1 && (best == ws.size() || ws.w[i].lanes[l].pct_priority > best_p)) {
        best = i;
        best_p = ws.w[i].lanes[l].pct_priority;
      }
  return best;
}

const SchedPolicy kAll[] = {SchedPolicy::RoundRobin, SchedPolicy::Random, SchedPolicy::Pct};

}  // namespace

TEST_CASE("scheduler: every scheduler picks a runnable warp, or none when none can run", "[sim][sched]") {
  for (SchedPolicy pol : kAll) {
    for (size_t n : {1u, 7u, 33u}) {
      INFO(sched_name(pol) << ", " << n << " warps");
      auto s = make(pol, 17);
      Warps ws(n);
      ws.start(*s);
      std::mt19937 rng(static_cast<uint32_t>(n));
      for (int step = 0; step < 2000; ++step) {
        shuffle_runnable(ws, rng, 30);
        const bool any = std::any_of(ws.w.begin(), ws.w.end(), [](const Warp& x) { return x.runnable != 0; });
        const size_t k = s->pick_warp(ws.p);
        if (!any) {
          REQUIRE(k == n);
        } else {
          REQUIRE(k < n);
          REQUIRE(ws.w[k].runnable != 0);
        }
      }
      for (auto& x : ws.w) x.runnable = 0;
      CHECK(s->pick_warp(ws.p) == n);
    }
  }
}

TEST_CASE("scheduler: round robin visits the warps in order and continues after the last pick", "[sim][sched]") {
  for (size_t n : {1u, 7u, 33u}) {
    INFO(n << " warps");
    RoundRobinScheduler rr;
    Warps ws(n);
    for (size_t k = 0; k < 3 * n; ++k) REQUIRE(rr.pick_warp(ws.p) == k % n);
  }
  // With changing runnable sets: the first runnable warp at or after the one after the last pick.
  for (size_t n : {1u, 7u, 33u}) {
    INFO(n << " warps, some blocked");
    RoundRobinScheduler rr;
    Warps ws(n);
    std::mt19937 rng(3);
    size_t next = 0;
    for (int step = 0; step < 3000; ++step) {
      shuffle_runnable(ws, rng, 40);
      size_t expect = n;
      for (size_t d = 0; d < n; ++d)
        if (ws.w[(next + d) % n].runnable) {
          expect = (next + d) % n;
          break;
        }
      const size_t k = rr.pick_warp(ws.p);
      REQUIRE(k == expect);
      if (k < n) next = (k + 1) % n;
    }
  }
}

TEST_CASE("scheduler: round robin skips blocked warps and comes back to them", "[sim][sched]") {
  RoundRobinScheduler rr;
  Warps ws(7);
  ws.w[1].runnable = ws.w[2].runnable = ws.w[5].runnable = 0;
  std::vector<size_t> got;
  for (int i = 0; i < 8; ++i) got.push_back(rr.pick_warp(ws.p));
  CHECK(got == std::vector<size_t>{0, 3, 4, 6, 0, 3, 4, 6});
  ws.w[5].runnable = 1u << 31;  // warp 5 wakes up: it is next after 4
  got.clear();
  for (int i = 0; i < 4; ++i) got.push_back(rr.pick_warp(ws.p));
  CHECK(got == std::vector<size_t>{0, 3, 4, 5});
}

TEST_CASE("scheduler: round robin runs the first group that has not yielded", "[sim][sched]") {
  RoundRobinScheduler rr;
  Warp w;
  const std::vector<uint32_t> masks = {0x1, 0x6, 0xF0};
  CHECK(rr.pick_group(w, masks, {false, false, false}) == 0);
  CHECK(rr.pick_group(w, masks, {true, false, false}) == 1);
  CHECK(rr.pick_group(w, masks, {true, true, false}) == 2);
  CHECK(rr.pick_group(w, masks, {false, true, true}) == 0);
  CHECK(rr.pick_group(w, masks, {true, true, true}) == 0);  // all yielded: the lowest PC anyway
}

TEST_CASE("scheduler: random and pct replay the same picks from the same seed", "[sim][sched]") {
  for (SchedPolicy pol : {SchedPolicy::Random, SchedPolicy::Pct}) {
    for (size_t n : {7u, 33u}) {
      INFO(sched_name(pol) << ", " << n << " warps");
      auto a = make(pol, 99), b = make(pol, 99), c = make(pol, 100);
      Warps wa(n), wb(n), wc(n);
      wa.start(*a);
      wb.start(*b);
      wc.start(*c);
      CHECK(wa.priorities() == wb.priorities());
      std::mt19937 rng(1);
      bool differs = false;
      for (uint64_t step = 1; step <= 5000; ++step) {
        shuffle_runnable(wa, rng, 50);
        for (size_t i = 0; i < n; ++i) wb.w[i].runnable = wc.w[i].runnable = wa.w[i].runnable;
        const size_t ka = a->pick_warp(wa.p), kb = b->pick_warp(wb.p), kc = c->pick_warp(wc.p);
        REQUIRE(ka == kb);
        differs |= ka != kc;
        // The lanes that ran, as the step loop reports them.
        if (ka < n) a->on_step(wa.w[ka], wa.w[ka].runnable, step);
        if (kb < n) b->on_step(wb.w[kb], wb.w[kb].runnable, step);
        if (kc < n) c->on_step(wc.w[kc], wc.w[kc].runnable, step);
        const std::vector<uint32_t> masks = {0x1, 0x2, 0x4, 0x8, 0x10};
        const std::vector<bool> none(masks.size(), false);
        if (ka < n) REQUIRE(a->pick_group(wa.w[ka], masks, none) == b->pick_group(wb.w[kb], masks, none));
        if (kc < n) c->pick_group(wc.w[kc], masks, none);  // c draws as often as a and b do
      }
      CHECK(wa.priorities() == wb.priorities());
      CHECK(differs);  // another seed is another schedule
    }
  }
}

TEST_CASE("scheduler: random picks every runnable warp about equally often", "[sim][sched]") {
  for (size_t n : {1u, 7u, 33u}) {
    INFO(n << " warps");
    auto s = make(SchedPolicy::Random, 5);
    Warps ws(n);
    // Every third warp is blocked (warp 0 always runs, so n = 1 still has one).
    for (size_t i = 0; i < n; ++i)
      if (i % 3 == 2) ws.w[i].runnable = 0;
    const size_t runnable = n - n / 3;
    const int per_warp = 400;
    std::vector<int> count(n, 0);
    for (size_t k = 0; k < runnable * per_warp; ++k) ++count[s->pick_warp(ws.p)];
    for (size_t i = 0; i < n; ++i) {
      INFO("warp " << i);
      if (i % 3 == 2) {
        CHECK(count[i] == 0);
      } else {
        // Loose bounds: a fair choice lands far inside them (the standard deviation is about 20).
        CHECK(count[i] > per_warp / 2);
        CHECK(count[i] < per_warp * 3 / 2);
      }
    }
  }
}

TEST_CASE("scheduler: random picks every group of a warp", "[sim][sched]") {
  auto s = make(SchedPolicy::Random, 8);
  Warp w;
  for (size_t groups : {1u, 7u, 32u}) {
    INFO(groups << " groups");
    std::vector<uint32_t> masks;
    for (size_t g = 0; g < groups; ++g) masks.push_back(1u << g);
    const std::vector<bool> yielded(groups, false);
    std::vector<int> count(groups, 0);
    for (size_t k = 0; k < groups * 100; ++k) {
      const size_t g = s->pick_group(w, masks, yielded);
      REQUIRE(g < groups);
      ++count[g];
    }
    for (size_t g = 0; g < groups; ++g) CHECK(count[g] > 0);
  }
}

TEST_CASE("scheduler: pct start priorities lie above every change-point priority and depend on the seed",
          "[sim][sched]") {
  for (uint32_t depth : {1u, 3u, 10u}) {
    auto a = make(SchedPolicy::Pct, 4, depth), b = make(SchedPolicy::Pct, 5, depth);
    CHECK(a->uses_lane_priorities());
    CHECK(a->observes_steps());
    Warps wa(7), wb(7);
    wa.start(*a);
    wb.start(*b);
    const auto pa = wa.priorities(), pb = wb.priorities();
    CHECK(*std::min_element(pa.begin(), pa.end()) > static_cast<int64_t>(depth) - 1);
    CHECK(pa != pb);
    // Random priorities: no two lanes tie (a tie would make the order depend on the lane index).
    auto sorted = pa;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  }
}

TEST_CASE("scheduler: pct runs the runnable lane of highest priority", "[sim][sched]") {
  for (size_t n : {1u, 7u, 33u}) {
    INFO(n << " warps");
    auto s = make(SchedPolicy::Pct, 31, 1);  // depth 1: priorities never change
    Warps ws(n);
    ws.start(*s);
    std::mt19937 rng(9);
    for (int step = 0; step < 2000; ++step) {
      shuffle_runnable(ws, rng, 50);
      REQUIRE(s->pick_warp(ws.p) == highest_runnable(ws));
    }
    // Inside a warp: the group holding the lane of highest priority, over random partitions
    // of the lanes into groups.
    for (int rep = 0; rep < 200; ++rep) {
      const Warp& w = ws.w[rep % n];
      std::vector<uint32_t> masks(1 + rng() % 8, 0);
      for (int l = 0; l < 32; ++l) masks[rng() % masks.size()] |= 1u << l;
      masks.erase(std::remove(masks.begin(), masks.end(), 0u), masks.end());
      const std::vector<bool> none(masks.size(), false);
      size_t expect = masks.size();
      int64_t best = 0;
      for (size_t g = 0; g < masks.size(); ++g)
        for (int l = 0; l < 32; ++l)
          if (masks[g] >> l & 1 && (expect == masks.size() || w.lanes[l].pct_priority > best)) {
            best = w.lanes[l].pct_priority;
            expect = g;
          }
      REQUIRE(s->pick_group(w, masks, none) == expect);
    }
  }
}

TEST_CASE("scheduler: pct with depth d changes priorities at most d-1 times, within the expected steps",
          "[sim][sched]") {
  const uint64_t expected = 200;
  for (uint32_t depth : {1u, 2u, 3u, 5u, 10u}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      INFO("depth " << depth << ", seed " << seed);
      auto s = make(SchedPolicy::Pct, seed, depth, expected);
      Warps ws(7);
      ws.start(*s);
      std::vector<int64_t> changed_to;  // the new priority at each change
      for (uint64_t step = 1; step <= 3 * expected; ++step) {
        const size_t k = s->pick_warp(ws.p);
        REQUIRE(k < ws.size());
        // Only some of the warp's lanes ran (an its group).
        const uint32_t ran = step % 2 ? 0x0000FFFFu : 0xFFFF0000u;
        const auto before = ws.priorities();
        s->on_step(ws.w[k], ran, step);
        const auto after = ws.priorities();
        if (before == after) continue;
        REQUIRE(step <= expected);  // the change points lie within the expected steps
        // Exactly the lanes that ran were demoted, all to the same priority, below every other lane.
        const int64_t low = ws.w[k].lanes[__builtin_ctz(ran)].pct_priority;
        for (size_t i = 0; i < before.size(); ++i) {
          const bool ran_here = i / 32 == k && (ran >> (i % 32) & 1);
          if (ran_here) {
            REQUIRE(after[i] == low);
          } else {
            REQUIRE(after[i] == before[i]);
            REQUIRE(after[i] > low);
          }
        }
        changed_to.push_back(low);
      }
      CHECK(changed_to.size() <= depth - 1);
      if (depth > 1) {
        // Every change point has passed: the priorities went down to 1, each change lower than the last.
        REQUIRE_FALSE(changed_to.empty());
        CHECK(changed_to.front() <= static_cast<int64_t>(depth) - 1);
        CHECK(changed_to.back() == 1);
        CHECK(std::is_sorted(changed_to.rbegin(), changed_to.rend()));
        CHECK(std::adjacent_find(changed_to.begin(), changed_to.end()) == changed_to.end());
      }
    }
  }
}

TEST_CASE("scheduler: pct with depth 2 demotes the warp that runs at the change point", "[sim][sched]") {
  // One change point: before it the same warp (highest priority) runs at every step; from it on,
  // another.
  auto s = make(SchedPolicy::Pct, 12, 2, 50);
  Warps ws(7);
  ws.start(*s);
  const size_t first = s->pick_warp(ws.p);
  REQUIRE(first == highest_runnable(ws));
  uint64_t switched_at = 0;
  for (uint64_t step = 1; step <= 100 && !switched_at; ++step) {
    const size_t k = s->pick_warp(ws.p);
    if (k != first) switched_at = step;
    else s->on_step(ws.w[k], 0xFFFFFFFFu, step);
  }
  REQUIRE(switched_at != 0);
  CHECK(switched_at <= 51);  // the change point is within the expected 50 steps (plus the step after it)
  CHECK(s->pick_warp(ws.p) == highest_runnable(ws));
  CHECK(ws.w[first].lanes[0].pct_priority == 1);
}

TEST_CASE("scheduler: pct runs spinning lanes last, the latest spinner lowest", "[sim][sched]") {
  auto s = make(SchedPolicy::Pct, 77, 4, 100);
  Warps ws(7);
  ws.start(*s);
  // Demote everything a change point can reach first, so spinners must go below that too.
  for (uint64_t step = 1; step <= 100; ++step) s->on_step(ws.w[6], 0xFFFFFFFFu, step);
  const size_t top = s->pick_warp(ws.p);
  REQUIRE(top != 6);
  s->on_spin(ws.w[top], 0xFFFFFFFFu);
  const size_t second = s->pick_warp(ws.p);
  CHECK(second != top);
  CHECK(second != 6);
  s->on_spin(ws.w[second], 0x1u);  // one lane of it
  for (int l = 0; l < 32; ++l) {
    CHECK(ws.w[top].lanes[l].pct_priority < ws.w[6].lanes[l].pct_priority);  // below the demoted warp
    CHECK(ws.w[second].lanes[0].pct_priority < ws.w[top].lanes[l].pct_priority);
  }
  // With only spinners runnable, the earlier spinner goes first.
  for (auto& x : ws.w) x.runnable = 0;
  ws.w[top].runnable = 0xFFFFFFFFu;
  ws.w[second].runnable = 0x1u;
  CHECK(s->pick_warp(ws.p) == top);
}
