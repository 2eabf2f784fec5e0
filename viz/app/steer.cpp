// Steering the schedule: see steer.h and docs/viz.md, "Steering the schedule".
#include "steer.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <synclab/trace_schedule.h>

#include "app.h"
#include <synclab/fnv1a.h>

extern char** environ;

namespace synclab::viz::app {

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string json_string(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The variables a re-run takes from the trace (or sets itself), never from the viewer's own
// environment.
bool is_synclab_variable(const std::string& name) { return name.rfind("SYNCLAB_", 0) == 0; }

std::string read_text(const std::string& path, size_t limit) {
  std::ifstream f(path, std::ios::binary);
  std::string s;
  if (!f) return s;
  s.resize(limit);
  f.read(&s[0], std::streamsize(limit));
  s.resize(size_t(f.gcount()));
  return s;
}

// The line of the child's output that starts with `prefix` ("" when none).
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

std::string absolute(const std::string& p) {
  std::error_code ec;
  const std::filesystem::path a = std::filesystem::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

}  // namespace

bool file_fnv1a(const std::string& path, std::string* hex, uint64_t* bytes) {
  uint64_t h = 0, n = 0;
  if (!synclab::file_fnv1a(path, &h, &n)) return false;
  char b[24];
  std::snprintf(b, sizeof b, "%016" PRIx64, h);
  *hex = b;
  *bytes = n;
  return true;
}

std::string rerun_problem(const Model& m) {
  const HeaderInfo& h = m.header();
  if (h.gpu || h.backend == "gpu")
    return "this trace was recorded on a GPU (" + (h.device.empty() ? std::string("backend gpu") : h.device) +
           "): a GPU run cannot be steered; record the program on the simulator (SYNCLAB_TRACE=FILE) to steer it";
  const nlohmann::json& j = h.json;
  if (!j.is_object() || !j.contains("rerun") || !j["rerun"].is_object())
    return "the trace does not say how to re-run its program (it was recorded before the simulator wrote the "
           "header's \"rerun\"): record it again to steer it";
  if (j.contains("recording") && j["recording"].is_object())
    for (const char* k : {"kernels", "blocks", "ranges", "kinds"})
      if (j["recording"].contains(k))
        return std::string("the trace records only some events (SYNCLAB_TRACE_") +
               (std::string(k) == "kernels"  ? "KERNELS"
                : std::string(k) == "blocks" ? "BLOCKS"
                : std::string(k) == "ranges" ? "RANGES"
                                             : "KINDS") +
               "), so its schedule cannot be rebuilt: record it without that filter to steer it";
  const nlohmann::json& r = j["rerun"];
  const std::string program = json_string(j, "program");
  if (program.empty() || program == "?") return "the trace does not name its program";
  struct stat st {};
  if (::stat(program.c_str(), &st) != 0) return "the program " + program + " is gone: it cannot be re-run";
  std::string hex;
  uint64_t bytes = 0;
  if (!file_fnv1a(program, &hex, &bytes)) return "the program " + program + " cannot be read";
  const uint64_t want_bytes =
      r.contains("program_bytes") && r["program_bytes"].is_number_unsigned() ? r["program_bytes"].get<uint64_t>() : 0;
  const std::string want_hex = json_string(r, "program_fnv1a");
  if (bytes != want_bytes || hex != want_hex)
    return "the program " + program +
           " changed since it recorded this trace (it was rebuilt: its size or hash differs), so a re-run "
           "would not replay this trace: record the trace again with the current program";
  return "";
}

bool Steerer::set_challenge(App& app, const std::string& path, std::string* error) {
  if (!load_challenge(path, &challenge_, error)) return false;
  has_challenge_ = true;
  evaluate_challenge(app);
  return true;
}

void Steerer::evaluate_challenge(App& app) {
  if (!has_challenge_) return;
  const ChallengeResult r = synclab::viz::evaluate_challenge(challenge_.check, app.model().trace());
  challenge_text_ = describe(r);
  challenge_reached_ = r.reached;
  std::printf("synclab-viz: challenge: %s\n", challenge_text_.c_str());
  std::fflush(stdout);
}

Steerer::Steerer(std::string dir, double timeout_s) : dir_(std::move(dir)), timeout_s_(timeout_s) {}

Steerer::~Steerer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int st = 0;
    ::waitpid(pid_, &st, 0);
  }
}

void Steerer::set_status(std::string s, bool error) {
  status_ = std::move(s);
  status_error_ = error;
}

void Steerer::start(App& app) {
  SteerBranch b;
  b.trace = app.model().path();
  b.launch = app.launch();
  b.cursor = app.cursor();
  b.what = "the trace opened";
  branches_.assign(1, b);
  current_ = 0;
  problem_ = rerun_problem(app.model());
}

bool Steerer::choose(App& app, uint32_t warp, bool has_mask, uint32_t mask) {
  if (running()) {
    set_status("a re-run is still running: wait for it", true);
    return false;
  }
  problem_ = rerun_problem(app.model());  // the program may have been rebuilt since
  if (!problem_.empty()) {
    set_status("cannot re-run: " + problem_, true);
    std::printf("synclab-viz: steer: refused: %s\n", problem_.c_str());
    std::fflush(stdout);
    return false;
  }
  if (app.model().launches().empty()) return false;
  if (warp >= app.launch_info().warps) {
    set_status("warp " + std::to_string(warp) + " is not a warp of this launch", true);
    return false;
  }
  if (dir_.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/synclab-steer-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!::mkdtemp(buf.data())) {
      set_status("cannot make a directory for the branches (" + templ + "): " + std::strerror(errno), true);
      return false;
    }
    dir_ = buf.data();
    dir_made_ = true;
  } else if (!dir_made_) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      set_status("cannot make the directory " + dir_ + ": " + ec.message(), true);
      return false;
    }
    dir_ = absolute(dir_);
    dir_made_ = true;
  }
  branches_[current_].launch = app.launch();  // undo comes back here
  branches_[current_].cursor = app.cursor();

  // The schedule: everything up to the cursor, then the choice.
  const int L = app.launch();
  const uint64_t c = app.cursor();
  char choice[64];
  if (has_mask)
    std::snprintf(choice, sizeof choice, "step %u 0x%08x", warp, mask);
  else
    std::snprintf(choice, sizeof choice, "step %u", warp);
  std::string text = synclab::trace::schedule_prefix(app.model().trace(), size_t(L), c);
  text += "# chosen in synclab-viz at event " + std::to_string(c) + " of launch " + std::to_string(L) + "\n";
  text += std::string(choice) + "\n";

  char name[32];
  // Branch files are numbered in the order they were made (after an undo too), never reused.
  do {
    std::snprintf(name, sizeof name, "branch-%03d", ++counter_);
  } while (std::filesystem::exists(dir_ + "/" + name + ".trace") ||
           std::filesystem::exists(dir_ + "/" + name + ".schedule"));
  const std::string base = dir_ + "/" + name;
  pending_ = SteerBranch{};
  pending_.trace = base + ".trace";
  pending_.schedule = base + ".schedule";
  pending_.launch = L;
  pending_.cursor = c;
  pending_.what = "warp " + std::to_string(warp) +
                  (has_mask ? " (lanes " + std::string(choice).substr(std::string(choice).rfind(' ') + 1) + ")" : "") +
                  " after event " + std::to_string(c) + " of launch " + std::to_string(L);
  pending_log_ = base + ".log";
  {
    std::ofstream f(pending_.schedule);
    f << text;
    if (!f) {
      set_status("cannot write " + pending_.schedule, true);
      return false;
    }
  }

  // The child: the trace's program and arguments, the trace path among them replaced by the new
  // one, its SYNCLAB_* settings, and the replay scheduler.
  const nlohmann::json& hj = app.model().header().json;
  const nlohmann::json& r = hj["rerun"];
  const std::string program = json_string(hj, "program");
  const std::string old_trace = json_string(r, "trace");
  std::vector<std::string> args;
  if (hj.contains("args") && hj["args"].is_array())
    for (const auto& a : hj["args"])
      if (a.is_string()) args.push_back(a.get<std::string>());
  if (args.empty()) args.push_back(program);
  bool replaced = false;
  for (size_t i = 1; i < args.size() && !old_trace.empty(); ++i) {
    std::string& a = args[i];
    if (a == old_trace) {
      a = pending_.trace;
      replaced = true;
    } else if (a.size() > old_trace.size() &&
               a.compare(a.size() - old_trace.size(), old_trace.size(), old_trace) == 0 &&
               a[a.size() - old_trace.size() - 1] == '=') {
      a = a.substr(0, a.size() - old_trace.size()) + pending_.trace;
      replaced = true;
    }
  }
  // The environment: the viewer's own without any SYNCLAB_* variable, then the SYNCLAB_* variables
  // the program had when it recorded the trace, as they were (a lab harness reads SYNCLAB_MODEL,
  // SYNCLAB_SCHED, ... as "explore only this", so the same values make it do what it did), but
  // SYNCLAB_SCHEDULE names the new schedule (set, it replays; its `then` line names the policy
  // afterwards, so SYNCLAB_SCHED_AFTER and SYNCLAB_SCHED=replay are left out).
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string s = *e;
    if (!is_synclab_variable(s.substr(0, s.find('=')))) env.push_back(s);
  }
  bool had_trace_variable = false;
  if (r.contains("env") && r["env"].is_object())
    for (auto it = r["env"].begin(); it != r["env"].end(); ++it) {
      const std::string& k = it.key();
      if (k == "SYNCLAB_TRACE") had_trace_variable = true;
      if (!it.value().is_string() || k == "SYNCLAB_TRACE" || k == "SYNCLAB_SCHEDULE" || k == "SYNCLAB_SCHED_AFTER" ||
          (k == "SYNCLAB_SCHED" && it.value() == "replay"))
        continue;
      env.push_back(k + "=" + it.value().get<std::string>());
    }
  env.push_back("SYNCLAB_SCHEDULE=" + pending_.schedule);
  // The trace: where the program was told to write it (its argument, else SYNCLAB_TRACE).
  if (had_trace_variable || !replaced) env.push_back("SYNCLAB_TRACE=" + pending_.trace);
  std::vector<char*> argv, envp;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, pending_log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  const std::string cwd = json_string(r, "cwd");
  if (!cwd.empty() && std::filesystem::is_directory(cwd)) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  pid_t pid = -1;
  const int err = posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) {
    set_status("cannot start " + program + ": " + std::strerror(err), true);
    return false;
  }
  pid_ = pid;
  started_ = now_s();
  set_status("re-running " + program + " with " + pending_.what + " ...", false);
  std::printf("synclab-viz: steer: re-running %s: schedule %s\n", program.c_str(), pending_.schedule.c_str());
  std::fflush(stdout);
  return true;
}

void Steerer::poll(App& app) {
  if (move_ != 0) {  // undo / redo asked for in the last frame, done before any window draws
    const int m = move_;
    move_ = 0;
    if (m < 0)
      undo(app);
    else
      redo(app);
  }
  if (pid_ <= 0) return;
  int st = 0;
  const pid_t got = ::waitpid(pid_, &st, WNOHANG);
  if (got == 0) {
    if (now_s() - started_ > timeout_s_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &st, 0);
      pid_ = -1;
      output_ = read_text(pending_log_, 1 << 16);
      char b[160];
      std::snprintf(b, sizeof b, "the re-run took more than %.0f s and was stopped; this branch stays open",
                    timeout_s_);
      set_status(b, true);
      show_output_ = true;
      std::printf("synclab-viz: steer: failed: %s\n", b);
      std::fflush(stdout);
    }
    return;
  }
  pid_ = -1;
  finish(app, got < 0 ? -1 : st);
}

void Steerer::finish(App& app, int st) {
  output_ = read_text(pending_log_, 1 << 16);
  const bool exited = st >= 0 && WIFEXITED(st);
  const int code = exited ? WEXITSTATUS(st) : -1;
  std::string how = exited                       ? "exit status " + std::to_string(code)
                    : st >= 0 && WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st))
                                                 : "lost";
  auto fail = [&](const std::string& why, bool show) {
    set_status(why + "; this branch stays open", true);
    show_output_ = show;
    std::printf("synclab-viz: steer: refused: %s\n", why.c_str());
    std::fflush(stdout);
  };
  if (exited && code == 3) {
    const std::string line = line_starting(output_, "synclab: schedule ");
    if (!line.empty()) return fail(line, false);
  }
  std::string err;
  std::unique_ptr<Model> m;
  if (std::filesystem::exists(pending_.trace)) m = Model::open(pending_.trace, &err);
  if (!m) {
    const std::string why =
        std::filesystem::exists(pending_.trace)
            ? "the re-run's trace cannot be read (" + err + ")"
            : "the re-run wrote no trace (" + how + "); its output is in the window 'Re-run output'";
    return fail(why, true);
  }
  if (size_t(pending_.launch) >= m->launches().size())
    return fail("the re-run made " + std::to_string(m->launches().size()) + " launches, not launch " +
                    std::to_string(pending_.launch),
                true);
  branches_.resize(current_ + 1);  // a new branch drops what undo left to redo
  branches_.push_back(pending_);
  current_ = branches_.size() - 1;
  app.replace_model(std::move(m), pending_.launch, pending_.cursor);
  show_output_ = false;
  // The trace is what counts here; a non-zero status is the program's own verdict (a lab harness
  // exits 1 while a check or a prediction of the student's does not pass yet), not a failed re-run.
  if (exited && code != 0) how += ", the program's own verdict: the trace was written";
  set_status(
      "branch " + std::to_string(current_) + ": " + pending_.what + " (program " + how + "); Right: the chosen step",
      false);
  std::printf("synclab-viz: steer: branch %zu: %s (launch %d, event %" PRIu64 ", program %s)\n", current_,
              pending_.trace.c_str(), pending_.launch, pending_.cursor, how.c_str());
  std::fflush(stdout);
  evaluate_challenge(app);
}

bool Steerer::open_branch(App& app, size_t index) {
  const SteerBranch& b = branches_[index];
  std::string err;
  std::unique_ptr<Model> m = Model::open(b.trace, &err);
  if (!m || m->launches().empty()) {
    set_status("cannot open " + b.trace + ": " + (m ? std::string("no launches") : err), true);
    return false;
  }
  branches_[current_].launch = app.launch();
  branches_[current_].cursor = app.cursor();
  current_ = index;
  app.replace_model(std::move(m), b.launch, b.cursor);
  set_status("branch " + std::to_string(index) + ": " + b.what, false);
  std::printf("synclab-viz: steer: branch %zu: %s (launch %d, event %" PRIu64 ")\n", index, b.trace.c_str(), b.launch,
              b.cursor);
  std::fflush(stdout);
  evaluate_challenge(app);
  return true;
}

void Steerer::undo(App& app) {
  if (can_undo()) open_branch(app, current_ - 1);
}

void Steerer::redo(App& app) {
  if (can_redo()) open_branch(app, current_ + 1);
}

void Steerer::draw_controls(App& app) {
  if (has_challenge_) {
    ImGui::TextWrapped("Goal: %s", challenge_.goal.c_str());
    if (challenge_reached_)
      ImGui::TextColored(ImVec4(0.4f, 0.9f, 0.4f, 1.0f), "%s", challenge_text_.c_str());
    else
      ImGui::TextDisabled("%s", challenge_text_.c_str());
  }
  ImGui::TextUnformatted("Steer:");
  help_marker(
      "Steering the schedule: Ctrl+click a lane (or right-click it for its groups of lanes) and that warp "
      "issues the step after the cursor. The viewer re-runs the program under the simulator with the "
      "schedule of this trace up to the cursor plus your choice (SYNCLAB_SCHED=replay), then opens the "
      "new trace at the same event. Undo / redo move between the branches; every branch's trace and "
      "schedule are kept in the steering directory (docs/viz.md, \"Steering the schedule\").");
  ImGui::SameLine();
  // One line whatever it says (the lanes below stay where they are); the whole text in a tooltip.
  auto tip = [](const std::string& text) {
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  };
  if (!available()) {
    ImGui::TextDisabled("cannot re-run: %s", problem_.c_str());
    tip(problem_);
    return;
  }
  ImGui::BeginDisabled(!can_undo());
  if (ImGui::SmallButton("undo")) move_ = -1;
  ImGui::EndDisabled();
  if (app.recorder.enabled)
    app.recorder.add("steer:undo", ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), palette::Rgb{0, 0, 0}, "undo");
  ImGui::SameLine();
  ImGui::BeginDisabled(!can_redo());
  if (ImGui::SmallButton("redo")) move_ = +1;
  ImGui::EndDisabled();
  if (app.recorder.enabled)
    app.recorder.add("steer:redo", ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), palette::Rgb{0, 0, 0}, "redo");
  ImGui::SameLine();
  if (branches_.size() <= 1)
    ImGui::TextDisabled("no re-run yet");
  else
    ImGui::Text("branch %zu of %zu", current_, branches_.size() - 1);
  if (!status_.empty()) {
    if (status_error_ && !output_.empty() && !show_output_) {
      ImGui::SameLine();
      if (ImGui::SmallButton("output")) show_output_ = true;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("what the re-run printed");
    }
    ImGui::SameLine();
    if (running()) {
      ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.3f, 1.0f), "%s (%.0f s)", status_.c_str(), now_s() - started_);
    } else if (status_error_) {
      ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", status_.c_str());
    } else {
      ImGui::TextUnformatted(status_.c_str());
    }
    tip(status_);
  }
}

void Steerer::draw_output_window() {
  if (!show_output_) return;
  ImGui::SetNextWindowSize(ImVec2(640, 320), ImGuiCond_FirstUseEver);
  if (ImGui::Begin("Re-run output", &show_output_)) {
    ImGui::TextWrapped("%s", status_.c_str());
    ImGui::Separator();
    ImGui::BeginChild("##rerun_output", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::TextUnformatted(output_.empty() ? "(no output)" : output_.c_str());
    ImGui::EndChild();
  }
  ImGui::End();
}

}  // namespace synclab::viz::app
