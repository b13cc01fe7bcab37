// RandomApply (random_apply.h): the draw, the transforms in turn, and the
// decisions as nested fields.
#include "ops/random_apply.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "ops/image_blocks.h"
#include "ops/transform_list.h"

namespace fusednorm {
namespace {

// "RandomApply transforms[1] (Grayscale(num_output_channels=1))".
std::string Where(size_t k, const PreprocessOp& op) {
  return absl::StrCat("RandomApply transforms[", k, "] (", op.name(), ")");
}

ArgValue CallValue(const std::string& name, std::vector<NamedArg> fields) {
  auto call = std::make_shared<OpCall>();
  call->name = name;
  for (NamedArg& f : fields)
    call->args.push_back({std::move(f.name), std::move(f.value)});
  ArgValue v;
  v.kind = ArgValue::Kind::kCall;
  v.call = std::move(call);
  return v;
}

}  // namespace

RandomApply::RandomApply(std::vector<std::unique_ptr<PreprocessOp>> transforms,
                         double p)
    : transforms_(std::move(transforms)), p_(p) {}

RandomApply::RandomApply(const RandomApply& other) : p_(other.p_) {
  for (const auto& t : other.transforms_) transforms_.push_back(t->Clone());
}

std::vector<NamedArg> RandomApply::args() const {
  std::vector<ArgValue> items;
  for (const auto& t : transforms_)
    items.push_back(CallValue(t->op_name(), t->args()));
  return {{"transforms", ArgValue::Tuple(std::move(items))},
          {"p", ArgValue::Float(p_)}};
}

std::string RandomApply::PixelName() const {
  std::vector<std::string> inner;
  for (const auto& t : transforms_) inner.push_back(t->PixelName());
  return absl::StrCat("RandomApply(transforms=[", absl::StrJoin(inner, ", "),
                      "], p=", FormatFloat(p_), ")");
}

std::unique_ptr<PreprocessOp> RandomApply::Clone() const {
  return std::make_unique<RandomApply>(*this);
}

absl::Status RandomApply::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckProbability(op_name(), "p", p_));
  for (size_t k = 0; k < transforms_.size(); ++k) {
    const PreprocessOp& t = *transforms_[k];
    const FusedPart part = t.fused_part();
    if (part != FusedPart::kNone && part != FusedPart::kFlip) {
      return InvalidArgumentCat(
          Where(k, t),
          ": the fused op does it for every sample; put it after "
          "RandomApply (RandomErasing has a p of its own)");
    }
    if (t.SizeDependsOnDecision()) {
      return InvalidArgumentCat(
          Where(k, t),
          ": its output size depends on its draw, so samples applied and not "
          "applied would differ in size");
    }
    FUSEDNORM_RETURN_IF_ERROR(t.Validate());
  }
  return absl::OkStatus();
}

bool RandomApply::KeepsSize() const {
  for (const auto& t : transforms_) {
    if (!t->KeepsSize()) return false;
  }
  return true;
}

absl::StatusOr<Size2> RandomApply::OutputSize(Size2 input) const {
  Size2 size = input;
  for (size_t k = 0; k < transforms_.size(); ++k) {
    absl::StatusOr<Size2> next = transforms_[k]->OutputSize(size);
    if (!next.ok())
      return PrefixStatus(next.status(), Where(k, *transforms_[k]) + ": ");
    size = *next;
  }
  if (size.height != input.height || size.width != input.width) {
    return InvalidArgumentCat(
        "RandomApply: its transforms make ", size.height, "x", size.width,
        " images of ", input.height, "x", input.width,
        " ones, so samples applied and not applied would differ in size "
        "(RandomApply takes transforms that give back their input's size)");
  }
  return input;
}

absl::StatusOr<int> RandomApply::OutputChannels(int channels) const {
  for (size_t k = 0; k < transforms_.size(); ++k) {
    absl::StatusOr<int> c = transforms_[k]->OutputChannels(channels);
    if (!c.ok())
      return PrefixStatus(c.status(), Where(k, *transforms_[k]) + ": ");
    if (*c != channels) {
      return InvalidArgumentCat(
          Where(k, *transforms_[k]), ": makes ", *c, "-channel images of ",
          channels, "-channel ones",
          ", so samples applied and not applied would differ (Grayscale "
          "with num_output_channels=",
          channels, ", or RandomGrayscale, keeps them)");
    }
  }
  return channels;
}

bool RandomApply::CommutesWithHorizontalFlip() const {
  for (const auto& t : transforms_) {
    if (!t->CommutesWithHorizontalFlip()) return false;
  }
  return true;
}

OpDecision RandomApply::Decide(Size2 input, SampleStream& stream) const {
  OpDecision d;
  // torchvision: `if self.p < torch.rand(1): return img`, compared in
  // float32.
  d.apply = !(static_cast<float>(p_) < stream.Uniform());
  if (!d.apply) return d;
  // Each transform draws for the size the one before it makes; past a
  // size one cannot take, the rest decide nothing (DecidedOutputSize then
  // refuses the sample).
  d.inner.reserve(transforms_.size());
  std::optional<Size2> size = input;
  for (const auto& t : transforms_) {
    d.inner.push_back(size ? t->Decide(*size, stream) : OpDecision());
    if (!size) continue;
    absl::StatusOr<Size2> next = t->DecidedOutputSize(*size, d.inner.back());
    size = next.ok() ? std::optional<Size2>(*next) : std::nullopt;
  }
  return d;
}

absl::Status RandomApply::Apply(const ImageView& input,
                                const OpDecision& decision, OpWorkspace* ws,
                                Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  FUSEDNORM_RETURN_IF_ERROR(OutputSize({input.height, input.width}).status());
  if (!decision.apply || transforms_.empty()) return CopyImage(input, output);
  const size_t n = transforms_.size();
  if (decision.inner.size() != n) {
    return InvalidArgumentCat("RandomApply: the decision holds ",
                              decision.inner.size(),
                              " transforms' decisions for ", n, " transforms");
  }
  if (ws->nested == nullptr) ws->nested = std::make_unique<OpWorkspace>();
  ImageView from = input;
  for (size_t k = 0; k < n; ++k) {
    Image* to = k + 1 == n ? output : &ws->steps[k % 2];
    FUSEDNORM_RETURN_IF_ERROR(
        transforms_[k]->Apply(from, decision.inner[k], ws->nested.get(), to));
    from = to->view();
  }
  return absl::OkStatus();
}

bool RandomApply::Skips(const OpDecision& decision) const {
  if (!decision.apply) return true;
  if (decision.inner.size() != transforms_.size()) return false;
  for (size_t k = 0; k < transforms_.size(); ++k) {
    if (!transforms_[k]->Skips(decision.inner[k])) return false;
  }
  return true;
}

std::vector<NamedArg> RandomApply::DecisionFields(const OpDecision& d) const {
  if (!d.apply || d.inner.size() != transforms_.size())
    return {{"apply", ArgValue::Bool(false)}, {"transforms", ArgValue::None()}};
  std::vector<ArgValue> items;
  for (size_t k = 0; k < transforms_.size(); ++k) {
    items.push_back(CallValue(transforms_[k]->op_name(),
                              transforms_[k]->DecisionFields(d.inner[k])));
  }
  return {{"apply", ArgValue::Bool(true)},
          {"transforms", ArgValue::Tuple(std::move(items))}};
}

absl::Status RandomApply::ReadInner(const ArgValue& items, Size2 input,
                                    OpDecision* d) const {
  const size_t n = transforms_.size();
  if (items.kind != ArgValue::Kind::kTuple || items.items.size() != n) {
    return InvalidArgumentCat(
        "RandomApply decision transforms: ", FormatArg(items),
        " is not a list of ", n, " decisions dicts (one per transform)");
  }
  d->inner.clear();
  Size2 size = input;  // each transform's input
  for (size_t k = 0; k < n; ++k) {
    const ArgValue& item = items.items[k];
    if (item.kind != ArgValue::Kind::kCall) {
      return InvalidArgumentCat("RandomApply decision transforms[", k,
                                "]: ", FormatArg(item),
                                " is not a decisions dict");
    }
    std::vector<NamedArg> fields;
    for (const OpArgument& a : item.call->args)
      fields.push_back({a.keyword, a.value});
    const std::string where =
        absl::StrCat("RandomApply decision transforms[", k, "]: ");
    absl::StatusOr<OpDecision> inner =
        transforms_[k]->DecisionFromFields(fields, size);
    if (!inner.ok()) return PrefixStatus(inner.status(), where);
    absl::StatusOr<Size2> next =
        transforms_[k]->DecidedOutputSize(size, *inner);
    if (!next.ok()) return PrefixStatus(next.status(), where);
    size = *next;
    d->inner.push_back(*std::move(inner));
  }
  return absl::OkStatus();
}

absl::StatusOr<OpDecision> RandomApply::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 input) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_ASSIGN_OR_RETURN(d.apply, r.Bool("apply"));
  const ArgValue* items = r.Take("transforms");
  const bool given = items != nullptr && items->kind != ArgValue::Kind::kNone;
  if (d.apply && !given) {
    return r.Error("transforms", items == nullptr
                                     ? "missing: an applied RandomApply needs "
                                       "one decisions dict per transform"
                                     : "None, but apply is True: give one "
                                       "decisions dict per transform");
  }
  // Given for a sample not applied, they are still read: a wrong one is
  // refused, never ignored.
  if (given) FUSEDNORM_RETURN_IF_ERROR(ReadInner(*items, input, &d));
  if (!d.apply) d.inner.clear();
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return d;
}

}  // namespace fusednorm
