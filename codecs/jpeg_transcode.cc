// Lossless restart-marker transcoding (jpeg_transcode.h) through libjpeg's
// transcoding API. libjpeg's errors longjmp back to AddRestartMarkers; all
// the state they could leave behind is in one struct in its frame.
#include "codecs/jpeg_transcode.h"

// clang-format off
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "codecs/jpeg.h"
#include "codecs/jpeg_errors.h"

namespace fusednorm {
namespace {

struct State {
  jpeg_decompress_struct src;
  jpeg_compress_struct dst;
  JpegErrors err;
  bool src_created = false, dst_created = false;
  bool writing = false;             // reading done: errors are the encoder's
  unsigned char* buffer = nullptr;  // the output, malloc'ed by libjpeg
  unsigned long size = 0;
};

int64_t McusPerRow(const jpeg_decompress_struct& s) {
  // One component is coded without interleaving: an MCU is one block.
  int hmax = 1;
  for (int c = 0; c < s.num_components; ++c)
    hmax = std::max(hmax, s.comp_info[c].h_samp_factor);
  const int64_t mcu = s.num_components == 1 ? 8 : 8 * hmax;
  return (static_cast<int64_t>(s.image_width) + mcu - 1) / mcu;
}

// Whether libjpeg decodes the progressive file `s` without block smoothing,
// which it applies while any of a block's first 10 coefficients (the most
// its smoothing looks at) is not fully refined.
bool DecodesWithoutSmoothing(const jpeg_decompress_struct& s) {
  if (!s.progressive_mode) return true;
  for (int c = 0; c < s.num_components; ++c) {
    for (int k = 0; k < 10; ++k) {
      if (s.coef_bits[c][k] != 0) return false;
    }
  }
  return true;
}

bool Named(const jpeg_marker_struct& m, int code, const char* name) {
  const size_t n = std::strlen(name) + 1;
  return m.marker == code && m.data_length >= n &&
         std::memcmp(m.data, name, n) == 0;
}

// The input's APPn and COM markers, but the JFIF and Adobe ones libjpeg
// writes itself.
void CopyMarkers(const jpeg_decompress_struct& src, jpeg_compress_struct* dst) {
  for (jpeg_saved_marker_ptr m = src.marker_list; m != nullptr; m = m->next) {
    if (dst->write_JFIF_header && Named(*m, JPEG_APP0, "JFIF")) continue;
    if (dst->write_Adobe_marker && Named(*m, JPEG_APP0 + 14, "Adobe")) continue;
    jpeg_write_marker(dst, m->marker, m->data, m->data_length);
  }
}

// The transcode; libjpeg's errors longjmp out of it. Returns why a file it
// reads cannot be copied losslessly, or nullptr.
const char* Transcode(absl::Span<const uint8_t> jpeg,
                      const RestartSpacing& spacing, State* st) {
  jpeg_decompress_struct* src = &st->src;
  jpeg_create_decompress(src);
  st->src_created = true;
  jpeg_mem_src(src, jpeg.data(), static_cast<unsigned long>(jpeg.size()));
  jpeg_save_markers(src, JPEG_COM, 0xFFFF);
  for (int m = 0; m < 16; ++m) jpeg_save_markers(src, JPEG_APP0 + m, 0xFFFF);
  jpeg_read_header(src, TRUE);
  if (static_cast<int64_t>(src->image_height) * src->image_width >
      kMaxDecodedPixels)
    return "the image is too large";
  jvirt_barray_ptr* coefficients = jpeg_read_coefficients(src);
  if (!DecodesWithoutSmoothing(*src)) {
    return "its progressive scans leave coefficients unrefined, which "
           "libjpeg smooths and a baseline copy would not";
  }
  st->writing = true;
  jpeg_compress_struct* dst = &st->dst;
  jpeg_create_compress(dst);
  st->dst_created = true;
  jpeg_mem_dest(dst, &st->buffer, &st->size);
  jpeg_copy_critical_parameters(src, dst);
  // The colour-space markers as the input has them: the decoder's guess of
  // the colour space (and Pillow's of CMYK inversion) stays the same.
  dst->write_JFIF_header = src->saw_JFIF_marker;
  dst->write_Adobe_marker = src->saw_Adobe_marker;
  dst->optimize_coding = TRUE;
  dst->restart_interval =
      static_cast<unsigned int>(RestartInterval(spacing, McusPerRow(*src)));
  jpeg_write_coefficients(dst, coefficients);
  CopyMarkers(*src, dst);
  jpeg_finish_compress(dst);
  jpeg_finish_decompress(src);
  return nullptr;
}

}  // namespace

int64_t RestartInterval(const RestartSpacing& spacing, int64_t mcus_per_row) {
  if (spacing.rows) return std::min<int64_t>(mcus_per_row, 65535);
  if (spacing.mcus <= 0) return 0;
  int64_t d = std::clamp<int64_t>(spacing.mcus, 1, mcus_per_row);
  while (mcus_per_row % d != 0) --d;
  return std::min<int64_t>(d, 65535);
}

absl::StatusOr<std::vector<uint8_t>> AddRestartMarkers(
    absl::Span<const uint8_t> jpeg, const std::string& what,
    const RestartSpacing& spacing) {
  State st;
  st.src.err = st.dst.err = st.err.Install();
  // Set only after the longjmp could have happened, so volatile.
  const char* volatile refused = nullptr;
  volatile bool failed = true;
  if (setjmp(st.err.jump) == 0) {
    refused = Transcode(jpeg, spacing, &st);
    failed = false;
  }
  if (st.dst_created) jpeg_destroy_compress(&st.dst);
  if (st.src_created) jpeg_destroy_decompress(&st.src);
  std::vector<uint8_t> out;
  if (!failed && refused == nullptr) out.assign(st.buffer, st.buffer + st.size);
  std::free(st.buffer);
  // Baseline coding cannot hold some coefficients other codings can (e.g.
  // with 16-bit quantization tables): the encoder's error.
  if (failed && st.writing) refused = st.err.message;
  if (failed && !st.writing) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a readable JPEG: ", st.err.message));
  }
  if (refused != nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": cannot add restart markers losslessly: ", refused));
  }
  return out;
}

}  // namespace fusednorm
