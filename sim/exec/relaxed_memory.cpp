#include "sim/exec/relaxed_memory.h"

#include <fmt/format.h>

#include <algorithm>

namespace synclab::sim {

using ptx::Scope;
using ptx::Sem;

namespace {

bool is_acquire(Sem s) { return s == Sem::Acquire || s == Sem::AcqRel || s == Sem::Sc; }
bool is_release(Sem s) { return s == Sem::Release || s == Sem::AcqRel || s == Sem::Sc; }
// An order without a scope is at gpu scope (PTX: .gpu is the default of ld/st/atom/fence), except
// volatile, which is relaxed at system scope.
Scope scope_of(Sem sem, Scope s) {
  if (sem == Sem::Volatile) return Scope::Sys;
  return s == Scope::None ? Scope::Gpu : s;
}

}  // namespace

RelaxedMemory::RelaxedMemory(uint64_t seed, uint32_t threads_per_block)
    : rng_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull), threads_per_block_(threads_per_block) {}

uint64_t RelaxedMemory::random(uint64_t n) {
  rng_ += 0x9E3779B97F4A7C15ull;  // splitmix64
  uint64_t z = rng_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return n ? z % n : 0;
}

void RelaxedMemory::start_block(uint64_t cta) { block(cta); }
void RelaxedMemory::end_block(uint64_t cta) {
  auto it = blocks_.find(cta);
  if (it == blocks_.end()) return;
  it->second.clear_shared(on_visible_);
  BlockCache& c = block_cache_[cta & 63];
  if (c.cta == cta) c = BlockCache{};
  // Its storage serves the next block (a launch starts thousands: no allocation for each).
  spare_blocks_.push_back(std::move(it->second));
  blocks_.erase(it);
}

RelaxedMemory::Block* RelaxedMemory::lookup_block(uint64_t cta, bool create) {
  Block* b = nullptr;
  if (create) {
    auto [it, fresh] = blocks_.try_emplace(cta);
    b = &it->second;
    if (fresh) {
      if (!spare_blocks_.empty()) {
        *b = std::move(spare_blocks_.back());  // (its shared memory has no history: cleared at its end)
        spare_blocks_.pop_back();
      }
      b->views.assign(threads_per_block_, View{});
    }
  } else {
    auto it = blocks_.find(cta);
    if (it == blocks_.end()) return nullptr;
    b = &it->second;
  }
  block_cache_[cta & 63] = BlockCache{cta, b};
  return b;
}

// Shared-memory keys (KernelRun::mm_key) have bit 63 set, the block in bits 32-62 and the byte
// offset below.
RelaxedMemory::History* RelaxedMemory::find_history(uint64_t key) {
  if (!(key >> 63)) return hist_.find(key);
  Block* bp = existing_block(key >> 32 & 0x7fffffffu);  // a finished block's memory is gone
  if (!bp) return nullptr;
  Block& b = *bp;
  const uint32_t off = static_cast<uint32_t>(key);
  if (off >= b.shared_slot.size() || b.shared_slot[off] < 0) return nullptr;
  return &b.shared_hist[static_cast<size_t>(b.shared_slot[off])];
}

RelaxedMemory::History& RelaxedMemory::new_history(uint64_t key) {
  if (!(key >> 63)) return hist_.insert(key);
  Block& b = block(key >> 32 & 0x7fffffffu);
  const uint32_t off = static_cast<uint32_t>(key);
  if (off >= b.shared_slot.size()) b.shared_slot.resize(std::max<size_t>(off + 1, b.shared_slot.size() * 2), -1);
  if (b.shared_used == b.shared_hist.size()) b.shared_hist.emplace_back();
  b.shared_slot[off] = static_cast<int32_t>(b.shared_used);
  b.shared_keys.push_back(key);
  History& h = b.shared_hist[b.shared_used++];
  h.reset();
  return h;
}

void RelaxedMemory::drop_history(uint64_t key) {
  if (!(key >> 63)) return hist_.erase(key);
  Block* b = existing_block(key >> 32 & 0x7fffffffu);
  const uint32_t off = static_cast<uint32_t>(key);
  if (b && off < b->shared_slot.size()) b->shared_slot[off] = -1;  // its entry stays unused until the next clear
}

RelaxedMemory::History* RelaxedMemory::history(uint64_t key, uint32_t size, uint64_t latest, uint64_t now,
                                               bool create) {
  if (!sc_keys_.empty() && sc_keys_.count(key)) return nullptr;
  forget_old(now);
  History* found = find_history(key);
  if (!found) {
    // A location nobody wrote lately has one value, memory's: a load reads it; a store starts
    // its history with it.
    if (!create) return nullptr;
    History& h = new_history(key);
    h.bytes() = size;
    fill(h.msgs.open_back(), latest, 0, Release{});
    return &h;
  }
  History& h = *found;
  if (h.bytes() != size) {
    // Two sizes at one address: outside what the model covers. The location is treated as
    // sequentially consistent from now on, and the run says so.
    if (not_covered_.empty())
      not_covered_ = fmt::format(
          "the address 0x{:x} was accessed as {} bytes and as {} bytes in this launch: the relaxed memory model "
          "does not cover mixed-size accesses, so that location behaved as sequentially consistent (SYNCLAB_MEMORY=sc)",
          key, h.bytes(), size);
    if (on_visible_ && h.msgs.size() > 1) on_visible_(key);
    drop_history(key);
    sc_keys_.insert(key);
    return nullptr;
  }
  if (h.msgs.back().value != latest) {
    // Memory changed outside the model (the host, through mapped memory): a newer message.
    h.msgs.back().superseded_at = now;
    fill(h.msgs.open_back(), latest, next_stamp_++, Release{});
  }
  return &h;
}

void RelaxedMemory::forget_older(uint64_t now) {
  // The locations written longest ago come first; one whose older messages are all out of
  // reach keeps only memory's value.
  while (!written_.empty() && written_.front().first + kWindow < now) {
    const uint64_t key = written_.front().second;
    written_.pop_front();
    const History* h = find_history(key);
    if (!h) continue;
    const Messages& msgs = h->msgs;
    if (msgs.size() < 2 || msgs[msgs.size() - 2].superseded_at + kWindow < now) {
      if (on_visible_ && msgs.size() > 1) on_visible_(key);
      drop_history(key);
    }
  }
}

size_t RelaxedMemory::lower_bound(const View& v, const History& h, uint64_t key, uint64_t now) const {
  size_t lo = 0;
  uint64_t floor = 0;
  bool has_floor = false;
  for (const Floor& f : v.floors)
    if (f.key == key) {
      floor = f.stamp;
      has_floor = true;
    }
  for (size_t i = 0; i < h.msgs.size(); ++i) {
    const Message& m = h.msgs[i];
    // Seen: stamped before the thread's view, or the message it last read or wrote here; and
    // long overwritten messages are out of reach.
    if (m.stamp <= v.g || (has_floor && m.stamp == floor) || m.superseded_at + kWindow < now) lo = i;
  }
  return lo;
}

void RelaxedMemory::set_floor(View& v, uint64_t key, uint64_t stamp) {
  v.known = std::max(v.known, stamp);
  for (Floor& f : v.floors)
    if (f.key == key) {
      f.stamp = stamp;
      return;
    }
  Floor& slot = v.floors[v.next_floor++ % View::kFloors];
  // The floor that gives way becomes part of g: the thread then may miss nothing older than it
  // anywhere (more than it must see, never less).
  if (slot.key != ~0ull) v.g = std::max(v.g, slot.stamp);
  slot = Floor{key, stamp};
}

bool RelaxedMemory::syncs(const Release& r, const Thread& t, Scope acquire_scope) const {
  if (!r.stamp) return false;
  // Both scopes must include the other thread: a .cta scope on either side, the same block.
  if (r.scope == Scope::Cta || acquire_scope == Scope::Cta) return r.cta == t.cta;
  return true;
}

void RelaxedMemory::observe(View& v, const Thread& t, const Message& m, Order o) {
  if (!m.rel.stamp) return;
  if (is_acquire(o.sem)) {
    if (syncs(m.rel, t, scope_of(o.sem, o.scope))) {
      v.g = std::max(v.g, m.rel.stamp);
      v.known = std::max(v.known, v.g);
    }
    return;
  }
  // A read that a later acquire fence may turn into an acquire.
  if (m.rel.cta == t.cta)
    v.pend_same = std::max(v.pend_same, m.rel.stamp);
  else if (m.rel.scope != Scope::Cta)
    v.pend_other = std::max(v.pend_other, m.rel.stamp);
}

RelaxedMemory::Release RelaxedMemory::release_of(const View& v, const Thread& t, Order o, uint64_t own) const {
  if (is_release(o.sem)) return Release{std::max({v.known, v.g, own}), uint32_t(t.cta), scope_of(o.sem, o.scope)};
  return v.fence_rel;
}

uint64_t RelaxedMemory::load_recent(const Thread& t, uint64_t key, uint32_t size, uint64_t latest, Order o,
                                    uint64_t now) {
  History* h = history(key, size, latest, now, false);
  if (!h) return latest;
  View& v = view(t);
  const size_t last = h->msgs.size() - 1;
  const size_t lo = lower_bound(v, *h, key, now);
  size_t pick = last;
  const int64_t chosen = chooser_ && lo < last
                             ? chooser_->choose_read(static_cast<uint32_t>(t.id % threads_per_block_ % 32), last - lo + 1)
                             : -1;
  if (chosen >= 0)
    pick = last - static_cast<size_t>(chosen);
  else if (lo < last && random(2) == 0)
    pick = lo + random(last - lo);
  const Message& m = h->msgs[pick];
  if (pick != last) ++stale_reads_;
  set_floor(v, key, m.stamp);
  observe(v, t, m, o);
  return m.value;
}

bool RelaxedMemory::store(const Thread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest, Order o,
                          uint64_t now) {
  History* h = history(key, size, latest, now, true);
  if (!h) return true;
  remember_write(key, now);
  View& v = view(t);
  const size_t last = h->msgs.size() - 1;
  const size_t lo = last ? lower_bound(v, *h, key, now) : 0;  // one message: nothing to choose
  // Where it goes in coherence order: after message `after`. Usually at the end; sometimes before
  // newer messages the thread has not seen, but never between a read-modify-write and the message
  // it read.
  size_t after = last;
  if (lo < last && random(4) == 0) {
    size_t gaps[Messages::kMax], n = 0;
    for (size_t j = lo; j < last; ++j)
      if (!h->msgs[j + 1].rel.rmw) gaps[n++] = j;
    if (n) after = gaps[random(n)];
  }
  const uint64_t stamp = next_stamp_++;
  const Release rel = release_of(v, t, o, stamp);
  if (after == last) {
    h->msgs.back().superseded_at = now;
    fill(h->msgs.open_back(), value, stamp, rel);
  } else {
    Message& m = h->msgs.open_after(after);
    fill(m, value, stamp, rel);
    m.superseded_at = now;
    ++early_stores_;
  }
  set_floor(v, key, stamp);
  return after == last;
}

void RelaxedMemory::rmw(const Thread& t, uint64_t key, uint32_t size, uint64_t old, uint64_t nw, bool wrote, Order o,
                        uint64_t now) {
  History* h = history(key, size, old, now, true);
  if (!h) return;
  if (wrote) remember_write(key, now);
  View& v = view(t);
  Message& read = h->msgs.back();  // atomicity: the newest message, nothing in between
  set_floor(v, key, read.stamp);
  observe(v, t, read, o);
  if (!wrote) return;
  const uint64_t stamp = next_stamp_++;
  Release rel = release_of(v, t, o, stamp);
  // A read-modify-write continues what the message it read released (release sequences).
  if (read.rel.stamp > rel.stamp) rel = read.rel;
  rel.rmw = true;
  read.superseded_at = now;
  fill(h->msgs.open_back(), nw, stamp, rel);  // (may move `read`: not used after this)
  set_floor(v, key, stamp);
}

void RelaxedMemory::fence(const Thread& t, Order o) {
  View& v = view(t);
  const Scope s = scope_of(o.sem, o.scope);
  // The acquire half: what the reads before it saw released, at the fence's scope.
  v.g = std::max(v.g, s == Scope::Cta ? v.pend_same : std::max(v.pend_same, v.pend_other));
  if (o.sem == Sem::Sc) {
    // fence.sc: the fences of one scope are totally ordered (in the order they run); each sees
    // what the threads of the earlier ones knew when they fenced.
    uint64_t& sc = s == Scope::Cta ? sc_cta_[t.cta] : sc_gpu_;
    v.g = std::max(v.g, sc);
    sc = std::max({sc, v.g, v.known});
  }
  v.known = std::max(v.known, v.g);
  // The release half: relaxed stores after it carry what the thread knows now.
  v.fence_rel = Release{v.known ? v.known : v.g, uint32_t(t.cta), s};
}

void RelaxedMemory::join(uint64_t cta, const std::vector<uint64_t>& ids, uint64_t also, bool whole_block) {
  if (whole_block) {
    // Every write to the block's shared memory was made by one of its threads, so its stamp is
    // at most what they now all know: only the newest value of each location is left to read.
    block(cta).clear_shared(on_visible_);
  }
  uint64_t m = also;
  for (uint64_t id : ids) {
    const View& v = view(Thread{cta, id});
    m = std::max({m, v.g, v.known});
  }
  for (uint64_t id : ids) {
    View& v = view(Thread{cta, id});
    v.g = v.known = m;
  }
}

bool RelaxedMemory::settle() {
  bool any = hist_.any_older();
  if (on_visible_ && any)
    hist_.for_each([&](uint64_t key, const History& h) {
      if (h.msgs.size() > 1) on_visible_(key);
    });
  hist_.clear();
  for (auto& [cta, b] : blocks_) {
    for (size_t i = 0; i < b.shared_used; ++i) any = any || b.shared_hist[i].msgs.size() > 1;
    b.clear_shared(on_visible_);
  }
  written_.clear();
  return any;
}

bool RelaxedMemory::has_older(uint64_t key) {
  const History* h = find_history(key);
  return h && h->msgs.size() > 1;
}

std::string RelaxedMemory::take_not_covered() {
  if (not_covered_taken_) return {};
  not_covered_taken_ = !not_covered_.empty();
  return not_covered_;
}

// ---- HistoryMap ----------------------------------------------------------------------------------

RelaxedMemory::History* RelaxedMemory::HistoryMap::find(uint64_t key) {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = home(key);; i = (i + 1) & mask) {
    if (slots_[i].key == key) return &pool_[slots_[i].index];
    if (slots_[i].key == kEmpty) return nullptr;
  }
}

RelaxedMemory::History& RelaxedMemory::HistoryMap::insert(uint64_t key) {
  if ((used_ + 1) * 4 > slots_.size() * 3) grow();
  const size_t mask = slots_.size() - 1;
  size_t i = home(key);
  while (slots_[i].key != kEmpty) i = (i + 1) & mask;
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<uint32_t>(pool_.size());
    pool_.emplace_back();
  }
  slots_[i] = Slot{key, index};
  ++used_;
  pool_[index].reset();
  return pool_[index];
}

void RelaxedMemory::HistoryMap::erase(uint64_t key) {
  if (slots_.empty()) return;
  const size_t mask = slots_.size() - 1;
  size_t i = home(key);
  while (slots_[i].key != key) {
    if (slots_[i].key == kEmpty) return;
    i = (i + 1) & mask;
  }
  free_.push_back(slots_[i].index);
  // Backward shift: move later entries of the probe run into the hole, so that no lookup stops
  // early at it.
  for (size_t j = (i + 1) & mask; slots_[j].key != kEmpty; j = (j + 1) & mask) {
    const size_t h = home(slots_[j].key);
    // Entry j may move to i when its home is not in (i, j] (cyclically).
    const bool stays = i <= j ? (h > i && h <= j) : (h > i || h <= j);
    if (stays) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i].key = kEmpty;
  --used_;
}

void RelaxedMemory::HistoryMap::clear() {
  for (Slot& s : slots_) s.key = kEmpty;
  pool_.clear();
  free_.clear();
  used_ = 0;
}

bool RelaxedMemory::HistoryMap::any_older() const {
  for (const Slot& s : slots_)
    if (s.key != kEmpty && pool_[s.index].msgs.size() > 1) return true;
  return false;
}

void RelaxedMemory::HistoryMap::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  const size_t cap = old.empty() ? 1024 : old.size() * 2;
  slots_.assign(cap, Slot{});
  shift_ = 64 - unsigned(__builtin_ctzll(cap));
  const size_t mask = cap - 1;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = home(s.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace synclab::sim
