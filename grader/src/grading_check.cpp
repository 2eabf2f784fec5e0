// What a student file may include, contain and call (grading.h): its dependency list, its host
// code as nvcc's front end left it (host_source_check.h), its object (object_check.h).
#include "grading.h"

#include <fmt/format.h>

#include <algorithm>

#include "host_source_check.h"

namespace synclab::grade {

std::vector<std::string> Grading::check_includes(const fs::path& deps) {
  std::string text = read_private(deps, 4 << 20);
  if (text.empty()) throw GradeError(fmt::format("the compiler wrote no dependency list ({})", deps.string()));
  std::vector<fs::path> roots = {dirs_.src, "/usr/include", "/usr/lib/gcc", "/usr/local/include"};
  const char* cuda = std::getenv("SYNCLAB_CUDA_HOME");
  roots.push_back(cuda && *cuda ? cuda : "/usr/local/cuda");
  // The simulator's compiler driver puts its own toolkit headers first (synclab-nvcc-include,
  // beside it: its <cuda/atomic>).
  const std::vector<std::string> driver = without_ccache(be_.compiler);
  if (!driver.empty()) roots.push_back(fs::path(driver.front()).parent_path() / "synclab-nvcc-include");
  for (size_t i = 0; i < be_.cu_flags.size(); ++i) {
    const std::string& a = be_.cu_flags[i];
    if (a == "-I" && i + 1 < be_.cu_flags.size())
      roots.push_back(be_.cu_flags[i + 1]);
    else if (a.rfind("-I", 0) == 0 && a.size() > 2)
      roots.push_back(a.substr(2));
  }
  std::error_code ec;
  for (auto& r : roots) {
    fs::path c = fs::weakly_canonical(r, ec);
    if (!ec) r = c;
  }
  // Make syntax: "target: dep dep \" continued; spaces in names escaped with a backslash.
  std::vector<std::string> words;
  std::string w;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      ++i;
      c = ' ';
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      w += ' ';
      ++i;
      continue;
    }
    if (std::isspace((unsigned char)c)) {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  if (!w.empty()) words.push_back(w);
  std::vector<std::string> outside;
  bool after_colon = false;
  for (const auto& word : words) {
    if (!after_colon) {
      if (!word.empty() && word.back() == ':')
        after_colon = true;
      else if (word == ":")
        after_colon = true;
      continue;
    }
    fs::path d = word;
    if (d.is_relative()) d = dirs_.build / d;
    fs::path c = fs::weakly_canonical(d, ec);
    if (ec) c = d.lexically_normal();
    bool ok = false;
    for (const auto& r : roots) {
      auto rel = c.lexically_relative(r);
      if (!rel.empty() && *rel.begin() != "..") ok = true;
    }
    if (!ok) outside.push_back("includes " + shorten(c.string()) + ", which is not part of the lab as handed out");
  }
  return outside;
}

std::vector<std::string> Grading::check_host_code(const std::string& file, const fs::path& keep) {
  // FILE.cudafe1.cpp, or FILE.compute_NN.cudafe1.cpp when several architectures are built.
  std::error_code ec;
  std::string text;
  for (const auto& e : fs::directory_iterator(keep, ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 12 && n.compare(n.size() - 12, 12, ".cudafe1.cpp") == 0) text += read_private(e.path(), 256 << 20);
  }
  if (text.empty())
    throw GradeError(
        fmt::format("the compiler left no host code of {} to check (no *.cudafe1.cpp in {})", file, keep.string()));
  const fs::path src = fs::weakly_canonical(dirs_.src, ec);
  auto is_student = [&](const std::string& name) {
    fs::path p = name;
    if (p.is_relative()) p = dirs_.build / p;
    fs::path c = fs::weakly_canonical(p, ec);
    if (ec) c = p.lexically_normal();
    auto rel = c.lexically_relative(src);
    return !rel.empty() && *rel.begin() != "..";
  };
  std::vector<std::string> problems = check_host_source(text, is_student);
  fs::remove_all(keep, ec);  // (large; only the object is needed from here on)
  return problems;
}

std::vector<std::string> Grading::check_object(const std::string& file, const fs::path& obj) {
  std::string objdump = find_program("objdump");
  if (objdump.empty())
    throw GradeError(
        "objdump (Debian package binutils, installed with g++) is missing: the grader needs it to "
        "check what a student file calls");
  RunSpec spec;
  spec.env = base_env(dirs_.build);
  spec.cwd = dirs_.build.string();
  spec.identity = identity_;
  ObjectCheck c = disassemble_and_check(objdump, obj.string(), spec);
  if (!c.error.empty()) throw GradeError(fmt::format("cannot check the compiled {}: {}", file, c.error));
  return c.problems;
}

}  // namespace synclab::grade
