// Fuzz target: random dimensions, strides, options (kernel and stores too),
// augmentations and buffer sizes fed to FusedNormalization::Create/Apply. Every
// call must either succeed with exactly the reference's bytes, or fail cleanly
// with the output untouched. Under --config=fuzz this is a libFuzzer binary
// (ASan + UBSan); otherwise the main() below replays a fixed number of
// pseudo-random inputs, which makes it an ordinary test.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/dispatch.h"
#include "ops/fused_normalization.h"
#include "testing/reference.h"
#include "testing/reference_normalization.h"

namespace fusednorm {
namespace {

// Reads fuzz bytes as small integers; zeros once exhausted.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint32_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint32_t Below(uint32_t n) { return n == 0 ? 0 : Byte() % n; }
  bool Bool() { return Byte() & 1; }
  const uint8_t* rest() const { return data_ + pos_; }
  size_t rest_size() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// How many inputs ended in each way (printed by the replay driver).
long g_create_errors = 0, g_apply_errors = 0, g_matched = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz check failed: %s\n", what);
    std::abort();
  }
}

void RunOne(const uint8_t* data, size_t size) {
  Reader r(data, size);
  FusedNormalizationOptions o;
  // Each field is valid most of the time and invalid about once in 40, so that
  // both the error paths and the kernels get exercised.
  const auto rare = [&r] { return r.Below(40) == 0; };
  o.dtype = static_cast<DType>(rare() ? 3 : r.Below(3));
  if (r.Bool())
    o.layout = static_cast<Layout>(rare() ? 3 + r.Below(2) : r.Below(3));
  o.mode = static_cast<Mode>(r.Below(2));
  const double probs[] = {0, 0.5, 1, 0.25};
  const double bad_probs[] = {-0.5, 2, NAN};
  o.flip_p = rare() ? bad_probs[r.Below(3)] : probs[r.Below(4)];
  if (r.Below(3) == 0) {
    const int n = static_cast<int>(rare() ? 0 : 1 + r.Below(rare() ? 5 : 4));
    const float values[] = {0.5f, 0.25f, 1.0f, 0.125f, 3.0f, 1e-3f};
    const float bad_values[] = {0.0f, -1.0f, INFINITY, NAN};
    for (int i = 0; i < n; ++i)
      o.mean.push_back(rare() ? bad_values[r.Below(4)] : values[r.Below(6)]);
    for (int i = 0; i < n + rare(); ++i)
      o.std.push_back(rare() ? bad_values[r.Below(4)] : values[r.Below(6)]);
  } else {
    o.preset = static_cast<Preset>(rare() ? 5 : r.Below(5));
  }
  o.erase.enabled = r.Bool();
  o.erase.p = rare() ? bad_probs[r.Below(3)] : probs[r.Below(4)];
  const double scales[] = {0.02, 0.33, 1.0, 0.5};
  const double bad_scales[] = {0.0, 1.5, -1};
  o.erase.scale_min = rare() ? bad_scales[r.Below(3)] : scales[r.Below(2)];
  o.erase.scale_max = rare() ? bad_scales[r.Below(3)] : scales[1 + r.Below(3)];
  const double ratios[] = {0.3, 1.0, 3.3};
  const double bad_ratios[] = {0.0, -1.0, INFINITY};
  o.erase.ratio_min = rare() ? bad_ratios[r.Below(3)] : ratios[r.Below(2)];
  o.erase.ratio_max = rare() ? bad_ratios[r.Below(3)] : ratios[1 + r.Below(2)];
  o.stores = static_cast<FusedNormalizationOptions::Stores>(r.Below(3));
  if (rare()) {
    o.kernel = "bogus";
  } else if (r.Bool()) {  // else the default choice
    o.kernel = KernelTable()[r.Below(KernelTable().size())].id;
  }

  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(o);
  if (!op.ok()) {
    Check(!op.status().message().empty(), "an error has a message");
    ++g_create_errors;
    if (std::getenv("FUZZ_DEBUG"))
      std::fprintf(stderr, "%s\n", op.status().ToString().c_str());
    return;
  }

  const bool huge = rare();
  const int64_t H = huge     ? (int64_t{1} << (20 + r.Below(40)))
                    : rare() ? -static_cast<int64_t>(r.Below(2))
                             : 1 + r.Below(40);
  const int64_t W =
      rare() ? -static_cast<int64_t>(r.Below(2)) : 1 + r.Below(70);
  const int C = rare()                           ? 5 * r.Below(2)
                : op->channels() != 0 && !rare() ? op->channels()
                                                 : 1 + r.Below(4);
  const int64_t pad = rare() ? int64_t{-1} : static_cast<int64_t>(r.Below(10));
  const int64_t stride = W * C + pad;
  Augmentation aug;
  aug.flip = r.Bool();
  if (rare()) {
    aug.erase = {static_cast<int64_t>(r.Below(45)) - 2,
                 static_cast<int64_t>(r.Below(75)) - 2,
                 static_cast<int64_t>(r.Below(45)) - 1,
                 static_cast<int64_t>(r.Below(75)) - 1};
  } else if (H > 0 && W > 0 &&
             H < 1000) {  // torchvision-distributed rectangles
    SampleStream s(r.Byte(), 0, r.Byte());
    aug = op->Sample(H, W, s);
  }
  // Input: exactly the bytes the geometry needs (sometimes one short), filled
  // from the fuzz data; a small image only, so the huge dimensions have to be
  // rejected by arithmetic.
  int64_t in_need = 0;
  if (H > 0 && W > 0 && C > 0 && stride > 0 && H < 1000)
    in_need = (H - 1) * stride + W * C;
  const int64_t in_size = std::max<int64_t>(1, in_need - (rare() ? 1 : 0));
  std::vector<uint8_t> input(in_size);
  for (int64_t i = 0; i < in_size; ++i) {
    input[i] = r.rest_size() ? r.rest()[i % r.rest_size()]
                             : static_cast<uint8_t>(i * 29 + 3);
  }
  absl::StatusOr<size_t> out_need = op->OutputBytes(H, W, C);
  const size_t out_size = out_need.ok() && *out_need < (1u << 24)
                              ? *out_need - (rare() ? 1 : 0)
                              : 64;
  std::vector<uint8_t> output(out_size + 8, 0xee);
  const ImageView view{absl::MakeConstSpan(input), H, W, C, stride};
  const absl::Status status =
      op->Apply(view, aug, OutputView{absl::MakeSpan(output.data(), out_size)});
  if (!status.ok()) {
    for (uint8_t b : output) Check(b == 0xee, "no byte written on error");
    Check(!status.message().empty(), "an error has a message");
    ++g_apply_errors;
    return;
  }
  for (size_t i = out_size; i < output.size(); ++i)
    Check(output[i] == 0xee, "no byte past the end");
  Check(out_need.ok() && out_size == *out_need,
        "success only with a large enough output");

  testing_ref::RefInput ref;
  ref.pixels = input.data();
  ref.height = H;
  ref.width = W;
  ref.channels = C;
  ref.row_stride = stride;
  ref.flip = aug.flip;
  ref.erase = aug.erase;
  testing_ref::SetReferenceNormalization(o, C, &ref);
  const testing_ref::Chw<float> t = o.mode == Mode::kFast
                                        ? testing_ref::FastFloat(ref)
                                        : testing_ref::TorchvisionFloat(ref);
  const std::vector<uint8_t> expected =
      testing_ref::Encode(t, op->dtype(), op->layout());
  Check(expected.size() == out_size &&
            std::memcmp(expected.data(), output.data(), out_size) == 0,
        "output equals the reference");
  ++g_matched;
}

}  // namespace
}  // namespace fusednorm

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fusednorm::RunOne(data, size);
  return 0;
}

#ifndef FUSEDNORM_LIBFUZZER
// Replays pseudo-random inputs: `fuzzer [iterations]` (default 20000).
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
  std::mt19937 gen(2024);
  std::vector<uint8_t> buf;
  for (long i = 0; i < iterations; ++i) {
    buf.resize(gen() % 600);
    for (auto& b : buf) b = static_cast<uint8_t>(gen());
    LLVMFuzzerTestOneInput(buf.data(), buf.size());
  }
  std::printf(
      "replayed %ld inputs: %ld rejected by Create, %ld by Apply, %ld matched "
      "the "
      "reference\n",
      iterations, fusednorm::g_create_errors, fusednorm::g_apply_errors,
      fusednorm::g_matched);
  // A replay where nothing got through would test nothing.
  if (fusednorm::g_matched < iterations / 20) return 1;
  return 0;
}
#endif
