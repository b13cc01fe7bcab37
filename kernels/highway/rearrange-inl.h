// Rearrangement of a row's input bytes into the order the output needs
// (flipped, padded to 4 channels, or split into planes), with byte shuffles.
//
// A per-target part of the Highway kernel: kernels/highway/rows.cc
// includes it once per target (Highway's -inl.h convention), inside no
// namespace; the toggling guard below lets each target's pass through
// foreach_target.h compile it again.

// Per-target include guard.
#if defined(FUSEDNORM_KERNELS_HIGHWAY_REARRANGE_INL_H_) == \
    defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_HIGHWAY_REARRANGE_INL_H_
#undef FUSEDNORM_KERNELS_HIGHWAY_REARRANGE_INL_H_
#else
#define FUSEDNORM_KERNELS_HIGHWAY_REARRANGE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "kernels/highway/gather-inl.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rearranges the input bytes of a row's output pixels into the order the
// output needs, into L1-resident scratch: pixel order reversed for a flip,
// zero bytes added for HWC4's pad lanes (kStored > kC), or split into channel
// planes for CHW (kPlanar). Works on blocks of 16 pixels: the block's 16 * kC
// input bytes are loaded as kC vectors of 16 bytes (never a byte outside the
// row), and each 16-byte output vector is the OR of byte shuffles
// (TableLookupBytesOr0) of the loads it draws from. Leftover pixels are copied
// one by one.
template <int kC, int kStored, bool kPlanar>
class Rearranger {
 public:
  static constexpr int kOut = kPlanar ? kC : kStored;  // output vectors/block

  explicit Rearranger(bool flip)
      : flip_(flip)
#if HWY_TARGET == HWY_AVX3_DL
        ,
        gather_(flip)
#endif
  {
    for (int o = 0; o < kOut; ++o) {
      for (int l = 0; l < kC; ++l) {
        for (int k = 0; k < 16; ++k) index_[o][l][k] = 0x80;  // a zero byte
      }
      for (int k = 0; k < 16; ++k) {
        // Output vector o, byte k: pixel q, channel c of the block.
        const int q = kPlanar ? k : (16 * o + k) / kStored;
        const int c = kPlanar ? o : (16 * o + k) % kStored;
        if (c >= kC) continue;            // HWC4 pad: stays zero
        const int p = flip ? 15 - q : q;  // input pixel in the block
        const int src = p * kC + c;       // input byte in the block
        index_[o][src / 16][k] = static_cast<uint8_t>(src % 16);
      }
    }
  }

  // Writes output pixels [w0, w0 + count) of the row at `in_row` (W pixels)
  // into `dst`: interleaved, kStored bytes per pixel; planar, plane c at
  // dst + c * plane_stride.
  HWY_INLINE void Run(const uint8_t* in_row, int64_t W, int64_t w0,
                      int64_t count, uint8_t* dst, int64_t plane_stride) const {
    int64_t i = 0;
#if HWY_TARGET == HWY_AVX3_DL
    i = Run64(in_row, W, w0, count, dst, plane_stride);
#endif
#if HWY_TARGET != HWY_SCALAR
    const hn::Full128<uint8_t> d8;
    using V8 = hn::Vec<decltype(d8)>;
    const int64_t blocks = (count - i) / 16;
    for (int64_t b = 0; b < blocks; ++b) {
      // Flipped, the blocks go from the last to the first so that the input
      // is still read in ascending order: the prefetchers follow ascending
      // streams far better, which matters once the input is not in cache.
      const int64_t j = i + (flip_ ? blocks - 1 - b : b) * 16;
      // The block's first pixel in input order.
      const int64_t first = flip_ ? W - (w0 + j + 16) : w0 + j;
      // One variable per 16 input bytes (vectors are sizeless on SVE, so
      // there is no array of them); kC of them are loaded.
      const uint8_t* in = in_row + first * kC;
      const V8 in0 = hn::LoadU(d8, in);
      const V8 in1 = kC > 1 ? hn::LoadU(d8, in + 16) : in0;
      const V8 in2 = kC > 2 ? hn::LoadU(d8, in + 32) : in0;
      const V8 in3 = kC > 3 ? hn::LoadU(d8, in + 48) : in0;
      HWY_UNROLL(4)
      for (int o = 0; o < kOut; ++o) {
        V8 v = hn::TableLookupBytesOr0(in0, hn::Load(d8, index_[o][0]));
        if (kC > 1) {
          v = hn::Or(v,
                     hn::TableLookupBytesOr0(in1, hn::Load(d8, index_[o][1])));
        }
        if (kC > 2) {
          v = hn::Or(v,
                     hn::TableLookupBytesOr0(in2, hn::Load(d8, index_[o][2])));
        }
        if (kC > 3) {
          v = hn::Or(v,
                     hn::TableLookupBytesOr0(in3, hn::Load(d8, index_[o][3])));
        }
        uint8_t* to =
            kPlanar ? dst + o * plane_stride + j : dst + j * kStored + 16 * o;
        hn::StoreU(v, d8, to);
      }
    }
    i += blocks * 16;
#endif
    for (; i < count; ++i) {  // the leftover pixels
      const int64_t w = w0 + i;
      const uint8_t* px = in_row + (flip_ ? W - 1 - w : w) * kC;
      for (int c = 0; c < kC; ++c) {
        if (kPlanar) {
          dst[c * plane_stride + i] = px[c];
        } else {
          dst[i * kStored + c] = px[c];
        }
      }
      if (!kPlanar) {
        for (int c = kC; c < kStored; ++c) dst[i * kStored + c] = 0;
      }
    }
  }

 private:
#if HWY_TARGET == HWY_AVX3_DL
  // The whole 64-pixel blocks of Run's pixels through Gather64, last to
  // first when flipped (see Run); returns how many pixels that was.
  HWY_INLINE int64_t Run64(const uint8_t* in_row, int64_t W, int64_t w0,
                           int64_t count, uint8_t* dst,
                           int64_t plane_stride) const {
    const int64_t blocks = count / 64;
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t j = (flip_ ? blocks - 1 - b : b) * 64;
      const int64_t first = flip_ ? W - (w0 + j + 64) : w0 + j;
      const auto block =
          Gather64<kC, kStored, kPlanar>::Load(in_row + first * kC);
      for (int o = 0; o < kOut; ++o) {
        uint8_t* to =
            kPlanar ? dst + o * plane_stride + j : dst + j * kStored + 64 * o;
        _mm512_storeu_si512(to, gather_.Out(block, o));
      }
    }
    return blocks * 64;
  }
#endif

  bool flip_;
  HWY_ALIGN uint8_t index_[kOut][kC][16];
#if HWY_TARGET == HWY_AVX3_DL
  Gather64<kC, kStored, kPlanar> gather_;
#endif
};

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
