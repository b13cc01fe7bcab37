// PNG decoding through libpng's progressive reader (png.h). libpng reports a
// fatal error by calling ErrorFn, which longjmps back to ReadPng, the one
// function that sets the jump; DecodePng makes the status. The file is pushed
// to libpng a chunk at a time: the pixel memory is allocated between the
// header and the first row (once the caller, told the size, agrees), outside
// libpng's frames, and reading stops after the chunk that completes the last
// row. The rows arrive unfiltered (samples below 8 bits unpacked to a byte
// each, nothing else transformed) and are converted to RGB here, as Pillow
// converts them.
#include "codecs/png.h"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "codecs/jpeg.h"

namespace fusednorm {
namespace {

// How a row from libpng becomes RGB.
enum class RowKind {
  kGray,        // gray (+ alpha): a pixel's first byte times gray_scale
  kGray16Clip,  // 16-bit gray: min(value, 255)
  kColor,       // RGB (+ alpha): the first byte of each colour sample
  kPalette,     // an index into `palette`
};

// The reader's state, shared with the callbacks. Plain data: a libpng error
// longjmps past every frame between the failing call and ReadPng.
struct ReadState {
  // Set by InfoFn at the first IDAT chunk.
  bool have_info = false;
  png_uint_32 width = 0, height = 0;
  bool interlaced = false;
  RowKind kind = RowKind::kGray;
  int pixel_bytes = 0;            // in a row from libpng
  int sample_bytes = 0;           // 1, or 2 for 16-bit samples
  int gray_scale = 1;             // 255 / (2^bits - 1) below 8 bits
  int file_bits = 0;              // bits per pixel in the file
  uint8_t palette[256 * 3] = {};  // PLTE's entries, then (i, i, i)
  int64_t rows_expected = 0;      // rows of every interlace pass
  size_t bytes_left = 0;          // in the file after the first IDAT's header
  // Set before the first row arrives: width * 3 bytes a row.
  uint8_t* pixels = nullptr;
  int64_t rows_received = 0;
  // Asked before the pixels are allocated; false cancels the decode.
  const absl::FunctionRef<bool(Size2)>* start = nullptr;
  bool cancelled = false;
  char message[256] = "";  // what went wrong, after "<what>: "
  char warning[128] = "";  // libpng's last warning
};

ReadState* State(png_structp png) {
  return static_cast<ReadState*>(png_get_progressive_ptr(png));
}

void ErrorFn(png_structp png, png_const_charp message) {
  ReadState* s = static_cast<ReadState*>(png_get_error_ptr(png));
  std::snprintf(
      s->message, sizeof(s->message), "%s: %s",
      s->have_info ? "corrupt or truncated PNG" : "not a readable PNG",
      message);
  png_longjmp(png, 1);
}

// Warnings are what libpng recovers from: kept (one may say why rows are
// missing), never printed.
void WarningFn(png_structp png, png_const_charp message) {
  ReadState* s = static_cast<ReadState*>(png_get_error_ptr(png));
  std::snprintf(s->warning, sizeof(s->warning), "%s", message);
}

// PLTE's entries over Pillow's initial palette, the gray ramp.
void SetPalette(png_structp png, png_infop info, ReadState* s) {
  for (int i = 0; i < 256; ++i) {
    s->palette[3 * i] = s->palette[3 * i + 1] = s->palette[3 * i + 2] =
        static_cast<uint8_t>(i);
  }
  png_colorp entries = nullptr;
  int n = 0;
  if (png_get_PLTE(png, info, &entries, &n) == 0) return;
  for (int i = 0; i < std::min(n, 256); ++i) {
    s->palette[3 * i] = entries[i].red;
    s->palette[3 * i + 1] = entries[i].green;
    s->palette[3 * i + 2] = entries[i].blue;
  }
}

// Rows libpng delivers: one per image row, or, interlaced, one per row of
// each non-empty pass.
int64_t RowsExpected(const ReadState& s) {
  if (!s.interlaced) return s.height;
  int64_t rows = 0;
  for (int pass = 0; pass < 7; ++pass) {
    if (PNG_PASS_COLS(s.width, pass) > 0) rows += PNG_PASS_ROWS(s.height, pass);
  }
  return rows;
}

// Deflate makes at most 1032 bytes of one (a 258-byte match in 2 bits).
constexpr int64_t kMaxInflateRatio = 1032;

// Ends the reading (before libpng allocates its row buffers) if the image
// has more than kMaxDecodedPixels pixels or more image data than the rest of
// the file can inflate to: a damaged header must not allocate gigabytes.
void CheckSize(png_structp png, ReadState* s) {
  const int64_t pixels = int64_t{s->width} * s->height;
  if (pixels > kMaxDecodedPixels) {
    std::snprintf(s->message, sizeof(s->message),
                  "PNG size %ux%u is not supported%s", s->width, s->height,
                  TooManyPixels().c_str());
    png_longjmp(png, 1);
  }
  const int64_t least = pixels * s->file_bits / 8;  // bytes of image data
  if (least / kMaxInflateRatio > static_cast<int64_t>(s->bytes_left)) {
    std::snprintf(s->message, sizeof(s->message),
                  "corrupt or truncated PNG: %ux%u pixels cannot be in the "
                  "%zu bytes left",
                  s->width, s->height, s->bytes_left);
    png_longjmp(png, 1);
  }
}

void InfoFn(png_structp png, png_infop info) {
  ReadState* s = State(png);
  int bits = 0, color = 0, interlace = 0;
  png_get_IHDR(png, info, &s->width, &s->height, &bits, &color, &interlace,
               nullptr, nullptr);
  if (bits < 8) png_set_packing(png);
  s->interlaced = interlace != PNG_INTERLACE_NONE;
  s->sample_bytes = bits == 16 ? 2 : 1;
  const int channels = png_get_channels(png, info);
  s->pixel_bytes = channels * s->sample_bytes;
  s->file_bits = channels * bits;
  s->gray_scale = bits < 8 ? 255 / ((1 << bits) - 1) : 1;
  if (color == PNG_COLOR_TYPE_PALETTE) {
    s->kind = RowKind::kPalette;
    SetPalette(png, info, s);
  } else if ((color & PNG_COLOR_MASK_COLOR) != 0) {
    s->kind = RowKind::kColor;
  } else {
    s->kind =
        bits == 16 && channels == 1 ? RowKind::kGray16Clip : RowKind::kGray;
  }
  s->rows_expected = RowsExpected(*s);
  CheckSize(png, s);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) !=
      static_cast<size_t>(s->width) * s->pixel_bytes) {
    png_error(png, "unexpected row layout");
  }
  s->have_info = true;
}

// Converts `n` pixels of a row from libpng to RGB at `out`, `step` bytes
// apart.
void ConvertRow(const ReadState& s, const uint8_t* in, int64_t n, uint8_t* out,
                int64_t step) {
  const int pb = s.pixel_bytes;
  switch (s.kind) {
    case RowKind::kGray:
      for (int64_t i = 0; i < n; ++i, out += step)
        out[0] = out[1] = out[2] =
            static_cast<uint8_t>(in[i * pb] * s.gray_scale);
      break;
    case RowKind::kGray16Clip:
      for (int64_t i = 0; i < n; ++i, out += step) {
        const int v = in[2 * i] << 8 | in[2 * i + 1];
        out[0] = out[1] = out[2] = static_cast<uint8_t>(std::min(v, 255));
      }
      break;
    case RowKind::kColor:
      if (pb == 3 && step == 3) {
        std::memcpy(out, in, static_cast<size_t>(n) * 3);
        break;
      }
      for (int64_t i = 0; i < n; ++i, out += step) {
        for (int c = 0; c < 3; ++c) out[c] = in[i * pb + c * s.sample_bytes];
      }
      break;
    case RowKind::kPalette:
      for (int64_t i = 0; i < n; ++i, out += step)
        std::memcpy(out, &s.palette[3 * in[i]], 3);
      break;
  }
}

void RowFn(png_structp png, png_bytep row, png_uint_32 row_number, int pass) {
  ReadState* s = State(png);
  if (row == nullptr) return;
  int64_t y = row_number, x = 0, step = 1, n = s->width;
  if (s->interlaced) {
    if (pass < 0 || pass > 6) png_error(png, "bad interlace pass");
    y = (y << PNG_PASS_ROW_SHIFT(pass)) + PNG_PASS_START_ROW(pass);
    x = PNG_PASS_START_COL(pass);
    step = int64_t{1} << PNG_PASS_COL_SHIFT(pass);
    n = PNG_PASS_COLS(s->width, pass);
  }
  if (s->pixels == nullptr || y >= s->height)
    png_error(png, "row out of place");
  ConvertRow(*s, row, n, s->pixels + (y * s->width + x) * 3, step * 3);
  ++s->rows_received;
}

// Points the rows at `out`'s storage (InfoFn has checked the size).
bool StartImage(ReadState* s, Image* out) {
  if (!s->have_info) {
    std::snprintf(s->message, sizeof(s->message), "not a readable PNG");
    return false;
  }
  if (!(*s->start)(Size2{s->height, s->width})) {
    s->cancelled = true;
    return false;
  }
  out->pixels.resize(static_cast<size_t>(s->width) * s->height * 3);
  s->pixels = out->pixels.data();
  return true;
}

bool Done(const ReadState& s) {
  return s.pixels != nullptr && s.rows_received == s.rows_expected;
}

void Push(png_structp png, png_infop info, const uint8_t* p, size_t n) {
  png_process_data(png, info, const_cast<png_bytep>(p), n);
}

// Pushes the signature, then one chunk at a time until the last row has
// arrived; the first IDAT's 8-byte header alone, so that InfoFn runs before
// any row and the pixels are allocated in between.
bool PushChunks(png_structp png, png_infop info,
                absl::Span<const uint8_t> bytes, ReadState* s, Image* out) {
  const uint8_t* p = bytes.data();
  const size_t size = bytes.size();
  size_t pos = std::min<size_t>(8, size);
  Push(png, info, p, pos);
  while (pos < size && !Done(*s)) {
    const size_t left = size - pos;
    size_t chunk = left;  // a cut-off chunk header: what is left
    if (left >= 8) {
      const uint64_t length = png_get_uint_32(p + pos);
      chunk = static_cast<size_t>(std::min<uint64_t>(left, 12 + length));
      if (!s->have_info && std::memcmp(p + pos + 4, "IDAT", 4) == 0) {
        s->bytes_left = left - 8;
        Push(png, info, p + pos, 8);
        pos += 8;
        chunk -= 8;
        if (!StartImage(s, out)) return false;
      }
    }
    Push(png, info, p + pos, chunk);
    pos += chunk;
  }
  return true;
}

// Sets the reader up: Pillow's checks and none of libpng's conversions.
void Configure(png_structp png, ReadState* s) {
  png_set_progressive_read_fn(png, s, InfoFn, RowFn, nullptr);
  // A bad CRC is an error in every chunk read, ancillary ones included.
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  // Every ancillary chunk (gAMA, sRGB, iCCP, tRNS, ...) is skipped unread
  // but for its CRC.
  static const png_byte kTrns[5] = "tRNS";
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, nullptr, -1);
  png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, kTrns, 1);
  // CheckSize bounds the size (naming why), not libpng's 1000000-pixel
  // sides: libpng's own limit is the PNG format's.
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  // zlib's largest window whatever the stream's header says, as Pillow's
  // inflateInit.
  png_set_option(png, PNG_MAXIMUM_INFLATE_WINDOW, PNG_OPTION_ON);
}

// Runs libpng over `bytes`; false after a libpng error or a rejected size
// (s->message says which). The only setjmp: neither this frame nor those
// between it and a longjmp hold C++ objects.
bool ReadPng(png_structp png, png_infop info, absl::Span<const uint8_t> bytes,
             ReadState* s, Image* out) {
  if (setjmp(png_jmpbuf(png))) return false;
  Configure(png, s);
  return PushChunks(png, info, bytes, s, out);
}

// Owns libpng's reader.
struct ReaderDeleter {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~ReaderDeleter() { png_destroy_read_struct(&png, &info, nullptr); }
};

}  // namespace

absl::Status DecodePng(absl::Span<const uint8_t> bytes, const std::string& what,
                       Image* out) {
  return DecodePng(bytes, what, out, [](Size2) { return true; });
}

absl::Status DecodePng(absl::Span<const uint8_t> bytes, const std::string& what,
                       Image* out, absl::FunctionRef<bool(Size2)> start) {
  ReadState s;
  s.start = &start;
  ReaderDeleter reader;
  reader.png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, ErrorFn, WarningFn);
  if (reader.png != nullptr) reader.info = png_create_info_struct(reader.png);
  if (reader.info == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": cannot allocate libpng's reader"));
  }
  if (!ReadPng(reader.png, reader.info, bytes, &s, out)) {
    if (s.cancelled) return DecodingCancelled(what);
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message));
  }
  if (!s.have_info) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": not a readable PNG: it ends before the image data"));
  }
  if (!Done(s)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": corrupt or truncated PNG: the image data ends after ",
        s.rows_received, " of ", s.rows_expected, " rows",
        s.warning[0] != '\0' ? absl::StrCat(" (", s.warning, ")") : ""));
  }
  out->height = s.height;
  out->width = s.width;
  out->channels = 3;
  return absl::OkStatus();
}

}  // namespace fusednorm
