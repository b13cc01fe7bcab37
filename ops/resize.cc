// Box resizing (resize.h): the Pillow filters (one pass order rule each)
// through the resize dispatch table, Pillow's nearest-neighbour scaling and
// RGBA premultiplication, and torchvision's two tensor-route filters in
// scalar float code.
#include "ops/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "kernels/resize/resize_dispatch.h"
#include "kernels/resize/resize_kernel.h"
#include "ops/alpha.h"

namespace fusednorm {
namespace {

// One axis of torchvision/PyTorch bilinear interpolation, align_corners=False:
// src = (dst + 0.5) * in/out - 0.5, clamped at 0; neighbours i0, i0 + 1
// (clamped).
struct Tap {
  int64_t i0, i1;
  float w0, w1;
};

std::vector<Tap> BilinearTaps(int64_t in, int64_t out) {
  std::vector<Tap> taps(out);
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  for (int64_t d = 0; d < out; ++d) {
    float src = scale * (static_cast<float>(d) + 0.5f) - 0.5f;
    if (src < 0) src = 0;
    const int64_t i0 = static_cast<int64_t>(src);
    const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
    const float l1 = src - static_cast<float>(i0);
    taps[d] = {i0, i1, 1.0f - l1, l1};
  }
  return taps;
}

// One axis of an antialiased (triangle filter, support scaled by the downscale
// factor) resampling: for output d, weights over inputs [first, first +
// weights.size()).
struct Filter {
  int64_t first;
  std::vector<double> weights;
};

std::vector<Filter> TriangleFilters(int64_t in, int64_t out) {
  std::vector<Filter> filters(out);
  const double scale = static_cast<double>(in) / out;
  const double support = std::max(scale, 1.0);
  const double inv = 1.0 / std::max(scale, 1.0);
  for (int64_t d = 0; d < out; ++d) {
    const double center = (d + 0.5) * scale;
    const int64_t lo =
        std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    const int64_t hi =
        std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
    Filter& f = filters[d];
    f.first = lo;
    double sum = 0;
    for (int64_t i = lo; i < hi; ++i) {
      const double x = (i - center + 0.5) * inv;
      const double w = std::max(0.0, 1.0 - std::fabs(x));
      f.weights.push_back(w);
      sum += w;
    }
    if (sum > 0) {
      for (double& w : f.weights) w /= sum;
    }
  }
  return filters;
}

// Rounds to the nearest integer, ties to even (torch.round), clamped to 0..255:
// adding and subtracting 2^23 leaves the float rounded by the FPU's own
// rounding.
inline uint8_t RoundToByte(float v) {
  v = std::min(255.0f, std::max(0.0f, v));
  return static_cast<uint8_t>((v + 8388608.0f) - 8388608.0f);
}

uint8_t ToByte(double v) {
  const double r = std::nearbyint(v);  // torch.round: half to even
  return static_cast<uint8_t>(std::min(255.0, std::max(0.0, r)));
}

// torchvision's bilinear interpolation (antialias=False).
void ResizeInterpolated(const ImageView& in, int64_t out_h, int64_t out_w,
                        Image* out) {
  const int C = in.channels;
  {
    const std::vector<Tap> ty = BilinearTaps(in.height, out_h);
    const std::vector<Tap> tx = BilinearTaps(in.width, out_w);
    uint8_t* o = out->pixels.data();
    for (int64_t y = 0; y < out_h; ++y) {
      const Tap& a = ty[y];
      const uint8_t* r0 = in.pixels.data() + a.i0 * in.row_stride;
      const uint8_t* r1 = in.pixels.data() + a.i1 * in.row_stride;
      for (int64_t x = 0; x < out_w; ++x) {
        const Tap& b = tx[x];
        const int64_t c0 = b.i0 * C, c1 = b.i1 * C;
        for (int c = 0; c < C; ++c, ++o) {
          const float v = a.w0 * (b.w0 * r0[c0 + c] + b.w1 * r0[c1 + c]) +
                          a.w1 * (b.w0 * r1[c0 + c] + b.w1 * r1[c1 + c]);
          *o = RoundToByte(v);
        }
      }
    }
  }
}

// torchvision's antialias=True: horizontal pass into doubles, then vertical.
void ResizeAntialiased(const ImageView& in, int64_t out_h, int64_t out_w,
                       Image* out) {
  const int C = in.channels;
  const auto px = [&](int64_t h, int64_t w, int c) -> float {
    return in.pixels[h * in.row_stride + w * C + c];
  };
  const std::vector<Filter> fx = TriangleFilters(in.width, out_w);
  const std::vector<Filter> fy = TriangleFilters(in.height, out_h);
  std::vector<double> tmp(static_cast<size_t>(in.height * out_w * C));
  for (int64_t y = 0; y < in.height; ++y) {
    for (int64_t x = 0; x < out_w; ++x) {
      const Filter& f = fx[x];
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (size_t k = 0; k < f.weights.size(); ++k)
          s += f.weights[k] * px(y, f.first + k, c);
        tmp[(y * out_w + x) * C + c] = s;
      }
    }
  }
  for (int64_t y = 0; y < out_h; ++y) {
    const Filter& f = fy[y];
    for (int64_t x = 0; x < out_w; ++x) {
      for (int c = 0; c < C; ++c) {
        double s = 0;
        for (size_t k = 0; k < f.weights.size(); ++k) {
          s += f.weights[k] * tmp[((f.first + k) * out_w + x) * C + c];
        }
        out->pixels[(y * out_w + x) * C + c] = ToByte(s);
      }
    }
  }
}

// The axis's Pillow weights for in_size -> out_size: the kernel row makes
// the bilinear ones (its own way, the same integers), the scalar code the
// bicubic ones; kept while the sizes and the filter repeat.
void PillowAxisFor(const ResizeKernelInfo& row, PillowFilter filter,
                   int64_t in_size, int64_t out_size, ResizeAxis* axis) {
  if (filter == PillowFilter::kBilinear) {
    row.axis(in_size, out_size, axis);
  } else {
    PillowAxis(filter, in_size, out_size, axis);
  }
}

void PillowAxesFor(const ResizeKernelInfo& row, PillowFilter filter, Size2 box,
                   Size2 size, ResizeWorkspace* ws) {
  const bool same = ws->axes_filter == filter;
  ws->axes_filter = filter;
  ResizeAxis& h = ws->horizontal;
  if (!same || h.in_size != box.width || h.out_size != size.width)
    PillowAxisFor(row, filter, box.width, size.width, &h);
  ResizeAxis& v = ws->vertical;
  if (!same || v.in_size != box.height || v.out_size != size.height)
    PillowAxisFor(row, filter, box.height, size.height, &v);
}

// Which pass the Pillow that `filter` names runs first for a box of `box`
// resized to `size`. Where only one axis is resized the order changes
// nothing. Pillow 12.2's rule is Image.resize's (on the cropped image),
// 13.0's that of Resample.c.
ResizePassOrder PillowPassOrder(ResizeFilter filter, Size2 box, Size2 size) {
  const int64_t shrink_h = box.height - size.height;
  const int64_t shrink_w = box.width - size.width;
  bool vertical_first = false;
  if (filter == ResizeFilter::kPil12_2) {
    vertical_first = shrink_h > 0 && box.height > 100 * box.width;
  } else if (filter == ResizeFilter::kPil13) {
    vertical_first = shrink_h > 0 && shrink_h > 2 * shrink_w;
  }
  return vertical_first ? ResizePassOrder::kVerticalFirst
                        : ResizePassOrder::kHorizontalFirst;
}

// A Pillow filter: weights per axis (reused while the sizes repeat), then
// the chosen kernel row with the workspace's buffers.
void ResizePil(const ImageView& box, Size2 size, ResizePassOrder order,
               PillowFilter filter, const ResizeKernelInfo& row,
               ResizeWorkspace* ws, Image* out) {
  PillowAxesFor(row, filter, {box.height, box.width}, size, ws);
  ResizeArgs args;
  args.input = box.pixels.data();
  args.input_row_stride = box.row_stride;
  args.input_readable = box.pixels.size();
  args.channels = box.channels;
  args.horizontal = &ws->horizontal;
  args.vertical = &ws->vertical;
  args.output = out->pixels.data();
  args.output_row_stride = size.width * box.channels;
  args.scratch = &ws->scratch;
  args.order = order;
  row.fn(args);
}

bool IsPillow(ResizeFilter f) {
  return f == ResizeFilter::kPil || f == ResizeFilter::kPil12_2 ||
         f == ResizeFilter::kPil13;
}

// Pillow's COORD: the source index of a position, -1 left of the image.
int64_t Coord(double v) { return v < 0.0 ? -1 : static_cast<int64_t>(v); }

// Pillow's NEAREST resize (ImagingScaleAffine with a[0] = box / size):
// output x reads source COORD(xo), xo starting at a[0] / 2 and growing by
// a[0] in double, one step per output; rows likewise. Positions outside
// the box stay 0 (Pillow's fill), which happens only in freak roundings.
void ResizeNearest(const ImageView& in, Size2 size, Image* out) {
  const int C = in.channels;
  std::fill(out->pixels.begin(), out->pixels.end(), 0);
  // Pillow's box is four floats; its sides are exact for our sizes.
  const double ax =
      static_cast<double>(static_cast<float>(in.width)) / size.width;
  const double ay =
      static_cast<double>(static_cast<float>(in.height)) / size.height;
  std::vector<int64_t> columns(size.width, -1);
  double xo = ax * 0.5;
  for (int64_t x = 0; x < size.width; ++x, xo += ax) {
    const int64_t xin = Coord(xo);
    if (xin >= 0 && xin < in.width) columns[x] = xin;
  }
  double yo = ay * 0.5;
  for (int64_t y = 0; y < size.height; ++y, yo += ay) {
    const int64_t yin = Coord(yo);
    if (yin < 0 || yin >= in.height) continue;
    const uint8_t* row = in.pixels.data() + yin * in.row_stride;
    uint8_t* o = out->pixels.data() + y * size.width * C;
    for (int64_t x = 0; x < size.width; ++x) {
      if (columns[x] < 0) continue;
      std::memcpy(o + x * C, row + columns[x] * C, static_cast<size_t>(C));
    }
  }
}

}  // namespace

absl::Span<const Named<Interpolation>> InterpolationNames() {
  static constexpr Named<Interpolation> kNames[] = {
      {Interpolation::kNearest, "nearest"},
      {Interpolation::kBilinear, "bilinear"},
      {Interpolation::kBicubic, "bicubic"}};
  return kNames;
}

const char* InterpolationName(Interpolation i) {
  return NameOf(InterpolationNames(), i);
}

absl::Span<const Named<ResizeFilter>> ResizeFilterNames() {
  static constexpr Named<ResizeFilter> kNames[] = {
      {ResizeFilter::kPil, "pil"},
      {ResizeFilter::kPil12_2, "pil12.2"},
      {ResizeFilter::kPil13, "pil13"},
      {ResizeFilter::kTensor, "tensor"},
      {ResizeFilter::kBilinear, "bilinear"}};
  return kNames;
}

const char* ResizeFilterName(ResizeFilter f) {
  return NameOf(ResizeFilterNames(), f);
}

absl::StatusOr<ResizeFilter> ParseResizeFilter(absl::string_view name) {
  return ParseNamed(ResizeFilterNames(), "resize filter", name);
}

absl::StatusOr<Resizer> Resizer::Create(ResizeFilter filter,
                                        absl::string_view kernel,
                                        Interpolation interpolation) {
  Resizer r;
  r.filter_ = filter;
  r.interpolation_ = interpolation;
  if (IsPillow(filter)) {
    FUSEDNORM_ASSIGN_OR_RETURN(r.row_, SelectResizeKernel(kernel));
  } else if (interpolation != Interpolation::kBilinear) {
    return InvalidArgumentCat(
        "interpolation ", InterpolationName(interpolation),
        " needs a Pillow resize filter (pil, pil12.2, pil13), not ",
        ResizeFilterName(filter), ", which implements bilinear only");
  }
  return r;
}

absl::Status Resizer::Resize(const ImageView& input, const CropWindow& box,
                             Size2 size, ResizeWorkspace* ws,
                             Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(ValidateBox(box, input.height, input.width));
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(size.height, size.width));
  const ImageView in = SubView(input, box);
  FUSEDNORM_RETURN_IF_ERROR(
      ShapeImage(size.height, size.width, in.channels, output));
  switch (filter_) {
    case ResizeFilter::kPil:
    case ResizeFilter::kPil12_2:
    case ResizeFilter::kPil13:
      return ResizePillow(in, size, ws, output);
    case ResizeFilter::kTensor:
      if (size.height < in.height || size.width < in.width) {
        ResizeAntialiased(in, size.height, size.width, output);
        return absl::OkStatus();
      }
      [[fallthrough]];  // upscaling: the same as plain bilinear
    case ResizeFilter::kBilinear:
      ResizeInterpolated(in, size.height, size.width, output);
      return absl::OkStatus();
  }
  return InvalidArgumentCat("resize filter ", static_cast<int>(filter_),
                            " is not a ResizeFilter");
}

absl::Status Resizer::ResizePillow(const ImageView& in, Size2 size,
                                   ResizeWorkspace* ws, Image* output) const {
  if (interpolation_ == Interpolation::kNearest) {
    ResizeNearest(in, size, output);
    return absl::OkStatus();
  }
  const PillowFilter filter = interpolation_ == Interpolation::kBicubic
                                  ? PillowFilter::kBicubic
                                  : PillowFilter::kBilinear;
  const ResizePassOrder order =
      PillowPassOrder(filter_, {in.height, in.width}, size);
  // Image.resize copies an image already of the size, before it would
  // premultiply.
  const bool same = in.height == size.height && in.width == size.width;
  if (!HasAlpha(in.channels) || same) {
    ResizePil(in, size, order, filter, *row_, ws, output);
    return absl::OkStatus();
  }
  FUSEDNORM_RETURN_IF_ERROR(Premultiply(in, &ws->premultiplied));
  ResizePil(ws->premultiplied.view(), size, order, filter, *row_, ws, output);
  Unpremultiply(output);
  return absl::OkStatus();
}

absl::Status ResizeBox(const ImageView& input, const CropWindow& box,
                       Size2 size, ResizeFilter filter, Image* output,
                       absl::string_view kernel, Interpolation interpolation) {
  FUSEDNORM_ASSIGN_OR_RETURN(const Resizer resizer,
                             Resizer::Create(filter, kernel, interpolation));
  ResizeWorkspace ws;
  return resizer.Resize(input, box, size, &ws, output);
}

}  // namespace fusednorm
