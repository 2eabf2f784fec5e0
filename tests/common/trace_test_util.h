// Helpers for the trace tests: temporary files, events, captured stderr.
#pragma once

#include <synclab/trace_format.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace tt {

using synclab::trace::Event;
using synclab::trace::EventKind;

// A file name in the build's temporary directory, removed when the object dies.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name) {
    char dir[] = "/tmp/synclab-trace-test-XXXXXX";
    const char* d = mkdtemp(dir);
    path = std::string(d ? d : "/tmp") + "/" + name;
  }
  ~TempFile() {
    std::remove(path.c_str());
    std::string dir = path.substr(0, path.rfind('/'));
    if (dir.rfind("/tmp/synclab-trace-test-", 0) == 0) rmdir(dir.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

inline std::vector<unsigned char> read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

inline void write_all(const std::string& path, const unsigned char* data, size_t n) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(n));
}
inline void write_all(const std::string& path, const std::vector<unsigned char>& v) {
  write_all(path, v.data(), v.size());
}

using synclab::trace::make_event;
inline constexpr auto& ev = make_event;


// WarpStep: mask, pc, line (function 0, file 0), instruction class.
inline Event step(uint64_t time, uint32_t warp, uint32_t mask, uint32_t pc, uint32_t line,
                  synclab::trace::InstrClass cls = synclab::trace::InstrClass::Alu) {
  return ev(time, warp, EventKind::WarpStep, synclab::trace::kAllLanes, static_cast<uint16_t>(cls),
            (uint64_t(pc) << 32) | mask, line);
}

inline uint16_t mem_aux(bool write, unsigned log2size = 2,
                        synclab::trace::MemSpace space = synclab::trace::MemSpace::Global) {
  return uint16_t(static_cast<uint16_t>(space) | (write ? synclab::trace::kAuxWrite : 0) |
                  (log2size << synclab::trace::kAuxSizeShift));
}

inline bool same(const Event& x, const Event& y) {
  return x.time == y.time && x.warp == y.warp && x.kind == y.kind && x.lane == y.lane &&
         x.aux == y.aux && x.a == y.a && x.b == y.b;
}

// Captures what is written to stderr (fd 2) between construction and text().
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    std::snprintf(path_, sizeof path_, "/tmp/synclab-stderr-XXXXXX");
    fd_ = mkstemp(path_);
    saved_ = dup(2);
    dup2(fd_, 2);
  }
  std::string text() {
    restore();
    std::ifstream in(path_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  ~StderrCapture() {
    restore();
    std::remove(path_);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    close(fd_);
    saved_ = -1;
  }
  char path_[64];
  int fd_ = -1, saved_ = -1;
};

}  // namespace tt
