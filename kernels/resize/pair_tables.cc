// The pair path's horizontal tables (pair_tables.h).
#include "kernels/resize/pair_tables.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fusednorm {
namespace {

// cache->tables starts with this header (ints), then the bases, then the
// aligned data.
enum Header {
  kFits,
  kPairs,
  kVectors,
  kReach,
  kStep,
  kBasesAt,
  kDataAt,
  kHeaderInts
};

constexpr size_t kAlignInts = 64 / sizeof(int32_t);

// Makes t hold at least n ints. Tables only grow: growing by resize()
// zeroes the new ints each time a box is larger than the last, and every
// int a table uses is written when it is built.
void GrowTo(std::vector<int32_t>* t, size_t n) {
  if (t->size() < n) t->resize(n);
}

// The output value lane `lane` of vector `v` computes (may be past the row).
int64_t ValueOf(const PairLayout& layout, int64_t v, int lane) {
  const int64_t group = v / 4, q = v % 4;
  const int64_t first = group * 4 * layout.lanes;
  if (layout.contiguous) return first + q * layout.lanes + lane;
  return first + 16 * (lane / 4) + 4 * q + lane % 4;
}

// The tables of window w of vector v (its lanes hold consecutive values):
// its base, the lanes' index bytes and weights in d (indices, then the
// weights, as PairTables lays them out); false if its bytes do not fit.
// Padded lanes read the row's last value with the zero weights after the
// last pixel's in pixel_weights.
template <int kC>
bool Window(const ResizeAxis& h, const PairLayout& layout, int64_t v, int w,
            int pairs, const int32_t* pixel_weights, int32_t* base_out,
            int32_t* d) {
  const int64_t values = h.out_size * kC;
  const int first_lane = w * layout.window_lanes;
  const int64_t value0 = ValueOf(layout, v, first_lane);
  int32_t offset[64], pixel[64];
  int64_t x = std::min(value0, values - 1) / kC;
  int c = static_cast<int>(std::min(value0, values - 1) % kC);
  int64_t base = INT64_MAX, last = 0;
  for (int j = 0; j < layout.window_lanes; ++j) {
    const bool real = value0 + j < values;
    offset[j] = static_cast<int32_t>(h.start[x] * kC + c);
    pixel[j] = static_cast<int32_t>(real ? x : h.out_size);
    base = std::min<int64_t>(base, offset[j]);
    last = std::max<int64_t>(last, offset[j] + kC);  // the second tap
    if (real && value0 + j + 1 < values && ++c == kC) {
      c = 0;
      ++x;
    }
  }
  if (last - base >= layout.window_bytes) return false;
  *base_out = static_cast<int32_t>(base);
  const int N = layout.lanes;
  for (int j = 0; j < layout.window_lanes; ++j) {
    const uint32_t at = static_cast<uint32_t>(offset[j] - base);
    d[first_lane + j] =
        static_cast<int32_t>(at | (kZeroByte << 8) | ((at + kC) << 16) |
                             (uint32_t{kZeroByte} << 24));
  }
  // Weight k of every lane, then k + 1: the stores run along the lanes.
  for (int k = 0; k < 2 * pairs; ++k) {
    int32_t* row = d + (1 + k) * N + first_lane;
    const int32_t* pw = pixel_weights + k;
    for (int j = 0; j < layout.window_lanes; ++j) {
      row[j] = pw[int64_t{pixel[j]} * 2 * pairs];
    }
  }
  return true;
}

// The pair weights of every output pixel, hi then lo per pair (2 * pairs
// per pixel), then zeros for padded lanes, into t from index `at` (t has
// room); false (t partly written) if some output's weights do not meet
// pair_tables.h's condition.
bool PixelWeights(const ResizeAxis& h, int pairs, size_t at,
                  std::vector<int32_t>* t) {
  int32_t* out = t->data() + at;
  for (int64_t x = 0; x < h.out_size; ++x) {
    const int32_t* w = &h.weights[x * h.taps];
    if (!PairWeightsFit(w, h.taps)) return false;
    for (int p = 0; p < pairs; ++p) {
      const int32_t w0 = w[2 * p], w1 = 2 * p + 1 < h.taps ? w[2 * p + 1] : 0;
      *out++ = PackPair(PairHi(w0), PairHi(w1));
      *out++ = PackPair(PairLo(w0), PairLo(w1));
    }
  }
  std::fill(out, out + 2 * pairs, 0);
  return true;
}

// The tables of vector v at d and its window bases; false if a window's
// bytes do not fit. reach: as in PairTables.
template <int kC>
bool Vector(const ResizeAxis& h, const PairLayout& layout, int64_t v, int pairs,
            const int32_t* pixel_weights, int32_t* bases, int32_t* d,
            int64_t* reach) {
  for (int w = 0; w < layout.lanes / layout.window_lanes; ++w) {
    if (!Window<kC>(h, layout, v, w, pairs, pixel_weights, &bases[w], d)) {
      return false;
    }
    *reach = std::max<int64_t>(
        *reach, bases[w] + 2 * (pairs - 1) * kC + layout.window_bytes);
  }
  return true;
}

// No window of a layout holds more than 8 tap pairs' worth of downscale, so
// an axis with more is refused before its tables are allocated.
constexpr int kMaxPairs = 8;

template <int kC>
bool Build(const ResizeAxis& h, const PairLayout& layout,
           std::vector<int32_t>* t) {
  const int pairs = (h.taps + 1) / 2;
  if (pairs > kMaxPairs) return false;
  const int N = layout.lanes;
  const int64_t vectors = (h.out_size * kC + 4 * N - 1) / (4 * N) * 4;
  const int64_t vector_ints = N * (1 + 2 * int64_t{pairs});
  const int windows = N / layout.window_lanes;
  const size_t bases_at = kHeaderInts;
  const size_t data_unaligned =
      bases_at + static_cast<size_t>(vectors * windows);
  const size_t size =
      data_unaligned + kAlignInts + static_cast<size_t>(vectors * vector_ints);
  // The per-pixel weights go after the tables while they are made.
  GrowTo(t, size + static_cast<size_t>((h.out_size + 1) * 2 * pairs));
  if (!PixelWeights(h, pairs, size, t)) return false;
  // Align the data as its address, not its index, requires.
  const size_t misalign =
      (reinterpret_cast<uintptr_t>(t->data() + data_unaligned) % 64) /
      sizeof(int32_t);
  const size_t data_at =
      data_unaligned + (misalign == 0 ? 0 : kAlignInts - misalign);
  int64_t reach = 0;
  for (int64_t v = 0; v < vectors; ++v) {
    if (!Vector<kC>(h, layout, v, pairs, t->data() + size,
                    t->data() + bases_at + v * windows,
                    t->data() + data_at + v * vector_ints, &reach)) {
      return false;
    }
  }
  int32_t* header = t->data();
  header[kFits] = 1;
  header[kPairs] = pairs;
  header[kVectors] = static_cast<int32_t>(vectors);
  header[kReach] = static_cast<int32_t>(reach);
  header[kStep] = 2 * kC;
  header[kBasesAt] = static_cast<int32_t>(bases_at);
  header[kDataAt] = static_cast<int32_t>(data_at);
  return true;
}

bool BuildFor(const ResizeAxis& h, int C, const PairLayout& layout,
              std::vector<int32_t>* t) {
  switch (C) {
    case 1:
      return Build<1>(h, layout, t);
    case 2:
      return Build<2>(h, layout, t);
    case 3:
      return Build<3>(h, layout, t);
    default:
      return Build<4>(h, layout, t);
  }
}

bool SameAxis(const ResizeAxis& a, const ResizeAxis& b) {
  return a.in_size == b.in_size && a.out_size == b.out_size &&
         a.taps == b.taps && a.start == b.start && a.weights == b.weights;
}

// The vertical tables (header kFits, then 3 ints per row, then weights).
bool BuildVertical(const ResizeAxis& v, std::vector<int32_t>* t) {
  const size_t rows_at = 1;
  size_t at = rows_at + 3 * static_cast<size_t>(v.out_size);
  // At most taps / 2 + 1 paired rows per output row.
  GrowTo(t, at + static_cast<size_t>(v.out_size * (v.taps + 2)));
  const int64_t first = v.start[0];
  for (int64_t y = 0; y < v.out_size; ++y) {
    const int32_t* w = &v.weights[y * v.taps];
    // Zero weights at the window's ends change nothing: skip them.
    int k0 = 0, k1 = v.taps;
    while (k0 < k1 - 1 && w[k0] == 0) ++k0;
    while (k1 > k0 + 1 && w[k1 - 1] == 0) --k1;
    if (!PairWeightsFit(w + k0, k1 - k0)) return false;
    // Box rows row .. end - 1 (from start[0]) in paired rows m0 .. m1 - 1.
    const int64_t row = v.start[y] + k0 - first, end = row + (k1 - k0);
    const int64_t m0 = row / 2, m1 = (end + 1) / 2;
    int32_t* entry = t->data() + rows_at + 3 * y;
    entry[0] = static_cast<int32_t>(m0);
    entry[1] = static_cast<int32_t>(m1 - m0);
    entry[2] = static_cast<int32_t>(at);
    for (int64_t r = 2 * m0; r < 2 * m1; r += 2) {
      const int32_t w0 = r >= row ? w[k0 + (r - row)] : 0;
      const int32_t w1 = r + 1 < end ? w[k0 + (r + 1 - row)] : 0;
      (*t)[at++] = PackPair(PairHi(w0), PairHi(w1));
      (*t)[at++] = PackPair(PairLo(w0), PairLo(w1));
    }
  }
  (*t)[0] = 1;
  return true;
}

constexpr int kVerticalOwner = 0;  // its address tags the vertical tables

bool Rebuild(const void* owner, int channels, const ResizeAxis& axis,
             ResizeTableCache* cache) {
  if (cache->owner == owner && cache->channels == channels &&
      SameAxis(cache->axis, axis)) {
    return false;
  }
  cache->owner = owner;
  cache->channels = channels;
  cache->axis = axis;
  return true;
}

}  // namespace

bool GetVerticalPairs(const ResizeAxis& v, ResizeTableCache* cache,
                      VerticalPairs* out) {
  if (Rebuild(&kVerticalOwner, 0, v, cache) &&
      !BuildVertical(v, &cache->tables)) {
    cache->tables.assign(1, 0);
  }
  const int32_t* t = cache->tables.data();
  if (t[0] == 0) return false;
  out->rows = t + 1;
  out->weights = t;
  return true;
}

bool GetPairTables(const ResizeAxis& h, int channels, const PairLayout& layout,
                   ResizeTableCache* cache, PairTables* out) {
  if (Rebuild(&layout, channels, h, cache) &&
      !BuildFor(h, channels, layout, &cache->tables)) {
    cache->tables.assign(kHeaderInts, 0);  // kFits = 0
  }
  const int32_t* t = cache->tables.data();
  if (t[kFits] == 0) return false;
  out->pairs = t[kPairs];
  out->vectors = t[kVectors];
  out->reach = t[kReach];
  out->step = t[kStep];
  out->vector_ints = layout.lanes * (1 + 2 * int64_t{out->pairs});
  out->bases = t + t[kBasesAt];
  out->data = t + t[kDataAt];
  return true;
}

}  // namespace fusednorm
