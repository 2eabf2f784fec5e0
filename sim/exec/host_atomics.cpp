// The host's atomics (host_atomics.h): a list of notes, kept under a mutex.
#include "sim/exec/host_atomics.h"

#include <atomic>
#include <mutex>
#include <map>
#include <tuple>

namespace synclab::sim::host_atomics {

namespace {

constexpr size_t kMaxNotes = 4096;  // more distinct (word, scope, line) triples than any lab makes

struct Registry {
  std::mutex mu;
  std::vector<Note> notes;  // one per (word, scope, source line), with the number of its latest making
  std::map<std::tuple<uint64_t, int, std::string, uint32_t>, size_t> index;
  std::atomic<uint64_t> count{0};
  uint64_t made = 0;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: host threads may note during exit
  return *r;
}

}  // namespace

uint64_t count() { return registry().count.load(std::memory_order_acquire); }

void notes_after(uint64_t after, std::vector<Note>& out) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const Note& n : r.notes)
    if (n.seq > after) out.push_back(n);
}

void note(const void* p, int scope, const char* file, uint32_t line) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const uint64_t addr = reinterpret_cast<uint64_t>(p);
  std::string f = file ? file : "";
  auto it = r.index.find(std::make_tuple(addr, scope, f, line));
  if (it == r.index.end()) {
    if (r.notes.size() >= kMaxNotes) return;
    it = r.index.emplace(std::make_tuple(addr, scope, f, line), r.notes.size()).first;
    r.notes.push_back(Note{addr, scope, std::move(f), line, 0});
  }
  r.notes[it->second].seq = ++r.made;
  r.count.store(r.made, std::memory_order_release);
}

}  // namespace synclab::sim::host_atomics

extern "C" __attribute__((visibility("default"))) void synclab_rt_host_atomic_ref(const void* p, unsigned size,
                                                                                  int scope, const char* file,
                                                                                  unsigned line) {
  (void)size;  // (the word is named by its address; the checkers take its size from the device's access)
  synclab::sim::host_atomics::note(p, scope, file, line);
}
