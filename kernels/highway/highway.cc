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

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/highway/highway.cc"
#include "hwy/cache_control.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/formats.h"
#include "kernels/highway/highway.h"
#include "kernels/kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

constexpr int64_t kChunkPixels = 256;
// Enough float lanes for the widest vector any target has, plus a pattern's
// phase shift.
constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);

// Per-call constants as lane patterns: for period P (values per output pixel in
// the order the elements are processed), a[k] holds channel k % P's constant.
struct Patterns {
  HWY_ALIGN float a[kMaxLanes + 4];
  HWY_ALIGN float b[kMaxLanes + 4];
  HWY_ALIGN float r[kMaxLanes + 4];  // exact mode: 1 / std
};

// How values are computed: fast mode, or exact mode with divisions or with
// corrected reciprocals (where the CPU fuses multiply-adds and
// KernelConstants::exact_by_fma vouches for every input).
enum class Math { kFast, kExactDiv, kExactFma };

// Fast mode: y = x * a - b. Exact mode: y = (x / 255 - a) / b. Lanes of
// channels the image lacks (HWC4 padding) get a = 0, b = 1 (exact) or a = 0, b
// = 0 (fast): both give +0.0 for the zero byte the rearrangement puts there.
void MakePatterns(const KernelConstants& k, int period,
                  const int* channel_of_lane_mod, int first_channel,
                  Patterns* p) {
  for (size_t i = 0; i < kMaxLanes + 4; ++i) {
    const int c =
        channel_of_lane_mod ? channel_of_lane_mod[i % period] : first_channel;
    const bool pad = c < 0;
    if (k.mode == Mode::kFast) {
      p->a[i] = pad ? 0.0f : k.mul[c];
      p->b[i] = pad ? 0.0f : k.sub[c];
      p->r[i] = 0.0f;
    } else {
      p->a[i] = pad ? 0.0f : k.mean[c];
      p->b[i] = pad ? 1.0f : k.std[c];
      p->r[i] = pad ? 1.0f : k.recip_std[c];
    }
  }
}

HWY_INLINE VF LoadU8AsFloat(DF df, const uint8_t* p) {
  const hn::Rebind<uint8_t, DF> d8;
  const hn::Rebind<int32_t, DF> di;
  return hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, p)));
}

template <Math kMath>
HWY_INLINE VF Normalize(DF df, VF x, VF a, VF b, VF r) {
  if (kMath == Math::kFast) {
    // two roundings; -ffp-contract=off keeps them apart
    return hn::Sub(hn::Mul(x, a), b);
  }
  const VF k255 = hn::Set(df, 255.0f);
#if HWY_NATIVE_FMA
  if (kMath == Math::kExactFma) {
    // q = a / b as q0 = a * (1/b), q0 + (a - q0 * b) * (1/b), each FMA rounded
    // once: the same bits as the divisions (checked for every input).
    const VF r255 = hn::Set(df, 1.0f / 255.0f);
    const VF t0 = hn::Mul(x, r255);
    const VF t = hn::MulAdd(hn::NegMulAdd(t0, k255, x), r255, t0);
    const VF d = hn::Sub(t, a);
    const VF y0 = hn::Mul(d, r);
    return hn::MulAdd(hn::NegMulAdd(y0, b, d), r, y0);
  }
#endif
  (void)r;
  // torchvision: x / 255.f, then (t - mean) / std; IEEE division is correctly
  // rounded.
  return hn::Div(hn::Sub(hn::Div(x, k255), a), b);
}

// float -> float16 bits, round to nearest even, for finite inputs (overflow ->
// infinity): FloatToHalfBits of kernels/formats.h, a vector at a time.
// Targets with F16C, and Arm's NEON and SVE targets, convert in hardware with
// the same rounding; Highway 1.0.3's emulation (EMU128, SCALAR, SSSE3, SSE4)
// truncates, so those targets use this integer version of formats.h's steps.
template <class DU16>
HWY_INLINE hn::Vec<DU16> HalfBitsOf(DF df, VF v) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 ||    \
    HWY_TARGET == HWY_AVX3_DL || HWY_TARGET == HWY_NEON || \
    HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 ||     \
    HWY_TARGET == HWY_SVE_256 || HWY_TARGET == HWY_SVE2_128
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::BitCast(DU16(), hn::DemoteTo(dh, v));
#else
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  using VU = hn::Vec<decltype(du)>;
  const VU bits = hn::BitCast(du, v);
  const VU sign = hn::And(bits, hn::Set(du, 0x80000000u));
  const VU abs = hn::Xor(bits, sign);
  // Subnormal (or zero) results: adding 0.5f aligns the half's last bit with
  // the float's last bit, and the float addition rounds to nearest even.
  const VF magic = hn::BitCast(df, hn::Set(du, 0x3F000000u));
  const VU sub = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, abs), magic)),
                         hn::Set(du, 0x3F000000u));
  // Normal results: rebias the exponent, add 0xfff plus the lowest kept bit,
  // shift.
  const VU odd = hn::And(hn::ShiftRight<13>(abs), hn::Set(du, 1u));
  const VU normal =
      hn::ShiftRight<13>(hn::Add(hn::Add(abs, hn::Set(du, 0xC8000FFFu)),
                                 odd));  // (15 - 127) << 23 + 0xfff
  const auto is_sub =
      hn::Lt(hn::BitCast(di, abs), hn::Set(di, 0x38800000));  // < 2^-14
  const auto is_inf =
      hn::Lt(hn::Set(di, 0x477FFFFF), hn::BitCast(di, abs));  // >= 2^16
  VU h = hn::IfThenElse(hn::RebindMask(du, is_sub), sub, normal);
  h = hn::IfThenElse(hn::RebindMask(du, is_inf), hn::Set(du, 0x7C00u), h);
  h = hn::Or(h, hn::ShiftRight<16>(sign));
  return hn::DemoteTo(DU16(), hn::BitCast(di, h));  // values fit in 16 bits
#endif
}

// float -> bfloat16 bits, round to nearest even: FloatToBFloat16Bits of
// kernels/formats.h, a vector at a time (Highway 1.0.3's DemoteTo truncates).
template <class DU16>
HWY_INLINE hn::Vec<DU16> BFloat16BitsOf(DF df, VF v) {
  const hn::RebindToUnsigned<DF> du;
  const hn::RebindToSigned<DF> di;
  const auto bits = hn::BitCast(du, v);
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du, 1u));
  const auto rounded = hn::Add(bits, hn::Add(lsb, hn::Set(du, 0x7FFFu)));
  return hn::DemoteTo(DU16(), hn::BitCast(di, hn::ShiftRight<16>(rounded)));
}

// Output element types: float, or 16-bit patterns for float16/bfloat16.
template <DType kDType>
struct Out {
  using T = uint16_t;
};
template <>
struct Out<DType::kFloat32> {
  using T = float;
};

template <DType kDType>
HWY_INLINE void StoreValues(DF df, VF v, typename Out<kDType>::T* p,
                            bool stream) {
  if constexpr (kDType == DType::kFloat32) {
    if (stream) {
      hn::Stream(v, df, p);
    } else {
      hn::StoreU(v, df, p);
    }
  } else {
    const hn::Rebind<uint16_t, DF> d16;
    const auto bits = kDType == DType::kFloat16
                          ? HalfBitsOf<decltype(d16)>(df, v)
                          : BFloat16BitsOf<decltype(d16)>(df, v);
    if (stream) {
      hn::Stream(bits, d16, p);
    } else {
      hn::StoreU(bits, d16, p);
    }
  }
}

// Normalizes runs of u8 elements whose lane pattern repeats every kPeriod
// elements (element i uses pattern lane i % kPeriod). Holds only a pointer to
// the patterns: SVE vectors are sizeless, so no class member or array may be
// a vector. The kPeriod (1..4) constant vectors of a block are loaded into
// four variables once per run and stay in registers across its blocks.
template <int kPeriod, Math kMath, DType kDType>
class Converter {
 public:
  using T = typename Out<kDType>::T;

  explicit Converter(const Patterns& pat) : pat_(&pat) {}

  // Converts src[0, n) into dst[0, n); n must start at a pattern phase of 0.
  // Reads and writes nothing outside those ranges.
  HWY_INLINE void Run(const uint8_t* HWY_RESTRICT src, size_t n,
                      T* HWY_RESTRICT dst, bool nontemporal) const {
    const DF df;
    const size_t N = hn::Lanes(df);
    // Streaming stores need aligned, whole 128-bit (or wider) vectors: x86's
    // streaming store of a partial vector (float16 from 4 floats on SSE4)
    // writes 16 bytes.
    const size_t store_bytes = N * sizeof(T);
    if (!nontemporal || store_bytes % 16 != 0) {
      const size_t i = Blocks<false>(src, n, dst);
      Partial(src + i, n - i, dst + i);
      return;
    }
    // Peel a whole number of pixels (periods) until dst is aligned, so that a
    // span starting mid-row (after an erased span) still streams.
    size_t peel = 0;
    while (peel < n &&
           reinterpret_cast<uintptr_t>(dst + peel) % store_bytes != 0) {
      peel += kPeriod;
      if (peel >= kPeriod * N) {  // no pixel boundary is aligned
        peel = 0;
        break;
      }
    }
    peel = std::min(peel, n);
    const bool aligned =
        reinterpret_cast<uintptr_t>(dst + peel) % store_bytes == 0;
    if (peel > 0) Partial(src, peel, dst);
    const size_t i =
        peel + (aligned ? Blocks<true>(src + peel, n - peel, dst + peel)
                        : Blocks<false>(src + peel, n - peel, dst + peel));
    Partial(src + i, n - i, dst + i);
  }

 private:
  // Vector j of a block starts at element j * N: pattern phase (j * N) % P.
  // j may exceed the period (the load is then unused): it stays in bounds.
  HWY_INLINE VF Pattern(DF df, const float* p, int j) const {
    return hn::LoadU(df, p + (j * hn::Lanes(df)) % kPeriod);
  }

  template <bool kStream>
  HWY_INLINE void One(DF df, const uint8_t* HWY_RESTRICT src,
                      T* HWY_RESTRICT dst, VF a, VF b, VF r) const {
    const VF x = LoadU8AsFloat(df, src);
    StoreValues<kDType>(df, Normalize<kMath>(df, x, a, b, r), dst, kStream);
  }

  // Converts fewer than one block of elements (n < kPeriod * N, starting at
  // phase 0) through a zero-padded block, so that vector loads and stores stay
  // inside the caller's buffers.
  HWY_INLINE void Partial(const uint8_t* HWY_RESTRICT src, size_t n,
                          T* HWY_RESTRICT dst) const {
    if (n == 0) return;
    const DF df;
    const size_t N = hn::Lanes(df);
    HWY_ALIGN uint8_t in_tail[4 * kMaxLanes] = {};
    HWY_ALIGN T out_tail[4 * kMaxLanes];
    std::memcpy(in_tail, src, n);
    for (int j = 0; j < kPeriod; ++j) {
      One<false>(df, in_tail + j * N, out_tail + j * N, Pattern(df, pat_->a, j),
                 Pattern(df, pat_->b, j), Pattern(df, pat_->r, j));
    }
    std::memcpy(dst, out_tail, n * sizeof(T));
  }

  // Converts the whole blocks of src[0, n); returns how many elements that was.
  template <bool kStream>
  HWY_INLINE size_t Blocks(const uint8_t* HWY_RESTRICT src, size_t n,
                           T* HWY_RESTRICT dst) const {
    const DF df;
    const size_t N = hn::Lanes(df);
    const float *pa = pat_->a, *pb = pat_->b, *pr = pat_->r;
    const VF a0 = Pattern(df, pa, 0), b0 = Pattern(df, pb, 0),
             r0 = Pattern(df, pr, 0);
    const VF a1 = Pattern(df, pa, 1), b1 = Pattern(df, pb, 1),
             r1 = Pattern(df, pr, 1);
    const VF a2 = Pattern(df, pa, 2), b2 = Pattern(df, pb, 2),
             r2 = Pattern(df, pr, 2);
    const VF a3 = Pattern(df, pa, 3), b3 = Pattern(df, pb, 3),
             r3 = Pattern(df, pr, 3);
    const size_t block = kPeriod * N;
    size_t i = 0;
    for (; i + block <= n; i += block) {
      One<kStream>(df, src + i, dst + i, a0, b0, r0);
      if (kPeriod > 1) One<kStream>(df, src + i + N, dst + i + N, a1, b1, r1);
      if (kPeriod > 2) {
        One<kStream>(df, src + i + 2 * N, dst + i + 2 * N, a2, b2, r2);
      }
      if (kPeriod > 3) {
        One<kStream>(df, src + i + 3 * N, dst + i + 3 * N, a3, b3, r3);
      }
    }
    return i;
  }

  const Patterns* pat_;
};

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

  explicit Rearranger(bool flip) : flip_(flip) {
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
#if HWY_TARGET != HWY_SCALAR
    const hn::Full128<uint8_t> d8;
    using V8 = hn::Vec<decltype(d8)>;
    const int64_t blocks = count / 16;
    for (int64_t b = 0; b < blocks; ++b) {
      // Flipped, the blocks go from the last to the first so that the input
      // is still read in ascending order: the prefetchers follow ascending
      // streams far better, which matters once the input is not in cache.
      const int64_t j = (flip_ ? blocks - 1 - b : b) * 16;
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
    i = blocks * 16;
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
  bool flip_;
  HWY_ALIGN uint8_t index_[kOut][kC][16];
};

// Scratch for one chunk of rearranged bytes (Rearranger's 16-pixel blocks store
// exactly their own bytes, so no slack is needed).
struct Scratch {
  HWY_ALIGN uint8_t bytes[kMaxChannels * kChunkPixels];
};

// Copies n bytes to dst with streaming stores for its aligned middle.
HWY_INLINE void StreamCopy(uint8_t* HWY_RESTRICT dst,
                           const uint8_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);
  size_t i = 0;
  if (V >= 16 && n >= 2 * V) {
    i = (V - reinterpret_cast<uintptr_t>(dst) % V) % V;
    std::memcpy(dst, src, i);
    for (; i + V <= n; i += V) hn::Stream(hn::LoadU(d8, src + i), d8, dst + i);
  }
  std::memcpy(dst + i, src + i, n - i);
}

// With streaming stores, a row that is partly erased is assembled in L1 (values
// and zeros) and then streamed whole: regular stores to lines that streaming
// stores also write would pull those lines into the cache and stall the writes.
template <typename T>
struct RowBuffer {
  HWY_ALIGN T values[kMaxChannels * kChunkPixels];

  // Zeroes pixels [e0, e1) of the chunk starting at pixel w0 (count pixels of
  // `stored` values each, from `first`).
  void ZeroErased(int64_t w0, int64_t count, int64_t e0, int64_t e1, int stored,
                  T* first) {
    const int64_t lo = std::max(w0, e0), hi = std::min(w0 + count, e1);
    if (hi > lo)
      std::memset(first + (lo - w0) * stored, 0,
                  (hi - lo) * stored * sizeof(T));
  }
};

// Sets n values at dst to +0.0: with streaming stores for the aligned middle
// when `nontemporal`, so erased spans bypass the caches like the rest.
template <typename T>
void Zero(T* dst, size_t n, bool nontemporal) {
  const hn::ScalableTag<uint8_t> d8;
  const size_t V = hn::Lanes(d8);
  uint8_t* p = reinterpret_cast<uint8_t*>(dst);
  size_t bytes = n * sizeof(T);
  if (nontemporal && V >= 16 && bytes >= 2 * V) {
    const size_t head = (V - reinterpret_cast<uintptr_t>(p) % V) % V;
    std::memset(p, 0, head);
    p += head;
    bytes -= head;
    for (; bytes >= V; p += V, bytes -= V) hn::Stream(hn::Zero(d8), d8, p);
  }
  std::memset(p, 0, bytes);
}

// The erased span [e0, e1) of row h: +0.0 in every stored value.
template <typename T>
void EraseSpan(T* out, Layout layout, int64_t H, int64_t W, int stored,
               int64_t h, int64_t e0, int64_t e1, bool nontemporal) {
  if (layout == Layout::kCHW) {
    for (int c = 0; c < stored; ++c) {
      Zero(out + (c * H + h) * W + e0, e1 - e0, nontemporal);
    }
  } else {
    Zero(out + (h * W + e0) * stored, (e1 - e0) * stored, nontemporal);
  }
}

// The erase columns [e0, e1) of row h, or an empty range.
HWY_INLINE void EraseColumns(const KernelArgs& a, int64_t h, int64_t* e0,
                             int64_t* e1) {
  *e0 = *e1 = a.width;
  if (ErasesRow(a.erase, h)) {
    *e0 = a.erase.left;
    *e1 = a.erase.left + a.erase.width;
  }
}

// One partly erased HWC/HWC4 row written with streaming stores (see RowBuffer).
// `rearrange` is null when the input row is read as it is.
template <int kC, int kStored, class Conv, typename T>
void ErasedRowStreamed(const Conv& convert,
                       const Rearranger<kC, kStored, false>* rearrange,
                       const uint8_t* in_row, int64_t W, int64_t h, int64_t e0,
                       int64_t e1, T* out) {
  Scratch scratch;
  RowBuffer<T> row;
  for (int64_t w0 = 0; w0 < W; w0 += kChunkPixels) {
    const int64_t count = std::min<int64_t>(kChunkPixels, W - w0);
    const uint8_t* src = in_row + w0 * kC;
    if (rearrange != nullptr) {
      rearrange->Run(in_row, W, w0, count, scratch.bytes, 0);
      src = scratch.bytes;
    }
    convert.Run(src, count * kStored, row.values, false);
    row.ZeroErased(w0, count, e0, e1, kStored, row.values);
    StreamCopy(reinterpret_cast<uint8_t*>(out + (h * W + w0) * kStored),
               reinterpret_cast<const uint8_t*>(row.values),
               count * kStored * sizeof(T));
  }
}

// HWC and HWC4 outputs: one converter of period `kStored`.
template <int kC, int kStored, Math kMath, DType kDType>
void RunInterleaved(const KernelConstants& k, const KernelArgs& a) {
  using T = typename Out<kDType>::T;
  const int64_t H = a.height, W = a.width;
  T* const out = static_cast<T*>(a.output);
  Patterns pat;
  int lane_channel[4];
  for (int c = 0; c < 4; ++c) lane_channel[c] = c < kC ? c : -1;
  MakePatterns(k, kStored, lane_channel, 0, &pat);
  const Converter<kStored, kMath, kDType> convert(pat);
  const bool direct =
      !a.flip && kStored == kC;  // read the input rows as they are

  // Direct and compact: the rows outside the erase rectangle are contiguous in
  // the input and the output, so each such band is one run.
  if (direct && a.input_row_stride == W * kC) {
    const int64_t top = a.erase.empty() ? H : a.erase.top;
    const int64_t bottom = a.erase.empty() ? H : top + a.erase.height;
    const int64_t bands[2][2] = {{0, top}, {bottom, H}};
    for (const auto& band : bands) {
      if (band[1] > band[0]) {
        convert.Run(a.input + band[0] * W * kC, (band[1] - band[0]) * W * kC,
                    out + band[0] * W * kC, a.nontemporal);
      }
    }
    for (int64_t h = top; h < bottom; ++h) {
      const uint8_t* in_row = a.input + h * a.input_row_stride;
      const int64_t e0 = a.erase.left, e1 = a.erase.left + a.erase.width;
      if (a.nontemporal) {
        ErasedRowStreamed<kC, kStored>(convert, nullptr, in_row, W, h, e0, e1,
                                       out);
        continue;
      }
      convert.Run(in_row, e0 * kC, out + h * W * kC, a.nontemporal);
      EraseSpan(out, Layout::kHWC, H, W, kC, h, e0, e1, a.nontemporal);
      convert.Run(in_row + e1 * kC, (W - e1) * kC, out + (h * W + e1) * kC,
                  a.nontemporal);
    }
    return;
  }

  const Rearranger<kC, kStored, false> rearrange(a.flip);
  Scratch scratch;
  for (int64_t h = 0; h < H; ++h) {
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    int64_t e0, e1;
    EraseColumns(a, h, &e0, &e1);
    if (a.nontemporal && e1 > e0) {
      ErasedRowStreamed<kC, kStored>(convert, direct ? nullptr : &rearrange,
                                     in_row, W, h, e0, e1, out);
      continue;
    }
    const int64_t spans[2][2] = {{0, e0}, {e1, W}};
    for (const auto& span : spans) {
      for (int64_t w0 = span[0]; w0 < span[1]; w0 += kChunkPixels) {
        const int64_t count = std::min<int64_t>(kChunkPixels, span[1] - w0);
        const uint8_t* src = in_row + w0 * kC;
        if (!direct) {
          rearrange.Run(in_row, W, w0, count, scratch.bytes, 0);
          src = scratch.bytes;
        }
        convert.Run(src, count * kStored, out + (h * W + w0) * kStored,
                    a.nontemporal);
      }
    }
    if (e1 > e0) {
      EraseSpan(out, Layout::kHWC4, H, W, kStored, h, e0, e1, a.nontemporal);
    }
  }
}

// CHW output: the chunk's bytes split into planes, one converter per channel.
template <int kC, Math kMath, DType kDType>
void RunPlanar(const KernelConstants& k, const KernelArgs& a) {
  using T = typename Out<kDType>::T;
  const int64_t H = a.height, W = a.width;
  T* const out = static_cast<T*>(a.output);
  Patterns pat[kMaxChannels];
  for (int c = 0; c < kC; ++c) MakePatterns(k, 1, nullptr, c, &pat[c]);
  using Conv = Converter<1, kMath, kDType>;
  const Conv convert[kMaxChannels] = {Conv(pat[0]), Conv(pat[kC > 1 ? 1 : 0]),
                                      Conv(pat[kC > 2 ? 2 : 0]),
                                      Conv(pat[kC > 3 ? 3 : 0])};
  const Rearranger<kC, kC, true> rearrange(a.flip);
  Scratch scratch;
  RowBuffer<T> row;
  for (int64_t h = 0; h < H; ++h) {
    const uint8_t* in_row = a.input + h * a.input_row_stride;
    int64_t e0, e1;
    EraseColumns(a, h, &e0, &e1);
    if (a.nontemporal &&
        e1 > e0) {  // streamed whole, plane by plane (RowBuffer)
      for (int64_t w0 = 0; w0 < W; w0 += kChunkPixels) {
        const int64_t count = std::min<int64_t>(kChunkPixels, W - w0);
        const uint8_t* planes = in_row + w0;
        if (kC > 1 || a.flip) {
          rearrange.Run(in_row, W, w0, count, scratch.bytes, kChunkPixels);
          planes = scratch.bytes;
        }
        for (int c = 0; c < kC; ++c) {
          convert[c].Run(planes + c * kChunkPixels, count, row.values, false);
          row.ZeroErased(w0, count, e0, e1, 1, row.values);
          StreamCopy(reinterpret_cast<uint8_t*>(out + (c * H + h) * W + w0),
                     reinterpret_cast<const uint8_t*>(row.values),
                     count * sizeof(T));
        }
      }
      continue;
    }
    const int64_t spans[2][2] = {{0, e0}, {e1, W}};
    for (const auto& span : spans) {
      for (int64_t w0 = span[0]; w0 < span[1]; w0 += kChunkPixels) {
        const int64_t count = std::min<int64_t>(kChunkPixels, span[1] - w0);
        const uint8_t* planes = in_row + w0;  // one channel, no flip: direct
        if (kC > 1 || a.flip) {
          rearrange.Run(in_row, W, w0, count, scratch.bytes, kChunkPixels);
          planes = scratch.bytes;
        }
        for (int c = 0; c < kC; ++c) {
          convert[c].Run(planes + c * kChunkPixels, count,
                         out + (c * H + h) * W + w0, a.nontemporal);
        }
      }
    }
    if (e1 > e0) {
      EraseSpan(out, Layout::kCHW, H, W, kC, h, e0, e1, a.nontemporal);
    }
  }
}

template <int kC, Math kMath, DType kDType>
void RunChannels(const KernelConstants& k, const KernelArgs& a) {
  switch (k.layout) {
    case Layout::kHWC:
      return RunInterleaved<kC, kC, kMath, kDType>(k, a);
    case Layout::kHWC4:
      return RunInterleaved<kC, 4, kMath, kDType>(k, a);
    case Layout::kCHW:
      return RunPlanar<kC, kMath, kDType>(k, a);
  }
}

template <Math kMath, DType kDType>
void RunTyped(const KernelConstants& k, const KernelArgs& a) {
  switch (a.channels) {
    case 1:
      RunChannels<1, kMath, kDType>(k, a);
      break;
    case 2:
      RunChannels<2, kMath, kDType>(k, a);
      break;
    case 3:
      RunChannels<3, kMath, kDType>(k, a);
      break;
    default:
      RunChannels<4, kMath, kDType>(k, a);
  }
  if (a.nontemporal) hwy::FlushStream();
}

template <Math kMath>
void RunMode(const KernelConstants& k, const KernelArgs& a) {
  switch (k.dtype) {
    case DType::kFloat32:
      return RunTyped<kMath, DType::kFloat32>(k, a);
    case DType::kFloat16:
      return RunTyped<kMath, DType::kFloat16>(k, a);
    case DType::kBFloat16:
      return RunTyped<kMath, DType::kBFloat16>(k, a);
  }
}

void HighwayRun(const KernelConstants& k, const KernelArgs& a) {
  if (k.mode == Mode::kFast) {
    RunMode<Math::kFast>(k, a);
    return;
  }
#if HWY_NATIVE_FMA
  if (k.exact_by_fma) {
    RunMode<Math::kExactFma>(k, a);
    return;
  }
#endif
  RunMode<Math::kExactDiv>(k, a);
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

// The per-target rows are generated from HWY_TARGETS, the targets this file
// was compiled for: one row per set bit, best (lowest bit) first. Each row
// runs that target's HighwayRun, taken from the table HWY_EXPORT built. All
// of this is baseline code; a target's code runs only through its row, after
// the row's supported() check.

// Highway puts its fallback target (EMU128, or SCALAR where EMU128 is not
// compiled) last in an HWY_EXPORT table; no build compiles both.
static_assert((HWY_TARGETS & HWY_EMU128) == 0 ||
                  (HWY_TARGETS & HWY_SCALAR) == 0,
              "EMU128 and SCALAR both compiled: one would have no table entry");

// The HWY_EXPORT table entry of `target`, found as Highway's own
// ChosenTarget::GetIndex finds the entry of the chosen target.
size_t TableIndex(int64_t target) {
  if (target & (HWY_EMU128 | HWY_SCALAR)) return HWY_MAX_DYNAMIC_TARGETS + 1;
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(
      static_cast<uint64_t>(HWY_CHOSEN_TARGET_SHIFT(target)));
}

template <int kBit>
bool TargetSupported() {
  return (hwy::SupportedTargets() & (int64_t{1} << kBit)) != 0;
}

template <int kBit>
const char* TargetName() {
  return hwy::TargetName(int64_t{1} << kBit);
}

// "highway_avx3" and "Highway target AVX3" for target bit kBit, made once.
template <int kBit>
const std::string& TargetText(bool id) {
  static const std::string* texts = [] {
    const std::string name = TargetName<kBit>();
    std::string lower = name;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
    return new std::string[2]{"highway_" + lower, "Highway target " + name};
  }();
  return texts[id ? 0 : 1];
}

template <int kBit>
void AddTargetRow(std::vector<KernelInfo>* rows) {
  constexpr int64_t target = int64_t{1} << kBit;
  if constexpr ((HWY_TARGETS & target) != 0) {
    rows->push_back({TargetText<kBit>(true).c_str(),
                     TargetText<kBit>(false).c_str(), 10,
                     &TargetSupported<kBit>, &CoversAll,
                     HWY_DISPATCH_TABLE(HighwayRun)[TableIndex(target)],
                     &TargetName<kBit>});
  }
}

template <int... kBits>
void AddTargetRows(std::integer_sequence<int, kBits...>,
                   std::vector<KernelInfo>* rows) {
  (AddTargetRow<kBits>(rows), ...);
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
  AddTargetRows(std::make_integer_sequence<int, 63>(), &rows);
  return rows;
}

const char* HighwayActiveTarget() {
  const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  // Targets are bits; a lower bit is a better target.
  return hwy::TargetName(supported & -supported);
}

}  // namespace fusednorm
#endif  // HWY_ONCE
