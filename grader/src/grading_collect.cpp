// Collecting a submission (grading.h): the student files taken, missing and ignored; the graded
// cases and their tags, listed by the trusted reference program.
#include "grading.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "findbug.h"

namespace synclab::grade {

void Grading::collect_submission() {
  fs::path sub = opt_.submission;
  std::error_code ec;
  if (!fs::is_directory(sub, ec))
    throw GradeError(fmt::format("the submission directory {} does not exist or is not a directory", sub.string()));
  sub = fs::canonical(sub);
  // Every regular file of the submission (symbolic links are never followed).
  std::vector<fs::path> all;
  fs::recursive_directory_iterator it(sub, fs::directory_options::skip_permission_denied, ec), end;
  size_t seen = 0;
  for (; it != end && !ec; it.increment(ec)) {
    if (++seen > 20000) break;
    const auto& e = *it;
    if (e.is_directory() && (e.path().filename() == ".git" || e.path().filename() == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    if (e.is_symlink() || !e.is_regular_file()) {
      if (!e.is_directory() || e.is_symlink())
        skipped_[e.path().filename().string()] =
            fmt::format("{} in the submission is {}", e.path().lexically_relative(sub).string(),
                        e.is_symlink() ? "a symbolic link, which is never followed" : "not a regular file");
      continue;
    }
    all.push_back(e.path().lexically_relative(sub));
  }
  std::sort(all.begin(), all.end(), [](const fs::path& a, const fs::path& b) {
    auto da = std::distance(a.begin(), a.end()), db = std::distance(b.begin(), b.end());
    return da != db ? da < db : a < b;
  });
  std::set<fs::path> used;
  // Where the file f is in the submission: itself, in labs/<lab>/ or <lab>/, else the shallowest.
  auto locate = [&](const std::string& f) {
    for (const fs::path& c : {fs::path(f), fs::path("labs") / manifest_.lab / f, fs::path(manifest_.lab) / f})
      if (std::find(all.begin(), all.end(), c) != all.end()) return c;
    for (const auto& p : all)
      if (p.filename() == f) return p;
    return fs::path();
  };
  // The find-the-bug answer (findbug.txt) and fix (findbug.cu), when the lab has the task.
  if (!findbug::find_pool(manifest_.lab_dir).empty()) {
    fs::create_directories(dirs_.src / "findbug");
    for (const char* f : {"findbug.txt", "findbug.cu"}) {
      const fs::path chosen = locate(f);
      if (chosen.empty()) continue;
      struct stat st {};
      const fs::path from = sub / chosen;
      if (lstat(from.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || uintmax_t(st.st_size) > kMaxStudentFile) continue;
      fs::copy_file(from, dirs_.src / "findbug" / f, fs::copy_options::overwrite_existing);
      chmod((dirs_.src / "findbug" / f).c_str(), 0644);
      used.insert(chosen);
      findbug_taken_.push_back({f, chosen.string()});
    }
  }
  for (const auto& f : manifest_.student_files) {
    fs::path chosen = locate(f);
    fs::path dest = dirs_.src / f;
    if (chosen.empty()) {
      fs::copy_file(fs::path(manifest_.lab_dir) / f, dest, fs::copy_options::overwrite_existing);
      missing_.push_back(f);
    } else {
      fs::path from = sub / chosen;
      struct stat st {};
      if (lstat(from.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        throw GradeError(fmt::format("{} in the submission is not a regular file", chosen.string()));
      if (uintmax_t(st.st_size) > kMaxStudentFile)
        throw GradeError(fmt::format("{} in the submission is {} bytes; a student file may have at most {}",
                                     chosen.string(), st.st_size, kMaxStudentFile));
      fs::copy_file(from, dest, fs::copy_options::overwrite_existing);
      used.insert(chosen);
      taken_.push_back({f, chosen.string()});
    }
    chmod(dest.c_str(), 0644);
  }
  for (const auto& p : all)
    if (!used.count(p)) ignored_.push_back(p.string());
  for (const auto& [f, from] : taken_) progress(fmt::format("  student file {} <- {}", f, from));
  for (const auto& f : missing_)
    progress(fmt::format("  student file {} is missing{}: the handed-out skeleton is graded in its place", f,
                         skipped_.count(f) ? " (" + skipped_.at(f) + ")" : ""));
  if (!ignored_.empty())
    progress(fmt::format("  {} other file(s) ignored (not student files of this lab)", ignored_.size()));
}

RunResult Grading::run_listing(const std::string& program, const std::vector<std::string>& args) {
  RunSpec spec;
  spec.argv = {program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = base_env(dirs_.run);
  spec.cwd = dirs_.run.string();
  spec.timeout_s = 60;
  return run_sandboxed(spec);
}

std::vector<std::string> Grading::list_names(const std::string& program) {
  auto listing = [&](const std::vector<std::string>& args) {
    const RunResult r = run_listing(program, args);
    if (!r.started) throw GradeError(fmt::format("cannot run {}: {}", program, r.error));
    return r.output;
  };
  std::string names = listing({"--list-test-names-only"});
  std::regex bad("unrecognised|unknown|error", std::regex::icase);
  if (names.empty() || std::regex_search(names, bad)) names = listing({"--list-tests", "--verbosity", "quiet"});
  std::vector<std::string> out = non_empty_lines(names);
  if (out.empty()) throw GradeError(fmt::format("{} lists no test cases", program));
  return out;
}

std::map<std::string, std::vector<std::string>> Grading::tags_of_all(const std::string& program,
                                                                     const std::vector<std::string>& names) {
  // One listing of every case (catch_report.h); a name it does not show as listed (wrapped, or
  // another layout) is asked for on its own, as before: one run each.
  const RunResult r = run_listing(program, {"--list-tests"});
  // (a listing cut short, its output over the runner's limit, may have lost a tag mid-line)
  const auto listed =
      r.started && !r.timed_out && r.output_dropped == 0 ? read_tag_listing(r.output, r.exit_code) : CaseTags{};
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& n : names) {
    const auto it = listed.find(n);
    out[n] = (it != listed.end() && !it->second.empty()) ? it->second : tags_of(program, n);
  }
  return out;
}

std::vector<std::string> Grading::tags_of(const std::string& program, const std::string& name) {
  const RunResult r = run_listing(program, {"--list-tests", catch_test_spec(name)});
  std::vector<std::string> tags;
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find_first_not_of(' ');
    if (a != std::string::npos && line[a] == '[') append_catch_tags(line, tags);
  }
  return tags;
}

void Grading::list_cases() {
  public_names_ = list_names(be_.reference_tests);
  if (!opt_.hidden.empty() && !manifest_.has_reference)
    throw GradeError("hidden tests need the reference solutions, and this copy of the lab has none");
  // With hidden tests the reference program is linked later; the public cases are known now.
  auto tags = tags_of_all(be_.reference_tests, public_names_);
  for (const auto& n : public_names_) {
    TestResult t;
    t.name = n;
    t.tags = std::move(tags[n]);
    results_.push_back(t);
  }
}

void Grading::finish_case_list() {
  for (auto& t : results_) {
    bool found = false;
    for (const auto& tag : t.tags) {
      std::smatch m;
      if (std::regex_match(tag, m, std::regex("pts:([0-9]+(\\.[0-9]+)?)"))) {
        t.max_score = std::stod(m[1].str());
        found = true;
      } else if (tag == "speed") {
        t.speed = true;
      } else if (tag.rfind("visibility:", 0) == 0) {
        t.visibility = tag.substr(11);
        static const std::set<std::string> ok = {"visible", "hidden", "after_due_date", "after_published"};
        if (!ok.count(t.visibility))
          throw GradeError(
              fmt::format("test case '{}' has the tag [{}]; the visibility must be one of visible, "
                          "hidden, after_due_date, after_published",
                          t.name, tag));
      }
    }
    if (!found)
      throw GradeError(
          fmt::format("test case '{}' has no [pts:N] tag: every graded case must say what it is worth", t.name));
  }
}

}  // namespace synclab::grade
