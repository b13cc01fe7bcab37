// JPEG (libjpeg-turbo's TurboJPEG API) and PNG (libpng's simplified API)
// decoding to uint8 HWC images, and encoding for tests and benchmarks. Corrupt
// or truncated data is an InvalidArgument naming `what` (a file name or
// sample), never a crash.
#ifndef FUSEDNORM_CODECS_CODECS_H_
#define FUSEDNORM_CODECS_CODECS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ops/transforms.h"

namespace fusednorm {

// Decodes a JPEG or PNG (recognised by signature) to RGB (3 channels).
absl::StatusOr<Image> DecodeImage(absl::Span<const uint8_t> bytes,
                                  const std::string& what);
// The same into `out`, reusing its storage.
absl::Status DecodeImageInto(absl::Span<const uint8_t> bytes,
                             const std::string& what, Image* out);

// Encodes an RGB (3-channel) image.
absl::StatusOr<std::vector<uint8_t>> EncodeJpeg(const Image& image,
                                                int quality = 90);
absl::StatusOr<std::vector<uint8_t>> EncodePng(const Image& image);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_CODECS_H_
