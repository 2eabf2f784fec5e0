// Views and releases: how the relaxed model carries causality order between threads.
//
// Causality order (PTX ISA, "Causality order") is built from base causality order -- program
// order joined by synchronization: release/acquire patterns, Fence-SC order, barriers -- plus one
// step of observation (a morally strong read of a write puts the write before what follows the
// read). What a thread must not read past on a location is the newest write of that location
// in its causal past. A View keeps exactly that, per location, as a coherence key (every write of
// the location whose key is at most the view's is in the causal past); locations without an
// entry share one key, `g` (coarser: it may put more in the past than there is, which only
// forbids more).
//
// A Release is what a release makes known (the releasing thread's view when it released) and who
// released it at which scope: an acquire takes it only when the two are morally strong (each
// one's scope includes the other's thread).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/memory/oracle/execution.h"

namespace synclab::sim::relaxed {

using memory::Scope;

// An access (or a fence, a release) as the model's strength rules see it: its thread and the
// scope it was made at (Scope::Thread: a weak access).
struct Who {
  uint64_t tid = 0;
  uint64_t cta = 0;
  bool host = false;
  Scope scope = Scope::Thread;
};

// Whether a's scope includes b's thread (the fixed tree: thread < block < GPU < system; the host
// is in the system only).
inline bool includes(const Who& a, const Who& b) {
  if (a.tid == b.tid && a.host == b.host) return true;
  switch (a.scope) {
    case Scope::Thread: return false;
    case Scope::Cta: return !a.host && !b.host && a.cta == b.cta;
    case Scope::Gpu: return !a.host && !b.host;
    case Scope::Sys: return true;
  }
  return false;
}
// Morally strong (PTX ISA, "Morally strong operations"): each one's scope includes the other's thread.
inline bool strong(const Who& a, const Who& b) { return includes(a, b) && includes(b, a); }
// Whether two writes must be ordered by coherence order: some scope instance covers both (its threads
// include both writers, and each write's scope is that instance or wider: ptx.als's co_per_scope).
// Writes that no instance covers (weak writes of two threads, .cta writes of two blocks, ...) may
// stay unordered, unless causality order orders them.
inline bool covered(const Who& a, const Who& b) {
  if (a.tid == b.tid && a.host == b.host) return true;
  auto at_least = [](Scope s, Scope min) { return s != Scope::Thread && s >= min; };
  if (!a.host && !b.host && a.cta == b.cta && at_least(a.scope, Scope::Cta) && at_least(b.scope, Scope::Cta))
    return true;
  if (!a.host && !b.host && at_least(a.scope, Scope::Gpu) && at_least(b.scope, Scope::Gpu)) return true;
  return a.scope == Scope::Sys && b.scope == Scope::Sys;
}

struct View {
  static constexpr int kMax = 12;
  uint64_t g = 0;
  uint32_t n = 0;
  uint64_t loc[kMax];
  uint64_t key[kMax];

  uint64_t get(uint64_t l) const {
    for (uint32_t i = 0; i < n; ++i)
      if (loc[i] == l) return std::max(key[i], g);
    return g;
  }
  void raise(uint64_t l, uint64_t k) {
    if (k <= g) return;
    for (uint32_t i = 0; i < n; ++i)
      if (loc[i] == l) {
        key[i] = std::max(key[i], k);
        return;
      }
    if (n == kMax) {
      // Full: the entry with the smallest key goes into g (every location's threshold rises to
      // it: more in the causal past than there is, never less).
      uint32_t lo = 0;
      for (uint32_t i = 1; i < n; ++i)
        if (key[i] < key[lo]) lo = i;
      g = std::max(g, key[lo]);
      loc[lo] = loc[n - 1];
      key[lo] = key[n - 1];
      --n;
      drop_covered();
      if (k <= g) return;
    }
    loc[n] = l;
    key[n] = k;
    ++n;
  }
  void join(const View& o) {
    if (o.g > g) {
      g = o.g;
      drop_covered();
    }
    for (uint32_t i = 0; i < o.n; ++i) raise(o.loc[i], o.key[i]);
  }
  bool empty() const { return g == 0 && n == 0; }
  // Whether every location's threshold here is at least o's (join(o) would change nothing).
  bool covers(const View& o) const {
    if (o.g > g) return false;
    for (uint32_t i = 0; i < o.n; ++i)
      if (get(o.loc[i]) < o.key[i]) return false;
    return true;
  }
  // The same entries in the same order (a cheap test before a join that would add nothing).
  bool same(const View& o) const {
    if (g != o.g || n != o.n) return false;
    for (uint32_t i = 0; i < n; ++i)
      if (loc[i] != o.loc[i] || key[i] != o.key[i]) return false;
    return true;
  }

 private:
  // Entries at or below g say nothing more than g.
  void drop_covered() {
    for (uint32_t i = 0; i < n;)
      if (key[i] <= g) {
        loc[i] = loc[n - 1];
        key[i] = key[n - 1];
        --n;
      } else {
        ++i;
      }
  }
};

struct Release {
  View view;  // what the releaser knew
  Who head;   // the release (its thread and scope)
  // joined with a release of another thread (a read-modify-write chain's messages carry their
  // releases on, joined per block and scope): `head` then names only one of the releasers
  bool joined_others = false;
};
using ReleaseRef = std::shared_ptr<const Release>;

// The releases a message carries: nearly always one or two (the barrier or fence before the write,
// the write's own release), so they live in the message itself; more move to the heap together
// (the list stays contiguous either way).
class RelList {
 public:
  const ReleaseRef* begin() const { return more_.empty() ? in_ : more_.data(); }
  const ReleaseRef* end() const { return begin() + size(); }
  ReleaseRef* begin() { return more_.empty() ? in_ : more_.data(); }
  ReleaseRef* end() { return begin() + size(); }
  size_t size() const { return more_.empty() ? n_ : more_.size(); }
  bool empty() const { return size() == 0; }
  const ReleaseRef& front() const { return *begin(); }
  void push_back(const ReleaseRef& r) {
    if (more_.empty()) {
      if (n_ < kInline) {
        in_[n_++] = r;
        return;
      }
      more_.reserve(2 * kInline);
      for (ReleaseRef& x : in_) more_.push_back(std::move(x));
      n_ = 0;
    }
    more_.push_back(r);
  }

 private:
  static constexpr uint32_t kInline = 2;
  ReleaseRef in_[kInline];  // (while more_ is empty)
  uint32_t n_ = 0;
  std::vector<ReleaseRef> more_;  // (all of them, once there were more than kInline)
};

}  // namespace synclab::sim::relaxed
