// JPEG files made for the JPEG tests, fuzzers and benchmarks, with libjpeg's
// compress API, so that every setting the decoders must handle can be asked
// for: any luma sampling factors (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1), gray,
// CMYK and YCCK (with Adobe's marker, as Photoshop writes them), restart
// intervals in MCUs or MCU rows, progressive and arithmetic coding. And the
// pixels to put in them: noisy gradients, and photo-like content.
#ifndef FUSEDNORM_TESTING_JPEG_FILES_H_
#define FUSEDNORM_TESTING_JPEG_FILES_H_

#include <cstdint>
#include <vector>

namespace fusednorm {

struct JpegSpec {
  int height = 0, width = 0;
  // 1: gray; 3: RGB pixels stored as YCbCr; 4: CMYK pixels stored as CMYK
  // (ycck false) or YCCK, inverted as Adobe's files are.
  int components = 3;
  bool ycck = false;
  // The first component's sampling factors (and the fourth's); the others
  // are 1x1.
  int h_samp = 2, v_samp = 2;
  int quality = 90;
  int restart_mcus = 0;  // a restart marker every N MCUs
  int restart_rows = 0;  // or every N MCU rows
  bool progressive = false, arithmetic = false, optimize = false;
  // > 0: progressive with the AC coefficients sent at this point transform
  // and never refined (libjpeg's decoder smooths such blocks).
  int unrefined_ac_bits = 0;
};

// Encodes `pixels` (height * width * components bytes) as `spec` says;
// empty if libjpeg refuses the settings.
std::vector<uint8_t> EncodeTestJpeg(const JpegSpec& spec,
                                    const std::vector<uint8_t>& pixels);

// Smooth gradients with uniform noise in every channel, from `seed`.
std::vector<uint8_t> NoisyGradient(int height, int width, int channels,
                                   uint32_t seed);

// Photo-like RGB content from `seed`: a few overlapping shapes of smooth
// colour over fractal texture, with a little sensor noise.
std::vector<uint8_t> PhotoLike(int height, int width, uint32_t seed);

}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_JPEG_FILES_H_
