// JPEG decoding with libjpeg-turbo's libjpeg API, giving the pixels PIL's
// Image.open(f).convert("RGB") gives (the same library and settings: ISLOW
// DCT, fancy upsampling; gray expanded to RGB; CMYK and YCCK converted as
// PIL converts its "CMYK;I" data), optionally only over a region of the
// image. Errors are InvalidArgument naming `what`. Warnings libjpeg recovers
// from are accepted, as PIL accepts them, except a premature end of data
// (PIL reports a truncated file).
//
// A region of a file with restart markers (jpeg_segments.h) is decoded from
// only the entropy-coded segments under it, spliced into a smaller JPEG: the
// same pixels inside the region, without Huffman-decoding the rest. Files the
// splice does not apply to take the window decode.
#ifndef FUSEDNORM_CODECS_JPEG_H_
#define FUSEDNORM_CODECS_JPEG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "codecs/jpeg_segments.h"
#include "core/image.h"

namespace fusednorm {

// Largest image (pixels) the decoders accept: Pillow's, which refuses more
// than twice Image.MAX_IMAGE_PIXELS as a decompression bomb (so torchvision
// on PIL images cannot read such a file either). A few hundred bytes of
// JPEG may declare that many pixels.
inline constexpr int64_t kMaxDecodedPixels = 2 * int64_t{89478485};
// Why, for messages: " (more than the ... pixels Pillow decodes)".
std::string TooManyPixels();

// What the JPEG decoder reuses from call to call: the spliced restart
// segments and the gray/CMYK row buffer. It lives outside the decoder's
// frame, which a libjpeg error leaves by longjmp.
struct JpegScratch {
  SegmentScratch segments;
  std::vector<uint8_t> row;
};

// A decoded part of an image: `image` holds the (scaled) image's pixels from
// row `top`, column `left` on.
struct DecodedRegion {
  Image image;
  int64_t top = 0, left = 0;
  int scale = 1;  // decoded at 1/scale of the image's size
  Size2 size;     // the whole image's size at that scale
  // Whether only the restart segments under the region were decoded.
  bool from_segments = false;
  // Set once the header is read, before `choose` is asked: what libjpeg
  // keeps for a file of several scans (progressive, or components in scans
  // of their own), every DCT coefficient of the image whatever region or
  // scale is decoded; 0 for one scan.
  int64_t coefficient_bytes = 0;
  // The decoder's buffers: move a caller's in and out to reuse them.
  JpegScratch scratch;
};

// What to decode, chosen once the header is read: a region in the image's
// own coordinates (nullopt: all of it), and a DCT scaling 1/scale with
// scale 1, 2, 4 or 8 (libjpeg's reduced-size decoding: other pixels than a
// full decode's, smaller and faster).
struct JpegRequest {
  std::optional<CropWindow> region;
  int scale = 1;
  // Whether a region may be decoded from its restart segments only (false:
  // always the window decode; benchmarks compare the two).
  bool restart_segments = true;
  // Decode nothing: the decode fails with a Cancelled status.
  bool cancel = false;
};

// The status of a decode told to decode nothing (JpegRequest::cancel, and
// the same for every codec): Cancelled, naming `what`.
absl::Status DecodingCancelled(const std::string& what);

// `box` of an image in the image decoded at 1/scale (`scaled` is that
// image's size): the scaled pixels that cover it.
CropWindow ScaleBox(const CropWindow& box, int scale, Size2 scaled);

// Decodes the whole image, or, with `region`, a part of it that contains
// `region`: widened to libjpeg's iMCU columns and by a margin that keeps the
// upsampling context, so that every pixel inside `region` equals the full
// decode's (those of the margin may not). The region must lie inside the
// image.
absl::StatusOr<DecodedRegion> DecodeJpeg(absl::Span<const uint8_t> bytes,
                                         const std::string& what,
                                         std::optional<CropWindow> region = {});

// The same into `out`, reusing its storage, with the request chosen once the
// header is read: `choose` gets the image's size. With a scale, the region
// (scaled by ScaleBox) is exact with respect to the full decode at that
// scale. The header is parsed once.
absl::Status DecodeJpegInto(absl::Span<const uint8_t> bytes,
                            const std::string& what,
                            absl::FunctionRef<JpegRequest(Size2)> choose,
                            DecodedRegion* out);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_JPEG_H_
