// The geometric transforms (geometry.h): crops, torchvision's
// RandomResizedCrop window and Resize sizes, resizing through
// ops/resize.h, and the flips.
#include "ops/geometry.h"

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

ArgValue SizeArg(Size2 s) {
  return ArgValue::Tuple({ArgValue::Int(s.height), ArgValue::Int(s.width)});
}
ArgValue RangeArg(double lo, double hi) {
  return ArgValue::Tuple({ArgValue::Float(lo), ArgValue::Float(hi)});
}
ArgValue InterpolationArg(Interpolation i) {
  return ArgValue::Name(InterpolationName(i));
}

absl::StatusOr<Resizer> MakeResizer(const Resampling& r) {
  return Resizer::Create(r.filter, "", r.interpolation);
}

}  // namespace

absl::Status CheckSide(const char* op, const char* arg, int64_t side) {
  if (side < 1 || side > kMaxSide) {
    return InvalidArgumentCat(op, " ", arg, " = ", side, ": must be in 1..",
                              kMaxSide);
  }
  return absl::OkStatus();
}

std::string WithFilter(std::string name, ResizeFilter filter) {
  if (filter != ResizeFilter::kPil) {
    absl::StrAppend(&name, " filter=", ResizeFilterName(filter));
  }
  return name;
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

// ---- Resize ----

Resize::Resize(int64_t size, ResizeFilter filter)
    : Resize(size, Resampling{Interpolation::kBilinear, filter}) {}
Resize::Resize(int64_t size, Resampling resampling,
               std::optional<int64_t> max_size)
    : by_shorter_(true),
      shorter_(size),
      max_size_(max_size),
      resampling_(resampling),
      resizer_(MakeResizer(resampling)) {}
Resize::Resize(Size2 size, ResizeFilter filter)
    : Resize(size, Resampling{Interpolation::kBilinear, filter}) {}
Resize::Resize(Size2 size, Resampling resampling)
    : exact_(size),
      resampling_(resampling),
      resizer_(MakeResizer(resampling)) {}

std::vector<NamedArg> Resize::args() const {
  return {
      {"size", by_shorter_ ? ArgValue::Int(shorter_) : SizeArg(exact_)},
      {"interpolation", InterpolationArg(resampling_.interpolation)},
      {"max_size", max_size_ ? ArgValue::Int(*max_size_) : ArgValue::None()},
      {"antialias", ArgValue::Bool(true)}};
}

std::unique_ptr<PreprocessOp> Resize::Clone() const {
  return std::make_unique<Resize>(*this);
}

std::optional<Size2> Resize::FixedOutputSize() const {
  if (by_shorter_) return std::nullopt;
  return exact_;
}

absl::Status Resize::Validate() const {
  if (by_shorter_) {
    FUSEDNORM_RETURN_IF_ERROR(CheckSide("Resize", "size", shorter_));
    if (max_size_ && *max_size_ <= shorter_) {
      return InvalidArgumentCat("Resize max_size = ", *max_size_,
                                ": must be greater than size = ", shorter_);
    }
    if (max_size_)
      FUSEDNORM_RETURN_IF_ERROR(CheckSide("Resize", "max_size", *max_size_));
  } else {
    FUSEDNORM_RETURN_IF_ERROR(
        CheckSide("Resize", "size height", exact_.height));
    FUSEDNORM_RETURN_IF_ERROR(CheckSide("Resize", "size width", exact_.width));
    if (max_size_) {
      return InvalidArgumentCat(
          "Resize max_size = ", *max_size_,
          ": only with a size for the shorter side (an int)");
    }
  }
  return PrefixStatus(resizer_.status(), "Resize: ");
}

absl::StatusOr<Size2> Resize::OutputSize(Size2 input) const {
  const int64_t height = input.height, width = input.width;
  if (!by_shorter_) {
    FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(exact_.height, exact_.width));
    return exact_;
  }
  if (shorter_ > kMaxSide)
    return InvalidArgumentCat("Resize size = ", shorter_, " is too large");
  if (height < 1 || width < 1)
    return InvalidArgumentCat("input size ", height, "x", width, " is empty");
  // torchvision: the shorter side becomes `size`, the longer int(size * long /
  // short); then, past max_size, the longer becomes max_size and the shorter
  // int(max_size * short / long).
  const bool wide = width > height;
  const int64_t s = wide ? height : width, l = wide ? width : height;
  int64_t new_short = shorter_;
  int64_t new_long =
      static_cast<int64_t>(static_cast<double>(shorter_) * l / s);
  if (max_size_ && new_long > *max_size_) {
    new_short = static_cast<int64_t>(static_cast<double>(*max_size_) *
                                     new_short / new_long);
    new_long = *max_size_;
  }
  const Size2 r =
      wide ? Size2{new_short, new_long} : Size2{new_long, new_short};
  FUSEDNORM_RETURN_IF_ERROR(ValidateOutputSize(r.height, r.width));
  return r;
}

absl::Status Resize::Apply(const ImageView& input, const OpDecision&,
                           OpWorkspace* ws, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size,
                             OutputSize({input.height, input.width}));
  return resizer_->Resize(input, {0, 0, input.height, input.width}, size,
                          &ws->resize, output);
}

// ---- CenterCrop ----

std::vector<NamedArg> CenterCrop::args() const {
  return {{"size", SizeArg(size_)}};
}

std::unique_ptr<PreprocessOp> CenterCrop::Clone() const {
  return std::make_unique<CenterCrop>(*this);
}

absl::Status CenterCrop::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(
      CheckSide("CenterCrop", "size height", size_.height));
  return CheckSide("CenterCrop", "size width", size_.width);
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
    : RandomResizedCrop(size, scale_min, scale_max, ratio_min, ratio_max,
                        Resampling{Interpolation::kBilinear, filter}) {}

RandomResizedCrop::RandomResizedCrop(Size2 size, double scale_min,
                                     double scale_max, double ratio_min,
                                     double ratio_max, Resampling resampling)
    : size_(size),
      scale_min_(scale_min),
      scale_max_(scale_max),
      ratio_min_(ratio_min),
      ratio_max_(ratio_max),
      resampling_(resampling),
      resizer_(MakeResizer(resampling)) {}

std::vector<NamedArg> RandomResizedCrop::args() const {
  return {{"size", SizeArg(size_)},
          {"scale", RangeArg(scale_min_, scale_max_)},
          {"ratio", RangeArg(ratio_min_, ratio_max_)},
          {"interpolation", InterpolationArg(resampling_.interpolation)},
          {"antialias", ArgValue::Bool(true)}};
}

std::unique_ptr<PreprocessOp> RandomResizedCrop::Clone() const {
  return std::make_unique<RandomResizedCrop>(*this);
}

absl::Status RandomResizedCrop::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(
      CheckSide("RandomResizedCrop", "size height", size_.height));
  FUSEDNORM_RETURN_IF_ERROR(
      CheckSide("RandomResizedCrop", "size width", size_.width));
  // A scale of 0 draws an empty crop, tried again (torchvision's too).
  if (!(scale_min_ >= 0 && scale_min_ <= scale_max_ &&
        std::isfinite(scale_max_))) {
    return InvalidArgumentCat("RandomResizedCrop scale = (", scale_min_, ", ",
                              scale_max_, "): must satisfy 0 <= min <= max");
  }
  if (!(ratio_min_ > 0 && ratio_min_ <= ratio_max_ &&
        std::isfinite(ratio_max_))) {
    return InvalidArgumentCat("RandomResizedCrop ratio = (", ratio_min_, ", ",
                              ratio_max_, "): must satisfy 0 < min <= max");
  }
  return PrefixStatus(resizer_.status(), "RandomResizedCrop: ");
}

OpDecision RandomResizedCrop::Decide(Size2 input, SampleStream& stream) const {
  OpDecision d;
  d.window = Window(input.height, input.width, stream);
  return d;
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
  // ratio_max]. A ratio far from the image's may round a side to 0, as in
  // torchvision: an empty crop, whose output is black (CropWindow::empty).
  const double in_ratio = static_cast<double>(width) / height;
  int64_t w = width, h = height;
  if (in_ratio < ratio_min_) {
    h = RoundHalfEven(w / ratio_min_);
  } else if (in_ratio > ratio_max_) {
    w = RoundHalfEven(h * ratio_max_);
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
  const CropWindow& window = *decision.window;
  if (window.empty() && window.Inside({input.height, input.width})) {
    // Pillow resizes an empty image to zeros, alpha included; torchvision's
    // tensor resize refuses it.
    FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
    if (resizer_->filter() == ResizeFilter::kTensor) {
      return InvalidArgumentCat(
          name(), ": the crop drawn is empty (height ", window.height,
          ", width ", window.width,
          "), which torchvision's tensor resize refuses (the Pillow filters "
          "make it black)");
    }
    output->height = size_.height;
    output->width = size_.width;
    output->channels = input.channels;
    output->pixels.assign(
        static_cast<size_t>(size_.height * size_.width * input.channels), 0);
    return absl::OkStatus();
  }
  return resizer_->Resize(input, *decision.window, size_, &ws->resize, output);
}

std::vector<NamedArg> RandomResizedCrop::DecisionFields(
    const OpDecision& d) const {
  const CropWindow w = d.window.value_or(CropWindow{});
  return {{"top", ArgValue::Int(w.top)},
          {"left", ArgValue::Int(w.left)},
          {"height", ArgValue::Int(w.height)},
          {"width", ArgValue::Int(w.width)}};
}

absl::StatusOr<OpDecision> RandomResizedCrop::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 input) const {
  DecisionReader r(*this, fields);
  CropWindow w;
  FUSEDNORM_ASSIGN_OR_RETURN(w.top, r.Int("top"));
  FUSEDNORM_ASSIGN_OR_RETURN(w.left, r.Int("left"));
  FUSEDNORM_ASSIGN_OR_RETURN(w.height, r.Int("height"));
  FUSEDNORM_ASSIGN_OR_RETURN(w.width, r.Int("width"));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  if (!w.empty() || !w.Inside(input)) {
    FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(
        ValidateBox(w, input.height, input.width), "RandomResizedCrop: "));
  }
  OpDecision d;
  d.window = w;
  return d;
}

// ---- flips ----

std::vector<NamedArg> RandomFlip::args() const {
  return {{"p", ArgValue::Float(p_)}};
}

absl::Status RandomFlip::Validate() const {
  return CheckProbability(op_name(), "p", p_);
}

OpDecision RandomFlip::Decide(Size2, SampleStream& stream) const {
  OpDecision d;
  d.apply = stream.Uniform() < p_;
  return d;
}

std::vector<NamedArg> RandomFlip::DecisionFields(const OpDecision& d) const {
  return {{"flip", ArgValue::Bool(d.apply)}};
}

absl::StatusOr<OpDecision> RandomFlip::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_ASSIGN_OR_RETURN(d.apply, r.Bool("flip"));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return d;
}

std::unique_ptr<PreprocessOp> RandomHorizontalFlip::Clone() const {
  return std::make_unique<RandomHorizontalFlip>(*this);
}

namespace {

// out = the `width` pixels of `in` in reverse order; a copy of kC bytes
// per pixel the compiler keeps in registers.
template <int kC>
void Mirror(const uint8_t* in, int64_t width, uint8_t* out) {
  const uint8_t* from = in + (width - 1) * kC;
  for (int64_t x = 0; x < width; ++x, from -= kC) {
    for (int c = 0; c < kC; ++c) out[x * kC + c] = from[c];
  }
}

void MirrorRow(const uint8_t* in, int64_t width, int channels, uint8_t* out) {
  switch (channels) {
    case 1:
      return Mirror<1>(in, width, out);
    case 2:
      return Mirror<2>(in, width, out);
    case 3:
      return Mirror<3>(in, width, out);
    default:
      return Mirror<4>(in, width, out);
  }
}

}  // namespace

absl::Status RandomHorizontalFlip::Apply(const ImageView& input,
                                         const OpDecision& decision,
                                         OpWorkspace*, Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  const int C = input.channels;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(input.height, input.width, C, output));
  for (int64_t y = 0; y < input.height; ++y) {
    const uint8_t* in = input.pixels.data() + y * input.row_stride;
    uint8_t* out = output->pixels.data() + y * input.width * C;
    if (!decision.apply) {
      std::memcpy(out, in, static_cast<size_t>(input.width * C));
      continue;
    }
    MirrorRow(in, input.width, C, out);
  }
  return absl::OkStatus();
}

std::unique_ptr<PreprocessOp> RandomVerticalFlip::Clone() const {
  return std::make_unique<RandomVerticalFlip>(*this);
}

absl::Status RandomVerticalFlip::Apply(const ImageView& input,
                                       const OpDecision& decision, OpWorkspace*,
                                       Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  const int C = input.channels;
  FUSEDNORM_RETURN_IF_ERROR(ShapeImage(input.height, input.width, C, output));
  const size_t row = static_cast<size_t>(input.width * C);
  for (int64_t y = 0; y < input.height; ++y) {
    const int64_t from = decision.apply ? input.height - 1 - y : y;
    std::memcpy(output->pixels.data() + y * row,
                input.pixels.data() + from * input.row_stride, row);
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
