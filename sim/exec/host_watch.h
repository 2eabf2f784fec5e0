// The host watch: which host threads read and write named regions of mapped pinned or managed
// memory while a traced kernel runs. The simulator runs kernels on its own thread (the device
// thread); the program's host threads touch that memory directly, so the simulator cannot see their
// loads. While a launch records a trace, the watch tags the regions' pages with a memory protection
// key that only the device thread may use (x86-64 protection keys, Linux pkey_mprotect). A host
// thread's access then faults; the fault handler notes the access (address, read or write, the
// element's value), lets that one instruction run (single-step, the trap flag) and tags the page
// again. The device thread collects the notes at every warp step (TraceRecorder: HostAccess events).
//
// Where protection keys are missing (another CPU, an older kernel, SYNCLAB_HOST_READS=0) nothing is
// tagged and the recorder falls back to finding the host's writes by change detection; the trace
// header says which ("host_reads"). docs/simulator.md, "The host's accesses", has the limits.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/memory/host_word.h"  // load_word

namespace synclab::sim::host_watch {

// A watched range: accesses are noted per element of `grain` bytes (1, 2, 4 or 8).
struct Range {
  uint64_t base = 0, bytes = 0;
  uint32_t grain = 4;
};

// One host access, in the order the host threads made them.
struct Access {
  uint64_t addr = 0;   // the element's first byte
  uint64_t value = 0;  // read: the element before the instruction; write: after it
  uint32_t grain = 4;
  bool write = false;
};

// Whether this process can watch host accesses; when not, *why says why in a few words.
bool available(std::string* why);

// Device thread, at a traced launch's start: watch these ranges until stop(). False (nothing
// watched) when not available or when there are more ranges than the watch holds (64). Called
// again while watching (a region found mid-launch), it watches the new list and keeps the notes
// not collected yet (drain them after a false return).
bool start(const std::vector<Range>& ranges);
// Device thread: appends the accesses noted since the last call to `out` (only the first `upto`
// notes of the launch: see notes_before_device_access). Returns how many were lost because the
// host made more between two calls than the buffer holds (kept: the first ones).
uint64_t drain(std::vector<Access>& out, uint64_t upto = UINT64_MAX);
// How many notes the launch had when the device thread's latest DeviceAccess began: the host
// accesses that happened before that device access (the trace shows them first).
uint64_t notes_before_device_access();
// How many notes have been collected by drain().
uint64_t notes_drained();
// Device thread, at the launch's end: the pages are untagged, host threads run at full speed again.
void stop();

// Host threads between their fault and their trap: the one instruction they run may change
// watched memory at any moment until the trap notes it. The device thread waits at gate() before
// it reads or writes memory the host can see, so that the trace's order is the order in which
// things happened: a device load never returns a host write the trace has not shown yet, and a
// device store never lands inside a host thread's window, where it would be taken for the host's.
// While the watch is on, the device thread makes each such access inside a DeviceAccess: it holds
// the watch's lock (the fault handler opens a window under it) and starts when no window is open.
extern std::atomic<int> g_open_windows;
extern std::atomic<bool> g_watching;
void device_access_begin();
void device_access_end();
struct DeviceAccess {
  const bool held = g_watching.load(std::memory_order_relaxed);
  DeviceAccess() {
    if (held) device_access_begin();
  }
  ~DeviceAccess() {
    if (held) device_access_end();
  }
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
};

}  // namespace synclab::sim::host_watch
