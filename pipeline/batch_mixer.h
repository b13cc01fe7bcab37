// BatchMixer: a batch transform (MixUp, CutMix) applied to a batch's
// samples as they land, while they are still in the cache, instead of in
// one pass over the finished batch, which reads and writes the whole batch
// (154 MB for 256 float32 samples of 224x224) from memory again. The bytes
// are MixBatch's (ops/batch_ops.h).
//
// Sample i is mixed with the original of sample i - 1, and sample 0 with
// the last's. So mixing sample i must wait until samples i and i - 1 are
// in and sample i + 1 is mixed (CutMix mixes in place, so sample i's
// original is gone once it is mixed): the mixer mixes the samples from the
// last down, each as soon as that holds, and the loader has its workers
// take a batch's samples in that order, last first.
//
// Workers do not write a mixed batch's samples to the slot: each writes
// its sample to a buffer the mixer holds (Hold), small enough to stay in
// the cache, with regular stores. Mixing sample i reads the buffers of
// samples i and i - 1 and streams the result to the slot, past the caches
// (the batch is read next by another thread or the device, not by this
// core). So the slot is written once, as without a batch transform, and
// the samples mixed are read from the cache, not from memory.
//
// The loader calls Open, Hold, Landed, Claim, Done and finished under its
// lock, and Mix outside it (one thread mixes a batch at a time). Buffers
// come from a SampleBuffers shared by the loader's mixers, under the same
// lock.
#ifndef FUSEDNORM_PIPELINE_BATCH_MIXER_H_
#define FUSEDNORM_PIPELINE_BATCH_MIXER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/mix/mix_kernel.h"
#include "ops/transforms.h"

namespace fusednorm {

// Sample buffers given back to be taken again, the last given back first:
// it is the one most likely still in the cache.
class SampleBuffers {
 public:
  // A buffer of `bytes` bytes. Throws std::bad_alloc.
  std::vector<uint8_t> Take(size_t bytes);
  void Give(std::vector<uint8_t> buffer);

 private:
  std::vector<std::vector<uint8_t>> free_;
};

class BatchMixer {
 public:
  // A batch of `count` samples at `data` (laid out as `shape`) and its
  // decisions, with buffers from `buffers`; kNone mixes nothing, and needs
  // no kernel (`kernel` may be null then). Gives back what the mixer still
  // held of the batch before.
  void Open(const BatchDecision& d, const BatchShape& shape,
            const MixKernelInfo* kernel, uint8_t* data, size_t count,
            SampleBuffers* buffers);
  const BatchDecision& decision() const { return d_; }
  // Whether the samples go to Hold's buffers rather than to the slot.
  bool mixes() const { return !held_.empty(); }

  // The buffer of shape.sample_bytes that sample `pos` is written to,
  // while mixes(). Throws std::bad_alloc.
  uint8_t* Hold(size_t pos);
  // Sample `pos` is in.
  void Landed(size_t pos);
  // The next sample to mix into *pos when it can be mixed now and no other
  // thread is mixing; Mix(*pos) outside the lock, then Done(*pos).
  bool Claim(size_t* pos);
  void Mix(size_t pos);
  void Done(size_t pos);
  // Every sample is mixed.
  bool finished() const { return next_ == 0; }

 private:
  void GiveBack(size_t pos);

  BatchDecision d_;
  BatchShape shape_;
  const MixKernelInfo* kernel_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t count_ = 0;
  SampleBuffers* buffers_ = nullptr;
  std::vector<bool> landed_;
  std::vector<std::vector<uint8_t>> held_;  // per sample, while needed
  size_t next_ = 0;  // samples next_ .. count_ - 1 are mixed
  bool busy_ = false;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_BATCH_MIXER_H_
