// OpenGL contexts for the visualizer: an offscreen one for export (no window, no display needed)
// and an RGBA framebuffer object to render into and read back.
//
// Offscreen: EGL with Mesa's surfaceless platform (EGL_PLATFORM_SURFACELESS_MESA through
// eglGetPlatformDisplayEXT) and an OpenGL 3.3 core context with no surface. libEGL is opened at
// run time (dlopen "libEGL.so.1"), so neither building nor running needs EGL: when it is missing
// or refuses, a hidden GLFW window is used instead, which needs a display ($DISPLAY, e.g. under
// `xvfb-run -a`); create_offscreen() says which one it got.
//
// All OpenGL calls in here go through libGL (glvnd), which dispatches to whichever context is
// current, EGL or GLX.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace synclab::viz::app {

class GlContext {
 public:
  virtual ~GlContext() = default;
  virtual void make_current() = 0;
  // "EGL (Mesa surfaceless)" or "hidden GLFW window".
  virtual const char* kind() const = 0;
  // GL_RENDERER / GL_VERSION of the context, for messages.
  std::string renderer() const;
};

enum class OffscreenBackend { Auto, Egl, Glfw };

// An OpenGL 3.3 core context with no visible window, current on the calling thread. Returns
// nullptr and a message in *error when neither EGL nor GLFW gives one. *note gets a line to show
// the user when EGL was not used and the GLFW fallback was ("" otherwise).
// SYNCLAB_VIZ_OFFSCREEN=egl|glfw in the environment forces one of them (tests use it).
std::unique_ptr<GlContext> create_offscreen(OffscreenBackend want, std::string* error, std::string* note);

// An RGBA8 colour framebuffer of a fixed size (needs a current context).
class Framebuffer {
 public:
  Framebuffer(int width, int height);
  ~Framebuffer();
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;
  bool ok() const { return ok_; }
  int width() const { return width_; }
  int height() const { return height_; }
  void bind();    // render into it (also sets the viewport)
  void unbind();  // back to the default framebuffer
  // Reads the pixels, top row first, 4 bytes (RGBA) per pixel.
  void read_rgba(std::vector<uint8_t>* pixels);

 private:
  int width_ = 0, height_ = 0;
  unsigned fbo_ = 0, color_ = 0;
  bool ok_ = false;
};

// Clears the bound framebuffer to a colour (0..1).
void gl_clear(float r, float g, float b);
void gl_viewport(int width, int height);
// Reads the current default framebuffer (a window's back buffer), top row first.
void gl_read_window(int width, int height, std::vector<uint8_t>* pixels);
// Flushes and waits for the GPU (for honest frame timings).
void gl_finish();

}  // namespace synclab::viz::app
