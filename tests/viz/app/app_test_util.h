// What the tests of synclab-viz share (viz_app.test.cpp, lecture.test.cpp): running the viewer as
// a program, and reading back what it drew: the PNG it wrote (stb_image) and the cell rectangles
// and colours of --dump-layout (JSON). The colours are the viewer's palette (viz/app/palette.h).
#pragma once

#include <stb/stb_image.h>
#include <synclab/catch.h>
#include <synclab/trace_reader.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "palette.h"

namespace vapp {

namespace tr = synclab::trace;
namespace pal = synclab::viz::palette;

inline const std::string kArt = VIZ_ARTIFACTS;
inline const std::string kTraces = VIZ_TRACES;
// Offscreen runs get no display at all: export must not need one.
inline const std::string kNoDisplay = "env -u DISPLAY -u WAYLAND_DISPLAY ";

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

inline long file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? long(st.st_size) : -1;
}

struct Run {
  int status = -1;  // exit status; >= 128: killed by a signal (as the shell reports it)
  std::string out, err;
};

// Runs synclab-viz ARGS (through /bin/sh, with an optional prefix such as "env ...").
inline Run viz(const std::string& args, const std::string& prefix = "") {
  static int n = 0;
  const std::string base = kArt + "/run_" + std::to_string(getpid()) + "_" + std::to_string(n++);
  const std::string cmd = prefix + std::string(VIZ_EXE) + " " + args + " >" + base + ".out 2>" + base + ".err";
  const int st = std::system(cmd.c_str());
  Run r;
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  UNSCOPED_INFO("$ " << cmd << "\nexit " << r.status << "\nstdout: " << r.out << "\nstderr: " << r.err);
  return r;
}

struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> px;
  bool load(const std::string& path) {
    int n = 0;
    unsigned char* d = stbi_load(path.c_str(), &w, &h, &n, 4);
    if (!d) return false;
    px.assign(d, d + size_t(w) * h * 4);
    stbi_image_free(d);
    return true;
  }
  pal::Rgb at(int x, int y) const {
    const uint8_t* p = &px[(size_t(y) * w + x) * 4];
    return {p[0], p[1], p[2]};
  }
};

struct Cell {
  float x0, y0, x1, y1;
  pal::Rgb rgb;
  std::string what;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
  int cx() const { return int((x0 + x1) * 0.5f); }
  int cy() const { return int((y0 + y1) * 0.5f); }
};

struct Layout {
  int w = 0, h = 0;
  uint64_t cursor = 0;
  std::map<std::string, Cell> cells;
  bool load(const std::string& path) {
    std::ifstream f(path);
    if (!f) return false;
    nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) return false;
    w = j["width"].get<int>();
    h = j["height"].get<int>();
    cursor = j["cursor"].get<uint64_t>();
    for (const auto& c : j["cells"]) {
      Cell cell{c["rect"][0].get<float>(),
                c["rect"][1].get<float>(),
                c["rect"][2].get<float>(),
                c["rect"][3].get<float>(),
                pal::Rgb{c["rgb"][0].get<uint8_t>(), c["rgb"][1].get<uint8_t>(), c["rgb"][2].get<uint8_t>()},
                c["what"].get<std::string>()};
      cells[c["id"].get<std::string>()] = cell;
    }
    return true;
  }
  bool has(const std::string& id) const { return cells.count(id) != 0; }
  const Cell& at(const std::string& id) const {
    auto it = cells.find(id);
    if (it == cells.end()) FAIL("no cell " << id << " in the layout");
    return it->second;
  }
};

inline std::string rgb_str(pal::Rgb c) {
  return "(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + ")";
}

// The colour at the centre of a cell (the point --probe reads too).
inline pal::Rgb centre(const Image& img, const Layout& lay, const std::string& id) {
  const Cell& c = lay.at(id);
  const int x = c.cx(), y = c.cy();
  REQUIRE(x >= 0);
  REQUIRE(y >= 0);
  REQUIRE(x < img.w);
  REQUIRE(y < img.h);
  return img.at(x, y);
}

inline bool near(pal::Rgb a, pal::Rgb b, int tol) {
  return std::abs(a.r - b.r) <= tol && std::abs(a.g - b.g) <= tol && std::abs(a.b - b.b) <= tol;
}

// A trace the test fixtures recorded into VIZ_TRACES.
inline std::unique_ptr<tr::Trace> load_trace(const std::string& name) {
  std::string err;
  auto t = tr::load(kTraces + "/" + name, &err);
  INFO(err);
  REQUIRE(t);
  REQUIRE(!t->launches.empty());
  return t;
}

}  // namespace vapp

#define CHECK_COLOUR(img, lay, id, expected)                                                  \
  do {                                                                                        \
    const vapp::pal::Rgb got_ = vapp::centre(img, lay, id);                                   \
    INFO("cell " << (id) << ": got " << vapp::rgb_str(got_) << ", expected " << vapp::rgb_str(expected)); \
    CHECK(got_ == (expected));                                                                \
  } while (0)
