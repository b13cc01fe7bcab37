// Running a chain's real ops on one sample, as the workers do: read and
// decode it, then each op in order. Where the dataset stores the sample as a
// JPEG and the first op reads only a window of its input (RandomResizedCrop),
// the window is drawn from the header's size first and only that part of the
// image is decoded: the pixels are the full decode's (codecs/jpeg.h), so
// the result is byte-identical either way. A raw .npy sample is read where
// the dataset keeps it, without a copy. Internal to pipeline/.
#ifndef FUSEDNORM_PIPELINE_REAL_OPS_H_
#define FUSEDNORM_PIPELINE_REAL_OPS_H_

#include <atomic>
#include <chrono>
#include <cstdint>

#include "absl/status/statusor.h"
#include "pipeline/chain.h"
#include "data/dataset.h"
#include "codecs/jpeg.h"
#include "rng/philox.h"

namespace fusednorm {

// Adds the time since the last Add (or construction) to a stage's counter.
class StageClock {
 public:
  void Add(std::atomic<int64_t>* ns) {
    const auto now = std::chrono::steady_clock::now();
    ns->fetch_add(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - last_)
            .count(),
        std::memory_order_relaxed);
    last_ = now;
  }

 private:
  std::chrono::steady_clock::time_point last_ =
      std::chrono::steady_clock::now();
};

// Where RunRealOps adds its stages' time: reading and decoding, then the ops.
struct StageCounters {
  std::atomic<int64_t>* load;
  std::atomic<int64_t>* transforms;
};

// A worker's buffers, reused from sample to sample: once they have grown to
// the largest sample, running the real ops allocates nothing of ours (the
// image libraries still allocate their decoders' state per image).
struct SampleWorkspace {
  Sample sample;  // the result
  Image next;
  EncodedSample encoded;
  DecodedRegion region;
};

// How JPEGs may be decoded for a first op that draws a window: only over the
// window (the same pixels), and with `scale` at the largest of 1/8, 1/4, 1/2
// that keeps the window at least the op's output size (other pixels: opt-in).
struct DecodeOptions {
  bool crop = true;
  bool scale = false;
};

// Sample `index` of `dataset` after the chain's real ops, into ws->sample,
// drawing from `stream`. Errors name the sample (and its file) and the op.
absl::Status RunRealOps(const Chain& chain, const Dataset& dataset,
                        uint64_t index, SampleStream& stream,
                        DecodeOptions decode, StageClock* clock,
                        StageCounters counters, SampleWorkspace* ws);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_REAL_OPS_H_
