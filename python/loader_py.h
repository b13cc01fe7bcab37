// Binds fusednorm._fusednorm.Loader: the standard recipe's batches
// (pipeline/recipe.h) as views of the transfer slots.
#ifndef FUSEDNORM_PYTHON_LOADER_PY_H_
#define FUSEDNORM_PYTHON_LOADER_PY_H_

#include <pybind11/pybind11.h>

namespace fusednorm {

void BindLoader(pybind11::module_& m);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_LOADER_PY_H_
