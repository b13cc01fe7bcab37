// Binds fusednorm._fusednorm.Tail, the C++ half of fusednorm.torch.FusedTail.
#ifndef FUSEDNORM_PYTHON_TAIL_PY_H_
#define FUSEDNORM_PYTHON_TAIL_PY_H_

#include <pybind11/pybind11.h>

namespace fusednorm {

void BindTail(pybind11::module_& m);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_TAIL_PY_H_
