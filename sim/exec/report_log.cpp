#include "sim/exec/report_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "sim/exec/simulator.h"

namespace synclab::sim {

std::string ReportLog::key(const Report& r) {
  std::string k = fmt::format("{}|{}|", report_kind_name(r.kind), static_cast<int>(r.severity));
  for (char c : r.title) k += std::isdigit(static_cast<unsigned char>(c)) ? '#' : c;
  auto line = [](const SourceLoc& s) { return fmt::format("{}:{}:{}", s.file, s.line, s.ptx_line); };
  std::vector<std::string> lines{line(r.where)};
  for (const Report::Party& p : r.parties) lines.push_back(line(p.where));
  std::sort(lines.begin() + 1, lines.end());
  lines.erase(std::unique(lines.begin() + 1, lines.end()), lines.end());
  for (const std::string& l : lines) k += "|" + l;
  return k;
}

void ReportLog::print(const LaunchResult& r, bool all, std::FILE* out) {
  bool printed = false;
  for (const Report& rep : r.reports) {
    if (!all && rep.kind != ReportKind::Info) {
      auto [it, fresh] = seen_.try_emplace(key(rep), 0);
      if (!fresh) {
        ++it->second;
        ++repeats_;
        if (!told_) {
          told_ = true;
          std::fputs(
              "========= SyncLab: later launches repeat reports printed above; each is printed once "
              "(SYNCLAB_REPORTS=all prints every one)\n",
              out);
        }
        continue;
      }
    }
    std::fputs(rep.render().c_str(), out);
    printed = true;
  }
  if (!r.summary.empty() && (printed || all)) std::fputs(r.summary.c_str(), out);
}

}  // namespace synclab::sim
