// Restart-segment cutting: the byte work that lets a region of a JPEG with
// restart markers be decoded without entropy-decoding the rest of the file.
//
// In a baseline (or extended sequential) Huffman JPEG with one scan over all
// components and a restart interval (DRI), the entropy-coded data is a run of
// segments of `interval` MCUs each, separated by RST0..RST7 markers; the DC
// predictors restart at each one, so a segment decodes on its own. The
// segments under a region (plus a margin for the chroma upsampling) are
// spliced with the file's own tables into a smaller valid JPEG: the MCU rows
// and columns they cover, the SOF's size changed to theirs, the RST markers
// renumbered. Decoding that JPEG gives the original's pixels, except within
// a pixel or two of an edge the cut made (where upsampling would have seen
// the cut-off neighbours): hence the margin. Where the cut is the image's
// own edge, the small image's edge is that edge, partial MCUs included.
//
// Anything unusual (no DRI, progressive, arithmetic, several scans, fill
// bytes or junk between header markers, restart markers missing, extra or
// out of sequence, a truncated file) gives nullopt or false, and the caller
// decodes the original instead. Nothing here reads
// outside the given bytes or calls libjpeg.
#ifndef FUSEDNORM_CODECS_JPEG_SEGMENTS_H_
#define FUSEDNORM_CODECS_JPEG_SEGMENTS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "core/image.h"

namespace fusednorm {

// What the header of a restart-segmented JPEG says about its scan.
struct RestartLayout {
  int64_t height = 0, width = 0;          // pixels (SOF)
  int64_t mcu_height = 0, mcu_width = 0;  // pixels an MCU covers
  int64_t mcus_per_row = 0, mcu_rows = 0;
  int64_t interval = 0;  // MCUs per restart interval (DRI), >= 1
  size_t scan = 0;       // offset of the scan's first entropy-coded byte
};

// Reads the markers of `bytes` from SOI to the first SOS. nullopt unless the
// file is an 8-bit baseline or extended sequential Huffman JPEG whose first
// scan holds every component, with integral sampling ratios and a non-zero
// restart interval, and the header is a plain sequence of marker segments.
std::optional<RestartLayout> ReadRestartLayout(absl::Span<const uint8_t> bytes);

// The MCUs a spliced JPEG keeps: rows [row0, row1), columns [col0, col1).
struct SegmentCut {
  int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
  CropWindow pixels;  // what they cover, in the original's pixels
};

// The smallest cut made of whole restart segments that covers `box` widened
// by `margin` pixels on each side (within the image): whole MCU rows, from a
// row where a segment starts, and also only some columns where the interval
// divides the MCU row. nullopt when that is the whole image. `box` must lie
// inside the image.
std::optional<SegmentCut> PlanSegmentCut(const RestartLayout& layout,
                                         const CropWindow& box, int64_t margin);

// Buffers SpliceSegments reuses from call to call.
struct SegmentScratch {
  std::vector<uint8_t> jpeg;  // the spliced JPEG
  // [begin, end) offsets of the entropy-coded bytes of each segment from the
  // first one the cut needs.
  std::vector<std::pair<size_t, size_t>> spans;
};

// Writes the JPEG of `cut` of `bytes` (whose layout ReadRestartLayout gave)
// into scratch->jpeg. False when the scan's markers are not as the layout
// says: a restart marker missing, out of sequence or extra, another marker
// in the scan, or no EOI after the image's last segment (a truncated file).
// The segments are found by scanning all of the scan for 0xFF bytes.
bool SpliceSegments(absl::Span<const uint8_t> bytes,
                    const RestartLayout& layout, const SegmentCut& cut,
                    SegmentScratch* scratch);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_JPEG_SEGMENTS_H_
