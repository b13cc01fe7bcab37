// The codec registry (codec.h): one row per format, each row's decode an
// adapter onto its library's decoder.
#include "codecs/codec.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codecs/jpeg.h"
#include "codecs/npy.h"
#include "codecs/png.h"
#include "core/status.h"

namespace fusednorm {
namespace {

bool SniffJpeg(absl::Span<const uint8_t> b) {
  return b.size() >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff;
}

bool SniffPng(absl::Span<const uint8_t> b) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  return b.size() >= 8 && std::memcmp(b.data(), kPng, 8) == 0;
}

bool SniffNpy(absl::Span<const uint8_t> b) {
  return b.size() >= 6 && std::memcmp(b.data(), "\x93NUMPY", 6) == 0;
}

// Pixels times 3 channels: what a decode to RGB holds.
int64_t RgbBytes(int64_t height, int64_t width) { return height * width * 3; }

// A JPEG's decode holds the request's region (all of the image without one)
// at its scale, widened by the decoder's margins (an estimate from above).
int64_t JpegBytes(Size2 size, const DecodeRequest& r) {
  const int s = std::max(r.scale, 1);
  const Size2 scaled{(size.height + s - 1) / s, (size.width + s - 1) / s};
  if (!r.region) return RgbBytes(scaled.height, scaled.width);
  const CropWindow box = ScaleBox(*r.region, s, scaled);
  constexpr int64_t kWiden = 32;  // margins and iMCU columns, both sides
  return RgbBytes(std::min(scaled.height, box.height + 2 * kWiden),
                  std::min(scaled.width, box.width + 2 * kWiden));
}

int64_t PngBytes(Size2 size, const DecodeRequest&) {
  return RgbBytes(size.height, size.width);
}

int64_t NpyBytes(Size2, const DecodeRequest&) { return 0; }

// Sets out's view to all of its storage.
void ViewAll(DecodedImage* out) {
  out->view = out->storage.view();
  out->top = out->left = 0;
  out->scale = 1;
  out->size = Size2{out->storage.height, out->storage.width};
}

absl::Status DecodeJpegRow(absl::Span<const uint8_t> bytes,
                           const std::string& what, ChooseDecode choose,
                           DecodedImage* out) {
  // The storage and scratch are moved in and back out: no copy, no
  // allocation once grown.
  DecodedRegion region;
  region.image = std::move(out->storage);
  region.scratch = std::move(out->jpeg);
  const absl::Status s = DecodeJpegInto(
      bytes, what,
      [&](Size2 size) {
        const DecodeRequest r = choose({size, region.coefficient_bytes});
        JpegRequest j{r.region, r.scale};
        j.cancel = r.cancel;
        return j;
      },
      &region);
  out->storage = std::move(region.image);
  out->jpeg = std::move(region.scratch);
  if (!s.ok()) return s;
  out->view = out->storage.view();
  out->top = region.top;
  out->left = region.left;
  out->scale = region.scale;
  out->size = region.size;
  return absl::OkStatus();
}

absl::Status DecodePngRow(absl::Span<const uint8_t> bytes,
                          const std::string& what, ChooseDecode choose,
                          DecodedImage* out) {
  // All of it is decoded whatever the answer but a cancel.
  FUSEDNORM_RETURN_IF_ERROR(
      DecodePng(bytes, what, &out->storage,
                [&](Size2 size) { return !choose({size}).cancel; }));
  ViewAll(out);
  return absl::OkStatus();
}

// A .npy is shown in place: its pixels are the view.
absl::Status DecodeNpyRow(absl::Span<const uint8_t> bytes,
                          const std::string& what, ChooseDecode choose,
                          DecodedImage* out) {
  FUSEDNORM_ASSIGN_OR_RETURN(const NpyArray a, ParseNpyImage(bytes, what));
  const int c = static_cast<int>(a.shape[2]);
  out->view = ImageView{a.data, a.shape[0], a.shape[1], c, a.shape[1] * c};
  out->top = out->left = 0;
  out->scale = 1;
  out->size = Size2{a.shape[0], a.shape[1]};
  // All of it is shown whatever the answer but a cancel.
  if (choose({out->size}).cancel) return DecodingCancelled(what);
  return absl::OkStatus();
}

}  // namespace

absl::Span<const Codec> Codecs() {
  static const auto* codecs = new std::vector<Codec>{
      {"jpeg", {".jpg", ".jpeg"}, 3, &SniffJpeg, &DecodeJpegRow, &JpegBytes},
      {"png", {".png"}, 3, &SniffPng, &DecodePngRow, &PngBytes},
      {"npy", {".npy"}, 0, &SniffNpy, &DecodeNpyRow, &NpyBytes},
  };
  return *codecs;
}

const Codec* SniffCodec(absl::Span<const uint8_t> bytes) {
  for (const Codec& c : Codecs()) {
    if (c.sniff(bytes)) return &c;
  }
  return nullptr;
}

const Codec* CodecForFile(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (const Codec& c : Codecs()) {
    for (const std::string& ext : c.extensions) {
      if (absl::EndsWith(lower, ext)) return &c;
    }
  }
  return nullptr;
}

const Codec* CodecForExtension(absl::string_view extension) {
  for (const Codec& c : Codecs()) {
    for (const std::string& ext : c.extensions) {
      if (ext.size() == extension.size() + 1 &&
          absl::EndsWith(ext, extension)) {
        return &c;
      }
    }
  }
  return nullptr;
}

std::string KnownExtensions() {
  std::string out;
  for (const Codec& c : Codecs()) {
    for (const std::string& ext : c.extensions)
      absl::StrAppend(&out, out.empty() ? "" : "/", ext);
  }
  return out;
}

absl::Status Decode(absl::Span<const uint8_t> bytes, const std::string& what,
                    ChooseDecode choose, DecodedImage* out) {
  const Codec* codec = SniffCodec(bytes);
  if (codec == nullptr) {
    return InvalidArgumentCat(what, ": neither a JPEG, a PNG nor a .npy (",
                              bytes.size(), " bytes)");
  }
  return codec->decode(bytes, what, choose, out);
}

absl::StatusOr<Image> DecodeWhole(absl::Span<const uint8_t> bytes,
                                  const std::string& what) {
  DecodedImage d;
  FUSEDNORM_RETURN_IF_ERROR(Decode(
      bytes, what, [](const DecodeHeader&) { return DecodeRequest(); }, &d));
  if (d.view.pixels.data() == d.storage.pixels.data()) return d.storage;
  // Read in place: copy the view into an image of its own.
  Image image;
  FUSEDNORM_RETURN_IF_ERROR(
      ShapeImage(d.view.height, d.view.width, d.view.channels, &image));
  std::copy(d.view.pixels.begin(), d.view.pixels.begin() + image.pixels.size(),
            image.pixels.begin());
  return image;
}

}  // namespace fusednorm
