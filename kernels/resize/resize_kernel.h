// The resize-kernel contract: Pillow's antialiased resampling (BILINEAR and
// BICUBIC) of a uint8 image in fixed point, the per-axis weight tables
// every variant reads, and the descriptor the resize dispatch table keeps.
//
// A resize is separable, and Pillow runs its passes in either order (its
// versions choose differently; ops/resize.h). Horizontal first: the
// horizontal pass turns each input row the vertical pass needs into a row of
// the output's width, rounded to uint8; the vertical pass then combines
// those rows into output rows. Vertical first: the vertical pass combines
// the input rows into rows of the input's width and the output's height,
// rounded to uint8; the horizontal pass then turns each into an output row.
// The rounding between the passes makes the two orders differ by 1 here and
// there. Output value v of one pass is
//
//   clamp((2^21 + sum_k in[start[i] + k] * weights[i * taps + k]) >> 22,
//         0, 255)
//
// with int32 arithmetic, exactly as Pillow 9.4's Resample.c computes it, so
// every variant agrees bit for bit with Pillow and with each other. Kernels
// never validate or fail; the caller (ops/resize.h) checks every argument
// first. No SIMD types here.
#ifndef FUSEDNORM_KERNELS_RESIZE_RESIZE_KERNEL_H_
#define FUSEDNORM_KERNELS_RESIZE_RESIZE_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fusednorm {

// Pillow's PRECISION_BITS: weights are fixed point with 22 fraction bits.
constexpr int kResizePrecisionBits = 22;

// One axis: output i reads inputs start[i] .. start[i] + taps - 1. Weights an
// output does not use are 0; windows are shifted so that no window leaves
// 0 .. in_size - 1, and start never decreases with i.
struct ResizeAxis {
  int64_t in_size = 0;
  int64_t out_size = 0;
  int taps = 0;
  std::vector<int32_t> start;    // out_size entries
  std::vector<int32_t> weights;  // out_size * taps entries
};

// Tables a variant derives from the horizontal axis, kept from call to call
// and rebuilt only when the axis, the channel count or the variant changes.
struct ResizeTableCache {
  const void* owner = nullptr;  // what built `tables`; nullptr: nothing
  int channels = 0;
  ResizeAxis axis;  // the axis `tables` was built from
  std::vector<int32_t> tables;
};

// Buffers a kernel may grow and reuse from call to call; a worker that keeps
// one does not allocate once they are large enough.
struct ResizeScratch {
  // The horizontal pass's output rows; the vertical pass's when it runs
  // first.
  std::vector<uint8_t> rows;
  std::vector<uint8_t> vertical_rows;
  std::vector<int32_t> tables;  // per-call tables of a variant
  // Input rows copied where a variant would read past the caller's buffer,
  // and where a variant keeps them, pointers to the input rows it reads.
  std::vector<uint8_t> row_copy;
  std::vector<const uint8_t*> row_pointers;
  ResizeTableCache horizontal;  // a variant's horizontal-pass tables
  ResizeTableCache vertical;    // and vertical-pass tables
};

// Which pass runs first (see the overview).
enum class ResizePassOrder { kHorizontalFirst, kVerticalFirst };

// Preconditions: channels in 1..4; the horizontal axis maps the box width to
// the output width, the vertical one the box height to the output height;
// row (y) of the box starts at input + y * input_row_stride, and
// input_readable bytes from `input` may be read (at least the box's last row
// ends inside them); output rows are output_row_stride bytes apart and hold
// out_width * channels bytes.
struct ResizeArgs {
  const uint8_t* input;
  int64_t input_row_stride;
  size_t input_readable;
  int channels;
  const ResizeAxis* horizontal;
  const ResizeAxis* vertical;
  uint8_t* output;
  int64_t output_row_stride;
  ResizeScratch* scratch;
  ResizePassOrder order = ResizePassOrder::kHorizontalFirst;
};

// Pillow's antialiasing filters fusednorm computes: BILINEAR (a triangle of
// support 1) and BICUBIC (cubic convolution with a = -0.5, support 2).
enum class PillowFilter { kBilinear, kBicubic };

// What Pillow's precompute_coeffs computes once per axis of a box starting
// at 0: scale = in_size / out_size (in_size as a float, as Pillow's box is;
// exact for in_size <= 2^20), the filter's support widened by the downscale
// factor, and ss = 1 / that factor. Every row's weights code starts from
// these.
struct PillowAxisScale {
  double scale, support, ss;
};
PillowAxisScale PillowScale(PillowFilter filter, int64_t in_size,
                            int64_t out_size);
PillowAxisScale PillowBilinearScale(int64_t in_size, int64_t out_size);

// Fills `axis` for in_size -> out_size (both >= 1) with Pillow's weights for
// `filter`, computed in double, normalized and rounded to fixed point as
// Pillow 9.4's precompute_coeffs and normalize_coeffs_8bpc do. Bicubic
// weights can be negative and add up to more than one on either side; the
// passes clamp as Pillow does. Reuses axis's storage.
void PillowAxis(PillowFilter filter, int64_t in_size, int64_t out_size,
                ResizeAxis* axis);

// PillowAxis for BILINEAR.
void PillowBilinearAxis(int64_t in_size, int64_t out_size, ResizeAxis* axis);

using ResizeFn = void (*)(const ResizeArgs& args);
// Fills an axis with Pillow's bilinear weights (PillowBilinearAxis's
// contract, the same integers).
using ResizeAxisFn = void (*)(int64_t in_size, int64_t out_size,
                              ResizeAxis* axis);

struct ResizeKernelInfo {
  const char* id;     // "scalar", "highway", "highway_avx2", ...
  const char* needs;  // human-readable CPU features
  int priority;       // higher wins among the supported rows
  bool (*supported)();
  ResizeFn fn;
  // The SIMD target the row dispatches to on this CPU, or nullptr.
  const char* (*target)() = nullptr;
  // The row's way to make Pillow's weights (the ops make them with the row
  // they resize with); a row without one of its own takes the scalar code.
  ResizeAxisFn axis = &PillowBilinearAxis;
};

// True when the axis maps every output to its own input with weight 1 (the
// pass changes nothing and may be skipped).
bool IsIdentity(const ResizeAxis& axis);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_RESIZE_RESIZE_KERNEL_H_
