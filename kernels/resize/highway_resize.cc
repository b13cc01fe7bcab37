// The Highway resize rows (highway_resize.h). This file is compiled once per
// Highway target through foreach_target.h. Each row also makes Pillow's
// weights its own way, the same integers (axis-inl.h).
//
// On the x86 targets both passes take the pair path (pairs-inl.h, tables in
// pair_tables.h): 16-bit multiply-adds of two taps at a time, the horizontal
// pass writing paired rows for the vertical one. It applies wherever the
// horizontal axis is not the identity, its byte windows fit (downscales up
// to about 3x) and both axes' weights meet pair_tables.h's condition (all of
// Pillow's do); elsewhere, and on the other targets, the generic path below
// runs.
//
// Generic horizontal pass, one input row at a time, one vector of outputs at
// a time: a lane holds one output pixel. For each tap, one gather loads the
// 4 bytes at that pixel's input (all its channels, since channels <= 4), and
// each channel is multiplied by the lane's weight and summed in int32. The
// per-call tables give each lane's byte offset and the weights tap-major,
// both padded to whole vectors, so the pass has no tail: it writes padded
// rows into scratch.
//
// Generic vertical pass: output bytes are the weighted sum of the same byte
// in the rows above and below, so it runs over each row's bytes, a vector at
// a time, whatever the channel count; row ends shorter than a vector are
// computed one value at a time.
//
// On both paths the horizontal pass, when it runs first and so is the first
// to read the caller's image, asks the caches for the rows a few ahead of
// those it computes (the vertical pass run first does not); a row where it
// would read past the caller's buffer is first copied into a padded scratch
// row; and a pass whose axis is the identity (no resize on that axis) is
// skipped or, for the vertical one, a copy: its result would be the input,
// bit for bit.
//
// Vertical first (resize_kernel.h), the vertical pass runs over the box's
// bytes into scratch rows of the box's width: on the pair path pairing the
// box's rows as it reads them, else the generic pass. The horizontal pass
// (on the pair path where it applies, writing bytes) then turns each into a
// padded scratch row that is copied into the output.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resize/highway_resize.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/highway/target_rows.h"
#include "kernels/resize/axis-inl.h"
#include "kernels/resize/highway_resize.h"
#include "kernels/resize/pair_tables.h"
#include "kernels/resize/pairs-inl.h"
#include "kernels/resize/resize_kernel.h"
#include "kernels/resize/window-inl.h"

HWY_BEFORE_NAMESPACE();
namespace fusednorm {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D32 = hn::ScalableTag<int32_t>;
using DU8 = hn::Rebind<uint8_t, D32>;
using V32 = hn::Vec<D32>;

constexpr int kShift = kResizePrecisionBits;

// The horizontal pass's per-call tables, in scratch->tables: byte offsets of
// each output's first input (padded outputs read pixel 0), then the weights
// tap-major, `padded` entries per tap; on AVX3_DL also window-inl.h's tables.
struct HorizontalTables {
  const int32_t* offsets;
  const int32_t* weights;
  int64_t padded;
  const int32_t* bases = nullptr;    // AVX3_DL: per block of 16 outputs
  const int32_t* indices = nullptr;  // AVX3_DL: per block and tap
  int64_t reach = 0;  // bytes from a row's start that the pass reads
};

HorizontalTables MakeTables(const ResizeAxis& h, int C,
                            std::vector<int32_t>* t) {
  const int64_t N = static_cast<int64_t>(hn::Lanes(D32()));
  const int64_t padded = (h.out_size + N - 1) / N * N;
  t->assign(static_cast<size_t>(padded * (1 + h.taps)), 0);
  for (int64_t x = 0; x < h.out_size; ++x) {
    (*t)[x] = h.start[x] * C;
    for (int k = 0; k < h.taps; ++k) {
      (*t)[padded + k * padded + x] = h.weights[x * h.taps + k];
    }
  }
  // A gather reads 4 bytes from a pixel's first byte.
  int64_t reach = (h.in_size - 1) * C + 4;
#if HWY_TARGET == HWY_AVX3_DL
  const WindowTables w = MakeWindowTables(h, C, padded, t);
  reach = std::max(reach, w.reach);
#endif
  HorizontalTables tables{t->data(), t->data() + padded, padded};
#if HWY_TARGET == HWY_AVX3_DL
  tables.bases = t->data() + w.bases;
  tables.indices = t->data() + w.indices;
#endif
  tables.reach = reach;
  return tables;
}

// The pixels (one per lane) that outputs x .. x + N - 1 read at tap k.
template <int kC>
HWY_INLINE V32 TapPixels(const uint8_t* in, const HorizontalTables& t, int taps,
                         int64_t x, int k, V32 offsets) {
  const D32 d;
#if HWY_TARGET == HWY_AVX3_DL
  const int32_t base = t.bases[x / kWindowLanes];
  if (base >= 0) {
    return WindowPixels<kC>(
        in + base, t.indices + (x / kWindowLanes * taps + k) * kWindowLanes);
  }
#endif
  return hn::GatherOffset(d, reinterpret_cast<const int32_t*>(in),
                          hn::Add(offsets, hn::Set(d, k * kC)));
}

// Channel kCh of the pixels in `pixel` (one per lane, channel c in byte c).
template <int kCh>
HWY_INLINE V32 Channel(V32 pixel) {
  const D32 d;
  if constexpr (kCh == 3) {
    return hn::BitCast(
        d, hn::ShiftRight<24>(hn::BitCast(hn::RebindToUnsigned<D32>(), pixel)));
  } else {
    return hn::And(hn::ShiftRight<8 * kCh>(pixel), hn::Set(d, 0xFF));
  }
}

// Rounds channel sums to bytes.
HWY_INLINE hn::Vec<DU8> Round(V32 sum) {
  return hn::DemoteTo(DU8(), hn::ShiftRight<kShift>(sum));
}

// One input row to one padded row of outputs (padded * kC bytes). The
// channel sums stay in registers: one accumulator per channel.
template <int kC>
HWY_INLINE void HorizontalRow(const uint8_t* in, const HorizontalTables& t,
                              int taps, uint8_t* out) {
  const D32 d;
  const DU8 du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t x = 0; x < t.padded; x += N) {
    const V32 offsets = hn::LoadU(d, t.offsets + x);
    V32 a0 = hn::Set(d, int32_t{1} << (kShift - 1)), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < taps; ++k) {
      const V32 pixel = TapPixels<kC>(in, t, taps, x, k, offsets);
      const V32 w = hn::LoadU(d, t.weights + k * t.padded + x);
      a0 = hn::Add(a0, hn::Mul(Channel<0>(pixel), w));
      if constexpr (kC > 1) a1 = hn::Add(a1, hn::Mul(Channel<1>(pixel), w));
      if constexpr (kC > 2) a2 = hn::Add(a2, hn::Mul(Channel<2>(pixel), w));
      if constexpr (kC > 3) a3 = hn::Add(a3, hn::Mul(Channel<3>(pixel), w));
    }
    uint8_t* o = out + x * kC;
    if constexpr (kC == 1) hn::StoreU(Round(a0), du8, o);
    if constexpr (kC == 2) hn::StoreInterleaved2(Round(a0), Round(a1), du8, o);
    if constexpr (kC == 3) {
      hn::StoreInterleaved3(Round(a0), Round(a1), Round(a2), du8, o);
    }
    if constexpr (kC == 4) {
      hn::StoreInterleaved4(Round(a0), Round(a1), Round(a2), Round(a3), du8, o);
    }
  }
}

// Whether reading `reach` bytes from the start of box row r would leave the
// caller's buffer.
HWY_INLINE bool NeedsCopy(const ResizeArgs& a, int64_t r, int64_t reach) {
  return static_cast<size_t>(r * a.input_row_stride + reach) > a.input_readable;
}

// Box row r, or where NeedsCopy a padded copy of it in scratch (two copies,
// `slot` 0 and 1, may be in use at once).
HWY_INLINE const uint8_t* ReadableRow(const ResizeArgs& a, int64_t r,
                                      int64_t reach, int slot) {
  const size_t at = static_cast<size_t>(r * a.input_row_stride);
  if (!NeedsCopy(a, r, reach)) return a.input + at;
  const size_t n = static_cast<size_t>(reach);
  ResizeScratch& s = *a.scratch;
  if (s.row_copy.size() < 2 * n) s.row_copy.resize(2 * n);
  uint8_t* copy = s.row_copy.data() + slot * n;
  const size_t have = std::min(n, a.input_readable - at);
  std::memcpy(copy, a.input + at, have);
  std::memset(copy + have, 0, n - have);
  return copy;
}

// A scratch buffer of at least n bytes. It only grows: the sizes of a
// loader's boxes vary from call to call, and growing by resize() zeroes the
// new bytes each time, which nothing reads before it writes them.
HWY_INLINE uint8_t* AtLeast(std::vector<uint8_t>* buffer, size_t n) {
  if (buffer->size() < n) buffer->resize(n);
  return buffer->data();
}

// How many rows ahead of the one it reads the horizontal pass asks the
// caches for: the first pass reads the caller's image (a shard's mapped
// pages, a decoder's output), often from memory.
constexpr int64_t kPrefetchRows = 4;

// Asks the caches for box rows from .. to - 1 (those in the caller's
// buffer), the bytes the pass reads of each, a 64-byte line at a time from
// the line that holds the row's first byte.
HWY_INLINE void PrefetchRows(const ResizeArgs& a, int64_t from, int64_t to,
                             int64_t reach) {
  for (int64_t i = from; i < to; ++i) {
    const size_t at = static_cast<size_t>(i * a.input_row_stride);
    if (at >= a.input_readable) return;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(a.input + at);
    const uintptr_t end =
        reinterpret_cast<uintptr_t>(a.input) +
        std::min(a.input_readable, at + static_cast<size_t>(reach));
    for (uintptr_t line = begin & ~uintptr_t{63}; line < end; line += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(line));
    }
  }
}

// The horizontal pass over box rows first .. first + rows - 1 into
// scratch->rows (targets without the pair path, and axes it does not take);
// returns the row stride in bytes.
template <int kC>
int64_t HorizontalPass(const ResizeArgs& a, int64_t first, int64_t rows) {
  const ResizeAxis& h = *a.horizontal;
  ResizeScratch& s = *a.scratch;
  const HorizontalTables t = MakeTables(h, kC, &s.tables);
  const int64_t stride = t.padded * kC;
  uint8_t* out = AtLeast(&s.rows, static_cast<size_t>(rows * stride));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t ahead = first + r + kPrefetchRows;
    PrefetchRows(a, ahead, std::min(ahead + 1, first + rows), t.reach);
    HorizontalRow<kC>(ReadableRow(a, first + r, t.reach, 0), t, h.taps,
                      out + r * stride);
  }
  return stride;
}

// One output value (row ends): resize_kernel.h's formula.
HWY_INLINE uint8_t Sample(const uint8_t* in, int64_t step,
                          const int32_t* weights, int taps) {
  int32_t sum = int32_t{1} << (kShift - 1);
  for (int k = 0; k < taps; ++k) sum += in[k * step] * weights[k];
  return static_cast<uint8_t>(
      std::clamp(sum >> kShift, int32_t{0}, int32_t{255}));
}

// One output row from the rows at `in`, `stride` bytes apart, one vector of
// int32 sums at a time.
HWY_INLINE void VerticalRow(const uint8_t* in, int64_t stride,
                            const int32_t* weights, int taps, int64_t row_bytes,
                            uint8_t* out) {
  const D32 d;
  const DU8 du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  // Zero weights at the window's ends change nothing: skip them.
  int k0 = 0, k1 = taps;
  while (k0 < k1 - 1 && weights[k0] == 0) ++k0;
  while (k1 > k0 + 1 && weights[k1 - 1] == 0) --k1;
  int64_t j = 0;
  for (; j + 2 * N <= row_bytes; j += 2 * N) {
    V32 acc0 = hn::Set(d, int32_t{1} << (kShift - 1)), acc1 = acc0;
    for (int k = k0; k < k1; ++k) {
      const uint8_t* p = in + k * stride + j;
      const V32 w = hn::Set(d, weights[k]);
      acc0 = hn::Add(acc0, hn::Mul(hn::PromoteTo(d, hn::LoadU(du8, p)), w));
      acc1 = hn::Add(acc1, hn::Mul(hn::PromoteTo(d, hn::LoadU(du8, p + N)), w));
    }
    hn::StoreU(Round(acc0), du8, out + j);
    hn::StoreU(Round(acc1), du8, out + j + N);
  }
  for (; j < row_bytes; ++j) {
    out[j] = Sample(in + j + k0 * stride, stride, weights + k0, k1 - k0);
  }
}

// The vertical pass from byte rows at `src` (box row `first` first),
// `stride` bytes apart: copies where the axis is the identity.
void VerticalPass(const ResizeArgs& a, const uint8_t* src, int64_t stride,
                  int64_t first, int64_t row_bytes) {
  const ResizeAxis& v = *a.vertical;
  const bool identity = IsIdentity(v);
  for (int64_t y = 0; y < v.out_size; ++y) {
    uint8_t* out = a.output + y * a.output_row_stride;
    const uint8_t* in = src + (v.start[y] - first) * stride;
    if (identity) {
      std::memcpy(out, src + (y - first) * stride,
                  static_cast<size_t>(row_bytes));
    } else {
      VerticalRow(in, stride, &v.weights[y * v.taps], v.taps, row_bytes, out);
    }
  }
}

#if FUSEDNORM_RESIZE_PAIRS

// The pair path's horizontal pass (pairs-inl.h) over box rows first ..
// first + rows - 1: into paired rows (row 2m and 2m + 1 in pair row m) if
// `paired`, else into byte rows, in scratch->rows; returns the stride between
// (paired) rows in bytes.
int64_t PairHorizontalPass(const ResizeArgs& a, const PairTables& t,
                           int64_t first, int64_t rows, bool paired) {
  ResizeScratch& s = *a.scratch;
  const int64_t lanes = t.vectors * kPairLanes;
  const int64_t stride = paired ? 4 * lanes : lanes;
  const int64_t stored = paired ? (rows + 1) / 2 : rows;
  uint8_t* const rows_at =
      AtLeast(&s.rows, static_cast<size_t>(stored * stride));
  for (int64_t r = 0; r < rows; r += 2) {
    const int n = r + 1 < rows ? 2 : 1;
    const int64_t ahead = first + r + kPrefetchRows;
    PrefetchRows(a, ahead, std::min(ahead + 2, first + rows), t.reach);
    const uint8_t* in[2] = {
        ReadableRow(a, first + r, t.reach, 0),
        n == 2 ? ReadableRow(a, first + r + 1, t.reach, 1) : nullptr};
    uint8_t* row = rows_at + (paired ? r / 2 : r) * stride;
    uint8_t* out[2] = {row, row + stride};
    PairHorizontalRows(in, n, paired, t, out);
  }
  return stride;
}

// The vertical pass from the paired rows at `src`, `stride` bytes apart
// (pair row 0 holds box rows start[0] and start[0] + 1).
void PairVerticalPass(const ResizeArgs& a, const VerticalPairs& vp,
                      const uint8_t* src, int64_t stride, int64_t row_bytes) {
  for (int64_t y = 0; y < a.vertical->out_size; ++y) {
    const int32_t* row = vp.rows + 3 * y;
    PairVerticalRow(src + row[0] * stride, stride, vp.weights + row[2], row[1],
                    row_bytes, a.output + y * a.output_row_stride);
  }
}

// Both passes on the pair path; false (nothing done) where it does not
// apply: the horizontal axis is the identity (the generic path skips that
// pass), or its windows or either axis's weights do not fit.
bool PairResize(const ResizeArgs& a, int C, int64_t first, int64_t rows) {
  const ResizeAxis& h = *a.horizontal;
  const ResizeAxis& v = *a.vertical;
  if (IsIdentity(h)) return false;
  PairTables t;
  if (!GetPairTables(h, C, kPairLayout, &a.scratch->horizontal, &t)) {
    return false;
  }
  const int64_t row_bytes = h.out_size * C;
  if (IsIdentity(v)) {
    const int64_t stride = PairHorizontalPass(a, t, first, rows, false);
    VerticalPass(a, a.scratch->rows.data(), stride, first, row_bytes);
    return true;
  }
  VerticalPairs vp;
  if (!GetVerticalPairs(v, &a.scratch->vertical, &vp)) return false;
  const int64_t stride = PairHorizontalPass(a, t, first, rows, true);
  PairVerticalPass(a, vp, a.scratch->rows.data(), stride, row_bytes);
  return true;
}

#endif  // FUSEDNORM_RESIZE_PAIRS

template <int kC>
void HorizontalFirst(const ResizeArgs& a) {
  const ResizeAxis& h = *a.horizontal;
  const ResizeAxis& v = *a.vertical;
  const int64_t first = v.start[0];
  const int64_t rows = v.start[v.out_size - 1] + v.taps - first;
#if FUSEDNORM_RESIZE_PAIRS
  if (PairResize(a, kC, first, rows)) return;
#endif
  if (IsIdentity(h)) {
    VerticalPass(a, a.input + first * a.input_row_stride, a.input_row_stride,
                 first, h.out_size * kC);
  } else {
    const int64_t stride = HorizontalPass<kC>(a, first, rows);
    VerticalPass(a, a.scratch->rows.data(), stride, first, h.out_size * kC);
  }
}

#if FUSEDNORM_RESIZE_PAIRS

// HorizontalToOutput on the pair path, two rows at a time; false (nothing
// done) where the path does not take the axis.
bool PairHorizontalToOutput(const ResizeArgs& a, int C) {
  const ResizeAxis& h = *a.horizontal;
  ResizeScratch& s = *a.scratch;
  PairTables t;
  if (!GetPairTables(h, C, kPairLayout, &s.horizontal, &t)) return false;
  const int64_t rows = a.vertical->out_size;
  const size_t row_bytes = static_cast<size_t>(h.out_size * C);
  const int64_t stride = t.vectors * kPairLanes;
  uint8_t* const pair = AtLeast(&s.rows, static_cast<size_t>(2 * stride));
  uint8_t* out[2] = {pair, pair + stride};
  for (int64_t r = 0; r < rows; r += 2) {
    const int n = r + 1 < rows ? 2 : 1;
    const uint8_t* in[2] = {
        ReadableRow(a, r, t.reach, 0),
        n == 2 ? ReadableRow(a, r + 1, t.reach, 1) : nullptr};
    PairHorizontalRows(in, n, false, t, out);
    for (int i = 0; i < n; ++i) {
      std::memcpy(a.output + (r + i) * a.output_row_stride, out[i], row_bytes);
    }
  }
  return true;
}

// Box rows first .. first + rows - 1, each readable for `reach` bytes (the
// row, or where NeedsCopy a zero-padded copy in scratch->row_copy), and the
// last once more if `rows` is odd, so that they pair up; in
// scratch->row_pointers.
const uint8_t* const* ReadableRows(const ResizeArgs& a, int64_t first,
                                   int64_t rows, int64_t reach) {
  ResizeScratch& s = *a.scratch;
  // The rows that need a copy are the last ones.
  int64_t kept = rows;
  while (kept > 0 && NeedsCopy(a, first + kept - 1, reach)) --kept;
  const size_t n = static_cast<size_t>(reach);
  const size_t copies = static_cast<size_t>(rows - kept);
  if (s.row_copy.size() < copies * n) s.row_copy.resize(copies * n);
  s.row_pointers.resize(static_cast<size_t>(rows + rows % 2));
  for (int64_t r = 0; r < rows; ++r) {
    const size_t at = static_cast<size_t>((first + r) * a.input_row_stride);
    if (r < kept) {
      s.row_pointers[r] = a.input + at;
      continue;
    }
    uint8_t* copy = s.row_copy.data() + (r - kept) * n;
    const size_t have = std::min(n, a.input_readable - at);
    std::memcpy(copy, a.input + at, have);
    std::memset(copy + have, 0, n - have);
    s.row_pointers[r] = copy;
  }
  if (rows % 2) s.row_pointers[rows] = s.row_pointers[rows - 1];
  return s.row_pointers.data();
}

// The vertical pass run first, on the pair path: box rows paired as they are
// read (pairs-inl.h), into rows of row_bytes bytes (the box's) at `out`,
// row_bytes apart; false (nothing done) where the vertical weights do not
// meet pair_tables.h's condition.
bool PairVerticalFirstPass(const ResizeArgs& a, int64_t row_bytes,
                           uint8_t* out) {
  const ResizeAxis& v = *a.vertical;
  VerticalPairs vp;
  if (!GetVerticalPairs(v, &a.scratch->vertical, &vp)) return false;
  const int64_t first = v.start[0];
  const int64_t rows = v.start[v.out_size - 1] + v.taps - first;
  const int64_t reach = (row_bytes + kPairGroup - 1) / kPairGroup * kPairGroup;
  const uint8_t* const* in = ReadableRows(a, first, rows, reach);
  for (int64_t y = 0; y < v.out_size; ++y) {
    const int32_t* row = vp.rows + 3 * y;
    BoxVerticalRow(in + 2 * row[0], vp.weights + row[2], row[1], row_bytes,
                   out + y * row_bytes);
  }
  return true;
}

#endif  // FUSEDNORM_RESIZE_PAIRS

// Each row of `a`'s input (rows 0 .. out_height - 1, the horizontal axis's
// input width) through the horizontal pass into the output row of the same
// index, by way of a padded row in scratch->rows (the passes write whole
// vectors).
template <int kC>
void HorizontalToOutput(const ResizeArgs& a) {
#if FUSEDNORM_RESIZE_PAIRS
  if (PairHorizontalToOutput(a, kC)) return;
#endif
  const ResizeAxis& h = *a.horizontal;
  ResizeScratch& s = *a.scratch;
  const HorizontalTables t = MakeTables(h, kC, &s.tables);
  uint8_t* const row = AtLeast(&s.rows, static_cast<size_t>(t.padded * kC));
  for (int64_t r = 0; r < a.vertical->out_size; ++r) {
    HorizontalRow<kC>(ReadableRow(a, r, t.reach, 0), t, h.taps, row);
    std::memcpy(a.output + r * a.output_row_stride, row,
                static_cast<size_t>(h.out_size * kC));
  }
}

// Vertical first: the vertical pass turns the box's rows into rows of the
// box's width in scratch->vertical_rows, the horizontal pass turns those
// into the output rows. Where either axis is the identity, only one pass
// changes anything, so that both orders give the same bits: the
// horizontal-first code runs, which skips or copies that pass.
template <int kC>
void VerticalFirst(const ResizeArgs& a) {
  const ResizeAxis& h = *a.horizontal;
  const ResizeAxis& v = *a.vertical;
  if (IsIdentity(h) || IsIdentity(v)) return HorizontalFirst<kC>(a);
  ResizeScratch& s = *a.scratch;
  const int64_t box_bytes = h.in_size * kC;
  const size_t rows_bytes = static_cast<size_t>(v.out_size * box_bytes);
  ResizeArgs to_rows = a;
  to_rows.output = AtLeast(&s.vertical_rows, rows_bytes);
  to_rows.output_row_stride = box_bytes;
  const int64_t first = v.start[0];
#if FUSEDNORM_RESIZE_PAIRS
  if (!PairVerticalFirstPass(a, box_bytes, to_rows.output))
#endif
    VerticalPass(to_rows, a.input + first * a.input_row_stride,
                 a.input_row_stride, first, box_bytes);
  ResizeArgs from_rows = a;
  from_rows.input = to_rows.output;
  from_rows.input_row_stride = box_bytes;
  from_rows.input_readable = rows_bytes;
  HorizontalToOutput<kC>(from_rows);
}

template <int kC>
void Resize(const ResizeArgs& a) {
  if (a.order == ResizePassOrder::kVerticalFirst) return VerticalFirst<kC>(a);
  HorizontalFirst<kC>(a);
}

void HighwayResize(const ResizeArgs& a) {
  switch (a.channels) {
    case 1:
      return Resize<1>(a);
    case 2:
      return Resize<2>(a);
    case 3:
      return Resize<3>(a);
    default:
      return Resize<4>(a);
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace fusednorm
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fusednorm {

namespace {
std::atomic<int64_t> axis_slow_paths{0};
}  // namespace

int64_t HighwayAxisSlowPaths() { return axis_slow_paths.load(); }
void NoteHighwayAxisSlowPath() { axis_slow_paths.fetch_add(1); }

HWY_EXPORT(HighwayResize);
HWY_EXPORT(BilinearAxis);

namespace {

void ResizeDynamic(const ResizeArgs& a) {
  HWY_DYNAMIC_DISPATCH(HighwayResize)(a);
}

void AxisDynamic(int64_t in_size, int64_t out_size, ResizeAxis* axis) {
  HWY_DYNAMIC_DISPATCH(BilinearAxis)(in_size, out_size, axis);
}

bool Always() { return true; }

}  // namespace

std::vector<ResizeKernelInfo> HighwayResizeInfos() {
  std::vector<ResizeKernelInfo> rows = {
      {"highway", "any (best Highway target)", 30, &Always, &ResizeDynamic,
       &hwy_rows::ActiveTarget, &AxisDynamic},
  };
  hwy_rows::ForEachCompiledTarget([&rows](auto bit) {
    constexpr int kBit = decltype(bit)::value;
    const size_t index = hwy_rows::TableIndex(int64_t{1} << kBit);
    rows.push_back(
        {hwy_rows::TargetText<kBit>(true), hwy_rows::TargetText<kBit>(false),
         10, &hwy_rows::TargetSupported<kBit>,
         HWY_DISPATCH_TABLE(HighwayResize)[index], &hwy_rows::TargetName<kBit>,
         HWY_DISPATCH_TABLE(BilinearAxis)[index]});
  });
  return rows;
}

}  // namespace fusednorm
#endif  // HWY_ONCE
