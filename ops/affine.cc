// torchvision's and Pillow's affine geometry (affine.h). Every double
// expression is written in the order Python evaluates it (the project
// builds with -ffp-contract=off, so none becomes an FMA), with the C
// library's cos, sin and tan, which CPython's math module also calls.
#include "ops/affine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/round.h"
#include "core/status.h"
#include "ops/alpha.h"
#include "ops/image_blocks.h"

namespace fusednorm {
namespace {

// math.radians' factor (CPython: Py_MATH_PI / 180.0).
constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

// ---- Pillow's transposes (its rotate by 90, 180 and 270) ----

// ROTATE_180: out(H-1-y, W-1-x) = in(y, x).
absl::Status Rotate180(const ImageView& in, Image* out) {
  const int C = in.channels;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(in.height, in.width, C, out));
  for (int64_t y = 0; y < in.height; ++y) {
    const uint8_t* src = in.pixels.data() + y * in.row_stride;
    uint8_t* dst = out->pixels.data() + (in.height - 1 - y) * in.width * C;
    for (int64_t x = 0; x < in.width; ++x) {
      std::memcpy(dst + (in.width - 1 - x) * C, src + x * C, C);
    }
  }
  return absl::OkStatus();
}

// ROTATE_90 (counter-clockwise): out(W-1-x, y) = in(y, x); ROTATE_270:
// out(x, H-1-y) = in(y, x). The output is W rows of H pixels.
absl::Status RotateQuarter(const ImageView& in, bool ccw, Image* out) {
  const int C = in.channels;
  const int64_t H = in.height, W = in.width;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(W, H, C, out));
  for (int64_t y = 0; y < H; ++y) {
    const uint8_t* src = in.pixels.data() + y * in.row_stride;
    for (int64_t x = 0; x < W; ++x) {
      const int64_t row = ccw ? W - 1 - x : x;
      const int64_t col = ccw ? y : H - 1 - y;
      std::memcpy(out->pixels.data() + (row * H + col) * C, src + x * C, C);
    }
  }
  return absl::OkStatus();
}

// Every pixel of `image` set to the fill colour.
void FillImage(const FillColor& fill, Image* image) {
  const int C = image->channels;
  uint8_t pixel[4];
  for (int c = 0; c < C; ++c) pixel[c] = fill.channel(c);
  uint8_t* p = image->pixels.data();
  if (std::all_of(pixel, pixel + C, [&](uint8_t v) { return v == pixel[0]; })) {
    std::memset(p, pixel[0], image->pixels.size());
    return;
  }
  for (size_t i = 0; i < image->pixels.size(); i += C) {
    std::memcpy(p + i, pixel, C);
  }
}

// Pillow's rotate matrix (about `center`, or the image's middle) and the
// output size, with `expand` the size the rotated corners span.
struct RotatePlan {
  AffineMatrix matrix;
  Size2 size;
};

// (a x + b y + c, d x + e y + f): Python's transform() in Image.rotate.
Point2 Apply(const AffineMatrix& m, double x, double y) {
  return {m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]};
}

absl::StatusOr<RotatePlan> PlanRotate(Size2 input, double degrees, bool expand,
                                      std::optional<Point2> center) {
  const double w = static_cast<double>(input.width);
  const double h = static_cast<double>(input.height);
  const Point2 c = center ? *center : Point2{w / 2.0, h / 2.0};
  const double r = -(degrees * kDegToRad);
  AffineMatrix m = {
      PythonRound15(std::cos(r)),  PythonRound15(std::sin(r)), 0.0,
      PythonRound15(-std::sin(r)), PythonRound15(std::cos(r)), 0.0};
  const Point2 t = Apply(m, -c.first - 0.0, -c.second - 0.0);
  m[2] = t.first + c.first;
  m[5] = t.second + c.second;
  if (!expand) return RotatePlan{m, input};
  double lo_x = HUGE_VAL, hi_x = -HUGE_VAL, lo_y = HUGE_VAL, hi_y = -HUGE_VAL;
  for (const Point2& corner :
       {Point2{0, 0}, Point2{w, 0}, Point2{w, h}, Point2{0, h}}) {
    const Point2 p = Apply(m, corner.first, corner.second);
    lo_x = std::min(lo_x, p.first);
    hi_x = std::max(hi_x, p.first);
    lo_y = std::min(lo_y, p.second);
    hi_y = std::max(hi_y, p.second);
  }
  const double nw = std::ceil(hi_x) - std::floor(lo_x);
  const double nh = std::ceil(hi_y) - std::floor(lo_y);
  // Checked as doubles: a far center spans sizes no int holds.
  if (!(nw >= 1 && nh >= 1 && nw <= kMaxSide && nh <= kMaxSide)) {
    return InvalidArgumentCat("rotating ", input.height, "x", input.width,
                              " by ", degrees, " degrees with expand gives ",
                              nh, "x", nw, ": sides must be in 1..", kMaxSide);
  }
  const Point2 shift = Apply(m, -(nw - w) / 2.0, -(nh - h) / 2.0);
  m[2] = shift.first;
  m[5] = shift.second;
  return RotatePlan{m,
                    Size2{static_cast<int64_t>(nh), static_cast<int64_t>(nw)}};
}

}  // namespace

absl::Status FillArg::Validate(const char* op) const {
  if (values.size() > 4) {
    return InvalidArgumentCat(op, " fill = ", FormatArg(Print()),
                              ": at most 4 values, one per channel");
  }
  for (const double v : values) {
    // int() truncates toward zero.
    if (!(v > -1 && v < 256)) {
      return InvalidArgumentCat(op, " fill = ", FormatArg(Print()),
                                ": each value's int() must be in 0..255");
    }
  }
  return absl::OkStatus();
}

absl::Status FillArg::CheckChannels(const char* op, int channels) const {
  if (!sequence || static_cast<int>(values.size()) == channels) {
    return absl::OkStatus();
  }
  return InvalidArgumentCat(op, " fill = ", FormatArg(Print()), " has ",
                            values.size(), " values but the images have ",
                            channels, " channels");
}

absl::StatusOr<int> FillableChannels(const char* op, int channels,
                                     const FillArg& fill) {
  FUSEDNORM_RETURN_IF_ERROR(fill.CheckChannels(op, channels));
  return channels;
}

FillColor FillArg::Color() const {
  FillColor c;
  for (const double v : values) c.values.push_back(static_cast<uint8_t>(v));
  return c;
}

AffineMatrix InverseAffineMatrix(Point2 center, double angle, Point2 translate,
                                 double scale, Point2 shear) {
  const double rot = angle * kDegToRad;
  const double sx = shear.first * kDegToRad;
  const double sy = shear.second * kDegToRad;
  const auto [cx, cy] = center;
  const auto [tx, ty] = translate;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b =
      -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d =
      -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  AffineMatrix m = {d, -b, 0.0, -c, a, 0.0};
  for (double& v : m) v = v / scale;
  m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty);
  m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty);
  m[2] += cx;
  m[5] += cy;
  return m;
}

AffineFilter FilterOf(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kNearest:
      return AffineFilter::kNearest;
    case Interpolation::kBilinear:
      return AffineFilter::kBilinear;
    case Interpolation::kBicubic:
      return AffineFilter::kBicubic;
  }
  return AffineFilter::kNearest;
}

absl::Status PillowTransform(const AugmentKernelInfo& kernel,
                             const ImageView& input, const AffineMatrix& a,
                             AffineFilter filter, const FillColor& fill,
                             int64_t out_height, int64_t out_width,
                             AffineScratch* scratch, Image* output) {
  for (const double v : a) {
    if (!std::isfinite(v)) {
      return InvalidArgumentCat(
          "the affine matrix (", a[0], ", ", a[1], ", ", a[2], ", ", a[3], ", ",
          a[4], ", ", a[5],
          ") is not finite (a scale that rounds to 0, or a NaN)");
    }
  }
  const int C = input.channels;
  const bool premultiply = HasAlpha(C) && filter != AffineFilter::kNearest;
  ImageView source = input;
  if (premultiply) {
    FUSEDNORM_RETURN_IF_ERROR(Premultiply(input, &scratch->premultiplied));
    source = scratch->premultiplied.view();
  }
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(out_height, out_width));
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(out_height, out_width, C, output));
  FillImage(fill, output);
  const AugmentInput in{source.pixels.data(), source.height, source.width, C,
                        source.row_stride};
  kernel.affine(in, a.data(), filter, output->pixels.data(), out_height,
                out_width);
  if (premultiply) Unpremultiply(output);
  return absl::OkStatus();
}

absl::StatusOr<Size2> RotatedSize(Size2 input, double angle, bool expand,
                                  std::optional<Point2> center) {
  const double degrees = PythonMod(angle, 360.0);
  if (!center && (degrees == 90 || degrees == 270) &&
      (expand || input.width == input.height)) {
    return Size2{input.width, input.height};
  }
  if (!center && (degrees == 0 || degrees == 180)) return input;
  FUSEDNORM_ASSIGN_OR_RETURN(const RotatePlan plan,
                             PlanRotate(input, degrees, expand, center));
  return plan.size;
}

absl::Status PillowRotate(const AugmentKernelInfo& kernel,
                          const ImageView& input, double angle,
                          AffineFilter filter, bool expand,
                          std::optional<Point2> center, const FillColor& fill,
                          AffineScratch* scratch, Image* output) {
  const double degrees = PythonMod(angle, 360.0);
  if (!center) {
    if (degrees == 0) return CopyImage(input, output);
    if (degrees == 180) return Rotate180(input, output);
    if ((degrees == 90 || degrees == 270) &&
        (expand || input.width == input.height)) {
      return RotateQuarter(input, degrees == 90, output);
    }
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      const RotatePlan plan,
      PlanRotate({input.height, input.width}, degrees, expand, center));
  return PillowTransform(kernel, input, plan.matrix, filter, fill,
                         plan.size.height, plan.size.width, scratch, output);
}

absl::Status TorchvisionAffine(const AugmentKernelInfo& kernel,
                               const ImageView& input, double angle,
                               Point2 translate, double scale, Point2 shear,
                               std::optional<Point2> center,
                               AffineFilter filter, const FillColor& fill,
                               AffineScratch* scratch, Image* output) {
  const Point2 c = center ? *center
                          : Point2{static_cast<double>(input.width) * 0.5,
                                   static_cast<double>(input.height) * 0.5};
  const AffineMatrix m = InverseAffineMatrix(c, angle, translate, scale, shear);
  return PillowTransform(kernel, input, m, filter, fill, input.height,
                         input.width, scratch, output);
}

}  // namespace fusednorm
