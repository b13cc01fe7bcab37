// The mix-kernel contract: MixUp's arithmetic on two samples of a batch,
// as torch does it on a tensor of the output's dtype, and CutMix's copy of
// a box (paste, below):
//
//   cur[i] = round(round(partner[i] * a) + round(cur[i] * b))
//
// in float32 operations, round() to the dtype (float32: none; float16 and
// bfloat16: to nearest even, kernels/formats.h). `partner` and `cur` hold
// `values` elements of the dtype each and do not overlap; neither needs any
// alignment. `nontemporal` asks for streaming stores (core/stores.h), for a
// `cur` that this core will not read again soon; rows without them ignore
// it. Kernels never validate or fail: the batch ops (ops/batch_ops.h) check
// first. Every row agrees with the scalar row bit for bit, whatever the
// stores. No SIMD types here.
#ifndef FUSEDNORM_KERNELS_MIX_MIX_KERNEL_H_
#define FUSEDNORM_KERNELS_MIX_MIX_KERNEL_H_

#include <cstddef>
#include <cstdint>

#include "core/formats.h"

namespace fusednorm {

struct MixKernelInfo {
  const char* id;     // "scalar", "highway", "highway_avx2", ...
  const char* needs;  // human-readable CPU features
  int priority;       // higher wins among the supported rows
  bool (*supported)();
  // The SIMD target the row dispatches to on this CPU, or nullptr.
  const char* (*target)();

  void (*mix)(DType dtype, const uint8_t* partner, uint8_t* cur, size_t values,
              float a, float b, bool nontemporal);
  // CutMix's box: `rows` runs of `row_bytes` bytes copied from `from` to
  // `to`, run r starting r * stride bytes after the first in both (the
  // runs do not overlap, nor do `from`'s and `to`'s); `nontemporal` as
  // for mix. Bytes between the runs are neither read nor written.
  void (*paste)(const uint8_t* from, uint8_t* to, size_t rows, size_t row_bytes,
                size_t stride, bool nontemporal);
};

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_MIX_MIX_KERNEL_H_
