// A heap buffer whose last byte sits directly before a PROT_NONE page, with
// another PROT_NONE page before the page holding its first byte: any read or
// write past the end faults, and writes before the start in the same page are
// caught by CanaryIntact().
#ifndef FUSEDNORM_TESTING_GUARDED_BUFFER_H_
#define FUSEDNORM_TESTING_GUARDED_BUFFER_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"

namespace fusednorm {
namespace testing_ref {

class GuardedBuffer {
 public:
  // Maps `size` bytes (may be 0) ending at a page boundary, followed by a guard
  // page. The bytes before data() in its page are filled with a canary.
  explicit GuardedBuffer(size_t size);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  absl::Span<uint8_t> span() { return absl::MakeSpan(data_, size_); }
  absl::Span<const uint8_t> cspan() const {
    return absl::MakeConstSpan(data_, size_);
  }

  // Makes the whole buffer read-only, so a kernel writing its input faults.
  void MakeReadOnly();

  // True when nothing wrote the bytes between the page start and data().
  bool CanaryIntact() const;

 private:
  uint8_t* map_ = nullptr;
  size_t map_size_ = 0;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint8_t* usable_ = nullptr;  // start of the first accessible page
  size_t body_ = 0;            // accessible bytes from usable_
};

}  // namespace testing_ref
}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_GUARDED_BUFFER_H_
