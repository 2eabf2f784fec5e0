#include "sim/memory/oracle/execution.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/memory/oracle/relation.h"

namespace synclab::memory {

const char* scope_name(Scope s) {
  switch (s) {
    case Scope::Thread: return "thread";
    case Scope::Cta: return "cta";
    case Scope::Gpu: return "gpu";
    case Scope::Sys: return "sys";
  }
  return "?";
}

const char* fence_name(FenceKind f) {
  switch (f) {
    case FenceKind::Sc: return "sc";
    case FenceKind::AcqRel: return "acq_rel";
    case FenceKind::Acquire: return "acquire";
    case FenceKind::Release: return "release";
  }
  return "?";
}

std::string Execution::describe(uint32_t i) const {
  if (i >= events.size()) return fmt::format("e{} (no such event)", i);
  const Event& e = events[i];
  if (!e.label.empty()) return fmt::format("e{} (T{}: {})", i, e.thread, e.label);
  std::string what;
  switch (e.kind) {
    case EventKind::Read:
      what = fmt::format("read {}{} of location {} = {}", e.acquire ? "acquire " : "", scope_name(e.scope), e.loc,
                         e.value);
      break;
    case EventKind::Write:
      what = fmt::format("write {}{} of location {} = {}", e.release ? "release " : "", scope_name(e.scope), e.loc,
                         e.value);
      break;
    case EventKind::Fence: what = fmt::format("fence.{}.{}", fence_name(e.fence), scope_name(e.scope)); break;
    case EventKind::BarrierArrive: what = fmt::format("barrier {} arrive", e.barrier); break;
    case EventKind::BarrierWait: what = fmt::format("barrier {} wait", e.barrier); break;
  }
  return fmt::format("e{} (T{}: {})", i, e.thread, what);
}

std::string Execution::malformed() const {
  const size_t n = events.size();
  if (rf.size() != n) return fmt::format("reads-from has {} entries for {} events", rf.size(), n);
  if (threads.empty() && n) return "events but no threads";
  std::set<std::pair<uint32_t, uint32_t>> po_seen;
  for (size_t i = 0; i < n; ++i) {
    const Event& e = events[i];
    if (e.thread >= threads.size())
      return fmt::format("event e{} names thread {}, but there are {} threads", i, e.thread, threads.size());
    if (!po_seen.insert({e.thread, e.po}).second)
      return fmt::format("event e{} has the same program-order position ({}) as another event of thread {}", i, e.po,
                         e.thread);
    if ((e.kind == EventKind::Fence || e.kind == EventKind::BarrierArrive || e.kind == EventKind::BarrierWait) &&
        e.scope == Scope::Thread)
      return fmt::format("{} has no scope (a fence or barrier is at cta, gpu or sys scope)", describe(uint32_t(i)));
    if (e.acquire && e.kind != EventKind::Read)
      return fmt::format("{} is marked acquire but is not a read", describe(uint32_t(i)));
    if (e.release && e.kind != EventKind::Write)
      return fmt::format("{} is marked release but is not a write", describe(uint32_t(i)));
    if (rf[i] >= 0) {
      if (e.kind != EventKind::Read)
        return fmt::format("{} reads from an event but is not a read", describe(uint32_t(i)));
      const size_t w = size_t(rf[i]);
      if (w >= n || events[w].kind != EventKind::Write)
        return fmt::format("{} reads from e{}, which is not a write", describe(uint32_t(i)), rf[i]);
      if (events[w].loc != e.loc)
        return fmt::format("{} reads from {}, a write to another location", describe(uint32_t(i)),
                           describe(uint32_t(w)));
    } else if (rf[i] != -1) {
      return fmt::format("{} has reads-from entry {} (-1 is the initial value)", describe(uint32_t(i)), rf[i]);
    }
  }
  auto check_pair = [&](const char* rel, uint32_t a, uint32_t b) -> std::string {
    if (a >= n || b >= n) return fmt::format("{} names event e{} of {}", rel, std::max(a, b), n);
    return "";
  };
  for (auto [a, b] : co) {
    if (auto s = check_pair("coherence order", a, b); !s.empty()) return s;
    if (events[a].kind != EventKind::Write || events[b].kind != EventKind::Write || events[a].loc != events[b].loc)
      return fmt::format("coherence order relates {} and {}, which are not writes to one location", describe(a),
                         describe(b));
  }
  for (auto [a, b] : sc) {
    if (auto s = check_pair("Fence-SC order", a, b); !s.empty()) return s;
    if (events[a].kind != EventKind::Fence || events[a].fence != FenceKind::Sc || events[b].kind != EventKind::Fence ||
        events[b].fence != FenceKind::Sc)
      return fmt::format("Fence-SC order relates {} and {}, which are not both fence.sc", describe(a), describe(b));
  }
  std::set<uint32_t> rmw_reads, rmw_writes;
  for (auto [a, b] : rmw) {
    if (auto s = check_pair("read-modify-write", a, b); !s.empty()) return s;
    const Event& r = events[a];
    const Event& w = events[b];
    if (r.kind != EventKind::Read || w.kind != EventKind::Write || r.thread != w.thread || r.loc != w.loc ||
        r.po >= w.po || r.scope != w.scope)
      return fmt::format(
          "read-modify-write pairs {} and {}: not a read and a later write of one thread, location "
          "and scope",
          describe(a), describe(b));
    if (!rmw_reads.insert(a).second || !rmw_writes.insert(b).second)
      return fmt::format("{} or {} is in two read-modify-writes", describe(a), describe(b));
  }
  for (auto [a, b] : dep) {
    if (auto s = check_pair("dependency", a, b); !s.empty()) return s;
    if (events[a].kind != EventKind::Read || events[a].thread != events[b].thread || events[a].po >= events[b].po)
      return fmt::format("dependency from {} to {}: not from a read to a later event of its thread", describe(a),
                         describe(b));
  }
  return "";
}

bool Relation::acyclic(std::vector<size_t>* cycle) const {
  // Iterative depth-first search: 0 unvisited, 1 on the stack, 2 done.
  std::vector<uint8_t> state(n_, 0);
  std::vector<size_t> parent(n_, SIZE_MAX);
  std::vector<std::pair<size_t, size_t>> stack;  // (node, next successor to try)
  for (size_t s = 0; s < n_; ++s) {
    if (state[s]) continue;
    stack.push_back({s, 0});
    state[s] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      bool pushed = false;
      for (size_t b = next; b < n_; ++b) {
        if (!has(v, b)) continue;
        next = b + 1;
        if (state[b] == 1) {
          if (cycle) {
            cycle->clear();
            for (size_t u = v; u != b && u != SIZE_MAX; u = parent[u]) cycle->push_back(u);
            cycle->push_back(b);
            std::reverse(cycle->begin(), cycle->end());
          }
          return false;
        }
        if (state[b] == 0) {
          state[b] = 1;
          parent[b] = v;
          stack.push_back({b, 0});
          pushed = true;
          break;
        }
      }
      if (!pushed) {
        state[stack.back().first] = 2;
        stack.pop_back();
      }
    }
  }
  return true;
}

}  // namespace synclab::memory
