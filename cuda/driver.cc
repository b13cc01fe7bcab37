// Loading the driver and turning its results into statuses (driver.h).
#include "cuda/driver.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// The status code for a driver result (cuda.h's CUresult values).
absl::StatusCode CodeOf(CuResult r) {
  switch (r) {
    case kCuErrorOutOfMemory:
      return absl::StatusCode::kResourceExhausted;
    case 1:    // CUDA_ERROR_INVALID_VALUE
    case 101:  // CUDA_ERROR_INVALID_DEVICE
      return absl::StatusCode::kInvalidArgument;
    case 3:    // CUDA_ERROR_NOT_INITIALIZED
    case 4:    // CUDA_ERROR_DEINITIALIZED
    case 34:   // CUDA_ERROR_STUB_LIBRARY
    case 35:   // CUDA_ERROR_INSUFFICIENT_DRIVER
    case 46:   // CUDA_ERROR_DEVICE_UNAVAILABLE
    case 100:  // CUDA_ERROR_NO_DEVICE
    case 304:  // CUDA_ERROR_OPERATING_SYSTEM
    case 800:  // CUDA_ERROR_NOT_PERMITTED
    case 801:  // CUDA_ERROR_NOT_SUPPORTED
    case 803:  // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
    case 804:  // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
      return absl::StatusCode::kFailedPrecondition;
    default:
      return absl::StatusCode::kInternal;
  }
}

// Resolves `symbol` into `*fn`; FailedPrecondition naming it when missing.
template <typename F>
absl::Status Resolve(void* lib, const std::string& library, const char* symbol,
                     F* fn) {
  void* p = dlsym(lib, symbol);
  if (p == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver ", library, " has no entry point ", symbol,
                     " (too old a driver?)"));
  }
  *fn = reinterpret_cast<F>(p);
  return absl::OkStatus();
}

absl::Status ResolveAll(void* lib, const std::string& name, CudaApi* a) {
  const auto r = [&](const char* symbol, auto* fn) {
    return Resolve(lib, name, symbol, fn);
  };
  FUSEDNORM_RETURN_IF_ERROR(r("cuInit", &a->init));
  FUSEDNORM_RETURN_IF_ERROR(r("cuGetErrorName", &a->get_error_name));
  FUSEDNORM_RETURN_IF_ERROR(r("cuGetErrorString", &a->get_error_string));
  FUSEDNORM_RETURN_IF_ERROR(r("cuDeviceGetCount", &a->device_get_count));
  FUSEDNORM_RETURN_IF_ERROR(r("cuDeviceGet", &a->device_get));
  FUSEDNORM_RETURN_IF_ERROR(r("cuDeviceGetName", &a->device_get_name));
  FUSEDNORM_RETURN_IF_ERROR(
      r("cuDevicePrimaryCtxRetain", &a->primary_ctx_retain));
  FUSEDNORM_RETURN_IF_ERROR(
      r("cuDevicePrimaryCtxRelease_v2", &a->primary_ctx_release));
  FUSEDNORM_RETURN_IF_ERROR(r("cuCtxPushCurrent_v2", &a->ctx_push_current));
  FUSEDNORM_RETURN_IF_ERROR(r("cuCtxPopCurrent_v2", &a->ctx_pop_current));
  FUSEDNORM_RETURN_IF_ERROR(r("cuMemHostRegister_v2", &a->mem_host_register));
  FUSEDNORM_RETURN_IF_ERROR(r("cuMemHostUnregister", &a->mem_host_unregister));
  FUSEDNORM_RETURN_IF_ERROR(r("cuMemAlloc_v2", &a->mem_alloc));
  FUSEDNORM_RETURN_IF_ERROR(r("cuMemFree_v2", &a->mem_free));
  FUSEDNORM_RETURN_IF_ERROR(r("cuMemcpyHtoDAsync_v2", &a->memcpy_htod_async));
  FUSEDNORM_RETURN_IF_ERROR(r("cuMemcpyDtoH_v2", &a->memcpy_dtoh));
  FUSEDNORM_RETURN_IF_ERROR(r("cuStreamCreate", &a->stream_create));
  FUSEDNORM_RETURN_IF_ERROR(r("cuStreamDestroy_v2", &a->stream_destroy));
  FUSEDNORM_RETURN_IF_ERROR(r("cuStreamWaitEvent", &a->stream_wait_event));
  FUSEDNORM_RETURN_IF_ERROR(r("cuEventCreate", &a->event_create));
  FUSEDNORM_RETURN_IF_ERROR(r("cuEventRecord", &a->event_record));
  FUSEDNORM_RETURN_IF_ERROR(r("cuEventQuery", &a->event_query));
  FUSEDNORM_RETURN_IF_ERROR(r("cuEventSynchronize", &a->event_synchronize));
  return r("cuEventDestroy_v2", &a->event_destroy);
}

}  // namespace

std::string CudaDriverLibrary() {
  const char* env = std::getenv("FUSEDNORM_CUDA_DRIVER");
  return env != nullptr && *env != '\0' ? env : "libcuda.so.1";
}

absl::StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Load(
    const std::string& library) {
  // Loaded already (by torch, say), possibly in a parent before a fork().
  void* earlier = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (earlier != nullptr) dlclose(earlier);
  // Never closed: registered memory and contexts live as long as the process.
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "the CUDA driver ", library, " cannot be loaded (",
        why != nullptr ? why : "?", "): an NVIDIA driver is needed"));
  }
  CudaApi api{};
  FUSEDNORM_RETURN_IF_ERROR(ResolveAll(lib, library, &api));
  std::unique_ptr<CudaDriver> d(new CudaDriver(library, api, getpid()));
  const CuResult init = api.init(0);
  absl::Status s =
      PrefixStatus(d->Check(init, "cuInit"),
                   absl::StrCat("the CUDA driver ", library, ": "));
  if (init == kCuErrorNotInitialized && earlier != nullptr) {
    s = absl::FailedPreconditionError(absl::StrCat(
        s.message(),
        "; the driver was loaded before, as in a child made by "
        "fork() of a process that used CUDA, where CUDA cannot be "
        "initialized: start the child with multiprocessing's \"spawn\" or "
        "\"forkserver\" method, or use pinned = \"none\" or \"mlock\" in "
        "it"));
  }
  FUSEDNORM_RETURN_IF_ERROR(s);
  return d;
}

absl::StatusOr<const CudaDriver*> CudaDriver::Get() {
  static std::once_flag once;
  static absl::StatusOr<std::unique_ptr<CudaDriver>>* driver = nullptr;
  std::call_once(once, [] {
    driver = new absl::StatusOr<std::unique_ptr<CudaDriver>>(
        Load(CudaDriverLibrary()));
  });
  if (!driver->ok()) return driver->status();
  FUSEDNORM_RETURN_IF_ERROR(driver->value()->CheckProcess());
  return driver->value().get();
}

absl::Status CudaDriver::CheckProcess() const {
  const pid_t now = getpid();
  if (now == process_) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the CUDA driver ", library_, " was initialized by process ", process_,
      " and this is process ", now,
      ", a child made by fork(): CUDA cannot be "
      "used across fork(). Start the child with multiprocessing's \"spawn\" "
      "or \"forkserver\" method, or use pinned = \"none\" or \"mlock\" in "
      "it"));
}

absl::Status CudaDriver::Check(CuResult result, absl::string_view call) const {
  if (result == kCuSuccess) return absl::OkStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.get_error_name(result, &name) != kCuSuccess || name == nullptr)
    name = "an unknown error";
  if (api_.get_error_string(result, &text) != kCuSuccess || text == nullptr)
    text = "no description";
  return absl::Status(CodeOf(result), absl::StrCat(call, ": ", name, " (",
                                                   result, ", ", text, ")"));
}

}  // namespace fusednorm
