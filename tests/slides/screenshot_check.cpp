// Checks a browser screenshot of one slide of a rendered deck (tests/slides/check_decks.sh).
//
//   slides_screenshot_check title SHOT.png RRGGBB
//     SHOT is a deck's title slide in the synclab theme: most of it is the title background
//     colour RRGGBB, and there is text on it (pixels far from the background, many colours from
//     antialiasing). A blank page, a browser error page or another theme fails.
//   slides_screenshot_check figure SHOT.png FIGURE.png
//     SHOT is a slide that shows FIGURE, a picture exported by synclab-viz: SHOT is not blank,
//     FIGURE's main colours (flat window backgrounds, title bars, lane cells) cover a good part of
//     SHOT, and the visualizer's own palette colours (viz/app/palette.h) found in FIGURE are found
//     in SHOT too. A missing image, an empty slide or another picture fails.
//
// Prints what it measured and "ok", or "FAIL: why"; exit status 0 (ok), 1 (fail), 2 (usage,
// unreadable file).
#include <stb/stb_image.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "palette.h"

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<uint32_t> px;  // 0xRRGGBB
};

bool load(const char* path, Image& img) {
  int n = 0;
  unsigned char* data = stbi_load(path, &img.w, &img.h, &n, 3);
  if (!data) {
    std::fprintf(stderr, "cannot read %s as an image: %s\n", path, stbi_failure_reason());
    return false;
  }
  img.px.resize(size_t(img.w) * img.h);
  for (size_t i = 0; i < img.px.size(); ++i) {
    img.px[i] = uint32_t(data[3 * i]) << 16 | uint32_t(data[3 * i + 1]) << 8 | data[3 * i + 2];
  }
  stbi_image_free(data);
  return true;
}

int channel(uint32_t c, int k) { return int(c >> (16 - 8 * k)) & 0xff; }

// Largest per-channel difference.
int distance(uint32_t a, uint32_t b) {
  int d = 0;
  for (int k = 0; k < 3; ++k) d = std::max(d, std::abs(channel(a, k) - channel(b, k)));
  return d;
}

std::string hex(uint32_t c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%06x", unsigned(c));
  return buf;
}

// Exact colours by pixel count, most frequent first.
std::vector<std::pair<uint32_t, size_t>> histogram(const Image& img) {
  std::unordered_map<uint32_t, size_t> counts;
  for (uint32_t c : img.px) ++counts[c];
  std::vector<std::pair<uint32_t, size_t>> v(counts.begin(), counts.end());
  std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.second > b.second || (a.second == b.second && a.first < b.first); });
  return v;
}

size_t count_near(const Image& img, uint32_t colour, int tolerance) {
  size_t n = 0;
  for (uint32_t c : img.px) n += distance(c, colour) <= tolerance;
  return n;
}

int fail(const std::string& why) {
  std::printf("FAIL: %s\n", why.c_str());
  return 1;
}

// A slide screenshot is at least 640x360 (the test takes them at 1280x720).
bool big_enough(const Image& shot) { return shot.w >= 640 && shot.h >= 360; }
std::string size_text(const Image& img) { return std::to_string(img.w) + "x" + std::to_string(img.h); }

int check_title(const Image& shot, uint32_t background) {
  if (!big_enough(shot)) return fail("the screenshot is only " + size_text(shot) + " pixels");
  const auto hist = histogram(shot);
  const double total = double(shot.px.size());
  const double bg = count_near(shot, background, 6) / total;
  size_t far = 0;
  for (uint32_t c : shot.px) far += distance(c, background) > 48;
  const double text = far / total;
  std::printf("title: %zu colours; background #%s covers %.1f%%; text %.2f%%\n", hist.size(),
              hex(background).c_str(), 100 * bg, 100 * text);
  if (bg < 0.5) {
    return fail("the title background #" + hex(background) + " covers " + std::to_string(int(100 * bg)) +
                "% of the slide (at least 50% expected): not the synclab theme's title slide, or not a deck "
                "at all (most common colour: #" + hex(hist[0].first) + ")");
  }
  if (text < 0.005) return fail("the title slide has no text on it (under 0.5% of the pixels differ from the background)");
  if (hist.size() < 16) return fail("only " + std::to_string(hist.size()) + " colours: no antialiased text");
  std::printf("ok\n");
  return 0;
}

int check_figure(const Image& shot, const Image& figure) {
  if (!big_enough(shot)) return fail("the screenshot is only " + size_text(shot) + " pixels");
  const auto hist = histogram(shot);
  const double total = double(shot.px.size());
  const uint32_t slide_bg = hist[0].first;
  const double flat = hist[0].second / total;
  std::printf("figure slide: %zu colours; most common #%s covers %.1f%%\n", hist.size(), hex(slide_bg).c_str(),
              100 * flat);
  if (hist.size() < 64) return fail("only " + std::to_string(hist.size()) + " colours: the slide is (almost) blank");
  if (flat > 0.92) return fail("one colour covers " + std::to_string(int(100 * flat)) + "% of the slide: it is (almost) blank");

  // FIGURE's main colours, except those the slide itself is drawn in.
  const auto fig_hist = histogram(figure);
  const double fig_total = double(figure.px.size());
  std::vector<uint32_t> main_colours;
  for (auto& [c, n] : fig_hist) {
    if (n / fig_total < 0.005) break;
    if (distance(c, slide_bg) > 24) main_colours.push_back(c);
  }
  if (main_colours.size() < 3) {
    return fail("the figure has fewer than 3 main colours apart from the slide's background: not a visualizer picture?");
  }
  size_t covered = 0;
  std::vector<size_t> per_colour(main_colours.size());
  for (uint32_t c : shot.px) {
    for (size_t i = 0; i < main_colours.size(); ++i) {
      if (distance(c, main_colours[i]) <= 6) {
        ++covered;
        ++per_colour[i];
        break;
      }
    }
  }
  const size_t found = size_t(std::count_if(per_colour.begin(), per_colour.end(), [&](size_t n) { return n / total >= 0.002; }));
  std::printf("figure's %zu main colours cover %.1f%% of the slide; %zu of them are on it\n", main_colours.size(),
              100 * covered / total, found);

  // The visualizer's saturated palette colours (lanes, lock bits, flags, timeline) in FIGURE.
  namespace pal = synclab::viz::palette;
  const pal::Rgb palette[] = {pal::kLaneActive,   pal::kLaneMaskedOff, pal::kLaneAtBarrier, pal::kLaneSpinning,
                              pal::kLaneInCritical, pal::kLockFree,    pal::kLockHeld,      pal::kFlagSet,
                              pal::kActivity,     pal::kReportMark,    pal::kSourceLine,    pal::kSourceOther};
  int in_figure = 0, on_slide = 0;
  std::string names;
  for (const pal::Rgb& p : palette) {
    const uint32_t c = uint32_t(p.r) << 16 | uint32_t(p.g) << 8 | p.b;
    if (count_near(figure, c, 0) < 30) continue;
    ++in_figure;
    if (count_near(shot, c, 10) >= 4) {
      ++on_slide;
      names += " #" + hex(c);
    }
  }
  std::printf("visualizer palette colours: %d in the figure, %d of them on the slide:%s\n", in_figure, on_slide,
              names.c_str());

  if (covered / total < 0.15) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * covered / total);
    return fail(std::string("the figure's colours cover only ") + pct +
                " of the slide (at least 15% expected): the picture is missing or tiny");
  }
  if (found < 3) return fail("fewer than 3 of the figure's main colours are on the slide: it shows another picture");
  if (in_figure >= 2 && on_slide < 2) {
    return fail("the visualizer's palette colours of the figure are not on the slide: it shows another picture");
  }
  std::printf("ok\n");
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: slides_screenshot_check title SHOT.png RRGGBB\n"
               "       slides_screenshot_check figure SHOT.png FIGURE.png\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return usage();
  const std::string mode = argv[1];
  Image shot;
  if (mode == "title") {
    char* end = nullptr;
    const unsigned long bg = std::strtoul(argv[3], &end, 16);
    if (std::string(argv[3]).size() != 6 || *end != '\0') {
      std::fprintf(stderr, "slides_screenshot_check: '%s' is not a colour RRGGBB\n", argv[3]);
      return 2;
    }
    if (!load(argv[2], shot)) return 2;
    return check_title(shot, uint32_t(bg));
  }
  if (mode == "figure") {
    Image figure;
    if (!load(argv[2], shot) || !load(argv[3], figure)) return 2;
    return check_figure(shot, figure);
  }
  return usage();
}
