// Pillow's row table to packed HWC bytes (pil_image.h).
#include "python/pil_image.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/pack_pixels.h"

namespace fusednorm {
namespace {

namespace py = pybind11;

// True when the rows lie back to back, each `width * channels` bytes.
bool Packed(const PilRows& image) {
  if (image.pixel_size != image.channels) return false;
  const int64_t line = image.width * image.channels;
  for (int64_t y = 1; y < image.height; ++y) {
    if (image.rows[y] != image.rows[0] + y * line) return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& PilModes() {
  static const auto* modes =
      new std::vector<std::string>{"L", "RGB", "RGBA", "RGBX", "CMYK"};
  return *modes;
}

PilRows ReadPilRows(const py::tuple& unsafe_ptrs, const std::string& mode,
                    std::pair<int64_t, int64_t> size) {
  const std::vector<std::string>& modes = PilModes();
  if (std::find(modes.begin(), modes.end(), mode) == modes.end())
    throw py::value_error("Pillow mode \"" + mode + "\" is not read in place");
  PilRows image;
  for (const py::handle entry : unsafe_ptrs) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(entry);
    if (pair.size() == 2 && pair[0].cast<std::string>() == "image") {
      image.rows =
          reinterpret_cast<const uint8_t* const*>(pair[1].cast<uintptr_t>());
    }
  }
  image.width = size.first;
  image.height = size.second;
  if (image.rows == nullptr || image.width < 0 || image.height < 0)
    throw py::value_error("the Pillow image has no pixel rows");
  image.channels = mode == "L" ? 1 : mode == "RGB" ? 3 : 4;
  image.pixel_size = mode == "L" ? 1 : 4;
  return image;
}

const uint8_t* PackedPixels(const PilRows& image, PackPixelsFn pack) {
  if (image.height == 0 || image.width == 0 || Packed(image))
    return image.height == 0 ? nullptr : image.rows[0];
  thread_local std::vector<uint8_t> buffer;
  const int64_t line = image.width * image.channels;
  buffer.resize(static_cast<size_t>(image.height * line));
  for (int64_t y = 0; y < image.height; ++y) {
    uint8_t* dst = buffer.data() + y * line;
    if (image.pixel_size == image.channels) {
      std::memcpy(dst, image.rows[y], static_cast<size_t>(line));
    } else {
      pack(image.rows[y], static_cast<size_t>(image.width), dst);
    }
  }
  return buffer.data();
}

}  // namespace fusednorm
