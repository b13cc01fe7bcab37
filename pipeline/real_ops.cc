// RunRealOps (real_ops.h).
#include "pipeline/real_ops.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "pipeline/codecs.h"
#include "pipeline/jpeg.h"
#include "util/status_macros.h"

namespace fusednorm {
namespace {

absl::Status OpError(const absl::Status& s, uint64_t index,
                     const PreprocessOp& op) {
  return PrefixStatus(s, absl::StrCat("sample ", index, ": ", op.name(), ": "));
}

// The first op's output from a decode of only its window, from a JPEG the
// dataset keeps encoded. nullopt where the dataset keeps no encoded image
// (nothing drawn from `stream` then); other encoded images are decoded
// whole into *whole, so that the file is read once.
absl::StatusOr<std::optional<Sample>> FromWindow(
    const PreprocessOp& first, const Dataset& dataset, uint64_t index,
    SampleStream& stream, std::optional<Sample>* whole, StageClock* clock,
    StageCounters counters) {
  absl::StatusOr<EncodedSample> e = dataset.GetEncoded(index);
  if (!e.ok() || e->format == "npy") return std::nullopt;
  if (e->format != "jpg") {
    FUSEDNORM_ASSIGN_OR_RETURN(Image image, DecodeImage(e->bytes, e->what));
    *whole = Sample{std::move(image), e->label};
    return std::nullopt;
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const Size2 size, JpegSize(e->bytes, e->what));
  const std::optional<CropWindow> window =
      first.DrawWindow(size.height, size.width, stream);
  FUSEDNORM_ASSIGN_OR_RETURN(const DecodedRegion region,
                             DecodeJpeg(e->bytes, e->what, *window));
  clock->Add(counters.load);
  const CropWindow inside{window->top - region.top, window->left - region.left,
                          window->height, window->width};
  Sample out;
  out.label = e->label;
  const absl::Status s =
      first.ExecuteWindow(region.image.view(), inside, &out.image);
  if (!s.ok()) return OpError(s, index, first);
  return out;
}

// The sample, decoded whole, before any op.
absl::StatusOr<Sample> Whole(const Dataset& dataset, uint64_t index,
                             std::optional<Sample>* whole) {
  if (*whole) return *std::move(*whole);
  return dataset.Get(index);
}

}  // namespace

absl::StatusOr<Sample> RunRealOps(const Chain& chain, const Dataset& dataset,
                                  uint64_t index, SampleStream& stream,
                                  bool crop_decode, StageClock* clock,
                                  StageCounters counters) {
  const auto prefixed = [index](const absl::Status& s) {
    return PrefixStatus(s, absl::StrCat("sample ", index, ": "));
  };
  std::optional<Sample> whole, sample;
  size_t next_op = 0;
  if (crop_decode && !chain.ops.empty() && chain.ops[0]->DrawsWindow()) {
    absl::StatusOr<std::optional<Sample>> windowed = FromWindow(
        *chain.ops[0], dataset, index, stream, &whole, clock, counters);
    if (!windowed.ok()) return prefixed(windowed.status());
    sample = *std::move(windowed);
    if (sample) next_op = 1;
  }
  if (!sample) {
    absl::StatusOr<Sample> s = Whole(dataset, index, &whole);
    if (!s.ok()) return prefixed(s.status());
    sample = *std::move(s);
    clock->Add(counters.load);
  }
  Image next;
  for (size_t i = next_op; i < chain.ops.size(); ++i) {
    const PreprocessOp& op = *chain.ops[i];
    const absl::Status s = op.Execute(sample->image.view(), stream, &next);
    if (!s.ok()) return OpError(s, index, op);
    std::swap(sample->image, next);
  }
  clock->Add(counters.transforms);
  return *std::move(sample);
}

}  // namespace fusednorm
