// DecodePng's contract beyond the pixels (png_pil_test.py compares those with
// Pillow): it reuses the output's storage, rejects oversized images before
// allocating, and turns every truncation and corruption of a file into an
// InvalidArgument naming the file (run under ASan in CI), never a crash.
#include "codecs/png.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "codecs/encode.h"
#include "gtest/gtest.h"

namespace fusednorm {
namespace {

Image Noise(int64_t h, int64_t w, uint32_t seed) {
  Image img{h, w, 3, std::vector<uint8_t>(h * w * 3)};
  std::mt19937 rng(seed);
  for (uint8_t& v : img.pixels) v = static_cast<uint8_t>(rng());
  return img;
}

// The PNG CRC (ISO 3309), bit by bit.
uint32_t Crc32(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

void PutBe32(uint32_t v, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

TEST(Png, DecodesIntoTheOutputsStorage) {
  const Image original = Noise(13, 17, 1);
  const std::vector<uint8_t> png = *EncodePng(original);
  Image out;
  out.pixels.assign(2 * original.pixels.size(), 0xEE);
  const uint8_t* storage = out.pixels.data();
  ASSERT_TRUE(DecodePng(png, "a.png", &out).ok());
  EXPECT_EQ(out.pixels.data(), storage);
  EXPECT_EQ(out.height, 13);
  EXPECT_EQ(out.width, 17);
  EXPECT_EQ(out.channels, 3);
  EXPECT_EQ(out.pixels, original.pixels);
}

// The file with its IHDR saying `width` x `height`.
std::vector<uint8_t> Resized(std::vector<uint8_t> png, uint32_t width,
                             uint32_t height) {
  // IHDR: length 8..11, type 12..15, width 16..19, height 20..23, CRC 29..32.
  PutBe32(width, &png[16]);
  PutBe32(height, &png[20]);
  PutBe32(Crc32(&png[12], 17), &png[29]);
  return png;
}

void ExpectRejectedUnallocated(const std::vector<uint8_t>& png,
                               const std::string& message) {
  Image out;
  const absl::Status s = DecodePng(png, "big.png", &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(message), std::string::npos) << s;
  EXPECT_EQ(out.pixels.capacity(), 0u);
}

TEST(Png, RejectsTooManyPixelsBeforeAllocating) {
  const std::vector<uint8_t> png = *EncodePng(Noise(4, 4, 2));
  ExpectRejectedUnallocated(Resized(png, 65536, 8192),  // 2^29 pixels
                            "big.png: PNG size 65536x8192 is not supported");
  ExpectRejectedUnallocated(Resized(png, 1 << 28, 2),
                            "big.png: PNG size 268435456x2 is not supported");
  ExpectRejectedUnallocated(Resized(png, 0x7fffffff, 1),
                            "big.png: PNG size 2147483647x1 is not supported");
  ExpectRejectedUnallocated(Resized(png, 1, (1 << 28) + 1),
                            "big.png: PNG size 1x268435457 is not supported");
  // Pillow's decompression-bomb limit, 178956970 pixels: one more is
  // refused for its size, that many for its bytes (4x4 pixels' worth).
  ExpectRejectedUnallocated(
      Resized(png, 178956971, 1),
      "big.png: PNG size 178956971x1 is not supported (more than the "
      "178956970 pixels Pillow decodes: a decompression bomb)");
  ExpectRejectedUnallocated(Resized(png, 178956970, 1),
                            "big.png: corrupt or truncated PNG: 178956970x1 "
                            "pixels cannot be in the ");
}

TEST(Png, RejectsMoreImageDataThanTheFileCanHoldBeforeAllocating) {
  // 36 MB of RGB in a file of ~100 bytes: deflate cannot make that much.
  ExpectRejectedUnallocated(Resized(*EncodePng(Noise(4, 4, 2)), 4000, 3000),
                            "4000x3000 pixels cannot be in the");
}

void ExpectDecodesOrNamesTheFile(const std::vector<uint8_t>& bytes) {
  Image out;
  const absl::Status s = DecodePng(bytes, "damaged.png", &out);
  if (s.ok()) {
    EXPECT_EQ(out.pixels.size(),
              static_cast<size_t>(out.height * out.width * 3));
    return;
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(s.message().rfind("damaged.png: ", 0), 0u) << s;
}

TEST(Png, EveryTruncationIsAnErrorOrTheImage) {
  const std::vector<uint8_t> png = *EncodePng(Noise(9, 7, 3));
  for (size_t n = 0; n < png.size(); ++n) {
    SCOPED_TRACE(n);
    ExpectDecodesOrNamesTheFile(
        std::vector<uint8_t>(png.begin(), png.begin() + n));
  }
}

TEST(Png, CorruptedBytesAreAnErrorOrAnImage) {
  const std::vector<uint8_t> png = *EncodePng(Noise(9, 7, 4));
  std::mt19937 rng(5);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bad = png;
    for (int k = 1 + rng() % 4; k > 0; --k) {
      bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    }
    // Half the time with the CRCs made right again, so that the damage
    // reaches the chunk parsers and zlib.
    if (i % 2 == 0) {
      for (size_t pos = 8; pos + 12 <= bad.size();) {
        const uint32_t len = uint32_t{bad[pos]} << 24 | bad[pos + 1] << 16 |
                             bad[pos + 2] << 8 | bad[pos + 3];
        if (len > bad.size() - pos - 12) break;
        PutBe32(Crc32(&bad[pos + 4], len + 4), &bad[pos + 8 + len]);
        pos += 12 + len;
      }
    }
    SCOPED_TRACE(i);
    ExpectDecodesOrNamesTheFile(bad);
  }
}

}  // namespace
}  // namespace fusednorm
