// A binary relation over the events of one execution (0..n-1), as a bit matrix: row a holds the
// events b with a -> b. The axioms of the PTX memory model (ptx_axioms.h) are written with these
// operations, one per operator of the Alloy model they transcribe: union (+), intersection (&),
// composition (.), inverse (~), transitive closure (^), reflexive-transitive closure (*),
// restriction of the domain or range to a set (<:, :>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace synclab::memory {

// A set of events, as a bit vector.
class EventSet {
 public:
  EventSet() = default;
  explicit EventSet(size_t n) : n_(n), w_((n + 63) / 64, 0) {}
  size_t size() const { return n_; }
  bool has(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  void add(size_t i) { w_[i >> 6] |= uint64_t(1) << (i & 63); }
  void remove(size_t i) { w_[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  bool empty() const {
    for (uint64_t x : w_)
      if (x) return false;
    return true;
  }
  const std::vector<uint64_t>& words() const { return w_; }
  std::vector<uint64_t>& words() { return w_; }

 private:
  size_t n_ = 0;
  std::vector<uint64_t> w_;
};

class Relation {
 public:
  Relation() = default;
  explicit Relation(size_t n) : n_(n), w_((n + 63) / 64), bits_(n * w_, 0) {}
  static Relation identity(size_t n) {
    Relation r(n);
    for (size_t i = 0; i < n; ++i) r.add(i, i);
    return r;
  }
  // Every pair (a, b) with a in `from` and b in `to`.
  static Relation product(const EventSet& from, const EventSet& to) {
    Relation r(from.size());
    for (size_t a = 0; a < r.n_; ++a)
      if (from.has(a))
        for (size_t k = 0; k < r.w_; ++k) r.row(a)[k] = to.words()[k];
    return r;
  }

  size_t size() const { return n_; }
  bool has(size_t a, size_t b) const { return (row(a)[b >> 6] >> (b & 63)) & 1; }
  void add(size_t a, size_t b) { row(a)[b >> 6] |= uint64_t(1) << (b & 63); }
  void remove(size_t a, size_t b) { row(a)[b >> 6] &= ~(uint64_t(1) << (b & 63)); }
  void clear() { std::fill(bits_.begin(), bits_.end(), 0); }
  bool empty() const {
    for (uint64_t x : bits_)
      if (x) return false;
    return true;
  }
  bool row_empty(size_t a) const {
    for (size_t k = 0; k < w_; ++k)
      if (row(a)[k]) return false;
    return true;
  }
  std::vector<std::pair<size_t, size_t>> pairs() const {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t a = 0; a < n_; ++a)
      for (size_t b = 0; b < n_; ++b)
        if (has(a, b)) out.emplace_back(a, b);
    return out;
  }

  Relation& operator|=(const Relation& o) {
    for (size_t i = 0; i < bits_.size(); ++i) bits_[i] |= o.bits_[i];
    return *this;
  }
  Relation& operator&=(const Relation& o) {
    for (size_t i = 0; i < bits_.size(); ++i) bits_[i] &= o.bits_[i];
    return *this;
  }
  // r - o
  Relation& operator-=(const Relation& o) {
    for (size_t i = 0; i < bits_.size(); ++i) bits_[i] &= ~o.bits_[i];
    return *this;
  }
  friend Relation operator|(Relation a, const Relation& b) { return a |= b; }
  friend Relation operator&(Relation a, const Relation& b) { return a &= b; }
  friend Relation operator-(Relation a, const Relation& b) { return a -= b; }
  bool operator==(const Relation& o) const { return n_ == o.n_ && bits_ == o.bits_; }
  // Every pair of this relation is one of o's.
  bool subset_of(const Relation& o) const {
    for (size_t i = 0; i < bits_.size(); ++i)
      if (bits_[i] & ~o.bits_[i]) return false;
    return true;
  }
  bool intersects(const Relation& o) const {
    for (size_t i = 0; i < bits_.size(); ++i)
      if (bits_[i] & o.bits_[i]) return true;
    return false;
  }

  // a.b: the pairs (x, z) with x a y and y b z.
  friend Relation compose(const Relation& a, const Relation& b) {
    Relation r(a.n_);
    for (size_t x = 0; x < a.n_; ++x) {
      uint64_t* out = r.row(x);
      const uint64_t* ax = a.row(x);
      for (size_t k = 0; k < a.w_; ++k)
        for (uint64_t m = ax[k]; m; m &= m - 1) {
          const size_t y = k * 64 + size_t(__builtin_ctzll(m));
          const uint64_t* by = b.row(y);
          for (size_t j = 0; j < a.w_; ++j) out[j] |= by[j];
        }
    }
    return r;
  }
  // ~r
  Relation inverse() const {
    Relation r(n_);
    for (size_t a = 0; a < n_; ++a)
      for (size_t b = 0; b < n_; ++b)
        if (has(a, b)) r.add(b, a);
    return r;
  }
  // ^r (Warshall's algorithm on bit rows)
  Relation closure() const {
    Relation r = *this;
    for (size_t k = 0; k < n_; ++k) {
      const uint64_t* rk = r.row(k);
      const uint64_t bit = uint64_t(1) << (k & 63);
      const size_t kw = k >> 6;
      for (size_t i = 0; i < n_; ++i) {
        uint64_t* ri = r.row(i);
        if (ri[kw] & bit)
          for (size_t j = 0; j < w_; ++j) ri[j] |= rk[j];
      }
    }
    return r;
  }
  // *r = iden + ^r
  Relation reflexive_closure() const {
    Relation r = closure();
    for (size_t i = 0; i < n_; ++i) r.add(i, i);
    return r;
  }
  // iden + r
  Relation optional() const {
    Relation r = *this;
    for (size_t i = 0; i < n_; ++i) r.add(i, i);
    return r;
  }
  // s <: r :> t (domain restricted to s, range to t)
  Relation restrict(const EventSet& s, const EventSet& t) const {
    Relation r(n_);
    for (size_t a = 0; a < n_; ++a)
      if (s.has(a))
        for (size_t k = 0; k < w_; ++k) r.row(a)[k] = row(a)[k] & t.words()[k];
    return r;
  }
  bool irreflexive() const {
    for (size_t i = 0; i < n_; ++i)
      if (has(i, i)) return false;
    return true;
  }
  // Acyclic (irreflexive[^r]), found by depth-first search; `cycle` (if given) gets one cycle.
  bool acyclic(std::vector<size_t>* cycle = nullptr) const;
  // The domain (events with a successor) and range.
  EventSet domain() const {
    EventSet s(n_);
    for (size_t a = 0; a < n_; ++a)
      if (!row_empty(a)) s.add(a);
    return s;
  }

 private:
  uint64_t* row(size_t a) { return bits_.data() + a * w_; }
  const uint64_t* row(size_t a) const { return bits_.data() + a * w_; }
  size_t n_ = 0, w_ = 0;
  std::vector<uint64_t> bits_;
};

}  // namespace synclab::memory
