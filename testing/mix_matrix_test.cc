// The mix matrix: every mix dispatch row this CPU supports against the
// scalar row, bit for bit (and CutMix's paste against memcpy), for
// float32, float16 and bfloat16, lengths 0 .. past several vectors, and
// factors from MixUp's range and its edges. The
// values are random bit patterns of the dtype's finite numbers (subnormals,
// huge values whose products overflow float16 included) and values whose
// scaled products fall on rounding ties, with regular and streaming
// stores. The partner is a read-only guarded buffer, the mixed sample a
// guarded one after a poisoned lead: a read or write past either faults or
// shows.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/formats.h"
#include "kernels/mix/mix_dispatch.h"
#include "kernels/mix/scalar_mix.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

std::vector<const MixKernelInfo*> Rows() {
  std::vector<const MixKernelInfo*> rows;
  for (const MixKernelInfo& row : MixKernels().rows()) {
    if (MixKernels().supported(row)) rows.push_back(&row);
  }
  return rows;
}

size_t Bytes(DType t) { return t == DType::kFloat32 ? 4 : 2; }

// A finite value of the dtype: random bits (NaN and infinity redrawn),
// every 7th one a small integer over a power of two, whose products with
// simple factors land on the dtype's ties.
void PutValue(DType t, std::mt19937& rng, size_t i, uint8_t* p) {
  if (i % 7 == 3) {
    const float v = static_cast<float>(static_cast<int>(rng() % 2049) - 1024) /
                    static_cast<float>(1 << (rng() % 12));
    if (t == DType::kFloat32) {
      std::memcpy(p, &v, 4);
    } else {
      const uint16_t h =
          t == DType::kFloat16 ? FloatToHalfBits(v) : FloatToBFloat16Bits(v);
      std::memcpy(p, &h, 2);
    }
    return;
  }
  for (;;) {
    const uint32_t bits = rng();
    if (t == DType::kFloat32) {
      float v;
      std::memcpy(&v, &bits, 4);
      if (!std::isfinite(v)) continue;
      std::memcpy(p, &bits, 4);
      return;
    }
    const uint16_t h = static_cast<uint16_t>(bits);
    const float v =
        t == DType::kFloat16 ? HalfBitsToFloat(h) : BFloat16BitsToFloat(h);
    if (!std::isfinite(v)) continue;
    std::memcpy(p, &h, 2);
    return;
  }
}

std::vector<uint8_t> Values(DType t, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n * Bytes(t));
  for (size_t i = 0; i < n; ++i) PutValue(t, rng, i, v.data() + i * Bytes(t));
  return v;
}

// Mixes into a guarded buffer whose sample starts `shift` bytes after a
// poisoned lead, so that streaming rows meet every alignment of `cur`
// (the buffer ends at a page, so its start moves with n too).
void ExpectMatches(const MixKernelInfo& row, DType t, size_t n, float a,
                   float b, bool nontemporal, size_t shift) {
  SCOPED_TRACE(absl::StrCat(row.id, " dtype ", static_cast<int>(t), " n ", n,
                            " a ", a, " b ", b, " nontemporal ", nontemporal,
                            " shift ", shift));
  const std::vector<uint8_t> partner = Values(t, n, 11 + n);
  const std::vector<uint8_t> cur = Values(t, n, 977 + n);
  std::vector<uint8_t> want = cur;
  ScalarMixInfo().mix(t, partner.data(), want.data(), n, a, b, false);
  GuardedBuffer in(partner.size());
  if (n > 0) std::memcpy(in.data(), partner.data(), partner.size());
  in.MakeReadOnly();
  GuardedBuffer out(shift + cur.size());
  std::memset(out.data(), 0xA5, shift);
  if (n > 0) std::memcpy(out.data() + shift, cur.data(), cur.size());
  row.mix(t, in.data(), out.data() + shift, n, a, b, nontemporal);
  EXPECT_TRUE(out.CanaryIntact());
  const std::vector<uint8_t> lead(out.data(), out.data() + shift);
  EXPECT_EQ(lead, std::vector<uint8_t>(shift, 0xA5));
  if (n > 0) {
    ASSERT_EQ(0, std::memcmp(out.data() + shift, want.data(), want.size()));
  }
}

constexpr size_t kLengths[] = {0,   1,   2,   3,   4,   5,   7,   8,    9,
                               15,  16,  17,  31,  32,  33,  63,  64,   65,
                               100, 127, 128, 129, 255, 256, 257, 1000, 4099};

TEST(MixMatrix, EveryRowMatchesTheScalarRow) {
  // (1 - lam, lam) as MixBatch passes them, MixUp's edges included.
  const double lams[] = {0.0,  1.0,       0.5, 0.3141592653589793,
                         1e-7, 0.9999999, 0.2, 0.8};
  for (const MixKernelInfo* row : Rows()) {
    for (const DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      for (const size_t n : kLengths) {
        for (const double lam : lams) {
          ExpectMatches(*row, t, n, static_cast<float>(1.0 - lam),
                        static_cast<float>(lam), false, 0);
        }
      }
    }
  }
}

// Streaming stores, which need aligned vectors: the values before `cur`'s
// first aligned one, the streamed middle and the tail, for `cur` at every
// alignment of its dtype and off it (an odd address), and every length.
TEST(MixMatrix, StreamingRowsMatchTheScalarRowAtEveryAlignment) {
  const double lams[] = {0.0, 1.0, 0.3141592653589793, 1e-7};
  for (const MixKernelInfo* row : Rows()) {
    for (const DType t : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
      for (const size_t shift : {size_t{0}, size_t{1}, Bytes(t), 3 * Bytes(t),
                                 5 * Bytes(t), 8 * Bytes(t)}) {
        for (const size_t n : kLengths) {
          for (const double lam : lams) {
            ExpectMatches(*row, t, n, static_cast<float>(1.0 - lam),
                          static_cast<float>(lam), true, shift);
          }
        }
      }
    }
  }
}

// CutMix's paste: `rows` runs of `row_bytes`, `stride` apart, from a
// read-only guarded buffer into one whose runs start `shift` bytes after a
// poisoned lead; the bytes between the runs are poisoned too and must stay.
void ExpectPastes(const MixKernelInfo& row, size_t rows, size_t row_bytes,
                  size_t stride, size_t shift, bool nontemporal) {
  SCOPED_TRACE(absl::StrCat(row.id, " rows ", rows, " row_bytes ", row_bytes,
                            " stride ", stride, " shift ", shift,
                            " nontemporal ", nontemporal));
  const size_t span = rows == 0 ? 0 : (rows - 1) * stride + row_bytes;
  std::mt19937 rng(static_cast<uint32_t>(span + shift));
  std::vector<uint8_t> from_bytes(span), want(shift + span, 0xA5);
  for (uint8_t& b : from_bytes) b = static_cast<uint8_t>(rng());
  for (size_t r = 0; r < rows && row_bytes > 0; ++r) {
    std::memcpy(want.data() + shift + r * stride,
                from_bytes.data() + r * stride, row_bytes);
  }
  GuardedBuffer from(span);
  if (span > 0) std::memcpy(from.data(), from_bytes.data(), span);
  from.MakeReadOnly();
  GuardedBuffer to(shift + span);
  std::memset(to.data(), 0xA5, shift + span);
  row.paste(from.data(), to.data() + shift, rows, row_bytes, stride,
            nontemporal);
  EXPECT_TRUE(to.CanaryIntact());
  ASSERT_EQ(std::vector<uint8_t>(to.data(), to.data() + shift + span), want);
}

TEST(MixMatrix, EveryRowPastesTheRunsAndNothingElse) {
  for (const MixKernelInfo* row : Rows()) {
    for (const bool nontemporal : {false, true}) {
      for (const size_t rows : {size_t{0}, size_t{1}, size_t{3}}) {
        for (const size_t row_bytes :
             {0, 1, 15, 16, 17, 63, 64, 65, 127, 200, 1000}) {
          for (const size_t gap : {0, 5, 64}) {
            for (const size_t shift : {0, 1, 8, 16, 33}) {
              ExpectPastes(*row, rows, row_bytes, row_bytes + gap, shift,
                           nontemporal);
            }
          }
        }
      }
    }
  }
}

// Every float16 and bfloat16 bit pattern (infinities and NaNs included:
// the rows agree on them too, NaNs coming out as torch's quiet NaN) as
// both partner and sample, with factors that round many products to ties
// and overflow some, and 0, which turns infinities into NaNs.
TEST(MixMatrix, EverySixteenBitValue) {
  for (const MixKernelInfo* row : Rows()) {
    for (const DType t : {DType::kFloat16, DType::kBFloat16}) {
      std::vector<uint8_t> all;
      for (uint32_t h = 0; h < 65536; ++h) {
        const uint16_t bits = static_cast<uint16_t>(h);
        all.insert(all.end(), {static_cast<uint8_t>(bits),
                               static_cast<uint8_t>(bits >> 8)});
      }
      const size_t n = all.size() / 2;
      std::vector<uint8_t> reversed(all.size());
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(&reversed[2 * i], &all[2 * (n - 1 - i)], 2);
      }
      for (const float a : {0.5f, 0.75f, 1.0f, 1.5f, 0.3f, 0.0f}) {
        std::vector<uint8_t> want = all;
        ScalarMixInfo().mix(t, reversed.data(), want.data(), n, a, 1.0f - a,
                            false);
        for (const bool nontemporal : {false, true}) {
          SCOPED_TRACE(absl::StrCat(row->id, " dtype ", static_cast<int>(t),
                                    " a ", a, " nontemporal ", nontemporal));
          std::vector<uint8_t> got = all;
          row->mix(t, reversed.data(), got.data(), n, a, 1.0f - a, nontemporal);
          ASSERT_EQ(want, got);
        }
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm
