// The transforms (transforms.h): crops, torchvision's RandomResizedCrop
// window, resizing through ops/resize.h, and the record-only ops.
#include "ops/transforms.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/round.h"
#include "core/status.h"
#include "ops/box_params.h"

namespace fusednorm {
namespace {

absl::Status RecordOnly(const std::string& name) {
  return absl::UnimplementedError(
      absl::StrCat(name,
                   " is fused into FusedNormalization, which a Preprocessor "
                   "appends to every transform chain: it transforms no "
                   "pixels of its own"));
}

}  // namespace

absl::Status PreprocessOp::Execute(const ImageView& input, SampleStream& stream,
                                   Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  OpWorkspace ws;
  return Apply(input, Decide({input.height, input.width}, stream), &ws, output);
}

absl::StatusOr<Size2> RecordOnlyOp::OutputSize(Size2) const {
  return RecordOnly(name());
}
absl::Status RecordOnlyOp::Apply(const ImageView&, const OpDecision&,
                                 OpWorkspace*, Image*) const {
  return RecordOnly(name());
}

absl::Status Crop(const ImageView& in, int64_t top, int64_t left, int64_t h,
                  int64_t w, Image* out) {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(in));
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(h, w));
  if (std::abs(top) > kMaxSide || std::abs(left) > kMaxSide) {
    return InvalidArgumentCat("crop position (", top, ", ", left,
                              ") is out of range");
  }
  const int C = in.channels;
  FUSEDNORM_RETURN_IF_ERROR(AllocateImage(h, w, C, out));
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

std::string Normalize::name() const {
  return absl::StrCat("Normalize(", PresetName(preset_), ")");
}
std::unique_ptr<PreprocessOp> Normalize::Clone() const {
  return std::make_unique<Normalize>(*this);
}

// ---- Resize ----

Resize::Resize(int64_t size, ResizeFilter filter)
    : shorter_(size), filter_(filter), resizer_(Resizer::Create(filter)) {}
Resize::Resize(Size2 size, ResizeFilter filter)
    : exact_(size), filter_(filter), resizer_(Resizer::Create(filter)) {}

std::string Resize::name() const {
  return shorter_ > 0
             ? absl::StrCat("Resize(", shorter_, ", ",
                            ResizeFilterName(filter_), ")")
             : absl::StrCat("Resize(", exact_.height, "x", exact_.width, ", ",
                            ResizeFilterName(filter_), ")");
}
std::unique_ptr<PreprocessOp> Resize::Clone() const {
  return std::make_unique<Resize>(*this);
}

std::optional<Size2> Resize::FixedOutputSize() const {
  if (shorter_ > 0) return std::nullopt;
  return exact_;
}

absl::StatusOr<Size2> Resize::OutputSize(Size2 input) const {
  const int64_t height = input.height, width = input.width;
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

absl::Status Resize::Validate() const { return resizer_.status(); }

absl::Status Resize::Apply(const ImageView& input, const OpDecision&,
                           OpWorkspace* ws, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size,
                             OutputSize({input.height, input.width}));
  return resizer_->Resize(input, {0, 0, input.height, input.width}, size,
                          &ws->resize, output);
}

// ---- CenterCrop ----

std::string CenterCrop::name() const {
  return absl::StrCat("CenterCrop(", size_.height, "x", size_.width, ")");
}
std::unique_ptr<PreprocessOp> CenterCrop::Clone() const {
  return std::make_unique<CenterCrop>(*this);
}

absl::Status CenterCrop::Apply(const ImageView& input, const OpDecision&,
                               OpWorkspace*, Image* output) const {
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
                                     double ratio_max, ResizeFilter filter)
    : RandomResizedCrop(Size2{size, size}, scale_min, scale_max, ratio_min,
                        ratio_max, filter) {}

RandomResizedCrop::RandomResizedCrop(Size2 size, double scale_min,
                                     double scale_max, double ratio_min,
                                     double ratio_max, ResizeFilter filter)
    : size_(size),
      scale_min_(scale_min),
      scale_max_(scale_max),
      ratio_min_(ratio_min),
      ratio_max_(ratio_max),
      filter_(filter),
      resizer_(Resizer::Create(filter)) {}

std::string RandomResizedCrop::name() const {
  return absl::StrCat("RandomResizedCrop(", size_.height, "x", size_.width,
                      ", scale=(", scale_min_, ", ", scale_max_, "), ratio=(",
                      ratio_min_, ", ", ratio_max_, "), ",
                      ResizeFilterName(filter_), ")");
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
  return resizer_.status();
}

OpDecision RandomResizedCrop::Decide(Size2 input, SampleStream& stream) const {
  return {Window(input.height, input.width, stream)};
}

CropWindow RandomResizedCrop::Window(int64_t height, int64_t width,
                                     SampleStream& stream) const {
  StreamDraws draws(stream);
  if (const std::optional<CropWindow> box =
          DrawBox(BoxKind::kCrop, height, width,
                  {scale_min_, scale_max_, ratio_min_, ratio_max_}, draws)) {
    return *box;
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

absl::Status RandomResizedCrop::Apply(const ImageView& input,
                                      const OpDecision& decision,
                                      OpWorkspace* ws, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  if (!decision.window) {
    return InvalidArgumentCat(name(), ": Apply needs the window Decide drew");
  }
  return resizer_->Resize(input, *decision.window, size_, &ws->resize, output);
}

}  // namespace fusednorm
