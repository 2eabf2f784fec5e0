// Offscreen rendering of the App: an offscreen OpenGL context (gl_context.h), an ImGui context
// with the OpenGL3 backend, and a framebuffer object of the export size. No window, no GLFW
// backend: the display size, time step and mouse are set by hand.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app.h"
#include "gl_context.h"

struct ImGuiContext;

namespace synclab::viz::app {

class OffscreenRenderer {
 public:
  // nullptr and *error when no context or framebuffer can be had; *note: see create_offscreen.
  static std::unique_ptr<OffscreenRenderer> create(int width, int height, float font_size, OffscreenBackend backend,
                                                   std::string* error, std::string* note);
  ~OffscreenRenderer();

  int width() const { return width_; }
  int height() const { return height_; }
  const GlContext& context() const { return *ctx_; }

  // Builds `frames` frames of the app and draws the last one into the framebuffer. The first
  // frames let ImGui settle (window sizes, scrolling to the cursor); 3 is plenty for a still.
  void render(App& app, int frames);
  // Just one frame's NewFrame .. Render (no drawing): returns its wall time in milliseconds.
  double build_frame_ms(App& app);
  // The last rendered frame, top row first, RGBA.
  void read(std::vector<uint8_t>* rgba);

 private:
  OffscreenRenderer() = default;
  void build(App& app);
  int width_ = 0, height_ = 0;
  std::unique_ptr<GlContext> ctx_;
  std::unique_ptr<Framebuffer> fb_;
  ImGuiContext* imgui_ = nullptr;
  bool backend_ok_ = false;
};

}  // namespace synclab::viz::app
