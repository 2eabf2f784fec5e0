// synclab-litmus: the PTX memory model's oracle on litmus tests (docs/litmus-format.md,
// docs/memory-model.md).
//
//   synclab-litmus check FILE...            every test's `expect` against the oracle's verdict
//   synclab-litmus outcomes FILE [--test N] the outcomes PTX allows and the sequentially consistent ones
//   synclab-litmus run FILE... [options]    each test on the simulator, many seeds: every outcome must be
//                                           one the model allows; under relaxed, how many weak ones show

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/memory/oracle/enumerate.h"
#include "sim/memory/oracle/generate.h"
#include "sim/memory/oracle/litmus.h"
#include "sim/tools/litmus_run.h"
#include <synclab/fnv1a.h>

using namespace synclab::memory;

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: synclab-litmus check FILE...\n"
               "       synclab-litmus outcomes FILE [--test NAME]\n"
               "       synclab-litmus generate [--count N] [--seed S] [--out FILE] (see generate.h for more)\n"
               "check: for every test with an `expect` line, whether the PTX memory model allows its `exists`\n"
               "       outcome (enumerating the test's candidate executions) agrees with it\n"
               "outcomes: every outcome PTX allows (weak ones marked) and the sequentially consistent ones\n"
               "       synclab-litmus run FILE... [--test NAME] [--memory relaxed|sc] [--seeds N] [--instances K]\n"
               "                      [--check] [--first-seed S] [--explain] [--quiet] [--gaps] [--counts]\n"
               "                      [--min-weak PERCENT] [--until-seen [--aim A]] [--jobs J] [--save FILE]\n"
               "                      [--progress]\n"
               "       synclab-litmus run --generated COUNT [--gen-seed S] [options as above]\n"
               "run: each test on the simulator over N seeds (default 1000): every outcome must be one the model\n"
               "     allows (relaxed: PTX, enumerated; sc: an interleaving's); prints how many of the weak outcomes\n"
               "     PTX allows showed. --check: the oracle checks every run's execution too (--explain: and prints\n"
               "     a forbidden one). --min-weak: fail when fewer than PERCENT of the weak outcomes showed\n"
               "     (in the seeds that were not aimed, with --aim).\n"
               "     --instances: K copies of the test in each seed's launch, their threads interleaved (default 1):\n"
               "     K outcomes a seed.\n"
               "     --until-seen: (relaxed) a test's seeds stop once every weak outcome PTX allows has shown\n"
               "     (but for those the model's rules keep out of reach, as --gaps names them), and at least 1000\n"
               "     (or N) have run, so that every test is also checked for forbidden outcomes: N is then the\n"
               "     most seeds a test gets; the coverage is what N seeds would give, at less cost. An outcome\n"
               "     the rules keep out that shows anyway fails the test (their mirror is out of date; so with\n"
               "     --gaps too).\n"
               "     --aim: (with --until-seen) then up to A more seeds for a test whose weak outcomes have not\n"
               "     all shown, each copy of the test aimed at one of them: the model still makes only choices\n"
               "     its rules allow, but prefers the reads and final values the outcome names. Outcomes first\n"
               "     seen so are counted apart (\"when aimed\"). A test whose `exists` PTX forbids is aimed at\n"
               "     that outcome too, in all A seeds: it must still never show.\n"
               "     --counts: how many runs ended in each outcome.\n"
               "     --gaps: for each weak outcome not seen, which rule of the model keeps it out of reach\n"
               "     (sim/memory/oracle/run_order.h), or that the rules allow it and the seeds did not draw it.\n"
               "     --generated: COUNT tests of `generate` (seed S, default 1) instead of files.\n"
               "     --jobs: J processes side by side, each taking every J-th test; the report, in the tests'\n"
               "     order, and its summary are those of one process (only the summary line names J).\n"
               "     --save: keep each test's result in FILE as it ends; run again with the same FILE (and the\n"
               "     same tests and options) to go on after a run cut short: the tests FILE holds do not run\n"
               "     again, and the report is that of one uninterrupted run.\n"
               "     --progress: \"N of M tests done\" on stderr as the run goes (the default when stderr is a\n"
               "     terminal).\n");
  return 2;
}

int cmd_check(const std::vector<std::string>& files) {
  int tests = 0, bad = 0, unexpected = 0, known = 0;
  for (const std::string& f : files) {
    std::vector<LitmusTest> ts;
    try {
      ts = read_litmus_file(f);
    } catch (const LitmusError& e) {
      std::fprintf(stderr, "synclab-litmus: %s\n", e.what());
      return 2;
    }
    for (const LitmusTest& t : ts) {
      if (!t.expect_allowed) continue;
      ++tests;
      Enumeration en;
      try {
        en = enumerate_outcomes(t, {true, false});
      } catch (const LitmusError& e) {
        std::fprintf(stderr, "synclab-litmus: %s\n", e.what());
        ++bad;
        continue;
      }
      bool allowed = false;
      for (const Outcome& o : en.ptx) allowed |= satisfies(t, o);
      // A test marked `disagree` passes when the oracle gives the other verdict (and fails, as a
      // change to look at, when it agrees after all).
      const bool agree = allowed == *t.expect_allowed;
      const bool ok = t.disagree.empty() ? agree : !agree;
      if (!ok) ++unexpected;
      if (!t.disagree.empty() && ok) ++known;
      std::printf("%-9s %-48s exists %s: %s (%s %s; %llu candidates)\n",
                  !ok                  ? "MISMATCH"
                  : t.disagree.empty() ? "ok"
                                       : "disagree",
                  t.name.c_str(), t.cond_text().c_str(), allowed ? "allowed" : "forbidden",
                  t.disagree.empty() ? "expected" : "published", *t.expect_allowed ? "allowed" : "forbidden",
                  (unsigned long long)en.candidates);
      if (!t.disagree.empty() && ok) std::printf("          (known disagreement: %s)\n", t.disagree.c_str());
    }
  }
  std::printf("%d tests: %d as expected (%d of them known disagreements with their source), %d not%s\n", tests,
              tests - unexpected - bad, known, unexpected,
              bad ? fmt::format(", {} could not be enumerated", bad).c_str() : "");
  return unexpected || bad ? 1 : 0;
}

int cmd_outcomes(const std::string& file, const std::string& only) {
  std::vector<LitmusTest> ts;
  try {
    ts = read_litmus_file(file);
  } catch (const LitmusError& e) {
    std::fprintf(stderr, "synclab-litmus: %s\n", e.what());
    return 2;
  }
  bool any = false;
  for (const LitmusTest& t : ts) {
    if (!only.empty() && t.name != only) continue;
    any = true;
    Enumeration en;
    try {
      en = enumerate_outcomes(t);
    } catch (const LitmusError& e) {
      std::fprintf(stderr, "synclab-litmus: %s\n", e.what());
      return 1;
    }
    std::printf("%s: %zu outcomes allowed by PTX (%zu weak), %zu sequentially consistent; %llu candidates\n",
                t.name.c_str(), en.ptx.size(), en.weak().size(), en.sc.size(), (unsigned long long)en.candidates);
    for (const Outcome& o : en.ptx)
      std::printf("  %s %s%s\n", en.sc.count(o) ? "sc  " : "weak", outcome_text(t, o).c_str(),
                  satisfies(t, o) ? "   <- exists" : "");
    for (const Outcome& o : en.sc)
      if (!en.ptx.count(o))
        std::printf("  SC ONLY (a bug: PTX allows every SC outcome) %s\n", outcome_text(t, o).c_str());
  }
  if (!any) {
    std::fprintf(stderr, "synclab-litmus: %s has no test named '%s'\n", file.c_str(), only.c_str());
    return 2;
  }
  return 0;
}

// What one test's runs gave: its lines of the report and its share of the summary.
struct TestReport {
  std::string text;  // the lines printed for it (empty in --quiet mode when nothing is to say)
  bool failed = false;
  size_t weak_allowed = 0, weak_seen = 0, gap_outcomes = 0;
  size_t weak_aimed = 0;               // of weak_seen, those first seen in an aimed seed (--aim)
  std::map<std::string, size_t> gaps;  // weak outcomes not seen, by what keeps the model from them
};

struct RunFlags {
  synclab::litmus::RunOptions opt;
  bool quiet = false, gaps = false, counts = false, until_seen = false;
  bool progress = false;  // "N of M tests done" lines on stderr as the run goes
};

// --progress (or stderr a terminal): a line on stderr when another tenth of the tests, or 10
// seconds' worth, has ended.
struct Progress {
  size_t total = 0, done = 0, last_shown = 0;
  std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
  bool on = false;
  void step(size_t n = 1) {
    done += n;
    if (!on) return;
    const auto now = std::chrono::steady_clock::now();
    if (done == total || done - last_shown >= std::max<size_t>(total / 10, 1) ||
        now - last >= std::chrono::seconds(10)) {
      std::fprintf(stderr, "synclab-litmus: %zu of %zu tests done\n", done, total);
      last_shown = done;
      last = now;
    }
  }
};

TestReport run_one(const LitmusTest& t, const RunFlags& f) {
  const synclab::litmus::RunOptions& opt = f.opt;
  TestReport r;
  Enumeration en;
  synclab::litmus::RunResult rr;
  std::map<Outcome, std::string> kept_out;  // weak outcome -> the rule keeping the model from it ("": none)
  try {
    en = enumerate_outcomes(t);
    synclab::litmus::RunOptions o = opt;
    const std::set<Outcome> wanted = f.until_seen && opt.relaxed ? en.weak() : std::set<Outcome>{};
    if (f.until_seen && opt.relaxed) o.until_seen = &wanted;
    // What keeps the model from each weak outcome (relaxed, with --until-seen or --gaps): the
    // unaimed seeds do not wait for those its rules keep out.
    std::set<Outcome> kept;
    if (opt.relaxed && (f.until_seen || f.gaps))
      for (const Outcome& w : en.weak()) {
        std::string g = gap_of(t, w);
        if (!g.empty()) kept.insert(w);
        kept_out.emplace(w, std::move(g));
      }
    if (!kept.empty()) o.kept_out = &kept;
    if (o.aim_seeds && !t.exists.empty()) {
      // A forbidden `exists` is aimed at too (it must not show).
      bool allowed_exists = false;
      for (const Outcome& x : en.ptx) allowed_exists |= satisfies(t, x);
      o.aim_forbidden_exists = !allowed_exists;
    }
    rr = synclab::litmus::run_litmus(t, o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "synclab-litmus: %s: %s\n", t.name.c_str(), e.what());
    r.failed = true;
    r.text = fmt::format("FAIL {}: could not run: {}\n", t.name, e.what());
    return r;
  }
  const std::set<Outcome>& allowed = opt.relaxed ? en.ptx : en.sc;
  std::vector<std::string> bad = rr.problems;
  for (const auto& [o, n] : rr.counts)
    if (!allowed.count(o))
      bad.push_back(fmt::format("outcome {} ({} runs) is one the {} forbids", outcome_text(t, o), n,
                                opt.relaxed ? "PTX model" : "sequential consistency"));
  const std::set<Outcome> weak = en.weak();
  size_t seen = 0;
  std::vector<std::string> missing;
  for (const Outcome& o : weak) {
    if (opt.relaxed && !t.gap.empty() && satisfies(t, o)) {
      // An outcome the table of docs/memory-model.md says the model cannot produce.
      ++r.gap_outcomes;
      if (rr.counts.count(o))
        bad.push_back(
            fmt::format("outcome {} showed, but the test says the model cannot produce it ({}): the "
                        "table in docs/memory-model.md is out of date",
                        outcome_text(t, o), t.gap));
      const std::string g = kept_out.count(o) ? kept_out[o] : gap_of(t, o);
      if (g != t.gap)
        bad.push_back(fmt::format("outcome {}: the oracle finds it {}, not kept out by '{}'", outcome_text(t, o),
                                  g.empty() ? "within the model's rules" : "kept out by '" + g + "'", t.gap));
      continue;
    }
    if (rr.counts.count(o)) {
      ++seen;
      r.weak_aimed += rr.aimed_seen.count(o);
      if (kept_out.count(o) && !kept_out[o].empty())
        bad.push_back(
            fmt::format("outcome {} showed (first in seed {}{}), but the mirror of the model's rules "
                        "(sim/memory/oracle/run_order.cpp) says '{}' keeps it out: the mirror is out of "
                        "date (--explain prints the execution)",
                        outcome_text(t, o), rr.first_seed[o],
                        rr.first_seed[o] >= opt.first_seed + opt.seeds ? ", an aimed one" : "", kept_out[o]));
    } else if (f.gaps && opt.relaxed) {
      const std::string& g = kept_out[o];
      missing.push_back(outcome_text(t, o) + " (" + (g.empty() ? "reachable: not drawn" : "needs " + g) + ")");
      ++r.gaps[g.empty() ? "reachable under the model's rules, not drawn in these seeds" : g];
    } else {
      missing.push_back(outcome_text(t, o));
    }
  }
  if (opt.relaxed) {
    r.weak_allowed = seen + missing.size();
    r.weak_seen = seen;
  }
  r.failed = !bad.empty();
  if (!f.quiet || !bad.empty() || (opt.relaxed && !missing.empty())) {
    r.text += fmt::format("{} {}: {} runs, {} outcomes", bad.empty() ? "ok  " : "FAIL", t.name,
                          (unsigned long long)(rr.runs * opt.instances), rr.counts.size());
    if (opt.relaxed) r.text += fmt::format(", weak outcomes seen {} of {} PTX allows", seen, seen + missing.size());
    if (rr.aimed_runs)
      r.text += fmt::format(" ({} of them when aimed, in {} aimed runs)", r.weak_aimed,
                            (unsigned long long)(rr.aimed_runs * opt.instances));
    r.text += "\n";
    for (const std::string& b : bad) r.text += "  " + b + "\n";
    if (opt.relaxed)
      for (const std::string& m : missing) r.text += "  not seen: " + m + "\n";
    if (f.counts)
      for (const auto& [o, n] : rr.counts)
        r.text +=
            fmt::format("  {:8}  {}{}\n", (unsigned long long)n, outcome_text(t, o), weak.count(o) ? "  (weak)" : "");
  }
  return r;
}

// A report crosses from a worker process to the parent (--jobs), and into a --save file, as one
// record: a header line (index, failed, weak_allowed, weak_seen, weak_aimed, gap_outcomes, number
// of gap lines, bytes of text, bytes of the test's name), the name on a line, the gap lines
// ("count rule"), the text, then "end INDEX HASH" (FNV-1a of all before it). A record is written
// with one write(), so that processes appending to one file do not interleave, and the end line
// tells a whole record from one cut short (or one that another's bytes broke into).
std::string report_record(size_t index, const std::string& name, const TestReport& r) {
  std::string s = fmt::format("{} {} {} {} {} {} {} {} {}\n", index, r.failed ? 1 : 0, r.weak_allowed, r.weak_seen,
                              r.weak_aimed, r.gap_outcomes, r.gaps.size(), r.text.size(), name.size());
  s += name + "\n";
  for (const auto& [g, n] : r.gaps) s += fmt::format("{} {}\n", n, g);
  s += r.text;
  s += fmt::format("end {} {:016x}\n", index, synclab::fnv1a(s));
  return s;
}

bool write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

struct Record {
  std::string name;
  TestReport report;
};

// Reads records from `in` until its end. Returns the offset just past the last whole record; sets
// *torn when something after it is not a whole record (a run cut short while writing it, or a
// record another's bytes broke into): what follows is not read.
long read_records(std::FILE* in, std::map<size_t, Record>* into, bool* torn) {
  *torn = false;
  long good = std::ftell(in);
  std::fseek(in, 0, SEEK_END);
  const long size = std::ftell(in);
  std::fseek(in, good, SEEK_SET);
  char line[4096];
  for (;;) {
    const long start = std::ftell(in);
    if (!std::fgets(line, sizeof line, in)) break;  // (the end)
    std::string raw = line;
    size_t index = 0, allowed = 0, seen = 0, aimed = 0, gapo = 0, ngaps = 0, bytes = 0, name_bytes = 0;
    int failed = 0, used = 0;
    const long left = size - start;
    if (raw.empty() || raw.back() != '\n' ||
        std::sscanf(raw.c_str(), "%zu %d %zu %zu %zu %zu %zu %zu %zu%n", &index, &failed, &allowed, &seen, &aimed,
                    &gapo, &ngaps, &bytes, &name_bytes, &used) != 9 ||
        size_t(used) + 1 != raw.size() || name_bytes > 4096 || ngaps > 1000 || long(bytes) > left) {
      *torn = true;
      break;
    }
    Record rec;
    TestReport& r = rec.report;
    r.failed = failed != 0;
    r.weak_allowed = allowed;
    r.weak_seen = seen;
    r.weak_aimed = aimed;
    r.gap_outcomes = gapo;
    rec.name.resize(name_bytes);
    bool ok = std::fread(rec.name.data(), 1, name_bytes, in) == name_bytes && std::fgetc(in) == '\n';
    raw += rec.name + "\n";
    for (size_t g = 0; g < ngaps && ok; ++g) {
      ok = std::fgets(line, sizeof line, in) != nullptr;
      std::string gl = ok ? line : "";
      size_t n = 0;
      int at = 0;
      ok = ok && !gl.empty() && gl.back() == '\n' && std::sscanf(gl.c_str(), "%zu %n", &n, &at) == 1;
      if (!ok) break;
      raw += gl;
      r.gaps[gl.substr(size_t(at), gl.size() - size_t(at) - 1)] += n;
    }
    r.text.resize(bytes);
    ok = ok && std::fread(r.text.data(), 1, bytes, in) == bytes;
    raw += r.text;
    // (the end line: this record's index and the hash of all of it)
    ok = ok && std::fgets(line, sizeof line, in) &&
         std::string(line) == fmt::format("end {} {:016x}\n", index, synclab::fnv1a(raw));
    if (!ok) {
      *torn = true;
      break;
    }
    (*into)[index] = std::move(rec);
    good = std::ftell(in);
  }
  return good;
}

// What a --save file's first line says: the settings and tests its records belong to.
std::string save_header(const std::vector<const LitmusTest*>& tests, const RunFlags& f) {
  const synclab::litmus::RunOptions& o = f.opt;
  uint64_t h = synclab::kFnv1aBasis;  // over the tests' text
  for (const LitmusTest* t : tests) h = synclab::fnv1a(t->to_text() + '\0', h);
  // (and over this program: results of another build of the model do not mix with its own)
  uint64_t tool = 0, tool_bytes = 0;
  synclab::file_fnv1a("/proc/self/exe", &tool, &tool_bytes);
  return fmt::format(
      "synclab-litmus run results, format 2, program {:016x}: {} tests (text hash {:016x}); memory {}, seeds {} "
      "from {}, instances {}, aim {}{}{}{}{}{}{}\n",
      tool, tests.size(), h, o.relaxed ? "relaxed" : "sc", (unsigned long long)o.seeds,
      (unsigned long long)o.first_seed, o.instances, (unsigned long long)o.aim_seeds,
      f.until_seen ? ", until-seen" : "", o.check ? ", check" : "", o.explain ? ", explain" : "",
      f.gaps ? ", gaps" : "", f.counts ? ", counts" : "", f.quiet ? ", quiet" : "");
}

// --save FILE: opens FILE for appending records, after reading the records already there into
// *done (each checked against the test it names). A new file gets the header; an existing one
// must have the same header (the same tests and settings). -1 (with a message) when it cannot.
int open_save(const std::string& path, const std::string& header, const std::vector<const LitmusTest*>& tests,
              std::map<size_t, Record>* done) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "synclab-litmus: --save %s: cannot open it for writing: %s\n", path.c_str(),
                 std::strerror(errno));
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    std::fprintf(stderr, "synclab-litmus: --save %s: another run is writing to it (it is locked)\n", path.c_str());
    ::close(fd);
    return -1;
  }
  auto fail = [&] {
    ::close(fd);
    return -1;
  };
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) {
    std::fprintf(stderr, "synclab-litmus: --save %s: cannot read it: %s\n", path.c_str(), std::strerror(errno));
    return fail();
  }
  std::string first;
  for (int c; (c = std::fgetc(in)) != EOF;) {
    first += char(c);
    if (c == '\n' || first.size() > 4096) break;
  }
  if (first.empty()) {  // (a new or empty file)
    std::fclose(in);
    if (!write_all(fd, header)) {
      std::fprintf(stderr, "synclab-litmus: --save %s: cannot write to it: %s\n", path.c_str(), std::strerror(errno));
      return fail();
    }
    return fd;
  }
  if (first != header) {
    std::fclose(in);
    if (first.back() == '\n') first.pop_back();
    std::fprintf(stderr,
                 "synclab-litmus: --save %s holds the results of another run (%s), not of this one (%s); "
                 "name another file, or remove it to start over\n",
                 path.c_str(), first.c_str(), header.substr(0, header.size() - 1).c_str());
    return fail();
  }
  bool torn = false;
  const long keep = read_records(in, done, &torn);
  std::fclose(in);
  for (const auto& [i, rec] : *done)
    if (i >= tests.size() || tests[i]->name != rec.name) {
      std::fprintf(stderr, "synclab-litmus: --save %s: its record %zu is of test '%s', which this run %s\n",
                   path.c_str(), i, rec.name.c_str(),
                   i >= tests.size() ? "does not have" : ("has as '" + tests[i]->name + "'").c_str());
      return fail();
    }
  if (torn) {
    std::fprintf(stderr,
                 "synclab-litmus: --save %s: dropping what follows byte %ld, which is no whole record (a run cut "
                 "short while writing it); those tests run again\n",
                 path.c_str(), keep);
    if (ftruncate(fd, keep) != 0) {
      std::fprintf(stderr, "synclab-litmus: --save %s: cannot cut it to %ld bytes: %s\n", path.c_str(), keep,
                   std::strerror(errno));
      return fail();
    }
  }
  std::fprintf(stderr, "synclab-litmus: --save %s: %zu of %zu tests already ran; running the other %zu\n", path.c_str(),
               done->size(), tests.size(), tests.size() - done->size());
  return fd;
}

// Runs reports[i] = run_one(tests[i]) for every i, in `jobs` worker processes (each takes every
// jobs-th test still to run) when jobs > 1. The tests in `done` (read from a --save file) do not
// run again; with save_fd >= 0 (--save), every test's record is appended to it as it ends.
// False (with a message) when a worker could not run or died, or a record could not be kept.
bool run_all(const std::vector<const LitmusTest*>& tests, const RunFlags& f, unsigned jobs, const std::string& save,
             int save_fd, std::map<size_t, Record> done, std::vector<TestReport>* reports) {
  reports->assign(tests.size(), TestReport{});
  std::vector<size_t> todo;
  for (size_t i = 0; i < tests.size(); ++i)
    if (!done.count(i)) todo.push_back(i);
  bool ok = true;
  Progress progress;
  progress.on = f.progress;
  progress.total = todo.size();
  if (jobs <= 1 || todo.size() <= 1) {
    // (one process: the report is printed as it goes, so long runs show progress)
    for (size_t i = 0; i < tests.size(); ++i) {
      if (done.count(i)) {
        (*reports)[i] = std::move(done[i].report);
      } else {
        (*reports)[i] = run_one(*tests[i], f);
        progress.step();
        if (save_fd >= 0 && ok && !write_all(save_fd, report_record(i, tests[i]->name, (*reports)[i]))) {
          std::fprintf(stderr, "synclab-litmus: --save %s: cannot write to it: %s\n", save.c_str(),
                       std::strerror(errno));
          ok = false;
        }
      }
      std::fputs((*reports)[i].text.c_str(), stdout);
      std::fflush(stdout);
    }
    if (save_fd >= 0) ::close(save_fd);
    return ok;
  }
  jobs = unsigned(std::min<size_t>(jobs, todo.size()));
  const char* tmp = std::getenv("TMPDIR");
  std::string dir_template = std::string(tmp && *tmp ? tmp : "/tmp") + "/synclab-litmus.XXXXXX";
  const char* dir = mkdtemp(dir_template.data());
  if (!dir) {
    std::fprintf(stderr, "synclab-litmus: --jobs: cannot make a temporary directory: %s\n", std::strerror(errno));
    if (save_fd >= 0) ::close(save_fd);
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // (each worker writes a byte here per test it ends: the parent's progress)
  int done_pipe[2] = {-1, -1};
  if (pipe(done_pipe) != 0) done_pipe[0] = done_pipe[1] = -1;
  std::vector<pid_t> pids;
  for (unsigned j = 0; j < jobs; ++j) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::fprintf(stderr, "synclab-litmus: --jobs: cannot start worker %u: %s\n", j, std::strerror(errno));
      for (pid_t p : pids) waitpid(p, nullptr, 0);
      if (save_fd >= 0) ::close(save_fd);
      return false;
    }
    if (pid == 0) {
      const std::string path = fmt::format("{}/part.{}", dir, j);
      const int out = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (out < 0) _exit(3);
      if (done_pipe[0] >= 0) ::close(done_pipe[0]);
      bool save_failed = false;  // (the worker still runs its tests: the report has them)
      for (size_t k = j; k < todo.size(); k += jobs) {
        const size_t i = todo[k];
        const std::string rec = report_record(i, tests[i]->name, run_one(*tests[i], f));
        if (!write_all(out, rec)) _exit(3);
        if (save_fd >= 0 && !save_failed && !write_all(save_fd, rec)) save_failed = true;
        if (done_pipe[1] >= 0) write_all(done_pipe[1], std::string(1, '.'));
      }
      if (::close(out) != 0) _exit(3);
      _exit(save_failed ? 4 : 0);
    }
    pids.push_back(pid);
  }
  if (save_fd >= 0) ::close(save_fd);
  if (done_pipe[1] >= 0) {
    ::close(done_pipe[1]);
    char buf[256];
    for (ssize_t n; (n = ::read(done_pipe[0], buf, sizeof buf)) != 0;)
      if (n > 0)
        progress.step(size_t(n));
      else if (errno != EINTR)
        break;
    ::close(done_pipe[0]);
  }
  std::map<size_t, Record> got;
  for (unsigned j = 0; j < jobs; ++j) {
    int status = 0;
    waitpid(pids[j], &status, 0);
    const std::string path = fmt::format("{}/part.{}", dir, j);
    bool torn = false;
    std::FILE* in = nullptr;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 4) {  // (its tests ran: their results are in its file)
      std::fprintf(stderr, "synclab-litmus: --jobs: worker %u could not write to --save %s: %s\n", j, save.c_str(),
                   "its results are in the report, not in the file");
      ok = false;
    }
    if (code != 0 && code != 4) {
      std::fprintf(stderr, "synclab-litmus: --jobs: worker %u %s\n", j,
                   WIFSIGNALED(status) ? fmt::format("died of signal {}", WTERMSIG(status)).c_str()
                                       : fmt::format("exited with status {}", code).c_str());
      ok = false;
    } else if (!(in = std::fopen(path.c_str(), "rb")) || (read_records(in, &got, &torn), torn)) {
      std::fprintf(stderr, "synclab-litmus: --jobs: worker %u's results (%s) are unreadable\n", j, path.c_str());
      ok = false;
    }
    if (in) std::fclose(in);
    std::remove(path.c_str());
  }
  rmdir(dir);
  for (auto& [i, rec] : done) got[i] = std::move(rec);
  for (auto& [i, rec] : got)
    if (i < reports->size()) (*reports)[i] = std::move(rec.report);
  if (ok && got.size() != tests.size()) {
    std::fprintf(stderr, "synclab-litmus: --jobs: %zu of %zu tests came back\n", got.size(), tests.size());
    ok = false;
  }
  for (const TestReport& r : *reports) std::fputs(r.text.c_str(), stdout);
  return ok;
}

int cmd_run(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  std::string only, save;
  RunFlags f;
  synclab::litmus::RunOptions& opt = f.opt;
  double min_weak = -1;
  uint64_t generated = 0, gen_seed = 1, jobs = 1;
  auto number = [&](size_t i, uint64_t* v) {
    char* end = nullptr;
    *v = std::strtoull(args[i].c_str(), &end, 10);
    return *end == '\0' && !args[i].empty();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--test" && i + 1 < args.size()) {
      only = args[++i];
    } else if (a == "--memory" && i + 1 < args.size()) {
      const std::string& m = args[++i];
      if (m != "relaxed" && m != "sc") {
        std::fprintf(stderr, "synclab-litmus: --memory %s: relaxed or sc\n", m.c_str());
        return 2;
      }
      opt.relaxed = m == "relaxed";
    } else if (a == "--seeds" && i + 1 < args.size()) {
      char* end = nullptr;
      opt.seeds = std::strtoull(args[++i].c_str(), &end, 10);
      if (*end || !opt.seeds) {
        std::fprintf(stderr, "synclab-litmus: --seeds %s: a positive number\n", args[i].c_str());
        return 2;
      }
    } else if (a == "--first-seed" && i + 1 < args.size() && number(i + 1, &opt.first_seed)) {
      ++i;
    } else if (a == "--instances" && i + 1 < args.size()) {
      uint64_t k = 0;
      if (!number(i + 1, &k) || k == 0 || k > 256) {
        std::fprintf(stderr, "synclab-litmus: --instances %s: a number from 1 to 256\n", args[i + 1].c_str());
        return 2;
      }
      opt.instances = uint32_t(k);
      ++i;
    } else if (a == "--jobs" && i + 1 < args.size()) {
      if (!number(i + 1, &jobs) || jobs == 0 || jobs > 1024) {
        std::fprintf(stderr, "synclab-litmus: --jobs %s: a number from 1 to 1024\n", args[i + 1].c_str());
        return 2;
      }
      ++i;
    } else if (a == "--save" && i + 1 < args.size()) {
      save = args[++i];
    } else if (a == "--progress") {
      f.progress = true;
    } else if (a == "--gaps") {
      f.gaps = true;
    } else if (a == "--counts") {
      f.counts = true;
    } else if (a == "--until-seen") {
      f.until_seen = true;
    } else if (a == "--aim" && i + 1 < args.size()) {
      if (!number(i + 1, &opt.aim_seeds) || opt.aim_seeds == 0) {
        std::fprintf(stderr, "synclab-litmus: --aim %s: a positive number of seeds\n", args[i + 1].c_str());
        return 2;
      }
      ++i;
    } else if (a == "--check") {
      opt.check = true;
    } else if (a == "--explain") {
      opt.check = opt.explain = true;
    } else if (a == "--quiet") {
      f.quiet = true;
    } else if (a == "--min-weak" && i + 1 < args.size()) {
      min_weak = std::atof(args[++i].c_str());
    } else if (a == "--generated" && i + 1 < args.size() && number(i + 1, &generated) && generated) {
      ++i;
    } else if (a == "--gen-seed" && i + 1 < args.size() && number(i + 1, &gen_seed)) {
      ++i;
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else {
      files.push_back(a);
    }
  }
  if (files.empty() && !generated) return usage();
  f.progress = f.progress || isatty(STDERR_FILENO);
  if (opt.aim_seeds && !(f.until_seen && opt.relaxed)) {
    std::fprintf(stderr,
                 "synclab-litmus: --aim aims at the weak outcomes not yet seen: it needs --until-seen (and "
                 "--memory relaxed)\n");
    return 2;
  }
  if (generated) files.push_back("");  // (one pass over the generated tests)
  std::vector<LitmusTest> all;
  for (const std::string& file : files) {
    std::vector<LitmusTest> ts;
    try {
      if (file.empty()) {
        GenerateOptions g;
        g.count = size_t(generated);
        g.seed = gen_seed;
        GenerateStats st;
        ts = generate_litmus(g, &st);
      } else {
        ts = read_litmus_file(file);
      }
    } catch (const LitmusError& e) {
      std::fprintf(stderr, "synclab-litmus: %s\n", e.what());
      return 2;
    }
    for (LitmusTest& t : ts) all.push_back(std::move(t));
  }
  size_t host_skipped = 0;
  std::vector<const LitmusTest*> run;
  for (const LitmusTest& t : all) {
    if (!only.empty() && t.name != only) continue;
    bool host = false;
    for (const LitmusThread& th : t.threads) host |= th.place.host;
    if (host)
      ++host_skipped;
    else
      run.push_back(&t);
  }
  std::map<size_t, Record> done;
  int save_fd = -1;
  if (!save.empty() && (save_fd = open_save(save, save_header(run, f), run, &done)) < 0) return 2;
  std::vector<TestReport> reports;
  const bool workers_ok = run_all(run, f, unsigned(jobs), save, save_fd, std::move(done), &reports);
  size_t failed = 0, weak_allowed = 0, weak_seen = 0, weak_aimed = 0, gap_outcomes = 0;
  std::map<std::string, size_t> gap_count;  // missing weak outcomes by what keeps the model from them
  for (const TestReport& r : reports) {
    failed += r.failed;
    weak_allowed += r.weak_allowed;
    weak_seen += r.weak_seen;
    weak_aimed += r.weak_aimed;
    gap_outcomes += r.gap_outcomes;
    for (const auto& [g, n] : r.gaps) gap_count[g] += n;
  }
  const std::string each = (opt.instances > 1 ? fmt::format(" x {} instances", opt.instances) : std::string()) +
                           (opt.aim_seeds ? fmt::format(", then up to {} aimed", opt.aim_seeds) : std::string());
  std::printf(
      "%zu tests run (%s, %llu seeds each%s%s), %zu failed", run.size(), opt.relaxed ? "relaxed" : "sc",
      (unsigned long long)opt.seeds, each.c_str(),
      jobs > 1 ? fmt::format(", {} processes", std::min<size_t>(jobs, std::max<size_t>(run.size(), 1))).c_str() : "",
      failed);
  if (opt.relaxed)
    std::printf("; weak outcomes seen: %zu of %zu (%.1f%%)", weak_seen, weak_allowed,
                weak_allowed ? 100.0 * double(weak_seen) / double(weak_allowed) : 100.0);
  if (opt.relaxed && opt.aim_seeds)
    std::printf(", %zu of them only when aimed (%zu, %.1f%%, by the unaimed seeds)", weak_aimed, weak_seen - weak_aimed,
                weak_allowed ? 100.0 * double(weak_seen - weak_aimed) / double(weak_allowed) : 100.0);
  if (host_skipped) std::printf("; %zu tests with a host thread not run", host_skipped);
  if (gap_outcomes)
    std::printf("; %zu outcomes out of the model's reach as their tests' `gap` lines say", gap_outcomes);
  std::printf("\n");
  if (f.gaps && !gap_count.empty()) {
    std::printf("weak outcomes not seen, by what keeps the model from them:\n");
    for (const auto& [g, n] : gap_count) std::printf("  %6zu  %s\n", n, g.c_str());
  }
  if (!workers_ok) {
    std::printf(
        "FAIL: a worker process of --jobs did not finish, or --save could not keep a result (messages above)\n");
    return 1;
  }
  // (--min-weak counts what the unaimed seeds showed: what a run of a program would)
  if (opt.relaxed && min_weak >= 0 && weak_allowed &&
      100.0 * double(weak_seen - weak_aimed) / double(weak_allowed) < min_weak) {
    std::printf("FAIL: fewer than %.1f%% of the weak outcomes showed%s\n", min_weak,
                opt.aim_seeds ? " in the unaimed seeds" : "");
    return 1;
  }
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "check") {
    if (args.empty()) return usage();
    return cmd_check(args);
  }
  if (cmd == "generate") return generate_command(args);
  if (cmd == "run") return cmd_run(args);
  if (cmd == "outcomes") {
    std::string file, only;
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--test" && i + 1 < args.size())
        only = args[++i];
      else if (file.empty())
        file = args[i];
      else
        return usage();
    }
    if (file.empty()) return usage();
    return cmd_outcomes(file, only);
  }
  return usage();
}
