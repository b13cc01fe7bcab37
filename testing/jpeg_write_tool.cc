// Test tool: writes a uint8 (H, W, C) .npy as a JPEG with libjpeg's
// compression API and settings TurboJPEG and Pillow cannot choose, for the
// test that compares DecodeJpeg with Pillow on such files. C is 1 (gray),
// 3 (RGB) or 4 (CMYK samples, stored as they are). libjpeg's errors end the
// program with its message (a test tool: no recovery).
//
//   jpeg_write_tool IN.npy OUT.jpg [--colorspace=gray|ycbcr|rgb|cmyk|ycck]
//       [--sampling=HxV,HxV,...] [--adobe=0|1] [--jfif=0|1] [--progressive]
//       [--quality=N]
#include <cstdio>
#include <string>
#include <vector>

// clang-format off
#include <jpeglib.h>
// clang-format on

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codecs/npy.h"
#include "core/status.h"
#include "data/read_file.h"

namespace fusednorm {
namespace {

struct Options {
  J_COLOR_SPACE colorspace = JCS_UNKNOWN;  // unknown: libjpeg's default
  std::vector<std::pair<int, int>> sampling;
  int adobe = -1, jfif = -1;  // -1: libjpeg's default
  bool progressive = false;
  int quality = 90;
};

absl::Status ParseColorspace(const std::string& v, Options* o) {
  static const std::pair<const char*, J_COLOR_SPACE> kNames[] = {
      {"gray", JCS_GRAYSCALE},
      {"ycbcr", JCS_YCbCr},
      {"rgb", JCS_RGB},
      {"cmyk", JCS_CMYK},
      {"ycck", JCS_YCCK}};
  for (const auto& [name, space] : kNames) {
    if (v == name) {
      o->colorspace = space;
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown colorspace ", v));
}

absl::Status ParseSampling(const std::string& v, Options* o) {
  for (absl::string_view f : absl::StrSplit(v, ',')) {
    std::vector<std::string> hv = absl::StrSplit(f, 'x');
    int h = 0, w = 0;
    if (hv.size() != 2 || !absl::SimpleAtoi(hv[0], &h) ||
        !absl::SimpleAtoi(hv[1], &w)) {
      return absl::InvalidArgumentError(absl::StrCat("bad sampling ", v));
    }
    o->sampling.emplace_back(h, w);
  }
  return absl::OkStatus();
}

absl::Status ParseFlag(const std::string& arg, Options* o) {
  const size_t eq = arg.find('=');
  const std::string name = arg.substr(0, eq);
  const std::string v = eq == std::string::npos ? "" : arg.substr(eq + 1);
  if (name == "--colorspace") return ParseColorspace(v, o);
  if (name == "--sampling") return ParseSampling(v, o);
  if (name == "--progressive") {
    o->progressive = true;
    return absl::OkStatus();
  }
  int* target = name == "--adobe"     ? &o->adobe
                : name == "--jfif"    ? &o->jfif
                : name == "--quality" ? &o->quality
                                      : nullptr;
  if (target == nullptr || !absl::SimpleAtoi(v, target))
    return absl::InvalidArgumentError(absl::StrCat("bad flag ", arg));
  return absl::OkStatus();
}

// Sets the compressor's parameters for `o` (after the input's).
absl::Status SetParameters(const Options& o, jpeg_compress_struct* c) {
  jpeg_set_defaults(c);
  if (o.colorspace != JCS_UNKNOWN) jpeg_set_colorspace(c, o.colorspace);
  if (!o.sampling.empty()) {
    if (static_cast<int>(o.sampling.size()) != c->num_components) {
      return absl::InvalidArgumentError(
          absl::StrCat("--sampling needs ", c->num_components, " factors"));
    }
    for (int i = 0; i < c->num_components; ++i) {
      c->comp_info[i].h_samp_factor = o.sampling[i].first;
      c->comp_info[i].v_samp_factor = o.sampling[i].second;
    }
  }
  if (o.adobe >= 0) c->write_Adobe_marker = o.adobe ? TRUE : FALSE;
  if (o.jfif >= 0) c->write_JFIF_header = o.jfif ? TRUE : FALSE;
  jpeg_set_quality(c, o.quality, TRUE);
  if (o.progressive) jpeg_simple_progression(c);
  return absl::OkStatus();
}

absl::Status Write(const NpyArray& a, const Options& o, std::FILE* out) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);  // error_exit ends the program
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, out);
  c.image_height = static_cast<JDIMENSION>(a.shape[0]);
  c.image_width = static_cast<JDIMENSION>(a.shape[1]);
  c.input_components = static_cast<int>(a.shape[2]);
  c.in_color_space = c.input_components == 1   ? JCS_GRAYSCALE
                     : c.input_components == 4 ? JCS_CMYK
                                               : JCS_RGB;
  absl::Status s = SetParameters(o, &c);
  if (s.ok()) {
    jpeg_start_compress(&c, TRUE);
    const size_t stride = c.image_width * c.input_components;
    while (c.next_scanline < c.image_height) {
      JSAMPROW p =
          const_cast<JSAMPLE*>(a.data.data()) + c.next_scanline * stride;
      jpeg_write_scanlines(&c, &p, 1);
    }
    jpeg_finish_compress(&c);
  }
  jpeg_destroy_compress(&c);
  return s;
}

absl::Status Run(int argc, char** argv) {
  if (argc < 3) {
    return absl::InvalidArgumentError(
        "usage: jpeg_write_tool IN.npy OUT.jpg [flags]");
  }
  Options o;
  for (int i = 3; i < argc; ++i)
    FUSEDNORM_RETURN_IF_ERROR(ParseFlag(argv[i], &o));
  std::vector<uint8_t> bytes;
  FUSEDNORM_RETURN_IF_ERROR(ReadFileInto(argv[1], &bytes, kMaxImageFileBytes));
  FUSEDNORM_ASSIGN_OR_RETURN(const NpyArray a, ParseNpyImage(bytes, argv[1]));
  std::FILE* out = std::fopen(argv[2], "wb");
  if (out == nullptr)
    return absl::NotFoundError(absl::StrCat(argv[2], ": cannot open"));
  const absl::Status s = Write(a, o, out);
  if (std::fclose(out) != 0 && s.ok())
    return absl::DataLossError(absl::StrCat(argv[2], ": write error"));
  return s;
}

}  // namespace
}  // namespace fusednorm

int main(int argc, char** argv) {
  const absl::Status s = fusednorm::Run(argc, argv);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
