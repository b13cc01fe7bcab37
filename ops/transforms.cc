// The transforms (transforms.h): bilinear and antialiased resizing, crops,
// torchvision's RandomResizedCrop window, and the record-only ops.
#include "ops/transforms.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "util/round.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

absl::Status RecordOnly(const std::string& name) {
  return absl::UnimplementedError(
      absl::StrCat(name,
                   " has no Execute: it is fused into FusedNormalization, "
                   "which a Preprocessor appends "
                   "to every transform chain"));
}

// Largest image side and pixel count the real ops accept (keeps every size
// computation far from overflow).
constexpr int64_t kMaxSide = int64_t{1} << 20;
constexpr int64_t kMaxPixels = int64_t{1} << 31;

absl::Status ValidateInput(const ImageView& in) {
  if (in.pixels.data() == nullptr)
    return InvalidArgumentCat("input pixels is null");
  if (in.height < 1 || in.height > kMaxSide) {
    return InvalidArgumentCat("input height = ", in.height, " must be in 1..",
                              kMaxSide);
  }
  if (in.width < 1 || in.width > kMaxSide) {
    return InvalidArgumentCat("input width = ", in.width, " must be in 1..",
                              kMaxSide);
  }
  if (in.channels < 1 || in.channels > kMaxChannels) {
    return InvalidArgumentCat("input channels = ", in.channels,
                              " must be in 1..", kMaxChannels);
  }
  if (in.row_stride < in.width * in.channels) {
    return InvalidArgumentCat(
        "input row_stride = ", in.row_stride,
        " is less than width * channels = ", in.width * in.channels);
  }
  const uint64_t need = static_cast<uint64_t>(in.height - 1) * in.row_stride +
                        static_cast<uint64_t>(in.width) * in.channels;
  if (in.pixels.size() < need) {
    return InvalidArgumentCat("input pixels has ", in.pixels.size(),
                              " bytes but the image needs ", need);
  }
  return absl::OkStatus();
}

absl::Status ValidateOutputSize(int64_t h, int64_t w) {
  if (h < 1 || w < 1 || h > kMaxSide || w > kMaxSide || h * w > kMaxPixels) {
    return InvalidArgumentCat("output size ", h, "x", w,
                              " must be at least 1x1 and at most ", kMaxSide,
                              " per side and ", kMaxPixels, " pixels");
  }
  return absl::OkStatus();
}

void Allocate(int64_t h, int64_t w, int c, Image* out) {
  out->height = h;
  out->width = w;
  out->channels = c;
  out->pixels.assign(static_cast<size_t>(h * w * c), 0);
}

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

}  // namespace

absl::Status ResizeBilinear(const ImageView& in, int64_t out_h, int64_t out_w,
                            bool antialias, Image* out) {
  FUSEDNORM_RETURN_IF_ERROR(ValidateInput(in));
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(out_h, out_w));
  const int C = in.channels;
  Allocate(out_h, out_w, C, out);
  const auto px = [&](int64_t h, int64_t w, int c) -> float {
    return in.pixels[h * in.row_stride + w * C + c];
  };
  if (!antialias || (out_h >= in.height && out_w >= in.width)) {
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
    return absl::OkStatus();
  }
  // Antialiased: horizontal pass into doubles, then vertical.
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
  return absl::OkStatus();
}

absl::Status Crop(const ImageView& in, int64_t top, int64_t left, int64_t h,
                  int64_t w, Image* out) {
  FUSEDNORM_RETURN_IF_ERROR(ValidateInput(in));
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(h, w));
  if (std::abs(top) > kMaxSide || std::abs(left) > kMaxSide) {
    return InvalidArgumentCat("crop position (", top, ", ", left,
                              ") is out of range");
  }
  const int C = in.channels;
  Allocate(h, w, C, out);
  for (int64_t y = 0; y < h; ++y) {
    const int64_t sy = top + y;
    if (sy < 0 || sy >= in.height) continue;  // padding rows stay 0
    const int64_t x0 = std::max<int64_t>(0, -left);
    const int64_t x1 = std::min<int64_t>(w, in.width - left);
    if (x1 <= x0) continue;
    std::memcpy(&out->pixels[(y * w + x0) * C],
                &in.pixels[sy * in.row_stride + (left + x0) * C],
                static_cast<size_t>((x1 - x0) * C));
  }
  return absl::OkStatus();
}

// ---- record-only ----

std::string RandomHorizontalFlip::name() const {
  return absl::StrCat("RandomHorizontalFlip(p=", p_, ")");
}
std::unique_ptr<PreprocessOp> RandomHorizontalFlip::Clone() const {
  return std::make_unique<RandomHorizontalFlip>(*this);
}
absl::Status RandomHorizontalFlip::Execute(const ImageView&, SampleStream&,
                                           Image*) const {
  return RecordOnly("RandomHorizontalFlip");
}

RandomErasing::RandomErasing(double p, double scale_min, double scale_max,
                             double ratio_min, double ratio_max) {
  options_.enabled = true;
  options_.p = p;
  options_.scale_min = scale_min;
  options_.scale_max = scale_max;
  options_.ratio_min = ratio_min;
  options_.ratio_max = ratio_max;
}
std::string RandomErasing::name() const {
  return absl::StrCat("RandomErasing(p=", options_.p, ", scale=(",
                      options_.scale_min, ", ", options_.scale_max,
                      "), ratio=(", options_.ratio_min, ", ",
                      options_.ratio_max, "))");
}
std::unique_ptr<PreprocessOp> RandomErasing::Clone() const {
  return std::make_unique<RandomErasing>(*this);
}
absl::Status RandomErasing::Execute(const ImageView&, SampleStream&,
                                    Image*) const {
  return RecordOnly("RandomErasing");
}

std::string Normalize::name() const {
  return absl::StrCat("Normalize(", PresetName(preset_), ")");
}
std::unique_ptr<PreprocessOp> Normalize::Clone() const {
  return std::make_unique<Normalize>(*this);
}
absl::Status Normalize::Execute(const ImageView&, SampleStream&, Image*) const {
  return RecordOnly("Normalize");
}

// ---- Resize ----

Resize::Resize(int64_t size, bool antialias)
    : shorter_(size), antialias_(antialias) {}
Resize::Resize(Size2 size, bool antialias)
    : exact_(size), antialias_(antialias) {}

std::string Resize::name() const {
  return shorter_ > 0
             ? absl::StrCat("Resize(", shorter_, ")")
             : absl::StrCat("Resize(", exact_.height, "x", exact_.width, ")");
}
std::unique_ptr<PreprocessOp> Resize::Clone() const {
  return std::make_unique<Resize>(*this);
}

std::optional<Size2> Resize::FixedOutputSize() const {
  if (shorter_ > 0) return std::nullopt;
  return exact_;
}

absl::StatusOr<Size2> Resize::OutputSize(int64_t height, int64_t width) const {
  if (shorter_ <= 0) {
    FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(exact_.height, exact_.width));
    return exact_;
  }
  if (shorter_ > kMaxSide)
    return InvalidArgumentCat("Resize size = ", shorter_, " is too large");
  if (height < 1 || width < 1)
    return InvalidArgumentCat("input size ", height, "x", width, " is empty");
  // torchvision: the shorter side becomes `size`, the longer int(size * long /
  // short).
  const bool wide = width > height;
  const int64_t s = wide ? height : width, l = wide ? width : height;
  const int64_t new_long =
      static_cast<int64_t>(static_cast<double>(shorter_) * l / s);
  const Size2 r = wide ? Size2{shorter_, new_long} : Size2{new_long, shorter_};
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(r.height, r.width));
  return r;
}

absl::Status Resize::Execute(const ImageView& input, SampleStream&,
                             Image* output) const {
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size,
                             OutputSize(input.height, input.width));
  return ResizeBilinear(input, size.height, size.width, antialias_, output);
}

// ---- CenterCrop ----

std::string CenterCrop::name() const {
  return absl::StrCat("CenterCrop(", size_.height, "x", size_.width, ")");
}
std::unique_ptr<PreprocessOp> CenterCrop::Clone() const {
  return std::make_unique<CenterCrop>(*this);
}

absl::Status CenterCrop::Execute(const ImageView& input, SampleStream&,
                                 Image* output) const {
  // torchvision: pad symmetrically (floor on the top/left) when the crop is
  // larger, else start at round((n - c) / 2).
  const auto start = [](int64_t n, int64_t c) {
    return c > n ? -((c - n) / 2) : RoundHalfEven((n - c) / 2.0);
  };
  return Crop(input, start(input.height, size_.height),
              start(input.width, size_.width), size_.height, size_.width,
              output);
}

// ---- RandomResizedCrop ----

RandomResizedCrop::RandomResizedCrop(int64_t size, double scale_min,
                                     double scale_max, double ratio_min,
                                     double ratio_max, bool antialias)
    : size_{size, size},
      scale_min_(scale_min),
      scale_max_(scale_max),
      ratio_min_(ratio_min),
      ratio_max_(ratio_max),
      antialias_(antialias) {}

std::string RandomResizedCrop::name() const {
  return absl::StrCat("RandomResizedCrop(", size_.height, "x", size_.width,
                      ", scale=(", scale_min_, ", ", scale_max_, "), ratio=(",
                      ratio_min_, ", ", ratio_max_, "))");
}
std::unique_ptr<PreprocessOp> RandomResizedCrop::Clone() const {
  return std::make_unique<RandomResizedCrop>(*this);
}

absl::Status RandomResizedCrop::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(size_.height, size_.width));
  if (!(scale_min_ > 0 && scale_min_ <= scale_max_ &&
        std::isfinite(scale_max_))) {
    return InvalidArgumentCat("RandomResizedCrop scale = (", scale_min_, ", ",
                              scale_max_, ") must satisfy 0 < min <= max");
  }
  if (!(ratio_min_ > 0 && ratio_min_ <= ratio_max_ &&
        std::isfinite(ratio_max_))) {
    return InvalidArgumentCat("RandomResizedCrop ratio = (", ratio_min_, ", ",
                              ratio_max_, ") must satisfy 0 < min <= max");
  }
  return absl::OkStatus();
}

CropWindow RandomResizedCrop::SampleWindow(int64_t height, int64_t width,
                                           SampleStream& stream) const {
  const double area = static_cast<double>(height) * width;
  const double log_min = std::log(ratio_min_), log_max = std::log(ratio_max_);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target =
        area * (scale_min_ + stream.Uniform() * (scale_max_ - scale_min_));
    const double aspect =
        std::exp(log_min + stream.Uniform() * (log_max - log_min));
    const int64_t w = RoundHalfEven(std::sqrt(target * aspect));
    const int64_t h = RoundHalfEven(std::sqrt(target / aspect));
    if (0 < w && w <= width && 0 < h && h <= height) {
      const int64_t i = stream.UniformInt(0, height - h);
      const int64_t j = stream.UniformInt(0, width - w);
      return {i, j, h, w};
    }
  }
  // Fallback: the central crop, its aspect ratio clamped into [ratio_min,
  // ratio_max].
  const double in_ratio = static_cast<double>(width) / height;
  int64_t w = width, h = height;
  if (in_ratio < ratio_min_) {
    h = std::max<int64_t>(1, RoundHalfEven(w / ratio_min_));
  } else if (in_ratio > ratio_max_) {
    w = std::max<int64_t>(1, RoundHalfEven(h * ratio_max_));
  }
  return {(height - h) / 2, (width - w) / 2, h, w};
}

absl::Status RandomResizedCrop::Execute(const ImageView& input,
                                        SampleStream& stream,
                                        Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateInput(input));
  const CropWindow win = SampleWindow(input.height, input.width, stream);
  // The crop is inside the image: resample straight from a view of it.
  const ImageView window{input.pixels.subspan(win.top * input.row_stride +
                                              win.left * input.channels),
                         win.height, win.width, input.channels,
                         input.row_stride};
  return ResizeBilinear(window, size_.height, size_.width, antialias_, output);
}

}  // namespace fusednorm
