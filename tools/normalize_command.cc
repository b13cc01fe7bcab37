// `fusednorm normalize`: reads uint8 images from a .npy of (H,W,C) or
// (N,H,W,C), or from one PNG/JPEG; with --size, resizes each image's
// --resized-crop box (default: the whole image) first, with
// --resize-filter; normalizes each with its own decisions (drawn from the
// stream (seed, 0, n), or given by --flip=0|1 and --erase=I,J,H,W); writes
// all outputs as one .npy.
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codecs/codec.h"
#include "codecs/npy.h"
#include "core/image.h"
#include "core/status.h"
#include "data/npy_writer.h"
#include "data/read_file.h"
#include "ops/fused_normalization.h"
#include "ops/resize.h"
#include "ops/transforms.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/interrupt.h"
#include "tools/options.h"
#include "tools/output_npy.h"

namespace fusednorm {
namespace {

// The input's images, as views of its bytes (a .npy) or of its decoded
// pixels (a PNG or JPEG).
struct Input {
  std::vector<uint8_t> bytes;
  Image decoded;
  std::vector<ImageView> images;
  bool batched = false;  // (N,H,W,C): the output has a leading N as well
};

absl::Status FromNpy(const std::string& path, Input* in) {
  FUSEDNORM_ASSIGN_OR_RETURN(const NpyArray a, ParseNpy(in->bytes, path));
  if (a.descr != "|u1" && a.descr != "<u1" && a.descr != "u1") {
    return InvalidArgumentCat(path, ": dtype ", a.descr, " is not uint8 (|u1)");
  }
  if (a.shape.size() != 3 && a.shape.size() != 4) {
    return InvalidArgumentCat(path, ": needs 3 or 4 dimensions, has ",
                              a.shape.size());
  }
  in->batched = a.shape.size() == 4;
  const int64_t n = in->batched ? a.shape[0] : 1;
  const int64_t* s = &a.shape[in->batched ? 1 : 0];
  if (s[2] > kMaxChannels) {
    return InvalidArgumentCat(path, ": ", s[2], " channels (1..", kMaxChannels,
                              " supported)");
  }
  const size_t each = static_cast<size_t>(s[0] * s[1] * s[2]);
  for (int64_t i = 0; i < n; ++i) {
    in->images.push_back(ImageView{a.data.subspan(i * each, each), s[0], s[1],
                                   static_cast<int>(s[2]), s[1] * s[2]});
  }
  return absl::OkStatus();
}

absl::Status ReadInput(const std::string& path, Input* in) {
  FUSEDNORM_RETURN_IF_ERROR(ReadFileInto(path, &in->bytes, kMaxImageFileBytes));
  if (in->bytes.size() >= 6 &&
      std::memcmp(in->bytes.data(), "\x93NUMPY", 6) == 0)
    return FromNpy(path, in);
  FUSEDNORM_ASSIGN_OR_RETURN(in->decoded, DecodeWhole(in->bytes, path));
  in->images.push_back(in->decoded.view());
  return absl::OkStatus();
}

// The size every image has when it is normalized.
Size2 OutputSize(const NormalizeOptions& o, const ImageView& image) {
  return o.size.value_or(Size2{image.height, image.width});
}

// --resized-crop / --size: image `view`'s box resized into `resized`, or the
// image itself without --size.
absl::StatusOr<ImageView> Resized(const NormalizeOptions& o,
                                  const ImageView& view, Image* resized) {
  if (!o.size) return view;
  const CropWindow box =
      o.resized_crop.value_or(CropWindow{0, 0, view.height, view.width});
  FUSEDNORM_RETURN_IF_ERROR(AsUsageError(
      ValidateBox(box, view.height, view.width), "--resized-crop: "));
  FUSEDNORM_RETURN_IF_ERROR(
      ResizeBox(view, box, *o.size, o.resize_filter, resized));
  return resized->view();
}

void PrintDecisions(FILE* out, size_t n, const Augmentation& aug) {
  std::fprintf(out, "sample %zu: flip=%d erase=", n, aug.flip ? 1 : 0);
  if (aug.erase.empty()) {
    std::fprintf(out, "none\n");
    return;
  }
  std::fprintf(out, "%lld,%lld,%lld,%lld\n",
               static_cast<long long>(aug.erase.top),
               static_cast<long long>(aug.erase.left),
               static_cast<long long>(aug.erase.height),
               static_cast<long long>(aug.erase.width));
}

// Normalizes image n into *result.
absl::Status NormalizeOne(const FusedNormalization& op,
                          const NormalizeOptions& o, const ImageView& image,
                          size_t n, std::vector<uint8_t>* result, FILE* out) {
  SampleStream stream(o.seed, 0, n);
  Augmentation aug = op.Sample(image.height, image.width, stream);
  if (o.flip) aug.flip = *o.flip;
  if (o.erase) {
    aug.erase = *o.erase;
    FUSEDNORM_RETURN_IF_ERROR(AsUsageError(
        CheckEraseRect(aug.erase, image.height, image.width), "--erase: "));
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      const size_t size,
      op.OutputBytes(image.height, image.width, image.channels));
  try {
    result->resize(size);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", size, " bytes for the output of image ", n));
  }
  FUSEDNORM_RETURN_IF_ERROR(
      op.Apply(image, aug, OutputView{absl::MakeSpan(*result)}));
  if (o.print_decisions) PrintDecisions(out, n, aug);
  return absl::OkStatus();
}

}  // namespace

absl::Status NormalizeCommand(const SettingValues& flags, FILE* out,
                              FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const NormalizeOptions o,
                             NormalizeOptionsFromFlags(flags));
  // Ctrl-C stops after the image: the partial output is removed.
  const Interruptible interruptible;
  // Every option comes from a flag: an op that cannot be made is a usage
  // error.
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(o.op);
  if (!op.ok()) return AsUsageError(op.status());
  Input in;
  try {
    FUSEDNORM_RETURN_IF_ERROR(ReadInput(o.input, &in));
  } catch (const std::bad_alloc&) {  // a decoded image too large
    return absl::ResourceExhaustedError(
        absl::StrCat(o.input, ": out of memory while reading it"));
  }
  const ImageView& first = in.images[0];
  FUSEDNORM_ASSIGN_OR_RETURN(
      NpyWriter writer,
      OutputNpy(o.output, *op, OutputSize(o, first), first.channels,
                in.batched ? std::optional<int64_t>(in.images.size())
                           : std::nullopt));
  // One image at a time: memory holds the input and one output.
  Image resized;
  std::vector<uint8_t> result;
  for (size_t n = 0; n < in.images.size(); ++n) {
    FUSEDNORM_ASSIGN_OR_RETURN(const ImageView image,
                               Resized(o, in.images[n], &resized));
    FUSEDNORM_RETURN_IF_ERROR(NormalizeOne(*op, o, image, n, &result, out));
    FUSEDNORM_RETURN_IF_ERROR(writer.Write(result));
    if (Interruptible::interrupted()) return Interruptible::Status();
  }
  return writer.Commit();
}

}  // namespace fusednorm
