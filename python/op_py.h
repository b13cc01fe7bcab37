// Binds fusednorm._fusednorm.FusedNormalization (ops/fused_normalization.h).
#ifndef FUSEDNORM_PYTHON_OP_PY_H_
#define FUSEDNORM_PYTHON_OP_PY_H_

#include <pybind11/pybind11.h>

namespace fusednorm {

void BindFusedNormalization(pybind11::module_& m);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_OP_PY_H_
