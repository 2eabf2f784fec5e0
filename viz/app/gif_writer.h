// An animated GIF written frame by frame with giflib (Debian's libgif-dev), for synclab-viz's
// --export FILE.gif. Each frame is an RGBA image of the same size; only the rectangle that
// changed since the previous frame is stored (the rest stays on screen), with its own palette of
// at most 256 colours: the exact colours when the rectangle has no more, else a palette that keeps
// the most common colours exactly and fits the rest by median cut (quantize_rgba).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::viz::app {

// One rectangle's pixels as palette indices.
struct QuantizedImage {
  std::vector<uint8_t> palette;  // r, g, b per colour; at most 256 colours
  std::vector<uint8_t> index;    // one palette index per pixel, row by row
  bool exact = true;             // every pixel has its own colour (no more than 256 colours)
};

// The w x h rectangle at (x, y) of an RGBA image `width` pixels wide, reduced to at most
// 256 colours (alpha ignored). Deterministic: the same pixels give the same palette.
QuantizedImage quantize_rgba(const uint8_t* rgba, int width, int x, int y, int w, int h);

class GifWriter {
 public:
  GifWriter() = default;
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;
  ~GifWriter();  // an unfinished file is removed

  // Creates `path` for a width x height animation that loops forever. false and *error (naming
  // the file and the reason) when it cannot be written.
  bool open(const std::string& path, int width, int height, std::string* error);
  // Appends a frame (width * height * 4 bytes of RGBA) shown for `delay_cs` hundredths of a second.
  bool add_frame(const std::vector<uint8_t>& rgba, int delay_cs, std::string* error);
  // Writes the trailer and closes the file.
  bool finish(std::string* error);
  // Closes and removes an unfinished file.
  void abort();

  int frames() const { return frames_; }
  int approximated_frames() const { return approximated_; }  // frames that needed median cut

 private:
  bool fail(const std::string& what, int gif_error, std::string* error);

  void* gif_ = nullptr;  // GifFileType*
  std::string path_;
  int width_ = 0, height_ = 0, frames_ = 0, approximated_ = 0;
  std::vector<uint8_t> previous_;  // the last frame written
};

}  // namespace synclab::viz::app
