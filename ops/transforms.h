// Every transform a transform list can hold, for users of the C++ API:
// the interface (ops/transform.h), the geometric ops (ops/geometry.h), the
// colour ops (ops/color.h), RandomApply (ops/composites.h), the
// auto-augment policies (ops/auto_augment.h)
// and the transforms made of their kernels (ops/augment_transforms.h), the
// ops the fused op does (ops/fused_ops.h) and the batch ops
// (ops/batch_ops.h). The op table (ops/op_table.h) makes any
// of them from torchvision's name and arguments.
#ifndef FUSEDNORM_OPS_TRANSFORMS_H_
#define FUSEDNORM_OPS_TRANSFORMS_H_

#include "ops/augment_transforms.h"  // IWYU pragma: export
#include "ops/auto_augment.h"        // IWYU pragma: export
#include "ops/batch_ops.h"           // IWYU pragma: export
#include "ops/color.h"               // IWYU pragma: export
#include "ops/composites.h"          // IWYU pragma: export
#include "ops/fused_ops.h"           // IWYU pragma: export
#include "ops/geometry.h"            // IWYU pragma: export
#include "ops/random_crop.h"         // IWYU pragma: export
#include "ops/transform.h"           // IWYU pragma: export

#endif  // FUSEDNORM_OPS_TRANSFORMS_H_
