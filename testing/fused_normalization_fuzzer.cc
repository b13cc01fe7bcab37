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

// Each field is valid most of the time and invalid about once in 40, so that
// both the error paths and the kernels get exercised.
bool Rare(Reader& r) { return r.Below(40) == 0; }

const double kProbs[] = {0, 0.5, 1, 0.25};
const double kBadProbs[] = {-0.5, 2, NAN};

// Preset, or custom mean/std (sometimes of unequal counts or bad values).
void DrawNormalization(Reader& r, FusedNormalizationOptions* o) {
  if (r.Below(3) != 0) {
    o->preset = static_cast<Preset>(Rare(r) ? 5 : r.Below(5));
    return;
  }
  const int n = static_cast<int>(Rare(r) ? 0 : 1 + r.Below(Rare(r) ? 5 : 4));
  const float values[] = {0.5f, 0.25f, 1.0f, 0.125f, 3.0f, 1e-3f};
  const float bad_values[] = {0.0f, -1.0f, INFINITY, NAN};
  for (int i = 0; i < n; ++i)
    o->mean.push_back(Rare(r) ? bad_values[r.Below(4)] : values[r.Below(6)]);
  for (int i = 0; i < n + Rare(r); ++i)
    o->std.push_back(Rare(r) ? bad_values[r.Below(4)] : values[r.Below(6)]);
}

void DrawErase(Reader& r, EraseOptions* e) {
  e->enabled = r.Bool();
  e->p = Rare(r) ? kBadProbs[r.Below(3)] : kProbs[r.Below(4)];
  const double scales[] = {0.02, 0.33, 1.0, 0.5};
  const double bad_scales[] = {0.0, 1.5, -1};
  e->scale_min = Rare(r) ? bad_scales[r.Below(3)] : scales[r.Below(2)];
  e->scale_max = Rare(r) ? bad_scales[r.Below(3)] : scales[1 + r.Below(3)];
  const double ratios[] = {0.3, 1.0, 3.3};
  const double bad_ratios[] = {0.0, -1.0, INFINITY};
  e->ratio_min = Rare(r) ? bad_ratios[r.Below(3)] : ratios[r.Below(2)];
  e->ratio_max = Rare(r) ? bad_ratios[r.Below(3)] : ratios[1 + r.Below(2)];
}

FusedNormalizationOptions DrawOptions(Reader& r) {
  FusedNormalizationOptions o;
  o.dtype = static_cast<DType>(Rare(r) ? 3 : r.Below(3));
  if (r.Bool())
    o.layout = static_cast<Layout>(Rare(r) ? 3 + r.Below(2) : r.Below(3));
  o.mode = static_cast<Mode>(r.Below(2));
  o.flip_p = Rare(r) ? kBadProbs[r.Below(3)] : kProbs[r.Below(4)];
  DrawNormalization(r, &o);
  DrawErase(r, &o.erase);
  o.stores = static_cast<FusedNormalizationOptions::Stores>(r.Below(3));
  if (Rare(r)) {
    o.kernel = "bogus";
  } else if (r.Bool()) {  // else the default choice
    o.kernel = KernelTable()[r.Below(KernelTable().size())].id;
  }
  return o;
}

// One Apply call's image geometry (sometimes empty, negative or huge).
struct Geometry {
  int64_t H, W;
  int C;
  int64_t stride;
};

Geometry DrawGeometry(Reader& r, const FusedNormalization& op) {
  const bool huge = Rare(r);
  const int64_t H = huge      ? (int64_t{1} << (20 + r.Below(40)))
                    : Rare(r) ? -static_cast<int64_t>(r.Below(2))
                              : 1 + r.Below(40);
  const int64_t W =
      Rare(r) ? -static_cast<int64_t>(r.Below(2)) : 1 + r.Below(70);
  const int C = Rare(r)                          ? 5 * r.Below(2)
                : op.channels() != 0 && !Rare(r) ? op.channels()
                                                 : 1 + r.Below(4);
  const int64_t pad = Rare(r) ? int64_t{-1} : static_cast<int64_t>(r.Below(10));
  return {H, W, C, W * C + pad};
}

Augmentation DrawAugmentation(Reader& r, const FusedNormalization& op,
                              const Geometry& g) {
  Augmentation aug;
  aug.flip = r.Bool();
  if (Rare(r)) {
    aug.erase = {static_cast<int64_t>(r.Below(45)) - 2,
                 static_cast<int64_t>(r.Below(75)) - 2,
                 static_cast<int64_t>(r.Below(45)) - 1,
                 static_cast<int64_t>(r.Below(75)) - 1};
  } else if (g.H > 0 && g.W > 0 && g.H < 1000) {
    SampleStream s(r.Byte(), 0, r.Byte());  // torchvision-distributed
    aug = op.Sample(g.H, g.W, s);
  }
  return aug;
}

// Exactly the bytes the geometry needs (sometimes one short), filled from
// the fuzz data; a small image only, so the huge dimensions have to be
// rejected by arithmetic.
std::vector<uint8_t> DrawInput(Reader& r, const Geometry& g) {
  int64_t need = 0;
  if (g.H > 0 && g.W > 0 && g.C > 0 && g.stride > 0 && g.H < 1000)
    need = (g.H - 1) * g.stride + g.W * g.C;
  const int64_t size = std::max<int64_t>(1, need - (Rare(r) ? 1 : 0));
  std::vector<uint8_t> input(size);
  for (int64_t i = 0; i < size; ++i) {
    input[i] = r.rest_size() ? r.rest()[i % r.rest_size()]
                             : static_cast<uint8_t>(i * 29 + 3);
  }
  return input;
}

// A successful Apply's output must be the reference's bytes.
void CheckAgainstReference(const FusedNormalizationOptions& o,
                           const FusedNormalization& op,
                           const std::vector<uint8_t>& input, const Geometry& g,
                           const Augmentation& aug, const uint8_t* output,
                           size_t size) {
  testing_ref::RefInput ref;
  ref.pixels = input.data();
  ref.height = g.H;
  ref.width = g.W;
  ref.channels = g.C;
  ref.row_stride = g.stride;
  ref.flip = aug.flip;
  ref.erase = aug.erase;
  testing_ref::SetReferenceNormalization(o, g.C, &ref);
  const testing_ref::Chw<float> t = o.mode == Mode::kFast
                                        ? testing_ref::FastFloat(ref)
                                        : testing_ref::TorchvisionFloat(ref);
  const std::vector<uint8_t> expected =
      testing_ref::Encode(t, op.dtype(), op.layout());
  Check(expected.size() == size &&
            std::memcmp(expected.data(), output, size) == 0,
        "output equals the reference");
}

void RunOne(const uint8_t* data, size_t size) {
  Reader r(data, size);
  const FusedNormalizationOptions o = DrawOptions(r);
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(o);
  if (!op.ok()) {
    Check(!op.status().message().empty(), "an error has a message");
    ++g_create_errors;
    if (std::getenv("FUZZ_DEBUG"))
      std::fprintf(stderr, "%s\n", op.status().ToString().c_str());
    return;
  }
  const Geometry g = DrawGeometry(r, *op);
  const Augmentation aug = DrawAugmentation(r, *op, g);
  const std::vector<uint8_t> input = DrawInput(r, g);
  absl::StatusOr<size_t> out_need = op->OutputBytes(g.H, g.W, g.C);
  const size_t out_size = out_need.ok() && *out_need < (1u << 24)
                              ? *out_need - (Rare(r) ? 1 : 0)
                              : 64;
  std::vector<uint8_t> output(out_size + 8, 0xee);
  const ImageView view{absl::MakeConstSpan(input), g.H, g.W, g.C, g.stride};
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
  CheckAgainstReference(o, *op, input, g, aug, output.data(), out_size);
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
      "the reference\n",
      iterations, fusednorm::g_create_errors, fusednorm::g_apply_errors,
      fusednorm::g_matched);
  // A replay where nothing got through would test nothing.
  if (fusednorm::g_matched < iterations / 20) return 1;
  return 0;
}
#endif
