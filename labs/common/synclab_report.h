// synclab::lab::Report, the simulator's report as a value, on its own: the labs' headers
// (labNN.h), which student files include, declare results that carry reports and need nothing
// else of synclab_lab.h, whose helpers (exploration, sub-commands, error checks) and the standard
// headers they use would cost every student file's compile seconds.
#pragma once

#include <cstdlib>
#include <string>

namespace synclab::lab {

// One simulator report (docs/simulator.md, docs/checkers.md), split into the parts a test checks.
struct Report {
  std::string kind;    // "race", "sync", "init", "hang", "deadlock", "fault", ...
  bool error = true;   // ERROR (false: WARNING, e.g. a race between lanes of one warp under its)
  std::string title;   // the first line after "(kind): "
  std::string where;   // "file.cu:LINE" of the report ("" when it names no line)
  std::string text;    // the whole report as printed

  // "file.cu:LINE" without the directories.
  std::string short_where() const {
    size_t slash = where.find_last_of('/');
    return slash == std::string::npos ? where : where.substr(slash + 1);
  }
  // The source line, or 0.
  int line() const {
    size_t colon = where.find_last_of(':');
    return colon == std::string::npos ? 0 : std::atoi(where.c_str() + colon + 1);
  }
};

}  // namespace synclab::lab
