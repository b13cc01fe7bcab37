// Encoding uint8 RGB images as JPEG (TurboJPEG) and PNG (libpng's simplified
// API): for `pack`'s re-encoded samples, tests and benchmarks. Decoding is
// codecs/codec.h's.
#ifndef FUSEDNORM_CODECS_ENCODE_H_
#define FUSEDNORM_CODECS_ENCODE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/image.h"

namespace fusednorm {

// Encodes an RGB (3-channel) image at `quality` (4:2:0 subsampling).
absl::StatusOr<std::vector<uint8_t>> EncodeJpeg(const Image& image,
                                                int quality = 90);
// Encodes an RGB (3-channel) image losslessly.
absl::StatusOr<std::vector<uint8_t>> EncodePng(const Image& image);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_ENCODE_H_
