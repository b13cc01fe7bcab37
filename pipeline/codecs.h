// JPEG (jpeg.h) and PNG (png.h) decoding to uint8 HWC RGB images, as
// Pillow's convert("RGB") decodes them; encoding (TurboJPEG, libpng's
// simplified API) for tests and benchmarks. Corrupt or truncated data is an
// InvalidArgument naming `what` (a file name or sample), never a crash.
#ifndef FUSEDNORM_PIPELINE_CODECS_H_
#define FUSEDNORM_PIPELINE_CODECS_H_

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

// Reads a whole file.
absl::StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path);
// The same into `out`, reusing its storage.
absl::Status ReadFileInto(const std::string& path, std::vector<uint8_t>* out);

// Encodes an RGB (3-channel) image.
absl::StatusOr<std::vector<uint8_t>> EncodeJpeg(const Image& image,
                                                int quality = 90);
absl::StatusOr<std::vector<uint8_t>> EncodePng(const Image& image);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_CODECS_H_
