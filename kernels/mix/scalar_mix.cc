// The scalar mix row (scalar_mix.h): one value at a time, through
// kernels/formats.h's conversions.
#include "kernels/mix/scalar_mix.h"

#include <cstring>

#include "kernels/formats.h"

namespace fusednorm {
namespace {

template <DType kType>
float Load(const uint8_t* p, size_t i) {
  if constexpr (kType == DType::kFloat32) {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  } else {
    uint16_t h;
    std::memcpy(&h, p + 2 * i, 2);
    return kType == DType::kFloat16 ? HalfBitsToFloat(h)
                                    : BFloat16BitsToFloat(h);
  }
}

// `v` rounded to the dtype, as a float.
template <DType kType>
float Round(float v) {
  if constexpr (kType == DType::kFloat32) return v;
  if constexpr (kType == DType::kFloat16)
    return HalfBitsToFloat(FloatToHalfBits(v));
  return BFloat16BitsToFloat(FloatToBFloat16Bits(v));
}

template <DType kType>
void Store(float v, uint8_t* p, size_t i) {
  if constexpr (kType == DType::kFloat32) {
    std::memcpy(p + 4 * i, &v, 4);
  } else {
    const uint16_t h =
        kType == DType::kFloat16 ? FloatToHalfBits(v) : FloatToBFloat16Bits(v);
    std::memcpy(p + 2 * i, &h, 2);
  }
}

template <DType kType>
void MixValues(const uint8_t* partner, uint8_t* cur, size_t values, float a,
               float b) {
  for (size_t i = 0; i < values; ++i) {
    const float x = Round<kType>(Load<kType>(partner, i) * a);
    const float y = Round<kType>(Load<kType>(cur, i) * b);
    Store<kType>(x + y, cur, i);
  }
}

void Mix(DType dtype, const uint8_t* partner, uint8_t* cur, size_t values,
         float a, float b, bool /*nontemporal: regular stores only*/) {
  switch (dtype) {
    case DType::kFloat32:
      return MixValues<DType::kFloat32>(partner, cur, values, a, b);
    case DType::kFloat16:
      return MixValues<DType::kFloat16>(partner, cur, values, a, b);
    case DType::kBFloat16:
      return MixValues<DType::kBFloat16>(partner, cur, values, a, b);
  }
}

void Paste(const uint8_t* from, uint8_t* to, size_t rows, size_t row_bytes,
           size_t stride, bool /*nontemporal: regular stores only*/) {
  for (size_t r = 0; r < rows; ++r) {
    std::memcpy(to + r * stride, from + r * stride, row_bytes);
  }
}

bool Always() { return true; }

}  // namespace

MixKernelInfo ScalarMixInfo() {
  return {"scalar", "any CPU", 0, &Always, nullptr, &Mix, &Paste};
}

}  // namespace fusednorm
