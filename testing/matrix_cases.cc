// The correctness matrix's cases (matrix_cases.h), generated as every
// combination of the options that interact.
#include "testing/matrix_cases.h"

#include <vector>

namespace fusednorm {
namespace testing_ref {
namespace {

constexpr DType kDTypes[] = {DType::kFloat32, DType::kFloat16,
                             DType::kBFloat16};
constexpr Layout kLayouts[] = {Layout::kHWC, Layout::kHWC4, Layout::kCHW};
constexpr Exactness kExactnesses[] = {Exactness::kFast, Exactness::kExact,
                                      Exactness::kExactByDivision};

// Custom mean/std (the first C values) for cases that draw no preset; a
// negative std (torchvision takes one) for every channel count but 1.
constexpr float kCustomMean[kMaxChannels] = {0.5f, 0.25f, 0.125f, 0.9f};
constexpr float kCustomStd[kMaxChannels] = {0.2f, -0.3f, 0.7f, 1.5f};

uint64_t SplitMix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A hash of everything that identifies a case.
uint64_t CaseHash(const Combo& c, int64_t height, int64_t width) {
  uint64_t h = 0;
  for (uint64_t v :
       {uint64_t(c.dtype), uint64_t(c.layout), uint64_t(c.exactness),
        uint64_t(c.channels), uint64_t(c.flip), uint64_t(c.nontemporal),
        uint64_t(c.erase), uint64_t(height), uint64_t(width)}) {
    h = SplitMix(h ^ v);
  }
  return h;
}

// An independent draw in [0, n) for each `what` from one case hash.
uint64_t Draw(uint64_t hash, uint64_t what, uint64_t n) {
  return SplitMix(hash + what * 0xD1B54A32D192ED03ull) % n;
}

// Erase rectangles for an H x W image: interior, touching each edge, one full
// row, everything.
std::vector<EraseRect> EraseShapes(int64_t H, int64_t W) {
  std::vector<EraseRect> shapes = {
      {0, W / 3, (H + 1) / 2, (W + 2) / 3},              // top edge
      {H - (H + 1) / 2, W / 4, (H + 1) / 2, W / 2 + 1},  // bottom edge
      {H / 3, 0, H / 2 + 1, (W + 1) / 2},                // left edge
      {H / 4, W - (W + 1) / 2, H / 2 + 1, (W + 1) / 2},  // right edge
      {H / 2, 0, 1, W},                                  // a full row
      {0, 0, H, W},                                      // everything
      {H / 2, W / 2, 1, 1},                              // one pixel
  };
  if (H >= 3 && W >= 3) shapes.push_back({1, 1, H - 2, W - 2});  // interior
  return shapes;
}

// The presets that take `channels` channels (NO_NORM takes any).
std::vector<Preset> PresetsFor(int channels) {
  switch (channels) {
    case 1:
      return {Preset::kNoNorm, Preset::kMnist};
    case 3:
      return {Preset::kNoNorm, Preset::kImagenet, Preset::kCifar,
              Preset::kMlperf};
    default:
      return {Preset::kNoNorm};
  }
}

MatrixCase MakeCase(const Combo& combo, int64_t height, int64_t width) {
  MatrixCase c;
  c.combo = combo;
  c.height = height;
  c.width = width;
  const uint64_t h = CaseHash(combo, height, width);
  const std::vector<Preset> presets = PresetsFor(combo.channels);
  const uint64_t norm = Draw(h, 1, presets.size() + 1);
  c.custom_norm = norm == presets.size();
  if (!c.custom_norm) c.preset = presets[norm];
  const int64_t paddings[] = {0, 1, 3, 61};
  c.input_padding = paddings[Draw(h, 2, 4)];
  c.input_alignment = static_cast<int>(Draw(h, 3, 65)) - 1;
  c.output_alignment = static_cast<int>(Draw(h, 4, 65)) - 1;
  if (combo.erase) {
    const std::vector<EraseRect> shapes = EraseShapes(height, width);
    c.erase = shapes[Draw(h, 5, shapes.size())];
  }
  c.seed = static_cast<uint32_t>(Draw(h, 6, uint64_t{1} << 32));
  return c;
}

}  // namespace

std::vector<Combo> AllCombos() {
  std::vector<Combo> combos;
  for (DType d : kDTypes) {
    for (Layout l : kLayouts) {
      for (Exactness e : kExactnesses) {
        for (int channels = 1; channels <= kMaxChannels; ++channels) {
          for (bool flip : {false, true}) {
            for (bool nontemporal : {false, true}) {
              for (bool erase : {false, true}) {
                combos.push_back({d, l, e, channels, flip, nontemporal, erase});
              }
            }
          }
        }
      }
    }
  }
  return combos;
}

std::vector<int64_t> CoreWidths() { return {1, 5, 16, 17, 33, 64}; }

std::vector<int64_t> MoreWidths() {
  return {2, 3, 4, 6, 7, 8, 9, 15, 31, 32, 63, 65};
}

std::vector<MatrixCase> CombinationCases(const std::vector<int64_t>& widths) {
  const int64_t heights[] = {1, 2, 3, 5};
  std::vector<MatrixCase> cases;
  for (const Combo& combo : AllCombos()) {
    for (int64_t W : widths) {
      const int64_t H = heights[Draw(CaseHash(combo, 0, W), 7, 4)];
      cases.push_back(MakeCase(combo, H, W));
    }
  }
  return cases;
}

std::vector<MatrixCase> ImageSizeCases() {
  struct Size {
    int64_t h, w;
  };
  const Size sizes[] = {{1, 1},   {1, 257},   {77, 1},   {3, 300},
                        {28, 28}, {224, 224}, {333, 500}};
  std::vector<MatrixCase> cases;
  for (const Size s : sizes) {
    for (const Combo& combo : AllCombos()) {
      // Large sizes: one combination in 32, chosen by hash.
      const bool large = s.h * s.w > 5000;
      if (large && Draw(CaseHash(combo, s.h, s.w), 8, 32) != 0) continue;
      cases.push_back(MakeCase(combo, s.h, s.w));
    }
  }
  return cases;
}

std::vector<MatrixCase> AgreementCases() {
  std::vector<MatrixCase> cases;
  for (const Combo& combo : AllCombos()) {
    if (combo.channels == 3 && combo.flip && combo.erase) {
      cases.push_back(MakeCase(combo, 31, 45));
    }
  }
  return cases;
}

FusedNormTester MakeTester(const MatrixCase& c) {
  FusedNormTester t;
  const Combo& k = c.combo;
  t.channels(k.channels)
      .dtype(k.dtype)
      .layout(k.layout)
      .mode(k.exactness == Exactness::kFast ? Mode::kFast
                                            : Mode::kTorchvisionExact)
      .exact_by_division(k.exactness == Exactness::kExactByDivision)
      .flip(k.flip)
      .nontemporal(k.nontemporal)
      .height(c.height)
      .width(c.width)
      .input_padding(c.input_padding)
      .input_alignment(c.input_alignment)
      .output_alignment(c.output_alignment)
      .erase(c.erase)
      .seed(c.seed);
  if (c.custom_norm) {
    t.mean_std({kCustomMean, kCustomMean + k.channels},
               {kCustomStd, kCustomStd + k.channels});
  } else {
    t.preset(c.preset);
  }
  return t;
}

}  // namespace testing_ref
}  // namespace fusednorm
