// BatchMixer (batch_mixer.h): samples mixed from the last down as they land.
#include "pipeline/batch_mixer.h"

#include <cstring>

namespace fusednorm {

void BatchMixer::Open(const BatchDecision& d, const BatchShape& shape,
                      const MixKernelInfo* kernel, uint8_t* data,
                      size_t count) {
  d_ = d;
  shape_ = shape;
  kernel_ = kernel;
  data_ = data;
  count_ = count;
  stream_ = MixStreams(shape, count);
  landed_.assign(count, false);
  ok_.assign(count, 0);
  busy_ = false;
  const bool mixes = d.kind != BatchDecision::Kind::kNone && count > 0;
  next_ = mixes ? count : 0;
  if (mixes) last_.resize(shape.sample_bytes);
}

void BatchMixer::SaveIfLast(size_t pos) {
  // Only the last sample's worker reads next_: no thread mixes before the
  // last sample is in.
  if (pos + 1 != count_ || next_ == 0) return;
  std::memcpy(last_.data(), data_ + pos * shape_.sample_bytes,
              shape_.sample_bytes);
}

void BatchMixer::Landed(size_t pos, bool ok) {
  landed_[pos] = true;
  ok_[pos] = ok;
}

bool BatchMixer::Claim(size_t* pos) {
  if (busy_ || next_ == 0) return false;
  const size_t i = next_ - 1;
  // Sample i's partner is sample i - 1 (its original: it is mixed after
  // i), or for sample 0 the copy of the last.
  if (!landed_[i] || (i > 0 && !landed_[i - 1])) return false;
  busy_ = true;
  *pos = i;
  return true;
}

void BatchMixer::Mix(size_t pos) const {
  if (!MixesWithPartner(ok_[pos], ok_[(pos + count_ - 1) % count_])) return;
  const size_t bytes = shape_.sample_bytes;
  const uint8_t* partner = pos == 0 ? last_.data() : data_ + (pos - 1) * bytes;
  MixSample(d_, shape_, *kernel_, partner, data_ + pos * bytes, stream_);
}

void BatchMixer::Done(size_t pos) {
  next_ = pos;
  busy_ = false;
}

}  // namespace fusednorm
