// Running C++ work without the GIL, safely for threads Python ends at exit.
//
// When the interpreter finalizes, a daemon thread that asks for the GIL back
// is ended by pthread_exit, which unwinds the thread's stack. pybind11's
// gil_scoped_release takes the GIL back in its destructor, and unwinding out
// of a destructor (noexcept) terminates the whole process. WithoutGil takes
// it back in an ordinary function body instead, so that the unwinding passes
// through and only the daemon thread ends.
#ifndef FUSEDNORM_PYTHON_GIL_H_
#define FUSEDNORM_PYTHON_GIL_H_

#include <Python.h>

#include <optional>
#include <type_traits>
#include <utility>

namespace fusednorm {

// Returns work() run without the GIL. `work` must not touch Python objects.
// An exception it throws (std::bad_alloc, say) is rethrown with the GIL held.
template <typename Work>
auto WithoutGil(Work&& work) -> decltype(work()) {
  using Result = decltype(work());
  PyThreadState* state = PyEval_SaveThread();
  if constexpr (std::is_void_v<Result>) {
    try {
      std::forward<Work>(work)();
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
  } else {
    std::optional<Result> result;
    try {
      result.emplace(std::forward<Work>(work)());
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
    return *std::move(result);
  }
}

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_GIL_H_
