// Objects made with cls.__new__(cls) and never initialised (by hand, or by
// copy.copy of a class without pickling) hold no C++ object: pybind11
// would then hand their methods fresh, unconstructed memory, and the first
// use would crash. RefuseUninitialized<T>() makes that use a TypeError
// instead. pybind11 asks a type's `operator_new` for that memory only
// (constructors and unpickling construct with new-expressions), so the
// hook sees no other use.
#ifndef FUSEDNORM_PYTHON_UNINITIALIZED_H_
#define FUSEDNORM_PYTHON_UNINITIALIZED_H_

#include <pybind11/pybind11.h>

#include <cstddef>
#include <typeinfo>

namespace fusednorm {

template <typename T>
void RefuseUninitialized() {
  pybind11::detail::get_type_info(typeid(T))->operator_new =
      [](size_t) -> void* {
    throw pybind11::type_error(
        "this fusednorm object was made with __new__ and never "
        "initialised: make it by calling its class");
  };
}

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_UNINITIALIZED_H_
