// RunSample (runner.h): read, plan, decode the window, transform, normalize
// into the batch, check the source.
#include "pipeline/runner.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "codecs/jpeg.h"
#include "core/status.h"

namespace fusednorm {
namespace {

// The decode request of a plan for an image of `size`: the first op's
// window (when `decode.crop`), at the DCT scale its output size allows
// (when `decode.scale`). A window that reaches into padding (RandomCrop's)
// needs the whole image, whose borders the padding repeats.
DecodeRequest Request(const Chain& chain, const SamplePlan& plan,
                      DecodeOptions decode, Size2 size) {
  DecodeRequest r;
  if (chain.ops.empty() || !plan.ops[0].window) return r;
  const CropWindow& window = *plan.ops[0].window;
  // Outside (padding), or empty (RandomResizedCrop's black fallback,
  // which reads no pixel): the whole image.
  if (!window.Inside(size) || window.empty()) return r;
  if (decode.crop) r.region = window;
  const std::optional<Size2> out = chain.ops[0]->FixedOutputSize();
  if (decode.scale && out) r.scale = DecodeScale(window, *out);
  return r;
}

// Takes a large sample's bytes from the budget: its decode's pixels, two op
// buffers as large as the decode or the largest output its plan makes (4
// bytes a pixel), whichever is larger, and the decoder's own; false once
// the budget is cancelled.
bool Reserve(const Codec* codec, const DecodeHeader& h, const DecodeRequest& r,
             MemoryBudget* budget, Workspace* ws) {
  if (budget == nullptr || codec == nullptr) return true;
  const int64_t pixels = codec->decoded_bytes(h.size, r);
  const int64_t outputs = std::max(pixels, 4 * ws->plan.largest_output);
  const int64_t bytes = pixels + 2 * outputs + h.decoder_bytes;
  if (!budget->Needs(bytes)) return true;
  if (!budget->Acquire(bytes)) return false;
  ws->budgeted = bytes;
  return true;
}

// The most of a file's bytes a worker keeps for its next sample's read.
constexpr size_t kKeptFileBytes = size_t{64} << 20;

// Frees a large sample's buffers (and a large file's bytes) and gives its
// bytes back, however the sample ended (an error, or bad_alloc thrown
// through).
class LargeSampleRelease {
 public:
  LargeSampleRelease(MemoryBudget* budget, Workspace* ws)
      : budget_(budget), ws_(ws) {}
  LargeSampleRelease(const LargeSampleRelease&) = delete;
  LargeSampleRelease& operator=(const LargeSampleRelease&) = delete;
  ~LargeSampleRelease() {
    // A large file's bytes are not kept for the next sample either: a
    // worker would hold them between epochs, until its loader is gone.
    if (ws_->read.bytes.capacity() > kKeptFileBytes)
      ws_->read.bytes = std::vector<uint8_t>();
    if (ws_->budgeted == 0) return;
    ws_->decoded.storage = Image();
    ws_->a = Image();
    ws_->b = Image();
    ws_->ops = OpWorkspace();
    budget_->Release(ws_->budgeted);
    ws_->budgeted = 0;
  }

 private:
  MemoryBudget* budget_;
  Workspace* ws_;
};

// Plans the sample from its size and decodes what the plan needs into
// ws->decoded (decoded pixels are shown in place). Decoding errors name the
// sample already; a plan's error gets its name here.
absl::Status PlanAndDecode(const Chain& chain, const RawSample& raw,
                           SampleStream& stream, DecodeOptions decode,
                           Workspace* ws) {
  absl::Status planned, decoded;
  if (raw.is_encoded()) {
    const Codec* codec = SniffCodec(raw.encoded);
    decoded = Decode(
        raw.encoded, raw.what,
        [&](const DecodeHeader& h) {
          planned = MakePlan(chain, h.size, stream, &ws->plan);
          // A sample that cannot be planned is not decoded: its error is
          // the plan's.
          if (!planned.ok()) return DecodeRequest{{}, 1, /*cancel=*/true};
          DecodeRequest r = Request(chain, ws->plan, decode, h.size);
          r.cancel = !Reserve(codec, h, r, decode.budget, ws);
          return r;
        },
        &ws->decoded);
  } else {
    const ImageView& v = raw.pixels;
    planned = MakePlan(chain, {v.height, v.width}, stream, &ws->plan);
    ws->decoded.view = v;
    ws->decoded.top = ws->decoded.left = 0;
    ws->decoded.scale = 1;
    ws->decoded.size = Size2{v.height, v.width};
  }
  if (!planned.ok()) return PrefixStatus(planned, raw.what + ": ");
  return decoded;
}

// Adds a decoded sample's pixels and its whole image's to the counters; a
// .npy shown in place (its pixels in the sample's bytes) decodes nothing.
void CountDecoded(const RawSample& raw, const DecodedImage& d,
                  StageCounters* counters) {
  const uint8_t* p = d.view.pixels.data();
  if (p >= raw.encoded.data() && p < raw.encoded.data() + raw.encoded.size())
    return;
  counters->decoded_pixels.fetch_add(d.view.height * d.view.width,
                                     std::memory_order_relaxed);
  counters->whole_pixels.fetch_add(d.size.height * d.size.width,
                                   std::memory_order_relaxed);
}

// The first op's decision in the coordinates of the decoded part (which may
// be a region, or the image at a reduced scale). An image decoded whole
// keeps the window as it is, padding included.
OpDecision InDecoded(const OpDecision& d, const DecodedImage& image) {
  if (!d.window || (image.scale == 1 && image.top == 0 && image.left == 0 &&
                    image.view.height == image.size.height &&
                    image.view.width == image.size.width)) {
    return d;
  }
  CropWindow w = ScaleBox(*d.window, image.scale, image.size);
  w.top -= image.top;
  w.left -= image.left;
  OpDecision in_decoded = d;
  in_decoded.window = w;
  return in_decoded;
}

// The real ops in turn, from ws->decoded; returns the last output (or the
// decoded pixels when there are no ops). An op whose decision leaves its
// input as it is (a flip not taken) passes it on without a copy.
absl::StatusOr<ImageView> Transform(const Chain& chain, const RawSample& raw,
                                    StageCounters* counters, StageClock* clock,
                                    Workspace* ws) {
  ImageView current = ws->decoded.view;
  for (size_t i = 0; i < chain.ops.size(); ++i) {
    const PreprocessOp& op = *chain.ops[i];
    const OpDecision d =
        i == 0 ? InDecoded(ws->plan.ops[0], ws->decoded) : ws->plan.ops[i];
    if (op.Skips(d)) continue;
    // The output may not be the buffer `current` views.
    Image* out = current.pixels.data() == ws->a.pixels.data() ? &ws->b : &ws->a;
    const absl::Status s = op.Apply(current, d, &ws->ops, out);
    if (!s.ok()) {
      return PrefixStatus(s, absl::StrCat(raw.what, ": ", op.name(), ": "));
    }
    current = out->view();
    if (i < counters->ops.size()) clock->Add(&counters->ops[i]);
  }
  return current;
}

// RunSample's work once the sample is read.
absl::Status RunRead(const Chain& chain, const Dataset& dataset,
                     SampleStream& stream, DecodeOptions decode,
                     BatchPlace place, StageCounters* counters,
                     StageClock* clock, Workspace* ws) {
  const RawSample& raw = ws->raw;
  FUSEDNORM_RETURN_IF_ERROR(PlanAndDecode(chain, raw, stream, decode, ws));
  if (raw.is_encoded()) CountDecoded(raw, ws->decoded, counters);
  clock->Add(&counters->load);
  FUSEDNORM_ASSIGN_OR_RETURN(const ImageView out,
                             Transform(chain, raw, counters, clock, ws));
  if (out.channels != chain.channels) {
    return InvalidArgumentCat(raw.what, ": after the transforms it has ",
                              out.channels, " channels but the batch holds ",
                              chain.channels);
  }
  clock->Add(&counters->transforms);  // what the ops' clocks left
  // The batch is the op's output buffer: its store policy sees the whole.
  const absl::Status fused = chain.fused->ApplyBatch(
      {out}, {ws->plan.fused}, OutputView{place.batch}, place.position);
  clock->Add(&counters->fused);
  if (!fused.ok()) return PrefixStatus(fused, absl::StrCat(raw.what, ": "));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> RunSample(const Chain& chain, const Dataset& dataset,
                                  uint64_t index, SampleStream& stream,
                                  DecodeOptions decode, BatchPlace place,
                                  StageCounters* counters, Workspace* ws) {
  StageClock clock;
  const LargeSampleRelease release(decode.budget, ws);
  FUSEDNORM_RETURN_IF_ERROR(dataset.Read(index, &ws->read, &ws->raw));
  const absl::Status s =
      RunRead(chain, dataset, stream, decode, place, counters, &clock, ws);
  // A source that changed under the read explains any other error.
  const absl::Status unchanged = dataset.CheckUnchanged(ws->raw);
  if (!unchanged.ok())
    return PrefixStatus(unchanged, absl::StrCat(ws->raw.what, ": "));
  if (!s.ok()) return s;
  return ws->raw.label;
}

}  // namespace fusednorm
