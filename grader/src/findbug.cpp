// Find the bug: pools, draws, answers and fixes (findbug.h).

#include "findbug.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "manifest.h"

namespace fs = std::filesystem;

namespace synclab::grade::findbug {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// The index of the checks' first line, or lines.size() when there is none.
size_t marker_index(const std::vector<std::string>& lines) {
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind(kMarker, 0) == 0) return i;  // (lines squeezed: see check_fix)
  return lines.size();
}

// Words a line added by a fix may not hold: they end the program or skip its checks early (exit,
// abort, a jump, a second main), or change what the checks below compile to (the preprocessor).
const char* forbidden_word(const std::string& line) {
  std::string code = line.substr(0, line.find("//"));
  const std::string t = trim(code);
  // (an #include of a library header, <cuda/atomic> for an atomic_ref, changes nothing below)
  if (!t.empty() && t[0] == '#') {
    std::string d = trim(t.substr(1));
    if (d.rfind("include", 0) == 0 && trim(d.substr(7)).rfind('<', 0) == 0 && d.find('>') != std::string::npos)
      return nullptr;
    return "#";
  }
  static const char* const kWords[] = {"exit",   "_exit",   "_Exit",  "quick_exit", "abort",   "main",
                                       "atexit", "longjmp", "setjmp", "asm",        "__asm__", "signal",
                                       "raise",  "getenv",  "system", "fork"};
  std::string word;
  for (size_t i = 0; i <= code.size(); ++i) {
    const char c = i < code.size() ? code[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
      continue;
    }
    for (const char* w : kWords)
      if (word == w) return w;
    word.clear();
  }
  return nullptr;
}

}  // namespace

Pool find_pool(const std::string& lab_dir) {
  Pool pool;
  pool.dir = (fs::path(lab_dir) / "findbug").string();
  std::error_code ec;
  if (!fs::is_directory(pool.dir, ec)) return pool;
  for (const auto& e : fs::directory_iterator(pool.dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".cu") pool.names.push_back(e.path().stem().string());
  std::sort(pool.names.begin(), pool.names.end());
  return pool;
}

std::string draw(const Pool& pool, const std::string& lab, const std::string& student) {
  if (pool.empty()) return {};
  std::string id = trim(student);
  for (char& c : id) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (id.empty()) return pool.names.front();
  uint64_t h = 14695981039346656037ull;  // FNV-1a over "lab/id"
  for (char c : lab.substr(0, 2) + "/" + id) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return pool.names[h % pool.names.size()];
}

Answer parse_answer(const std::string& text) {
  Answer a;
  int n = 0;
  for (const std::string& raw : split_lines(text)) {
    ++n;
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      a.problems.push_back(fmt::format("findbug.txt line {}: '{}' is not 'program: NAME' or 'line: N'", n, line));
      continue;
    }
    std::string key = trim(line.substr(0, colon));
    for (char& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "program") {
      a.program = value;
    } else if (key == "line") {
      size_t used = 0;
      long v = 0;
      try {
        v = std::stol(value, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != value.size() || v < 1 || v > long(kMaxLines)) {
        a.problems.push_back(
            fmt::format("findbug.txt line {}: 'line: {}' wants one line number of the program", n, value));
        continue;
      }
      if (a.line != 0 && a.line != int(v))
        a.problems.push_back(
            fmt::format("findbug.txt line {}: a second line number ({}, after {}); give one", n, v, a.line));
      a.line = int(v);
    } else {
      a.problems.push_back(fmt::format("findbug.txt line {}: unknown key '{}' (program or line)", n, key));
    }
  }
  return a;
}

// A line as the comparison sees it: spaces and tabs at its ends dropped, runs of them inside one
// (re-indenting a block changes no line).
std::string squeezed(const std::string& line) {
  std::string out;
  bool space = false;
  for (char c : trim(line)) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

FixCheck check_fix(const std::string& original, const std::string& fixed) {
  FixCheck f;
  const std::vector<std::string> a_text = split_lines(original), b_text = split_lines(fixed);
  std::vector<std::string> a, b;
  for (const auto& l : a_text) a.push_back(squeezed(l));
  for (const auto& l : b_text) b.push_back(squeezed(l));
  if (a.size() > kMaxLines || b.size() > kMaxLines) {
    f.problems.push_back(fmt::format("it has {} lines; the program has {}: not a small fix", b.size(), a.size()));
    return f;
  }
  const size_t ma = marker_index(a), mb = marker_index(b);
  if (ma == a.size())
    throw std::runtime_error("the program as handed out has no checks line ('" + std::string(kMarker) + "')");
  if (!a.empty() && !b.empty() && a[0] != b[0]) {
    f.problems.push_back(
        fmt::format("it is another program: its first line is '{}', the program's '{}'", trim(b[0]), trim(a[0])));
    return f;
  }
  if (mb == b.size() || std::vector<std::string>(a.begin() + long(ma), a.end()) !=
                            std::vector<std::string>(b.begin() + long(mb), b.end())) {
    f.problems.push_back(fmt::format(
        "it changes the program's checks (from line {}, '{} ...', to the end): a fix changes only the lines "
        "above them",
        ma + 1, kMarker));
    return f;
  }
  // A line diff of the parts above the checks (longest common subsequence).
  const size_t n = ma, m = mb;
  std::vector<std::vector<uint16_t>> L(n + 1, std::vector<uint16_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      L[i][j] = a[i] == b[j] ? uint16_t(L[i + 1][j + 1] + 1) : std::max(L[i + 1][j], L[i][j + 1]);
  // Hunks as `diff` makes them: a hunk that removes lines touches those; one that only adds lines
  // touches the lines on both sides of the insertion.
  size_t i = 0, j = 0;
  int hunk_removed_from = 0, hunk_removed_to = 0, hunk_added = 0, hunk_at = 0;
  auto touch = [&](int line) {
    if (line >= 1 && line <= int(n)) f.touched.push_back(line);
  };
  auto close_hunk = [&] {
    if (hunk_removed_to > 0)
      for (int l = hunk_removed_from; l <= hunk_removed_to; ++l) touch(l);
    else if (hunk_added > 0)
      touch(hunk_at), touch(hunk_at + 1);
    hunk_removed_from = hunk_removed_to = hunk_added = 0;
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      close_hunk();
      ++i, ++j;
    } else if (j < m && (i == n || L[i][j + 1] > L[i + 1][j])) {
      // b[j] added before a[i]
      if (hunk_added == 0 && hunk_removed_to == 0) hunk_at = int(i);
      ++hunk_added;
      ++f.added;
      if (const char* w = forbidden_word(b[j]))
        f.problems.push_back(
            fmt::format("the added line '{}' holds '{}': a fix may not end the program, skip its "
                        "checks or use the preprocessor (but for an #include <...>)",
                        trim(b[j]), w));
      ++j;
    } else {
      if (hunk_removed_to == 0) hunk_removed_from = int(i) + 1;
      hunk_removed_to = int(i) + 1;
      ++f.removed;
      ++i;
    }
  }
  close_hunk();
  std::sort(f.touched.begin(), f.touched.end());
  f.touched.erase(std::unique(f.touched.begin(), f.touched.end()), f.touched.end());
  if (f.added + f.removed == 0) f.problems.push_back("it is the program as handed out: nothing is changed");
  if (f.added + f.removed > kMaxChanged)
    f.problems.push_back(
        fmt::format("it adds {} and removes {} lines; a fix changes at most {} (added and removed "
                    "together): change only what the bug needs",
                    f.added, f.removed, kMaxChanged));
  return f;
}

std::map<std::string, std::vector<int>> read_answers(const std::string& tsv_path) {
  std::ifstream in(tsv_path);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", tsv_path));
  std::map<std::string, std::vector<int>> out;
  std::string row;
  int n = 0;
  while (std::getline(in, row)) {
    ++n;
    if (trim(row).empty() || trim(row)[0] == '#') continue;
    const size_t t1 = row.find('\t'), t2 = t1 == std::string::npos ? t1 : row.find('\t', t1 + 1);
    if (t1 == std::string::npos)
      throw std::runtime_error(fmt::format("{}:{}: want NAME<TAB>LINES<TAB>WHAT", tsv_path, n));
    std::vector<int> lines;
    std::istringstream ls(row.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1));
    std::string item;
    while (std::getline(ls, item, ',')) {
      try {
        lines.push_back(std::stoi(trim(item)));
      } catch (const std::exception&) {
        throw std::runtime_error(fmt::format("{}:{}: '{}' is not a line number", tsv_path, n, item));
      }
    }
    if (lines.empty()) throw std::runtime_error(fmt::format("{}:{}: no line numbers", tsv_path, n));
    out[row.substr(0, t1)] = lines;
  }
  return out;
}

std::string Run::options() const {
  return fmt::format("--model {} --memory {} --sched {} --seed {}", model, memory, sched, seed);
}

std::vector<std::string> Run::env() const {
  return {"SYNCLAB_MODEL=" + model, "SYNCLAB_MEMORY=" + memory, "SYNCLAB_SCHED=" + sched,
          fmt::format("SYNCLAB_SEED={}", seed)};
}

std::vector<Run> exploration() {
  std::vector<Run> runs;
  for (const char* model : {"its", "lockstep"})
    for (const char* memory : {"sc", "relaxed"})
      for (const char* sched : {"pct", "random"})
        for (uint64_t seed = 1; seed <= 4; ++seed) runs.push_back({model, memory, sched, seed});
  return runs;
}

std::string copy_of(const Pool& pool, const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  if (first.empty()) return "";
  for (const std::string& name : pool.names) {
    std::ifstream f(pool.path(name));
    std::string head;
    std::getline(f, head);
    if (head == first) return name;
  }
  return "";
}

int command(const std::string& grade_dir, const std::string& lab, const std::string& student,
            const std::string& check_file, const std::string& program, const std::string& copy_file) {
  try {
    const Manifest m = find_manifest(grade_dir, lab);
    const Pool pool = find_pool(m.lab_dir);
    if (pool.empty()) {
      fmt::print(stderr, "synclab-grade findbug: lab {} has no find-the-bug programs ({} is missing)\n", m.lab,
                 pool.dir);
      return 2;
    }
    if (!copy_file.empty()) {
      std::ifstream f(copy_file);
      if (!f) {
        fmt::print(stderr, "synclab-grade findbug: cannot read {}\n", copy_file);
        return 2;
      }
      const std::string own = copy_of(pool, std::string(std::istreambuf_iterator<char>(f), {}));
      if (!own.empty()) fmt::print("{}\t{}\n", own, pool.path(own));
      return 0;
    }
    const std::string name = program.empty() ? draw(pool, m.lab, student) : program;
    if (std::find(pool.names.begin(), pool.names.end(), name) == pool.names.end()) {
      fmt::print(stderr, "synclab-grade findbug: lab {} has no find-the-bug program '{}'\n", m.lab, name);
      return 2;
    }
    fmt::print("{}\t{}\n", name, pool.path(name));
    if (check_file.empty()) return 0;
    std::ifstream o(pool.path(name)), f(check_file);
    if (!f) {
      fmt::print(stderr, "synclab-grade findbug: cannot read {}\n", check_file);
      return 2;
    }
    const FixCheck c = check_fix(std::string(std::istreambuf_iterator<char>(o), {}),
                                 std::string(std::istreambuf_iterator<char>(f), {}));
    for (const auto& p : c.problems) fmt::print("{}\n", p);
    return c.problems.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "synclab-grade findbug: {}\n", e.what());
    return 2;
  }
}

}  // namespace synclab::grade::findbug
