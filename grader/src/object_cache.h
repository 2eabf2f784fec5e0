// The grader's object cache (docs/grader.md, "Grading again"): the compiled student files of
// earlier gradings, keyed by what went into them, so that a submission graded again after one file
// changed compiles only that file.
//
// An entry is one student file's object, stored when the file compiled and passed every check
// (includes, host code, object). Its key is a SHA-256 of the compile command (with the grading's
// own work directory written as a placeholder), the identity of the compiler driver, the file's
// text and the caller's context (the grader's: its own program and the folder the source is
// compiled in, which the object names). With the object the entry keeps every file
// the compiler read (its dependency list, `-MD`) and that file's SHA-256: a lookup is a hit only
// when every one of them still has that content (the other student files a file includes are
// looked up in the current submission). A hit stands for the compile and its checks: the same
// inputs give the same object and the same verdicts.
//
// The cache is the grader's, never the sandbox user's: the directory is private (0700), and
// entries are written by the grader process, whole or not at all (a directory renamed into
// place, replacing a stale one; the object's SHA-256 is checked on every hit). Least recently
// used entries go when it holds more than `max_bytes`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace synclab::grade {

// SHA-256 of a byte string, or of a file's contents ("" when it cannot be read), in hex.
std::string sha256_hex(const std::string& data);
std::string sha256_file(const std::filesystem::path& path);

// The files a compiler's dependency list (`-MD -MF`, make syntax) names, in order: the target is
// left out, escaped spaces ("\ ") are kept, line continuations joined.
std::vector<std::string> parse_dependency_list(const std::string& text);

class ObjectCache {
 public:
  // An empty dir: no cache (every lookup misses, nothing is stored).
  explicit ObjectCache(const std::filesystem::path& dir = {}, uint64_t max_bytes = 512ull << 20);
  bool enabled() const { return !dir_.empty(); }
  const std::filesystem::path& dir() const { return dir_; }

  // The key of one compile: `argv` as run, with `work` (the grading's work directory) replaced by
  // a placeholder, the driver's identity (argv[0]'s contents), the source's text and `context`:
  // what else the result depends on (for the grader: its own program, whose rules the checks
  // are, and the directory the source is compiled in, which the object names and which the
  // simulator may read the source from while the tests run).
  std::string key(const std::vector<std::string>& argv, const std::filesystem::path& work,
                  const std::string& source_text, const std::string& context = "") const;

  struct Hit {
    std::filesystem::path object;  // the cached object (copy it; do not change it)
  };
  // A hit when the key's entry exists and every input it recorded has the same content now; paths
  // it recorded under the work directory are looked up under `work` (this grading's).
  std::optional<Hit> find(const std::string& key, const std::filesystem::path& work) const;

  // Stores `object` under `key`, with the inputs named by the dependency list `deps_file` (those
  // under `work` recorded relative to it). Returns "" or why it was not stored (the grading goes
  // on without the cache).
  std::string store(const std::string& key, const std::filesystem::path& object, const std::filesystem::path& deps_file,
                    const std::filesystem::path& work);

  // Removes the least recently used entries until the cache holds at most max_bytes.
  void trim() const;

 private:
  std::filesystem::path dir_;
  uint64_t max_bytes_;
};

}  // namespace synclab::grade
