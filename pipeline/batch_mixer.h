// BatchMixer: a batch transform (MixUp, CutMix) applied to a batch's
// samples as they land in its slot, instead of in one pass over the
// finished batch (154 MB for 256 float32 samples of 224x224), so that a
// sample's partner is still in the shared cache, read one sample earlier.
// A batch that large is mixed with streaming stores (MixStreams): regular
// stores leave its lines to be written back while the next samples are
// read, which at times made the mix several times slower. The bytes are
// MixBatch's (ops/batch_ops.h).
//
// Sample i is mixed with the original of sample i - 1, and sample 0 with
// the last's. So mixing sample i must wait until samples i and i - 1 are
// in and sample i + 1 is mixed (which reads sample i's original): the
// mixer mixes the samples from the last down, each as soon as that holds,
// and the loader has its workers take a batch's samples in that order,
// last first. Only the last sample's original is copied (for sample 0).
//
// The loader calls Open, Landed, Claim, Done and finished under its lock;
// Mix outside it (one thread mixes a batch at a time), and SaveIfLast
// outside it too, from the worker of each sample: only the last sample's
// worker reads the mixer's state then, and nothing is mixed before the
// last sample is in.
#ifndef FUSEDNORM_PIPELINE_BATCH_MIXER_H_
#define FUSEDNORM_PIPELINE_BATCH_MIXER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/mix/mix_kernel.h"
#include "ops/transforms.h"

namespace fusednorm {

class BatchMixer {
 public:
  // A batch of `count` samples at `data` (laid out as `shape`) and its
  // decisions; kNone mixes nothing, and needs no kernel (`kernel` may be
  // null then). Throws std::bad_alloc when the copy of the last sample
  // cannot be allocated.
  void Open(const BatchDecision& d, const BatchShape& shape,
            const MixKernelInfo* kernel, uint8_t* data, size_t count);
  const BatchDecision& decision() const { return d_; }

  // Copies sample `pos` when it is the last, after it is written and
  // before it is Landed (its worker owns it then, without the lock).
  void SaveIfLast(size_t pos);
  // Sample `pos` is in: a sample (`ok`) or a skipped one, which is mixed
  // with nothing (MixesWithPartner).
  void Landed(size_t pos, bool ok);
  // The next sample to mix into *pos when it can be mixed now and no other
  // thread is mixing; Mix(*pos) outside the lock, then Done(*pos).
  bool Claim(size_t* pos);
  void Mix(size_t pos) const;
  void Done(size_t pos);
  // Every sample is mixed.
  bool finished() const { return next_ == 0; }

 private:
  BatchDecision d_;
  BatchShape shape_;
  const MixKernelInfo* kernel_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t count_ = 0;
  bool stream_ = false;  // MixStreams
  std::vector<bool> landed_;
  // Per sample: not skipped. Bytes, not std::vector<bool>'s shared words:
  // Mix reads a sample's outside the lock while Landed writes another's.
  std::vector<uint8_t> ok_;
  size_t next_ = 0;  // samples next_ .. count_ - 1 are mixed
  bool busy_ = false;
  std::vector<uint8_t> last_;  // the last sample's original
};

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_BATCH_MIXER_H_
