// The grader's parts on their own (grader/src): Catch2 report reading (incomplete, forged and
// hostile reports), test specs for awkward names, the scan of a student file's host code, the
// system-call filter libsynclab_guard.so (a probe program run under it), and the sandbox's
// cleanup of processes a program leaves behind; find the bug's draws, answers and fix rules.
#include <synclab/catch.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "catch_report.h"
#include "findbug.h"
#include "host_source_check.h"
#include "object_cache.h"
#include "sandbox.h"

using namespace synclab::grade;

namespace {

std::string passing_report(const std::string& name) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Catch name=\"tests\">\n  <Group name=\"tests\">\n"
         "    <TestCase name=\"" +
         name +
         "\" tags=\"[pts:1]\" filename=\"t.cpp\" line=\"1\">\n"
         "      <OverallResult success=\"true\"/>\n    </TestCase>\n"
         "    <OverallResults successes=\"3\" failures=\"0\" expectedFailures=\"0\"/>\n  </Group>\n"
         "  <OverallResults successes=\"3\" failures=\"0\" expectedFailures=\"0\"/>\n</Catch>\n";
}

}  // namespace

TEST_CASE("a complete passing report of the selected case passes", "[grader][report]") {
  CaseReport r = read_case_report(passing_report("case one"), "case one");
  CHECK(r.parsed);
  CHECK(r.name_matches);
  CHECK(r.success);
  CHECK_FALSE(read_case_report(passing_report("case one"), "case two").name_matches);
}

TEST_CASE("a report cut short, or of two documents, is not complete", "[grader][report]") {
  const std::string full = passing_report("c");
  CHECK_FALSE(read_case_report(full.substr(0, full.size() / 2), "c").parsed);
  CHECK_FALSE(read_case_report(full + full, "c").parsed);
  CHECK_FALSE(read_case_report("", "c").parsed);
  CHECK_FALSE(read_case_report("<NotCatch/>", "c").parsed);
}

TEST_CASE("a report nested hundreds of thousands deep is refused without exhausting the stack", "[grader][report]") {
  std::string xml = "<Catch name=\"t\"><Group name=\"t\"><TestCase name=\"c\">";
  const int depth = 300000;
  for (int i = 0; i < depth; ++i) xml += "<Section name=\"s\">";
  for (int i = 0; i < depth; ++i) xml += "</Section>";
  xml +=
      "<OverallResult success=\"true\"/></TestCase></Group>"
      "<OverallResults successes=\"1\" failures=\"0\"/></Catch>";
  CaseReport r = read_case_report(xml, "c");
  CHECK_FALSE(r.parsed);
  CHECK_FALSE(r.success);
}

// A failed case's report as Catch2's XML reporter writes it: `infos` as INFO messages in scope of a
// failed REQUIRE(problem.empty()), then `failure` as a FAIL message when it is not empty.
std::string failed_report(const std::vector<std::string>& infos, const std::string& failure = "") {
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Catch name=\"tests\">\n  <Group name=\"tests\">\n"
      "    <TestCase name=\"c\" tags=\"[pts:1]\" filename=\"t.cpp\" line=\"1\">\n";
  for (const auto& i : infos) xml += "      <Info>\n        " + i + "\n      </Info>\n";
  xml +=
      "      <Expression success=\"false\" type=\"REQUIRE\" filename=\"t.cpp\" line=\"9\">\n"
      "        <Original>\n          problem.empty()\n        </Original>\n"
      "        <Expanded>\n          false\n        </Expanded>\n      </Expression>\n";
  if (!failure.empty())
    xml += "      <Failure filename=\"t.cpp\" line=\"10\">\n        " + failure + "\n      </Failure>\n";
  xml +=
      "      <OverallResult success=\"false\"/>\n    </TestCase>\n"
      "    <OverallResults successes=\"0\" failures=\"1\" expectedFailures=\"0\"/>\n  </Group>\n"
      "  <OverallResults successes=\"0\" failures=\"1\" expectedFailures=\"0\"/>\n</Catch>\n";
  return xml;
}

TEST_CASE("a failed check's one-line summary is the first line of its explanation", "[grader][report]") {
  // Lab 08's style: the explanation in INFO, then REQUIRE(problem.empty()).
  CaseReport r =
      read_case_report(failed_report({"4 round trips by memcpy from 5: round trip 1 returned 5 instead of 16\n"
                                      "replay: build/bin/sim/lab08 roundtrip --method memcpy"}),
                       "c");
  CHECK(r.parsed);
  CHECK_FALSE(r.success);
  CHECK(r.first == "4 round trips by memcpy from 5: round trip 1 returned 5 instead of 16");
  CHECK(r.messages.find("REQUIRE( problem.empty() )") != std::string::npos);  // the detail keeps the check
  // Several messages in scope: the first line of each.
  CHECK(read_case_report(failed_report({"v2 with thread 0 alone", "reports: none"}), "c").first ==
        "v2 with thread 0 alone; reports: none");
  // No message: the expression and its expansion.
  CHECK(read_case_report(failed_report({}), "c").first == "REQUIRE( problem.empty() ) is false: false");
  // A FAIL's own text wins over the messages of a check before it.
  CHECK(read_case_report(failed_report({"context"}, "x[0] ended at 0"), "c").first == "x[0] ended at 0");
}

TEST_CASE("test specs escape what Catch2's spec syntax gives a meaning", "[grader][spec]") {
  CHECK(catch_test_spec("plain name") == "plain name");
  CHECK(catch_test_spec("a, b") == "a\\, b");
  CHECK(catch_test_spec("x[1]") == "x\\[1\\]");
  CHECK(catch_test_spec("q\"d\"") == "q\\\"d\\\"");
  CHECK(catch_test_spec("~not") == "\\~not");
  CHECK(catch_test_spec("a\\b*") == "a\\\\b\\*");
}

TEST_CASE("the host-code scan finds assembly and placement attributes in the student's lines only", "[grader][host]") {
  auto student = [](const std::string& f) { return f == "/w/src/histogram.cu"; };
  const std::string text =
      "# 1 \"/usr/include/string.h\"\n"
      "extern void *memchr(void *, int, unsigned long) __asm__(\"memchr\");\n"
      "# 10 \"/w/src/histogram.cu\"\n"
      "void k(int *p) ;\n"
      "#if 0\n"
      "# 10\n"
      "{ __asm__ volatile(\"membar.gl;\"); p[0] = 1; }\n"
      "#endif\n"
      "# 14 \"/w/src/histogram.cu\"\n"
      "int sections = 0;\n"
      "int host() { int x = 0; __asm__ volatile(\"\" : \"+r\" (x) :); return x; }\n"
      "__attribute((section(\".text\"))) const unsigned char code[] = {(15), (5), (195)};\n"
      "[[gnu::naked]] void bare() { }\n";
  std::vector<std::string> p = check_host_source(text, student);
  REQUIRE(p.size() == 3);
  CHECK(p[0] == "histogram.cu:15: assembly in host code");
  CHECK(p[1] == "histogram.cu:16: an attribute that places code or data (section) in host code");
  CHECK(p[2] == "histogram.cu:17: an attribute that places code or data (naked) in host code");
  // Device code (inside #if 0) and the system headers' asm labels are fine.
  CHECK(check_host_source("# 1 \"/w/src/histogram.cu\"\n#if 0\n{ asm(\"x\"); }\n#endif\nint y;\n", student).empty());
}

TEST_CASE("the host-code scan asks whether a file is the student's once per file, and skips other lines fast",
          "[grader][host]") {
  std::map<std::string, int> asked;
  auto student = [&](const std::string& f) {
    ++asked[f];
    return f == "/w/src/histogram.cu";
  };
  // A front end's output switches between headers and the student's file many times.
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += "# 3 \"/usr/include/stdio.h\"\nint printf(const char *, ...);\n  #  5 \"/w/src/histogram.cu\"\nint y" +
            std::to_string(i) + ";\n";
  text += "int z() { asm(\"nop\"); return 0; }\n";
  const std::vector<std::string> p = check_host_source(text, student);
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "histogram.cu:6: assembly in host code");  // (the marker's line 5, then y199 on 5, z on 6)
  CHECK(asked.size() == 2);
  CHECK(asked["/usr/include/stdio.h"] == 1);
  CHECK(asked["/w/src/histogram.cu"] == 1);
}

TEST_CASE("one --list-tests gives every case's tags, whatever exit status Catch2 gives a listing", "[grader][catch]") {
  const std::string listing =
      "All available test cases:\n"
      "  lab10 task1 predict litmus test 1 of 6 under sc tso and ptx\n"
      "      [lab10][pts:2][task1]\n"
      "  lab10 task2a mp_fixed forbids the stale read\n"
      "      [lab10][pts:2][task2]\n"
      "  a case without tags\n"
      "\n"
      "3 test cases\n";
  for (int status : {0, 3}) {  // Catch2 3.x exits with 0, 2.x with the number of cases listed
    INFO("exit status " << status);
    const CaseTags t = read_tag_listing(listing, status);
    REQUIRE(t.size() == 3);
    CHECK(t.at("lab10 task1 predict litmus test 1 of 6 under sc tso and ptx") ==
          std::vector<std::string>{"lab10", "pts:2", "task1"});
    CHECK(t.at("lab10 task2a mp_fixed forbids the stale read") == std::vector<std::string>{"lab10", "pts:2", "task2"});
    CHECK(t.at("a case without tags").empty());
  }
  // Another status (a crash, an unknown option) is no listing: the caller asks case by case.
  CHECK(read_tag_listing(listing, 1).empty());
  CHECK(read_tag_listing(listing, 139).empty());
  // 300 cases: 2.x's status is capped at 255 (300 modulo 256 is no listing's status).
  std::string many = "All available test cases:\n";
  for (int i = 0; i < 300; ++i) many += "  case " + std::to_string(i) + "\n      [t]\n";
  CHECK(read_tag_listing(many, 255).size() == 300);
  CHECK(read_tag_listing(many, 300 % 256).empty());
}

TEST_CASE("the system-call filter refuses processes, signals to others, ptrace and the network", "[grader][guard]") {
  char dir[] = "/tmp/synclab-guard-test.XXXXXX";
  REQUIRE(mkdtemp(dir));
  RunSpec spec;
  spec.argv = {SYNCLAB_GUARD_PROBE};
  spec.env = {"PATH=/usr/bin:/bin", "LD_PRELOAD=" SYNCLAB_GUARD_LIBRARY, "SYNCLAB_GUARD=require"};
  spec.cwd = dir;
  spec.timeout_s = 60;
  RunResult r = run_sandboxed(spec);
  INFO(r.output);
  REQUIRE(r.started);
  CHECK(r.exit_code == 0);
  for (const char* refused :
       {"fork refused EPERM", "kill-other refused EPERM", "socket-inet refused EPERM", "connect refused EPERM",
        "ptrace refused EPERM", "set-dumpable refused EPERM", "setsid refused EPERM"})
    CHECK(r.output.find(refused) != std::string::npos);
  for (const char* allowed :
       {"kill-self allowed", "socket-unix allowed", "thread allowed", "file-write allowed", "dumpable 0"})
    CHECK(r.output.find(allowed) != std::string::npos);

  CHECK(r.output.find("execve refused EPERM") != std::string::npos);

  // Without the filter the same probe may do all of it (the probe itself is not the reason).
  spec.env = {"PATH=/usr/bin:/bin"};
  RunResult free_run = run_sandboxed(spec);
  UNSCOPED_INFO("without the filter: " + free_run.output);
  CHECK(free_run.output.find("fork allowed") != std::string::npos);
  CHECK(free_run.output.find("socket-inet allowed") != std::string::npos);
  CHECK(free_run.output.find("connect refused ECONNREFUSED") != std::string::npos);
  CHECK(free_run.output.find("execve refused EACCES") != std::string::npos);
  std::string cleanup = std::string("rm -rf ") + dir;
  CHECK(std::system(cleanup.c_str()) == 0);
}

TEST_CASE("a grading's own user: what a program leaves running is killed when it ends", "[grader][sandbox]") {
  if (geteuid() != 0) {
    WARN("not root: no user of its own to switch to; skipped");
    return;
  }
  Identity id = sandbox_identity();
  REQUIRE(id.drop);
  REQUIRE(id.exclusive);
  char dir[] = "/tmp/synclab-sandbox-test.XXXXXX";
  REQUIRE(mkdtemp(dir));
  chmod(dir, 0777);
  RunSpec spec;
  // A child in a session of its own: outside the process group the sandbox kills.
  spec.argv = {"/bin/sh", "-c", "setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo started"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.cwd = dir;
  spec.timeout_s = 30;
  spec.identity = id;
  RunResult r = run_sandboxed(spec);
  CHECK(r.output.find("started") != std::string::npos);
  // Processes of that user that still run (a killed one is a zombie until its parent reaps it).
  auto running_as = [&](uid_t uid) {
    int n = 0;
    DIR* d = opendir("/proc");
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      const std::string base = std::string("/proc/") + e->d_name;
      struct stat st {};
      if (stat(base.c_str(), &st) != 0 || st.st_uid != uid) continue;
      std::string stat_line;
      if (FILE* f = std::fopen((base + "/stat").c_str(), "r")) {
        char buf[512] = {};
        if (std::fgets(buf, sizeof buf, f)) stat_line = buf;
        std::fclose(f);
      }
      const size_t paren = stat_line.rfind(')');
      if (paren != std::string::npos && paren + 2 < stat_line.size() && stat_line[paren + 2] == 'Z') continue;
      ++n;
    }
    closedir(d);
    return n;
  };
  int left = running_as(id.uid);
  for (int i = 0; i < 250 && left > 0; ++i) {  // (a killed process may take a moment to go)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    left = running_as(id.uid);
  }
  CHECK(left == 0);
  // Another grading on this machine gets another user.
  Identity other = sandbox_identity();
  CHECK(other.uid != id.uid);
  rmdir(dir);
}

TEST_CASE("programs run together: in order, at most so many at once, each slot as its own user", "[grader][sandbox]") {
  char dir[] = "/tmp/synclab-together-test.XXXXXX";
  REQUIRE(mkdtemp(dir));
  chmod(dir, 0777);
  // Each program notes its start in a shared folder, waits, sees how many others run, and ends.
  std::vector<RunSpec> specs;
  for (int i = 0; i < 6; ++i) {
    RunSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "touch " + std::string(dir) + "/run." + std::to_string(i) + "; sleep 0.4; echo running $(ls " + dir +
                     " | wc -l) program " + std::to_string(i) + " as $(id -u)" + "; rm " + dir + "/run." +
                     std::to_string(i)};
    spec.env = {"PATH=/usr/bin:/bin"};
    spec.cwd = dir;
    spec.timeout_s = 30;
    specs.push_back(spec);
  }
  std::vector<Identity> users;
  if (geteuid() == 0)
    for (int k = 0; k < 2; ++k) users.push_back(sandbox_identity());
  std::vector<unsigned> slot_of(specs.size(), 99);
  std::vector<RunResult> rs = run_sandboxed_together(specs, 2, [&](size_t i, unsigned slot, RunSpec& spec) {
    slot_of[i] = slot;
    if (!users.empty()) spec.identity = users[slot];
    if (i == 5) throw std::runtime_error("set-up failed");  // (the program is not started)
  });
  REQUIRE(rs.size() == 6);
  int saw_two = 0;
  for (size_t i = 0; i < 5; ++i) {
    INFO("program " << i << ": " << rs[i].output);
    CHECK(rs[i].started);
    CHECK(rs[i].exit_code == 0);
    CHECK(rs[i].output.find("program " + std::to_string(i)) != std::string::npos);  // its own result, in order
    CHECK(slot_of[i] < 2);
    int running = 0;
    std::sscanf(rs[i].output.c_str(), "running %d", &running);
    CHECK(running >= 1);
    CHECK(running <= 2);  // never more than two at once
    saw_two += running == 2;
    if (!users.empty()) CHECK(rs[i].output.find("as " + std::to_string(users[slot_of[i]].uid)) != std::string::npos);
  }
  CHECK_FALSE(rs[5].started);
  CHECK(rs[5].error == "set-up failed");
  CHECK(saw_two > 0);  // (they did run side by side)
  std::string cleanup = std::string("rm -rf ") + dir;
  CHECK(std::system(cleanup.c_str()) == 0);
}

namespace {

// A program of n lines above its checks (line k: "  work(k);"), then the checks.
std::string fb_program(int n) {
  std::string s = "// Lab 99, find the bug: a test program.\n";
  for (int k = 2; k <= n; ++k) s += "  work(" + std::to_string(k) + ");\n";
  return s + "// ---- checks: a fix changes nothing below this line ----\nint main() { return check(); }\n";
}

std::string fb_replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("find the bug: a fix is a small change above the checks", "[grader][findbug]") {
  const std::string original = fb_program(20);
  SECTION("a changed line: one removed, one added, the line touched") {
    const findbug::FixCheck f = findbug::check_fix(original, fb_replace(original, "work(7);", "work(7); fence();"));
    CHECK(f.problems.empty());
    CHECK(f.added == 1);
    CHECK(f.removed == 1);
    CHECK(f.touched == std::vector<int>{7});
  }
  SECTION("an inserted line touches the lines on both sides") {
    const findbug::FixCheck f =
        findbug::check_fix(original, fb_replace(original, "  work(8);\n", "  fence();\n  work(8);\n"));
    CHECK(f.problems.empty());
    CHECK(f.added == 1);
    CHECK(f.removed == 0);
    CHECK(f.touched == std::vector<int>{7, 8});
  }
  SECTION("re-indenting is no change") {
    const findbug::FixCheck f = findbug::check_fix(
        original, fb_replace(fb_replace(original, "  work(7);", "      work(7);  "), "  work(9);", "\twork(9);"));
    CHECK(f.problems.size() == 1);  // (only: nothing is changed)
    CHECK(f.added + f.removed == 0);
  }
  SECTION("the checks may not change") {
    const findbug::FixCheck f = findbug::check_fix(original, fb_replace(original, "return check();", "return 0;"));
    REQUIRE(f.problems.size() == 1);
    CHECK(f.problems[0].find("checks") != std::string::npos);
  }
  SECTION("nor may a fix hide the checks: exit, the preprocessor, a second main") {
    for (const char* added :
         {"  exit(0);", "  std::exit(0);", "#define check() 0", "  abort();", "int main2() {} int main();"}) {
      const findbug::FixCheck f =
          findbug::check_fix(original, fb_replace(original, "  work(5);\n", std::string(added) + "\n  work(5);\n"));
      CHECK(!f.problems.empty());
    }
    // ... while an #include of a library header (<cuda/atomic>, for an atomic_ref), a comment, or a
    // word that only contains one of them is fine
    CHECK(findbug::check_fix(original, fb_replace(original, "  work(5);\n", "#include <cuda/atomic>\n  work(5);\n"))
              .problems.empty());
    CHECK(!findbug::check_fix(original, fb_replace(original, "  work(5);\n", "#include \"mine.h\"\n  work(5);\n"))
               .problems.empty());
    const findbug::FixCheck ok = findbug::check_fix(
        original, fb_replace(original, "  work(5);\n", "  exited_lanes(); // exit here? no\n  work(5);\n"));
    CHECK(ok.problems.empty());
  }
  SECTION("at most 12 lines added and removed together") {
    std::string big = original;
    for (int k = 2; k <= 7; ++k)
      big = fb_replace(big, "work(" + std::to_string(k) + ");", "other(" + std::to_string(k) + ");");
    const findbug::FixCheck f = findbug::check_fix(original, big);
    CHECK(f.added == 6);
    CHECK(f.removed == 6);
    CHECK(f.problems.empty());
    const findbug::FixCheck more = findbug::check_fix(original, fb_replace(big, "work(8);", "other(8);"));
    CHECK(more.added + more.removed == 14);
    CHECK(!more.problems.empty());
  }
  SECTION("no change, or another program, is no fix") {
    CHECK(!findbug::check_fix(original, original).problems.empty());
    const findbug::FixCheck other = findbug::check_fix(original, fb_replace(original, "a test program", "another"));
    REQUIRE(!other.problems.empty());
    CHECK(other.problems[0].find("another program") != std::string::npos);
  }
  SECTION("a program without checks is the pool's mistake, not the student's") {
    CHECK_THROWS(findbug::check_fix("int main() {}\n", "int main() { }\n"));
  }
}

TEST_CASE("find the bug: the answer file and the draw", "[grader][findbug]") {
  const findbug::Answer a = findbug::parse_answer("# my answer\nprogram: ring_sum\nline: 42   # the fence\n");
  CHECK(a.problems.empty());
  CHECK(a.program == "ring_sum");
  CHECK(a.line == 42);
  CHECK(findbug::parse_answer("line: 4x\n").problems.size() == 1);
  CHECK(findbug::parse_answer("the bug is on line 4\n").problems.size() == 1);
  CHECK(findbug::parse_answer("line: 3\nline: 4\n").problems.size() == 1);
  CHECK(findbug::parse_answer("line:\n").line == 0);

  findbug::Pool pool;
  pool.names = {"a", "b", "c", "d", "e"};
  CHECK(findbug::draw(pool, "04-reductions", "") == "a");
  CHECK(findbug::draw(pool, "04-reductions", "  Dave@Uni.edu ") ==
        findbug::draw(pool, "04-reductions", "dave@uni.edu"));
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(findbug::draw(pool, "04-reductions", "student" + std::to_string(i)));
  CHECK(seen.size() == 5);  // every program is drawn for some of 100 students
}

TEST_CASE("find the bug: which program of the pool a student's copy is", "[grader][findbug]") {
  namespace fs = std::filesystem;
  char templ[] = "/tmp/findbug-copy.XXXXXX";
  REQUIRE(mkdtemp(templ));
  const fs::path dir = templ;
  std::ofstream(dir / "ring_sum.cu") << "// ring_sum: a sum around a ring\nint main() { return 0; }\n";
  std::ofstream(dir / "tile_max.cu") << "// tile_max: the largest of each tile\nint main() { return 1; }\n";
  findbug::Pool pool;
  pool.dir = dir.string();
  pool.names = {"ring_sum", "tile_max"};
  // The first line names the program, whatever the student changed below it.
  CHECK(findbug::copy_of(pool, "// tile_max: the largest of each tile\nint main() { fixed(); }\n") == "tile_max");
  CHECK(findbug::copy_of(pool, "// ring_sum: a sum around a ring") == "ring_sum");
  // A first line of no program (edited, or empty): none.
  CHECK(findbug::copy_of(pool, "// ring_sum: my version\nint main() { return 0; }\n").empty());
  CHECK(findbug::copy_of(pool, "\n// ring_sum: a sum around a ring\n").empty());
  CHECK(findbug::copy_of(pool, "").empty());
  fs::remove_all(dir);
}

namespace {

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace

TEST_CASE("object cache: SHA-256 and dependency lists", "[grader][objcache]") {
  // FIPS 180-2, appendix B.1 and B.2
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::vector<std::string> deps =
      parse_dependency_list("/w/build/a.o : /w/src/a.cu \\\n  /usr/include/x.h /labs/with\\ space.h\n\n");
  CHECK(deps == std::vector<std::string>{"/w/src/a.cu", "/usr/include/x.h", "/labs/with space.h"});
  CHECK(parse_dependency_list("a.o: a.cu b.h") == std::vector<std::string>{"a.cu", "b.h"});
}

TEST_CASE("object cache: a hit needs the same compile and the same contents of every file it read",
          "[grader][objcache]") {
  namespace fs = std::filesystem;
  char templ[] = "/tmp/objcache-test.XXXXXX";
  REQUIRE(mkdtemp(templ));
  const fs::path root = templ, lab = root / "lab", w1 = root / "w1", w2 = root / "w2";
  // Two gradings' work directories with the same student files, and a lab header outside both.
  for (const fs::path& w : {w1, w2}) {
    write_file(w / "src/a.cu", "#include \"b.cuh\"\nint a() { return b(); }\n");
    write_file(w / "src/b.cuh", "inline int b() { return 1; }\n");
  }
  write_file(lab / "lab.h", "// the lab's header\n");
  write_file(w1 / "build/a.o", "object bytes");
  write_file(w1 / "build/a.d", "a.o: " + (w1 / "src/a.cu").string() + " " + (w1 / "src/b.cuh").string() + " \\\n " +
                                   (lab / "lab.h").string() + "\n");
  auto argv = [](const fs::path& w) {
    return std::vector<std::string>{
        "/bin/true", "-I", "/labs", "-c", (w / "src/a.cu").string(), "-o", (w / "build/a.o").string()};
  };
  ObjectCache cache(root / "cache");
  REQUIRE(cache.enabled());
  struct stat st {};
  REQUIRE(stat((root / "cache").c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);  // private to the grader

  const std::string text = "#include \"b.cuh\"\nint a() { return b(); }\n";
  const std::string k1 = cache.key(argv(w1), w1, text), k2 = cache.key(argv(w2), w2, text);
  CHECK(k1 == k2);                                      // the work directory is left out
  CHECK(cache.key(argv(w2), w2, text + " ") != k1);     // the source's text counts
  CHECK(cache.key(argv(root / "w3"), w2, text) != k1);  // so does the rest of the command
  CHECK_FALSE(cache.find(k1, w1));                      // nothing stored yet
  CHECK(cache.store(k1, w1 / "build/a.o", w1 / "build/a.d", w1) == "");
  auto hit = cache.find(k2, w2);
  REQUIRE(hit);
  std::ifstream in(hit->object);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "object bytes");

  // The header the file includes changes in the second submission: no hit; stored again, the new
  // entry replaces the stale one.
  write_file(w2 / "src/b.cuh", "inline int b() { return 22; }\n");
  CHECK_FALSE(cache.find(k2, w2));
  CHECK(cache.find(k1, w1));
  write_file(w2 / "build/a.o", "other object bytes");
  write_file(w2 / "build/a.d", "a.o: " + (w2 / "src/a.cu").string() + " " + (w2 / "src/b.cuh").string() + " " +
                                   (lab / "lab.h").string() + "\n");
  CHECK(cache.store(k2, w2 / "build/a.o", w2 / "build/a.d", w2) == "");
  CHECK(cache.find(k2, w2));
  CHECK_FALSE(cache.find(k1, w1));  // (one entry per key: the newest)
  // The lab's header changes (a new build of the tree): no hit.
  write_file(lab / "lab.h", "// the lab's header, changed\n");
  CHECK_FALSE(cache.find(k2, w2));
  write_file(lab / "lab.h", "// the lab's header\n");
  REQUIRE(cache.find(k2, w2));
  // An object changed or cut short in the cache is no hit.
  const fs::path stored = root / "cache" / k2.substr(0, 2) / k2 / "object.o";
  write_file(stored, "other object byte");
  CHECK_FALSE(cache.find(k2, w2));

  // Least recently used entries go first when the cache is over its size.
  CHECK(cache.store(k2, w2 / "build/a.o", w2 / "build/a.d", w2) == "");
  const std::string k3 = cache.key(argv(w2), w2, text, "another context");
  CHECK(cache.store(k3, w2 / "build/a.o", w2 / "build/a.d", w2) == "");
  const fs::path e2 = root / "cache" / k2.substr(0, 2) / k2, e3 = root / "cache" / k3.substr(0, 2) / k3;
  REQUIRE(fs::exists(e2));
  REQUIRE(fs::exists(e3));
  fs::last_write_time(e2, fs::file_time_type::clock::now() - std::chrono::hours(1));
  uintmax_t one = 0;
  for (const auto& f : fs::directory_iterator(e3)) one += f.file_size();
  ObjectCache(root / "cache", one + 10).trim();
  CHECK_FALSE(fs::exists(e2));  // the older one went
  CHECK(fs::exists(e3));
  ObjectCache(root / "cache", 1).trim();
  CHECK_FALSE(fs::exists(e3));

  // A cache directory others may write to is not used (entries may have been planted there); one
  // they may only read is made private; a symbolic link is not used.
  fs::create_directories(root / "open");
  chmod((root / "open").c_str(), 0777);
  CHECK_FALSE(ObjectCache(root / "open").enabled());
  fs::create_directories(root / "readable");
  chmod((root / "readable").c_str(), 0755);
  CHECK(ObjectCache(root / "readable").enabled());
  REQUIRE(stat((root / "readable").c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);
  fs::create_directory_symlink(root / "readable", root / "link");
  CHECK_FALSE(ObjectCache(root / "link").enabled());
  CHECK_FALSE(ObjectCache().enabled());
  fs::remove_all(root);
}
