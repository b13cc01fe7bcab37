// Every SIMD op's table of variants, as the kernel registry lists them
// (kernels/registry.h), for `fusednorm kernels` and anything else that shows
// them all: the fused normalization, the Pillow resize, the colour ops, the
// augment ops, the batch mixing, the pixel packing.
#ifndef FUSEDNORM_KERNELS_ALL_TABLES_H_
#define FUSEDNORM_KERNELS_ALL_TABLES_H_

#include <string>
#include <vector>

#include "kernels/registry.h"

namespace fusednorm {

struct KernelTableView {
  std::string op;   // "kernel", "resize kernel", "colour kernel", ...
  std::string env;  // the variable that forces a row
  std::vector<VariantView> rows;
  std::string chosen;  // the default row, described, or why there is none
};

std::vector<KernelTableView> AllKernelTables();

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_ALL_TABLES_H_
