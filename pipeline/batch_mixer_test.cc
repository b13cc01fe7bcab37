// BatchMixer against MixBatch: samples landing in any order (last first,
// first first, a skipped one) mix to MixBatch's bytes, each sample once,
// and a batch of 2 MiB or more asks the kernel for streaming stores.
#include "pipeline/batch_mixer.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ops/batch_ops.h"
#include "testing/recording_mix.h"

namespace fusednorm {
namespace {

using testing_ref::RecordedMixHints;

BatchShape Float32Hwc(int64_t h, int64_t w) {
  BatchShape s;
  s.height = h;
  s.width = w;
  s.channels = 3;
  s.sample_bytes = static_cast<size_t>(h * w * 3) * 4;
  return s;
}

std::vector<uint8_t> RandomBatch(const BatchShape& s, size_t n) {
  std::mt19937 rng(static_cast<uint32_t>(n));
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<uint8_t> data(s.sample_bytes * n);
  for (size_t i = 0; i + 4 <= data.size(); i += 4) {
    const float v = value(rng);
    std::memcpy(&data[i], &v, 4);
  }
  return data;
}

// Lands the samples in `order`, mixing whatever can be mixed after each.
void LandAndMix(BatchMixer* m, const std::vector<size_t>& order,
                const std::vector<bool>& ok) {
  for (const size_t pos : order) {
    m->SaveIfLast(pos);
    m->Landed(pos, ok[pos]);
    for (size_t p; m->Claim(&p);) {
      m->Mix(p);
      m->Done(p);
    }
  }
  EXPECT_TRUE(m->finished());
}

TEST(BatchMixer, MixesAsMixBatchInAnyLandingOrder) {
  const MixKernelInfo recording = testing_ref::RecordingMix();
  BatchDecision d;
  d.kind = BatchDecision::Kind::kMixUp;
  d.lam = 0.375;
  // 22 samples of 64x64: 1 MiB, streamed from 43 (2 MiB and more).
  for (const size_t n : {size_t{1}, size_t{5}, size_t{22}, size_t{43}}) {
    const BatchShape s = Float32Hwc(64, 64);
    std::vector<size_t> last_first(n), first_first(n), shuffled(n);
    std::iota(first_first.begin(), first_first.end(), size_t{0});
    std::reverse_copy(first_first.begin(), first_first.end(),
                      last_first.begin());
    shuffled = first_first;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(9));
    for (const auto& order : {last_first, first_first, shuffled}) {
      for (const bool skip : {false, true}) {
        SCOPED_TRACE(
            absl::StrCat("n ", n, " first landed ", order[0], " skip ", skip));
        std::vector<bool> ok(n, true);
        if (skip && n > 2) ok[n / 2] = false;
        std::vector<uint8_t> got = RandomBatch(s, n), want = got, scratch;
        MixBatch(d, s, recording, ok, want.data(), n, &scratch);
        RecordedMixHints().clear();
        BatchMixer m;
        m.Open(d, s, &recording, got.data(), n);
        LandAndMix(&m, order, ok);
        EXPECT_EQ(got, want);
        const size_t mixed = static_cast<size_t>(
            std::count_if(order.begin(), order.end(), [&](size_t i) {
              return MixesWithPartner(ok[i], ok[(i + n - 1) % n]);
            }));
        EXPECT_EQ(RecordedMixHints(),
                  std::vector<bool>(mixed, n * s.sample_bytes >= (2u << 20)));
      }
    }
  }
}

}  // namespace
}  // namespace fusednorm
