// BatchMixer (batch_mixer.h): samples mixed from the last down as they land.
#include "pipeline/batch_mixer.h"

#include <cstring>
#include <utility>

namespace fusednorm {

std::vector<uint8_t> SampleBuffers::Take(size_t bytes) {
  std::vector<uint8_t> b;
  if (!free_.empty()) {
    b = std::move(free_.back());
    free_.pop_back();
  }
  b.resize(bytes);
  return b;
}

void SampleBuffers::Give(std::vector<uint8_t> buffer) {
  if (buffer.capacity() > 0) free_.push_back(std::move(buffer));
}

void BatchMixer::Open(const BatchDecision& d, const BatchShape& shape,
                      const MixKernelInfo* kernel, uint8_t* data, size_t count,
                      SampleBuffers* buffers) {
  for (size_t pos = 0; pos < held_.size(); ++pos) GiveBack(pos);
  d_ = d;
  shape_ = shape;
  kernel_ = kernel;
  data_ = data;
  count_ = count;
  buffers_ = buffers;
  landed_.assign(count, false);
  busy_ = false;
  const bool mixes = d.kind != BatchDecision::Kind::kNone && count > 0;
  next_ = mixes ? count : 0;
  held_.clear();
  if (mixes) held_.resize(count);
}

uint8_t* BatchMixer::Hold(size_t pos) {
  held_[pos] = buffers_->Take(shape_.sample_bytes);
  return held_[pos].data();
}

void BatchMixer::Landed(size_t pos) { landed_[pos] = true; }

bool BatchMixer::Claim(size_t* pos) {
  if (busy_ || next_ == 0) return false;
  const size_t i = next_ - 1;
  // Sample i's partner is sample i - 1 (its original: it is mixed after
  // i), or for sample 0 the last's original.
  if (!landed_[i] || (i > 0 && !landed_[i - 1])) return false;
  busy_ = true;
  *pos = i;
  return true;
}

void BatchMixer::Mix(size_t pos) {
  const size_t bytes = shape_.sample_bytes;
  const uint8_t* partner = held_[pos == 0 ? count_ - 1 : pos - 1].data();
  uint8_t* cur = held_[pos].data();
  uint8_t* out = data_ + pos * bytes;
  if (d_.kind == BatchDecision::Kind::kMixUp) {
    MixUpTo(d_, shape_, *kernel_, partner, cur, out);
  } else if (pos + 1 == count_) {
    // The last's original stays in its buffer for sample 0.
    std::memcpy(out, cur, bytes);
    MixSample(d_, shape_, *kernel_, partner, out);
  } else {
    MixSample(d_, shape_, *kernel_, partner, cur);
    kernel_->copy(out, cur, bytes);
  }
}

void BatchMixer::Done(size_t pos) {
  next_ = pos;
  busy_ = false;
  // Sample pos's buffer was sample pos + 1's partner, mixed before; the
  // last's is sample 0's.
  if (pos + 1 != count_) GiveBack(pos);
  if (pos == 0) GiveBack(count_ - 1);
}

void BatchMixer::GiveBack(size_t pos) {
  if (buffers_ != nullptr) buffers_->Give(std::move(held_[pos]));
  held_[pos] = std::vector<uint8_t>();
}

}  // namespace fusednorm
