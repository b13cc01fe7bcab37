// Restart-segment cutting (jpeg_segments.h): a header walk, the cut's
// geometry, a scan for the RST markers and the splice.
#include "codecs/jpeg_segments.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace fusednorm {
namespace {

constexpr uint8_t kSof0 = 0xC0, kSof1 = 0xC1, kDht = 0xC4, kRst0 = 0xD0,
                  kSoi = 0xD8, kEoi = 0xD9, kSos = 0xDA, kDqt = 0xDB,
                  kDri = 0xDD, kApp0 = 0xE0, kApp14 = 0xEE, kCom = 0xFE;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int Be16(absl::Span<const uint8_t> b, size_t at) {
  return b[at] << 8 | b[at + 1];
}

// One marker segment of the header: FF `code`, a length, its body; [begin,
// end) holds all of it.
struct Marker {
  uint8_t code;
  size_t begin, end;
  size_t body() const { return begin + 4; }
  size_t body_size() const { return end - begin - 4; }
};

// The marker segment at `at`: nullopt unless it starts there (no fill bytes)
// and its length fits in the bytes. Markers without a length (SOI, EOI,
// RSTn, TEM) have no place in a header here either.
std::optional<Marker> MarkerAt(absl::Span<const uint8_t> b, size_t at) {
  if (at + 4 > b.size() || b[at] != 0xFF) return std::nullopt;
  const uint8_t code = b[at + 1];
  if (code == 0xFF || code <= 0x01 || (code >= kRst0 && code <= kEoi))
    return std::nullopt;
  const size_t length = Be16(b, at + 2);
  if (length < 2 || at + 2 + length > b.size()) return std::nullopt;
  return Marker{code, at, at + 2 + length};
}

// Markers a header may hold for the cut to apply; the others (any other
// SOF, DAC, DNL, DHP, EXP, JPG, reserved codes) make it not apply.
bool Allowed(uint8_t code) {
  return code == kSof0 || code == kSof1 || code == kDht || code == kDqt ||
         code == kDri || code == kSos || code == kCom ||
         (code >= kApp0 && code <= kApp0 + 15);
}

// Markers the spliced JPEG keeps: what libjpeg reads to decode (the other
// APPn and COM only carry metadata it skips).
bool Kept(uint8_t code) {
  return code != kCom && (code < kApp0 || code == kApp0 || code == kApp14);
}

// The frame (SOF) into `layout`; returns its component count, 0 if the cut
// cannot apply (precision not 8, > 4 components, fractional sampling).
int ReadFrame(absl::Span<const uint8_t> b, const Marker& m,
              RestartLayout* layout) {
  const size_t at = m.body();
  if (m.body_size() < 6 || b[at] != 8) return 0;
  const int n = b[at + 5];
  if (n < 1 || n > 4 || m.body_size() != 6 + 3 * static_cast<size_t>(n))
    return 0;
  int h[4], v[4], hmax = 1, vmax = 1;
  for (int c = 0; c < n; ++c) {
    h[c] = b[at + 7 + 3 * c] >> 4;
    v[c] = b[at + 7 + 3 * c] & 15;
    if (h[c] < 1 || h[c] > 4 || v[c] < 1 || v[c] > 4) return 0;
    hmax = std::max(hmax, h[c]);
    vmax = std::max(vmax, v[c]);
  }
  for (int c = 0; c < n; ++c) {
    if (hmax % h[c] != 0 || vmax % v[c] != 0) return 0;
  }
  layout->height = Be16(b, at + 1);
  layout->width = Be16(b, at + 3);
  // One component's scan is not interleaved: its MCU is one 8x8 block.
  layout->mcu_height = n == 1 ? 8 : 8 * vmax;
  layout->mcu_width = n == 1 ? 8 : 8 * hmax;
  return n;
}

// Finds the `total` segments of the scan starting at `scan`, recording the
// spans of [first, last); false unless each ends in the restart marker next
// in sequence, and the last in EOI. A marker is 0xFF, any fill 0xFFs, then a code other than 0 (0xFF
// 0x00 is a stuffed data byte), as libjpeg reads it.
bool FindSegments(absl::Span<const uint8_t> b, size_t scan, int64_t first,
                  int64_t last, int64_t total,
                  std::vector<std::pair<size_t, size_t>>* spans) {
  spans->clear();
  const uint8_t* data = b.data();
  const size_t n = b.size();
  size_t p = scan;
  for (int64_t k = 0; k < total; ++k) {
    size_t q = p, r = p;
    for (;;) {
      if (q >= n) return false;
      const void* ff = std::memchr(data + q, 0xFF, n - q);
      if (ff == nullptr) return false;
      q = static_cast<const uint8_t*>(ff) - data;
      r = q + 1;
      while (r < n && data[r] == 0xFF) ++r;
      if (r >= n) return false;
      if (data[r] != 0) break;
      q = r + 1;
    }
    const int want = k + 1 < total ? kRst0 + (k & 7) : kEoi;
    if (data[r] != want) return false;
    if (k >= first && k < last) spans->emplace_back(p, q);
    p = r + 1;
  }
  return true;
}

// Appends SOI and the header's kept markers, the SOF's size set to the
// cut's; false if the header is not what ReadRestartLayout accepted.
bool AppendHeader(absl::Span<const uint8_t> b, const RestartLayout& layout,
                  const SegmentCut& cut, std::vector<uint8_t>* out) {
  out->push_back(0xFF);
  out->push_back(kSoi);
  for (size_t at = 2; at < layout.scan;) {
    const std::optional<Marker> m = MarkerAt(b, at);
    if (!m || m->end > layout.scan) return false;
    if (Kept(m->code)) {
      const size_t o = out->size();
      out->insert(out->end(), b.begin() + m->begin, b.begin() + m->end);
      if (m->code == kSof0 || m->code == kSof1) {
        if (m->body_size() < 6) return false;
        const int64_t h = cut.pixels.height, w = cut.pixels.width;
        (*out)[o + 5] = static_cast<uint8_t>(h >> 8);
        (*out)[o + 6] = static_cast<uint8_t>(h);
        (*out)[o + 7] = static_cast<uint8_t>(w >> 8);
        (*out)[o + 8] = static_cast<uint8_t>(w);
      }
    }
    at = m->end;
  }
  return true;
}

// Appends the data of segments [a, b) (spans from `first`) as they are,
// their restart markers renumbered from *next on.
void AppendRun(absl::Span<const uint8_t> bytes,
               const std::vector<std::pair<size_t, size_t>>& spans,
               int64_t first, int64_t a, int64_t b, int* next,
               std::vector<uint8_t>* out) {
  const size_t begin = spans[a - first].first;
  const size_t base = out->size();
  out->insert(out->end(), bytes.begin() + begin,
              bytes.begin() + spans[b - 1 - first].second);
  for (int64_t k = a + 1; k < b; ++k) {
    // The marker's code is the byte before the segment's data.
    (*out)[base + spans[k - first].first - 1 - begin] =
        static_cast<uint8_t>(kRst0 + (*next & 7));
    ++*next;
  }
}

bool ValidCut(const RestartLayout& l, const SegmentCut& c) {
  const int64_t n = l.mcus_per_row, r = l.interval;
  if (c.row0 < 0 || c.row0 >= c.row1 || c.row1 > l.mcu_rows || c.col0 < 0 ||
      c.col0 >= c.col1 || c.col1 > n || c.row0 * n % r != 0)
    return false;
  const bool all_columns = c.col0 == 0 && c.col1 == n;
  return all_columns || (n % r == 0 && c.col0 % r == 0 && c.col1 % r == 0);
}

}  // namespace

std::optional<RestartLayout> ReadRestartLayout(
    absl::Span<const uint8_t> bytes) {
  if (bytes.size() < 4 || bytes[0] != 0xFF || bytes[1] != kSoi)
    return std::nullopt;
  RestartLayout layout;
  int components = 0;
  for (size_t at = 2;;) {
    const std::optional<Marker> m = MarkerAt(bytes, at);
    if (!m || !Allowed(m->code)) return std::nullopt;
    if (m->code == kSof0 || m->code == kSof1) {
      if (components != 0) return std::nullopt;
      components = ReadFrame(bytes, *m, &layout);
      if (components == 0) return std::nullopt;
    } else if (m->code == kDri) {
      if (m->body_size() != 2) return std::nullopt;
      layout.interval = Be16(bytes, m->body());
    } else if (m->code == kSos) {
      // One scan with every component (libjpeg checks the rest of it).
      if (components == 0 || m->body_size() < 1 ||
          bytes[m->body()] != components ||
          m->body_size() != 4 + 2 * static_cast<size_t>(components))
        return std::nullopt;
      layout.scan = m->end;
      break;
    }
    at = m->end;
  }
  if (layout.interval < 1 || layout.height < 1 || layout.width < 1)
    return std::nullopt;
  layout.mcus_per_row = CeilDiv(layout.width, layout.mcu_width);
  layout.mcu_rows = CeilDiv(layout.height, layout.mcu_height);
  return layout;
}

std::optional<SegmentCut> PlanSegmentCut(const RestartLayout& l,
                                         const CropWindow& box,
                                         int64_t margin) {
  const int64_t n = l.mcus_per_row, r = l.interval;
  SegmentCut c;
  c.row0 = std::max<int64_t>(0, box.top - margin) / l.mcu_height;
  c.row1 =
      CeilDiv(std::min(l.height, box.top + box.height + margin), l.mcu_height);
  c.col0 = std::max<int64_t>(0, box.left - margin) / l.mcu_width;
  c.col1 =
      CeilDiv(std::min(l.width, box.left + box.width + margin), l.mcu_width);
  // Rows start where a segment does: every r / gcd(n, r) rows. The last
  // segment may run past row1: the decoder stops at the image's end.
  c.row0 -= c.row0 % (r / std::gcd(n, r));
  if (n % r == 0) {
    c.col0 -= c.col0 % r;
    c.col1 = std::min(n, CeilDiv(c.col1, r) * r);
  } else {
    c.col0 = 0;
    c.col1 = n;
  }
  if (c.row0 == 0 && c.row1 == l.mcu_rows && c.col0 == 0 && c.col1 == n)
    return std::nullopt;
  c.pixels.top = c.row0 * l.mcu_height;
  c.pixels.left = c.col0 * l.mcu_width;
  c.pixels.height = std::min(l.height, c.row1 * l.mcu_height) - c.pixels.top;
  c.pixels.width = std::min(l.width, c.col1 * l.mcu_width) - c.pixels.left;
  return c;
}

bool SpliceSegments(absl::Span<const uint8_t> bytes,
                    const RestartLayout& layout, const SegmentCut& cut,
                    SegmentScratch* scratch) {
  if (!ValidCut(layout, cut) || layout.scan > bytes.size()) return false;
  const int64_t n = layout.mcus_per_row, r = layout.interval;
  const int64_t total = CeilDiv(layout.mcu_rows * n, r);
  const bool all_columns = cut.col0 == 0 && cut.col1 == n;
  // Rows of segments, [a, b) each: one run when every column is kept.
  const int64_t per_row = all_columns ? 0 : n / r;
  const int64_t first =
      all_columns ? cut.row0 * n / r : cut.row0 * per_row + cut.col0 / r;
  const int64_t last = all_columns ? CeilDiv(cut.row1 * n, r)
                                   : (cut.row1 - 1) * per_row + cut.col1 / r;
  if (!FindSegments(bytes, layout.scan, first, last, total, &scratch->spans))
    return false;
  std::vector<uint8_t>& out = scratch->jpeg;
  out.clear();
  if (!AppendHeader(bytes, layout, cut, &out)) return false;
  int next = 0;
  const int64_t runs = all_columns ? 1 : cut.row1 - cut.row0;
  for (int64_t i = 0; i < runs; ++i) {
    const int64_t a = all_columns ? first : first + i * per_row;
    const int64_t b = all_columns ? last : a + (cut.col1 - cut.col0) / r;
    if (i > 0) {
      out.push_back(0xFF);
      out.push_back(static_cast<uint8_t>(kRst0 + (next++ & 7)));
    }
    AppendRun(bytes, scratch->spans, first, a, b, &next, &out);
  }
  out.push_back(0xFF);
  out.push_back(kEoi);
  return true;
}

}  // namespace fusednorm
