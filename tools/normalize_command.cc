// `fusednorm normalize`: reads uint8 images from a .npy of (H,W,C) or
// (N,H,W,C), or from one PNG/JPEG; with --size, resizes each image's
// --resized-crop box (default: the whole image) first, with
// --resize-filter; normalizes each with its own decisions (drawn from the
// stream (seed, 0, n), or given by --flip=0|1 and --erase=I,J,H,W); writes
// all outputs as one .npy.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codecs/codec.h"
#include "core/image.h"
#include "core/status.h"
#include "data/npy_writer.h"
#include "data/read_file.h"
#include "ops/fused_normalization.h"
#include "ops/resize.h"
#include "ops/transforms.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/options.h"
#include "tools/output_npy.h"

namespace fusednorm {
namespace {

struct Input {
  std::vector<Image> images;
  bool batched = false;  // (N,H,W,C): the output has a leading N as well
};

absl::StatusOr<Input> FromNpy(absl::Span<const uint8_t> bytes,
                              const std::string& path) {
  FUSEDNORM_ASSIGN_OR_RETURN(const NpyArray a, ParseNpy(bytes, path));
  if (a.descr != "|u1" && a.descr != "<u1" && a.descr != "u1") {
    return InvalidArgumentCat(path, ": dtype ", a.descr, " is not uint8 (|u1)");
  }
  if (a.shape.size() != 3 && a.shape.size() != 4) {
    return InvalidArgumentCat(path, ": needs 3 or 4 dimensions, has ",
                              a.shape.size());
  }
  Input in;
  in.batched = a.shape.size() == 4;
  const int64_t n = in.batched ? a.shape[0] : 1;
  const int64_t* s = &a.shape[in.batched ? 1 : 0];
  if (s[2] > kMaxChannels) {
    return InvalidArgumentCat(path, ": ", s[2], " channels (1..", kMaxChannels,
                              " supported)");
  }
  const size_t each = static_cast<size_t>(s[0] * s[1] * s[2]);
  for (int64_t i = 0; i < n; ++i) {
    in.images.push_back(
        Image{s[0], s[1], static_cast<int>(s[2]),
              std::vector<uint8_t>(a.data.begin() + i * each,
                                   a.data.begin() + (i + 1) * each)});
  }
  return in;
}

absl::StatusOr<Input> ReadInput(const std::string& path) {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes,
                             ReadFileBytes(path));
  if (bytes.size() >= 6 && std::memcmp(bytes.data(), "\x93NUMPY", 6) == 0)
    return FromNpy(bytes, path);
  Input in;
  FUSEDNORM_ASSIGN_OR_RETURN(Image image, DecodeWhole(bytes, path));
  in.images.push_back(std::move(image));
  return in;
}

// --resized-crop / --size: replaces each image by its resized box.
absl::Status ResizeInputs(const NormalizeOptions& o, Input* in) {
  if (!o.size) return absl::OkStatus();
  for (Image& image : in->images) {
    const CropWindow box =
        o.resized_crop.value_or(CropWindow{0, 0, image.height, image.width});
    FUSEDNORM_RETURN_IF_ERROR(AsUsageError(
        ValidateBox(box, image.height, image.width), "--resized-crop: "));
    Image resized;
    FUSEDNORM_RETURN_IF_ERROR(
        ResizeBox(image.view(), box, *o.size, o.resize_filter, &resized));
    image = std::move(resized);
  }
  return absl::OkStatus();
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
                          const NormalizeOptions& o, const Image& image,
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
  result->resize(size);
  FUSEDNORM_RETURN_IF_ERROR(
      op.Apply(image.view(), aug, OutputView{absl::MakeSpan(*result)}));
  if (o.print_decisions) PrintDecisions(out, n, aug);
  return absl::OkStatus();
}

}  // namespace

absl::Status NormalizeCommand(const SettingValues& flags, FILE* out,
                              FILE* err) {
  FUSEDNORM_ASSIGN_OR_RETURN(const NormalizeOptions o,
                             NormalizeOptionsFromFlags(flags));
  // Every option comes from a flag: an op that cannot be made is a usage
  // error.
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(o.op);
  if (!op.ok()) return AsUsageError(op.status());
  FUSEDNORM_ASSIGN_OR_RETURN(Input in, ReadInput(o.input));
  FUSEDNORM_RETURN_IF_ERROR(ResizeInputs(o, &in));
  std::vector<std::vector<uint8_t>> results(in.images.size());
  for (size_t n = 0; n < in.images.size(); ++n) {
    FUSEDNORM_RETURN_IF_ERROR(
        NormalizeOne(*op, o, in.images[n], n, &results[n], out));
  }
  const Image& first = in.images[0];
  return WriteOutputNpy(
      o.output, *op, Size2{first.height, first.width}, first.channels,
      in.batched ? std::optional<int64_t>(in.images.size()) : std::nullopt,
      std::vector<absl::Span<const uint8_t>>(results.begin(), results.end()));
}

}  // namespace fusednorm
