// The relaxed memory model (relaxed_model.h). Each rule names the PTX ISA section it follows;
// docs/memory-model.md has the same table for readers.
//
// Where things are (the sections below, in this order):
//   Limits and helpers  how much history a location and a run keep (kWindow, kMaxMsgs, kMaxReaders, kMaxReach,
//                       kRecordLimit); is_acquire, is_release, read_of_early, scope_of
//   State               a message (Msg), a location's history (Loc), a thread's views, pending releases and
//                       load-buffering plan (ThreadState), Block, the recorded execution (Recorder)
//   Choices             the constructor, which draws this run's rates; how often a thread reads the newest
//                       message, puts a write last, holds a load back (newest_rate, end_rate, lb_rate); random
//   Threads and blocks  who (a thread and its access's scope), start_block, end_block, thread
//   Locations           find, drop_loc, free_slot, drop_oldest; history: a location's messages, made at its
//                       first access, with a host message added when memory changed outside the model
//   The host            host_word, host_raced, sync_host (the host's writes as messages that release each
//                       other); collapse and forget_old (histories cut short or dropped once out of reach)
//   Reads               readable (the messages a read may read), pick, view_after_read; acquires and held
//                       releases (acquire_from, hold_pending, acquire_pending_loc, acquire_pending_all);
//                       take_read, load
//   Writes              where a write may go in coherence order (anc_of_new, Places, may_place,
//                       co_before_new); releases_for_write, place, order, retire; write_common, store,
//                       rmw_read, rmw_write
//   Fences and barriers fence, barrier_arrive, barrier_release, warp_sync
//   Load buffering      a plan's early and late parts (begin_early, plan_step, end_early, begin_late,
//                       end_late)
//   The rest            settle, has_older, take_not_covered
//   Recording           rec_read, rec_write; execution (the recorded events with coherence and Fence-SC
//                       orders), recording_limit

#include "sim/memory/relaxed/relaxed_model.h"

#include "sim/memory/host_word.h"

#include <fmt/format.h>
#include <synclab/mix64.h>

#include <algorithm>
#include <cassert>

namespace synclab::sim::relaxed {

using ptx::Sem;

namespace {

constexpr uint64_t kWindow = 20000;    // steps after which an overwritten message can no longer be read
constexpr size_t kMaxMsgs = 8;         // messages a location keeps (the oldest is forgotten first)
constexpr size_t kMaxReaders = 12;     // reader entries per message before they are merged into one
constexpr size_t kMaxReach = 48;       // threads a location tracks before it keeps only its newest message
constexpr size_t kRecordLimit = 4096;  // events SYNCLAB_MEMORY_CHECK records (the oracle's bit matrices)

bool is_acquire(Sem s) { return s == Sem::Acquire || s == Sem::AcqRel || s == Sem::Sc; }
// A view's entry for "a read of an early store of this location": a key no location has (keys
// of locations are addresses below 2^63, or shared-memory keys with bit 63 set and bit 62 clear).
uint64_t read_of_early(uint64_t key) { return key | (uint64_t(1) << 62); }
bool is_release(Sem s) { return s == Sem::Release || s == Sem::AcqRel || s == Sem::Sc; }
// A release the reading thread made itself: acquiring it teaches the thread nothing (its view only
// grows, and program order already puts what preceded the release before the read), while its
// view, coarser where its entries overflowed (View's shared key), could put more in the thread's
// past than there is: a write placed before another thread's early store could then find no place
// (memory.relaxed.view_overflow).
// Whether two accesses are of one thread.
bool same_thread(const Who& a, const Who& b) { return a.tid == b.tid && a.cta == b.cta && a.host == b.host; }
bool own_release(const Release& rel, const Who& r) { return !rel.joined_others && same_thread(rel.head, r); }
uint64_t bit(uint8_t slot) { return uint64_t(1) << slot; }

// ThreadState::fence_rel's slot for a fence of scope s.
size_t fence_slot(Scope s) { return s == Scope::Cta ? 0 : s == Scope::Gpu ? 1 : 2; }

Scope scope_of(ptx::Scope s) {
  switch (s) {
    case ptx::Scope::Cta: return Scope::Cta;
    case ptx::Scope::Sys: return Scope::Sys;
    // .cluster sits between the block and the GPU; taking it as the GPU makes more pairs morally
    // strong, which only forbids more.
    default: return Scope::Gpu;
  }
}

}  // namespace

struct RelaxedModel::Msg {
  uint64_t value = 0;
  // A store run early (load buffering) that waits for a release of its plan: morally strong readers
  // may not read it yet (RelaxedModel::end_late gives it its releases and shows it).
  bool hidden = false;
  Scope hidden_scope = Scope::Gpu;  // (hidden) the widest scope of the releases it waits for
  // A store run early whose plan has not finished: a read of it is noted in the reader's view
  // (read_of_early), so that the plan's late acquire does not take a release that follows such a
  // read (the read would be before, in causality order, the write it read).
  bool early = false;
  // (early) a held-back write of its plan may come before it in program order and will go before
  // it in coherence order (plan_step's before_late_write): until the plan has run, other threads'
  // writes that may go before it do (write_common), so that the held-back write finds a place.
  bool before_late = false;
  // (early) its plan holds back a read-modify-write that may acquire (begin_early's
  // acquire_rmw_held): until the plan has run, readers of other threads that may release after the
  // read do not read it, morally strong or not (a read of a store run early is noted in the
  // reader's view: read_of_early). Such a release could carry the store to the location the
  // held-back read-modify-write reads, and a read-modify-write of that thread could take the last
  // message there it could read: it would be left with nothing to read. (Not when every acquire
  // the plan holds back is .cta and no other thread of its block may release any more: nothing
  // the held-back part reads can then carry a release it acquires made since.)
  bool hidden_acq = false;
  uint64_t key = 0;                     // coherence key: grows along coherence order
  uint64_t created = 0;                 // the step it was made
  uint64_t superseded_at = UINT64_MAX;  // the step a message came after it in coherence order
  Who writer;
  bool base = false;  // the value memory had when the history began: before every other message
  uint8_t slot = 0;   // its bit in the masks below
  // The messages before it in coherence order (slots, transitively closed). Coherence order is a
  // partial order: it keeps every two writes some scope instance covers, and what causality order
  // orders, in the order of `msgs`; writes neither orders are unordered.
  uint64_t co_before = 0;
  bool rmw = false;     // the write of a read-modify-write
  int8_t rmw_src = -1;  // (rmw) the slot of the message its read read (-1: forgotten)
  uint64_t anc = 0;     // messages that reach it by morally strong communication and program order
  RelList rels;         // the releases it carries
  struct Reader {
    Who who;
    uint64_t mask = 0;  // messages that reach the read (the read's own reach)
    bool any = false;   // stands for readers of every kind (the entries merged when there were too many)
  };
  std::vector<Reader> readers;
  int event = -1;  // its write event in the recorded execution (-1: none, or the initial value)
};

struct RelaxedModel::Loc {
  uint32_t bytes = 0;
  std::vector<Msg> msgs;  // coherence order; back() is memory's value
  uint64_t used = 0;      // slots in use
  struct Reach {
    uint64_t tid;
    bool host;
    uint64_t mask;  // messages that reach the thread's last access here
  };
  std::vector<Reach> reach;
  bool shared = false;
  // Reader lists of messages that left the history, emptied, for its next messages (a location
  // at its limit drops one message for every write: no allocation).
  std::vector<std::vector<Msg::Reader>> spare_readers;
  void spare(Msg& m) {
    if (m.readers.capacity() == 0 || spare_readers.size() >= kMaxMsgs) return;
    m.readers.clear();
    spare_readers.push_back(std::move(m.readers));
  }

  uint64_t* reach_of(const Who& w) {
    for (Reach& r : reach)
      if (r.tid == w.tid && r.host == w.host) return &r.mask;
    return nullptr;
  }
  uint64_t reach_mask(const Who& w) const {
    for (const Reach& r : reach)
      if (r.tid == w.tid && r.host == w.host) return r.mask;
    return 0;
  }
  int index_of_slot(int slot) const {
    for (size_t i = 0; i < msgs.size(); ++i)
      if (msgs[i].slot == slot) return int(i);
    return -1;
  }
  // The index of the message with coherence key `key`; msgs.size() when it left the history.
  size_t index_of_key(uint64_t key) const {
    for (size_t i = 0; i < msgs.size(); ++i)
      if (msgs[i].key == key) return i;
    return msgs.size();
  }
  // The lowest place a write whose causal past reaches coherence key `vkey` may go after: the last
  // message with a key at most vkey (0 when none).
  size_t lowest_place(uint64_t vkey) const {
    size_t lo = 0;
    for (size_t i = 0; i < msgs.size(); ++i)
      if (msgs[i].key <= vkey) lo = i;
    return lo;
  }
};

struct RelaxedModel::ThreadState {
  View view;  // the causal past, per location (what the thread observed and acquired)
  View own;   // the thread's own writes: not in its own causal past (program order is not causality order), but
              // in that of whoever synchronizes with it later
  View known() const {
    View k = view;
    k.join(own);
    return k;
  }
  // Releases read by morally strong reads and not yet acquired, by the acquire scopes that may
  // take them (any: cta and wider; gpu: gpu and sys; sys: sys only).
  struct Pend {
    View any, gpu, sys;
    bool has = false;
  };
  Pend pend;
  struct PendLoc {
    uint64_t key = ~0ull;
    Pend p;
    // The message whose releases were held last, and how many it had then (a spinning read of the
    // same message adds nothing: views only grow, and pend is never emptied).
    uint64_t held_msg = ~0ull;
    size_t held_rels = 0;
    // The last releases held here (joined into p and into the thread's pend, neither of which
    // shrinks while this entry lives): the messages of a chain of read-modify-writes carry the
    // same releases on, and joining one again adds nothing.
    ReleaseRef joined[4];
    uint32_t joined_next = 0;
    bool holds(const ReleaseRef& r) const {
      for (const ReleaseRef& j : joined)
        if (j == r) return true;
      return false;
    }
  };
  PendLoc pend_loc[2];  // the same for the last locations read (acquire pattern: a later acquire of the location)
  uint32_t pend_loc_next = 0;
  ReleaseRef fence_rel[3];  // the last release fence of each scope (cta, gpu, sys): later writes carry it
  struct RelLoc {
    uint64_t key = ~0ull;
    ReleaseRef rel;
  };
  RelLoc rel_loc[2];  // release pattern: the last release to a location, carried by later writes to it
  uint32_t rel_loc_next = 0;
  std::vector<ReleaseRef> rel_always;  // (RelLoc entries pushed out: every later write carries them)
  // Load buffering.
  bool early = false, late = false;
  uint32_t plan_pos = 0;                 // the place in its plan of the instruction running (plan_step)
  bool plan_before_write = false;        // the store of this plan step: plan_step's before_late_write
  bool plan_acquire_rmw = false;         // the plan holds back an acquiring read-modify-write (begin_early)
  bool plan_hide_acq = false;            // its early stores are kept from readers that may release (Msg::hidden_acq)
  bool plan_acquire_held = false;        // the plan holds back an acquire (begin_early's acquire_held)
  bool plan_hidden = false;              // the store of this plan step waits for a release of the plan...
  Scope plan_hidden_scope = Scope::Gpu;  // ...at most this wide
  bool late_fence_acquire = false;       // an acquire fence is held back with the load...
  Scope late_fence_scope = Scope::Gpu;   // ...at this scope
  // The releases and fences the plan ran early with only loads held back before them
  // (load_buffering.cpp), in program order, until those loads have run (plan_release_late). Each
  // with what the thread knew then: once something that follows it in causality order may have
  // run (`taken`: a morally strong fence.sc of another thread after a fence.sc; a read that may
  // acquire of a store the plan ran early after a release), the held-back loads before it read
  // only writes it knew (RelaxedModel::readable).
  struct PlanRel {
    uint32_t pos = 0;  // its place in the plan
    Who who;           // the fence, or the releasing write
    View known;        // the thread's known() when it ran
    bool taken = false;
    bool fence = false, sc = false, acquire = false, release = false;
    uint64_t key = ~0ull;  // (a releasing write) its location
    ReleaseRef rel;        // (a releasing write) the release it left for the thread's later writes there
  };
  std::vector<PlanRel> plan_rels;
  size_t plan_rels_done = 0;      // (those whose held-back loads have run)
  uint32_t plan_first_rel = ~0u;  // the place of the plan's first such release (until end_late)
  // The thread's view when the plan began (begin_early). The held-back loads before the plan's
  // first release or fence run early run with it (begin_late): their causal past is not what those
  // fences acquired since (plan_view_after), which joins it once they have run.
  View plan_view0, plan_view_after;
  bool plan_view_swapped = false;
  Who plan_who;  // (the thread, as plan_rels_ finds it)
  struct Early {
    uint64_t key, msg_key;
    bool hidden;
    bool release;  // a release store (its own release is made at end_late)
    Who who;
    // For the held-back loads of its location before it in program order (load_buffering.cpp
    // lets a store, or a read-modify-write, run before held-back loads, not read-modify-writes):
    // what reached the thread's accesses there before it (before its read, for a
    // read-modify-write), joined with what those loads observed once they have run.
    uint64_t reach_before = 0;
    // (a read-modify-write) the message its read read: the load may observe only writes
    // coherence-before it or that message itself. An observed write is before the later read in
    // causality order (observation, then program order on one location), and weak writes may
    // stand between that message and the read-modify-write's own.
    bool rmw = false;
    uint64_t read_msg_key = 0;
    uint32_t pos = 0;  // its place in the plan
  };
  std::vector<Early> early_stores;
  // A compare-and-swap run early that failed: a read, after the plan's held-back acquire in program
  // order, and no write. The acquire reads no release whose view holds a write of its location
  // other than the message it read or one coherence-before it (RelaxedModel::readable's covers).
  struct EarlyRead {
    uint64_t key, read_msg_key;
  };
  std::vector<EarlyRead> early_reads;
  // The first early store to `key` that the held-back read running now comes before in program
  // order (null when none: the read is not in a plan's late part, or comes after them all).
  const Early* own_later(uint64_t key) const {
    if (!late) return nullptr;
    for (const Early& e : early_stores)
      if (e.key == key && plan_pos < e.pos) return &e;
    return nullptr;
  }
  // Recording.
  int rec_thread = -1;
  uint32_t po = 0, late_po = 0, saved_po = 0;
};

struct RelaxedModel::Block {
  std::vector<ThreadState> threads;
  std::vector<uint64_t> shared_keys;  // shared-memory locations with a history
};

struct RelaxedModel::Recorder {
  memory::Execution x;
  std::unordered_map<uint64_t, uint32_t> loc_number;
  // Per location: its write events in one order coherence order allows (a linear extension of it).
  std::unordered_map<uint64_t, std::vector<uint32_t>> co;
  // Coherence edges the model fixed between messages of a history (Msg::co_before).
  std::vector<std::pair<uint32_t, uint32_t>> co_edges;
  // Write events that left their location's history, with the number of events made by then:
  // every write made later comes after them in coherence order (no read reads them any more).
  std::unordered_map<uint32_t, uint32_t> retired;
  std::vector<uint32_t> sc;                             // fence.sc events in the order they ran
  std::unordered_map<uint64_t, uint32_t> bar_instance;  // (block, barrier) -> the instance being filled
  uint32_t next_instance = 0;
  bool full = false;

  uint32_t loc(uint64_t key) { return loc_number.emplace(key, uint32_t(loc_number.size())).first->second; }
  bool room() {
    if (x.events.size() >= kRecordLimit) full = true;
    return !full;
  }
  int last_write(uint64_t key) const {
    auto it = co.find(key);
    return it == co.end() || it->second.empty() ? -1 : int(it->second.back());
  }
};

RelaxedModel::RelaxedModel(uint64_t seed, uint32_t threads_per_block, bool record)
    : rng_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull), tpb_(threads_per_block) {
  if (record) rec_ = std::make_unique<Recorder>();
  host_ = std::make_unique<ThreadState>();
  maybe_.assign(size_t(1) << 16, 0);
  static const uint32_t kNewest[] = {8, 8, 2, 14}, kEnd[] = {12, 12, 4, 15}, kLb[] = {8, 8, 2, 16};
  newest_rate_ = kNewest[random(4)];
  end_rate_ = kEnd[random(4)];
  lb_rate_ = kLb[random(4)];
  per_thread_ = random(2);
  thread_mix_ = random(~0ull);
}

RelaxedModel::~RelaxedModel() = default;

uint32_t RelaxedModel::thread_rate(const MemThread& t, uint64_t salt, const uint32_t (&rates)[3],
                                   uint32_t run_rate) const {
  return per_thread_ ? rates[mix64(thread_mix_ ^ (t.host ? ~0ull : t.id) ^ salt) % 3] : run_rate;
}

uint32_t RelaxedModel::newest_rate(const MemThread& t) const {
  static const uint32_t kRates[] = {1, 8, 15};
  return thread_rate(t, 0, kRates, newest_rate_);
}

uint32_t RelaxedModel::end_rate(const MemThread& t) const {
  static const uint32_t kRates[] = {2, 12, 16};
  return thread_rate(t, 0x5bd1e995, kRates, end_rate_);
}

uint32_t RelaxedModel::lb_rate(const MemThread& t) const {
  // (some threads never hold a load back, others at every chance: an outcome may need one thread
  // to reorder and another to keep its order)
  static const uint32_t kRates[] = {0, 8, 16};
  return thread_rate(t, 0x27d4eb2f, kRates, lb_rate_);
}

uint64_t RelaxedModel::random(uint64_t n) {
  rng_ += 0x9E3779B97F4A7C15ull;  // splitmix64
  const uint64_t z = mix64(rng_);
  return n ? z % n : 0;
}

// ---- threads and blocks ---------------------------------------------------------------------------

Who RelaxedModel::who(const MemThread& t, MemOrder o, bool rmw_or_fence) const {
  Who w;
  w.tid = t.id;
  w.cta = t.cta;
  w.host = t.host;
  switch (o.sem) {
    case Sem::None:
    case Sem::Weak:
      // A plain access is weak; atom/red and fences without an order are relaxed / acq_rel at .gpu.
      w.scope = rmw_or_fence ? scope_of(o.scope) : Scope::Thread;
      break;
    case Sem::Volatile:
    case Sem::Mmio: w.scope = Scope::Sys; break;  // PTX ISA, "Volatile operations": relaxed at .sys
    default: w.scope = scope_of(o.scope); break;
  }
  if (t.host && w.scope != Scope::Thread) w.scope = Scope::Sys;
  return w;
}

void RelaxedModel::start_block(uint64_t cta) {
  auto& b = blocks_[cta];
  if (!b) b = std::make_unique<Block>();
  b->threads.assign(tpb_, ThreadState{});
  last_block_ = nullptr;
  last_block_cta_ = ~0ull;
}

void RelaxedModel::end_block(uint64_t cta) {
  auto it = blocks_.find(cta);
  if (it == blocks_.end()) return;
  for (uint64_t key : it->second->shared_keys) drop_loc(key);
  for (const ThreadState& ts : it->second->threads)
    if (!ts.plan_rels.empty()) plan_rels_.erase(std::find(plan_rels_.begin(), plan_rels_.end(), &ts));
  blocks_.erase(it);
  sc_cta_.erase(cta);
  last_block_ = nullptr;
  last_block_cta_ = ~0ull;
}

RelaxedModel::ThreadState& RelaxedModel::thread(const MemThread& t) {
  if (t.host) return *host_;
  if (t.cta != last_block_cta_) {
    auto& b = blocks_[t.cta];
    if (!b) {
      b = std::make_unique<Block>();
      b->threads.assign(tpb_, ThreadState{});
    }
    last_block_ = b.get();
    last_block_cta_ = t.cta;
  }
  return last_block_->threads[size_t(t.id - t.cta * tpb_)];
}

// ---- locations ------------------------------------------------------------------------------------

RelaxedModel::Loc* RelaxedModel::find(uint64_t key) {
  if (key == last_key_) return last_loc_;
  if (!maybe_[maybe_slot(key)]) return nullptr;
  auto it = locs_.find(key);
  if (it == locs_.end()) return nullptr;
  last_key_ = key;
  last_loc_ = it->second.get();
  return last_loc_;
}

void RelaxedModel::drop_loc(uint64_t key) {
  auto it = locs_.find(key);
  if (it == locs_.end()) return;
  if (on_visible_ && it->second->msgs.size() > 1) on_visible_(key);
  for (const Msg& m : it->second->msgs) retire(m);
  // (kept for the next location: a whole block's barrier drops its shared locations, which its
  // next phase creates again)
  maybe_remove(key);
  if (free_locs_.size() < 4096) {
    LocMap::node_type dead = locs_.extract(it);
    Loc& D = *dead.mapped();
    D.msgs.clear();
    D.reach.clear();
    D.used = 0;
    D.bytes = 0;
    D.shared = false;
    free_locs_.push_back(std::move(dead));
  } else {
    locs_.erase(it);
  }
  if (key == last_key_) {
    last_key_ = ~0ull;
    last_loc_ = nullptr;
  }
}

uint32_t RelaxedModel::free_slot(Loc& L) {
  const uint32_t s = uint32_t(__builtin_ctzll(~L.used));
  L.used |= bit(uint8_t(s));
  return s;
}

void RelaxedModel::drop_oldest(Loc& L, uint64_t key) {
  // The oldest message goes: no read may read it any more, which only takes a choice away. The
  // masks forget its slot (what it reached stays reached: the masks are transitive).
  const uint8_t slot = L.msgs.front().slot;
  retire(L.msgs.front());
  L.spare(L.msgs.front());
  L.msgs.erase(L.msgs.begin());
  const uint64_t keep = ~bit(slot);
  L.used &= keep;
  for (Msg& m : L.msgs) {
    m.anc &= keep;
    m.co_before &= keep;
    if (m.rmw_src == int8_t(slot)) m.rmw_src = -1;
    for (Msg::Reader& r : m.readers) r.mask &= keep;
  }
  for (Loc::Reach& r : L.reach) r.mask &= keep;
}

RelaxedModel::Loc* RelaxedModel::history(uint64_t key, uint32_t size, uint64_t latest, uint64_t now, bool create) {
  if (!sc_keys_.empty() && sc_keys_.count(key)) return nullptr;
  Loc* L = find(key);
  if (!L) {
    if (!create && !host_words_.empty() && !in_sync_host_ && host_words_.count(key)) {
      // A word of the host's whose history has expired (forget_old): what memory holds may be a
      // host write made since the last look, which must come in through sync_host, with the
      // release of everything the host wrote before it; returning memory's value instead would
      // let an acquire of the host's flag take the flag without the data behind it. sync_host
      // starts the word's history again.
      sync_host(now);
      return find(key);
    }
    if (!create) return nullptr;
    LocMap::node_type fresh;
    std::unique_ptr<Loc> made;
    if (!free_locs_.empty()) {
      fresh = std::move(free_locs_.back());
      free_locs_.pop_back();
      fresh.key() = key;
      L = fresh.mapped().get();
    } else {
      made = std::make_unique<Loc>();
      L = made.get();
    }
    L->bytes = size;
    L->shared = key >> 63;
    Msg base;
    base.value = latest;
    base.key = new_end_key();
    base.created = now;
    base.writer = Who{~0ull, ~0ull, false, Scope::Sys};  // the value memory had: older than every thread here
    base.base = true;
    base.slot = uint8_t(free_slot(*L));
    if (rec_) base.event = rec_->last_write(key);
    L->msgs.push_back(std::move(base));
    if (fresh)
      locs_.insert(std::move(fresh));
    else
      locs_.emplace(key, std::move(made));
    maybe_add(key);
    last_key_ = key;
    last_loc_ = L;
    if (L->shared) {
      const uint64_t cta = key >> 32 & 0x7fffffffu;
      Block* b = cta == last_block_cta_ && last_block_ ? last_block_ : blocks_[cta].get();
      if (b) b->shared_keys.push_back(key);
    } else {
      written_.emplace_back(now, key);
    }
    return L;
  }
  if (L->bytes != size) {
    // Two sizes at one address: outside what the model covers. The location is sequentially
    // consistent from now on, and the run says so.
    if (not_covered_.empty())
      not_covered_ = fmt::format(
          "the address 0x{:x} was accessed as {} bytes and as {} bytes in this launch: the relaxed memory model "
          "does not cover mixed-size accesses, so that location behaved as sequentially consistent (SYNCLAB_MEMORY=sc)",
          key, L->bytes, size);
    drop_loc(key);
    sc_keys_.insert(key);
    return nullptr;
  }
  if (L->msgs.back().value != latest && !in_sync_host_ && host_words_.count(key)) {
    // A word of the host's (host_word): its writes come in as one batch with those to the other
    // words, each releasing the others (sync_host). What memory holds may have changed again since
    // the caller read it; the access reads or follows the messages, not that value.
    sync_host(now);
    return find(key);
  }
  if (L->msgs.back().value != latest) {
    // Memory changed outside the model (the host, through mapped memory, unwatched): a newer
    // message by the host.
    if (L->msgs.size() == kMaxMsgs) drop_oldest(*L, key);
    Msg m;
    m.value = latest;
    m.key = new_end_key();
    m.created = now;
    m.writer = Who{~0ull, ~0ull, true, Scope::Sys};
    m.base = true;  // (after every message there, and before every later one)
    m.co_before = L->used;
    m.slot = uint8_t(free_slot(*L));
    m.anc = 0;
    L->msgs.back().superseded_at = now;
    L->msgs.push_back(m);
  }
  return L;
}

// ---- the host ------------------------------------------------------------------------------------

namespace {
constexpr size_t kMaxHostWords = 256;  // beyond: the host's writes to further words are newest values

}  // namespace

void RelaxedModel::host_word(uint64_t key, uint32_t size, const uint8_t* p, uint64_t now) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return;
  if (!sc_keys_.empty() && sc_keys_.count(key)) return;
  if (!host_words_.count(key)) {
    if (host_words_.size() >= kMaxHostWords) return;
    host_words_.emplace(key, HostWord{p, size});
  }
  sync_host(now);
}

void RelaxedModel::host_raced(const MemThread& t, uint64_t key, uint32_t size, const uint8_t* p, uint64_t now) {
  host_word(key, size, p, now);
  ThreadState& ts = thread(t);
  ts.view.join(host_view_);
  ts.view.join(sys_released_);
}

void RelaxedModel::sync_host(uint64_t now) {
  // Every host write made since the last look, at every word the device accessed: a message by the
  // host, which releases what the host had written before it (its earlier messages: the host wrote
  // them first, since memory showed them first) and every system-scope release of the device (the
  // host may have acquired those before it wrote). A device thread that acquires such a message at
  // system scope sees all of that; one that reads it relaxed, or at a narrower scope, may still
  // read older values of the other words: the host is a thread of its own (PTX ISA, "Memory
  // Consistency Model": the host's accesses are morally strong with system-scope ones only).
  // The words are read one after another while host threads go on writing: a write to a word read
  // earlier in the pass may come before a write to a later one and show only at the next pass. So
  // the passes repeat until one finds nothing new, and what they found is one batch: each of its
  // messages releases all of them (more than the host may have released, never less).
  std::vector<std::pair<uint64_t, uint64_t>> fresh;  // (location, message key)
  in_sync_host_ = true;
  for (int pass = 0; pass < 64; ++pass) {  // (a host that writes without pause: at most 64 passes)
    const size_t before = fresh.size();
    for (const auto& [key, hw] : host_words_) {
      const uint64_t v = host_watch::load_word(hw.p, hw.size);
      Loc* L = find(key);
      if (!L) {
        // Where its history starts: what memory holds now, which may be a host write made while
        // the kernel ran: it releases like the others.
        L = history(key, hw.size, v, now, true);
        if (L) {
          host_view_.raise(key, L->msgs.back().key);
          fresh.emplace_back(key, L->msgs.back().key);
        }
        continue;
      }
      if (L->bytes != hw.size || L->msgs.back().value == v) continue;
      L = history(key, hw.size, v, now, false);  // (appends the host's write)
      if (!L || L->msgs.back().value != v || !L->msgs.back().writer.host) continue;
      host_view_.raise(key, L->msgs.back().key);
      fresh.emplace_back(key, L->msgs.back().key);
    }
    if (fresh.size() == before) break;
  }
  in_sync_host_ = false;
  if (fresh.empty()) return;
  auto rel = std::make_shared<Release>();
  rel->view = host_view_;
  rel->view.join(sys_released_);
  rel->head = Who{~0ull, ~0ull, true, Scope::Sys};
  for (const auto& [key, msg] : fresh)
    if (Loc* L = find(key))
      for (Msg& m : L->msgs)
        if (m.key == msg) m.rels.push_back(rel);
}

void RelaxedModel::collapse(Loc& L) {
  for (size_t i = 0; i + 1 < L.msgs.size(); ++i) {
    retire(L.msgs[i]);
    L.spare(L.msgs[i]);
  }
  if (L.msgs.size() > 1) L.msgs.erase(L.msgs.begin(), L.msgs.end() - 1);
  RelaxedModel::Msg& m = L.msgs.back();
  m.anc = 0;
  m.co_before = 0;
  m.readers.clear();
  m.rmw_src = -1;
  L.used = bit(m.slot);
  L.reach.clear();
}

void RelaxedModel::forget_old(uint64_t now) {
  while (written_head_ < written_.size() && written_[written_head_].first + kWindow < now) {
    const uint64_t key = written_[written_head_++].second;
    Loc* L = find(key);
    if (!L) continue;
    const auto& msgs = L->msgs;
    const bool old_gone = msgs.size() < 2 || msgs[msgs.size() - 2].superseded_at + kWindow < now;
    if (old_gone && msgs.back().created + kWindow < now) {
      // Every older message is out of reach, and so is everything a release on the newest one
      // could order (it was made more than a window ago): the history can go.
      drop_loc(key);
    } else {
      if (old_gone && msgs.size() > 1) {
        if (on_visible_) on_visible_(key);
        collapse(*L);
      }
      written_.emplace_back(now, key);  // look again later
    }
  }
  if (written_head_ > 4096 && written_head_ * 2 > written_.size()) {
    written_.erase(written_.begin(), written_.begin() + long(written_head_));
    written_head_ = 0;
  }
}

// ---- reads ----------------------------------------------------------------------------------------

void RelaxedModel::readable(Loc& L, const ThreadState& ts, const Who& r, uint64_t key, bool acquire, uint64_t now,
                            std::vector<uint32_t>* out, bool sees_hidden, bool sees_unreleasing, bool reduction) {
  out->clear();
  const size_t n = L.msgs.size();
  // Causality: nothing coherence-before a write of the causal past (the messages whose keys are at
  // most the view's). (A read-modify-write run early after a held-back acquire: what that acquire
  // will take of the releases the thread read before counts as known already.)
  uint64_t vkey = ts.view.get(key);
  if (ts.early && ts.plan_acquire_held && ts.pend.has)
    vkey = std::max({vkey, ts.pend.any.get(key), ts.pend.gpu.get(key), ts.pend.sys.get(key)});
  uint64_t past_after = 0;  // co_before masks of the causal past's messages, joined
  for (size_t i = 0; i < n; ++i)
    if (L.msgs[i].key <= vkey) past_after |= L.msgs[i].co_before;
  uint64_t reach = L.reach_mask(r);
  // A held-back load before a store to its location that its plan ran early: that store comes
  // after it in program order, so it is not in what reaches the load. The load may not read the
  // store, and it may observe (read with a morally strong read) only writes coherence-before the
  // store: an observed write is before the store in causality order (observation, then program
  // order on one location), so coherence order must put it first. When the store is the write of a
  // read-modify-write, the same holds for its read: the load observes only the message that read
  // read or writes coherence-before it (else the read would miss a write before it in causality
  // order; weak writes may stand between that message and the read-modify-write's own).
  // (the first such store after the load in program order: later ones to the location are
  // coherence-after it, one thread's writes)
  const ThreadState::Early* own_later = ts.own_later(key);
  uint64_t own_later_after = 0;  // (own_later) the messages coherence-before it
  bool own_later_found = false;
  if (own_later) {
    reach = own_later->reach_before;
    bool read_found = !own_later->rmw;
    uint64_t read_upto = ~0ull;  // (a read-modify-write) the message it read and those before it
    for (size_t i = 0; i < n; ++i) {
      if (L.msgs[i].key == own_later->msg_key) {
        own_later_after = L.msgs[i].co_before;
        own_later_found = true;
      }
      if (own_later->rmw && L.msgs[i].key == own_later->read_msg_key) {
        read_upto = L.msgs[i].co_before | bit(L.msgs[i].slot);
        read_found = true;
      }
    }
    own_later_found = own_later_found && read_found;
    own_later_after &= read_upto;
  }
  // A held-back load before a release or fence its plan ran early (ThreadState::plan_rels), once
  // something that follows it in causality order may have run (`taken`): the load comes before
  // all that (release patterns, Fence-SC order), so it may not read their writes (Causality), and
  // what it observes must be coherence-before their writes and not after what their reads read
  // (Coherence, Causality). The writes the thread knew when the release or fence ran satisfy both
  // (everything after it has them in its causal past: it passed them on), and so does the value
  // memory had when the history began (before every write): it reads one of them. (The first
  // such release after the load in program order: the later ones knew more.)
  const View* known_then = nullptr;
  if (ts.late)
    for (size_t k = ts.plan_rels_done; k < ts.plan_rels.size() && !known_then; ++k)
      if (ts.plan_rels[k].pos > ts.plan_pos && ts.plan_rels[k].taken) known_then = &ts.plan_rels[k].known;
  const bool past_only = known_then != nullptr;
  const uint64_t known_key = past_only ? known_then->get(key) : 0;
  for (size_t i = 0; i < n; ++i) {
    if (past_only && L.msgs[i].key > known_key && !(i == 0 && L.msgs[i].base)) continue;
    if (own_later && (L.msgs[i].key == own_later->msg_key ||
                      (strong(L.msgs[i].writer, r) && (!own_later_found || !(own_later_after & bit(L.msgs[i].slot))))))
      continue;
    if (past_after & bit(L.msgs[i].slot)) continue;
    const Msg& m = L.msgs[i];
    if (i + 1 < n && m.superseded_at + kWindow < now) continue;  // long overwritten
    // Not released yet (see Msg::hidden), for a reader its releases could synchronize with (not
    // its own thread's later reads, which come after it in program order; nor a load that can
    // never acquire: it observes the store and synchronizes with nothing, while a
    // read-modify-write would pass on what its write does not yet carry).
    const bool own = same_thread(m.writer, r);
    if (m.hidden && !own && !sees_hidden && strong(m.writer, r) &&
        includes(Who{m.writer.tid, m.writer.cta, m.writer.host, m.hidden_scope}, r))
      continue;
    if (m.hidden_acq && !own && !sees_unreleasing) continue;
    // Sequential consistency per location: a morally strong write after m that reaches this read
    // (through the thread's earlier accesses, or through m itself when the read observes m) would
    // close a cycle with the read's from-read edge to it.
    const uint64_t R = reach | (strong(m.writer, r) ? m.anc | bit(m.slot) : 0);
    bool ok = true;
    for (size_t j = i + 1; j < n && ok; ++j)
      if ((R & bit(L.msgs[j].slot)) && strong(r, L.msgs[j].writer) && (L.msgs[j].co_before & bit(m.slot))) ok = false;
    // A load run after later stores of its thread: it must not acquire a release whose view
    // holds one of those stores (the store would be before itself in causality order).
    if (ok && ts.late && (!ts.early_stores.empty() || !ts.early_reads.empty()) && strong(m.writer, r)) {
      // Whether a view whose key at a location is vk holds a write there other than the message a
      // read run early read or one coherence-before it (one that left the history counts as any).
      auto reads_past = [&](const Loc& Le, uint64_t vk, uint64_t read_msg_key) {
        const size_t ri = Le.index_of_key(read_msg_key);
        const uint64_t read_before = ri < Le.msgs.size() ? Le.msgs[ri].co_before : 0;
        for (const Msg& s : Le.msgs)
          if (s.key <= vk && s.key != read_msg_key && !(read_before & bit(s.slot))) return true;
        return false;
      };
      // (the acquire may be the load itself, or an acquire fence held back with it)
      auto covers = [&](const Release& rel, Scope acq) {
        if (!strong(rel.head, Who{r.tid, r.cta, r.host, acq})) return false;
        // (the thread's own release: program order already puts it before the read, and the
        // early stores after both. One made in the plan's held-back part took the thread's view
        // as it is now, early stores included, which its place in program order does not hold.)
        if (same_thread(rel.head, r)) return false;
        for (const ThreadState::Early& e : ts.early_stores) {
          const uint64_t vk = rel.view.get(e.key);
          if (vk >= e.msg_key || rel.view.get(read_of_early(e.key)) >= e.msg_key) return true;
          // A write the acquire would put before the store in causality order must be before it
          // in coherence order already (the store took its place when it ran).
          if (const Loc* Le = e.key == key ? &L : find(e.key)) {
            uint64_t co_before = ~0ull;
            for (const Msg& s : Le->msgs)
              if (s.key == e.msg_key) co_before = s.co_before;
            for (const Msg& s : Le->msgs)
              if (s.key <= vk && !(co_before & bit(s.slot))) return true;
            // A read-modify-write run early: its read comes after the acquire in program order, so
            // the release's writes of its location must be the message it read or before it in
            // coherence order (Causality); one that left the history counts as any.
            if (e.rmw && reads_past(*Le, vk, e.read_msg_key)) return true;
          }
        }
        for (const ThreadState::EarlyRead& e : ts.early_reads)
          if (const Loc* Le = e.key == key ? &L : find(e.key))
            if (reads_past(*Le, rel.view.get(e.key), e.read_msg_key)) return true;
        return false;
      };
      for (const ReleaseRef& rel : m.rels) {
        if (acquire) ok = ok && !covers(*rel, r.scope);
        if (ts.late_fence_acquire && !reduction) ok = ok && !covers(*rel, ts.late_fence_scope);
      }
    }

    if (ok) out->push_back(uint32_t(i));
  }
}

uint32_t RelaxedModel::pick(const std::vector<uint32_t>& cand, uint32_t newest, const MemThread& t, const Loc& L,
                            uint64_t key) {
  if (cand.size() == 1) return cand[0];
  if (chooser_) {
    // Replay: the k-th newest readable value.
    const int64_t k = chooser_->choose_read(uint32_t((t.id % tpb_) % 32), cand.size());
    if (k >= 0 && size_t(k) < cand.size()) return cand[cand.size() - 1 - size_t(k)];
  }
  if (aim_) {
    aimed_.clear();
    for (uint32_t c : cand)
      if (aim_->wants_read(t, key, L.msgs[c].value)) aimed_.push_back(c);
    if (!aimed_.empty() && random(8) != 0) return aimed_[random(aimed_.size())];
  }
  const bool has_newest = cand.back() == newest;
  if (has_newest && random(16) < newest_rate(t)) return newest;
  return cand[random(has_newest ? cand.size() - 1 : cand.size())];
}

uint64_t RelaxedModel::view_after_read(const ThreadState& ts, const Msg& m, const Who& r, uint64_t key,
                                       bool acquire) const {
  uint64_t v = ts.view.get(key);
  if (!strong(m.writer, r)) return v;
  v = std::max(v, m.key);
  if (acquire) {
    for (const ReleaseRef& rel : m.rels)
      if (strong(rel->head, r) && !own_release(*rel, r)) v = std::max(v, rel->view.get(key));
    for (const ThreadState::PendLoc& p : ts.pend_loc)
      if (p.key == key && p.p.has) v = std::max({v, p.p.any.get(key), p.p.gpu.get(key), p.p.sys.get(key)});
  }
  return v;
}

void RelaxedModel::acquire_from(ThreadState& ts, const Who& acq, const RelList& rels) {
  for (const ReleaseRef& rel : rels)
    if (strong(rel->head, acq) && !own_release(*rel, acq)) ts.view.join(rel->view);
}

void RelaxedModel::hold_pending(ThreadState& ts, const Who& reader, uint64_t key, uint64_t msg, const RelList& rels) {
  if (rels.empty()) return;
  ThreadState::PendLoc* pl = nullptr;
  for (ThreadState::PendLoc& p : ts.pend_loc)
    if (p.key == key) pl = &p;
  if (pl && pl->held_msg == msg && pl->held_rels == rels.size()) return;  // held already
  if (!pl) {
    pl = &ts.pend_loc[ts.pend_loc_next++ % 2];
    if (pl->key != ~0ull && pl->p.has) {
      // The entry pushed out is acquired now, as if an acquire of its location came at once:
      // more order than the program asked for, never less.
      ts.view.join(pl->p.any);
      ts.view.join(pl->p.gpu);
      ts.view.join(pl->p.sys);
    }
    *pl = ThreadState::PendLoc{};
    pl->key = key;
  }
  for (const ReleaseRef& rel : rels) {
    if (pl->holds(rel)) continue;
    pl->joined[pl->joined_next++ % 4] = rel;
    // Which acquires of this thread could take it: the release and the acquire must be morally
    // strong, and an acquire's scope is cta, gpu or sys.
    Who a{reader.tid, reader.cta, reader.host, Scope::Cta};
    View* gl;
    View* lc;
    if (!reader.host && strong(rel->head, a)) {
      gl = &ts.pend.any;
      lc = &pl->p.any;
    } else if (a.scope = Scope::Gpu, !reader.host && strong(rel->head, a)) {
      gl = &ts.pend.gpu;
      lc = &pl->p.gpu;
    } else if (a.scope = Scope::Sys, strong(rel->head, a)) {
      gl = &ts.pend.sys;
      lc = &pl->p.sys;
    } else {
      continue;  // no acquire of this thread synchronizes with it
    }
    gl->join(rel->view);
    lc->join(rel->view);
    ts.pend.has = pl->p.has = true;
  }
  pl->held_msg = msg;
  pl->held_rels = rels.size();
}

void RelaxedModel::acquire_pending_loc(ThreadState& ts, const Who& acq, uint64_t key) {
  for (ThreadState::PendLoc& p : ts.pend_loc)
    if (p.key == key && p.p.has) {
      ts.view.join(p.p.any);
      if (acq.host || acq.scope == Scope::Gpu || acq.scope == Scope::Sys) ts.view.join(p.p.gpu);
      if (acq.host || acq.scope == Scope::Sys) ts.view.join(p.p.sys);
    }
}

void RelaxedModel::acquire_pending_all(ThreadState& ts, const Who& acq) {
  if (!ts.pend.has) return;
  ts.view.join(ts.pend.any);
  if (acq.host || acq.scope == Scope::Gpu || acq.scope == Scope::Sys) ts.view.join(ts.pend.gpu);
  if (acq.host || acq.scope == Scope::Sys) ts.view.join(ts.pend.sys);
}

void RelaxedModel::take_read(Loc& L, uint32_t i, ThreadState& ts, const Who& r, uint64_t key, bool acquire, int ev,
                             bool reduction) {
  Msg& m = L.msgs[i];
  // (a held-back load before a store to its location that its plan ran early: that store is after
  // it in program order, so what reaches this read is what reached the thread before the store,
  // as readable() took it; the thread's reach, which the store joined, is for its later accesses)
  const ThreadState::Early* later = ts.own_later(key);
  const bool before_own_later = later != nullptr;
  const uint64_t reach_before = later ? later->reach_before : 0;
  if (i + 1 != L.msgs.size()) ++stale_reads_;
  const bool obs = strong(m.writer, r);  // observation: a morally strong read of the write
  // (what this read observed reaches the held-back reads after it that come before those stores
  // too: the load's, then a later held-back load's)
  if (later && obs)
    for (ThreadState::Early& e : ts.early_stores)
      if (e.key == key && ts.plan_pos < e.pos) e.reach_before |= m.anc | bit(m.slot);
  // Sequential consistency per location: what reaches the read now.
  uint64_t* reach = L.reach_of(r);
  if (!reach) {
    if (L.reach.size() >= kMaxReach) {
      collapse(L);
      return take_read(L, uint32_t(L.msgs.size() - 1), ts, r, key, acquire, ev, reduction);
    }
    L.reach.push_back({r.tid, r.host, 0});
    reach = &L.reach.back().mask;
  }
  if (obs) *reach |= m.anc | bit(m.slot);
  if (L.msgs.size() > 1) {
    // Who read it, for the from-read edges of writes placed after it later.
    const uint64_t mask = before_own_later ? reach_before | (obs ? m.anc | bit(m.slot) : 0) : *reach;
    bool merged = false;
    for (Msg::Reader& rd : m.readers)
      if (rd.any || (rd.who.tid == r.tid && rd.who.host == r.host && rd.who.scope == r.scope)) {
        rd.mask |= mask;
        merged = true;
        break;
      }
    if (!merged) {
      if (m.readers.size() >= kMaxReaders) {
        Msg::Reader all;
        all.any = true;
        for (const Msg::Reader& rd : m.readers) all.mask |= rd.mask;
        all.mask |= mask;
        m.readers.assign(1, all);
      } else {
        m.readers.push_back({r, mask, false});
      }
    }
  }
  if (m.early) ts.view.raise(read_of_early(key), m.key);
  if (obs) {
    ts.view.raise(key, m.key);
    if (acquire)
      acquire_from(ts, r, m.rels);
    else if (!reduction)  // (a reduction's read forms no acquire pattern with what follows)
      hold_pending(ts, r, key, m.key, m.rels);
  }
  // Acquire pattern: an acquire takes what earlier morally strong reads of its location observed.
  if (acquire) acquire_pending_loc(ts, r, key);
  // A store run early after a release or fence its plan made early, read by a read that may
  // acquire it (now or later, in the release's scope): what follows that release in causality
  // order may now run (ThreadState::PlanRel).
  if (m.early && obs && !plan_rels_.empty() && !m.rels.empty() && (acquire || read_may_acquire_) &&
      !same_thread(m.writer, r))
    for (ThreadState* p : plan_rels_) {
      if (p->plan_who.tid != m.writer.tid || p->plan_who.host != m.writer.host) continue;
      for (const ThreadState::Early& e : p->early_stores)
        if (e.key == key && e.msg_key == m.key)
          for (size_t k = p->plan_rels_done; k < p->plan_rels.size(); ++k)
            if (p->plan_rels[k].release && p->plan_rels[k].pos <= e.pos && includes(p->plan_rels[k].who, r))
              p->plan_rels[k].taken = true;
    }
  if (rec_ && ev >= 0) {
    rec_->x.rf[size_t(ev)] = m.event;
    rec_->x.events[size_t(ev)].reduction = reduction;
  }
}

uint64_t RelaxedModel::load(const MemThread& t, uint64_t key, uint32_t size, uint64_t latest, MemOrder o,
                            uint64_t now) {
  forget_old(now);
  read_version_ = 0;
  Loc* L = history(key, size, latest, now, false);
  const bool acquire = is_acquire(o.sem);
  ThreadState& ts = thread(t);
  if (!L && !rec_ && !acquire) return latest;  // no recent write: memory's value, nothing to learn
  const Who r = who(t, o);
  const int ev = rec_read(t, r, key, acquire, latest);
  if (!L) {
    if (acquire) acquire_pending_loc(ts, r, key);
    if (rec_ && ev >= 0) rec_->x.rf[size_t(ev)] = rec_->last_write(key);
    return latest;
  }
  readable(*L, ts, r, key, acquire, now, &scratch_, o.no_acquire_after && !acquire,
           o.no_release_after && !is_release(o.sem));
  read_may_acquire_ = !o.no_acquire_after || acquire;
  const uint32_t newest = uint32_t(L->msgs.size() - 1);
  if (scratch_.empty()) {
    ++dead_ends_;
    scratch_.push_back(newest);
  }
  const uint32_t i = pick(scratch_, newest, t, *L, key);
  const uint64_t v = L->msgs[i].value;
  read_version_ = i == newest ? 0 : L->msgs[i].key;
  take_read(*L, i, ts, r, key, acquire, ev);
  if (rec_ && ev >= 0) rec_->x.events[size_t(ev)].value = v;
  return v;
}

// ---- writes ---------------------------------------------------------------------------------------

uint64_t RelaxedModel::anc_of_new(const Loc& L, const ThreadState& ts, const Who& w, uint32_t after,
                                  const uint64_t* reach) const {
  // What reaches a write put after message `after`: the thread's earlier accesses (program
  // order), the morally strong writes before it (coherence order), and the morally strong reads
  // of messages before it (from-read).
  uint64_t a = reach ? *reach : L.reach_mask(w);
  for (uint32_t i = 0; i <= after; ++i) {
    const Msg& m = L.msgs[i];
    if (strong(m.writer, w)) a |= m.anc | bit(m.slot);
    for (const Msg::Reader& rd : m.readers)
      if (rd.any || strong(rd.who, w)) a |= rd.mask;
  }
  return a;
}

// What may_place asks of a location about one writer, computed once for all the places tried
// (the location does not change meanwhile): per message, whether it is morally strong with the
// writer or some scope instance covers both, where a read-modify-write's read was, and what
// reaches a write put after it (anc_of_new); per coherence key, which messages a write put after
// each one comes after (co_before_new).
struct RelaxedModel::Places {
  static constexpr size_t kMax = 64;
  const Loc& L;
  const Who& w;
  size_t n;
  bool strong_w[kMax], covered_w[kMax];
  int src[kMax];  // (a read-modify-write's message) the index of the message its read read; -1: none there
  bool known = false, anc_known = false, before_known = false;
  uint64_t anc[kMax];  // anc_of_new(L, ts, w, i)
  uint64_t before[kMax];
  uint64_t before_vkey = 0;
  // What reached the writer's accesses of the location before this one: its reach there (looked up
  // only when anc_of_new needs it), or (a held-back write before a store of its plan run early)
  // what reached them before that store.
  const uint64_t* reach_before;

  Places(const Loc& loc, const Who& writer, const uint64_t* reach = nullptr)
      : L(loc), w(writer), n(loc.msgs.size()), reach_before(reach) {
    assert(n <= kMax);
  }
  void know() {
    if (known) return;
    for (size_t i = 0; i < n; ++i) {
      const Msg& m = L.msgs[i];
      strong_w[i] = strong(w, m.writer);
      covered_w[i] = covered(w, m.writer);
      src[i] = !m.rmw ? -1 : m.rmw_src < 0 ? 0 : L.index_of_slot(m.rmw_src);
    }
    known = true;
  }
  uint64_t anc_of_new(uint32_t after) {
    if (!anc_known) {
      uint64_t a = reach_before ? *reach_before : L.reach_mask(w);
      for (size_t i = 0; i < n; ++i) {
        const Msg& m = L.msgs[i];
        if (strong_w[i]) a |= m.anc | bit(m.slot);
        for (const Msg::Reader& rd : m.readers)
          if (rd.any || strong(rd.who, w)) a |= rd.mask;
        anc[i] = a;
      }
      anc_known = true;
    }
    return anc[after];
  }
  uint64_t co_before_new(uint32_t after, uint64_t vkey) {
    if (!before_known || before_vkey != vkey) {
      uint64_t b = 0;
      for (size_t i = 0; i < n; ++i) {
        const Msg& m = L.msgs[i];
        if (m.base || m.key <= vkey || covered_w[i]) b |= bit(m.slot) | m.co_before;
        before[i] = b;
      }
      before_vkey = vkey;
      before_known = true;
    }
    return before[after];
  }
};

bool RelaxedModel::may_place(Places& P, uint32_t after, int rmw_read_index, uint64_t vkey) const {
  const Loc& L = P.L;
  const size_t n = P.n;
  if (after + 1 < n && L.msgs[after + 1].key - L.msgs[after].key < 2) return false;  // no key between them
  if (rmw_read_index >= 0 || after + 1 < n) P.know();
  if (rmw_read_index >= 0) {
    // Atomicity: no morally strong write between the read's message and the write.
    for (size_t k = size_t(rmw_read_index) + 1; k <= after; ++k)
      if (P.strong_w[k]) return false;
    // Before the message it read: only when they are not morally strong (else the read, its
    // write and that message make a cycle; may_place's reach test below finds it too).
    if (after < size_t(rmw_read_index) && P.strong_w[size_t(rmw_read_index)]) return false;
  }
  if (after + 1 == n) return true;  // at the end: nothing after it to close a cycle or split
  // The host's writes may be read-modify-writes (the model sees only the values memory took): each
  // is taken to have read the message before it, so a write morally strong with the host (system
  // scope) may not go just before one.
  if (L.msgs[after + 1].writer.host && P.strong_w[after + 1]) return false;
  // Atomicity of the read-modify-writes already there: not between one's read and its write.
  for (size_t k = after + 1; k < n; ++k)
    if (P.src[k] >= 0 && size_t(P.src[k]) <= after && P.strong_w[k]) return false;
  // Sequential consistency per location: no morally strong write after it may reach it.
  const uint64_t anc = P.anc_of_new(after);
  for (size_t k = after + 1; k < n; ++k)
    if (P.strong_w[k] && (anc & bit(L.msgs[k].slot))) return false;
  // No new order between the messages there: a write before it and a write after it that coherence
  // order left unordered stay so (reads made since may rely on it).
  const uint64_t before = P.co_before_new(after, vkey);
  for (size_t k = after + 1; k < n; ++k)
    if (P.covered_w[k] && (before & ~L.msgs[k].co_before)) return false;
  return true;
}

uint64_t RelaxedModel::co_before_new(const Loc& L, const Who& w, uint32_t after, uint64_t vkey) const {
  uint64_t before = 0;
  for (uint32_t i = 0; i <= after; ++i) {
    const Msg& m = L.msgs[i];
    if (m.base || m.key <= vkey || covered(m.writer, w)) before |= bit(m.slot) | m.co_before;
  }
  return before;
}

RelList RelaxedModel::releases_for_write(ThreadState& ts, const Who& w, uint64_t key, bool release,
                                         const Msg* rmw_read) {
  RelList rels;
  auto add = [&](const ReleaseRef& r) {
    if (!r) return;
    for (ReleaseRef& have : rels)
      if (have->head.cta == r->head.cta && have->head.host == r->head.host && have->head.scope == r->head.scope) {
        // (A release whose view already holds the other's is their join: a read-modify-write
        // chain's messages then share one release, and readers holding it need not join it again.)
        if (have == r || have->view.covers(r->view)) return;
        if (r->head.tid == have->head.tid && r->view.covers(have->view)) {
          have = r;
          return;
        }
        auto merged = std::make_shared<Release>(*have);
        merged->view.join(r->view);
        merged->joined_others = merged->joined_others || r->joined_others || r->head.tid != have->head.tid;
        have = merged;
        return;
      }
    rels.push_back(r);
  };
  // Release patterns (PTX ISA, "Release and acquire patterns"): a release write; a release
  // fence before the write; an earlier release to this location by this thread.
  if (release) {
    auto own = std::make_shared<Release>();
    own->view = ts.known();
    own->head = w;
    if (w.scope == Scope::Sys && !w.host) sys_released_.join(own->view);  // (for the host: sync_host)
    add(own);
  }
  for (ThreadState::RelLoc& rl : ts.rel_loc)
    if (rl.key == key) add(rl.rel);
  for (const ReleaseRef& r : ts.rel_always) add(r);
  for (const ReleaseRef& r : ts.fence_rel) add(r);
  // A read-modify-write continues what the message it read carried, when it observed it
  // (observation.rmw.observation in observation: release sequences).
  if (rmw_read && strong(rmw_read->writer, w))
    for (const ReleaseRef& r : rmw_read->rels) add(r);
  if (release) {
    // Later writes of this thread to the location carry this release too.
    ThreadState::RelLoc* slot = nullptr;
    for (ThreadState::RelLoc& rl : ts.rel_loc)
      if (rl.key == key) slot = &rl;
    if (!slot) {
      slot = &ts.rel_loc[ts.rel_loc_next++ % 2];
      if (slot->rel) ts.rel_always.push_back(slot->rel);  // (more writes carry it than must: only more order)
    }
    slot->key = key;
    slot->rel = rels.front();
  }
  return rels;
}

uint32_t RelaxedModel::place(Loc& L, uint64_t key, ThreadState& ts, const Who& w, uint32_t after, uint64_t value,
                             bool rmw, int rmw_src, uint64_t now, RelList&& rels, const uint64_t* reach_before) {
  const size_t n = L.msgs.size();
  const bool at_end = after + 1 == n;
  const uint64_t anc = anc_of_new(L, ts, w, after, reach_before);
  Msg m;
  m.value = value;
  m.key = at_end ? new_end_key() : L.msgs[after].key + (L.msgs[after + 1].key - L.msgs[after].key) / 2;
  m.created = now;
  m.writer = w;
  m.slot = uint8_t(free_slot(L));
  m.rmw = rmw;
  m.rmw_src = int8_t(rmw_src);
  m.anc = anc;
  m.rels = std::move(rels);
  if (!L.spare_readers.empty()) {
    m.readers = std::move(L.spare_readers.back());
    L.spare_readers.pop_back();
  }
  if (at_end) {
    L.msgs.back().superseded_at = now;
  } else {
    m.superseded_at = now;
    ++early_stores_;
  }
  const uint64_t succ_and_self = bit(m.slot) | anc;
  L.msgs.insert(L.msgs.begin() + long(after) + 1, std::move(m));
  const uint32_t idx = after + 1;
  if (!at_end) {
    // Whatever the morally strong writes after it reach, it now reaches too.
    uint64_t S = 0;
    for (size_t k = idx + 1; k < L.msgs.size(); ++k)
      if (strong(w, L.msgs[k].writer)) S |= bit(L.msgs[k].slot);
    if (S) {
      for (size_t k = 0; k < L.msgs.size(); ++k) {
        if (k == idx) continue;
        Msg& mk = L.msgs[k];
        if ((bit(mk.slot) | mk.anc) & S) mk.anc |= succ_and_self;
        for (Msg::Reader& rd : mk.readers)
          if (rd.mask & S) rd.mask |= succ_and_self;
      }
      for (Loc::Reach& r : L.reach)
        if (r.mask & S) r.mask |= succ_and_self;
    }
  }
  uint64_t* reach = L.reach_of(w);
  if (!reach) {
    L.reach.push_back({w.tid, w.host, 0});
    reach = &L.reach.back().mask;
  }
  *reach |= succ_and_self;
  ts.own.raise(key, L.msgs[idx].key);
  return idx;
}

void RelaxedModel::order(Loc& L, uint32_t idx, uint64_t vkey) {
  const size_t n = L.msgs.size();
  Msg& w = L.msgs[idx];
  const uint64_t before = idx ? co_before_new(L, w.writer, idx - 1, vkey) : 0;
  w.co_before = before;
  const uint64_t wbit = bit(w.slot);
  for (size_t j = idx + 1; j < n; ++j) {
    Msg& m = L.msgs[j];
    // (another thread's store run early that a held-back write of its plan will go before: this
    // write comes before it too, so that the held-back write may follow this one, or what follows
    // it, and still go before the store without putting two unordered writes in order)
    const bool before_late = m.before_late && !same_thread(m.writer, w.writer);
    if (covered(w.writer, m.writer) || before_late) m.co_before |= wbit | before;
    // (closed: what comes before a message before m comes before m)
    for (size_t i = 0; i < j; ++i)
      if (m.co_before & bit(L.msgs[i].slot)) m.co_before |= L.msgs[i].co_before;
  }
  if (rec_ && w.event >= 0) {
    for (size_t i = 0; i < n; ++i) {
      const Msg& m = L.msgs[i];
      if (m.event < 0 || i == idx) continue;
      if (w.co_before & bit(m.slot)) rec_->co_edges.push_back({uint32_t(m.event), uint32_t(w.event)});
      if (m.co_before & wbit) rec_->co_edges.push_back({uint32_t(w.event), uint32_t(m.event)});
    }
  }
}

void RelaxedModel::retire(const Msg& m) {
  if (rec_ && m.event >= 0) rec_->retired.emplace(uint32_t(m.event), uint32_t(rec_->x.events.size()));
}

uint64_t RelaxedModel::write_common(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest,
                                    MemOrder o, uint64_t now, bool rmw, bool* newest) {
  *newest = true;
  write_version_ = 0;
  forget_old(now);
  Loc* L = history(key, size, latest, now, true);
  const Who w = who(t, o, rmw);
  ThreadState& ts = thread(t);
  const int ev = rec_write(t, w, key, is_release(o.sem), value);
  if (!L) {
    if (rec_ && ev >= 0) {
      // (a location outside the model: its writes in the order they ran)
      rec_->co[key].push_back(uint32_t(ev));
      rec_->retired.emplace(uint32_t(ev), uint32_t(ev + 1));
    }
    return 0;
  }
  // (a read-modify-write's read message may be the oldest and leave here: its reads-from stays
  // recorded)
  if (L->msgs.size() == kMaxMsgs) drop_oldest(*L, key);
  const bool own_rmw = rmw && rmw_.key == key;  // the write of the read-modify-write rmw_ read for
  const size_t n = L->msgs.size();
  int rmw_read_index = -1;
  const Msg* rmw_read_msg = nullptr;
  if (own_rmw) {
    for (size_t i = 0; i < n; ++i)
      if (L->msgs[i].key == rmw_.read_msg_key) rmw_read_index = int(i);
    if (rmw_read_index >= 0) rmw_read_msg = &L->msgs[size_t(rmw_read_index)];
  }
  // (an early store that waits for a release gets it at end_late)
  const bool release_now = is_release(o.sem) && !(ts.early && ts.plan_hidden);
  RelList rels = releases_for_write(ts, w, key, release_now, rmw_read_msg);
  if (release_now && ts.early && !t.host) {
    // A release run early with only loads held back before it (load_buffering.cpp).
    ThreadState::PlanRel e;
    e.who = w;
    e.release = true;
    e.key = key;
    for (const ThreadState::RelLoc& rl : ts.rel_loc)
      if (rl.key == key) e.rel = rl.rel;
    ts.plan_rels.push_back(std::move(e));
    add_plan_rel(t, ts);
  }
  // Coherence: after the newest write of the causal past (and after what a read-modify-write read).
  const uint64_t vkey = rmw_read_index >= 0 ? std::min(ts.view.get(key), rmw_.view_key) : ts.view.get(key);
  const size_t lo = L->lowest_place(vkey);
  // A held-back write before a store of its location that its plan ran early: program order puts
  // it before that store in coherence order, so it goes before the store's message; what reaches
  // it there is what reached the thread's accesses of the location before that store, with what
  // the held-back reads before it observed (Early::reach_before), not the store itself.
  size_t end = n;
  uint64_t before_reach = 0;
  const ThreadState::Early* before_early = ts.own_later(key);
  if (before_early) {
    before_reach = before_early->reach_before;
    end = L->index_of_key(before_early->msg_key);
    if (end == n) end = 0;  // (the store left the history: no place is known to be before it)
  }
  // Another thread's store run early that a held-back write of its plan will go before
  // (Msg::before_late): a write that may go before it does, where it can, so that the held-back
  // write is not left with nothing to read and no place (a read-modify-write that read a message
  // before that store and wrote after it would keep it from every place between them).
  size_t room = n;
  if (!before_early)
    for (size_t i = lo + 1; i < n && room == n; ++i)
      if (L->msgs[i].before_late && !same_thread(L->msgs[i].writer, w)) room = i;
  // (A read-modify-write's write usually follows the message its read read; it may also come
  // before it, when the two are not morally strong and nothing else orders them.)
  std::vector<uint32_t>& cand = scratch_;
  cand.clear();
  {
    Places P(*L, w, before_early ? &before_reach : nullptr);
    for (size_t after = lo; after < end; ++after)
      if (may_place(P, uint32_t(after), rmw_read_index, ts.early ? ~0ull : vkey)) cand.push_back(uint32_t(after));
  }
  if (room < n) {
    size_t k = 0;
    while (k < cand.size() && cand[k] < room) ++k;
    if (k > 0) cand.resize(k);
  }
  if (before_early && cand.empty()) ++dead_ends_;  // (rmw_read and the plan leave one: see dead_ends())
  uint32_t after = uint32_t(n - 1);
  if (!cand.empty()) {
    const bool end_ok = cand.back() == n - 1;
    // Usually at the end; sometimes (and never for a store run early, see begin_early) before
    // newer messages.
    // (aim_: the end when the value is the final one wanted, before newer messages when another is)
    const int wish = aim_ && cand.size() > 1 && end_ok && !ts.early ? aim_->wants_final(key, value) : -1;
    if (wish >= 0 && random(8) != 0) {
      if (wish == 0) after = cand[random(cand.size() - 1)];
    } else if (!end_ok || (cand.size() > 1 && !ts.early && random(16) >= end_rate(t))) {
      after = cand[random(end_ok ? cand.size() - 1 : cand.size())];
    }
  }
  const int src_slot = rmw_read_msg ? rmw_read_msg->slot : -1;
  // (a store run early: what reached the location before it; for a read-modify-write, before its
  // read, which came first)
  const uint64_t reach_before = !ts.early ? 0 : own_rmw ? rmw_.reach_before : L->reach_mask(w);
  const uint32_t idx =
      place(*L, key, ts, w, after, value, rmw, src_slot, now, std::move(rels), before_early ? &before_reach : nullptr);
  L->msgs[idx].event = ev;
  // (it reaches the held-back reads after it that come before those stores too)
  if (before_early)
    for (ThreadState::Early& e : ts.early_stores)
      if (e.key == key && ts.plan_pos < e.pos) e.reach_before |= L->msgs[idx].anc | bit(L->msgs[idx].slot);
  if (rec_ && ev >= 0) {
    // Its place in the recorded linear extension of coherence order: right after the nearest
    // recorded message it follows here, else after the writes that left the history.
    std::vector<uint32_t>& co = rec_->co[key];
    int prev = -1;
    for (uint32_t i = idx; i-- > 0 && prev < 0;) prev = L->msgs[i].event;
    auto it = co.begin();
    if (prev >= 0) {
      it = std::find(co.begin(), co.end(), uint32_t(prev));
      if (it != co.end()) ++it;
    } else {
      for (auto k = co.begin(); k != co.end(); ++k)
        if (rec_->retired.count(*k)) it = k + 1;
    }
    co.insert(it, uint32_t(ev));
  }
  // (A store run early goes after every message there: the acquires held back with its plan may
  // still put them before it in causality order.)
  order(*L, idx, ts.early ? ~0ull : vkey);
  if (ts.early) {
    L->msgs[idx].hidden = ts.plan_hidden;
    L->msgs[idx].hidden_scope = ts.plan_hidden_scope;
    L->msgs[idx].early = true;
    L->msgs[idx].before_late = ts.plan_before_write || ts.plan_acquire_rmw;
    L->msgs[idx].hidden_acq = ts.plan_hide_acq;
    ts.early_stores.push_back({key, L->msgs[idx].key, ts.plan_hidden, is_release(o.sem), w, reach_before, own_rmw,
                               own_rmw ? rmw_.read_msg_key : 0, ts.plan_pos});
  }
  *newest = idx + 1 == L->msgs.size();
  write_version_ = L->msgs[idx].key;
  return 0;
}

bool RelaxedModel::store(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest, MemOrder o,
                         uint64_t now) {
  bool newest;
  write_common(t, key, size, value, latest, o, now, false, &newest);
  return newest;
}

uint64_t RelaxedModel::rmw_read(const MemThread& t, uint64_t key, uint32_t size, uint64_t latest, MemOrder o,
                                uint64_t now, bool newest_only, const uint64_t* cas_expected) {
  forget_old(now);
  read_version_ = 0;
  rmw_ = PendingRmw{};
  rmw_.latest = latest;
  Loc* L = history(key, size, latest, now, true);
  const Who r = who(t, o, true);
  ThreadState& ts = thread(t);
  const bool acquire = is_acquire(o.sem);
  const int ev = rec_read(t, r, key, acquire, latest);
  if (!L) {
    if (acquire) acquire_pending_loc(ts, r, key);
    if (rec_ && ev >= 0) rec_->x.rf[size_t(ev)] = rec_->last_write(key);
    rmw_.read_event = ev;
    return latest;
  }
  readable(*L, ts, r, key, acquire, now, &scratch_, false, o.no_release_after && !is_release(o.sem), o.reduction);
  // (held back before a store of its location that its plan ran early: its write goes before that
  // store, write_common; what it reads is readable()'s to choose)
  size_t end = L->msgs.size();
  uint64_t before_reach = 0;
  const ThreadState::Early* before_early = ts.own_later(key);
  if (before_early) {
    before_reach = before_early->reach_before;
    end = L->index_of_key(before_early->msg_key);
    if (end == L->msgs.size()) end = 0;  // (the store left the history: see write_common)
  }
  // Only messages after which the write can go (atomicity, and the write's own constraints).
  std::vector<uint32_t>& cand = rmw_cand_;
  cand.clear();
  Places P(*L, r, before_early ? &before_reach : nullptr);
  const uint64_t mask = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
  for (uint32_t i : scratch_) {
    // A compare-and-swap that would fail on this value writes nothing: no place needed.
    bool any = cas_expected && ((L->msgs[i].value ^ *cas_expected) & mask) != 0;
    const uint64_t vkey = any || ts.early ? ~0ull : view_after_read(ts, L->msgs[i], r, key, acquire);
    // The write goes after the newest write of the thread's causal past once the read is taken
    // (write_common's lower bound, from the view the read leaves): only places from there count.
    size_t lo = 0;
    if (!any) {
      P.know();
      lo = L->lowest_place(ts.early ? view_after_read(ts, L->msgs[i], r, key, acquire) : vkey);
    }
    for (size_t after = lo; after < end && !any; ++after) {
      if (L->msgs[after].key < L->msgs[i].key && P.strong_w[i]) continue;
      // Atomicity (may_place): past a morally strong write after the message read, no place is.
      if (after > i && P.strong_w[after]) break;
      any = may_place(P, uint32_t(after), int(i), vkey);
    }
    if (any) cand.push_back(i);
  }
  const uint32_t newest = uint32_t(L->msgs.size() - 1);
  // A full history drops its oldest message before the write is placed (write_common): a write
  // whose read read that message could no longer be kept next to it, so the oldest is not read.
  if (L->msgs.size() == kMaxMsgs && !cand.empty() && cand.front() == 0 && newest != 0) cand.erase(cand.begin());
  if (cand.empty()) ++dead_ends_;  // (no message both readable and followed by a place: see dead_ends())
  if (cand.empty() || newest_only) cand.assign(1, newest);
  const uint32_t i = pick(cand, newest, t, *L, key);
  const uint64_t v = L->msgs[i].value;
  rmw_.key = key;
  rmw_.latest = L->msgs.back().value;
  rmw_.read_msg_key = L->msgs[i].key;
  read_version_ = i == newest ? 0 : L->msgs[i].key;
  rmw_.who = r;
  rmw_.read_event = ev;
  rmw_.view_key = view_after_read(ts, L->msgs[i], r, key, acquire);
  rmw_.reach_before = ts.early ? L->reach_mask(r) : 0;  // (read only for a store run early)
  read_may_acquire_ = true;                             // (its write carries on what it read)
  take_read(*L, i, ts, r, key, acquire, ev, o.reduction);
  if (rec_ && ev >= 0) rec_->x.events[size_t(ev)].value = v;
  return v;
}

bool RelaxedModel::rmw_write(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, bool wrote, MemOrder o,
                             uint64_t now) {
  if (!wrote) {
    ThreadState& ts = thread(t);
    if (ts.early && ts.plan_acquire_held) ts.early_reads.push_back({key, rmw_.read_msg_key});
    rmw_ = PendingRmw{};
    write_version_ = 0;
    return false;
  }
  bool newest = true;
  const int read_ev = rmw_.read_event;
  write_common(t, key, size, value, rmw_.latest, o, now, true, &newest);
  if (rec_ && read_ev >= 0 && !rec_->x.events.empty()) {
    const uint32_t w = uint32_t(rec_->x.events.size() - 1);
    if (rec_->x.events[w].kind == memory::EventKind::Write) rec_->x.rmw.push_back({uint32_t(read_ev), w});
  }
  rmw_ = PendingRmw{};
  return newest;
}

// ---- fences, barriers, warp synchronization -------------------------------------------------------

void RelaxedModel::fence(const MemThread& t, MemOrder o) {
  ThreadState& ts = thread(t);
  Sem sem = o.sem == Sem::None ? Sem::AcqRel : o.sem;
  const Who f = who(t, MemOrder{Sem::Relaxed, o.scope}, true);
  if (rec_ && rec_->room()) {
    memory::Event e;
    e.kind = memory::EventKind::Fence;
    e.fence = sem == Sem::Sc        ? memory::FenceKind::Sc
              : sem == Sem::Acquire ? memory::FenceKind::Acquire
              : sem == Sem::Release ? memory::FenceKind::Release
                                    : memory::FenceKind::AcqRel;
    e.scope = f.scope;
    const int ev = rec_read(t, f, 0, false, 0);  // (allocates the thread and its program-order slot)
    if (ev >= 0) {
      rec_->x.events[size_t(ev)].kind = e.kind;
      rec_->x.events[size_t(ev)].fence = e.fence;
      rec_->x.events[size_t(ev)].loc = 0;
      rec_->x.rf[size_t(ev)] = -1;
      if (e.fence == memory::FenceKind::Sc) rec_->sc.push_back(uint32_t(ev));
    }
  }
  // The acquire half: what the reads before it observed (acquire patterns), at its scope.
  if (sem != Sem::Release) acquire_pending_all(ts, f);
  if (sem == Sem::Sc) {
    // (a fence.sc run early by another thread's plan that still holds loads back before it comes
    // before this one in Fence-SC order when the two are morally strong: ThreadState::PlanRel)
    for (ThreadState* p : plan_rels_)
      if (p != &ts)
        for (size_t k = p->plan_rels_done; k < p->plan_rels.size(); ++k)
          if (p->plan_rels[k].sc && strong(p->plan_rels[k].who, f)) p->plan_rels[k].taken = true;
    // Fence-SC order: each fence.sc comes after the morally strong fence.sc before it, and takes
    // what they knew. Joined views per who may take them.
    if (t.host) {
      ts.view.join(sc_sys_);
      sc_sys_.join(ts.known());
    } else {
      View& cta = sc_cta_[t.cta];
      ts.view.join(cta);
      if (f.scope != Scope::Cta) ts.view.join(sc_gpu_);
      if (f.scope == Scope::Sys) ts.view.join(sc_sys_);
      join_sc(t, f.scope, ts.known());
    }
  }
  // The release half: later writes carry what the thread knows now.
  if (sem != Sem::Acquire) ts.fence_rel[fence_slot(f.scope)] = release_now(ts, f);
  // A fence run early in a load-buffering plan (load_buffering.cpp: only loads are held back
  // before it).
  if (ts.early && !t.host) {
    ThreadState::PlanRel e;
    e.who = f;
    e.fence = true;
    e.sc = sem == Sem::Sc;
    e.acquire = sem != Sem::Release;
    e.release = sem != Sem::Acquire;
    ts.plan_rels.push_back(std::move(e));
    add_plan_rel(t, ts);
  }
}

void RelaxedModel::join_sc(const MemThread& t, Scope scope, const View& k) {
  sc_cta_[t.cta].join(k);
  if (scope != Scope::Cta) sc_gpu_.join(k);
  if (scope == Scope::Sys) sc_sys_.join(k);
}

ReleaseRef RelaxedModel::release_now(const ThreadState& ts, const Who& head) {
  auto rel = std::make_shared<Release>();
  rel->view = ts.known();
  rel->head = head;
  if (head.scope == Scope::Sys && !head.host) sys_released_.join(rel->view);  // (for the host: sync_host)
  return rel;
}

void RelaxedModel::add_plan_rel(const MemThread& t, ThreadState& ts) {
  ts.plan_rels.back().pos = ts.plan_pos;
  ts.plan_rels.back().known = ts.known();
  if (ts.plan_rels.size() == 1) {
    plan_rels_.push_back(&ts);
    ts.plan_who = Who{t.id, t.cta, t.host, Scope::Thread};
  }
  ts.plan_first_rel = std::min(ts.plan_first_rel, ts.plan_rels.back().pos);
}

void RelaxedModel::plan_release_late(const MemThread& t, ThreadState& ts, uint32_t pos) {
  // The held-back loads before a release or fence run early have run (those before `pos`): a
  // fence's acquire half takes the releases they read (acquire pattern); a fence.sc's place in
  // Fence-SC order passes on what they observed to the fence.sc after it; and a release, carried
  // by the thread's later writes (the plan's early stores too, end_late), now holds it too. (More
  // than the release knew in program order: what the thread learned since; that only orders more.)
  if (ts.plan_view_swapped && !ts.plan_rels.empty() && ts.plan_rels.front().pos < pos) {
    ts.view.join(ts.plan_view_after);
    ts.plan_view_swapped = false;
  }
  for (; ts.plan_rels_done < ts.plan_rels.size() && ts.plan_rels[ts.plan_rels_done].pos < pos; ++ts.plan_rels_done) {
    const ThreadState::PlanRel& e = ts.plan_rels[ts.plan_rels_done];
    const Who& f = e.who;
    if (e.fence && e.acquire) acquire_pending_all(ts, f);
    if (e.sc) join_sc(t, f.scope, ts.view);
    if (!e.release) continue;
    ReleaseRef rel = release_now(ts, f);
    if (e.fence) {
      ts.fence_rel[fence_slot(f.scope)] = std::move(rel);
    } else {
      // (release pattern 2: the thread's later writes to the location carry it)
      for (ThreadState::RelLoc& rl : ts.rel_loc)
        if (rl.rel == e.rel) rl.rel = rel;
      for (ReleaseRef& r : ts.rel_always)
        if (r == e.rel) r = rel;
    }
  }
  if (ts.plan_rels_done == ts.plan_rels.size() && !ts.plan_rels.empty()) {
    ts.plan_rels.clear();
    ts.plan_rels_done = 0;
    plan_rels_.erase(std::find(plan_rels_.begin(), plan_rels_.end(), &ts));
  }
}

void RelaxedModel::barrier_arrive(const MemThread& t, uint32_t barrier) {
  const uint64_t k = t.cta << 8 | barrier;
  const ThreadState& ts = thread(t);
  if (k != bar_last_k_) {
    bar_last_ = &bar_views_[k];
    bar_last_k_ = k;
    bar_last_view_ = View{};
    bar_last_view_.g = ~0ull;  // (no arrival yet)
  }
  View& bar = *bar_last_;
  if (!ts.view.same(bar_last_view_)) {  // (joining a view already joined adds nothing)
    bar.join(ts.view);                  // (its known(), without the copy)
    bar_last_view_ = ts.view;
  }
  bar.join(ts.own);
  if (rec_ && rec_->room()) {
    auto inst = rec_->bar_instance.emplace(k, rec_->next_instance);
    if (inst.second) ++rec_->next_instance;
    const int ev = rec_read(t, Who{t.id, t.cta, t.host, Scope::Cta}, 0, false, 0);
    if (ev >= 0) {
      memory::Event& e = rec_->x.events[size_t(ev)];
      e.kind = memory::EventKind::BarrierArrive;
      e.barrier = inst.first->second;
      e.loc = 0;
    }
  }
}

void RelaxedModel::barrier_release(uint64_t cta, uint32_t barrier, const std::vector<uint64_t>& ids, bool whole_block,
                                   bool waited) {
  const uint64_t k = cta << 8 | barrier;
  View all;
  if (auto it = bar_views_.find(k); it != bar_views_.end()) {
    all = it->second;
    bar_views_.erase(it);
  }
  if (bar_last_k_ == k) {
    bar_last_k_ = ~0ull;
    bar_last_ = nullptr;
  }
  uint32_t instance = 0;
  bool have_instance = false;
  if (rec_) {
    if (auto it = rec_->bar_instance.find(k); it != rec_->bar_instance.end()) {
      instance = it->second;
      have_instance = true;
      rec_->bar_instance.erase(it);
    }
  }
  if (whole_block) {
    // Every write to the block's shared memory was made by one of its threads before the
    // barrier: each thread's causal past now holds all of them, so only the newest value of each
    // location is left to read.
    if (auto it = blocks_.find(cta); it != blocks_.end()) {
      for (uint64_t key : it->second->shared_keys) drop_loc(key);
      it->second->shared_keys.clear();
    }
  }
  // After a whole block's barrier, a thread with no release pending knows exactly what all arrivals
  // knew (its own view and writes were among them): those threads share one release.
  ReleaseRef shared_rel;
  for (uint64_t id : ids) {
    const MemThread t{id, cta, false};
    ThreadState& ts = thread(t);
    // A barrier's wait synchronizes with every arrival, and is an acquire and release fence at
    // block scope (ptx.als: BarrierWait is in FenceAcqs and FenceRels). After a whole block's
    // barrier that the threads waited at, every thread's view is the arrivals' joined view: each
    // arrived with its own view in it and has not run since (a copy, cheaper than the join that
    // gives the same).
    if (whole_block && waited && !ts.early && !ts.late)
      ts.view = all;
    else
      ts.view.join(all);
    const Who f{id, cta, false, Scope::Cta};
    if (whole_block && !ts.pend.has) {
      if (!shared_rel) {
        auto rel = std::make_shared<Release>();
        rel->view = ts.known();
        rel->head = f;
        shared_rel = std::move(rel);
      }
      ts.fence_rel[0] = shared_rel;
    } else {
      acquire_pending_all(ts, f);
      auto rel = std::make_shared<Release>();
      rel->view = ts.known();
      rel->head = f;
      ts.fence_rel[0] = std::move(rel);
    }
    if (rec_ && have_instance) {
      const int ev = rec_read(t, f, 0, false, 0);
      if (ev >= 0) {
        memory::Event& e = rec_->x.events[size_t(ev)];
        e.kind = memory::EventKind::BarrierWait;
        e.barrier = instance;
        e.loc = 0;
      }
    }
  }
}

void RelaxedModel::warp_sync(uint64_t cta, const std::vector<uint64_t>& ids) {
  // As a barrier of those lanes (stronger than the PTX model for shfl, vote, match and redux,
  // which order nothing there; docs/memory-model.md).
  for (uint64_t id : ids) barrier_arrive(MemThread{id, cta, false}, 255);
  barrier_release(cta, 255, ids, false);
}

// ---- load buffering -------------------------------------------------------------------------------

// Program order in the recorded execution: the plan's instructions take the places of their path
// (kPoPerInstr events each: an atom is two, a vector access several), whether they run early or late.
constexpr uint32_t kPoPerInstr = 16;

void RelaxedModel::begin_early(const MemThread& t, uint32_t length, bool acquire_rmw_held, bool acquire_held,
                               bool hide_acq) {
  ThreadState& ts = thread(t);
  ts.plan_acquire_rmw = acquire_rmw_held;
  ts.plan_hide_acq = hide_acq;
  ts.plan_acquire_held = acquire_held;
  ts.plan_view0 = ts.view;
  ts.early = true;
  ts.early_stores.clear();
  ts.early_reads.clear();
  ts.late_po = ts.po;
  ts.po += kPoPerInstr * length;
  ts.saved_po = ts.po;
}

void RelaxedModel::plan_step(const MemThread& t, uint32_t pos, ptx::Scope hidden, bool before_late_write) {
  ThreadState& ts = thread(t);
  if (ts.late && ts.plan_rels_done < ts.plan_rels.size()) plan_release_late(t, ts, pos);
  ts.plan_before_write = before_late_write;
  ts.po = ts.late_po + kPoPerInstr * pos;
  ts.plan_pos = pos;
  ts.plan_hidden = hidden != ptx::Scope::None;
  ts.plan_hidden_scope = ts.plan_hidden ? scope_of(hidden) : Scope::Gpu;
}

void RelaxedModel::end_early(const MemThread& t) {
  ThreadState& ts = thread(t);
  ts.early = false;
  ts.plan_hidden = false;
  ts.po = ts.saved_po;
}

void RelaxedModel::begin_late(const MemThread& t, ptx::Scope fence_acquire) {
  ThreadState& ts = thread(t);
  ts.late = true;
  if (ts.plan_first_rel != ~0u) {
    ts.plan_view_after = ts.view;
    ts.view = ts.plan_view0;
    ts.plan_view_swapped = true;
  }
  ts.saved_po = ts.po;
  ts.late_fence_acquire = fence_acquire != ptx::Scope::None;
  ts.late_fence_scope = scope_of(fence_acquire);
}

void RelaxedModel::end_late(const MemThread& t) {
  ThreadState& ts = thread(t);
  if (!ts.plan_rels.empty()) plan_release_late(t, ts, ~0u);
  const uint32_t first_rel = ts.plan_first_rel;  // (releases made early: see below)
  ts.plan_first_rel = ~0u;
  ts.late = false;
  ts.late_fence_acquire = false;
  // The early stores that waited for a release of the plan get it now (what the thread knows after
  // the plan: more than it knew at each store, which only orders more) and become readable.
  for (const ThreadState::Early& e : ts.early_stores) {
    Loc* L = find(e.key);
    if (!L) continue;
    for (Msg& m : L->msgs)
      if (m.key == e.msg_key) m.early = m.before_late = m.hidden_acq = false;
    if (!e.hidden && e.pos >= first_rel) {
      // A store after a release or fence the plan made early (ThreadState::PlanRel) carries it, and
      // now also what the loads held back before it observed.
      const size_t i = L->index_of_key(e.msg_key);
      if (i < L->msgs.size())
        for (const ReleaseRef& r : releases_for_write(ts, e.who, e.key, e.release, nullptr))
          L->msgs[i].rels.push_back(r);
      continue;
    }
    if (!e.hidden) continue;
    for (Msg& m : L->msgs)
      if (m.key == e.msg_key && m.hidden) {
        m.hidden = false;
        const RelList more = releases_for_write(ts, e.who, e.key, e.release, nullptr);
        for (const ReleaseRef& r : more) m.rels.push_back(r);
      }
  }
  ts.early_stores.clear();
  ts.early_reads.clear();
  ts.po = ts.saved_po;
}

// ---- the rest -------------------------------------------------------------------------------------

bool RelaxedModel::settle() {
  bool any = false;
  for (auto& [key, L] : locs_) {
    if (L->msgs.size() > 1) {
      any = true;
      if (on_visible_) on_visible_(key);
    }
    for (const Msg& m : L->msgs) retire(m);
  }
  locs_.clear();
  std::fill(maybe_.begin(), maybe_.end(), uint16_t(0));
  last_key_ = ~0ull;
  last_loc_ = nullptr;
  written_.clear();
  written_head_ = 0;
  for (auto& [cta, b] : blocks_) b->shared_keys.clear();
  return any;
}

bool RelaxedModel::has_older(uint64_t key) {
  const Loc* L = find(key);
  return L && L->msgs.size() > 1;
}

std::string RelaxedModel::take_not_covered() {
  if (not_covered_taken_) return {};
  not_covered_taken_ = !not_covered_.empty();
  return not_covered_;
}

// ---- recording ------------------------------------------------------------------------------------

int RelaxedModel::rec_read(const MemThread& t, const Who& r, uint64_t key, bool acquire, uint64_t value) {
  if (!rec_ || !rec_->room()) return -1;
  ThreadState& ts = thread(t);
  if (ts.rec_thread < 0) {
    memory::ThreadPlace p;
    p.host = t.host;
    p.cta = t.host ? 0 : uint32_t(t.cta);
    p.warp = t.host ? 0 : uint32_t((t.id - t.cta * tpb_) / 32);
    p.lane = t.host ? 0 : uint32_t((t.id - t.cta * tpb_) % 32);
    ts.rec_thread = int(rec_->x.threads.size());
    rec_->x.threads.push_back(p);
  }
  memory::Event e;
  e.kind = memory::EventKind::Read;
  e.thread = uint32_t(ts.rec_thread);
  e.po = ts.po++;
  e.loc = rec_->loc(key);
  e.scope = r.scope;
  e.acquire = acquire && r.scope != Scope::Thread;
  e.value = value;
  return int(rec_->x.add(e));
}

int RelaxedModel::rec_write(const MemThread& t, const Who& w, uint64_t key, bool release, uint64_t value) {
  const int ev = rec_read(t, w, key, false, value);
  if (ev < 0) return -1;
  memory::Event& e = rec_->x.events[size_t(ev)];
  e.kind = memory::EventKind::Write;
  e.release = release && w.scope != Scope::Thread;
  return ev;
}

const memory::Execution* RelaxedModel::execution() const {
  if (!rec_) return nullptr;
  // Coherence and Fence-SC orders as chains.
  // Coherence order: the edges the model fixed, every two writes one scope instance covers (in
  // the order the model keeps them), and each write that left its history before every write made
  // after that.
  rec_->x.co = rec_->co_edges;
  const auto& ev = rec_->x.events;
  auto who_of = [&](uint32_t e) {
    const memory::ThreadPlace& p = rec_->x.threads[ev[e].thread];
    return Who{ev[e].thread, p.cta, p.host, ev[e].scope};
  };
  for (const auto& [key, order] : rec_->co)
    for (size_t q = 1; q < order.size(); ++q)
      for (size_t p = 0; p < q; ++p) {
        const auto r = rec_->retired.find(order[p]);
        if ((r != rec_->retired.end() && r->second <= order[q]) || covered(who_of(order[p]), who_of(order[q])))
          rec_->x.co.push_back({order[p], order[q]});
      }
  rec_->x.sc.clear();
  for (size_t i = 0; i + 1 < rec_->sc.size(); ++i) rec_->x.sc.push_back({rec_->sc[i], rec_->sc[i + 1]});
  return &rec_->x;
}

std::string RelaxedModel::recording_limit() const {
  if (!rec_ || !rec_->full) return "";
  return fmt::format("the launch made more than {} memory events; the oracle checks the first {}", kRecordLimit,
                     kRecordLimit);
}

}  // namespace synclab::sim::relaxed
