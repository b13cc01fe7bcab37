// GuardedBuffer (guarded_buffer.h): mmap'd pages with a PROT_NONE page
// after the data and a canary before it.
#include "testing/guarded_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace fusednorm {
namespace testing_ref {
namespace {
constexpr uint8_t kCanary = 0x5c;
}

GuardedBuffer::GuardedBuffer(size_t size) : size_(size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t body =
      (size + page - 1) / page * page + (size % page == 0 ? page : 0);
  map_size_ = body + 2 * page;
  void* p =
      mmap(nullptr, map_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  map_ = static_cast<uint8_t*>(p);
  usable_ = map_ + page;
  if (mprotect(usable_, body, PROT_READ | PROT_WRITE) != 0) std::abort();
  body_ = body;
  data_ = usable_ + body - size;
  std::memset(usable_, kCanary, body - size);
}

GuardedBuffer::~GuardedBuffer() { munmap(map_, map_size_); }

void GuardedBuffer::MakeReadOnly() {
  if (mprotect(usable_, body_, PROT_READ) != 0) std::abort();
}

bool GuardedBuffer::CanaryIntact() const {
  for (const uint8_t* p = usable_; p < data_; ++p) {
    if (*p != kCanary) return false;
  }
  return true;
}

}  // namespace testing_ref
}  // namespace fusednorm
