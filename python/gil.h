// Running C++ work without the GIL, safely for threads Python ends at exit.
//
// When the interpreter finalizes, a daemon thread that asks for the GIL back
// (or waits for it) is ended by pthread_exit, which unwinds the thread's
// stack: out of pybind11's gil_scoped_release destructor (noexcept) that
// terminates the process, and through pybind11's call frames it frees
// Python objects without the GIL, which aborts it. So a thread that
// finishes its work while the interpreter finalizes does not ask for the
// GIL at all, and one that is being ended while it asks stops the unwinding
// where it starts: either way it waits there until the process exits.
#ifndef FUSEDNORM_PYTHON_GIL_H_
#define FUSEDNORM_PYTHON_GIL_H_

#include <Python.h>
#include <cxxabi.h>
#include <unistd.h>

#include <optional>
#include <type_traits>
#include <utility>

namespace fusednorm {

[[noreturn]] inline void WaitForProcessExit() {
  for (;;) pause();
}

// Takes the GIL back; a thread the finalizing interpreter ends meanwhile
// waits for the process to exit instead of unwinding.
inline void TakeGil(PyThreadState* state) {
  try {
    PyEval_RestoreThread(state);
  } catch (abi::__forced_unwind&) {
    WaitForProcessExit();  // never leaves the handler: nothing unwinds
  }
}

// Blocks the calling thread for good if the interpreter is finalizing and
// this is not the main thread, the one that finalizes it (on Linux the main
// thread's id is the process id).
inline void StayOutIfFinalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  const bool finalizing = Py_IsFinalizing();
#else
  const bool finalizing = _Py_IsFinalizing();
#endif
  if (!finalizing || gettid() == getpid()) return;
  WaitForProcessExit();
}

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
    StayOutIfFinalizing();
    TakeGil(state);
  } else {
    std::optional<Result> result;
    try {
      result.emplace(std::forward<Work>(work)());
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    StayOutIfFinalizing();
    TakeGil(state);
    return *std::move(result);
  }
}

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_GIL_H_
