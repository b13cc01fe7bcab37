// CudaDriver: the CUDA driver API, loaded at run time. No CUDA header or
// toolkit is needed to build fusednorm: the few types and entry points it
// calls are declared here, by their ABI (the driver's versioned symbol
// names), and resolved with dlopen()/dlsym() from libcuda.so.1, which every
// NVIDIA driver installs. FUSEDNORM_CUDA_DRIVER=/path/lib.so loads another
// library with the same entry points instead (the tests' double,
// cuda/testing/fake_cuda.cc).
//
// Every failure is an absl::Status naming the call and the driver's own
// error name and text; without a driver, FailedPrecondition naming the
// library that could not be loaded.
//
// A driver belongs to the process that initialized it. CUDA does not
// support using it in a child made by fork() (DataLoader workers,
// multiprocessing, subprocess): there CheckProcess(), hence every call
// through a CudaContext, is FailedPrecondition naming fork, and the driver
// is not called at all. A child whose parent used CUDA through another
// library (torch) gets cuInit's error, which names fork too when the
// library was loaded before fusednorm's first use.
#ifndef FUSEDNORM_CUDA_DRIVER_H_
#define FUSEDNORM_CUDA_DRIVER_H_

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cuda/driver_types.h"

namespace fusednorm {

// The driver's constants fusednorm uses.
inline constexpr CuResult kCuSuccess = 0;
inline constexpr CuResult kCuErrorOutOfMemory = 2;
inline constexpr CuResult kCuErrorNotInitialized = 3;
inline constexpr CuResult kCuErrorNotReady = 600;
inline constexpr unsigned kCuMemHostRegisterPortable = 0x01;
inline constexpr unsigned kCuStreamNonBlocking = 0x01;
inline constexpr unsigned kCuEventBlockingSync = 0x01;
inline constexpr unsigned kCuEventDisableTiming = 0x02;

// The entry points, each resolved from the symbol named in its comment.
struct CudaApi {
  CuResult (*init)(unsigned flags);                       // cuInit
  CuResult (*get_error_name)(CuResult, const char**);     // cuGetErrorName
  CuResult (*get_error_string)(CuResult, const char**);   // cuGetErrorString
  CuResult (*device_get_count)(int*);                     // cuDeviceGetCount
  CuResult (*device_get)(CuDevice*, int ordinal);         // cuDeviceGet
  CuResult (*device_get_name)(char*, int len, CuDevice);  // cuDeviceGetName
  CuResult (*primary_ctx_retain)(CuContext*, CuDevice);   // ...PrimaryCtxRetain
  CuResult (*primary_ctx_release)(CuDevice);  // cuDevicePrimaryCtxRelease_v2
  CuResult (*ctx_push_current)(CuContext);    // cuCtxPushCurrent_v2
  CuResult (*ctx_pop_current)(CuContext*);    // cuCtxPopCurrent_v2
  CuResult (*mem_host_register)(void*, size_t, unsigned);  // ..._v2
  CuResult (*mem_host_unregister)(void*);       // cuMemHostUnregister
  CuResult (*mem_alloc)(CuDevicePtr*, size_t);  // cuMemAlloc_v2
  CuResult (*mem_free)(CuDevicePtr);            // cuMemFree_v2
  CuResult (*memcpy_htod_async)(CuDevicePtr, const void*, size_t,
                                CuStream);               // cuMemcpyHtoDAsync_v2
  CuResult (*memcpy_dtoh)(void*, CuDevicePtr, size_t);   // cuMemcpyDtoH_v2
  CuResult (*stream_create)(CuStream*, unsigned flags);  // cuStreamCreate
  CuResult (*stream_destroy)(CuStream);                  // cuStreamDestroy_v2
  CuResult (*stream_wait_event)(CuStream, CuEvent,
                                unsigned flags);       // cuStreamWaitEvent
  CuResult (*event_create)(CuEvent*, unsigned flags);  // cuEventCreate
  CuResult (*event_record)(CuEvent, CuStream);         // cuEventRecord
  CuResult (*event_query)(CuEvent);                    // cuEventQuery
  CuResult (*event_synchronize)(CuEvent);              // cuEventSynchronize
  CuResult (*event_destroy)(CuEvent);                  // cuEventDestroy_v2
};

// The library FUSEDNORM_CUDA_DRIVER names, else libcuda.so.1.
std::string CudaDriverLibrary();

class CudaDriver {
 public:
  // The process's driver: loaded and initialized (cuInit) on the first call
  // from CudaDriverLibrary(); later calls return the same driver, or the
  // same error; after a fork(), CheckProcess()'s error. Thread-safe.
  static absl::StatusOr<const CudaDriver*> Get();

  // Loads and initializes the driver at `library` (a path or a name dlopen
  // searches for). FailedPrecondition naming the library when it cannot be
  // loaded or lacks an entry point (named too); cuInit's error otherwise.
  // The library stays loaded for the life of the process.
  static absl::StatusOr<std::unique_ptr<CudaDriver>> Load(
      const std::string& library);

  const CudaApi& api() const { return api_; }
  const std::string& library() const { return library_; }

  // OK for kCuSuccess; else an error naming `call` and the driver's name and
  // text for `result`: ResourceExhausted for out-of-memory errors,
  // InvalidArgument for invalid values and devices, FailedPrecondition when
  // there is no usable device or driver, Internal otherwise.
  absl::Status Check(CuResult result, absl::string_view call) const;

  // OK in the process that loaded the driver; in a child made by fork(),
  // FailedPrecondition naming both processes and fork.
  absl::Status CheckProcess() const;

 private:
  CudaDriver(std::string library, const CudaApi& api, pid_t process)
      : library_(std::move(library)), api_(api), process_(process) {}

  std::string library_;
  CudaApi api_;
  pid_t process_;  // the process that loaded and initialized it
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CUDA_DRIVER_H_
