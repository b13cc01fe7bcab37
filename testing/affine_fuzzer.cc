// Fuzz target for the augment kernels' affine transform
// (kernels/augment/augment_kernel.h): every supported row must write what
// the scalar row writes, byte for byte, for any finite matrix, filter,
// channel count, input size, row stride and output size, and never read
// or write outside its buffers. The input is a read-only guarded buffer
// sized exactly, each output a guarded buffer poisoned first (the pixels a
// kernel leaves must stay poisoned); under --config=fuzz AddressSanitizer
// watches too.
//
// The fuzz input gives, in order: a byte of channels and filter, the
// input's height and width, the output's height and width, the stride's
// extra bytes, a byte of coefficient kinds, then each coefficient as 8 raw
// bytes (a double; not finite: 0) or 2 bytes (a fraction: of the linear
// part below 2, of the translation below 16), then the pixels (repeated
// when short).
//
// Built with --config=fuzz this is a libFuzzer target; otherwise main()
// replays random inputs.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/augment/augment_dispatch.h"
#include "kernels/augment/scalar_augment.h"
#include "testing/guarded_buffer.h"

namespace fusednorm {
namespace {

using testing_ref::GuardedBuffer;

long g_runs = 0, g_written = 0;

// Reads the input front to back; past its end every read is 0.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return at_ < size_ ? data_[at_++] : 0; }
  // A finite double from 8 raw bytes, or from 2 a fraction of
  // magnitude below `range`.
  double Coefficient(bool raw, double range) {
    if (!raw) {
      const int v = static_cast<int16_t>(Byte() << 8 | Byte());
      return v * (range / 32768.0);
    }
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = bits << 8 | Byte();
    double d;
    std::memcpy(&d, &bits, 8);
    return std::isfinite(d) ? d : 0.0;
  }
  const uint8_t* rest() const { return data_ + at_; }
  size_t left() const { return size_ - at_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = 0;
};

const std::vector<const AugmentKernelInfo*>& Rows() {
  static const auto* rows = [] {
    auto* r = new std::vector<const AugmentKernelInfo*>();
    const auto& registry = AugmentKernels();
    for (const AugmentKernelInfo& row : registry.rows()) {
      if (registry.supported(row)) r->push_back(&row);
    }
    return r;
  }();
  return *rows;
}

void RunOne(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const uint8_t kind = r.Byte();
  const int channels = 1 + kind % 4;  // L, LA, RGB, RGBA
  const AffineFilter filter = static_cast<AffineFilter>(kind / 4 % 3);
  const int64_t h = 1 + r.Byte() % 24, w = 1 + r.Byte() % 48;
  const int64_t oh = 1 + r.Byte() % 24, ow = 1 + r.Byte() % 80;
  const int64_t stride = w * channels + r.Byte() % 9;
  const uint8_t raw = r.Byte();
  double a[6];
  // Fractions: below 2 for the linear part, 16 for the translations.
  for (int i = 0; i < 6; ++i) {
    a[i] = r.Coefficient(raw >> i & 1, i == 2 || i == 5 ? 16.0 : 2.0);
  }
  ++g_runs;

  const size_t in_bytes = static_cast<size_t>((h - 1) * stride + w * channels);
  GuardedBuffer in(in_bytes);
  for (size_t i = 0; i < in_bytes; ++i) {
    in.data()[i] =
        r.left() > 0 ? r.rest()[i % r.left()] : static_cast<uint8_t>(i * 37);
  }
  in.MakeReadOnly();
  const AugmentInput input{in.data(), h, w, channels, stride};
  const size_t out_bytes = static_cast<size_t>(oh * ow * channels);
  std::vector<uint8_t> want(out_bytes);
  for (size_t i = 0; i < out_bytes; ++i) {
    want[i] = static_cast<uint8_t>(i * 131 + 7);
  }
  const std::vector<uint8_t> poison = want;
  ScalarAugmentInfo().affine(input, a, filter, want.data(), oh, ow);
  g_written += want != poison;
  for (const AugmentKernelInfo* row : Rows()) {
    GuardedBuffer out(out_bytes);
    std::memcpy(out.data(), poison.data(), out_bytes);
    row->affine(input, a, filter, out.data(), oh, ow);
    if (!out.CanaryIntact() ||
        std::memcmp(out.data(), want.data(), out_bytes) != 0) {
      std::fprintf(stderr,
                   "row %s differs: C%d in %lldx%lld stride %lld out "
                   "%lldx%lld filter %d a = %.17g %.17g %.17g %.17g %.17g "
                   "%.17g\n",
                   row->id, channels, static_cast<long long>(h),
                   static_cast<long long>(w), static_cast<long long>(stride),
                   static_cast<long long>(oh), static_cast<long long>(ow),
                   static_cast<int>(filter), a[0], a[1], a[2], a[3], a[4],
                   a[5]);
      std::abort();
    }
  }
}

}  // namespace
}  // namespace fusednorm

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fusednorm::RunOne(data, size);
  return 0;
}

#ifndef FUSEDNORM_LIBFUZZER
// Replays random inputs: `affine_fuzzer [iterations]` (default 2000). Most
// take small fractions (rotations, shears, scales of a few pixels), some
// raw doubles.
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 2000;
  std::mt19937 gen(17);
  for (long i = 0; i < iterations; ++i) {
    std::vector<uint8_t> input(8 + 6 * 8 + gen() % 64);
    for (uint8_t& b : input) b = static_cast<uint8_t>(gen());
    input[6] = i % 4 == 0 ? input[6] : 0;  // raw doubles in a quarter
    fusednorm::RunOne(input.data(), input.size());
  }
  std::printf("replayed %ld inputs: %ld wrote pixels\n", fusednorm::g_runs,
              fusednorm::g_written);
  // A replay where no matrix reached the input would test nothing.
  return fusednorm::g_written < iterations / 4 ? 1 : 0;
}
#endif
