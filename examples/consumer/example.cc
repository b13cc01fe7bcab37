// The smallest program a consumer workspace builds against @fusednorm: one
// fused op on a 1x2 image, flipped. CI builds and runs it.
#include <cstdio>
#include <vector>

#include "ops/fused_normalization.h"

int main() {
  auto op = fusednorm::FusedNormalization::Create({});  // ImageNet, float32 HWC
  if (!op.ok()) return 1;
  const std::vector<uint8_t> rgb = {0, 128, 255, 255, 128, 0};  // a 1x2 image
  std::vector<float> out(6);
  const fusednorm::ImageView in{absl::MakeConstSpan(rgb), 1, 2, 3, 6};
  const fusednorm::Augmentation flip{/*flip=*/true, {}};
  auto bytes = absl::MakeSpan(reinterpret_cast<uint8_t*>(out.data()), 24);
  auto status = op->Apply(in, flip, {bytes});
  for (float v : out) std::printf("%.4f ", v);
  std::printf("\n");
  return status.ok() ? 0 : 1;
}
