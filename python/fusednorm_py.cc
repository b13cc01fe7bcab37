// The `fusednorm._fusednorm` extension: pybind11 bindings that only convert
// types and call the C++ API. The Python package around it
// (python/src/, assembled as fusednorm/) adds what needs Python: torch
// tensors, bfloat16, FusedTail's input types and torch-seeded keys.
//
// Buffers cross without copies: images are read through the buffer
// protocol, `out=` is written in place, and a Loader's batches are views of
// its TransferStation slots. The GIL is released while C++ works or waits.
#include <pybind11/pybind11.h>

#include "python/loader_py.h"
#include "python/op_py.h"
#include "python/resize_py.h"
#include "python/tail_py.h"
#include "python/transforms_py.h"
#include "python/uninitialized.h"

PYBIND11_MODULE(_fusednorm, m) {
  m.doc() = "fusednorm's C++ core; use the fusednorm package.";
  fusednorm::GuardObjectBase();
  fusednorm::BindFusedNormalization(m);
  fusednorm::BindLoader(m);
  fusednorm::BindTail(m);
  fusednorm::BindResize(m);
  fusednorm::BindTransforms(m);
}
