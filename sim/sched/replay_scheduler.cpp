#include "sim/sched/replay_scheduler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/exec/warp.h"
#include "sim/exec/warp_model.h"

namespace synclab::sim {

namespace {

// The process's schedule (read once at start-up) and how many traced launches it has seen.
// Plain pointers, never destroyed: the exit check reads them after static destructors may run.
const std::string* g_path = nullptr;
const trace::Schedule* g_schedule = nullptr;
std::atomic<uint64_t> g_traced_launches{0};

void check_at_exit(int, void*) {
  if (!g_schedule) return;
  const uint64_t made = g_traced_launches.load();
  for (size_t n = made; n < g_schedule->launches.size(); ++n) {
    const std::vector<trace::ScheduleChoice>& c = g_schedule->launches[n];
    if (c.empty()) continue;
    const int line = g_schedule->launch_lines[n] ? g_schedule->launch_lines[n] : c.front().line;
    std::cout.flush();
    std::fflush(stdout);
    if (made == 0)
      schedule_fail(*g_path, line,
                    fmt::format("the schedule is for launch {} but the program recorded no launch in a trace "
                                "(only traced launches follow a schedule: set SYNCLAB_TRACE=FILE or the "
                                "program's --trace)",
                                n));
    schedule_fail(*g_path, line,
                  fmt::format("the schedule is for launch {} but the program made only {} launch{} (counting "
                              "the launches its trace records)",
                              n, made, made == 1 ? "" : "es"));
  }
}

std::string mask_list(const std::vector<uint32_t>& masks) {
  std::string s;
  for (uint32_t m : masks) s += fmt::format("{}0x{:08x}", s.empty() ? "" : ", ", m);
  return s;
}

}  // namespace

void schedule_fail(const std::string& path, int line, const std::string& why) {
  std::fflush(stdout);
  std::fprintf(stderr, "synclab: schedule %s:%d: %s\n", path.c_str(), line, why.c_str());
  std::fflush(stderr);
  _exit(3);
}

std::shared_ptr<const trace::Schedule> load_schedule_or_exit(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    schedule_fail(path, 0, fmt::format("cannot open the schedule file ({})", err ? std::strerror(err) : "unreadable"));
  }
  std::stringstream text;
  text << in.rdbuf();
  auto s = std::make_shared<trace::Schedule>();
  int line = 0;
  std::string error;
  if (!trace::parse_schedule(text.str(), s.get(), &line, &error)) schedule_fail(path, line, error);
  if (!g_schedule) {
    g_path = new std::string(path);
    g_schedule = new trace::Schedule(*s);
    on_exit(check_at_exit, nullptr);
  }
  return s;
}

ReplayScheduler::ReplayScheduler(const Config& cfg, std::unique_ptr<Scheduler> after)
    : cfg_(cfg), after_(std::move(after)) {
  after_rr_ = dynamic_cast<RoundRobinScheduler*>(after_.get());
}

ReplayScheduler::~ReplayScheduler() {
  if (!active_ || pos_ >= choices_->size()) return;
  size_t left = 0;
  for (size_t i = pos_; i < choices_->size(); ++i) left += (*choices_)[i].kind == trace::ScheduleChoice::Kind::Step;
  const trace::ScheduleChoice& next = (*choices_)[pos_];
  fail(next.line, fmt::format("launch {} ended after {} steps, before this choice (the schedule has {} more "
                              "step{} for it)",
                              launch_, step_, left, left == 1 ? "" : "s"));
}

void ReplayScheduler::fail(int line, const std::string& why) const { schedule_fail(cfg_.schedule_path, line, why); }

void ReplayScheduler::begin_traced_launch(uint64_t blocks, uint32_t warps_per_block) {
  launch_ = g_traced_launches.fetch_add(1);
  warps_per_block_ = std::max<uint32_t>(warps_per_block, 1);
  total_warps_ = blocks * warps_per_block_;
  const trace::Schedule* s = cfg_.schedule.get();
  if (!s || launch_ >= s->launches.size() || s->launches[launch_].empty()) return;
  active_ = true;
  choices_ = &s->launches[launch_];
  started_blocks_.assign(blocks, false);
}

uint32_t ReplayScheduler::trace_warp(const Warp& w) const {
  return static_cast<uint32_t>(w.cta->linear * warps_per_block_ + w.index);
}

std::string ReplayScheduler::ready_list(const std::vector<Warp*>& warps) const {
  std::vector<uint32_t> ready;
  for (const Warp* w : warps)
    if (w->runnable) ready.push_back(trace_warp(*w));
  std::sort(ready.begin(), ready.end());
  if (ready.empty()) return "ready: none";
  std::string s = "ready: ";
  for (size_t i = 0; i < ready.size() && i < 16; ++i) s += fmt::format("{}{}", i ? ", " : "", ready[i]);
  if (ready.size() > 16) s += fmt::format(" and {} more", ready.size() - 16);
  return s;
}

std::string ReplayScheduler::why_not_ready(const std::vector<Warp*>& warps, uint32_t warp) const {
  std::string why;
  if (warp >= total_warps_) {
    why = fmt::format("the launch has only {} warp{}: 0..{}", total_warps_, total_warps_ == 1 ? "" : "s",
                      total_warps_ ? total_warps_ - 1 : 0);
  } else {
    const Warp* found = nullptr;
    for (const Warp* w : warps)
      if (trace_warp(*w) == warp) found = w;
    const uint64_t block = warp / warps_per_block_;
    if (!found) {
      why = block < started_blocks_.size() && started_blocks_[block]
                ? fmt::format("its block {} has finished", block)
                : fmt::format("its block {} has not started: it waits for a free SM slot", block);
    } else {
      bool warp_sync = false;
      for (uint32_t m = found->live_mask(); m; m &= m - 1)
        warp_sync = warp_sync || found->lanes[__builtin_ctz(m)].state == LaneState::AtWarpSync;
      if (!found->live_mask())
        why = "all its threads have exited";
      else if (found->bar_mask)
        why = "waiting at __syncthreads";
      else if (warp_sync)
        why = "waiting at __syncwarp";
      else
        why = "none of its lanes can run now";
    }
  }
  return fmt::format("warp {} is not ready at step {} ({}); {}", warp, step_, why, ready_list(warps));
}

size_t ReplayScheduler::take_reads() {
  reads_.clear();
  size_t i = pos_;
  for (; i < choices_->size() && (*choices_)[i].kind == trace::ScheduleChoice::Kind::Read; ++i)
    reads_.push_back({(*choices_)[i].lane, (*choices_)[i].back, (*choices_)[i].line});
  return i;  // the parser puts a step after every run of reads
}

size_t ReplayScheduler::pick_warp(const std::vector<Warp*>& warps) {
  if (awaiting_group_) {
    // The model found nothing to run in the warp picked last (a lockstep entry that popped): the
    // same line is tried again, now with the warp's state brought up to date.
    awaiting_group_ = false;
    pos_ = current_pos_;
    --step_;
    reads_.clear();
  }
  if (!replaying()) {
    if (active_ && !handed_over_) {
      handed_over_ = true;
      if (after_rr_) after_rr_->continue_after(last_index_);
    }
    current_ = nullptr;
    return after_->pick_warp(warps);
  }
  for (const Warp* w : warps) started_blocks_[w->cta->linear] = true;
  current_pos_ = pos_;
  const size_t si = take_reads();
  const trace::ScheduleChoice& c = (*choices_)[si];
  for (size_t i = 0; i < warps.size(); ++i) {
    if (trace_warp(*warps[i]) != c.warp) continue;
    if (!warps[i]->runnable) break;
    pos_ = si + 1;
    current_ = &c;
    ++step_;
    awaiting_group_ = true;
    last_index_ = i;
    return i;
  }
  fail(c.line, why_not_ready(warps, c.warp));
}

size_t ReplayScheduler::pick_group(const Warp& w, const std::vector<uint32_t>& masks,
                                   const std::vector<bool>& yielded) {
  if (!current_) return after_->pick_group(w, masks, yielded);
  if (!current_->has_mask) {  // the group round robin would pick
    for (size_t i = 0; i < masks.size(); ++i)
      if (!yielded[i]) return i;
    return 0;
  }
  for (size_t i = 0; i < masks.size(); ++i)
    if (masks[i] == current_->mask) return i;
  fail(current_->line, fmt::format("lanes 0x{:08x} are not a group of warp {} at step {} (its groups: {})",
                                   current_->mask, current_->warp, step_ - 1, mask_list(masks)));
}

void ReplayScheduler::picked(const Warp&, const Group& g, bool lockstep) {
  awaiting_group_ = false;
  if (!current_ || !current_->has_mask || current_->mask == g.mask) return;
  if (lockstep)
    fail(current_->line, fmt::format("lanes 0x{:08x} are not a group of warp {} under lockstep (its groups: 0x{:08x})",
                                     current_->mask, current_->warp, g.mask));
  fail(current_->line, fmt::format("lanes 0x{:08x} are not a group of warp {} at step {} (its groups: 0x{:08x})",
                                   current_->mask, current_->warp, step_ - 1, g.mask));
}

bool ReplayScheduler::continue_burst(const Warp& w, const Group& g) {
  if (!replaying()) return true;
  size_t si = pos_;
  while (si < choices_->size() && (*choices_)[si].kind == trace::ScheduleChoice::Kind::Read) ++si;
  const trace::ScheduleChoice& c = (*choices_)[si];
  if (c.warp != trace_warp(w) || (c.has_mask && c.mask != g.mask)) return false;
  current_pos_ = pos_;
  take_reads();
  pos_ = si + 1;
  current_ = &c;
  ++step_;
  return true;
}

void ReplayScheduler::on_step(Warp& w, uint32_t mask, uint64_t step) {
  if (after_->observes_steps()) after_->on_step(w, mask, step);
  if (!reads_.empty()) {
    const PendingRead& r = reads_.front();
    fail(r.line, fmt::format("lane {} of warp {} made no load at step {} that could read more than one value ({})",
                             r.lane, current_ ? current_->warp : trace_warp(w), step_ - 1,
                             cfg_.memory == MemoryModel::Relaxed
                                 ? "a read line applies to the step on the next step line"
                                 : "this launch runs under sequentially consistent memory, where every load reads "
                                   "the newest value: read lines choose only in relaxed-memory runs, "
                                   "SYNCLAB_MEMORY=relaxed or a harness's --memory relaxed"));
  }
}

int64_t ReplayScheduler::choose_read(uint32_t lane, size_t n) {
  for (size_t i = 0; i < reads_.size(); ++i) {
    if (reads_[i].lane != lane) continue;
    const PendingRead r = reads_[i];
    reads_.erase(reads_.begin() + static_cast<std::ptrdiff_t>(i));
    if (r.back >= n)
      fail(r.line,
           fmt::format("lane {}'s load at step {} can read only {} values: read {} 0 (the newest) to read {} {}", lane,
                       step_ - 1, n, lane, lane, n - 1));
    return r.back;
  }
  return -1;
}

}  // namespace synclab::sim
