// The op table's rows for the auto-augment policies (AutoAugment,
// RandAugment, TrivialAugmentWide) and the standalone transforms made of
// their kernels (RandomRotation, RandomAffine, RandomPosterize,
// RandomSolarize, RandomAdjustSharpness, RandomAutocontrast,
// RandomEqualize, RandomInvert). ops/op_table.cc lists them among its own.
#ifndef FUSEDNORM_OPS_AUGMENT_TABLE_H_
#define FUSEDNORM_OPS_AUGMENT_TABLE_H_

#include <vector>

#include "ops/op_table.h"

namespace fusednorm {

std::vector<OpRow> AugmentRows();

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_AUGMENT_TABLE_H_
