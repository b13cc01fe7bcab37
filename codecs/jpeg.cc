// JPEG decoding through libjpeg (jpeg.h). libjpeg reports fatal errors by
// calling error_exit, which must not return: it longjmps back to the call
// that set up the decompressor, and the status is made there.
#include "codecs/jpeg.h"

// clang-format off
#include <csetjmp>
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codecs/jpeg_errors.h"
#include "codecs/jpeg_segments.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// Pixels decoded beyond a region on each side: more than the widest
// upsampling context (one sample of a 2x-subsampled component).
constexpr int64_t kMargin = 8;

// PIL's "CMYK;I" unpacking (inverted Adobe data) followed by its
// cmyk2rgb, per pixel.
void CmykToRgb(const uint8_t* in, int64_t n, uint8_t* out) {
  for (int64_t x = 0; x < n; ++x, in += 4, out += 3) {
    const int nk = in[3];  // 255 - (255 - K)
    for (int c = 0; c < 3; ++c) {
      int tmp = (255 - in[c]) * nk + 128;
      tmp = ((tmp >> 8) + tmp) >> 8;
      out[c] = static_cast<uint8_t>(std::clamp(nk - tmp, 0, 255));
    }
  }
}

// The decompressor and its error handling; Run() reports errors as a
// status naming `what`.
class Decompressor {
 public:
  // `what` must outlive the decompressor.
  explicit Decompressor(const std::string& what) : what_(what) {
    cinfo_.err = err_.Install();
  }
  ~Decompressor() {
    if (created_) jpeg_destroy_decompress(&cinfo_);
  }

  // Reads the header of `bytes`; then `body` (which may longjmp).
  template <typename Body>
  absl::Status Run(absl::Span<const uint8_t> bytes, Body body) {
    if (setjmp(err_.jump)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what_, ": not a readable JPEG: ", err_.message));
    }
    jpeg_create_decompress(&cinfo_);
    created_ = true;
    jpeg_mem_src(&cinfo_, bytes.data(),
                 static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&cinfo_, TRUE);
    const int64_t h = cinfo_.image_height, w = cinfo_.image_width;
    if (h < 1 || w < 1 || h * w > kMaxDecodedPixels) {
      return absl::InvalidArgumentError(
          absl::StrCat(what_, ": JPEG size ", w, "x", h, " is not supported",
                       TooManyPixels()));
    }
    return body(&cinfo_);
  }

 private:
  const std::string& what_;
  jpeg_decompress_struct cinfo_;
  JpegErrors err_;
  bool created_ = false;
};

// Reads the next `rows` rows of the started decompressor into `out` as RGB.
// `row` is scratch for gray and CMYK rows, sized by the caller: nothing here
// may own memory, since a libjpeg error longjmps past this frame.
void ReadRows(jpeg_decompress_struct* cinfo, int64_t rows, uint8_t* row,
              Image* out) {
  const int C = cinfo->output_components;
  const int64_t width = cinfo->output_width;
  for (int64_t y = 0; y < rows; ++y) {
    uint8_t* dst = out->pixels.data() + y * width * 3;
    JSAMPROW p = C == 3 ? dst : row;
    jpeg_read_scanlines(cinfo, &p, 1);
    if (C == 1) {
      for (int64_t x = 0; x < width; ++x)
        dst[3 * x] = dst[3 * x + 1] = dst[3 * x + 2] = row[x];
    } else if (C == 4) {
      CmykToRgb(row, width, dst);
    }
  }
}

}  // namespace

std::string TooManyPixels() {
  return absl::StrCat(" (more than the ", kMaxDecodedPixels,
                      " pixels Pillow decodes: a decompression bomb)");
}

absl::Status DecodingCancelled(const std::string& what) {
  return absl::CancelledError(absl::StrCat(what, ": decoding cancelled"));
}

CropWindow ScaleBox(const CropWindow& box, int scale, Size2 scaled) {
  const int64_t top = box.top / scale, left = box.left / scale;
  const int64_t bottom =
      std::min(scaled.height, (box.top + box.height + scale - 1) / scale);
  const int64_t right =
      std::min(scaled.width, (box.left + box.width + scale - 1) / scale);
  return {top, left, std::max<int64_t>(1, bottom - top),
          std::max<int64_t>(1, right - left)};
}

namespace {

// Decodes `region` (all of the image without one; inside it) of the image
// whose header `cinfo` has read, at 1/scale, with PIL's settings, into
// `out`. `row` is scratch kept outside this frame: this may longjmp.
void DecodeWindow(jpeg_decompress_struct* cinfo,
                  const std::optional<CropWindow>& region, int scale,
                  std::vector<uint8_t>* row, DecodedRegion* out) {
  cinfo->scale_num = 1;
  cinfo->scale_denom = static_cast<unsigned>(scale);
  cinfo->dct_method = JDCT_ISLOW;
  cinfo->do_fancy_upsampling = TRUE;
  cinfo->out_color_space = cinfo->num_components == 4   ? JCS_CMYK
                           : cinfo->num_components == 1 ? JCS_GRAYSCALE
                                                        : JCS_RGB;
  jpeg_start_decompress(cinfo);
  const int64_t H = cinfo->output_height, W = cinfo->output_width;
  const CropWindow box =
      ScaleBox(region.value_or(
                   CropWindow{0, 0, cinfo->image_height, cinfo->image_width}),
               scale, Size2{H, W});
  const int64_t top = std::max<int64_t>(0, box.top - kMargin);
  const int64_t bottom = std::min(H, box.top + box.height + kMargin);
  JDIMENSION x =
      static_cast<JDIMENSION>(std::max<int64_t>(0, box.left - kMargin));
  JDIMENSION width =
      static_cast<JDIMENSION>(std::min(W, box.left + box.width + kMargin) - x);
  if (region && (x > 0 || width < W)) jpeg_crop_scanline(cinfo, &x, &width);
  if (top > 0) jpeg_skip_scanlines(cinfo, static_cast<JDIMENSION>(top));
  Image& image = out->image;
  image.height = bottom - top;
  image.width = cinfo->output_width;
  image.channels = 3;
  image.pixels.resize(static_cast<size_t>(image.height * image.width * 3));
  row->resize(cinfo->output_width * cinfo->output_components);
  ReadRows(cinfo, image.height, row->data(), &image);
  jpeg_abort_decompress(cinfo);
  out->top = top;
  out->left = x;
  out->scale = scale;
  out->size = Size2{H, W};
}

// DecodedRegion::coefficient_bytes: libjpeg's whole-image coefficient
// arrays, each component's blocks padded to its sampling factors.
int64_t CoefficientBytes(jpeg_decompress_struct* cinfo) {
  if (!jpeg_has_multiple_scans(cinfo)) return 0;
  int64_t blocks = 0;
  for (int c = 0; c < cinfo->num_components; ++c) {
    const jpeg_component_info& ci = cinfo->comp_info[c];
    const auto padded = [](int64_t n, int64_t f) {
      return (n + f - 1) / f * f;
    };
    blocks += padded(ci.width_in_blocks, ci.h_samp_factor) *
              padded(ci.height_in_blocks, ci.v_samp_factor);
  }
  return blocks * DCTSIZE2 * static_cast<int64_t>(sizeof(JCOEF));
}

// The cut of restart segments that covers `box` (with the margin at
// 1/scale) of the file whose header `cinfo` read, spliced into
// scratch->jpeg; nullopt where that does not apply. The header walk must
// agree with libjpeg's on the size, the interval and where the scan starts.
std::optional<SegmentCut> SpliceForBox(absl::Span<const uint8_t> bytes,
                                       const jpeg_decompress_struct& cinfo,
                                       const CropWindow& box, int scale,
                                       SegmentScratch* scratch) {
  if (cinfo.restart_interval == 0 || cinfo.progressive_mode || cinfo.arith_code)
    return std::nullopt;
  const std::optional<RestartLayout> layout = ReadRestartLayout(bytes);
  if (!layout || layout->height != cinfo.image_height ||
      layout->width != cinfo.image_width ||
      layout->interval != cinfo.restart_interval ||
      layout->scan !=
          static_cast<size_t>(cinfo.src->next_input_byte - bytes.data()))
    return std::nullopt;
  std::optional<SegmentCut> cut = PlanSegmentCut(*layout, box, kMargin * scale);
  if (!cut || !SpliceSegments(bytes, *layout, *cut, scratch))
    return std::nullopt;
  return cut;
}

// Decodes `request`'s region from the spliced JPEG of `cut` (in
// out->scratch.segments) and places it in the original image of size `full`.
absl::Status DecodeCut(const std::string& what, const SegmentCut& cut,
                       const JpegRequest& request, Size2 full,
                       std::vector<uint8_t>* row, DecodedRegion* out) {
  const CropWindow& box = *request.region;
  const std::optional<CropWindow> inner =
      CropWindow{box.top - cut.pixels.top, box.left - cut.pixels.left,
                 box.height, box.width};
  Decompressor d(what);
  FUSEDNORM_RETURN_IF_ERROR(
      d.Run(out->scratch.segments.jpeg, [&](jpeg_decompress_struct* cinfo) {
        if (cinfo->image_height != cut.pixels.height ||
            cinfo->image_width != cut.pixels.width)
          return absl::InternalError("spliced JPEG of the wrong size");
        DecodeWindow(cinfo, inner, request.scale, row, out);
        return absl::OkStatus();
      }));
  const int s = request.scale;
  out->top += cut.pixels.top / s;
  out->left += cut.pixels.left / s;
  out->size = Size2{(full.height + s - 1) / s, (full.width + s - 1) / s};
  out->from_segments = true;
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeJpegInto(absl::Span<const uint8_t> bytes,
                            const std::string& what,
                            absl::FunctionRef<JpegRequest(Size2)> choose,
                            DecodedRegion* out) {
  std::vector<uint8_t>& row = out->scratch.row;
  JpegRequest request;
  Size2 full;
  std::optional<SegmentCut> cut;
  Decompressor d(what);
  FUSEDNORM_RETURN_IF_ERROR(d.Run(bytes, [&](jpeg_decompress_struct* cinfo) {
    full = Size2{cinfo->image_height, cinfo->image_width};
    out->coefficient_bytes = CoefficientBytes(cinfo);
    request = choose(full);
    if (request.cancel) return DecodingCancelled(what);
    const CropWindow box =
        request.region.value_or(CropWindow{0, 0, full.height, full.width});
    if (absl::Status b = ValidateBox(box, full.height, full.width); !b.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", b.message()));
    }
    const int scale = request.scale;
    if (scale != 1 && scale != 2 && scale != 4 && scale != 8) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": decode scale 1/", scale, " is not supported"));
    }
    out->from_segments = false;
    if (request.region && request.restart_segments) {
      cut = SpliceForBox(bytes, *cinfo, box, scale, &out->scratch.segments);
      if (cut) return absl::OkStatus();
    }
    DecodeWindow(cinfo, request.region, scale, &row, out);
    return absl::OkStatus();
  }));
  if (!cut || DecodeCut(what, *cut, request, full, &row, out).ok())
    return absl::OkStatus();
  // The spliced JPEG did not decode: the original says why, or decodes.
  request.restart_segments = false;
  return DecodeJpegInto(
      bytes, what, [&](Size2) { return request; }, out);
}

absl::StatusOr<DecodedRegion> DecodeJpeg(absl::Span<const uint8_t> bytes,
                                         const std::string& what,
                                         std::optional<CropWindow> region) {
  DecodedRegion out;
  FUSEDNORM_RETURN_IF_ERROR(DecodeJpegInto(
      bytes, what,
      [&](Size2) {
        return JpegRequest{region, 1};
      },
      &out));
  return out;
}

}  // namespace fusednorm
