// Lossless JPEG transcoding for `fusednorm pack`: restart markers added so
// that the loader decodes only a crop's segments (jpeg_segments.h).
//
// The DCT coefficients are copied, not re-quantized (libjpeg's
// jpeg_read_coefficients, jpeg_copy_critical_parameters and
// jpeg_write_coefficients, as `jpegtran -restart` does), and written as one
// baseline Huffman scan with optimized tables: progressive and
// arithmetic-coded files too. Decoding the output gives exactly the input's
// pixels. The colour-space markers (JFIF, Adobe) are written where the input
// has them and every other APPn and COM marker is copied.
//
// A file that cannot be copied so is an InvalidArgument naming `what`: one
// libjpeg cannot read (a truncated file included, as jpeg.h treats it), and
// a progressive file whose scans leave low-frequency coefficients unrefined
// (libjpeg's decoder smooths those blocks; a baseline copy would not).
#ifndef FUSEDNORM_CODECS_JPEG_TRANSCODE_H_
#define FUSEDNORM_CODECS_JPEG_TRANSCODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace fusednorm {

// Where restart markers go.
struct RestartSpacing {
  // One restart interval per MCU row.
  bool rows = false;
  // Otherwise an interval of at most `mcus` MCUs: the largest divisor of the
  // image's MCUs per row not above it, so that the loader can cut rows into
  // columns as well; 0: no restart markers (benchmarks compare).
  int64_t mcus = 0;
};

// The restart interval (MCUs) `spacing` gives for `mcus_per_row`.
int64_t RestartInterval(const RestartSpacing& spacing, int64_t mcus_per_row);

// `jpeg` rewritten losslessly with restart markers spaced as `spacing` says.
absl::StatusOr<std::vector<uint8_t>> AddRestartMarkers(
    absl::Span<const uint8_t> jpeg, const std::string& what,
    const RestartSpacing& spacing);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_JPEG_TRANSCODE_H_
