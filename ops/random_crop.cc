// RandomCrop (random_crop.h): torchvision's two pads undone index by index
// (ops/pad_axis.h), a plain copy where the crop lies inside the image.
#include "ops/random_crop.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/image.h"
#include "core/status.h"
#include "ops/geometry.h"

namespace fusednorm {
namespace {

const char* ModeName(PadMode m) {
  switch (m) {
    case PadMode::kConstant:
      return "constant";
    case PadMode::kEdge:
      return "edge";
    case PadMode::kReflect:
      return "reflect";
    case PadMode::kSymmetric:
      return "symmetric";
  }
  return "";
}

}  // namespace

RandomCrop::RandomCrop(Size2 size, ArgValue padding, Borders borders,
                       bool pad_if_needed, FillArg fill, PadMode mode)
    : size_(size),
      padding_(std::move(padding)),
      borders_(borders),
      pad_if_needed_(pad_if_needed),
      fill_(std::move(fill)),
      mode_(mode),
      numpy1_(Numpy1Padding()) {}

std::vector<NamedArg> RandomCrop::args() const {
  return {{"size", ArgValue::Tuple({ArgValue::Int(size_.height),
                                    ArgValue::Int(size_.width)})},
          {"padding", padding_},
          {"pad_if_needed", ArgValue::Bool(pad_if_needed_)},
          {"fill", fill_.Print()},
          {"padding_mode", ArgValue::Text(ModeName(mode_))}};
}

std::string RandomCrop::PixelName() const {
  const bool differs =
      mode_ == PadMode::kReflect || mode_ == PadMode::kSymmetric;
  return numpy1_ && differs ? name() + " numpy1" : name();
}

std::unique_ptr<PreprocessOp> RandomCrop::Clone() const {
  return std::make_unique<RandomCrop>(*this);
}

absl::Status RandomCrop::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(
      CheckSide("RandomCrop", "size height", size_.height));
  FUSEDNORM_RETURN_IF_ERROR(CheckSide("RandomCrop", "size width", size_.width));
  for (const int64_t b :
       {borders_.left, borders_.top, borders_.right, borders_.bottom}) {
    if (b < 0 || b > kMaxSide) {
      return InvalidArgumentCat(
          "RandomCrop padding = ", FormatArg(padding_),
          ": each value must be in 0..", kMaxSide,
          " (a negative one, which would crop, is not supported)");
    }
  }
  FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(
      ValidateOutputSize(size_.height, size_.width), "RandomCrop size: "));
  return fill_.Validate("RandomCrop");
}

RandomCrop::Pads RandomCrop::PadsFor(Size2 input) const {
  Pads p;
  p.first = borders_;
  p.height = input.height + borders_.top + borders_.bottom;
  p.width = input.width + borders_.left + borders_.right;
  if (pad_if_needed_ && p.width < size_.width) {
    p.second.left = p.second.right = size_.width - p.width;
    p.width += 2 * p.second.left;
  }
  if (pad_if_needed_ && p.height < size_.height) {
    p.second.top = p.second.bottom = size_.height - p.height;
    p.height += 2 * p.second.top;
  }
  return p;
}

absl::StatusOr<Size2> RandomCrop::OutputSize(Size2 input) const {
  const Pads p = PadsFor(input);
  if (p.height < size_.height || p.width < size_.width) {
    return InvalidArgumentCat(
        "RandomCrop: the crop of ", size_.height, "x", size_.width,
        " is larger than the padded image of ", p.height, "x", p.width,
        " (torchvision refuses it too; pad_if_needed=True pads the image)");
  }
  return size_;
}

absl::StatusOr<int> RandomCrop::OutputChannels(int channels) const {
  // torchvision checks the fill where it pads: always with a padding (even
  // 0), with pad_if_needed only for a small image (checked here for all).
  const bool pads = padding_.kind != ArgValue::Kind::kNone || pad_if_needed_;
  if (mode_ == PadMode::kConstant && pads)
    FUSEDNORM_RETURN_IF_ERROR(fill_.CheckChannels("RandomCrop", channels));
  return channels;
}

OpDecision RandomCrop::At(const Pads& p, int64_t top, int64_t left) const {
  OpDecision d;
  d.padded = {p.first.top + p.second.top, p.first.left + p.second.left};
  d.window = CropWindow{top - d.padded[0], left - d.padded[1], size_.height,
                        size_.width};
  return d;
}

OpDecision RandomCrop::Decide(Size2 input, SampleStream& stream) const {
  const Pads p = PadsFor(input);
  if (p.height < size_.height || p.width < size_.width) return {};
  if (p.height == size_.height && p.width == size_.width) return At(p, 0, 0);
  const int64_t top = stream.UniformInt(0, p.height - size_.height);
  const int64_t left = stream.UniformInt(0, p.width - size_.width);
  return At(p, top, left);
}

int64_t RandomCrop::Source(int64_t x, const PadAxis& first,
                           const PadAxis& second, int64_t before1,
                           int64_t before2) const {
  const int64_t q = second.Source(x + before1 + before2);
  return q < 0 ? -1 : first.Source(q);
}

absl::Status RandomCrop::Apply(const ImageView& input,
                               const OpDecision& decision, OpWorkspace*,
                               Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(Validate());
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  if (!decision.window) {
    return InvalidArgumentCat(name(), ": Apply needs the window Decide drew");
  }
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  const CropWindow& w = *decision.window;
  if (w.Inside({input.height, input.width}))
    return Crop(input, w.top, w.left, w.height, w.width, output);
  return CopyPadded(input, w, output);
}

absl::Status RandomCrop::CopyPadded(const ImageView& input, const CropWindow& w,
                                    Image* output) const {
  const int C = input.channels;
  FUSEDNORM_RETURN_IF_ERROR(AllocateImage(w.height, w.width, C, output));
  const Pads p = PadsFor({input.height, input.width});
  const PadAxis row1(input.height, p.first.top, p.first.bottom, mode_, numpy1_);
  const PadAxis row2(input.height + p.first.top + p.first.bottom, p.second.top,
                     p.second.bottom, mode_, numpy1_);
  const PadAxis col1(input.width, p.first.left, p.first.right, mode_, numpy1_);
  const PadAxis col2(input.width + p.first.left + p.first.right, p.second.left,
                     p.second.right, mode_, numpy1_);
  std::vector<int64_t> columns(w.width);
  for (int64_t x = 0; x < w.width; ++x)
    columns[x] = Source(w.left + x, col1, col2, p.first.left, p.second.left);
  const FillColor fill = fill_.Color();
  for (int64_t y = 0; y < w.height; ++y) {
    const int64_t sy = Source(w.top + y, row1, row2, p.first.top, p.second.top);
    uint8_t* out = &output->pixels[y * w.width * C];
    for (int64_t x = 0; x < w.width; ++x, out += C) {
      if (sy < 0 || columns[x] < 0) {
        for (int c = 0; c < C; ++c) out[c] = fill.channel(c);
      } else {
        std::memcpy(out, &input.pixels[sy * input.row_stride + columns[x] * C],
                    C);
      }
    }
  }
  return absl::OkStatus();
}

std::vector<NamedArg> RandomCrop::DecisionFields(const OpDecision& d) const {
  const CropWindow w = d.window.value_or(CropWindow{});
  return {{"top", ArgValue::Int(w.top + d.padded[0])},
          {"left", ArgValue::Int(w.left + d.padded[1])},
          {"height", ArgValue::Int(w.height)},
          {"width", ArgValue::Int(w.width)}};
}

absl::StatusOr<OpDecision> RandomCrop::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 input) const {
  DecisionReader r(*this, fields);
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t top, r.Int("top"));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t left, r.Int("left"));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t height, r.Int("height"));
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t width, r.Int("width"));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  FUSEDNORM_RETURN_IF_ERROR(OutputSize(input).status());
  if (height != size_.height || width != size_.width) {
    return InvalidArgumentCat("RandomCrop decision height, width = ", height,
                              ", ", width, ": the op crops ", size_.height, "x",
                              size_.width);
  }
  const Pads p = PadsFor(input);
  if (top < 0 || top > p.height - height || left < 0 ||
      left > p.width - width) {
    return InvalidArgumentCat("RandomCrop decision top, left = ", top, ", ",
                              left, ": the crop leaves the padded image of ",
                              p.height, "x", p.width);
  }
  return At(p, top, left);
}

}  // namespace fusednorm
