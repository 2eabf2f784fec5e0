// GifWriter and quantize_rgba (gif_writer.h), on giflib 5.1 or newer.
#include "gif_writer.h"

#include <fcntl.h>
#include <gif_lib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

namespace synclab::viz::app {

namespace {

constexpr size_t kPaletteSize = 256;
// Colours kept exactly when a rectangle has more than 256: the most common ones (the viewer's
// background, text and state colours); the others share the rest of the palette.
constexpr size_t kKeptExact = 64;

inline uint32_t rgb_of(const uint8_t* p) { return uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]; }
inline int channel(uint32_t rgb, int c) { return int(rgb >> (16 - 8 * c) & 0xff); }

struct Entry {
  uint32_t rgb;
  uint32_t count;
};

// Median cut: splits `colours` into at most `boxes` groups (each time the group with the widest
// range in one channel, at its pixel-weighted median along that channel) and returns each
// colour's group index in `group`, and each group's pixel-weighted mean colour.
std::vector<uint32_t> median_cut(std::vector<Entry>& colours, size_t boxes,
                                 std::unordered_map<uint32_t, size_t>* group) {
  struct Box {
    size_t begin, end;
  };
  std::vector<Box> box{{0, colours.size()}};
  while (box.size() < boxes) {
    int best = -1, best_channel = 0, best_range = 0;
    for (size_t b = 0; b < box.size(); ++b) {
      if (box[b].end - box[b].begin < 2) continue;
      for (int c = 0; c < 3; ++c) {
        int lo = 255, hi = 0;
        for (size_t i = box[b].begin; i < box[b].end; ++i) {
          lo = std::min(lo, channel(colours[i].rgb, c));
          hi = std::max(hi, channel(colours[i].rgb, c));
        }
        if (hi - lo > best_range) best = int(b), best_channel = c, best_range = hi - lo;
      }
    }
    if (best < 0) break;  // every group is one colour
    const Box B = box[size_t(best)];
    std::sort(colours.begin() + long(B.begin), colours.begin() + long(B.end), [&](const Entry& a, const Entry& b) {
      const int ca = channel(a.rgb, best_channel), cb = channel(b.rgb, best_channel);
      return ca != cb ? ca < cb : a.rgb < b.rgb;
    });
    uint64_t total = 0, acc = 0;
    for (size_t i = B.begin; i < B.end; ++i) total += colours[i].count;
    size_t mid = B.begin + 1;
    for (size_t i = B.begin; i < B.end; ++i) {
      acc += colours[i].count;
      if (2 * acc >= total) {
        mid = i + 1;
        break;
      }
    }
    mid = std::clamp(mid, B.begin + 1, B.end - 1);
    box[size_t(best)] = {B.begin, mid};
    box.push_back({mid, B.end});
  }
  std::vector<uint32_t> mean;
  for (size_t b = 0; b < box.size(); ++b) {
    uint64_t sum[3] = {0, 0, 0}, n = 0;
    for (size_t i = box[b].begin; i < box[b].end; ++i) {
      for (int c = 0; c < 3; ++c) sum[c] += uint64_t(channel(colours[i].rgb, c)) * colours[i].count;
      n += colours[i].count;
      (*group)[colours[i].rgb] = b;
    }
    uint32_t rgb = 0;
    for (int c = 0; c < 3; ++c) rgb = rgb << 8 | uint32_t((sum[c] + n / 2) / n);
    mean.push_back(rgb);
  }
  return mean;
}

}  // namespace

QuantizedImage quantize_rgba(const uint8_t* rgba, int width, int x0, int y0, int w, int h) {
  auto pixel = [&](int x, int y) { return rgba + (size_t(y) * size_t(width) + size_t(x)) * 4; };
  std::unordered_map<uint32_t, uint32_t> count;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x) ++count[rgb_of(pixel(x, y))];
  std::vector<Entry> colours;
  colours.reserve(count.size());
  for (const auto& [rgb, n] : count) colours.push_back({rgb, n});
  // Most common first; equal counts by colour, so that the palette does not depend on hashing.
  std::sort(colours.begin(), colours.end(),
            [](const Entry& a, const Entry& b) { return a.count != b.count ? a.count > b.count : a.rgb < b.rgb; });

  QuantizedImage q;
  std::unordered_map<uint32_t, uint8_t> index;
  auto add = [&](uint32_t rgb) {
    for (int c = 0; c < 3; ++c) q.palette.push_back(uint8_t(channel(rgb, c)));
  };
  if (colours.size() <= kPaletteSize) {
    for (size_t i = 0; i < colours.size(); ++i) {
      index[colours[i].rgb] = uint8_t(i);
      add(colours[i].rgb);
    }
  } else {
    q.exact = false;
    for (size_t i = 0; i < kKeptExact; ++i) {
      index[colours[i].rgb] = uint8_t(i);
      add(colours[i].rgb);
    }
    std::vector<Entry> rest(colours.begin() + long(kKeptExact), colours.end());
    std::unordered_map<uint32_t, size_t> group;
    const std::vector<uint32_t> mean = median_cut(rest, kPaletteSize - kKeptExact, &group);
    for (uint32_t rgb : mean) add(rgb);
    for (const auto& [rgb, g] : group) index[rgb] = uint8_t(kKeptExact + g);
  }
  q.index.resize(size_t(w) * size_t(h));
  uint8_t* out = q.index.data();
  uint32_t last_rgb = ~0u;
  uint8_t last_index = 0;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x) {
      const uint32_t rgb = rgb_of(pixel(x, y));
      if (rgb != last_rgb) last_rgb = rgb, last_index = index.at(rgb);
      *out++ = last_index;
    }
  return q;
}

GifWriter::~GifWriter() { abort(); }

bool GifWriter::fail(const std::string& what, int gif_error, std::string* error) {
  const int saved = errno;
  *error = "cannot write " + path_ + " (" + what + "): " + GifErrorString(gif_error);
  if ((gif_error == E_GIF_ERR_WRITE_FAILED || gif_error == E_GIF_ERR_CLOSE_FAILED) && saved)
    *error += std::string(": ") + std::strerror(saved);
  abort();
  return false;
}

bool GifWriter::open(const std::string& path, int width, int height, std::string* error) {
  abort();
  path_ = path;
  width_ = width;
  height_ = height;
  frames_ = approximated_ = 0;
  previous_.clear();
  // Opened here, not with EGifOpenFileName, which creates the file readable by its owner only.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  int e = 0;
  GifFileType* g = EGifOpenFileHandle(fd, &e);  // closes fd when the file is closed
  if (!g) {
    ::close(fd);
    ::unlink(path.c_str());
    *error = "cannot write " + path + ": " + GifErrorString(e);
    return false;
  }
  gif_ = g;
  EGifSetGifVersion(g, true);  // GIF89a: frame delays and looping
  // No global colour table: every frame brings its own.
  if (EGifPutScreenDesc(g, width, height, 8, 0, nullptr) == GIF_ERROR)
    return fail("screen descriptor", g->Error, error);
  // The NETSCAPE2.0 application extension: loop count 0, i.e. forever.
  static const char kApp[] = "NETSCAPE2.0";
  const uint8_t loop[3] = {1, 0, 0};
  if (EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
      EGifPutExtensionBlock(g, 11, kApp) == GIF_ERROR || EGifPutExtensionBlock(g, 3, loop) == GIF_ERROR ||
      EGifPutExtensionTrailer(g) == GIF_ERROR)
    return fail("loop extension", g->Error, error);
  return true;
}

bool GifWriter::add_frame(const std::vector<uint8_t>& rgba, int delay_cs, std::string* error) {
  auto* g = static_cast<GifFileType*>(gif_);
  if (!g) {
    *error = "the GIF is not open";
    return false;
  }
  if (rgba.size() != size_t(width_) * size_t(height_) * 4) {
    *error = "a frame of the wrong size for " + path_;
    return false;
  }
  // The rectangle that changed since the previous frame (all of the first frame; one pixel when
  // nothing changed, as every frame needs an image).
  int x0 = 0, y0 = 0, x1 = width_ - 1, y1 = height_ - 1;
  if (!previous_.empty()) {
    x0 = width_, y0 = height_, x1 = -1, y1 = -1;
    for (int y = 0; y < height_; ++y) {
      const size_t row = size_t(y) * size_t(width_) * 4;
      if (std::memcmp(&rgba[row], &previous_[row], size_t(width_) * 4) == 0) continue;
      y0 = std::min(y0, y), y1 = y;
      for (int x = 0; x < width_; ++x)
        if (std::memcmp(&rgba[row + size_t(x) * 4], &previous_[row + size_t(x) * 4], 3) != 0)
          x0 = std::min(x0, x), x1 = std::max(x1, x);
    }
    if (y1 < 0 || x1 < 0) x0 = y0 = x1 = y1 = 0;
  }
  const int w = x1 - x0 + 1, h = y1 - y0 + 1;
  QuantizedImage q = quantize_rgba(rgba.data(), width_, x0, y0, w, h);
  if (!q.exact) ++approximated_;
  const int colours = int(q.palette.size() / 3);
  int size = 2;  // a GIF colour table has a power of two entries
  while (size < colours) size *= 2;
  std::vector<GifColorType> table(size_t(size), GifColorType{0, 0, 0});
  for (int i = 0; i < colours; ++i)
    table[size_t(i)] = {q.palette[3 * size_t(i)], q.palette[3 * size_t(i) + 1], q.palette[3 * size_t(i) + 2]};
  ColorMapObject* map = GifMakeMapObject(size, table.data());
  if (!map) {
    *error = "out of memory for a colour table of " + path_;
    abort();
    return false;
  }
  GraphicsControlBlock gcb{};
  gcb.DisposalMode = DISPOSE_DO_NOT;  // the next frame draws over this one
  gcb.UserInputFlag = false;
  gcb.DelayTime = delay_cs;
  gcb.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType ext[4];
  const size_t ext_len = EGifGCBToExtension(&gcb, ext);
  bool ok = EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, int(ext_len), ext) != GIF_ERROR &&
            EGifPutImageDesc(g, x0, y0, w, h, false, map) != GIF_ERROR;
  for (int y = 0; ok && y < h; ++y) ok = EGifPutLine(g, &q.index[size_t(y) * size_t(w)], w) != GIF_ERROR;
  GifFreeMapObject(map);
  if (!ok) return fail("frame " + std::to_string(frames_ + 1), g->Error, error);
  previous_ = rgba;
  ++frames_;
  return true;
}

bool GifWriter::finish(std::string* error) {
  auto* g = static_cast<GifFileType*>(gif_);
  if (!g) {
    *error = "the GIF is not open";
    return false;
  }
  gif_ = nullptr;
  int e = 0;
  errno = 0;
  if (EGifCloseFile(g, &e) == GIF_ERROR) {  // frees g either way
    *error =
        "cannot write " + path_ + ": " + GifErrorString(e) + (errno ? std::string(": ") + std::strerror(errno) : "");
    ::unlink(path_.c_str());
    return false;
  }
  previous_.clear();
  return true;
}

void GifWriter::abort() {
  auto* g = static_cast<GifFileType*>(gif_);
  if (!g) return;
  gif_ = nullptr;
  int e = 0;
  EGifCloseFile(g, &e);
  ::unlink(path_.c_str());
  previous_.clear();
}

}  // namespace synclab::viz::app
