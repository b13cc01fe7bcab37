// The scalar resize row (scalar_resize.h).
#include "kernels/resize/scalar_resize.h"

#include <algorithm>
#include <cstdint>

namespace fusednorm {
namespace {

// One output value: resize_kernel.h's formula over `taps` inputs `step`
// bytes apart.
uint8_t Sample(const uint8_t* in, int64_t step, const int32_t* weights,
               int taps) {
  int32_t sum = int32_t{1} << (kResizePrecisionBits - 1);
  for (int k = 0; k < taps; ++k) sum += in[k * step] * weights[k];
  return static_cast<uint8_t>(
      std::clamp(sum >> kResizePrecisionBits, int32_t{0}, int32_t{255}));
}

// Horizontal first: box rows first .. first + rows - 1 (the ones the
// vertical pass reads) to rows of the output's width, then the vertical pass.
void HorizontalFirst(const ResizeArgs& a) {
  const ResizeAxis& h = *a.horizontal;
  const ResizeAxis& v = *a.vertical;
  const int C = a.channels;
  const int64_t row_bytes = h.out_size * C;
  const int64_t first = v.start[0];
  const int64_t rows = v.start[v.out_size - 1] + v.taps - first;
  a.scratch->rows.resize(static_cast<size_t>(rows * row_bytes));
  uint8_t* tmp = a.scratch->rows.data();
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* in = a.input + (first + r) * a.input_row_stride;
    for (int64_t x = 0; x < h.out_size; ++x) {
      for (int c = 0; c < C; ++c) {
        tmp[r * row_bytes + x * C + c] =
            Sample(in + h.start[x] * C + c, C, &h.weights[x * h.taps], h.taps);
      }
    }
  }
  for (int64_t y = 0; y < v.out_size; ++y) {
    const uint8_t* in = tmp + (v.start[y] - first) * row_bytes;
    for (int64_t j = 0; j < row_bytes; ++j) {
      a.output[y * a.output_row_stride + j] =
          Sample(in + j, row_bytes, &v.weights[y * v.taps], v.taps);
    }
  }
}

// Vertical first: the box's rows to rows of the box's width and the output's
// height, then the horizontal pass.
void VerticalFirst(const ResizeArgs& a) {
  const ResizeAxis& h = *a.horizontal;
  const ResizeAxis& v = *a.vertical;
  const int C = a.channels;
  const int64_t box_bytes = h.in_size * C;
  a.scratch->vertical_rows.resize(static_cast<size_t>(v.out_size * box_bytes));
  uint8_t* tmp = a.scratch->vertical_rows.data();
  for (int64_t y = 0; y < v.out_size; ++y) {
    const uint8_t* in = a.input + v.start[y] * a.input_row_stride;
    for (int64_t j = 0; j < box_bytes; ++j) {
      tmp[y * box_bytes + j] =
          Sample(in + j, a.input_row_stride, &v.weights[y * v.taps], v.taps);
    }
  }
  for (int64_t y = 0; y < v.out_size; ++y) {
    const uint8_t* in = tmp + y * box_bytes;
    for (int64_t x = 0; x < h.out_size; ++x) {
      for (int c = 0; c < C; ++c) {
        a.output[y * a.output_row_stride + x * C + c] =
            Sample(in + h.start[x] * C + c, C, &h.weights[x * h.taps], h.taps);
      }
    }
  }
}

void ResizeScalar(const ResizeArgs& a) {
  if (a.order == ResizePassOrder::kVerticalFirst) return VerticalFirst(a);
  HorizontalFirst(a);
}

bool Always() { return true; }

}  // namespace

ResizeKernelInfo ScalarResizeInfo() {
  return {"scalar", "any CPU",          0, &Always, &ResizeScalar,
          nullptr,  &PillowBilinearAxis};
}

}  // namespace fusednorm
