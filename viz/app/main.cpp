// synclab-viz: the SyncLab trace visualizer.
//
//   synclab-viz TRACE                                   the viewer (a window; needs a display)
//   synclab-viz TRACE --export out.png --step N [--window NAME] [--size WxH]
//   synclab-viz TRACE --export out.gif|out.mp4 --from A --to B [--fps F]
//
// Export renders offscreen (EGL surfaceless, no display needed; a hidden GLFW window when EGL is
// not there). docs/viz.md has the details.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "options.h"
#include "viz/core/huge_pages.h"
#include "renderer.h"

using namespace synclab::viz;
using namespace synclab::viz::app;

namespace {

std::string glfw_error_text;

// --keys: one key press (a character, or a named key with or without Shift).
struct KeyPress {
  ImWchar ch = 0;
  bool click = false;  // "click:X:Y": the left button pressed and released at (x, y)
  float x = 0, y = 0;
  int key = -1;  // ImGuiKey_
  bool shift = false;
};

bool parse_keys(const std::string& text, std::vector<KeyPress>* out, std::string* error) {
  static const struct {
    const char* name;
    int key;
  } names[] = {{"space", ImGuiKey_Space},  {"left", ImGuiKey_LeftArrow}, {"right", ImGuiKey_RightArrow},
               {"up", ImGuiKey_UpArrow},   {"down", ImGuiKey_DownArrow}, {"home", ImGuiKey_Home},
               {"end", ImGuiKey_End},      {"pageup", ImGuiKey_PageUp},  {"pagedown", ImGuiKey_PageDown},
               {"escape", ImGuiKey_Escape}};
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string tok = text.substr(start, end - start);
    start = end + 1;
    KeyPress k;
    if (tok.rfind("click:", 0) == 0) {
      char extra = 0;
      if (std::sscanf(tok.c_str() + 6, "%f:%f%c", &k.x, &k.y, &extra) != 2) {
        *error = "--keys: '" + tok + "': expected click:X:Y";
        return false;
      }
      k.click = true;
      out->push_back(k);
      if (end == text.size()) break;
      continue;
    }
    if (tok.rfind("shift+", 0) == 0) {
      k.shift = true;
      tok = tok.substr(6);
    }
    if (tok.size() == 1 && !k.shift) {
      k.ch = ImWchar(static_cast<unsigned char>(tok[0]));
    } else {
      for (const auto& n : names)
        if (tok == n.name) k.key = n.key;
      if (k.key < 0) {
        *error = "--keys: unknown key '" + tok + "'";
        return false;
      }
    }
    out->push_back(k);
    if (end == text.size()) break;
  }
  return true;
}
void on_glfw_error(int, const char* text) { glfw_error_text = text ? text : "unknown error"; }

int run_window(App& app, const CliOptions& o) {
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    const bool no_display = !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY");
    std::fprintf(stderr, "synclab-viz: cannot open a window: %s\n", glfw_error_text.c_str());
    if (no_display)
      std::fprintf(stderr,
                   "  There is no display ($DISPLAY and $WAYLAND_DISPLAY are unset). Export a picture "
                   "instead:\n    synclab-viz %s --export out.png\n  or run under a virtual display: "
                   "xvfb-run -a synclab-viz ...\n",
                   o.trace.c_str());
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  const std::string title = "SyncLab viz - " + o.trace;
  GLFWwindow* window = glfwCreateWindow(o.width, o.height, title.c_str(), nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "synclab-viz: cannot create an OpenGL 3.3 window: %s\n", glfw_error_text.c_str());
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  App::setup_imgui(o.font_size);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    std::fprintf(stderr, "synclab-viz: the ImGui OpenGL3 backend could not start\n");
    return 1;
  }
  app.recorder.enabled = !o.dump_layout.empty() || !o.probes.empty();

  std::vector<KeyPress> keys;
  {
    std::string err;
    if (!parse_keys(o.keys, &keys, &err)) {
      std::fprintf(stderr, "synclab-viz: %s\n", err.c_str());
      return 2;
    }
  }
  const int exit_after = o.exit_after_frames > 0 ? std::max(o.exit_after_frames, 2 * int(keys.size()) + 5) : 0;
  int rc = 0;
  int frame = 0;
  int busy_frames = 5;  // frames to draw before waiting for input again
  std::vector<uint8_t> rgba;
  int save_wait = 0;  // frames drawn since "Save picture" was asked for
  // Opened at a report near the end of a long launch: say how to watch it happen.
  if (app.cursor() > 0 && o.step.empty() && o.report < 0)
    app.status_message = "Home, then Space: watch it happen from the first event";
  while (!glfwWindowShouldClose(window) && !app.quit_requested) {
    if (app.playing || busy_frames > 0 || exit_after > 0) {
      glfwPollEvents();
      if (busy_frames > 0) --busy_frames;
    } else {
      glfwWaitEventsTimeout(0.5);
      busy_frames = 2;  // input may open a menu or tooltip that needs a second frame
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (!keys.empty() && frame >= 2) {  // --keys: press on even frames, release on odd ones
      ImGuiIO& io = ImGui::GetIO();
      const size_t k = size_t(frame - 2) / 2;
      const bool press = (frame - 2) % 2 == 0;
      if (k < keys.size()) {
        const KeyPress& kp = keys[k];
        if (kp.click) {
          io.MousePos = ImVec2(kp.x, kp.y);
          io.MouseDown[0] = press;
        }
        if (kp.ch && press) io.AddInputCharacter(kp.ch);
        if (kp.key >= 0) io.KeysDown[io.KeyMap[kp.key]] = press;
        io.KeyShift = press && kp.shift;
      }
    }
    ImGui::NewFrame();
    app.frame(ImGui::GetIO().DeltaTime);
    ImGui::Render();
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    gl_viewport(fw, fh);
    gl_clear(0.06f, 0.06f, 0.07f);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ++frame;
    // "Save picture": one more frame first, so that the menu that asked is closed.
    if (!app.save_png.empty() && ++save_wait >= 2) {
      std::string err;
      gl_read_window(fw, fh, &rgba);
      if (write_png(app.save_png, rgba, fw, fh, &err)) {
        const std::string cmd = app.export_command(app.save_png, fw, fh);
        std::printf("synclab-viz: wrote %s\n  the same picture without a window: %s\n", app.save_png.c_str(),
                    cmd.c_str());
        std::fflush(stdout);
        app.status_message = "wrote " + app.save_png + " (the command line that exports it is on stdout)";
      } else {
        app.status_message = err;
      }
      app.save_png.clear();
      save_wait = 0;
      busy_frames = std::max(busy_frames, 2);
    }
    if (exit_after > 0 && frame >= exit_after) {
      std::string err;
      gl_read_window(fw, fh, &rgba);
      if (!o.screenshot.empty() && !write_png(o.screenshot, rgba, fw, fh, &err)) rc = 1;
      if (rc == 0 && !o.dump_layout.empty() && !write_layout(app, o.dump_layout, fw, fh, &err)) rc = 1;
      if (rc == 0 && !o.probes.empty() && !print_probes(app, o.probes, rgba, fw, fh, &err)) rc = 1;
      if (rc != 0)
        std::fprintf(stderr, "synclab-viz: %s\n", err.c_str());
      else
        std::printf("window %dx%d, event %" PRIu64 " of launch %d, %d frames, selected %s\n", fw, fh, app.cursor(),
                    app.launch(), frame,
                    app.selection.warp == kNoWarp
                        ? "none"
                        : (std::to_string(app.selection.warp) + ":" + std::to_string(app.selection.lane)).c_str());
      break;
    }
    glfwSwapBuffers(window);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  restart_on_huge_pages(argv);  // (viz/core/huge_pages.h: the model's memory on huge pages)
  CliOptions o;
  if (const int status = parse_command_line(argc, argv, &o); status >= 0) return status;

  std::string err;
  std::unique_ptr<Model> model = Model::open(o.trace, &err);
  if (!model) {
    std::fprintf(stderr, "synclab-viz: %s\n", err.c_str());
    return 1;
  }
  if (!model->warning().empty()) std::fprintf(stderr, "synclab-viz: warning: %s\n", model->warning().c_str());
  if (model->launches().empty()) {
    std::fprintf(stderr, "synclab-viz: %s: the trace has no kernel launches: nothing to show\n", o.trace.c_str());
    return 1;
  }
  AppOptions ao;
  ao.only_window = o.window;
  ao.layout = o.layout;
  ao.relative_to = o.relative_to;
  ao.interactive = o.export_path.empty();
  ao.font_size = o.font_size;
  ao.steer_dir = o.steer_dir;
  ao.steer_timeout_s = o.steer_timeout;
  ao.challenge = o.challenge;
  App app(std::move(model), ao);
  if (!apply_view_options(app, o, &err)) {
    std::fprintf(stderr, "synclab-viz: %s\n", err.c_str());
    return 1;
  }
  if (!o.export_path.empty()) return run_export(app, o);
  return run_window(app, o);
}
