// The relaxed memory model (SYNCLAB_MEMORY=relaxed): an operational version of the PTX memory
// model. Each run is one execution the PTX model's axioms allow (the oracle, ../oracle/, checks
// that: SYNCLAB_MEMORY_CHECK=1), and the seed chooses among the executions the axioms allow, so
// that weak outcomes show up: a load that reads an old value, stores that become visible in
// different orders to different threads, a load that reads a store its thread makes later.
// docs/memory-model.md gives each rule with its PTX ISA section, and the table of what the model
// cannot produce.
//
// State. Memory holds, as always, the newest value of every location in coherence order. A
// location written lately also keeps a short history: its writes (messages) in coherence order,
// each with a coherence key (keys grow along coherence order), its writer, the releases it
// carries, and for "Sequential Consistency Per Location" the set of messages that reach it through
// morally strong communication and program order (anc), and who read it. Each thread has a view
// (view.h: what its causal past holds, per location), the releases it read but has not acquired
// yet, the release fences it made (every later write carries them), and per location the messages
// that reach its last access.
//
// A load may read any message of the location that
//   - is not older in coherence order than the newest write of its causal past (Causality axiom),
//   - leaves no morally strong cycle of communication and program order on the location
//     (Sequential Consistency Per Location),
//   - (a load run after a later store of its thread) makes no write before itself in causality
//     order (Causality, Coherence).
// The newest readable message with probability 1/2, else one of the others at random. A store
// goes after the newest write of its causal past, usually at the end (memory takes its value),
// sometimes before newer messages, when that keeps the same axioms and splits no read-modify-write
// (Atomicity). A read-modify-write reads as a load does and its write comes after what it read with
// no morally strong write between them.
//
// Synchronization carries views: a release (st.release, the write of atom.release/acq_rel, a
// release fence or barrier before a write, or an earlier release to the same location by the
// same thread: release patterns) puts its releaser's view on the message; a morally strong read of
// it gives an acquire (ld.acquire, atom.acquire, a later acquire to the same location, a later
// acquire fence or barrier: acquire patterns) that view when the release and the acquire are
// morally strong. fence.sc joins the views of the earlier morally strong fence.sc (Fence-SC
// order). Barriers and __syncwarp() join their participants' views.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sim/memory/memory_model.h"
#include "sim/memory/oracle/execution.h"
#include "sim/memory/relaxed/view.h"

namespace synclab::sim::relaxed {

class RelaxedModel final : public ConsistencyModel {
 public:
  RelaxedModel(uint64_t seed, uint32_t threads_per_block, bool record);
  ~RelaxedModel() override;

  bool relaxed() const override { return true; }
  void set_read_chooser(ReadChooser* c) override { chooser_ = c; }
  void set_aim(const OutcomeAim* a) override { aim_ = a; }
  void start_block(uint64_t cta) override;
  void end_block(uint64_t cta) override;
  uint64_t load(const MemThread& t, uint64_t key, uint32_t size, uint64_t latest, MemOrder o, uint64_t now) override;
  bool store(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest, MemOrder o,
             uint64_t now) override;
  uint64_t rmw_read(const MemThread& t, uint64_t key, uint32_t size, uint64_t latest, MemOrder o, uint64_t now,
                    bool newest, const uint64_t* cas_expected) override;
  bool rmw_write(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, bool wrote, MemOrder o,
                 uint64_t now) override;
  void fence(const MemThread& t, MemOrder o) override;
  void barrier_arrive(const MemThread& t, uint32_t barrier) override;
  void barrier_release(uint64_t cta, uint32_t barrier, const std::vector<uint64_t>& ids, bool whole_block,
                       bool waited = false) override;
  void warp_sync(uint64_t cta, const std::vector<uint64_t>& ids) override;
  void begin_early(const MemThread& t, uint32_t length, bool acquire_rmw_held, bool acquire_held,
                   bool hide_acq) override;
  void plan_step(const MemThread& t, uint32_t pos, ptx::Scope hidden, bool before_late_write) override;
  void end_early(const MemThread& t) override;
  void begin_late(const MemThread& t, ptx::Scope fence_acquire) override;
  void end_late(const MemThread& t) override;
  bool settle() override;
  uint64_t random(uint64_t n) override;
  bool try_load_buffering(const MemThread& t) override { return random(16) < lb_rate(t); }
  uint64_t stale_reads() const override { return stale_reads_; }
  uint64_t dead_ends() const override { return dead_ends_; }
  uint64_t early_stores() const override { return early_stores_; }
  uint64_t late_loads() const override { return late_loads_; }
  void note_late_load() override { ++late_loads_; }
  bool has_older(uint64_t key) override;
  uint64_t read_version() const override { return read_version_; }
  uint64_t write_version() const override { return write_version_; }
  void on_visible(std::function<void(uint64_t key)> f) override { on_visible_ = std::move(f); }
  void host_word(uint64_t key, uint32_t size, const uint8_t* p, uint64_t now) override;
  void host_raced(const MemThread& t, uint64_t key, uint32_t size, const uint8_t* p, uint64_t now) override;
  std::string take_not_covered() override;
  const memory::Execution* execution() const override;
  std::string recording_limit() const override;

  struct Loc;
  struct Msg;
  struct ThreadState;

 private:
  // The model's side of one access.
  Who who(const MemThread& t, MemOrder o, bool is_fence = false) const;
  ThreadState& thread(const MemThread& t);
  Loc* find(uint64_t key);
  Loc* history(uint64_t key, uint32_t size, uint64_t latest, uint64_t now, bool create);
  void forget_old(uint64_t now);
  // Load buffering with releases run early (ThreadState::PlanRel): one was made now (the last of
  // ts.plan_rels, its kind, who and location set); it gets the thread's place in its plan and what
  // the thread knows. plan_release_late: the held-back loads before plan place `pos` have run.
  void add_plan_rel(const MemThread& t, ThreadState& ts);
  // Fence-SC order: what a fence.sc of thread t at `scope` passes on to the morally strong
  // fence.sc after it.
  void join_sc(const MemThread& t, Scope scope, const View& k);
  // A release by `head` of what ts knows now.
  ReleaseRef release_now(const ThreadState& ts, const Who& head);
  void plan_release_late(const MemThread& t, ThreadState& ts, uint32_t pos);
  void drop_loc(uint64_t key);
  // Which messages the read `r` (thread state `ts`) may read; returns their indices.
  // sees_hidden: a load that can never acquire (MemOrder::no_acquire_after, not an acquire itself)
  // may read a message that waits for a release (Msg::hidden).
  // sees_unreleasing: a read that can release nothing after it (MemOrder::no_release_after, not
  // a release itself) may read a store a plan holding back an acquiring read-modify-write ran
  // early (Msg::hidden_acq).
  // reduction: the read of a red, which forms no acquire pattern with an acquire fence held back.
  void readable(Loc& L, const ThreadState& ts, const Who& r, uint64_t key, bool acquire, uint64_t now,
                std::vector<uint32_t>* out, bool sees_hidden = false, bool sees_unreleasing = false,
                bool reduction = false);
  // The thread's view of `key` after it reads m (what a read-modify-write's write must follow).
  uint64_t view_after_read(const ThreadState& ts, const Msg& m, const Who& r, uint64_t key, bool acquire) const;
  // (aim_: the wanted values of thread t's read of `key` first, at seven chances in eight)
  uint32_t pick(const std::vector<uint32_t>& cand, uint32_t newest, const MemThread& t, const Loc& L, uint64_t key);
  // The read of message i takes effect: views, releases, reach, readers.
  void take_read(Loc& L, uint32_t i, ThreadState& ts, const Who& r, uint64_t key, bool acquire, int ev,
                 bool reduction = false);
  // Positions (insert after message index `after`) where a write may go; `lo`: the first allowed.
  struct Places;  // (what may_place asks of one location about one writer)
  bool may_place(Places& P, uint32_t after, int rmw_read_index, uint64_t vkey) const;
  // The messages a new write put after index `after` comes after in coherence order (see order()).
  uint64_t co_before_new(const Loc& L, const Who& w, uint32_t after, uint64_t vkey) const;
  // (reach: what reached the writer's accesses of the location before this one, when not its
  // reach there now: a held-back write before a store of its plan run early)
  uint64_t anc_of_new(const Loc& L, const ThreadState& ts, const Who& w, uint32_t after,
                      const uint64_t* reach = nullptr) const;
  // Puts a new message after index `after`; returns its index.
  uint32_t place(Loc& L, uint64_t key, ThreadState& ts, const Who& w, uint32_t after, uint64_t value, bool rmw,
                 int rmw_src, uint64_t now, RelList&& rels, const uint64_t* reach = nullptr);
  // Coherence order around the new message `idx`: before it, the messages some scope instance
  // covers with it and those of its causal past (keys up to `vkey`); after it, the later messages
  // some scope instance covers with it. Keeps co_before closed.
  void order(Loc& L, uint32_t idx, uint64_t vkey);
  // (recording) The messages of a location leave the history: every later write comes after them.
  void retire(const Msg& m);
  RelList releases_for_write(ThreadState& ts, const Who& w, uint64_t key, bool release, const Msg* rmw_read);
  void acquire_from(ThreadState& ts, const Who& acq, const RelList& rels);
  void hold_pending(ThreadState& ts, const Who& reader, uint64_t key, uint64_t msg, const RelList& rels);
  void acquire_pending_loc(ThreadState& ts, const Who& acq, uint64_t key);
  void acquire_pending_all(ThreadState& ts, const Who& acq);
  uint64_t write_common(const MemThread& t, uint64_t key, uint32_t size, uint64_t value, uint64_t latest, MemOrder o,
                        uint64_t now, bool rmw, bool* newest);
  uint32_t free_slot(Loc& L);
  void drop_oldest(Loc& L, uint64_t key);
  // Keeps only the newest message (with the releases it carries): every older one becomes
  // unreadable. For a location too many threads access at once.
  void collapse(Loc& L);
  uint64_t new_end_key() { return (next_key_ += (1ull << 20)); }

  // Recording (SYNCLAB_MEMORY_CHECK).
  struct Recorder;
  std::unique_ptr<Recorder> rec_;
  int rec_read(const MemThread& t, const Who& r, uint64_t key, bool acquire, uint64_t value);
  int rec_write(const MemThread& t, const Who& w, uint64_t key, bool release, uint64_t value);

  uint64_t rng_;
  // How often, in sixteenths, a load with a choice reads the newest value, a store with a choice goes
  // at the end, and a load is held back for load buffering: set per run by the seed, so that runs
  // differ in how weak they are (some outcomes need many old values, others none).
  uint32_t newest_rate_ = 8, end_rate_ = 12, lb_rate_ = 8;
  // In half the runs each thread has rates of its own instead (some threads read only new values
  // while others read old ones; some hold every load back, others none), drawn from the thread's
  // number and thread_mix_.
  bool per_thread_ = false;
  uint64_t thread_mix_ = 0;
  // (per_thread_) one of `rates`, drawn from the thread's number, thread_mix_ and `salt` (one salt
  // per kind of rate); else the run's rate.
  uint32_t thread_rate(const MemThread& t, uint64_t salt, const uint32_t (&rates)[3], uint32_t run_rate) const;
  uint32_t newest_rate(const MemThread& t) const;
  uint32_t end_rate(const MemThread& t) const;
  uint32_t lb_rate(const MemThread& t) const;
  uint32_t tpb_;
  ReadChooser* chooser_ = nullptr;
  const OutcomeAim* aim_ = nullptr;
  std::vector<uint32_t> aimed_;
  uint64_t next_key_ = 0;
  using LocMap = std::unordered_map<uint64_t, std::unique_ptr<Loc>>;
  LocMap locs_;
  // Dropped locations with their map nodes, kept for reuse (no allocation when a whole block's
  // barrier drops its shared locations and the next phase writes them again).
  std::vector<LocMap::node_type> free_locs_;
  // How many locations of locs_ fall in each of 2^16 buckets of their key: a lookup of a location
  // with no history (most loads) ends here without hashing into the map. Saturates (then stays).
  std::vector<uint16_t> maybe_;
  static uint32_t maybe_slot(uint64_t key) { return uint32_t((key * 0x9E3779B97F4A7C15ull) >> 48); }
  void maybe_add(uint64_t key) {
    uint16_t& c = maybe_[maybe_slot(key)];
    if (c != UINT16_MAX) ++c;
  }
  void maybe_remove(uint64_t key) {
    uint16_t& c = maybe_[maybe_slot(key)];
    if (c != UINT16_MAX) --c;
  }
  Loc* last_loc_ = nullptr;
  uint64_t last_key_ = ~0ull;
  std::vector<std::pair<uint64_t, uint64_t>> written_;  // (step, key): for forgetting, oldest first
  size_t written_head_ = 0;
  struct Block;
  std::unordered_map<uint64_t, std::unique_ptr<Block>> blocks_;
  Block* last_block_ = nullptr;
  uint64_t last_block_cta_ = ~0ull;
  std::unique_ptr<ThreadState> host_;
  // Fence-SC order: the joined views of the fence.sc so far, by who may take them.
  View sc_sys_, sc_gpu_;
  // The host as a thread (host_word): the words of host-visible memory the device accessed, the
  // host's writes seen so far (its view: the host is taken to release each write, to have written
  // them in the order they are seen, and to have acquired every system-scope release of the device
  // before: sys_released_).
  struct HostWord {
    const uint8_t* p;
    uint32_t size;
  };
  std::unordered_map<uint64_t, HostWord> host_words_;
  View host_view_, sys_released_;
  bool in_sync_host_ = false;
  void sync_host(uint64_t now);
  std::unordered_map<uint64_t, View> sc_cta_;
  // Barriers waiting for their threads: the joined views of those that arrived.
  std::unordered_map<uint64_t, View> bar_views_;
  // The barrier an arrival joined last, and the view that arrival brought (threads released by one
  // barrier arrive at the next with one view: joining it again adds nothing).
  uint64_t bar_last_k_ = ~0ull;
  View* bar_last_ = nullptr;
  View bar_last_view_;
  std::unordered_set<uint64_t> sc_keys_;  // mixed-size locations, outside the model
  std::string not_covered_;
  bool not_covered_taken_ = false;
  std::function<void(uint64_t)> on_visible_;
  uint64_t stale_reads_ = 0, early_stores_ = 0, late_loads_ = 0;
  uint64_t read_version_ = 0, write_version_ = 0;  // (see ConsistencyModel::read_version)
  // Reads that found nothing they could read without breaking an axiom, and took the newest
  // (SYNCLAB_MEMORY_CHECK reports them; none shows in the generated litmus suites).
  uint64_t dead_ends_ = 0;
  // The threads whose plan made releases or ran fences early and has not yet run the loads held
  // back before them (ThreadState::PlanRel).
  std::vector<ThreadState*> plan_rels_;
  // Whether the read being taken may acquire what it reads, now or later (take_read).
  bool read_may_acquire_ = true;
  std::vector<uint32_t> scratch_, rmw_cand_;
  // The read-modify-write between rmw_read and rmw_write.
  struct PendingRmw {
    uint64_t key = ~0ull;
    uint64_t latest = 0;      // memory's value when it read
    uint32_t read_index = 0;  // the message its read read (index at the time)
    uint64_t read_msg_key = 0;
    // The thread's view of the location right after the read, as the read's choice computed it:
    // the write's place follows it. (Taking the read into the view may evict another location's
    // entry and raise every threshold, an over-approximation that must not leave the write no
    // place after the message it read.)
    uint64_t view_key = ~0ull;
    Who who;
    int read_event = -1;
    // What reached the thread's accesses of the location before the read (a read-modify-write
    // run early to a held-back load's location: ThreadState::Early::reach_before; 0 when the
    // thread is not running early, where nothing reads it).
    uint64_t reach_before = 0;
  } rmw_;
};

}  // namespace synclab::sim::relaxed
