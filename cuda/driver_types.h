// The CUDA driver's ABI types (cuda.h's CUresult, CUdevice, CUdeviceptr,
// CUcontext, CUstream, CUevent) under names of our own, for fusednorm's
// loader of the driver (cuda/driver.h) and for the tests' double of it,
// whose entry points must have exactly these types (UBSan checks the type
// of every call through a function pointer).
#ifndef FUSEDNORM_CUDA_DRIVER_TYPES_H_
#define FUSEDNORM_CUDA_DRIVER_TYPES_H_

namespace fusednorm {

using CuResult = int;
using CuDevice = int;
using CuDevicePtr = unsigned long long;  // NOLINT: the ABI's type
struct CuContextHandle;
struct CuStreamHandle;
struct CuEventHandle;
using CuContext = CuContextHandle*;
using CuStream = CuStreamHandle*;
using CuEvent = CuEventHandle*;

}  // namespace fusednorm

#endif  // FUSEDNORM_CUDA_DRIVER_TYPES_H_
