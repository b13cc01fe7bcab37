// The tables of the pair path of the Highway resize rows (pairs-inl.h), for
// the horizontal and the vertical pass. Plain C++, shared by every target
// that takes the path; no SIMD types.
//
// The pair path gives each output value (one byte of an output pixel) a
// 32-bit lane, which holds two taps' input bytes as 16-bit numbers: a 16-bit
// multiply-add of the lane with two weights then yields both products and
// their sum. A weight has up to 23 bits, so it is split into hi = w >> 8
// (< 2^15) and lo = 4 * (w & 255), and the pass keeps two sums,
// H = sum in * hi and L = 2^23 + sum in * lo. Since w = 256 * hi + lo / 4,
// (H << 10) + L is exactly 4 * (Pillow's int32 sum + 2^21)
// (resize_kernel.h). Where an output's weights are all in 0 .. 2^22 and add
// up to at most 2^22 + 4096 (Pillow's bilinear weights add up to 2^22 give
// or take half the taps), Pillow's sum plus 2^21 lies in 0 .. 2^30 - 1: the
// result is then byte 3 of (H << 10) + L as uint32, and Pillow's clamp never
// changes it.
//
// Per vector of lanes the horizontal tables hold the byte indices that pick
// the lanes' two input bytes out of a window of the row (one window per
// 128-bit block, or one for the whole vector), then per pair of taps the hi
// and the lo weights. Lane i's taps 2p and 2p + 1 read the bytes at
// o_i + 2p * C and o_i + (2p + 1) * C, where o_i is its first input byte and
// C the channel count: the window of pair p is loaded 2p * C bytes after
// that of pair 0, so every pair uses the same indices.
#ifndef FUSEDNORM_KERNELS_RESIZE_PAIR_TABLES_H_
#define FUSEDNORM_KERNELS_RESIZE_PAIR_TABLES_H_

#include <cstdint>

#include "kernels/resize/resize_kernel.h"

namespace fusednorm {

// How a target's pair pass reads: four vectors make a group of
// 4 * lanes output values, rounded to bytes together by in-block packing.
struct PairLayout {
  int lanes;         // 32-bit lanes per vector
  int window_lanes;  // lanes that share one window: 4 (a 128-bit block) or
                     // `lanes`
  int window_bytes;  // bytes of a window: 16 (PSHUFB) or 64 (VPERMB)
  // True: vector q of a group holds values q * lanes .. (q + 1) * lanes - 1
  // in order (the pass reorders after packing). False: lane i of block b of
  // vector q holds value 16 * b + 4 * q + i, the order in-block packing
  // leaves them in.
  bool contiguous;
};

// The split weight halves (pair_tables.h's overview) and the condition
// under which they give Pillow's result.
inline int32_t PairHi(int32_t w) { return w >> 8; }
inline int32_t PairLo(int32_t w) { return 4 * (w & 255); }
inline bool PairWeightsFit(const int32_t* weights, int taps) {
  int64_t sum = 0;
  for (int k = 0; k < taps; ++k) {
    if (weights[k] < 0 || weights[k] > (int32_t{1} << kResizePrecisionBits))
      return false;
    sum += weights[k];
  }
  return sum <= (int64_t{1} << kResizePrecisionBits) + 4096;
}

// Two int16 in one int32 lane: `low` in the low half.
inline int32_t PackPair(int32_t low, int32_t high) {
  return static_cast<int32_t>((static_cast<uint32_t>(low) & 0xFFFFu) |
                              (static_cast<uint32_t>(high) << 16));
}

// Index bytes that must read zero: PSHUFB zeroes them; a masked VPERMB
// zeroes those bytes whatever their index.
constexpr uint8_t kZeroByte = 0x80;

// A view of built tables (valid while the cache is not rebuilt).
struct PairTables {
  int64_t vectors = 0;      // 4 per group
  int pairs = 0;            // tap pairs per output value
  int64_t step = 0;         // bytes between consecutive pairs' windows
  int64_t reach = 0;        // bytes from a row's start the pass reads
  int64_t vector_ints = 0;  // lanes * (1 + 2 * pairs)
  // Per vector, lanes / window_lanes byte offsets of pair 0's windows.
  const int32_t* bases = nullptr;
  // Per vector, vector_ints ints, 64-byte aligned: the byte indices
  // (4 per lane: first tap, zero, second tap, zero), then per pair the
  // hi weights (two int16 per lane) and the lo weights.
  const int32_t* data = nullptr;
};

// Fills `out` with the tables of `h` for `channels` channels in `layout`,
// reusing `cache` when it was built from the same axis, channel count and
// layout object (compared by address). Returns false when some output's
// weights do not meet the condition above or some window's bytes do not fit
// in window_bytes (downscales by more than about 3x): the caller takes
// another path (the cache then remembers that).
bool GetPairTables(const ResizeAxis& h, int channels, const PairLayout& layout,
                   ResizeTableCache* cache, PairTables* out);

// The vertical pass's tables for the pair path: per output row, the paired
// rows it reads (paired row m holds rows 2m and 2m + 1, counted from the
// axis's first input row start[0]) and their weights.
struct VerticalPairs {
  // Per output row: first paired row, number of paired rows, offset of
  // their weights in `weights` (hi, lo per paired row, PackPair-ed).
  const int32_t* rows = nullptr;  // 3 ints per output row
  const int32_t* weights = nullptr;
};

// Fills `out` with the vertical tables of `v`, reusing `cache` when it was
// built from the same axis. Returns false when some output row's weights do
// not meet the condition above (the cache remembers that).
bool GetVerticalPairs(const ResizeAxis& v, ResizeTableCache* cache,
                      VerticalPairs* out);

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_RESIZE_PAIR_TABLES_H_
