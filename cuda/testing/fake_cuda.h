// The control interface of the CUDA driver double (fake_cuda.cc), a shared
// library that implements the driver entry points cuda/driver.h resolves on
// the host, so that tests check the driver logic on machines without a GPU:
//
//   - "device" memory is malloc'ed; a stream is a queue, and a copy queued
//     from registered memory (cuMemcpyHtoDAsync_v2) is done only when the
//     stream runs up to it: when an event after it is synchronized, or
//     queried for the (FAKE_CUDA_EVENT_DELAY + 1)-th time (default 2 + 1),
//     or the stream is synchronized. A copy from memory that is not
//     registered is done at once, as the driver stages pageable memory;
//   - a queued copy takes FAKE_CUDA_COPY_MS milliseconds (default 0) of
//     "device" time from when it is queued: until then no event after it
//     completes, and a wait for it blocks the thread (an event made with
//     CU_EVENT_BLOCKING_SYNC) or spins it (other events, and
//     cuStreamSynchronize, as under the primary context's default
//     schedule), so a test can measure a waiting thread's CPU time;
//   - cuStreamWaitEvent queues a wait: when its stream runs up to it, the
//     event's stream first runs up to the event's mark (even if the event
//     was destroyed or recorded again since, as the driver promises);
//   - each queued copy keeps a snapshot of its source, and when it runs,
//     a source that changed in the meantime counts as a violation (a slot
//     reused while its copy was in flight);
//   - calls check what the driver checks: cuInit first, a current context
//     where one is needed, known pointers and handles, in-bounds copies;
//   - FAKE_CUDA_FAIL="call:n:code[,call:n:code]" makes the n-th call (from
//     the start) of `call` return error `code`; FAKE_CUDA_DEVICES (default
//     1) sets the device count; FAKE_CUDA_LOG=path appends every logged
//     line to that file too.
//
// Tests reach these functions through fake_cuda_control.h.
#ifndef FUSEDNORM_CUDA_TESTING_FAKE_CUDA_H_
#define FUSEDNORM_CUDA_TESTING_FAKE_CUDA_H_

#include <cstddef>

#include "cuda/driver_types.h"

extern "C" {

// What the double holds now, and what it saw.
struct FakeCudaCounts {
  long registered;          // host ranges registered now
  long allocations;         // device allocations alive
  long streams, events;     // alive
  long contexts;            // primary-context retains not yet released
  long copies_queued;       // cuMemcpyHtoDAsync_v2 calls that succeeded
  long copies_done;         // copies that ran (queued and pageable)
  long violations;          // copy sources changed while queued, bad releases
  long pending_at_destroy;  // ops left on streams when they were destroyed
};

// The log: one line per call ("cuMemHostRegister_v2 p=0x... bytes=4096
// flags=1 -> 0") and per queued copy that ran ("run copy 3").
long fake_cuda_log_size();
const char* fake_cuda_log_line(long i);  // valid until the next clear
void fake_cuda_clear_log();
// The next `nth`-th call of `call` (1: the next one) returns `code`.
void fake_cuda_fail(const char* call, int nth, int code);
// Queries of an incomplete event answered "not ready" before it completes.
void fake_cuda_set_event_delay(int queries);
// How long each copy queued from now on takes (FAKE_CUDA_COPY_MS).
void fake_cuda_set_copy_ms(int ms);
// Queues on `stream` a read of `bytes` bytes of device memory at `src` into
// `out`, done when the stream runs up to it: a stand-in for a consumer's
// kernel. 0, or 1 (invalid value) for an unknown stream or range.
int fake_cuda_queue_read(fusednorm::CuStream stream, unsigned long long src,
                         size_t bytes, void* out);
void fake_cuda_counts(FakeCudaCounts* out);
// Whether [p, p + bytes) lies in one registered range.
int fake_cuda_is_registered(const void* p, size_t bytes);
}

#endif  // FUSEDNORM_CUDA_TESTING_FAKE_CUDA_H_
