// The grader's object cache: see object_cache.h.
#include "object_cache.h"

#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace synclab::grade {

namespace {

constexpr const char* kWork = "<work>";

std::string to_hex(const unsigned char* p, unsigned n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (unsigned i = 0; i < n; ++i) {
    s.push_back(digits[p[i] >> 4]);
    s.push_back(digits[p[i] & 15]);
  }
  return s;
}

std::string read_all(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = static_cast<bool>(in);
  if (!ok) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `p` with the work directory written as the placeholder (when it is under it).
std::string portable(const std::string& p, const fs::path& work) {
  const std::string w = work.string();
  if (!w.empty() && p.compare(0, w.size(), w) == 0 && (p.size() == w.size() || p[w.size()] == '/'))
    return kWork + p.substr(w.size());
  return p;
}

std::string local(const std::string& p, const fs::path& work) {
  const std::string k = kWork;
  if (p.compare(0, k.size(), k) == 0) return work.string() + p.substr(k.size());
  return p;
}

// A compiler's identity beyond the driver script: the toolkit's programs by size and time (a new
// toolkit also brings new headers, which the dependency list catches).
std::string toolkit_identity() {
  const char* cuda = std::getenv("SYNCLAB_CUDA_HOME");
  const fs::path home = cuda && *cuda ? cuda : "/usr/local/cuda";
  std::string id;
  for (const fs::path& p : {home / "bin" / "nvcc", home / "nvvm" / "bin" / "cicc", home / "bin" / "cudafe++",
                            fs::path("/usr/bin/g++"), fs::path("/usr/bin/gcc")}) {
    struct stat st {};
    if (stat(p.c_str(), &st) == 0)
      id += fmt::format("{} {} {}.{}\n", p.string(), st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  }
  return id;
}

// (no memo: a file rewritten within one timestamp tick must not keep its old hash)
std::string hash_once(const std::string& path) { return sha256_file(path); }

}  // namespace

std::string sha256_hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (EVP_Digest(data.data(), data.size(), md, &n, EVP_sha256(), nullptr) != 1) return "";
  return to_hex(md, n);
}

std::string sha256_file(const fs::path& path) {
  bool ok = false;
  const std::string text = read_all(path, ok);
  return ok ? sha256_hex(text) : "";
}

std::vector<std::string> parse_dependency_list(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  bool target_done = false;
  auto flush = [&] {
    if (word.empty()) return;
    if (!target_done) {
      // the target, up to its colon (a word "x.o:" or "x.o" then ":")
      if (word.back() == ':') target_done = true;
    } else if (word != ":") {
      out.push_back(word);
    }
    word.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      flush();
      ++i;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      word.push_back(' ');
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else if (c == ':' && !target_done && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
      word.push_back(':');
      flush();
    } else {
      word.push_back(c);
    }
  }
  flush();
  return out;
}

ObjectCache::ObjectCache(const fs::path& dir, uint64_t max_bytes) : max_bytes_(max_bytes) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  struct stat st {};
  // Private to the grader: a symbolic link, a directory of another user or one that others could
  // write to (and so could have planted entries in) is not used; one others may only read is made
  // private.
  if (ec || lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) return;
  if ((st.st_mode & 022) != 0) return;
  if ((st.st_mode & 077) != 0 && chmod(dir.c_str(), 0700) != 0) return;
  dir_ = dir;
}

std::string ObjectCache::key(const std::vector<std::string>& argv, const fs::path& work, const std::string& source_text,
                             const std::string& context) const {
  std::string in = "synclab-grade object cache 2\n" + context + "\n";
  for (const auto& a : argv) {
    in += portable(a, work);
    in.push_back('\0');
  }
  in += "\n" + (argv.empty() ? std::string() : sha256_file(argv[0])) + "\n" + toolkit_identity();
  in += sha256_hex(source_text);
  return sha256_hex(in);
}

std::optional<ObjectCache::Hit> ObjectCache::find(const std::string& key, const fs::path& work) const {
  if (!enabled() || key.size() < 8) return std::nullopt;
  const fs::path entry = dir_ / key.substr(0, 2) / key;
  bool ok = false;
  const std::string inputs = read_all(entry / "inputs.tsv", ok);
  if (!ok) return std::nullopt;
  std::istringstream lines(inputs);
  std::string line;
  size_t n = 0;
  while (std::getline(lines, line)) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) return std::nullopt;
    if (hash_once(local(line.substr(tab + 1), work)) != line.substr(0, tab)) return std::nullopt;
    ++n;
  }
  std::error_code ec;
  if (n == 0 || !fs::is_regular_file(entry / "object.o", ec)) return std::nullopt;
  // (an entry cut short, or an object changed since it was stored, is no hit)
  const std::string sum = read_all(entry / "object.sha256", ok);
  if (!ok || sha256_file(entry / "object.o") != sum) return std::nullopt;
  Hit hit;
  hit.object = entry / "object.o";
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);  // (least recently used goes first)
  return hit;
}

std::string ObjectCache::store(const std::string& key, const fs::path& object, const fs::path& deps_file,
                               const fs::path& work) {
  if (!enabled()) return "no cache";
  bool ok = false;
  const std::string deps = read_all(deps_file, ok);
  if (!ok) return "no dependency list " + deps_file.string();
  std::string inputs;
  for (const auto& d : parse_dependency_list(deps)) {
    const fs::path p = fs::path(d).is_absolute() ? fs::path(d) : deps_file.parent_path() / d;
    const std::string h = hash_once(p.lexically_normal().string());
    if (h.empty()) return "cannot read " + p.string();
    inputs += h + "\t" + portable(p.lexically_normal().string(), work) + "\n";
  }
  if (inputs.empty()) return "an empty dependency list";
  bool read_ok = false;
  const std::string bytes = read_all(object, read_ok);
  if (!read_ok || bytes.empty()) return "cannot read the object " + object.string();
  const fs::path parent = dir_ / key.substr(0, 2), entry = parent / key;
  std::error_code ec;
  fs::create_directories(parent, ec);
  std::string templ = (parent / ("new-" + key.substr(0, 8) + ".XXXXXX")).string();
  if (!mkdtemp(templ.data())) return "cannot create a directory in " + parent.string();
  const fs::path tmp = templ;
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream out(tmp / name, std::ios::binary);
    out << text;
    out.close();
    return static_cast<bool>(out);
  };
  std::string why;
  if (!write("object.o", bytes) || !write("object.sha256", sha256_hex(bytes)) || !write("inputs.tsv", inputs))
    why = "cannot write into " + tmp.string();
  if (why.empty()) {
    // A stored entry is only looked for after a miss: one already there no longer matches (an
    // included file changed since), so the new one replaces it, whole or not at all.
    if (fs::exists(entry, ec)) {
      const fs::path old = parent / ("old-" + tmp.filename().string());
      fs::rename(entry, old, ec);
      if (!ec) fs::remove_all(old, ec);
      ec.clear();
    }
    fs::rename(tmp, entry, ec);
    if (ec && !fs::exists(entry)) why = "cannot store the object: " + ec.message();
  }
  std::error_code ignore;
  if (fs::exists(tmp, ignore)) fs::remove_all(tmp, ignore);
  return why;
}

void ObjectCache::trim() const {
  if (!enabled()) return;
  struct Entry {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& sub : fs::directory_iterator(dir_, ec)) {
    if (!sub.is_directory(ec)) continue;
    for (const auto& e : fs::directory_iterator(sub.path(), ec)) {
      if (!e.is_directory(ec)) continue;
      // another grading's entry being written (or an old one being removed) is not an entry
      const std::string n = e.path().filename().string();
      if (n.rfind("new-", 0) == 0 || n.rfind("old-", 0) == 0) continue;
      uint64_t bytes = 0;
      for (const auto& f : fs::directory_iterator(e.path(), ec))
        if (f.is_regular_file(ec)) bytes += f.file_size(ec);
      entries.push_back({e.path(), fs::last_write_time(e.path(), ec), bytes});
      total += bytes;
    }
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const auto& e : entries) {
    if (total <= max_bytes_) break;
    fs::remove_all(e.path, ec);
    total -= std::min(total, e.bytes);
  }
}

}  // namespace synclab::grade
