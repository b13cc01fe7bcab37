// CudaContext, DeviceMemory, CudaStream and CudaEvent (context.h).
#include "cuda/context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

absl::StatusOr<std::shared_ptr<const CudaContext>> CudaContext::Retain(
    int ordinal) {
  FUSEDNORM_ASSIGN_OR_RETURN(const CudaDriver* driver, CudaDriver::Get());
  return Retain(*driver, ordinal);
}

absl::StatusOr<std::shared_ptr<const CudaContext>> CudaContext::Retain(
    const CudaDriver& driver, int ordinal) {
  FUSEDNORM_RETURN_IF_ERROR(driver.CheckProcess());
  const CudaApi& api = driver.api();
  int count = 0;
  FUSEDNORM_RETURN_IF_ERROR(
      driver.Check(api.device_get_count(&count), "cuDeviceGetCount"));
  if (ordinal < 0 || ordinal >= count) {
    return InvalidArgumentCat("cuda_device = ", ordinal, ": the driver sees ",
                              count, " CUDA device", count == 1 ? "" : "s");
  }
  CuDevice device = 0;
  FUSEDNORM_RETURN_IF_ERROR(
      driver.Check(api.device_get(&device, ordinal), "cuDeviceGet"));
  CuContext ctx = nullptr;
  FUSEDNORM_RETURN_IF_ERROR(driver.Check(api.primary_ctx_retain(&ctx, device),
                                         "cuDevicePrimaryCtxRetain"));
  return std::shared_ptr<const CudaContext>(
      new CudaContext(&driver, ordinal, device, ctx));
}

CudaContext::~CudaContext() {
  // A child made by fork() never calls the driver, even to release.
  if (driver_->CheckProcess().ok()) driver_->api().primary_ctx_release(device_);
}

absl::Status CudaContext::Push() const {
  FUSEDNORM_RETURN_IF_ERROR(driver_->CheckProcess());
  return driver_->Check(driver_->api().ctx_push_current(ctx_),
                        "cuCtxPushCurrent_v2");
}

void CudaContext::Pop() const {
  CuContext popped = nullptr;
  driver_->api().ctx_pop_current(&popped);
}

absl::Status CudaContext::RegisterHost(void* p, size_t bytes) const {
  return Call("cuMemHostRegister_v2", [&](const CudaApi& a) {
    return a.mem_host_register(p, bytes, kCuMemHostRegisterPortable);
  });
}

absl::Status CudaContext::UnregisterHost(void* p) const {
  return Call("cuMemHostUnregister",
              [&](const CudaApi& a) { return a.mem_host_unregister(p); });
}

std::string CudaContext::device_name() const {
  char name[256] = {};
  if (!driver_->CheckProcess().ok() ||
      driver_->api().device_get_name(name, sizeof(name) - 1, device_) !=
          kCuSuccess)
    return "?";
  return name;
}

// ---- DeviceMemory ----

absl::StatusOr<DeviceMemory> DeviceMemory::Allocate(
    std::shared_ptr<const CudaContext> context, size_t bytes) {
  DeviceMemory m;
  FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(
      context->Call(
          "cuMemAlloc_v2",
          [&](const CudaApi& a) { return a.mem_alloc(&m.ptr_, bytes); }),
      absl::StrCat("device memory of ", bytes, " bytes on device ",
                   context->ordinal(), ": ")));
  m.bytes_ = bytes;
  m.context_ = std::move(context);
  return m;
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : context_(std::move(other.context_)),
      ptr_(std::exchange(other.ptr_, 0)),
      bytes_(std::exchange(other.bytes_, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    DeviceMemory old(std::move(*this));
    context_ = std::move(other.context_);
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceMemory::~DeviceMemory() {
  if (ptr_ == 0) return;
  const CuDevicePtr p = ptr_;
  context_
      ->Call("cuMemFree_v2", [&](const CudaApi& a) { return a.mem_free(p); })
      .IgnoreError();  // nothing to report to at destruction
}

absl::Status DeviceMemory::CopyToHost(void* host, size_t bytes) const {
  if (bytes > bytes_) {
    return absl::OutOfRangeError(absl::StrCat(
        "CopyToHost: ", bytes, " bytes from device memory of ", bytes_));
  }
  return context_->Call("cuMemcpyDtoH_v2", [&](const CudaApi& a) {
    return a.memcpy_dtoh(host, ptr_, bytes);
  });
}

// ---- CudaStream ----

absl::StatusOr<std::unique_ptr<CudaStream>> CudaStream::Create(
    std::shared_ptr<const CudaContext> context) {
  CuStream s = nullptr;
  FUSEDNORM_RETURN_IF_ERROR(
      context->Call("cuStreamCreate", [&](const CudaApi& a) {
        return a.stream_create(&s, kCuStreamNonBlocking);
      }));
  return std::unique_ptr<CudaStream>(new CudaStream(std::move(context), s));
}

CudaStream::~CudaStream() {
  context_
      ->Call("cuStreamDestroy_v2",
             [&](const CudaApi& a) { return a.stream_destroy(stream_); })
      .IgnoreError();
}

absl::Status CudaStream::CopyToDevice(CuDevicePtr device, const void* host,
                                      size_t bytes) const {
  return context_->Call("cuMemcpyHtoDAsync_v2", [&](const CudaApi& a) {
    return a.memcpy_htod_async(device, host, bytes, stream_);
  });
}

absl::Status CudaStream::Synchronize() const {
  FUSEDNORM_ASSIGN_OR_RETURN(std::unique_ptr<CudaEvent> done,
                             CudaEvent::Create(context_));
  FUSEDNORM_RETURN_IF_ERROR(done->Record(*this));
  return done->Synchronize();
}

absl::Status CudaStream::WaitFor(const CudaEvent& event) const {
  return context_->Call("cuStreamWaitEvent", [&](const CudaApi& a) {
    return a.stream_wait_event(stream_, event.handle(), 0);
  });
}

// ---- CudaEvent ----

absl::StatusOr<std::unique_ptr<CudaEvent>> CudaEvent::Create(
    std::shared_ptr<const CudaContext> context) {
  CuEvent e = nullptr;
  FUSEDNORM_RETURN_IF_ERROR(
      context->Call("cuEventCreate", [&](const CudaApi& a) {
        return a.event_create(&e, kCuEventBlockingSync | kCuEventDisableTiming);
      }));
  return std::unique_ptr<CudaEvent>(new CudaEvent(std::move(context), e));
}

CudaEvent::~CudaEvent() {
  context_
      ->Call("cuEventDestroy_v2",
             [&](const CudaApi& a) { return a.event_destroy(event_); })
      .IgnoreError();
}

absl::Status CudaEvent::Record(const CudaStream& stream) const {
  return Record(stream.handle());
}

absl::Status CudaEvent::Record(CuStream stream) const {
  return context_->Call("cuEventRecord", [&](const CudaApi& a) {
    return a.event_record(event_, stream);
  });
}

absl::StatusOr<bool> CudaEvent::Done() const {
  CuResult r = kCuSuccess;
  FUSEDNORM_RETURN_IF_ERROR(
      context_->Call("cuEventQuery", [&](const CudaApi& a) {
        r = a.event_query(event_);
        return r == kCuErrorNotReady ? kCuSuccess : r;
      }));
  return r == kCuSuccess;
}

absl::Status CudaEvent::Synchronize() const {
  return context_->Call("cuEventSynchronize", [&](const CudaApi& a) {
    return a.event_synchronize(event_);
  });
}

}  // namespace fusednorm
