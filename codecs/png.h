// PNG decoding with libpng's progressive reader to the pixels Pillow 9.4's
// Image.open(f).convert("RGB") gives. libpng supplies the unfiltered rows;
// the conversion to RGB is Pillow's, with no colour management:
//   - gAMA, cHRM, sRGB, iCCP and sBIT are ignored (every ancillary chunk is);
//   - 1, 2 and 4-bit gray scales to 0..255 (times 255, 85, 17);
//   - 16-bit samples keep their high byte, except 16-bit gray without alpha,
//     which Pillow opens as 32-bit integers and clips to 0..255;
//   - palette indexes past the end of PLTE read as gray (i, i, i);
//   - alpha and tRNS are dropped, not blended; interlaced (Adam7) files give
//     the same pixels as the others.
// What is accepted: the chunks before the image data must have correct CRCs
// (Pillow checks them too); the image data must give every row, and its IDAT
// chunks up to the one that completes the last row correct CRCs. Pillow
// leaves the rows black when the zlib stream ends early and checks no IDAT
// CRC: both are errors here, as are files that break the format where
// libpng rejects them (no valid PLTE in a palette image, an unknown
// compression or interlace method, a repeated IHDR) though Pillow may decode
// them. Nothing after that last IDAT chunk is read, so a file cut off after
// its last row decodes, as in Pillow. Errors are InvalidArgument naming
// `what`; libpng prints nothing.
#ifndef FUSEDNORM_CODECS_PNG_H_
#define FUSEDNORM_CODECS_PNG_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/image.h"

namespace fusednorm {

// Decodes the PNG `bytes` to RGB (3 channels) into `out`, reusing its
// storage. An image of more than kMaxDecodedPixels pixels, or with more
// image data than the rest of the file can inflate to, is rejected before
// any pixel memory is allocated.
absl::Status DecodePng(absl::Span<const uint8_t> bytes, const std::string& what,
                       Image* out);

// The same, calling `start` with the image's size once the header is read,
// before the pixel memory is allocated: false stops the decode, which
// fails with a Cancelled status naming `what`.
absl::Status DecodePng(absl::Span<const uint8_t> bytes, const std::string& what,
                       Image* out, absl::FunctionRef<bool(Size2)> start);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_PNG_H_
