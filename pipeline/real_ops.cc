// RunRealOps (real_ops.h).
#include "pipeline/real_ops.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "codecs/codecs.h"
#include "codecs/jpeg.h"
#include "codecs/npy.h"

namespace fusednorm {
namespace {

absl::Status OpError(const absl::Status& s, uint64_t index,
                     const PreprocessOp& op) {
  return PrefixStatus(s, absl::StrCat("sample ", index, ": ", op.name(), ": "));
}

// The largest DCT scale (8, 4, 2, else 1) at which `window` stays at least
// `out` in both sides.
int Scale(const CropWindow& window, Size2 out) {
  for (int k : {8, 4, 2}) {
    if (window.height >= k * out.height && window.width >= k * out.width)
      return k;
  }
  return 1;
}

// Decodes the sample whole into ws->sample: from the encoded bytes when the
// dataset gave them as JPEG or PNG (the file is read once), else through
// GetInto.
absl::Status Whole(const Dataset& dataset, uint64_t index, bool have_encoded,
                   SampleWorkspace* ws) {
  if (!have_encoded || ws->encoded.format == "npy")
    return dataset.GetInto(index, &ws->sample, &ws->encoded);
  ws->sample.label = ws->encoded.label;
  return DecodeImageInto(ws->encoded.bytes, ws->encoded.what,
                         &ws->sample.image);
}

// What the first op's window is cut from, and the window in it.
struct WindowInput {
  ImageView view;
  CropWindow window;
};

// The window's input for the encoded sample `e`: a raw .npy's pixels where
// the dataset keeps them, or the decoded region of a JPEG (ws->region).
// nullopt for other formats, with nothing drawn from `stream`.
absl::StatusOr<std::optional<WindowInput>> WindowSource(
    const PreprocessOp& first, const EncodedSample& e, SampleStream& stream,
    bool scale, SampleWorkspace* ws) {
  if (e.format == "npy") {
    FUSEDNORM_ASSIGN_OR_RETURN(const NpyArray a,
                               ParseNpyImage(e.bytes, e.what));
    const int channels = static_cast<int>(a.shape[2]);
    const ImageView view{a.data, a.shape[0], a.shape[1], channels,
                         a.shape[1] * channels};
    return WindowInput{view,
                       *first.DrawWindow(view.height, view.width, stream)};
  }
  if (e.format != "jpg") return std::nullopt;
  CropWindow window;
  FUSEDNORM_RETURN_IF_ERROR(DecodeJpegInto(
      e.bytes, e.what,
      [&](Size2 size) {
        window = *first.DrawWindow(size.height, size.width, stream);
        const std::optional<Size2> out = first.FixedOutputSize();
        return JpegRequest{window, scale && out ? Scale(window, *out) : 1};
      },
      &ws->region));
  const DecodedRegion& r = ws->region;
  const CropWindow scaled = ScaleBox(window, r.scale, r.size);
  return WindowInput{
      r.image.view(),
      {scaled.top - r.top, scaled.left - r.left, scaled.height, scaled.width}};
}

// The first op's output into ws->sample from only its window of a sample
// the dataset keeps encoded (WindowSource); returns false where that does
// not apply, with *have_encoded telling whether ws->encoded holds the
// sample.
absl::StatusOr<bool> FromWindow(const PreprocessOp& first,
                                const Dataset& dataset, uint64_t index,
                                SampleStream& stream, StageClock* clock,
                                StageCounters counters, bool scale,
                                SampleWorkspace* ws, bool* have_encoded) {
  EncodedSample& e = ws->encoded;
  *have_encoded =
      dataset.stores_encoded() && dataset.GetEncodedInto(index, &e).ok();
  if (!*have_encoded) return false;
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<WindowInput> input,
                             WindowSource(first, e, stream, scale, ws));
  if (!input) return false;
  clock->Add(counters.load);
  ws->sample.label = e.label;
  const absl::Status s =
      first.ExecuteWindow(input->view, input->window, &ws->sample.image);
  if (!s.ok()) return OpError(s, index, first);
  return true;
}

}  // namespace

absl::Status RunRealOps(const Chain& chain, const Dataset& dataset,
                        uint64_t index, SampleStream& stream,
                        DecodeOptions decode, StageClock* clock,
                        StageCounters counters, SampleWorkspace* ws) {
  // Reading and decoding errors name the sample (and its file) already.
  bool windowed = false, have_encoded = false;
  if (decode.crop && !chain.ops.empty() && chain.ops[0]->DrawsWindow()) {
    absl::StatusOr<bool> w =
        FromWindow(*chain.ops[0], dataset, index, stream, clock, counters,
                   decode.scale, ws, &have_encoded);
    if (!w.ok()) return w.status();
    windowed = *w;
  }
  if (!windowed) {
    FUSEDNORM_RETURN_IF_ERROR(Whole(dataset, index, have_encoded, ws));
    clock->Add(counters.load);
  }
  for (size_t i = windowed ? 1 : 0; i < chain.ops.size(); ++i) {
    const PreprocessOp& op = *chain.ops[i];
    const absl::Status s =
        op.Execute(ws->sample.image.view(), stream, &ws->next);
    if (!s.ok()) return OpError(s, index, op);
    std::swap(ws->sample.image, ws->next);
  }
  clock->Add(counters.transforms);
  return absl::OkStatus();
}

}  // namespace fusednorm
