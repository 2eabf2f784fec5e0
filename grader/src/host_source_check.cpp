#include "host_source_check.h"

#include <fmt/format.h>

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
  std::istringstream in(cudafe);
  std::string line, file;
  long lineno = 0;
  int skipping = 0;  // depth inside `#if 0`
  while (std::getline(in, line)) {
    std::smatch m;
    if (skipping > 0) {
      if (std::regex_match(line, m, conditional))
        ++skipping;
      else if (std::regex_match(line, endif))
        --skipping;
      // (line markers inside do not matter: one follows the #endif)
      continue;
    }
    if (std::regex_match(line, m, conditional)) {
      std::string cond = m[2].str();
      if (m[1] == "if" && std::regex_match(cond, std::regex(R"(\s*0\s*)"))) skipping = 1;
      continue;
    }
    if (std::regex_match(line, m, marker)) {
      lineno = std::stol(m[1].str());
      if (m[2].matched) file = m[2].str();
      continue;
    }
    const long here = lineno++;
    if (file.empty() || !is_student(file)) continue;
    const std::string name = file.substr(file.find_last_of('/') + 1);
    if (std::regex_search(line, assembly)) out.insert(fmt::format("{}:{}: assembly in host code", name, here));
    if (std::regex_search(line, m, placement))
      out.insert(fmt::format("{}:{}: an attribute that places code or data ({}) in host code", name, here,
                             m[3].matched ? m[3].str() : m[5].str()));
  }
  return {out.begin(), out.end()};
}

}  // namespace synclab::grade
