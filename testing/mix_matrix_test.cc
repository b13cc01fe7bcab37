// The mix matrix: every mix dispatch row this CPU supports against the
// scalar row, bit for bit, for float32, float16 and bfloat16, lengths 0 ..
// past several vectors, and factors from MixUp's range and its edges. The
// values are random bit patterns of the dtype's finite numbers (subnormals,
// huge values whose products overflow float16 included) and values whose
// scaled products fall on rounding ties. The partner is a read-only
// guarded buffer, the mixed sample a guarded one: a read or write past
// either faults.
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

void ExpectMatches(const MixKernelInfo& row, DType t, size_t n, float a,
                   float b) {
  SCOPED_TRACE(absl::StrCat(row.id, " dtype ", static_cast<int>(t), " n ", n,
                            " a ", a, " b ", b));
  const std::vector<uint8_t> partner = Values(t, n, 11 + n);
  const std::vector<uint8_t> cur = Values(t, n, 977 + n);
  std::vector<uint8_t> want = cur;
  ScalarMixInfo().mix(t, partner.data(), want.data(), n, a, b);
  GuardedBuffer in(partner.size());
  if (n > 0) std::memcpy(in.data(), partner.data(), partner.size());
  in.MakeReadOnly();
  GuardedBuffer out(cur.size());
  if (n > 0) std::memcpy(out.data(), cur.data(), cur.size());
  row.mix(t, in.data(), out.data(), n, a, b);
  EXPECT_TRUE(out.CanaryIntact());
  if (n > 0) {
    ASSERT_EQ(0, std::memcmp(out.data(), want.data(), want.size()));
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
                        static_cast<float>(lam));
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
        SCOPED_TRACE(
            absl::StrCat(row->id, " dtype ", static_cast<int>(t), " a ", a));
        std::vector<uint8_t> want = all, got = all;
        ScalarMixInfo().mix(t, reversed.data(), want.data(), n, a, 1.0f - a);
        row->mix(t, reversed.data(), got.data(), n, a, 1.0f - a);
        ASSERT_EQ(want, got);
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm
