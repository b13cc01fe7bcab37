// The op table's binding: every transform by torchvision's name, made from
// Python arguments, usable on its own with explicit decisions
// (fusednorm.transforms, python/src/transforms.py, is built on it).
#ifndef FUSEDNORM_PYTHON_TRANSFORMS_PY_H_
#define FUSEDNORM_PYTHON_TRANSFORMS_PY_H_

#include <pybind11/pybind11.h>

namespace fusednorm {

namespace py = pybind11;

// Adds op_rows(), Transform and BatchTransform to `m`.
void BindTransforms(py::module_& m);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_TRANSFORMS_PY_H_
