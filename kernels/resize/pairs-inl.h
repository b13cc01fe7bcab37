// The pair path of the Highway resize rows (highway_resize.cc), on the x86
// targets: both passes multiply 16-bit pairs (PMADDWD, or VPDPWSSD on
// AVX3_DL, which also adds), so one instruction makes two products of a
// 32-bit lane and their sum. pair_tables.h says how the weights are split so
// that the result is Pillow's exactly.
//
// Horizontal pass: one output value (a byte of an output pixel) per 32-bit
// lane; per tap pair, one byte shuffle puts each lane's two input bytes in
// its two 16-bit halves, from a window of the row: per 128-bit block with
// PSHUFB, per vector with VPERMB on AVX3_DL. Box rows 2m and 2m + 1 (from the
// first row the vertical pass reads) are computed together, sharing the
// tables' loads, and stored as one paired row: each lane holds the two rows'
// results (0 .. 255) as its 16-bit halves, in the lane order of the tables.
//
// Vertical pass: a paired row is already what the multiply-add wants, two
// rows' values of one output value in one lane; the rows' weights are the
// same for every lane. An output row whose window starts at an odd row gets
// a zero weight for the row before it. Four vectors of results are then
// rounded to bytes together (PACKSSDW and PACKUSWB in the tables' lane
// order, or VPERMT2B on AVX3_DL).
//
// Where the vertical pass is the identity, the horizontal pass writes bytes
// instead, and the rows are copied.
//
// Vertical pass run first (resize_kernel.h's order): there are no paired rows
// to read, so each tap pair's two box rows are paired as they are loaded
// and put in the tables' lane order: one byte permute per vector on
// AVX3_DL, two byte interleaves and four widenings per four vectors
// elsewhere. The horizontal pass then writes bytes.
//
// Included once per target; FUSEDNORM_RESIZE_PAIRS is 0 where the code does
// not exist (non-x86 targets take the generic path).

#if defined(FUSEDNORM_KERNELS_RESIZE_PAIRS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef FUSEDNORM_KERNELS_RESIZE_PAIRS_INL_H_
#undef FUSEDNORM_KERNELS_RESIZE_PAIRS_INL_H_
#else
#define FUSEDNORM_KERNELS_RESIZE_PAIRS_INL_H_
#endif

#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "kernels/resize/pair_tables.h"
#include "kernels/resize/resize_kernel.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

#undef FUSEDNORM_PAIRS_ATTR
#undef FUSEDNORM_RESIZE_PAIRS
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define FUSEDNORM_RESIZE_PAIRS 1

#if HWY_TARGET == HWY_AVX3_DL
using PD32 = hn::ScalableTag<int32_t>;  // 16 lanes
constexpr PairLayout kPairLayout{16, 16, 64, true};
// Highway 1.0.3 compiles AVX3_DL without AVX512-VNNI, although its run-time
// check for the target requires it: the pair functions add it.
#define FUSEDNORM_PAIRS_ATTR \
  __attribute__((target(HWY_TARGET_STR ",avx512vnni")))
#else
// 256 bits on AVX2 and AVX3 (per-block windows), 128 on SSE4 and SSSE3.
using PD32 = hn::CappedTag<int32_t, 8>;
constexpr PairLayout kPairLayout{static_cast<int>(hn::MaxLanes(PD32())), 4, 16,
                                 false};
#define FUSEDNORM_PAIRS_ATTR
#endif

using PD16 = hn::Repartition<int16_t, PD32>;
using PDU16 = hn::Repartition<uint16_t, PD32>;
using PDU8 = hn::Repartition<uint8_t, PD32>;
using PV32 = hn::Vec<PD32>;
using PV16 = hn::Vec<PD16>;
using PVU8 = hn::Vec<PDU8>;

constexpr int64_t kPairLanes = static_cast<int64_t>(hn::MaxLanes(PD32()));
// Output bytes (values) of one group of four vectors.
constexpr int64_t kPairGroup = 4 * kPairLanes;

// acc + a[2i] * b[2i] + a[2i + 1] * b[2i + 1] in lane i (x86's PMADDWD
// order, which ReorderWidenMulAccumulate keeps there).
FUSEDNORM_PAIRS_ATTR HWY_INLINE PV32 MulPairsAdd(PV32 acc, PV16 a, PV16 b) {
#if HWY_TARGET == HWY_AVX3_DL
  return PV32{_mm512_dpwssd_epi32(acc.raw, a.raw, b.raw)};
#else
  PV32 unused = hn::Zero(PD32());
  return hn::ReorderWidenMulAccumulate(PD32(), a, b, acc, unused);
#endif
}

// 4 * (Pillow's sum + 2^21) from the two sums (lo holds the rounding term):
// the result is its byte 3 (pair_tables.h).
FUSEDNORM_PAIRS_ATTR HWY_INLINE PV32 SumTimes4(PV32 hi, PV32 lo) {
  return hn::Add(hn::ShiftLeft<10>(hi), lo);
}

FUSEDNORM_PAIRS_ATTR HWY_INLINE PV32 RoundingTerm() {
  return hn::Set(PD32(), int32_t{4} << (kResizePrecisionBits - 1));
}

// The result in each lane (0 .. 255) from SumTimes4.
FUSEDNORM_PAIRS_ATTR HWY_INLINE PV32 ResultOf(PV32 sum4) {
  const hn::RebindToUnsigned<PD32> du;
  return hn::BitCast(PD32(), hn::ShiftRight<24>(hn::BitCast(du, sum4)));
}

// Two vectors of int16 as bytes, saturated, in each 128-bit block
// [a's block, b's block], 8 bytes each.
FUSEDNORM_PAIRS_ATTR HWY_INLINE PVU8 PackWords(PV16 a, PV16 b) {
#if HWY_TARGET == HWY_AVX3_DL
  return PVU8{_mm512_packus_epi16(a.raw, b.raw)};
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
  return PVU8{_mm256_packus_epi16(a.raw, b.raw)};
#else
  return PVU8{_mm_packus_epi16(a.raw, b.raw)};
#endif
}

// The four vectors' lanes as bytes, saturated, in each 128-bit block
// [a's block, b's block, c's block, d's block], 4 bytes each.
FUSEDNORM_PAIRS_ATTR HWY_INLINE PVU8 PackBlocks(PV32 a, PV32 b, PV32 c,
                                                PV32 d) {
  const PD16 d16;
  return PackWords(hn::ReorderDemote2To(d16, a, b),
                   hn::ReorderDemote2To(d16, c, d));
}

#if HWY_TARGET == HWY_AVX3_DL
// Byte 3 of every lane of a, b, c and d (the results of SumTimes4), output
// value m taken from lane m of the concatenation a b c d: two two-table
// byte permutes (VPERMT2B), each giving half the bytes, and a blend.
FUSEDNORM_PAIRS_ATTR HWY_INLINE PVU8 ThirdBytes(PV32 a, PV32 b, PV32 c,
                                                PV32 d) {
  // Index 64 * t + i reads byte i of table t (a or b, c or d).
  alignas(64) static constexpr uint8_t kIndices[64] = {
      3,  7,  11, 15, 19, 23, 27, 31, 35, 39,  43,  47,  51,  55,  59,  63,
      67, 71, 75, 79, 83, 87, 91, 95, 99, 103, 107, 111, 115, 119, 123, 127,
      3,  7,  11, 15, 19, 23, 27, 31, 35, 39,  43,  47,  51,  55,  59,  63,
      67, 71, 75, 79, 83, 87, 91, 95, 99, 103, 107, 111, 115, 119, 123, 127};
  const __m512i idx = _mm512_load_si512(kIndices);
  const __m512i ab = _mm512_permutex2var_epi8(a.raw, idx, b.raw);
  const __m512i cd = _mm512_permutex2var_epi8(c.raw, idx, d.raw);
  return PVU8{_mm512_mask_blend_epi8(0xFFFFFFFF00000000ull, ab, cd)};
}
#endif

// One vector's input pairs for one tap pair: the windows at row + bases[w].
FUSEDNORM_PAIRS_ATTR HWY_INLINE PV16 FetchPairs(const uint8_t* row,
                                                const int32_t* bases,
                                                PVU8 indices) {
#if HWY_TARGET == HWY_AVX3_DL
  const __m512i window = _mm512_loadu_si512(row + bases[0]);
  // Keep bytes 0 and 2 of every dword, zero bytes 1 and 3.
  return PV16{_mm512_maskz_permutexvar_epi8(0x5555555555555555ull, indices.raw,
                                            window)};
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
  const hn::Full128<uint8_t> d128;
  const PVU8 window = hn::Combine(PDU8(), hn::LoadU(d128, row + bases[1]),
                                  hn::LoadU(d128, row + bases[0]));
  return hn::BitCast(PD16(), hn::TableLookupBytesOr0(window, indices));
#else
  const PVU8 window = hn::LoadU(PDU8(), row + bases[0]);
  return hn::BitCast(PD16(), hn::TableLookupBytesOr0(window, indices));
#endif
}

// The lanes of two rows' results (SumTimes4) as one paired row: `even`'s
// result in the low 16 bits, `odd`'s in the high 16 bits.
FUSEDNORM_PAIRS_ATTR HWY_INLINE PV32 PairWords(PV32 even, PV32 odd) {
#if HWY_TARGET == HWY_AVX3_DL
  // Bytes 0 and 2 of each lane from byte 3 of even's and odd's lane (index
  // 64 + i reads byte i of odd); bytes 1 and 3 zeroed.
  alignas(64) static constexpr uint8_t kIndices[64] = {
      3,  0, 67,  0, 7,  0, 71,  0, 11, 0, 75,  0, 15, 0, 79,  0,
      19, 0, 83,  0, 23, 0, 87,  0, 27, 0, 91,  0, 31, 0, 95,  0,
      35, 0, 99,  0, 39, 0, 103, 0, 43, 0, 107, 0, 47, 0, 111, 0,
      51, 0, 115, 0, 55, 0, 119, 0, 59, 0, 123, 0, 63, 0, 127, 0};
  return PV32{_mm512_maskz_permutex2var_epi8(
      0x5555555555555555ull, even.raw, _mm512_load_si512(kIndices), odd.raw)};
#else
  const hn::RebindToUnsigned<PD32> du;
  const PDU16 du16;
  const auto low = hn::ShiftRight<24>(hn::BitCast(du, even));
  const auto high = hn::ShiftRight<8>(hn::BitCast(du, odd));  // bits 16-23
  return hn::BitCast(
      PD32(), hn::OddEven(hn::BitCast(du16, high), hn::BitCast(du16, low)));
#endif
}

// Four vectors' results (SumTimes4) as bytes in value order.
FUSEDNORM_PAIRS_ATTR HWY_INLINE PVU8 GroupBytes(PV32 r0, PV32 r1, PV32 r2,
                                                PV32 r3) {
#if HWY_TARGET == HWY_AVX3_DL
  return ThirdBytes(r0, r1, r2, r3);
#else
  return PackBlocks(ResultOf(r0), ResultOf(r1), ResultOf(r2), ResultOf(r3));
#endif
}

// One vector of output values for kRows rows (rows[0], rows[1]) of the
// horizontal pass: kPairs tap pairs (a constant so that the loop unrolls;
// 0: t.pairs) from the windows at row + bases[w], tables at tv (indices, then
// the weights), which the rows share. sums[i]: SumTimes4 of row i.
template <int kPairs, int kRows>
FUSEDNORM_PAIRS_ATTR HWY_INLINE void PairVector(const uint8_t* const* rows,
                                                const int32_t* bases,
                                                const int32_t* tv,
                                                const PairTables& t,
                                                PV32* sums) {
  const PD32 d;
  const PD16 d16;
  constexpr int64_t N = kPairLanes;
  const PVU8 indices = hn::LoadU(PDU8(), reinterpret_cast<const uint8_t*>(tv));
  PV32 hi0 = hn::Zero(d), lo0 = RoundingTerm(), hi1 = hi0, lo1 = lo0;
  const int pairs = kPairs > 0 ? kPairs : t.pairs;
  const int32_t* w = tv + N;
  const int64_t step = t.step;
  int64_t at = 0;
#pragma GCC unroll 4
  for (int p = 0; p < pairs; ++p, at += step, w += 2 * N) {
    const PV16 wh = hn::BitCast(d16, hn::LoadU(d, w));
    const PV16 wl = hn::BitCast(d16, hn::LoadU(d, w + N));
    const PV16 pixels0 = FetchPairs(rows[0] + at, bases, indices);
    hi0 = MulPairsAdd(hi0, pixels0, wh);
    lo0 = MulPairsAdd(lo0, pixels0, wl);
    if constexpr (kRows == 2) {
      const PV16 pixels1 = FetchPairs(rows[1] + at, bases, indices);
      hi1 = MulPairsAdd(hi1, pixels1, wh);
      lo1 = MulPairsAdd(lo1, pixels1, wl);
    }
  }
  sums[0] = SumTimes4(hi0, lo0);
  sums[1] = kRows == 2 ? SumTimes4(hi1, lo1) : hn::Zero(d);
}

// Rows in[0] and (kRows 2) in[1] through the horizontal pass. kPaired: into
// the paired row at out[0] (t.vectors * kPairLanes lanes; a missing second
// row reads 0); else into t.vectors * kPairLanes bytes at out[0] and out[1].
template <int kPairs, int kRows, bool kPaired>
FUSEDNORM_PAIRS_ATTR HWY_NOINLINE void PairRowsFor(const uint8_t* const* in,
                                                   const PairTables& t,
                                                   uint8_t* const* out) {
  constexpr int64_t N = kPairLanes;
  constexpr int64_t W = kPairLayout.lanes / kPairLayout.window_lanes;
  const int64_t ints = t.vector_ints;
  const int32_t* tv = t.data;
  const int32_t* bases = t.bases;
  for (int64_t v = 0; v < t.vectors; v += 4, tv += 4 * ints, bases += 4 * W) {
    if constexpr (kPaired) {
      // One vector at a time: a paired row is in the tables' lane order.
      int32_t* paired = reinterpret_cast<int32_t*>(out[0]) + v * N;
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        PV32 r[2];
        PairVector<kPairs, kRows>(in, bases + q * W, tv + q * ints, t, r);
        hn::StoreU(PairWords(r[0], r[1]), PD32(), paired + q * N);
      }
    } else {
      PV32 r[4][2];
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) {
        PairVector<kPairs, kRows>(in, bases + q * W, tv + q * ints, t, r[q]);
      }
      for (int i = 0; i < kRows; ++i) {
        hn::StoreU(GroupBytes(r[0][i], r[1][i], r[2][i], r[3][i]), PDU8(),
                   out[i] + v * N);
      }
    }
  }
}

template <int kRows, bool kPaired>
void PairRows(const uint8_t* const* in, const PairTables& t,
              uint8_t* const* out) {
  switch (t.pairs) {
    case 1:
      return PairRowsFor<1, kRows, kPaired>(in, t, out);
    case 2:
      return PairRowsFor<2, kRows, kPaired>(in, t, out);
    case 3:
      return PairRowsFor<3, kRows, kPaired>(in, t, out);
    case 4:
      return PairRowsFor<4, kRows, kPaired>(in, t, out);
    default:
      return PairRowsFor<0, kRows, kPaired>(in, t, out);
  }
}

// The horizontal pass of rows in[0] and, if `rows` is 2, in[1]: into one
// paired row at out[0] if `paired`, else into bytes at out[0] and out[1]
// (t.vectors * kPairLanes lanes or bytes each, the padded row).
inline void PairHorizontalRows(const uint8_t* const* in, int rows, bool paired,
                               const PairTables& t, uint8_t* const* out) {
  if (paired) {
    return rows == 2 ? PairRows<2, true>(in, t, out)
                     : PairRows<1, true>(in, t, out);
  }
  return rows == 2 ? PairRows<2, false>(in, t, out)
                   : PairRows<1, false>(in, t, out);
}

// One vector of a vertical output row from kPairs (0: `pairs`) paired rows
// at `in` (the vector's first lane), `stride` bytes apart.
template <int kPairs>
FUSEDNORM_PAIRS_ATTR HWY_INLINE PV32 VerticalVector(const uint8_t* in,
                                                    int64_t stride,
                                                    const int32_t* pair_weights,
                                                    int pairs) {
  const PD32 d;
  const PD16 d16;
  PV32 hi = hn::Zero(d), lo = RoundingTerm();
  const int n = kPairs > 0 ? kPairs : pairs;
#pragma GCC unroll 4
  for (int p = 0; p < n; ++p, in += stride) {
    const PV16 rows =
        hn::BitCast(d16, hn::LoadU(d, reinterpret_cast<const int32_t*>(in)));
    hi = MulPairsAdd(hi, rows,
                     hn::BitCast(d16, hn::Set(d, pair_weights[2 * p])));
    lo = MulPairsAdd(lo, rows,
                     hn::BitCast(d16, hn::Set(d, pair_weights[2 * p + 1])));
  }
  return SumTimes4(hi, lo);
}

// One output row of row_bytes bytes from `pairs` paired rows at `in`,
// `stride` bytes apart (pair_weights: hi, lo per paired row, from
// VerticalPairs); reads whole groups of kPairGroup lanes of each.
template <int kPairs>
FUSEDNORM_PAIRS_ATTR HWY_NOINLINE void VerticalRowFor(
    const uint8_t* in, int64_t stride, const int32_t* pair_weights, int pairs,
    int64_t row_bytes, uint8_t* out) {
  constexpr int64_t N = kPairLanes;
  for (int64_t j = 0; j < row_bytes; j += kPairGroup) {
    const uint8_t* at = in + 4 * j;
    const PVU8 bytes = GroupBytes(
        VerticalVector<kPairs>(at, stride, pair_weights, pairs),
        VerticalVector<kPairs>(at + 4 * N, stride, pair_weights, pairs),
        VerticalVector<kPairs>(at + 8 * N, stride, pair_weights, pairs),
        VerticalVector<kPairs>(at + 12 * N, stride, pair_weights, pairs));
    if (j + kPairGroup <= row_bytes) {
      hn::StoreU(bytes, PDU8(), out + j);
    } else {
      alignas(64) uint8_t last[kPairGroup];
      hn::Store(bytes, PDU8(), last);
      std::memcpy(out + j, last, static_cast<size_t>(row_bytes - j));
    }
  }
}

inline void PairVerticalRow(const uint8_t* in, int64_t stride,
                            const int32_t* pair_weights, int pairs,
                            int64_t row_bytes, uint8_t* out) {
  switch (pairs) {
    case 1:
      return VerticalRowFor<1>(in, stride, pair_weights, pairs, row_bytes, out);
    case 2:
      return VerticalRowFor<2>(in, stride, pair_weights, pairs, row_bytes, out);
    case 3:
      return VerticalRowFor<3>(in, stride, pair_weights, pairs, row_bytes, out);
    default:
      return VerticalRowFor<0>(in, stride, pair_weights, pairs, row_bytes, out);
  }
}

// Box rows a and b (kPairGroup bytes of each, read whole) as the four
// vectors of pairs the vertical multiply-adds take when the vertical pass
// runs first: the lane of value m holds a[m] in its low 16 bits and b[m] in
// its high ones, in the tables' lane order. Contiguous order (AVX3_DL): one
// masked two-table byte permute per vector. Block order (lane i of block k
// of vector q is value 16 * k + 4 * q + i): the rows' bytes interleaved per
// block, then widened to 16 bits, which leaves the values in that order.
FUSEDNORM_PAIRS_ATTR HWY_INLINE void RowPairs(const uint8_t* a,
                                              const uint8_t* b, PV16* v) {
#if HWY_TARGET == HWY_AVX3_DL
  // Lane i: byte 0 from a[i], byte 2 from b[i] (index 64 + n reads b[n]);
  // bytes 1 and 3 zeroed by the mask. Vector q adds 16 * q.
  alignas(64) static constexpr uint8_t kIndices[64] = {
      0,  0, 64, 0, 1,  0, 65, 0, 2,  0, 66, 0, 3,  0, 67, 0,
      4,  0, 68, 0, 5,  0, 69, 0, 6,  0, 70, 0, 7,  0, 71, 0,
      8,  0, 72, 0, 9,  0, 73, 0, 10, 0, 74, 0, 11, 0, 75, 0,
      12, 0, 76, 0, 13, 0, 77, 0, 14, 0, 78, 0, 15, 0, 79, 0};
  const __m512i ra = _mm512_loadu_si512(a);
  const __m512i rb = _mm512_loadu_si512(b);
  const __m512i indices = _mm512_load_si512(kIndices);
  for (int q = 0; q < 4; ++q) {
    const __m512i at =
        _mm512_add_epi8(indices, _mm512_set1_epi8(static_cast<char>(16 * q)));
    v[q] =
        PV16{_mm512_maskz_permutex2var_epi8(0x5555555555555555ull, ra, at, rb)};
  }
#else
  const PDU8 du8;
  const PDU16 du16;
  const PD16 d16;
  const PVU8 ra = hn::LoadU(du8, a), rb = hn::LoadU(du8, b);
  const PVU8 zero = hn::Zero(du8);
  const PVU8 lower = hn::InterleaveLower(du8, ra, rb);  // a0 b0 a1 b1 ..
  const PVU8 upper = hn::InterleaveUpper(du8, ra, rb);  // a8 b8 ..
  v[0] = hn::BitCast(d16, hn::ZipLower(du16, lower, zero));
  v[1] = hn::BitCast(d16, hn::ZipUpper(du16, lower, zero));
  v[2] = hn::BitCast(d16, hn::ZipLower(du16, upper, zero));
  v[3] = hn::BitCast(d16, hn::ZipUpper(du16, upper, zero));
#endif
}

// One output row of the vertical pass run first: row_bytes bytes from
// `pairs` pairs of box rows (rows[2p] and rows[2p + 1], each readable for
// whole groups of kPairGroup bytes), with the pairs' weights (hi, lo per
// pair, PackPair-ed: VerticalPairs).
template <int kPairs>
FUSEDNORM_PAIRS_ATTR HWY_NOINLINE void BoxVerticalRowFor(
    const uint8_t* const* rows, const int32_t* pair_weights, int pairs,
    int64_t row_bytes, uint8_t* out) {
  const PD32 d;
  const PD16 d16;
  const int n = kPairs > 0 ? kPairs : pairs;
  for (int64_t j = 0; j < row_bytes; j += kPairGroup) {
    // Named accumulators, not arrays: they stay in registers.
    PV32 hi0 = hn::Zero(d), hi1 = hi0, hi2 = hi0, hi3 = hi0;
    PV32 lo0 = RoundingTerm(), lo1 = lo0, lo2 = lo0, lo3 = lo0;
#pragma GCC unroll 4
    for (int p = 0; p < n; ++p) {
      PV16 v[4];
      RowPairs(rows[2 * p] + j, rows[2 * p + 1] + j, v);
      const PV16 wh = hn::BitCast(d16, hn::Set(d, pair_weights[2 * p]));
      const PV16 wl = hn::BitCast(d16, hn::Set(d, pair_weights[2 * p + 1]));
      hi0 = MulPairsAdd(hi0, v[0], wh);
      lo0 = MulPairsAdd(lo0, v[0], wl);
      hi1 = MulPairsAdd(hi1, v[1], wh);
      lo1 = MulPairsAdd(lo1, v[1], wl);
      hi2 = MulPairsAdd(hi2, v[2], wh);
      lo2 = MulPairsAdd(lo2, v[2], wl);
      hi3 = MulPairsAdd(hi3, v[3], wh);
      lo3 = MulPairsAdd(lo3, v[3], wl);
    }
    const PVU8 bytes = GroupBytes(SumTimes4(hi0, lo0), SumTimes4(hi1, lo1),
                                  SumTimes4(hi2, lo2), SumTimes4(hi3, lo3));
    if (j + kPairGroup <= row_bytes) {
      hn::StoreU(bytes, PDU8(), out + j);
    } else {
      alignas(64) uint8_t last[kPairGroup];
      hn::Store(bytes, PDU8(), last);
      std::memcpy(out + j, last, static_cast<size_t>(row_bytes - j));
    }
  }
}

inline void BoxVerticalRow(const uint8_t* const* rows,
                           const int32_t* pair_weights, int pairs,
                           int64_t row_bytes, uint8_t* out) {
  switch (pairs) {
    case 1:
      return BoxVerticalRowFor<1>(rows, pair_weights, pairs, row_bytes, out);
    case 2:
      return BoxVerticalRowFor<2>(rows, pair_weights, pairs, row_bytes, out);
    case 3:
      return BoxVerticalRowFor<3>(rows, pair_weights, pairs, row_bytes, out);
    default:
      return BoxVerticalRowFor<0>(rows, pair_weights, pairs, row_bytes, out);
  }
}

#else  // no pair path on this target
#define FUSEDNORM_RESIZE_PAIRS 0
#endif

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#endif  // include guard
