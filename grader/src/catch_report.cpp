#include "catch_report.h"

#include <fmt/format.h>

#include <pugixml.hpp>
#include <algorithm>
#include <regex>
#include <sstream>
#include <vector>

namespace synclab::grade {

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return {};
  size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

// Lines of a Catch2 text block, each trimmed of the reporter's indentation.
std::string dedent(const std::string& text, const std::string& indent) {
  std::string out, line;
  std::string t = trim(text);
  size_t start = 0;
  while (start <= t.size()) {
    size_t nl = t.find('\n', start);
    line = trim(t.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    out += indent + line + "\n";
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// The first line of a message; when it only introduces what follows ("..., run 1:"), with the
// next line joined to it, so that a one-line summary still says what went wrong.
std::string first_line(const std::string& text) {
  std::string t = trim(text);
  const size_t nl = t.find('\n');
  std::string first = trim(t.substr(0, nl));
  if (nl != std::string::npos && !first.empty() && first.back() == ':') {
    std::string rest = trim(t.substr(nl + 1));
    std::string second = trim(rest.substr(0, rest.find('\n')));
    if (!second.empty()) first += " " + second;
  }
  return first;
}

// The headline of an exception's text: the simulator's word on why the run stopped ("simulator:
// hang at histogram.cu:20 (...)", written by the labs' CUDA checks) when there is one, followed by
// the failed call; else the first line.
std::string exception_headline(const std::string& text) {
  const std::string t = trim(text);
  size_t at = t.find("simulator: ");
  std::string first = first_line(t);
  if (at == std::string::npos) return "unexpected exception: " + first;
  const size_t end = t.find('\n', at);
  std::string cause = trim(t.substr(at, end == std::string::npos ? std::string::npos : end - at));
  return cause + "; unexpected exception: " + first;
}

std::string where(const pugi::xml_node& n) {
  std::string file = n.attribute("filename").as_string();
  std::string line = n.attribute("line").as_string();
  if (file.empty()) return {};
  return line.empty() ? file : file + ":" + line;
}

// Walks a <TestCase> or <Section>, collecting what failed. `infos` are the INFO messages in scope.
// Sections nest a few levels in real reports; a report nested deeper than this was not written by
// Catch2 and is not read further (it would otherwise exhaust the stack).
constexpr int kMaxDepth = 64;

bool too_deep(const pugi::xml_node& root) {
  // Iteratively: the depth of the deepest element.
  std::vector<std::pair<pugi::xml_node, int>> stack = {{root, 0}};
  while (!stack.empty()) {
    auto [n, d] = stack.back();
    stack.pop_back();
    if (d > kMaxDepth) return true;
    for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) stack.push_back({c, d + 1});
  }
  return false;
}

void collect(const pugi::xml_node& node, std::vector<std::string>& infos, std::string& out, std::string& first,
             std::string& first_expr) {
  for (pugi::xml_node c : node.children()) {
    std::string tag = c.name();
    if (tag == "Info") {
      infos.push_back(trim(c.text().as_string()));
    } else if (tag == "Section") {
      std::vector<std::string> inner = infos;
      collect(c, inner, out, first, first_expr);
    } else if (tag == "Expression" && std::string(c.attribute("success").as_string()) == "false") {
      out += fmt::format("{}: failed {}( {} )\n", where(c), c.attribute("type").as_string(),
                         trim(c.child("Original").text().as_string()));
      std::string expanded = trim(c.child("Expanded").text().as_string());
      if (!expanded.empty()) out += "  with expansion:\n" + dedent(expanded, "    ");
      // An exception thrown while the expression was evaluated (Catch2 then reports the placeholder
      // expression "{Unknown expression after the reported line}"): the exception is the cause.
      for (const pugi::xml_node& e : c.children("Exception")) {
        out += "  unexpected exception:\n" + dedent(e.text().as_string(), "    ");
        if (first.empty()) first = exception_headline(e.text().as_string());
      }
      for (const pugi::xml_node& e : c.children("FatalErrorCondition")) {
        out += "  fatal error:\n" + dedent(e.text().as_string(), "    ");
        if (first.empty()) first = "fatal error: " + first_line(e.text().as_string());
      }
      for (const auto& i : infos) out += "  with message:\n" + dedent(i, "    ");
      // The one-line summary of a check that failed: what its messages say (a test that explains
      // with INFO and then REQUIRE(problem.empty()) puts the explanation there, not in the
      // expression), else the expression and its expansion.
      if (first_expr.empty()) {
        std::string said;
        for (const auto& i : infos) {
          const std::string line = first_line(i);
          if (!line.empty()) said += (said.empty() ? "" : "; ") + line;
        }
        first_expr = !said.empty() ? said
                                   : fmt::format("{}( {} ) is false: {}", c.attribute("type").as_string(),
                                                 trim(c.child("Original").text().as_string()),
                                                 first_line(c.child("Expanded").text().as_string()));
      }
      infos.clear();  // (the reporter writes the messages in scope again before the next result)
    } else if (tag == "Failure") {
      out += fmt::format("{}: failed:\n", where(c)) + dedent(c.text().as_string(), "  ");
      for (const auto& i : infos) out += "  with message:\n" + dedent(i, "    ");
      infos.clear();
      if (first.empty()) first = first_line(c.text().as_string());
    } else if (tag == "Exception") {
      out += fmt::format("{}: unexpected exception:\n", where(c)) + dedent(c.text().as_string(), "  ");
      if (first.empty()) first = exception_headline(c.text().as_string());
    } else if (tag == "FatalErrorCondition") {
      out += fmt::format("{}: fatal error:\n", where(c)) + dedent(c.text().as_string(), "  ");
      if (first.empty()) first = "fatal error: " + first_line(c.text().as_string());
    }
  }
}

}  // namespace

CaseReport read_case_report(const std::string& xml, const std::string& case_name) {
  CaseReport r;
  pugi::xml_document doc;
  pugi::xml_parse_result pr = doc.load_buffer(xml.data(), xml.size());
  // A report cut short (a crash, a kill) is not complete; what was parsed still says what failed.
  r.parsed = bool(pr);
  if (!pr) r.parse_error = xml.empty() ? "no report was written" : pr.description();
  pugi::xml_node root = doc.child("Catch");
  if (!root) root = doc.child("Catch2TestRun");  // Catch2 3.x
  if (!root) {
    r.parsed = false;
    if (r.parse_error.empty()) r.parse_error = "not a Catch2 XML report";
    return r;
  }
  // One document: a single root element and nothing else of substance around it.
  int elements = 0;
  for (pugi::xml_node c = doc.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element || c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) ++elements;
  if (elements != 1) {
    r.parsed = false;
    r.parse_error = "more than one document in the report";
    return r;
  }
  if (too_deep(root)) {
    r.parsed = false;
    r.parse_error = "the report is nested too deeply to be Catch2's";
    return r;
  }
  std::vector<pugi::xml_node> cases;
  for (pugi::xpath_node x : root.select_nodes(".//TestCase")) cases.push_back(x.node());
  r.test_cases = int(cases.size());
  for (const auto& c : cases) {
    std::vector<std::string> infos;
    std::string first_expr;
    collect(c, infos, r.messages, r.first, first_expr);
    if (r.first.empty()) r.first = first_expr;
  }
  if (cases.size() == 1) {
    const pugi::xml_node& c = cases[0];
    r.name_matches = std::string(c.attribute("name").as_string()) == case_name;
    pugi::xml_node overall = c.child("OverallResult");
    bool ok = overall && std::string(overall.attribute("success").as_string()) == "true";
    pugi::xml_node totals = root.child("OverallResults");
    if (totals) r.failures = totals.attribute("failures").as_int(-1);
    r.success = ok && r.failures == 0;
  }
  return r;
}

std::string catch_test_spec(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == ',' || c == '[' || c == ']' || c == '\\' || c == '"' || c == '~' || c == '*') out += '\\';
    out += c;
  }
  return out;
}

void append_catch_tags(const std::string& line, std::vector<std::string>& tags) {
  static const std::regex tag("\\[([^\\]]+)\\]");
  for (std::sregex_iterator m(line.begin(), line.end(), tag), e; m != e; ++m) tags.push_back((*m)[1].str());
}

CaseTags read_tag_listing(const std::string& output, int exit_code) {
  CaseTags listed;
  std::istringstream in(output);
  std::string line, last;
  while (std::getline(in, line)) {
    const size_t a = line.find_first_not_of(' ');
    if (a == std::string::npos) {
      last.clear();
      continue;
    }
    if (a == 2 && line[a] != '[') {
      last = line.substr(a);
      while (!last.empty() && last.back() == ' ') last.pop_back();
      listed[last];
    } else if (a > 2 && line[a] == '[' && !last.empty()) {
      append_catch_tags(line, listed[last]);
      last.clear();
    } else {
      last.clear();
    }
  }
  const size_t n = listed.size();
  if (exit_code != 0 && size_t(exit_code) != std::min<size_t>(n, 255)) return {};
  return listed;
}

}  // namespace synclab::grade
