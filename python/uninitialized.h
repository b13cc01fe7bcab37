// Objects made with cls.__new__(cls) and never initialised (by hand, or by
// copy.copy of a class without pickling) hold no C++ object: pybind11
// would then hand their methods fresh, unconstructed memory, and the first
// use would crash. RefuseUninitialized<T>() makes that use a TypeError
// instead. pybind11 asks a type's `operator_new` for that memory only
// (constructors and unpickling construct with new-expressions), so the
// hook sees no other use.
//
// Nor does pybind11's base type of every bound class (pybind11_object)
// hold one: calling it, as pickle's protocols 0 and 1 do through copyreg
// with any of our objects, threw a C++ exception through CPython and
// aborted. GuardObjectBase() makes that call a TypeError.
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

namespace internal {

inline newfunc object_base_new = nullptr;  // pybind11's own

extern "C" inline PyObject* GuardedObjectNew(PyTypeObject* type, PyObject* args,
                                             PyObject* kwargs) {
  if (pybind11::detail::all_type_info(type).empty()) {
    PyErr_Format(PyExc_TypeError, "cannot create '%s' instances",
                 type->tp_name);
    return nullptr;
  }
  return object_base_new(type, args, kwargs);
}

}  // namespace internal

// Once per process: the base type is shared by the modules built with the
// same pybind11 (a second import finds it guarded already).
inline void GuardObjectBase() {
  auto* base = reinterpret_cast<PyTypeObject*>(
      pybind11::detail::get_internals().instance_base);
  if (base->tp_new == &internal::GuardedObjectNew) return;
  internal::object_base_new = base->tp_new;
  base->tp_new = &internal::GuardedObjectNew;
}

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_UNINITIALIZED_H_
