// synclab-grade's commands (grader.h), and the helpers grading.h declares. One grading of a
// submission is class Grading (grading.h), whose phases are the grading_*.cpp files beside this one.
//
// Where things are: the helpers (read_reference_times, read_private, parse_time, non_empty_lines,
// disassemble_and_check, last_lines, indent, replace_all, shell_quote, fnv1a, points, own,
// gpu_present, find_program), then the commands: run_grading, build_command, normalize_results,
// reference_times_command, check_objects_command.
#include "grading.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

using nlohmann::json;

namespace synclab::grade {

std::map<std::string, double> read_reference_times(const fs::path& file) {
  std::map<std::string, double> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.rfind('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    try {
      const double ms = std::stod(line.substr(tab + 1));
      if (std::isfinite(ms) && ms > 0) out[line.substr(0, tab)] = ms;
    } catch (...) {
    }
  }
  return out;
}

std::string read_private(const fs::path& p, size_t cap) {
  int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  struct stat st {};
  std::string s;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && uintmax_t(st.st_size) <= cap) {
    s.resize(size_t(st.st_size));
    size_t got = 0;
    while (got < s.size()) {
      ssize_t n = ::read(fd, s.data() + got, s.size() - got);
      if (n <= 0) break;
      got += size_t(n);
    }
    s.resize(got);
  }
  ::close(fd);
  return s;
}

// A case's one time record ("time_ms T" on a line of its own, written once by
// synclab::graded::record_time_ms after the case checked its result). Anything else in the
// channel (a second record, other text) makes the time invalid.
bool parse_time(const std::string& metrics, double* ms) {
  static const std::regex re("time_ms ([-+0-9.eE]+)\n");
  std::smatch m;
  if (!std::regex_match(metrics, m, re)) return false;
  try {
    *ms = std::stod(m[1].str());
  } catch (...) {
    return false;
  }
  return std::isfinite(*ms) && *ms > 0;
}

std::vector<std::string> non_empty_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && std::isspace((unsigned char)line.back())) line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

ObjectCheck disassemble_and_check(const std::string& objdump, const std::string& obj, RunSpec base) {
  base.argv = {objdump, "-d", "-w", "--no-show-raw-insn", obj};
  base.timeout_s = 60;
  RunResult d = run_sandboxed(base);
  if (!d.started || d.timed_out || d.exit_code != 0) {
    ObjectCheck c;
    c.error = "objdump could not read it: " + last_lines(d.error + d.output, 10);
    return c;
  }
  return check_student_object(obj, d.output);
}

std::string last_lines(const std::string& text, size_t n) {
  size_t count = 0, pos = text.size();
  while (pos > 0) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    if (nl + 1 < text.size() && ++count > n) {
      pos = nl + 1;
      break;
    }
    pos = nl;
  }
  std::string out = text.substr(pos);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

std::string shell_quote(const std::string& word) {
  static const std::regex plain("[A-Za-z0-9_./:=@%+,-]+");
  if (!word.empty() && std::regex_match(word, plain)) return word;
  return "'" + replace_all(word, "'", "'\\''") + "'";
}

void fnv1a(uint64_t& h, const std::string& bytes) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  h = (h ^ 0xff) * 1099511628211ull;  // (a separator: "ab","c" and "a","bc" differ)
}

std::string points(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return fmt::format("{}", (long long)std::llround(v));
  return fmt::format("{:.2f}", v);
}

void own(const fs::path& p, const Identity& id, mode_t mode) {
  if (id.drop && chown(p.c_str(), id.uid, id.gid) != 0)
    throw GradeError(fmt::format("cannot hand {} to the sandbox user: {}", p.string(), std::strerror(errno)));
  chmod(p.c_str(), mode);
}

bool gpu_present() {
  std::error_code ec;
  if (fs::exists("/dev/nvidia0", ec)) return true;
  if (fs::is_directory("/proc/driver/nvidia/gpus", ec) && !fs::is_empty("/proc/driver/nvidia/gpus", ec)) return true;
  return false;
}

std::string find_program(const std::string& name, const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs = extra_dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t colon = p.find(':', start);
      dirs.push_back(p.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  for (const auto& d : dirs) {
    if (d.empty()) continue;
    fs::path c = fs::path(d) / name;
    if (access(c.c_str(), X_OK) == 0) return c.string();
  }
  return {};
}

int run_grading(const Options& opt) {
  Grading g(opt);
  return g.run();
}

int build_command(const Options& opt, const std::string& out) {
  Grading g(opt);
  return g.build_only(out);
}

int normalize_results(const std::string& in, const std::string& out) {
  std::ifstream f(in);
  if (!f) {
    std::cerr << "synclab-grade normalize: cannot read " << in << "\n";
    return 2;
  }
  json j;
  try {
    j = json::parse(f);
  } catch (const std::exception& e) {
    std::cerr << "synclab-grade normalize: " << in << " is not valid JSON (" << e.what() << ")\n";
    return 2;
  }
  // What differs from run to run: how long grading took, measured times on a GPU, and addresses.
  j["execution_time"] = 0;
  // Where the tree is decides whether the sandbox user can read it; the note says which ran.
  static const std::regex sandbox_note("\nNote: an unprivileged user cannot read [^\n]*\n");
  if (j.contains("output") && j["output"].is_string())
    j["output"] = std::regex_replace(j["output"].get<std::string>(), sandbox_note, "");
  static const std::regex address("0x[0-9a-f]{10,}");  // (not Catch2's 8-digit values)
  static const std::regex gpu_time("time ([0-9.eE+-]+) ms, the reference solution's ([0-9.eE+-]+) ms \\(");
  // Where a stopped kernel's threads were depends on when the time limit struck: which PTX
  // instruction of the spinning loop (the source line stays the same).
  static const std::regex ptx_line("PTX line [0-9]+");
  if (j.contains("tests"))
    for (auto& t : j["tests"])
      if (t.contains("output") && t["output"].is_string()) {
        std::string o = std::regex_replace(
            std::regex_replace(t["output"].get<std::string>(), gpu_time, "time T ms, the reference solution's R ms ("),
            address, "0xADDRESS");
        if (o.rfind("timed out:", 0) == 0) o = std::regex_replace(o, ptx_line, "PTX line N");
        t["output"] = o;
      }
  std::ofstream o(out);
  o << j.dump(2) << "\n";
  if (!o) {
    std::cerr << "synclab-grade normalize: cannot write " << out << "\n";
    return 2;
  }
  return 0;
}

int reference_times_command(const Options& opt, const std::string& out_path) {
  Manifest m;
  try {
    m = find_manifest(opt.grade_dir, opt.lab);
  } catch (const std::exception& e) {
    std::cerr << "synclab-grade reference-times: " << e.what() << "\n";
    return 2;
  }
  if (!m.has_reference || !m.backends.count("sim")) {
    std::cerr << "synclab-grade reference-times: lab " << m.lab << " has no reference solution in this build\n";
    return 2;
  }
  const std::string program = m.backends.at("sim").reference_tests;
  char dir_template[] = "/tmp/synclab-reference-times.XXXXXX";
  if (!mkdtemp(dir_template)) {
    std::cerr << "synclab-grade reference-times: cannot create a work directory\n";
    return 2;
  }
  const fs::path dir = dir_template;
  auto run = [&](std::vector<std::string> args, int fd) {
    RunSpec spec;
    spec.argv = {program};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dir.string(), "LANG=C.UTF-8",
                "SYNCLAB_GRADE_METRICS_FD=4"};
    spec.cwd = dir.string();
    spec.timeout_s = 600;
    spec.extra_fd = fd;
    return run_sandboxed(spec);
  };
  // The speed cases: [speed] in the tag listing.
  const std::vector<std::string> names = non_empty_lines(run({"[speed]", "--list-test-names-only"}, -1).output);
  std::string text = "# The reference solution's simulated times for lab " + m.lab +
                     "'s speed-graded cases (synclab-grade reference-times): case<TAB>ms\n";
  int status = 0;
  for (const auto& name : names) {
    const fs::path metrics = dir / "metrics.txt";
    int fd = ::open(metrics.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    RunResult r = run({catch_test_spec(name)}, fd);
    ::close(fd);
    double ms = 0;
    if (r.exit_code != 0 || !parse_time(read_private(metrics, 4096), &ms)) {
      std::cerr << "synclab-grade reference-times: the reference fails '" << name << "' or records no time\n";
      status = 2;
      continue;
    }
    text += fmt::format("{}\t{:.9g}\n", name, ms);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (status != 0) return status;
  if (names.empty()) {
    std::cout << "lab " << m.lab << " has no speed-graded cases: nothing written\n";
    return 0;
  }
  std::ofstream o(out_path);
  o << text;
  if (!o) {
    std::cerr << "synclab-grade reference-times: cannot write " << out_path << "\n";
    return 2;
  }
  std::cout << out_path << ": " << names.size() << " speed case(s)\n";
  return 0;
}

int check_objects_command(const std::vector<std::string>& objects) {
  std::string objdump = find_program("objdump");
  if (objdump.empty()) {
    std::cerr << "synclab-grade check-object: objdump (binutils) is missing\n";
    return 2;
  }
  int status = 0;
  for (const auto& obj : objects) {
    RunSpec spec;
    spec.env = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
    ObjectCheck c = disassemble_and_check(objdump, obj, spec);
    if (!c.error.empty()) {
      std::cout << obj << ": cannot check: " << c.error << "\n";
      status = 2;
      continue;
    }
    if (c.problems.empty()) {
      std::cout << obj << ": ok\n";
      continue;
    }
    for (const auto& p : c.problems) std::cout << obj << ": " << p << "\n";
    if (status == 0) status = 1;
  }
  return status;
}

}  // namespace synclab::grade
