// Binds fusednorm._fusednorm.resized_crop (ops/resize.h).
#ifndef FUSEDNORM_PYTHON_RESIZE_PY_H_
#define FUSEDNORM_PYTHON_RESIZE_PY_H_

#include <pybind11/pybind11.h>

namespace fusednorm {

void BindResize(pybind11::module_& m);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_RESIZE_PY_H_
