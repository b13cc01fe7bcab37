// Reading a Pillow image's pixels in place. Pillow keeps an image as an
// array of row pointers, each row `width * pixel_size` bytes; RGB pixels take
// four bytes (the fourth unused). np.asarray(image) copies them through
// Image.tobytes(), which costs as much as normalizing the image, so
// FusedTail reads the rows itself: a view when they are packed HWC already
// (L, RGBA, RGBX, CMYK in one block), else a copy into a per-thread buffer.
#ifndef FUSEDNORM_PYTHON_PIL_IMAGE_H_
#define FUSEDNORM_PYTHON_PIL_IMAGE_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/pack_pixels.h"

namespace fusednorm {

// A Pillow image's rows as Image.im describes them.
struct PilRows {
  const uint8_t* const* rows = nullptr;
  int64_t height = 0;
  int64_t width = 0;
  int pixel_size = 0;  // bytes per pixel in a row
  int channels = 0;    // bytes per pixel that are image channels
};

// The modes PilRows reads: L, RGB, RGBA, RGBX, CMYK.
const std::vector<std::string>& PilModes();

// The rows of an image from Image.im.unsafe_ptrs, Image.im.mode and
// Image.im.size ((width, height)); ValueError for another mode or a missing
// row table.
PilRows ReadPilRows(const pybind11::tuple& unsafe_ptrs, const std::string& mode,
                    std::pair<int64_t, int64_t> size);

// The image as packed HWC bytes (rows `width * channels` apart): its own
// memory when the rows already are, else this thread's buffer, valid until
// the next call on this thread; RGBX rows are packed with `pack`. Needs no
// GIL.
const uint8_t* PackedPixels(const PilRows& image, PackPixelsFn pack);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_PIL_IMAGE_H_
