// The host as a thread at system scope: host_checker.h says what it checks and what it assumes.
#include "sim/check/host_checker.h"

#include "sim/exec/host_watch.h"

#include <algorithm>
#include <cstring>

namespace synclab::sim {

using ptx::Scope;
using ptx::Sem;

namespace {

// An access's or fence's scope as PTX reads it: no scope is .gpu for atomics and fences, and
// volatile is relaxed at system scope.
Scope scope_of(const ptx::Instr& I) {
  if (I.sem == Sem::Volatile) return Scope::Sys;
  return I.scope == Scope::None ? Scope::Gpu : I.scope;
}

bool strong(const ptx::Instr& I, bool atomic) { return atomic || !ptx::is_weak(I.sem); }

bool acquires(const ptx::Instr& I) { return I.sem == Sem::Acquire || I.sem == Sem::AcqRel || I.sem == Sem::Sc; }
bool releases(const ptx::Instr& I) { return I.sem == Sem::Release || I.sem == Sem::AcqRel || I.sem == Sem::Sc; }

}  // namespace

bool HostChecker::reaches_host(const ptx::Instr& I, bool atomic) {
  return strong(I, atomic) && scope_of(I) == Scope::Sys;
}

HostFinding HostChecker::finding(HostFinding::Rule rule, uint64_t addr, uint32_t size, const DevAccess& a,
                                 uint64_t host_value) {
  HostFinding f;
  f.rule = rule;
  f.addr = addr;
  f.size = size;
  f.block = a.block;
  f.thread = a.thread;
  f.instr = a.instr;
  f.write = a.write;
  f.atomic = a.atomic;
  f.host_value = host_value;
  return f;
}

void HostChecker::report(const HostFinding& f, Word& w) {
  if (w.reported) return;
  w.reported = true;
  findings_.push_back(f);
}

void HostChecker::take_notes() {
  const uint64_t n = host_atomics::count();
  if (n == notes_seen_) return;
  std::vector<host_atomics::Note> fresh;
  host_atomics::notes_after(notes_seen_, fresh);
  std::vector<host_atomics::StoreNote> stores;
  host_atomics::stores_after(notes_seen_, stores);
  notes_seen_ = n;
  for (host_atomics::Note& note : fresh) narrow_[note.addr] = std::move(note);
  for (host_atomics::StoreNote& s : stores) stores_[s.addr] = std::move(s);
}

void HostChecker::note_scope(HostFinding& f, const host_atomics::Note* n) {
  if (!n) return;
  f.host_scope = n->scope;
  f.host_file = n->file;
  f.host_line = n->line;
}

void HostChecker::host_wrote(uint64_t k, Word& w, uint64_t v, uint64_t now) {
  // A host write, made after the last look. Made through a narrow-scope atomic_ref, it is morally
  // strong with no device access.
  take_notes();
  auto nit = narrow_.find(k >> 4);
  w.host_narrow = nit == narrow_.end() ? nullptr : &nit->second;
  auto sit = stores_.find(k >> 4);
  w.host_relaxed = sit != stores_.end() && sit->second.relaxed() ? &sit->second : nullptr;
  // H2: against the device's accesses since the host's previous write.
  for (const DevAccess& a : w.since_host) {
    if ((reaches_host(*a.instr, a.atomic) && !w.host_narrow) || last_release_ > a.tick) continue;
    HostFinding f = finding(HostFinding::Rule::HostAfterDevice, k >> 4, w.size, a, v);
    if (narrow_release_ && narrow_release_tick_ > a.tick) f.narrow_release = narrow_release_;
    note_scope(f, w.host_narrow);
    report(f, w);
    break;
  }
  w.since_host.clear();
  w.host_lo = last_look_;
  w.host_hi = now;
  w.host_value = v;
  w.seen = v;
}

bool HostChecker::pass(uint64_t now) {
  bool changed = false;
  for (size_t i = 0; i < order_.size(); ++i) {
    if (between_words_) between_words_(i);
    const uint64_t k = order_[i];
    Word& w = words_[k];
    const uint64_t v = host_watch::load_word(w.p, w.size);
    if (v != w.seen) {
      host_wrote(k, w, v, now);
      changed = true;
    }
  }
  return changed;
}

void HostChecker::sweep(uint64_t now) {
  // A pass reads the words one after another while host threads run. A word read early in a pass
  // may be written by the host after that read and before a later word of the same pass is
  // written and read: the later write is then seen and the earlier one is not, though the host
  // made it first. Another pass sees it (a load that saw the later store sees every store the
  // host made before it: x86-64 keeps stores in order, and the host's release orders them
  // everywhere). So the passes go on until one sees nothing new; every write they see is dated by
  // this look, as if made before any later device access. A host that never stops writing stops
  // the passes at kMaxPasses (an ordering missed there can only hide a race, never report one).
  for (int i = 0; i < kMaxPasses && pass(now); ++i) {
  }
}

void HostChecker::look() {
  const uint64_t now = ++tick_;
  take_notes();
  sweep(now);
  last_look_ = now;
}

void HostChecker::access(uint32_t block, uint32_t thread, uint64_t addr, uint32_t size, const uint8_t* p, bool write,
                         bool atomic, const ptx::Instr& I, const uint64_t* read, const uint64_t* left) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return;
  const uint64_t now = ++tick_;
  const uint64_t k = key(addr, size);
  const uint64_t tkey = uint64_t(block) << 32 | thread;
  bool look_again = false;
  auto it = words_.find(k);
  if (it == words_.end()) {
    if (words_.size() >= kMaxWords) return;
    // First access in this launch: what memory holds now is where watching starts (host writes
    // before the launch are ordered before it).
    Word w;
    w.p = p;
    w.size = size;
    w.seen = left ? *left : read && !atomic ? *read : host_watch::load_word(p, size);
    w.since_host.push_back({now, block, thread, &I, write, atomic});
    words_.emplace(k, std::move(w));
    order_.push_back(k);
  } else {
    Word& w = it->second;
    if (read && *read != w.seen) {
      // The host wrote the word between the look and the access, which read that write. What the
      // host wrote before it (the data behind a flag) is not seen yet: once this access is
      // recorded, look again (below), dating those writes too by this access.
      host_wrote(k, w, *read, now);
      look_again = true;
    }
    const bool reaches = reaches_host(I, atomic) && !w.host_narrow;
    if (w.host_hi && !reaches && !(w.host_lo < known_)) {
      // H1: not morally strong with the host's write, and no acquire of a later host write.
      HostFinding f = finding(HostFinding::Rule::DeviceAfterHost, addr, size, {now, block, thread, &I, write, atomic},
                              w.host_value);
      auto ts = threads_.find(tkey);
      if (ts != threads_.end() && ts->second.pending > w.host_lo) {
        f.unacquired = ts->second.pending_instr;
        f.unacquired_narrow_fence = ts->second.narrow_fence;
      }
      if (relaxed_flag_tick_ > w.host_lo && relaxed_flag_read_) {
        f.relaxed_flag_read = relaxed_flag_read_;
        f.relaxed_flag_file = relaxed_flag_.file;
        f.relaxed_flag_line = relaxed_flag_.line;
      }
      note_scope(f, w.host_narrow);
      report(f, w);
    }
    if (w.host_hi && reaches && (!write || atomic)) {
      // A system-scope read of the host's write: an acquire takes what the host did before it; a
      // relaxed read waits for a fence (acquire pattern). A host write that was a relaxed store
      // released nothing: reading it acquires nothing.
      if (w.host_relaxed) {
        relaxed_flag_tick_ = now;
        relaxed_flag_read_ = &I;
        relaxed_flag_ = *w.host_relaxed;
      } else if (acquires(I))
        known_ = std::max(known_, w.host_hi);
      else {
        ThreadState& t = threads_[tkey];
        if (w.host_hi > t.pending) {
          t.pending = w.host_hi;
          t.pending_instr = &I;
          t.narrow_fence = nullptr;
        }
      }
    }
    if (w.since_host.size() >= 8) w.since_host.erase(w.since_host.begin());
    w.since_host.push_back({now, block, thread, &I, write, atomic});
    if (write || atomic) w.seen = left ? *left : host_watch::load_word(p, size);
  }
  if ((write || atomic) && strong(I, atomic) && releases(I)) {
    if (scope_of(I) == Scope::Sys) {
      last_release_ = now;
    } else {
      narrow_release_ = &I;
      narrow_release_tick_ = now;
    }
  }
  // After the access's own release: a host write the look finds may be the host's answer to it,
  // and is then taken as made after it (the best the host could have done).
  if (look_again) sweep(now);
}

void HostChecker::fence(uint32_t block, uint32_t thread, const ptx::Instr& I) {
  const uint64_t now = ++tick_;
  // membar is fence.sc; a fence without an order is fence.acq_rel (PTX ISA, "membar/fence").
  const Sem sem = I.op == ptx::Op::Membar ? Sem::Sc : I.sem == Sem::None ? Sem::AcqRel : I.sem;
  const bool sys = scope_of(I) == Scope::Sys;
  if (sem != Sem::Release) {
    auto ts = threads_.find(uint64_t(block) << 32 | thread);
    if (ts != threads_.end() && ts->second.pending) {
      if (sys) {
        known_ = std::max(known_, ts->second.pending);
        ts->second.pending = 0;
        ts->second.pending_instr = nullptr;
        ts->second.narrow_fence = nullptr;
      } else {
        ts->second.narrow_fence = &I;  // an acquire pattern whose scope leaves the host out
      }
    }
  }
  if (sem != Sem::Acquire) {
    if (sys) {
      last_release_ = now;
    } else {
      narrow_release_ = &I;
      narrow_release_tick_ = now;
    }
  }
}

}  // namespace synclab::sim
