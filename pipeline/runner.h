// The runner: one sample from its dataset into its place in a batch, as a
// worker does it --
//
//   read (Dataset::Read) -> plan (MakePlan, from the header's size) ->
//   decode only the first op's window (codecs/codec.h) -> the real ops ->
//   the fused op, straight into the slot -> check the bytes read were
//   still the dataset's (a shard rewritten meanwhile).
//
// Decoding only the window gives the pixels a full decode gives inside it,
// so the batch is byte-identical either way; a .npy is used where the
// dataset keeps it, and decoded pixels are read in place. Every buffer
// lives in the worker's Workspace, passed in: once the buffers have grown to
// the largest sample, a sample allocates nothing of ours (the image
// libraries still allocate their decoders' state).
#ifndef FUSEDNORM_PIPELINE_RUNNER_H_
#define FUSEDNORM_PIPELINE_RUNNER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "codecs/codec.h"
#include "data/dataset.h"
#include "ops/transforms.h"
#include "pipeline/chain.h"
#include "pipeline/memory_budget.h"
#include "pipeline/plan.h"

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

// Where a run adds its stages' time, in nanoseconds summed over workers,
// and what decoding the JPEG and PNG samples took: the pixels decoded, and
// those of the whole images (both at the scale decoded), so that decoding
// only the crops' windows shows as decoded < whole.
struct StageCounters {
  std::atomic<int64_t> load{0};        // reading and decoding
  std::atomic<int64_t> transforms{0};  // the real ops
  std::atomic<int64_t> fused{0};       // FusedNormalization
  std::atomic<int64_t> batch{0};       // batch transforms and targets
  // Each real op's share of `transforms`, in chain order (empty: not
  // counted per op).
  std::vector<std::atomic<int64_t>> ops;
  std::atomic<int64_t> decoded_pixels{0};
  std::atomic<int64_t> whole_pixels{0};
};

// A worker's buffers, reused from sample to sample (but for a large one's,
// freed after it: see DecodeOptions::budget).
struct Workspace {
  SampleBuffer read;
  RawSample raw;
  SamplePlan plan;
  DecodedImage decoded;
  Image a, b;  // the real ops' outputs, in turn
  OpWorkspace ops;
  int64_t budgeted = 0;  // the bytes the sample took from the budget
};

// How the runner may decode JPEGs for a first op that reads a window: only
// over the window (the same pixels), and at the largest of 1/8, 1/4, 1/2
// that keeps the window at least the op's output size (other pixels).
// With a budget, a sample whose decode and two op buffers (as large as it,
// or as the plan's largest output) would pass its free bytes takes them
// from it before decoding, and frees its buffers after; a cancelled budget
// cancels the decode.
struct DecodeOptions {
  bool crop = true;
  bool scale = false;
  MemoryBudget* budget = nullptr;
};

// Where the fused op writes: image `position` of the batch buffer `batch`.
struct BatchPlace {
  absl::Span<uint8_t> batch;
  size_t position = 0;
};

// Runs sample `index` of `dataset` through `chain` into `place`, drawing
// from the stream (seed, epoch, index); returns its label. Errors name the
// sample (and its file), and the op where one failed.
absl::StatusOr<int64_t> RunSample(const Chain& chain, const Dataset& dataset,
                                  uint64_t index, SampleStream& stream,
                                  DecodeOptions decode, BatchPlace place,
                                  StageCounters* counters, Workspace* ws);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_RUNNER_H_
