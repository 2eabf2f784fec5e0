// The relaxed memory model (SYNCLAB_MEMORY=relaxed): an operational model whose every execution
// is one the PTX memory model allows (PTX ISA, "Memory Consistency Model"; docs/memory-model.md
// gives each rule with its source), rich enough to produce the weak outcomes the course teaches:
// a load that reads an old value (message passing without a fence), two threads that each miss
// the other's store (store buffering), observers that disagree on the order of two writes
// (IRIW), and writes that land in coherence order before writes that happened earlier (2+2W).
//
// How it works. Memory holds, as always, the newest value of every location in coherence order.
// Beside it, each location written in the last few thousand steps keeps its recent history: its
// messages (writes) in coherence order, each numbered in the order the run made them (`stamp`)
// and carrying what its writer had released. Each thread has a view: `g`, a stamp below which it
// has seen everything (messages older in coherence than the newest one it may not miss), and for
// the locations it read or wrote, a floor it may not read below (coherence: CoRR, CoWR, CoRW).
//   - A load reads any message of the location at or after the thread's lower bound: the newest
//     with probability 1/2, else one chosen at random (the seed decides; a run replays exactly).
//   - A relaxed or plain store goes after the thread's lower bound: at the end of the history
//     (it becomes memory's value), or, sometimes, between older messages (it is then already
//     overwritten in coherence order). A read-modify-write reads the newest message and goes
//     right after it (atomicity), so atomics never lose updates.
//   - Synchronization carries views at its scope: a release (st.release, or a release fence
//     before a store) stamps the message with what the writer knew; an acquire that reads it
//     (ld.acquire, or a read followed by an acquire fence) raises the reader's `g` to that, when
//     the two scopes each include the other thread (a .cta scope: the same block). fence.sc also
//     joins a global view per scope (SB+fences). __syncthreads() and __syncwarp() join their
//     participants' views; a launch starts from memory as the previous one left it.
// Views are kept coarse (one stamp per thread plus a few floors): the coarseness only forbids
// more, never allows what PTX forbids. Old messages are forgotten after a window of steps, and a
// suspected hang first makes every location's newest value the only one (settle()), after which
// every spinner must show again that it spins (KernelRun::check_progress): a spinning thread is
// never kept from a value forever.
//
// Load buffering (a load that takes effect after a later store of its thread) is made by the
// interpreter (KernelRun::reorder_load), not here. Not modelled (docs/memory-model.md): accesses
// wider than 8 bytes (split into their elements); mixed-size accesses to one location are
// reported as not covered and make that location sequentially consistent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/ptx/ir.h"

namespace synclab::sim {

class RelaxedMemory {
 public:
  // The thread an access comes from: its block and its global number in the launch.
  struct Thread {
    uint64_t cta;
    uint64_t id;  // cta * threads_per_block + thread index in the block
  };
  // The memory order of an access, read from its instruction.
  struct Order {
    ptx::Sem sem = ptx::Sem::None;
    ptx::Scope scope = ptx::Scope::None;
  };

  RelaxedMemory(uint64_t seed, uint32_t threads_per_block);

  // Replay (sim/sched/replay_scheduler.h): who may choose the value a load reads instead of the
  // seed. choose(lane, n): lane (0..31 of its warp) loads from a location where n > 1 values are
  // readable; returns k (read the k-th newest, 0 = memory's value) or -1 to let the seed decide.
  struct ReadChooser {
    virtual ~ReadChooser() = default;
    virtual int64_t choose_read(uint32_t lane, size_t n) = 0;
  };
  void set_read_chooser(ReadChooser* c) { chooser_ = c; }

  // A block starts or finishes: its threads' views are made or dropped.
  void start_block(uint64_t cta);
  void end_block(uint64_t cta);

  // A load of `size` bytes (1, 2, 4 or 8) at `key` (the generic address; shared memory: a key
  // per block) whose newest value, in memory, is `latest`. Returns the value the load reads.
  uint64_t load(const Thread& t, uint64_t key, uint32_t size, uint64_t latest, Order o, uint64_t now) {
    // Most loads find no recent write of their location: memory's value, nothing to remember.
    forget_old(now);
    return has_history(key) ? load_recent(t, key, size, latest, o, now) : latest;
  }
  // A store of `value`; `latest` is memory's value before it. Returns true when the store is the
  // newest in coherence order (memory must take its value), false when it goes before a newer
  // message (memory keeps `latest`).
  bool store(const Thread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest, Order o, uint64_t now);
  // A read-modify-write that read `old` (memory's value) and wrote `nw` (wrote: false for a
  // compare-and-swap that failed, which only reads).
  void rmw(const Thread& t, uint64_t key, uint32_t size, uint64_t old, uint64_t nw, bool wrote, Order o, uint64_t now);
  // fence.sc / fence.acq_rel (membar is fence.sc) at its scope.
  void fence(const Thread& t, Order o);
  // The threads of `ids` (one block) synchronize: a barrier or __syncwarp(). `also`: what threads
  // that arrived without waiting (bar.arrive) knew.
  // whole_block: every live thread of the block took part (__syncthreads()), so no thread of it
  // can read an older value of the block's shared memory any more.
  void join(uint64_t cta, const std::vector<uint64_t>& ids, uint64_t also = 0, bool whole_block = false);
  // What a thread knows (for a barrier that it arrives at).
  uint64_t knowledge(const Thread& t) {
    const View& v = view(t);
    return std::max(v.g, v.known);
  }

  // Forgets every old message: each location's newest value becomes its only one. True when
  // anything was forgotten (a spin that read old values may now see new ones).
  bool settle();
  // A location accessed with two different sizes, once per launch: what to report (empty: none).
  std::string take_not_covered();

  // For the trace (only when one is recorded): whether a location still has older values some
  // thread may read (its newest write is not yet visible to all), and a call for each location
  // whose older values are all forgotten at once (its newest write became visible to all).
  bool has_older(uint64_t key);
  void on_visible(std::function<void(uint64_t key)> f) { on_visible_ = std::move(f); }

  uint64_t stale_reads() const { return stale_reads_; }    // loads that read an older value
  uint64_t early_stores() const { return early_stores_; }  // stores placed before newer ones
  uint64_t late_loads() const { return late_loads_; }      // loads run after a later store of their thread
  void note_late_load() { ++late_loads_; }                 // (KernelRun::reorder_load)
  uint64_t reorderings() const { return stale_reads_ + early_stores_ + late_loads_; }
  // A choice of the model that the seed decides: uniform in [0, n).
  uint64_t random(uint64_t n);

 private:
  struct Release {
    uint64_t stamp = 0;  // what the releaser knew (0: nothing released)
    uint32_t cta = 0;    // the releaser's block (a launch has fewer than 2^32 blocks)
    ptx::Scope scope = ptx::Scope::None;
    bool rmw = false;  // (of the Message) written by a read-modify-write: nothing may go right before it
  };
  struct Message {
    uint64_t value = 0;
    uint64_t stamp = 0;                   // order of creation in this launch (0: the value the launch found)
    uint64_t superseded_at = UINT64_MAX;  // the step a newer message in coherence order came
    Release rel;
  };
  // A location's last few messages in coherence order (back() is memory's value). When it is
  // full the oldest is forgotten, which only takes a choice away from later loads.
  struct Messages {
    static constexpr uint32_t kMax = 4;
    uint32_t n = 0;  // (first: a new history's count and first two messages share one cache line)
    uint32_t bytes = 0;  // (History::bytes(), kept here beside n)
    Message m[kMax];
    size_t size() const { return n; }
    Message& operator[](size_t i) { return m[i]; }
    const Message& operator[](size_t i) const { return m[i]; }
    Message& back() { return m[n - 1]; }
    const Message& back() const { return m[n - 1]; }
    void drop_oldest() {
      for (uint32_t k = 1; k < n; ++k) m[k - 1] = m[k];
      --n;
    }
    // Room for a new message at the end, or right after message i; the caller fills it in place
    // (a message built elsewhere and copied in costs a stalled copy on every store).
    Message& open_back() {
      if (n == kMax) drop_oldest();
      return m[n++];
    }
    Message& open_after(size_t i) {
      size_t at = i + 1;
      if (n == kMax) {
        drop_oldest();
        at = at ? at - 1 : 0;
      }
      for (size_t k = n; k > at; --k) m[k] = m[k - 1];
      ++n;
      return m[at];
    }
  };
  struct alignas(64) History {
    Messages msgs;
    uint32_t& bytes() { return msgs.bytes; }  // the size of each access to the location
    void reset() {  // an unused history again (reused storage: no construction of its messages)
      msgs.n = 0;
      msgs.bytes = 0;
    }
  };
  struct Floor {
    uint64_t key = ~0ull, stamp = 0;
  };
  struct View {
    uint64_t g = 0;           // every message with a smaller stamp is seen
    uint64_t known = 0;       // the largest stamp read or written (what a release gives)
    uint64_t pend_same = 0;   // released by threads of this block, read but not yet acquired
    uint64_t pend_other = 0;  // released at gpu/sys scope by other blocks, read, not acquired
    Release fence_rel;        // the last release fence (relaxed stores after it carry it)
    static constexpr int kFloors = 8;
    Floor floors[kFloors];  // per location: the stamp of the message last read or written
    uint32_t next_floor = 0;
  };

  // Fills a new message in place: its value, stamp and release; nothing supersedes it yet.
  static void fill(Message& m, uint64_t value, uint64_t stamp, const Release& rel) {
    m.value = value;
    m.stamp = stamp;
    m.superseded_at = UINT64_MAX;
    m.rel.stamp = rel.stamp;
    m.rel.cta = rel.cta;
    m.rel.scope = rel.scope;
    m.rel.rmw = rel.rmw;
  }
  uint64_t load_recent(const Thread& t, uint64_t key, uint32_t size, uint64_t latest, Order o, uint64_t now);
  // Whether the location has a history (find_history's answer, inline for the common "no").
  bool has_history(uint64_t key) {
    if (!(key >> 63)) return !hist_.empty() && hist_.find(key);
    const Block* b = existing_block(key >> 32 & 0x7fffffffu);
    const uint32_t off = static_cast<uint32_t>(key);
    return b && off < b->shared_slot.size() && b->shared_slot[off] >= 0;
  }
  View& view(const Thread& t) { return block(t.cta).views[t.id - t.cta * threads_per_block_]; }
  // The location's history (made on first use), or null when the location is outside the model.
  // create: false for a load, which needs none when nobody wrote the location lately.
  History* history(uint64_t key, uint32_t size, uint64_t latest, uint64_t now, bool create);
  // The first message (index) the thread may read or write after.
  size_t lower_bound(const View& v, const History& h, uint64_t key, uint64_t now) const;
  void set_floor(View& v, uint64_t key, uint64_t stamp);
  void observe(View& v, const Thread& t, const Message& m, Order o);
  Release release_of(const View& v, const Thread& t, Order o, uint64_t own_stamp) const;
  bool syncs(const Release& r, const Thread& t, ptx::Scope acquire_scope) const;
  void forget_old(uint64_t now) {
    if (!written_.empty() && written_.front().first + kWindow < now) forget_older(now);
  }
  void forget_older(uint64_t now);
  static constexpr uint64_t kWindow = 20000;  // steps after which an overwritten message can no longer be read
  // A write to a global location, for forget_old. Shared memory needs none: its block's histories
  // go at each __syncthreads() and when the block ends, and hold at most one history per location
  // in between (lower_bound keeps the window there).
  void remember_write(uint64_t key, uint64_t now) {
    if (!(key >> 63)) written_.emplace_back(now, key);
  }

  uint64_t rng_;
  uint32_t threads_per_block_;
  ReadChooser* chooser_ = nullptr;
  uint64_t next_stamp_ = 1;
  uint64_t sc_gpu_ = 0;                            // the global view of fence.sc at gpu/sys scope
  std::unordered_map<uint64_t, uint64_t> sc_cta_;  // ... at cta scope, per block
  struct Block {
    std::vector<View> views;            // per thread
    std::vector<uint64_t> shared_keys;  // shared-memory locations given a history since the last clear
    // The histories of the block's shared memory: by byte offset, an index into shared_hist or -1.
    std::vector<int32_t> shared_slot;
    std::vector<History> shared_hist;  // the first shared_used are in use (the rest kept for reuse)
    size_t shared_used = 0;
    void clear_shared(const std::function<void(uint64_t)>& visible) {
      for (uint64_t key : shared_keys) {
        int32_t& slot = shared_slot[key & 0xffffffffu];
        if (visible && slot >= 0 && shared_hist[size_t(slot)].msgs.size() > 1) visible(key);
        slot = -1;
      }
      shared_keys.clear();
      shared_used = 0;
    }
  };
  // Histories by location: shared memory in its block, global memory in hist_.
  History* find_history(uint64_t key);
  History& new_history(uint64_t key);
  void drop_history(uint64_t key);
  // The block's state (made on first use); existing_block: null when the block is not resident.
  // The fast paths inline, the lookups out of line.
  Block& block(uint64_t cta) {
    const BlockCache& c = block_cache_[cta & 63];
    return c.cta == cta ? *c.block : *lookup_block(cta, true);
  }
  Block* existing_block(uint64_t cta) {
    const BlockCache& c = block_cache_[cta & 63];
    return c.cta == cta ? c.block : lookup_block(cta, false);
  }
  Block* lookup_block(uint64_t cta, bool create);  // (create false: null when absent)
  std::unordered_map<uint64_t, Block> blocks_;     // per resident block (its address stays while it lives)
  std::vector<Block> spare_blocks_;                 // finished blocks' storage, for the next ones
  // The blocks looked up lately, by block number modulo 64 (accesses come from a few resident blocks).
  struct BlockCache {
    uint64_t cta = ~0ull;
    Block* block = nullptr;
  };
  BlockCache block_cache_[64];
  // The histories by location: open addressing with linear probing (a lookup per access, and
  // locations come and go at every __syncthreads(): no allocation per location).
  class HistoryMap {
   public:
    History* find(uint64_t key);
    History& insert(uint64_t key);  // key must not be present
    void erase(uint64_t key);
    void clear();
    bool any_older() const;  // some location has more than one message
    bool empty() const { return used_ == 0; }
    template <class F>
    void for_each(F f) const {  // f(key, history) for every location
      for (const Slot& s : slots_)
        if (s.key != kEmpty) f(s.key, pool_[s.index]);
    }

   private:
    static constexpr uint64_t kEmpty = ~0ull;
    struct Slot {
      uint64_t key = kEmpty;
      uint32_t index = 0;  // into pool_
    };
    size_t home(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ull) >> shift_; }
    void grow();
    std::vector<Slot> slots_;
    std::vector<History> pool_;
    std::vector<uint32_t> free_;  // pool_ entries not in use
    size_t used_ = 0;
    unsigned shift_ = 64;
  };
  HistoryMap hist_;
  std::unordered_set<uint64_t> sc_keys_;               // locations outside the model (mixed sizes)
  std::deque<std::pair<uint64_t, uint64_t>> written_;  // (step, location) of each write, oldest first
  uint64_t stale_reads_ = 0, early_stores_ = 0, late_loads_ = 0;
  std::string not_covered_;
  bool not_covered_taken_ = false;
  std::function<void(uint64_t)> on_visible_;
};

}  // namespace synclab::sim
