// A mix row that records the store hint of each call (mix and paste) and
// does what the scalar row does: tests of who asks for streaming stores.
#ifndef FUSEDNORM_TESTING_RECORDING_MIX_H_
#define FUSEDNORM_TESTING_RECORDING_MIX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/mix/mix_kernel.h"
#include "kernels/mix/scalar_mix.h"

namespace fusednorm {
namespace testing_ref {

// The hints, one per call, since the last clear().
inline std::vector<bool>& RecordedMixHints() {
  static std::vector<bool> hints;
  return hints;
}

inline MixKernelInfo RecordingMix() {
  MixKernelInfo row = ScalarMixInfo();
  row.id = "recording";
  row.mix = [](DType t, const uint8_t* partner, uint8_t* cur, size_t n, float a,
               float b, bool nontemporal) {
    RecordedMixHints().push_back(nontemporal);
    ScalarMixInfo().mix(t, partner, cur, n, a, b, false);
  };
  row.paste = [](const uint8_t* from, uint8_t* to, size_t rows,
                 size_t row_bytes, size_t stride, bool nontemporal) {
    RecordedMixHints().push_back(nontemporal);
    ScalarMixInfo().paste(from, to, rows, row_bytes, stride, false);
  };
  return row;
}

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_RECORDING_MIX_H_
