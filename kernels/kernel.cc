// The kernel contract's names and the per-op constants (kernel.h), including
// the check that exact mode may use corrected reciprocals instead of
// divisions.
#include "kernels/kernel.h"

#include <atomic>
#include <cmath>
#include <cstring>

#include "kernels/formats.h"

namespace fusednorm {
namespace {

// a / b from the reciprocal r of b and one correction; std::fma rounds once
// everywhere (in software where the CPU has no FMA).
float CorrectedQuotient(float a, float b, float r) {
  const float q0 = a * r;
  return std::fma(std::fma(-q0, b, a), r, q0);
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

std::atomic<bool> g_exact_by_fma_allowed{true};

}  // namespace

// KernelConstants::bits_lo/bits_hi for 16-bit dtypes. Fast mode's value is
// float(x) * mul - sub with two roundings (-ffp-contract=off), as the kernels
// compute it; exact mode's is table[c][x].
static void MakeLookupBits(KernelConstants* k) {
  if (k->dtype == DType::kFloat32) return;
  for (int c = 0; c < kMaxChannels; ++c) {
    for (int x = 0; x < 256; ++x) {
      const float fast = static_cast<float>(x) * k->mul[c] - k->sub[c];
      const float v = k->mode == Mode::kFast ? fast : k->table[c][x];
      const uint16_t bits = k->dtype == DType::kFloat16
                                ? FloatToHalfBits(v)
                                : FloatToBFloat16Bits(v);
      k->bits_lo[c][x] = static_cast<uint8_t>(bits & 0xff);
      k->bits_hi[c][x] = static_cast<uint8_t>(bits >> 8);
    }
  }
}

void MakeKernelConstants(DType dtype, Layout layout, Mode mode,
                         const float* mean, const float* std,
                         KernelConstants* k) {
  k->dtype = dtype;
  k->layout = layout;
  k->mode = mode;
  for (int c = 0; c < kMaxChannels; ++c) {
    k->mean[c] = mean[c];
    k->std[c] = std[c];
    k->mul[c] = static_cast<float>(1.0 / (255.0 * static_cast<double>(std[c])));
    k->sub[c] = static_cast<float>(static_cast<double>(mean[c]) / std[c]);
    for (int x = 0; x < 256; ++x) {
      // torchvision: ToTensor divides by 255 in float32, Normalize subtracts
      // then divides.
      const float t = static_cast<float>(x) / 255.0f;
      k->table[c][x] = (t - mean[c]) / std[c];
    }
  }
  // The FMA form of both divisions, checked bit for bit on every input.
  k->recip255 = 1.0f / 255.0f;
  bool ok = true;
  for (int c = 0; c < kMaxChannels; ++c) {
    k->recip_std[c] = 1.0f / std[c];
    for (int x = 0; x < 256 && ok; ++x) {
      const float xf = static_cast<float>(x);
      const float t = CorrectedQuotient(xf, 255.0f, k->recip255);
      const float d = t - mean[c];
      const float y = CorrectedQuotient(d, std[c], k->recip_std[c]);
      ok = SameBits(t, xf / 255.0f) && SameBits(y, k->table[c][x]);
    }
  }
  k->exact_by_fma = ok && g_exact_by_fma_allowed.load();
  MakeLookupBits(k);
}

void AllowExactByFmaForTesting(bool allow) {
  g_exact_by_fma_allowed.store(allow);
}

}  // namespace fusednorm
