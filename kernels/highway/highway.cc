// The Highway kernel. This file is compiled once per Highway target through
// foreach_target.h; everything between HWY_BEFORE_NAMESPACE and
// HWY_AFTER_NAMESPACE exists once per target, the rest (HWY_ONCE) once.
//
// How one image is processed, row by row, in one pass:
//
// 1. A row is split into output spans: before the erase rectangle, inside it
//    (zeros, stored directly) and after it.
// 2. Each span is processed in chunks of up to kChunkPixels pixels. When the
//    output needs the input bytes in another order (flip, HWC4 padding, CHW
//    planes), the chunk's bytes are first rearranged into a small scratch
//    buffer that stays in L1; for HWC without flip the input row is read
//    directly.
// 3. The u8 values are widened to float, normalized and narrowed to the
//    output type, one vector at a time; the channel of each lane follows a
//    repeating pattern, so each block of P vectors (P = values per pixel) uses
//    P precomputed constant vectors.
// 4. Row ends that do not fill a whole block go through a zero-padded scratch
//    block and only the valid bytes are copied out: no load or store ever
//    leaves the caller's buffers.
//
// rows.cc has the row loops and the dispatch on layout and channels,
// compiled once per output dtype and math; its per-target parts live in
// -inl.h files:
// convert-inl.h (steps 3 and 4), rearrange-inl.h (the reordering in step 2;
// on AVX3_DL its 64-pixel blocks go through gather-inl.h's byte permutes),
// stores-inl.h (erased spans and streaming stores) and lookup-inl.h (AVX3_DL:
// 16-bit CHW and HWC4 outputs looked up instead of steps 2 to 4). This file
// is the driver: the dispatch on dtype and math, and the table rows.

#include <cstdint>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/highway/highway.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/formats.h"
#include "kernels/highway/highway.h"
#include "kernels/highway/target_rows.h"
#include "kernels/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

// Defined in rows.cc, one instance per dtype and math.
template <DType kDType, int kMath>
void RunRows(const KernelConstants& k, const KernelArgs& a);

// The maths by Math's values (kernels/highway/convert-inl.h; rows.cc checks
// them): fast mode, exact mode by division or by fused multiply-adds.
constexpr int kFast = 0, kExactDiv = 1, kExactFma = 2;

template <DType kDType>
void RunDType(const KernelConstants& k, const KernelArgs& a) {
  if (k.mode == Mode::kFast) return RunRows<kDType, kFast>(k, a);
#if HWY_NATIVE_FMA
  if (k.exact_by_fma) return RunRows<kDType, kExactFma>(k, a);
#endif
  RunRows<kDType, kExactDiv>(k, a);
}

void HighwayRun(const KernelConstants& k, const KernelArgs& a) {
  switch (k.dtype) {
    case DType::kFloat32:
      return RunDType<DType::kFloat32>(k, a);
    case DType::kFloat16:
      return RunDType<DType::kFloat16>(k, a);
    case DType::kBFloat16:
      return RunDType<DType::kBFloat16>(k, a);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

HWY_EXPORT(HighwayRun);

namespace {

void RunDynamic(const KernelConstants& k, const KernelArgs& a) {
  HWY_DYNAMIC_DISPATCH(HighwayRun)(k, a);
}

bool Always() { return true; }

bool CoversAll(DType, Layout, Mode, int channels) {
  return channels >= 1 && channels <= kMaxChannels;
}

}  // namespace

// Priorities: the per-target rows rank just above scalar_eigen; "highway"
// itself, which runs the best of them, ranks above every other variant: it was
// the fastest in every configuration measured (README.md, "Benchmarks").
std::vector<KernelInfo> HighwayKernelInfos() {
  std::vector<KernelInfo> rows = {
      {"highway", "any (best Highway target)", 30, &Always, &CoversAll,
       &RunDynamic, &HighwayActiveTarget},
  };
  // One row per compiled target, best first, running that target's
  // HighwayRun from the table HWY_EXPORT built.
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    rows.push_back({hwy_rows::TargetText<kBit>(true),
                    hwy_rows::TargetText<kBit>(false), 10,
                    &hwy_rows::TargetSupported<kBit>, &CoversAll,
                    HWY_DISPATCH_TABLE(
                        HighwayRun)[hwy_rows::TableIndex(int64_t{1} << kBit)],
                    &hwy_rows::TargetName<kBit>});
  });
  return rows;
}

const char* HighwayActiveTarget() { return hwy_rows::ActiveTarget(); }

}  // namespace fusednorm
#endif  // HWY_ONCE
