// synclab-trace: look into a SyncLab trace file.
//   synclab-trace summary FILE                  text summary (launches, events, regions, reports)
//   synclab-trace export --chrome FILE OUT.json Chrome trace-event JSON (open in Perfetto)
//   synclab-trace interleaving FILE [--report N] [--address A] [--all]
//                                               a race's accesses in order, with the sync between
//   synclab-trace schedule FILE [--launch L --event E]
//                                               the schedule file that replays the run (up to
//                                               event E of launch L: a prefix to steer from)
#include <synclab/interleaving.h>
#include <synclab/trace_export.h>
#include <synclab/trace_reader.h>
#include <synclab/trace_schedule.h>

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
  exp->add_flag("--chrome", chrome, "Chrome trace-event JSON: open it in https://ui.perfetto.dev or chrome://tracing");
  exp->add_option("FILE", file, "trace file")->required();
  exp->add_option("OUT", out_path, "output file (- for stdout)")->required();

  synclab::trace::InterleavingRequest ireq;
  auto* inter = app.add_subcommand(
      "interleaving",
      "print the accesses behind a race report (default: the first race report) or to an address, in the "
      "order they happened, with the synchronization of the threads involved in between");
  inter->add_option("FILE", file, "trace file")->required();
  inter->add_option("--report", ireq.report,
                    "report N, as `summary` numbers them (a race, or any report that names an address)");
  inter->add_option("--address", ireq.address,
                    "the memory to follow: 0x7f00 (hex), 32512 (decimal) or shared:OFFSET (a block's shared memory)");
  inter->add_option("--block", ireq.block,
                    "with --address shared:OFFSET: whose shared memory (default: the first block that uses it)");
  inter->add_option("--launch", ireq.launch,
                    "with --address alone: which launch (0, 1, ...; default: the first that accesses it)");
  inter->add_flag("--all", ireq.all, "every access in the launch, not only the window around the race");

  size_t sched_launch = 0;
  uint64_t sched_event = 0;
  auto* sched = app.add_subcommand(
      "schedule",
      "print the schedule file that replays FILE's run under SYNCLAB_SCHED=replay (docs/simulator.md, "
      "\"Replaying a schedule\"); with --launch and --event, only up to that event");
  sched->add_option("FILE", file, "trace file (recorded on the simulator)")->required();
  auto* sched_launch_opt = sched->add_option("--launch", sched_launch, "launch L (0, 1, ...; as summary numbers them)");
  auto* sched_event_opt = sched->add_option(
      "--event", sched_event, "event E of launch L (0-based, as the viewer's cursor): up to and including it");
  sched_event_opt->needs(sched_launch_opt);
  sched_launch_opt->needs(sched_event_opt);

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
  if (sched->parsed()) {
    auto t = open_or_explain(file);
    if (!t) return 1;
    if (t->gpu) {
      std::fprintf(stderr, "synclab-trace schedule: %s was recorded on a GPU: only simulator runs can be replayed\n",
                   file.c_str());
      return 1;
    }
    if (!t->warning.empty()) std::fprintf(stderr, "synclab-trace: warning: %s\n", t->warning.c_str());
    if (*sched_launch_opt) {
      if (sched_launch >= t->launches.size()) {
        std::fprintf(stderr, "synclab-trace schedule: --launch %zu: %s has %zu launch%s\n", sched_launch, file.c_str(),
                     t->launches.size(), t->launches.size() == 1 ? "" : "es");
        return 2;
      }
      const size_t n = t->launches[sched_launch].event_count();
      if (sched_event >= n) {
        std::fprintf(stderr, "synclab-trace schedule: --event %llu: launch %zu has %zu events (0..%zu)\n",
                     static_cast<unsigned long long>(sched_event), sched_launch, n, n ? n - 1 : 0);
        return 2;
      }
      std::cout << synclab::trace::schedule_prefix(*t, sched_launch, sched_event);
    } else {
      std::cout << synclab::trace::schedule_of(*t);
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  if (inter->parsed()) {
    auto t = open_or_explain(file);
    if (!t) return 1;
    if (!t->warning.empty()) std::fprintf(stderr, "synclab-trace: warning: %s\n", t->warning.c_str());
    synclab::trace::Interleaving il;
    std::string error;
    if (!synclab::trace::find_interleaving(*t, ireq, &il, &error)) {
      std::fprintf(stderr, "synclab-trace interleaving: %s: %s\n", file.c_str(), error.c_str());
      return 1;
    }
    synclab::trace::write_interleaving(*t, il, std::cout);
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
      std::fprintf(stderr, "synclab-trace: writing %s failed%s%s\n", out_path.c_str(), error.empty() ? "" : ": ",
                   error.c_str());
      return 1;
    }
    if (out_path != "-")
      std::fprintf(stderr, "wrote %s: open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing\n",
                   out_path.c_str());
    return 0;
  }
  return 2;
}
