// AllKernelTables (all_tables.h).
#include "kernels/all_tables.h"

#include "kernels/augment/augment_dispatch.h"
#include "kernels/color/color_dispatch.h"
#include "kernels/dispatch.h"
#include "kernels/mix/mix_dispatch.h"
#include "kernels/pack_pixels.h"
#include "kernels/resize/resize_dispatch.h"

namespace fusednorm {
namespace {

template <typename Row>
KernelTableView View(const KernelRegistry<Row>& registry) {
  KernelTableView v{registry.op(), registry.env(), registry.Views(), ""};
  const absl::StatusOr<const Row*> chosen = registry.Default();
  v.chosen = chosen.ok() ? registry.Describe(**chosen)
                         : std::string(chosen.status().message());
  return v;
}

}  // namespace

std::vector<KernelTableView> AllKernelTables() {
  return {View(NormalizeKernels()), View(ResizeKernels()),
          View(ColorKernels()),     View(AugmentKernels()),
          View(MixKernels()),       View(PackPixelsKernels())};
}

}  // namespace fusednorm
