// JPEG decoding with libjpeg-turbo's libjpeg API, giving the pixels PIL's
// Image.open(f).convert("RGB") gives (the same library and settings: ISLOW
// DCT, fancy upsampling; gray expanded to RGB; CMYK and YCCK converted as
// PIL converts its "CMYK;I" data), optionally only over a region of the
// image. Errors are InvalidArgument naming `what`. Warnings libjpeg recovers
// from are accepted, as PIL accepts them, except a premature end of data
// (PIL reports a truncated file).
#ifndef FUSEDNORM_PIPELINE_JPEG_H_
#define FUSEDNORM_PIPELINE_JPEG_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/image.h"

namespace fusednorm {

// Largest image (pixels) the decoders accept.
inline constexpr int64_t kMaxDecodedPixels = int64_t{1} << 28;

// A decoded part of an image: `image` holds the full image's pixels from
// row `top`, column `left` on.
struct DecodedRegion {
  Image image;
  int64_t top = 0, left = 0;
};

// Decodes the whole image, or, with `region`, a part of it that contains
// `region`: widened to libjpeg's iMCU columns and by a margin that keeps the
// upsampling context, so that every pixel inside `region` equals the full
// decode's (those of the margin may not). The region must lie inside the
// image.
absl::StatusOr<DecodedRegion> DecodeJpeg(absl::Span<const uint8_t> bytes,
                                         const std::string& what,
                                         std::optional<CropWindow> region = {});

// The same into `out`, reusing its storage, with the region chosen once the
// header is read: `region` gets the image's size and returns the region
// (nullopt: the whole image). The header is parsed once.
absl::Status DecodeJpegInto(
    absl::Span<const uint8_t> bytes, const std::string& what,
    absl::FunctionRef<std::optional<CropWindow>(Size2)> region,
    DecodedRegion* out);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_JPEG_H_
