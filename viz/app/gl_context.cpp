#include "gl_context.h"

#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GLFW/glfw3.h>
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace synclab::viz::app {

std::string GlContext::renderer() const {
  const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const char* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return std::string(r ? r : "?") + ", OpenGL " + (v ? v : "?");
}

namespace {

// ---- EGL, opened at run time -------------------------------------------------------------------
// The few EGL types, constants and entry points used here (values from the Khronos EGL 1.5
// headers and EGL_MESA_platform_surfaceless).
using EGLDisplay = void*;
using EGLConfig = void*;
using EGLContext = void*;
using EGLSurface = void*;
using EGLint = int32_t;
using EGLenum = unsigned int;
using EGLBoolean = unsigned int;
constexpr EGLint kEglNone = 0x3038;
constexpr EGLint kEglSuccess = 0x3000;
constexpr EGLint kEglExtensions = 0x3055;
constexpr EGLint kEglVendor = 0x3053;
constexpr EGLint kEglSurfaceType = 0x3033;
constexpr EGLint kEglPbufferBit = 0x0001;
constexpr EGLint kEglRenderableType = 0x3040;
constexpr EGLint kEglOpenglBit = 0x0008;
constexpr EGLint kEglRedSize = 0x3024, kEglGreenSize = 0x3023, kEglBlueSize = 0x3022, kEglAlphaSize = 0x3021;
constexpr EGLenum kEglOpenglApi = 0x30A2;
constexpr EGLint kEglContextMajor = 0x3098, kEglContextMinor = 0x30FB;
constexpr EGLint kEglContextProfileMask = 0x30FD, kEglContextCoreBit = 0x1;
constexpr EGLenum kEglPlatformSurfacelessMesa = 0x31DD;

struct EglApi {
  void* lib = nullptr;
  EGLDisplay (*GetPlatformDisplayEXT)(EGLenum, void*, const EGLint*) = nullptr;
  EGLBoolean (*Initialize)(EGLDisplay, EGLint*, EGLint*) = nullptr;
  EGLBoolean (*Terminate)(EGLDisplay) = nullptr;
  const char* (*QueryString)(EGLDisplay, EGLint) = nullptr;
  EGLBoolean (*ChooseConfig)(EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*) = nullptr;
  EGLBoolean (*BindAPI)(EGLenum) = nullptr;
  EGLContext (*CreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint*) = nullptr;
  EGLBoolean (*DestroyContext)(EGLDisplay, EGLContext) = nullptr;
  EGLBoolean (*MakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext) = nullptr;
  EGLint (*GetError)() = nullptr;
  void* (*GetProcAddress)(const char*) = nullptr;

  template <class F>
  bool sym(F* f, const char* name) {
    *reinterpret_cast<void**>(f) = dlsym(lib, name);
    return *f != nullptr;
  }
  bool load(std::string* why) {
    lib = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      *why = "libEGL.so.1 is not installed";
      return false;
    }
    bool ok = sym(&Initialize, "eglInitialize") && sym(&Terminate, "eglTerminate") &&
              sym(&QueryString, "eglQueryString") && sym(&ChooseConfig, "eglChooseConfig") &&
              sym(&BindAPI, "eglBindAPI") && sym(&CreateContext, "eglCreateContext") &&
              sym(&DestroyContext, "eglDestroyContext") && sym(&MakeCurrent, "eglMakeCurrent") &&
              sym(&GetError, "eglGetError") && sym(&GetProcAddress, "eglGetProcAddress");
    if (!ok) {
      *why = "libEGL.so.1 lacks EGL 1.4 entry points";
      return false;
    }
    *reinterpret_cast<void**>(&GetPlatformDisplayEXT) = GetProcAddress("eglGetPlatformDisplayEXT");
    if (!GetPlatformDisplayEXT) {
      *why = "EGL has no eglGetPlatformDisplayEXT";
      return false;
    }
    return true;
  }
};

std::string hex(EGLint v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04x", unsigned(v));
  return buf;
}

class EglContext : public GlContext {
 public:
  ~EglContext() override {
    if (egl_.lib) {
      if (display_) {
        egl_.MakeCurrent(display_, nullptr, nullptr, nullptr);
        if (context_) egl_.DestroyContext(display_, context_);
        egl_.Terminate(display_);
      }
      // libEGL stays loaded: Mesa's drivers do not like being unloaded.
    }
  }
  void make_current() override { egl_.MakeCurrent(display_, nullptr, nullptr, context_); }
  const char* kind() const override { return "EGL (Mesa surfaceless)"; }

  bool init(std::string* why) {
    if (!egl_.load(why)) return false;
    const char* client = egl_.QueryString(nullptr, kEglExtensions);
    if (!client || !std::strstr(client, "EGL_MESA_platform_surfaceless")) {
      *why = "EGL has no EGL_MESA_platform_surfaceless";
      return false;
    }
    display_ = egl_.GetPlatformDisplayEXT(kEglPlatformSurfacelessMesa, nullptr, nullptr);
    EGLint major = 0, minor = 0;
    if (!display_ || !egl_.Initialize(display_, &major, &minor)) {
      *why = "eglInitialize on the surfaceless platform failed (error " + hex(egl_.GetError()) + ")";
      display_ = nullptr;
      return false;
    }
    const char* ext = egl_.QueryString(display_, kEglExtensions);
    if (!ext || !std::strstr(ext, "EGL_KHR_surfaceless_context")) {
      *why = "EGL display has no EGL_KHR_surfaceless_context";
      return false;
    }
    if (!egl_.BindAPI(kEglOpenglApi)) {
      *why = "eglBindAPI(EGL_OPENGL_API) failed";
      return false;
    }
    const EGLint with_pbuffer[] = {kEglSurfaceType,
                                   kEglPbufferBit,
                                   kEglRenderableType,
                                   kEglOpenglBit,
                                   kEglRedSize,
                                   8,
                                   kEglGreenSize,
                                   8,
                                   kEglBlueSize,
                                   8,
                                   kEglAlphaSize,
                                   8,
                                   kEglNone};
    const EGLint any_surface[] = {
        kEglRenderableType, kEglOpenglBit, kEglRedSize, 8, kEglGreenSize, 8, kEglBlueSize, 8, kEglNone};
    EGLConfig config = nullptr;
    EGLint n = 0;
    if (!egl_.ChooseConfig(display_, with_pbuffer, &config, 1, &n) || n < 1) {
      n = 0;
      if (!egl_.ChooseConfig(display_, any_surface, &config, 1, &n) || n < 1) {
        *why = "no EGL config for desktop OpenGL";
        return false;
      }
    }
    const EGLint attrs[] = {kEglContextMajor,   3,       kEglContextMinor, 3, kEglContextProfileMask,
                            kEglContextCoreBit, kEglNone};
    context_ = egl_.CreateContext(display_, config, nullptr, attrs);
    if (!context_) {
      *why = "eglCreateContext for OpenGL 3.3 core failed (error " + hex(egl_.GetError()) + ")";
      return false;
    }
    if (!egl_.MakeCurrent(display_, nullptr, nullptr, context_)) {
      *why = "eglMakeCurrent without a surface failed (error " + hex(egl_.GetError()) + ")";
      return false;
    }
    if (!glGetString(GL_VERSION)) {
      *why = "the EGL context answers no glGetString (libGL does not dispatch to it)";
      return false;
    }
    return true;
  }

 private:
  EglApi egl_;
  EGLDisplay display_ = nullptr;
  EGLContext context_ = nullptr;
};

// ---- hidden GLFW window -------------------------------------------------------------------------
std::string glfw_error;
void glfw_error_callback(int code, const char* text) { glfw_error = text ? text : "unknown error"; }

class GlfwHiddenContext : public GlContext {
 public:
  ~GlfwHiddenContext() override {
    if (window_) glfwDestroyWindow(window_);
    if (inited_) glfwTerminate();
  }
  void make_current() override { glfwMakeContextCurrent(window_); }
  const char* kind() const override { return "hidden GLFW window"; }
  bool init(std::string* why) {
    glfwSetErrorCallback(glfw_error_callback);
    if (!glfwInit()) {
      *why = "GLFW could not start (" + glfw_error + "); is there a display? try `xvfb-run -a`";
      return false;
    }
    inited_ = true;
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    window_ = glfwCreateWindow(64, 64, "synclab-viz (offscreen)", nullptr, nullptr);
    if (!window_) {
      *why = "GLFW could not create an OpenGL 3.3 core context (" + glfw_error + ")";
      return false;
    }
    glfwMakeContextCurrent(window_);
    return true;
  }

 private:
  bool inited_ = false;
  GLFWwindow* window_ = nullptr;
};

}  // namespace

std::unique_ptr<GlContext> create_offscreen(OffscreenBackend want, std::string* error, std::string* note) {
  note->clear();
  if (const char* env = std::getenv("SYNCLAB_VIZ_OFFSCREEN"); env && want == OffscreenBackend::Auto) {
    if (std::strcmp(env, "egl") == 0)
      want = OffscreenBackend::Egl;
    else if (std::strcmp(env, "glfw") == 0)
      want = OffscreenBackend::Glfw;
  }
  std::string egl_why;
  if (want != OffscreenBackend::Glfw) {
    auto egl = std::make_unique<EglContext>();
    if (egl->init(&egl_why)) return egl;
    if (want == OffscreenBackend::Egl) {
      *error = "offscreen OpenGL through EGL failed: " + egl_why;
      return nullptr;
    }
  }
  std::string glfw_why;
  auto glfw = std::make_unique<GlfwHiddenContext>();
  if (glfw->init(&glfw_why)) {
    if (want == OffscreenBackend::Auto)
      *note = "EGL offscreen rendering unavailable (" + egl_why + "); using a hidden GLFW window instead";
    return glfw;
  }
  if (want == OffscreenBackend::Glfw)
    *error = "offscreen OpenGL through a hidden GLFW window failed: " + glfw_why;
  else
    *error = "no OpenGL 3.3 context for offscreen rendering: EGL: " + egl_why + "; GLFW: " + glfw_why;
  return nullptr;
}

// ---- framebuffer --------------------------------------------------------------------------------
Framebuffer::Framebuffer(int width, int height) : width_(width), height_(height) {
  glGenFramebuffers(1, &fbo_);
  glGenRenderbuffers(1, &color_);
  glBindRenderbuffer(GL_RENDERBUFFER, color_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
  ok_ = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

Framebuffer::~Framebuffer() {
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
  if (color_) glDeleteRenderbuffers(1, &color_);
}

void Framebuffer::bind() {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width_, height_);
}

void Framebuffer::unbind() { glBindFramebuffer(GL_FRAMEBUFFER, 0); }

static void read_flipped(int width, int height, std::vector<uint8_t>* pixels) {
  pixels->resize(size_t(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  std::vector<uint8_t> tmp(pixels->size());
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, tmp.data());
  const size_t row = size_t(width) * 4;
  for (int y = 0; y < height; ++y)
    std::memcpy(pixels->data() + size_t(y) * row, tmp.data() + size_t(height - 1 - y) * row, row);
}

void Framebuffer::read_rgba(std::vector<uint8_t>* pixels) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
  read_flipped(width_, height_, pixels);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
}

void gl_clear(float r, float g, float b) {
  glClearColor(r, g, b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

void gl_viewport(int width, int height) { glViewport(0, 0, width, height); }

void gl_read_window(int width, int height, std::vector<uint8_t>* pixels) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  read_flipped(width, height, pixels);
}

void gl_finish() { glFinish(); }

}  // namespace synclab::viz::app
