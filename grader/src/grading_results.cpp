// A grading's results (grading.h): the score, results.json (Gradescope's format) and the table
// and summary a person reads.
#include "grading.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

namespace synclab::grade {

using nlohmann::json;

double Grading::total() const {
  double s = 0;
  for (const auto& t : results_) s += t.score;
  return std::round(s * 100) / 100;
}

double Grading::max_total() const {
  double s = 0;
  for (const auto& t : results_) s += t.max_score;
  return s;
}

std::string Grading::summary() const {
  std::string out;
  if (!internal_error_.empty()) {
    out += "The grader could not grade this submission:\n" + shorten(internal_error_) +
           "\nThe score is 0 until it can; please tell the course staff.\n";
    return out;
  }
  out += fmt::format("Lab {}, graded on the {} ({} backend).\n", manifest_.lab,
                     backend_ == "sim" ? "SyncLab simulator" : "GPU", backend_);
  if (!opt_.student.empty())
    out += fmt::format(
        "Student id: '{}' (tasks with per-student cases, the predictions of labs 01, 02, 03, 04 and 10, "
        "draw yours from it; SYNCLAB_STUDENT='{}' shows them on your machine).\n",
        opt_.student, opt_.student);
  out += "Student files:\n";
  for (const auto& [f, from] : taken_) out += fmt::format("  {} (from {})\n", f, from);
  for (const auto& [f, from] : findbug_taken_) out += fmt::format("  {} (from {})\n", f, from);
  for (const auto& f : missing_)
    out += fmt::format("  {}: {}; the handed-out skeleton was graded\n", f,
                       skipped_.count(f) ? skipped_.at(f) : "not in the submission");
  if (!ignored_.empty()) {
    out += fmt::format("Ignored ({} file(s) that are not student files of this lab):\n", ignored_.size());
    for (size_t i = 0; i < ignored_.size() && i < kMaxListedIgnored; ++i) out += "  " + ignored_[i] + "\n";
    if (ignored_.size() > kMaxListedIgnored)
      out += fmt::format("  ... and {} more\n", ignored_.size() - kMaxListedIgnored);
  }
  bool any_failed = false;
  for (const auto& t : results_) any_failed |= !t.passed;
  if (any_failed && build_error_.empty() && !replay_note_.empty()) out += "\n" + shorten(replay_note_) + "\n";
  if (!keep_note_.empty()) out += "\n" + shorten(keep_note_) + "\n";
  if (!findbug_note_.empty()) out += "\n" + findbug_note_ + "\n";
  if (!sandbox_note_.empty()) out += "\n" + sandbox_note_ + "\n";
  if (!guard_note_.empty()) out += "\n" + guard_note_ + "\n";
  if (!build_error_.empty()) out += "\n" + build_error_ + "\n";
  size_t passed = 0;
  for (const auto& t : results_) passed += t.passed;
  out += fmt::format("\n{} of {} test cases passed; score {} of {}.\n", passed, results_.size(), points(total()),
                     points(max_total()));
  return out;
}

void Grading::write_results() {
  json j;
  j["score"] = internal_error_.empty() ? total() : 0.0;
  j["execution_time"] = int(std::lround(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()));
  j["output"] = summary();
  j["visibility"] = "visible";
  j["stdout_visibility"] = "hidden";
  json tests = json::array();
  if (internal_error_.empty()) {
    for (const auto& t : results_) {
      json x;
      x["name"] = t.name;
      x["score"] = t.score;
      x["max_score"] = t.max_score;
      x["status"] = t.passed ? "passed" : "failed";
      x["output"] = t.output;
      x["tags"] = t.tags;
      x["visibility"] = t.visibility;
      tests.push_back(x);
    }
  }
  j["tests"] = tests;
  json extra;
  extra["lab"] = manifest_.lab;
  extra["backend"] = backend_;
  j["extra_data"] = extra;
  fs::path out = opt_.results;
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  // A new file of its own (never one somebody prepared), renamed over the results: a reader
  // never sees half of it.
  std::string templ = out.string() + ".tmp.XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", templ, std::strerror(errno)));
  fs::path tmp = name.data();
  const std::string text = j.dump(2) + "\n";
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += size_t(n);
  }
  fchmod(fd, 0644);
  const bool written = done == text.size() && fsync(fd) == 0;
  ::close(fd);
  std::error_code ec;
  if (!written) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("writing {} failed", tmp.string()));
  }
  // Something other than a file in its place (a directory a test program made) goes first.
  if (fs::exists(fs::symlink_status(out, ec)) && !fs::is_regular_file(fs::symlink_status(out, ec)))
    fs::remove_all(out, ec);
  fs::rename(tmp, out, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("cannot write {}: {}", out.string(), ec.message()));
  }
  results_written_ = out.string();
}

void Grading::print_table() const {
  std::cout << "\n";
  if (!internal_error_.empty()) {
    std::cout << "synclab-grade: " << shorten(internal_error_) << "\n";
  } else {
    if (!build_error_.empty()) std::cout << build_error_ << "\n\n";
    for (const auto& t : results_) {
      std::string first = t.output.substr(0, t.output.find('\n'));
      std::cout << fmt::format("{:<5} {:>5}/{:<3} {}\n", t.passed ? "PASS" : "FAIL", points(t.score),
                               points(t.max_score), t.name);
      if (!t.passed || t.speed) std::cout << "              " << first << "\n";
    }
    std::cout << fmt::format("\nscore: {} of {} ({} backend{})\n", points(total()), points(max_total()), backend_,
                             opt_.student.empty() ? "" : ", student id '" + opt_.student + "'");
    bool any_failed = false;
    for (const auto& t : results_) any_failed |= !t.passed;
    if (any_failed && !replay_note_.empty() && build_error_.empty()) std::cout << shorten(replay_note_) << "\n";
    if (!keep_note_.empty()) std::cout << keep_note_ << "\n";
  }
  if (!results_written_.empty()) std::cout << "results: " << results_written_ << "\n";
}

}  // namespace synclab::grade
