#include "renderer.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cfloat>
#include <chrono>

namespace synclab::viz::app {

std::unique_ptr<OffscreenRenderer> OffscreenRenderer::create(int width, int height, float font_size,
                                                             OffscreenBackend backend, std::string* error,
                                                             std::string* note) {
  if (width < 64 || height < 64 || width > 8192 || height > 8192) {
    *error =
        "image size " + std::to_string(width) + "x" + std::to_string(height) + " is out of range (64x64 .. 8192x8192)";
    return nullptr;
  }
  std::unique_ptr<OffscreenRenderer> r(new OffscreenRenderer());
  r->width_ = width;
  r->height_ = height;
  r->ctx_ = create_offscreen(backend, error, note);
  if (!r->ctx_) return nullptr;
  r->fb_ = std::make_unique<Framebuffer>(width, height);
  if (!r->fb_->ok()) {
    *error = "could not create a " + std::to_string(width) + "x" + std::to_string(height) + " framebuffer (" +
             r->ctx_->renderer() + ")";
    return nullptr;
  }
  IMGUI_CHECKVERSION();
  r->imgui_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(r->imgui_);
  App::setup_imgui(font_size);
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    *error = "the ImGui OpenGL3 backend could not start on " + r->ctx_->renderer();
    return nullptr;
  }
  r->backend_ok_ = true;
  return r;
}

OffscreenRenderer::~OffscreenRenderer() {
  if (imgui_) {
    ImGui::SetCurrentContext(imgui_);
    if (backend_ok_) ImGui_ImplOpenGL3_Shutdown();
    ImGui::DestroyContext(imgui_);
  }
  fb_.reset();
  ctx_.reset();
}

void OffscreenRenderer::build(App& app) {
  ImGui::SetCurrentContext(imgui_);
  ImGui_ImplOpenGL3_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(width_), float(height_));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  io.DeltaTime = 1.0f / 60.0f;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no hover, no tooltips
  ImGui::NewFrame();
  app.frame(0.0f);
  ImGui::Render();
}

void OffscreenRenderer::render(App& app, int frames) {
  ctx_->make_current();
  for (int i = 0; i < std::max(1, frames); ++i) build(app);
  fb_->bind();
  gl_clear(0.06f, 0.06f, 0.07f);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  fb_->unbind();
}

double OffscreenRenderer::build_frame_ms(App& app) {
  ctx_->make_current();
  const auto t0 = std::chrono::steady_clock::now();
  build(app);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

void OffscreenRenderer::read(std::vector<uint8_t>* rgba) {
  ctx_->make_current();
  fb_->read_rgba(rgba);
}

}  // namespace synclab::viz::app
