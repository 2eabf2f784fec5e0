#include "manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace synclab::grade {

namespace {

std::vector<std::string> strings(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) throw std::runtime_error(fmt::format("{}: '{}' is missing", where, key));
  std::vector<std::string> out;
  for (const auto& v : j.at(key)) out.push_back(v.get<std::string>());
  return out;
}

}  // namespace

Manifest load_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("cannot read the lab manifest {}", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not valid JSON ({})", path, e.what()));
  }
  Manifest m;
  m.path = path;
  try {
    m.lab = j.at("lab").get<std::string>();
    m.program = j.at("program").get<std::string>();
    m.lab_dir = j.at("lab_dir").get<std::string>();
    m.solutions_dir = j.at("solutions_dir").get<std::string>();
    m.has_reference = j.value("has_reference", true);
    m.student_files = strings(j, "student_files", path);
    m.tests = strings(j, "tests", path);
    for (const auto& [name, b] : j.at("backends").items()) {
      const std::string where = fmt::format("{} (backend {})", path, name);
      Backend be;
      be.compiler = strings(b, "compiler", where);
      be.cu_flags = strings(b, "cu_flags", where);
      be.cpp_flags = strings(b, "cpp_flags", where);
      be.linker = strings(b, "linker", where);
      be.libs = strings(b, "libs", where);
      be.test_objects = strings(b, "test_objects", where);
      be.harness_objects = strings(b, "harness_objects", where);
      // (absent from a manifest written before the grader built harness programs: then a
      // submission's harness program cannot be built, and the grader says so)
      if (b.contains("main_objects")) be.main_objects = strings(b, "main_objects", where);
      for (const auto& [file, obj] : b.at("solution_objects").items())
        be.solution_objects[file] = obj.get<std::string>();
      be.reference_tests = b.at("reference_tests").get<std::string>();
      m.backends[name] = be;
    }
  } catch (const std::runtime_error&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: unexpected content ({})", path, e.what()));
  }
  if (m.student_files.empty()) throw std::runtime_error(fmt::format("{}: the lab declares no student files", path));
  return m;
}

Manifest find_manifest(const std::string& grade_dir, const std::string& which) {
  std::vector<std::string> labs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(grade_dir, ec))
    if (e.path().extension() == ".json" && e.path().stem().string().size() > 3)
      labs.push_back(e.path().stem().string());
  std::sort(labs.begin(), labs.end());
  if (labs.empty())
    throw std::runtime_error(fmt::format("no lab manifests in {} (is the build complete? ./synclab build)", grade_dir));
  std::string want = which;
  if (!want.empty() && std::all_of(want.begin(), want.end(), ::isdigit) && want.size() < 3)
    want = fmt::format("{:02d}", std::stoi(want));
  for (const auto& l : labs)
    if (l == want || l.rfind(want + "-", 0) == 0) return load_manifest(grade_dir + "/" + l + ".json");
  std::string list;
  for (const auto& l : labs) list += (list.empty() ? "" : ", ") + l;
  throw std::runtime_error(fmt::format("there is no lab '{}' to grade; the labs are: {}", which, list));
}

}  // namespace synclab::grade
