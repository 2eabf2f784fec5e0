// synclab-trace: look into a SyncLab trace file.
//   synclab-trace summary FILE                  text summary (launches, events, regions, reports)
//   synclab-trace export --chrome FILE OUT.json Chrome trace-event JSON (open in Perfetto)
#include <synclab/trace_export.h>
#include <synclab/trace_reader.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>

namespace {

std::unique_ptr<synclab::trace::Trace> open_or_explain(const std::string& path) {
  std::string error;
  auto t = synclab::trace::load(path, &error);
  if (!t) std::fprintf(stderr, "synclab-trace: %s\n", error.c_str());
  return t;
}

}  // namespace

int run(int argc, char** argv);

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // never a crash, whatever the file holds
    std::fprintf(stderr, "synclab-trace: %s\n", e.what());
    return 1;
  }
}

int run(int argc, char** argv) {
  CLI::App app{"Summarize or export a SyncLab trace file (docs/trace-format.md)."};
  app.require_subcommand(1);

  std::string file;
  auto* summary = app.add_subcommand("summary", "print a text summary of FILE");
  summary->add_option("FILE", file, "trace file")->required();

  bool chrome = false;
  std::string out_path;
  auto* exp = app.add_subcommand("export", "export FILE for another viewer");
  exp->add_flag("--chrome", chrome,
                "Chrome trace-event JSON: open it in https://ui.perfetto.dev or chrome://tracing");
  exp->add_option("FILE", file, "trace file")->required();
  exp->add_option("OUT", out_path, "output file (- for stdout)")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints the help or the error
    return rc == 0 ? 0 : 2;
  }

  if (summary->parsed()) {
    auto t = open_or_explain(file);
    if (!t) return 1;
    synclab::trace::write_summary(*t, std::cout);
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  if (exp->parsed()) {
    if (!chrome) {
      std::fprintf(stderr, "synclab-trace export: say which format (--chrome)\n");
      return 2;
    }
    auto t = open_or_explain(file);
    if (!t) return 1;
    if (!t->warning.empty()) std::fprintf(stderr, "synclab-trace: warning: %s\n", t->warning.c_str());
    std::string error;
    bool ok;
    if (out_path == "-") {
      ok = synclab::trace::write_chrome_json(*t, std::cout, &error);
    } else {
      std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
      if (!out) {
        std::fprintf(stderr, "synclab-trace: cannot create %s\n", out_path.c_str());
        return 1;
      }
      ok = synclab::trace::write_chrome_json(*t, out, &error);
      out.close();
      ok = ok && !out.fail();
    }
    if (!ok) {
      std::fprintf(stderr, "synclab-trace: writing %s failed%s%s\n", out_path.c_str(),
                   error.empty() ? "" : ": ", error.c_str());
      return 1;
    }
    if (out_path != "-")
      std::fprintf(stderr, "wrote %s: open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing\n",
                   out_path.c_str());
    return 0;
  }
  return 2;
}
