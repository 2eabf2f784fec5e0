#include "host_source_check.h"

#include <fmt/format.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace synclab::grade {

std::vector<std::string> check_host_source(const std::string& cudafe,
                                           const std::function<bool(const std::string&)>& is_student) {
  static const std::regex marker(R"re(^\s*#\s*(?:line\s+)?(\d+)(?:\s+"((?:[^"\\]|\\.)*)")?.*$)re");
  static const std::regex conditional(R"(^\s*#\s*(if|ifdef|ifndef)\b(.*)$)");
  static const std::regex endif(R"(^\s*#\s*endif\b.*$)");
  static const std::regex assembly(R"(\b(asm|__asm|__asm__)\b)");
  static const std::regex placement(
      R"((__attribute(__)?\s*\(\([^;{]*\b(section|naked|ifunc|alias|symver)\b)|(\bgnu::(section|naked|ifunc|alias|symver)\b))");
  std::set<std::string> out;
  std::map<std::string, bool> student;  // is_student's answer per file name (it may stat the path)
  std::istringstream in(cudafe);
  std::string line, file;
  bool in_student = false;
  long lineno = 0;
  int skipping = 0;  // depth inside `#if 0`
  while (std::getline(in, line)) {
    // Only a line whose first non-blank character is '#' can be a directive or a line marker; the
    // regular expressions run on those alone (a front end's output is some 80,000 lines).
    const size_t first = line.find_first_not_of(" \t\v\f\r");  // (the patterns' \s)
    const bool directive = first != std::string::npos && line[first] == '#';
    std::smatch m;
    if (skipping > 0) {
      if (!directive) continue;
      if (std::regex_match(line, m, conditional))
        ++skipping;
      else if (std::regex_match(line, endif))
        --skipping;
      // (line markers inside do not matter: one follows the #endif)
      continue;
    }
    if (directive && std::regex_match(line, m, conditional)) {
      std::string cond = m[2].str();
      if (m[1] == "if" && std::regex_match(cond, std::regex(R"(\s*0\s*)"))) skipping = 1;
      continue;
    }
    if (directive && std::regex_match(line, m, marker)) {
      lineno = std::stol(m[1].str());
      if (m[2].matched && m[2].str() != file) {
        file = m[2].str();
        const auto [it, added] = student.try_emplace(file, false);
        if (added) it->second = is_student(file);
        in_student = it->second;
      }
      continue;
    }
    const long here = lineno++;
    if (file.empty() || !in_student) continue;
    const std::string name = file.substr(file.find_last_of('/') + 1);
    if (std::regex_search(line, assembly)) out.insert(fmt::format("{}:{}: assembly in host code", name, here));
    if (std::regex_search(line, m, placement))
      out.insert(fmt::format("{}:{}: an attribute that places code or data ({}) in host code", name, here,
                             m[3].matched ? m[3].str() : m[5].str()));
  }
  return {out.begin(), out.end()};
}

}  // namespace synclab::grade
