// Sizes and rectangles in pixels: an output size, a crop window of an input,
// an erase rectangle of an output. Plain structs, so that kernel bodies may
// include them.
#ifndef FUSEDNORM_CORE_GEOMETRY_H_
#define FUSEDNORM_CORE_GEOMETRY_H_

#include <cstdint>

namespace fusednorm {

// Output height and width.
struct Size2 {
  int64_t height = 0;
  int64_t width = 0;
};

inline bool operator==(Size2 a, Size2 b) {
  return a.height == b.height && a.width == b.width;
}
inline bool operator!=(Size2 a, Size2 b) { return !(a == b); }

// A crop window: top, left, height, width (input pixels). RandomCrop's may
// reach past the image into its padding.
struct CropWindow {
  int64_t top = 0, left = 0, height = 0, width = 0;
  // Whether the window lies within an image of `size`.
  bool Inside(Size2 size) const {
    return top >= 0 && left >= 0 && top + height <= size.height &&
           left + width <= size.width;
  }
  // Whether a side is 0 and none negative (RandomResizedCrop's fallback
  // may draw such a crop, as torchvision's does; its output is black).
  bool empty() const {
    return height >= 0 && width >= 0 && (height == 0 || width == 0);
  }
};

// A rectangle in OUTPUT coordinates set to +0.0 in every stored value (pad
// lanes too). Empty when height or width is 0.
struct EraseRect {
  int64_t top = 0;
  int64_t left = 0;
  int64_t height = 0;
  int64_t width = 0;
  bool empty() const { return height <= 0 || width <= 0; }
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_GEOMETRY_H_
