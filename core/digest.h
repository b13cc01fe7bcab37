// A 64-bit digest of bytes, numbers and text: the same value on every
// machine and in every run (unlike absl::Hash), for fingerprints that are
// saved and compared later, such as a resume state's. Not cryptographic:
// it tells things apart, it does not resist someone making a collision.
#ifndef FUSEDNORM_CORE_DIGEST_H_
#define FUSEDNORM_CORE_DIGEST_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace fusednorm {

class Digest {
 public:
  // Adds `size` bytes; a length is mixed in, so that "ab","c" and "a","bc"
  // differ.
  Digest& Bytes(const void* data, size_t size);
  Digest& Text(absl::string_view text) {
    return Bytes(text.data(), text.size());
  }
  Digest& Number(uint64_t value);

  uint64_t value() const { return state_; }
  // 16 lower-case hex digits.
  std::string Hex() const;

 private:
  void Word(uint64_t word);
  uint64_t state_ = 0x243f6a8885a308d3ull;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_DIGEST_H_
