// The image codecs as one registry: JPEG, PNG and .npy (a uint8 (H, W, C)
// array, read in place), recognised by their bytes' signatures, each
// decoding to uint8 HWC pixels (JPEG and PNG: PIL's convert("RGB")). Every
// reader of encoded images -- folders, shards, `pack`, `normalize` --
// decodes through Decode(), so a codec added here is read everywhere.
//
// Decoding asks `choose` what to decode, exactly once, with the image's
// size (after reading the header, before allocating or decoding any
// pixel): a region of it (nullopt: all), and a DCT scale 1/2, 1/4 or 1/8
// where the codec supports one (JPEG); or to decode nothing. A codec may decode more than
// the region (PNG and .npy decode or show all of it); the pixels inside the
// region are always the full decode's. Corrupt or truncated data is an
// InvalidArgument naming `what` (a file or a sample), never a crash.
#ifndef FUSEDNORM_CODECS_CODEC_H_
#define FUSEDNORM_CODECS_CODEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "codecs/jpeg.h"
#include "core/image.h"

namespace fusednorm {

// What to decode, chosen once the header is read.
struct DecodeRequest {
  std::optional<CropWindow> region;  // in the image's own coordinates
  int scale = 1;                     // 1, 2, 4 or 8 (JPEG only)
  // Decode nothing: the decode fails with a Cancelled status.
  bool cancel = false;
};

// A decoded image or part of one: `view` holds the (scaled) image's pixels
// from row `top`, column `left` on. They lie in `storage`, or, for a
// format read in place (.npy), in the encoded bytes.
struct DecodedImage {
  ImageView view;
  Image storage;     // reused from decode to decode
  JpegScratch jpeg;  // likewise, the JPEG decoder's buffers
  int64_t top = 0, left = 0;
  int scale = 1;
  Size2 size;  // the whole image's size at that scale
};

// What a header tells `choose`: the image's size, and the bytes the decoder
// holds whatever is chosen (a JPEG of several scans keeps every DCT
// coefficient of the image, 2 bytes a sample; 0 for the others).
struct DecodeHeader {
  Size2 size;
  int64_t decoder_bytes = 0;
};

using ChooseDecode = absl::FunctionRef<DecodeRequest(const DecodeHeader&)>;

struct Codec {
  const char* name;  // "jpeg", "png", "npy"
  // File name extensions (lower case, with the dot).
  std::vector<std::string> extensions;
  // Channels every image decodes to (3: RGB), or 0 when the file says.
  int channels;
  // Whether `bytes` start with this format's signature.
  bool (*sniff)(absl::Span<const uint8_t> bytes);
  // Decodes `bytes` into *out (reusing its storage).
  absl::Status (*decode)(absl::Span<const uint8_t> bytes,
                         const std::string& what, ChooseDecode choose,
                         DecodedImage* out);
  // The pixel bytes that decoding the request holds, at most (0: read in
  // place), from an image of `size` (DecodeHeader::decoder_bytes aside).
  int64_t (*decoded_bytes)(Size2 size, const DecodeRequest& request);
};

// Every codec, in sniffing order.
absl::Span<const Codec> Codecs();

// The codec whose signature `bytes` carry, or nullptr.
const Codec* SniffCodec(absl::Span<const uint8_t> bytes);

// The codec of a file name by its extension (case-insensitive), or nullptr.
const Codec* CodecForFile(absl::string_view name);

// The codec whose extension is exactly `extension` (lower case, no dot:
// "jpg"), or nullptr.
const Codec* CodecForExtension(absl::string_view extension);

// Every codec's extensions, for messages: ".jpg/.jpeg/.png/.npy".
std::string KnownExtensions();

// Decodes `bytes` with the codec its signature names; InvalidArgument
// naming `what` when no codec knows it.
absl::Status Decode(absl::Span<const uint8_t> bytes, const std::string& what,
                    ChooseDecode choose, DecodedImage* out);

// Decodes all of `bytes` into a compact image of its own.
absl::StatusOr<Image> DecodeWhole(absl::Span<const uint8_t> bytes,
                                  const std::string& what);

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_CODEC_H_
