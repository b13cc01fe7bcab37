// Digest (digest.h): each 64-bit little-endian word is folded into the
// state with a multiply and xor-shifts (a finalizer's steps).
#include "core/digest.h"

#include "absl/strings/str_format.h"

namespace fusednorm {

void Digest::Word(uint64_t word) {
  uint64_t x = (state_ ^ word) * 0x9e3779b97f4a7c15ull;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  state_ = x;
}

Digest& Digest::Bytes(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w = 0;
    for (int k = 0; k < 8; ++k) w |= uint64_t{p[i + k]} << (8 * k);
    Word(w);
  }
  uint64_t tail = 0;
  for (int k = 0; i < size; ++i, ++k) tail |= uint64_t{p[i]} << (8 * k);
  Word(tail);
  Word(size);
  return *this;
}

Digest& Digest::Number(uint64_t value) {
  Word(value);
  Word(~value);
  return *this;
}

std::string Digest::Hex() const { return absl::StrFormat("%016x", state_); }

}  // namespace fusednorm
