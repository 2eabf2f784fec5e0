#include "sim/exec/report.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>

namespace synclab::sim {

const char* report_kind_name(ReportKind k) {
  switch (k) {
    case ReportKind::Fault: return "fault";
    case ReportKind::Trap: return "trap";
    case ReportKind::Assert: return "assert";
    case ReportKind::Deadlock: return "deadlock";
    case ReportKind::Hang: return "hang";
    case ReportKind::Budget: return "budget";
    case ReportKind::Race: return "race";
    case ReportKind::Sync: return "sync";
    case ReportKind::Init: return "init";
    case ReportKind::Info: return "info";
  }
  return "?";
}

std::string demangle_name(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (!d) return name;
  std::string out = d;
  std::free(d);
  return out;
}

std::string lane_list(uint32_t mask) {
  std::string s;
  for (int i = 0; i < 32;) {
    if (!((mask >> i) & 1)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < 32 && ((mask >> (j + 1)) & 1)) ++j;
    if (!s.empty()) s += ",";
    s += i == j ? fmt::format("{}", i) : fmt::format("{}-{}", i, j);
    i = j + 1;
  }
  return s.empty() ? "none" : s;
}

std::string lanes_phrase(uint32_t mask) {
  return (__builtin_popcount(mask) == 1 ? "lane " : "lanes ") + lane_list(mask);
}

std::string Report::render() const {
  const char* sev = severity == Severity::Error ? "ERROR" : severity == Severity::Warning ? "WARNING" : "INFO";
  std::string out = fmt::format("========= SyncLab {} ({}): {}\n", sev, report_kind_name(kind), title);
  if (!kernel.empty()) {
    out += fmt::format("=========     in kernel {}", demangle_name(kernel));
    if (block >= 0) out += fmt::format(", block {}", block);
    if (thread >= 0) out += fmt::format(", thread {}", thread);
    out += "\n";
  }
  if (where.line || where.ptx_line) {
    out += "=========     at ";
    if (!where.file.empty() && where.line)
      out += fmt::format("{}:{}", where.file, where.line);
    else
      out += "(no source line: build with -lineinfo)";
    if (where.ptx_line) out += fmt::format(" (PTX line {})", where.ptx_line);
    for (const std::string& call : where.inlined_into) out += fmt::format(", inlined into {}", call);
    out += "\n";
  }
  size_t start = 0;
  while (start < details.size()) {
    size_t nl = details.find('\n', start);
    if (nl == std::string::npos) nl = details.size();
    out += "=========     " + details.substr(start, nl - start) + "\n";
    start = nl + 1;
  }
  if (!replay.empty()) out += fmt::format("=========     replay with: {}\n", replay);
  return out;
}

}  // namespace synclab::sim
