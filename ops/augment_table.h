// The op table's rows for the auto-augment policies (AutoAugment,
// RandAugment, TrivialAugmentWide) and the standalone transforms made of
// their kernels (RandomRotation, RandomAffine, RandomPosterize,
// RandomSolarize, RandomAdjustSharpness, RandomAutocontrast,
// RandomEqualize, RandomInvert). ops/op_table.cc lists them among its own.
#ifndef FUSEDNORM_OPS_AUGMENT_TABLE_H_
#define FUSEDNORM_OPS_AUGMENT_TABLE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ops/affine.h"
#include "ops/op_args.h"
#include "ops/op_table.h"

namespace fusednorm {

std::vector<OpRow> AugmentRows();

// A `fill` argument as torchvision takes it: None, a number, or a
// sequence of numbers (also RandomCrop's).
absl::StatusOr<FillArg> ReadFill(const BoundArgs& a);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AUGMENT_TABLE_H_
