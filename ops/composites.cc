// The transforms made of a list of transforms (composites.h): the shared
// running, sizes and nested decisions, then each op's draw and fields.
#include "ops/composites.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "ops/choice_weights.h"
#include "ops/image_blocks.h"
#include "ops/transform_list.h"

namespace fusednorm {
namespace {

// 0, 1, ..., n - 1: a list's transforms in list order.
std::vector<int32_t> InOrder(size_t n) {
  std::vector<int32_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  return all;
}

// Per transform of a list of `n`: whether `d` runs it.
std::vector<bool> Running(const OpDecision& d, size_t n) {
  std::vector<bool> ran(n, false);
  for (const int32_t k : d.runs) {
    if (k >= 0 && static_cast<size_t>(k) < n) ran[k] = true;
  }
  return ran;
}

std::string SizeText(Size2 s) { return absl::StrCat(s.height, "x", s.width); }

// A value as an error shows it: whole when short, else a list or dict by
// its length (one of a million decisions is not printed whole) and another
// value shortened.
std::string Brief(const ArgValue& v) {
  constexpr size_t kShort = 60;
  if (v.kind == ArgValue::Kind::kTuple || v.kind == ArgValue::Kind::kCall) {
    const bool list = v.kind == ArgValue::Kind::kTuple;
    const size_t n = list ? v.items.size() : v.call ? v.call->args.size() : 0;
    const std::string text = n <= 16 ? FormatArg(v) : std::string();
    if (!text.empty() && text.size() <= kShort) return text;
    return list ? absl::StrCat("a list of ", n)
                : absl::StrCat("a dict of ", n, " fields");
  }
  return Shortened(FormatArg(v), kShort);
}

// How deep list ops hold list ops: one holding none is 1.
int ListDepth(const PreprocessOp& op) {
  const auto* list = dynamic_cast<const CompositeOp*>(&op);
  return list == nullptr ? 0 : 1 + list->InnerDepth();
}

// Why a fused op's part cannot be a list op's transform.
const char* FusedPartHint(PreprocessOp::FusedPart part) {
  switch (part) {
    case PreprocessOp::FusedPart::kErase:
      return "; put it after the list op (RandomErasing has a p of its own)";
    case PreprocessOp::FusedPart::kNormalize:
      return "; the normalization is every sample's: put it after the list "
             "op";
    default:
      return "; the tensor conversion ends the list: put it after the list "
             "op";
  }
}

}  // namespace

// ---- the shared part ----

CompositeOp::CompositeOp(std::vector<std::unique_ptr<PreprocessOp>> transforms)
    : transforms_(std::move(transforms)) {}

CompositeOp::CompositeOp(const CompositeOp& other) : PreprocessOp(other) {
  for (const auto& t : other.transforms_) transforms_.push_back(t->Clone());
}

std::string CompositeOp::Where(size_t k) const {
  // A list op is named by its name alone: its transforms' would repeat
  // the whole tree in every message.
  const PreprocessOp& t = *transforms_[k];
  const bool list = dynamic_cast<const CompositeOp*>(&t) != nullptr;
  return absl::StrCat(op_name(), " transforms[", k, "] (",
                      list ? std::string(t.op_name()) : t.name(), ")");
}

int CompositeOp::InnerDepth() const {
  int depth = 0;
  for (const auto& t : transforms_) depth = std::max(depth, ListDepth(*t));
  return depth;
}

std::vector<NamedArg> CompositeOp::args() const {
  std::vector<ArgValue> items;
  for (const auto& t : transforms_)
    items.push_back(CallArg(t->op_name(), t->args()));
  std::vector<NamedArg> out = {
      {"transforms", ArgValue::Tuple(std::move(items))}};
  for (NamedArg& a : OwnArgs()) out.push_back(std::move(a));
  return out;
}

std::string CompositeOp::PixelName() const {
  std::vector<std::string> inner;
  for (const auto& t : transforms_) inner.push_back(t->PixelName());
  return absl::StrCat(name(), " [", absl::StrJoin(inner, "; "), "]");
}

absl::Status CompositeOp::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateOwn());
  if (const int depth = 1 + InnerDepth(); depth > kMaxListDepth) {
    return InvalidArgumentCat(op_name(), ": list ops hold list ops ", depth,
                              " deep; at most ", kMaxListDepth,
                              " (a list's text must read back)");
  }
  for (size_t k = 0; k < transforms_.size(); ++k) {
    const PreprocessOp& t = *transforms_[k];
    const FusedPart part = t.fused_part();
    if (part != FusedPart::kNone && part != FusedPart::kFlip) {
      return InvalidArgumentCat(Where(k),
                                ": the fused op does it for every sample, so "
                                "it cannot be left out for some",
                                FusedPartHint(part));
    }
    FUSEDNORM_RETURN_IF_ERROR(t.Validate());
  }
  return absl::OkStatus();
}

bool CompositeOp::KeepsSize() const {
  return std::all_of(transforms_.begin(), transforms_.end(),
                     [](const auto& t) { return t->KeepsSize(); });
}

bool CompositeOp::SizeDependsOnDecision() const { return !KeepsSize(); }

absl::StatusOr<Size2> CompositeOp::OutputSize(Size2 input) const {
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<Size2> every,
                             SizeOfEveryDraw(input));
  if (every) return *every;
  return InvalidArgumentCat(op_name(), ": the size it makes of ",
                            SizeText(input),
                            " images depends on its draw (a crop or an exact "
                            "Resize after it fixes the list's size)");
}

absl::StatusOr<Size2> CompositeOp::DecidedOutputSize(
    Size2 input, const OpDecision& d) const {
  FUSEDNORM_RETURN_IF_ERROR(CheckRuns(d));
  Size2 size = input;
  for (const int32_t k : d.runs) {
    absl::StatusOr<Size2> next =
        transforms_[k]->DecidedOutputSize(size, d.inner[k]);
    if (!next.ok()) return PrefixStatus(next.status(), Where(k) + ": ");
    size = *next;
  }
  return size;
}

absl::StatusOr<std::optional<Size2>> CompositeOp::RunSize(
    Size2 input, absl::Span<const int32_t> runs) const {
  std::optional<Size2> size = input;
  for (const int32_t k : runs) {
    absl::StatusOr<std::optional<Size2>> next =
        transforms_[k]->SizeOfEveryDraw(*size);
    if (!next.ok()) return PrefixStatus(next.status(), Where(k) + ": ");
    if (!*next) return std::optional<Size2>();
    size = *next;
  }
  return size;
}

absl::StatusOr<int> CompositeOp::OutputChannels(int channels) const {
  for (size_t k = 0; k < transforms_.size(); ++k) {
    absl::StatusOr<int> c = transforms_[k]->OutputChannels(channels);
    if (!c.ok()) return PrefixStatus(c.status(), Where(k) + ": ");
    if (*c != channels) {
      return InvalidArgumentCat(
          Where(k), ": makes ", *c, "-channel images of ", channels,
          "-channel ones, so the samples of a batch would differ (Grayscale "
          "with num_output_channels=",
          channels, ", or RandomGrayscale, keeps them)");
    }
  }
  return channels;
}

bool CompositeOp::CommutesWithHorizontalFlip() const {
  return std::all_of(transforms_.begin(), transforms_.end(), [](const auto& t) {
    return t->CommutesWithHorizontalFlip();
  });
}

OpDecision CompositeOp::Decide(Size2 input, SampleStream& stream) const {
  OpDecision d;
  Pick(stream, &d);
  d.inner.assign(transforms_.size(), OpDecision());
  // Each transform draws for the size the one before it makes; past a
  // size one cannot take the rest draw nothing (OutputSize refuses it).
  std::optional<Size2> size = input;
  for (const int32_t k : d.runs) {
    if (!size) break;
    d.inner[k] = transforms_[k]->Decide(*size, stream);
    absl::StatusOr<Size2> next =
        transforms_[k]->DecidedOutputSize(*size, d.inner[k]);
    size = next.ok() ? std::optional<Size2>(*next) : std::nullopt;
  }
  return d;
}

absl::Status CompositeOp::CheckRuns(const OpDecision& d) const {
  const size_t n = transforms_.size();
  if (d.inner.size() == n &&
      std::all_of(d.runs.begin(), d.runs.end(),
                  [n](int32_t k) { return k >= 0 && size_t(k) < n; })) {
    return absl::OkStatus();
  }
  return InvalidArgumentCat(op_name(), ": the decision holds ", d.inner.size(),
                            " transforms' decisions for ", n, " transforms");
}

absl::Status CompositeOp::Apply(const ImageView& input,
                                const OpDecision& decision, OpWorkspace* ws,
                                Image* output) const {
  FUSEDNORM_RETURN_IF_ERROR(ValidateImage(input));
  FUSEDNORM_RETURN_IF_ERROR(OutputChannels(input.channels).status());
  if (decision.runs.empty()) return CopyImage(input, output);
  FUSEDNORM_RETURN_IF_ERROR(CheckRuns(decision));
  // The transforms' own buffers are a workspace of their own: one of them
  // may be a list op too.
  if (ws->nested == nullptr) ws->nested = std::make_unique<OpWorkspace>();
  ImageView from = input;
  const size_t n = decision.runs.size();
  for (size_t i = 0; i < n; ++i) {
    const int32_t k = decision.runs[i];
    Image* to = i + 1 == n ? output : &ws->steps[i % 2];
    FUSEDNORM_RETURN_IF_ERROR(
        transforms_[k]->Apply(from, decision.inner[k], ws->nested.get(), to));
    from = to->view();
  }
  return absl::OkStatus();
}

bool CompositeOp::Skips(const OpDecision& decision) const {
  if (decision.runs.empty()) return true;
  if (!CheckRuns(decision).ok()) return false;
  return std::all_of(
      decision.runs.begin(), decision.runs.end(),
      [&](int32_t k) { return transforms_[k]->Skips(decision.inner[k]); });
}

std::vector<NamedArg> CompositeOp::DecisionFields(const OpDecision& d) const {
  std::vector<NamedArg> fields = OwnFields(d);
  const std::vector<bool> ran = Running(d, transforms_.size());
  std::vector<ArgValue> items;
  for (size_t k = 0; k < transforms_.size(); ++k) {
    const bool known = ran[k] && k < d.inner.size();
    items.push_back(known ? CallArg(transforms_[k]->op_name(),
                                    transforms_[k]->DecisionFields(d.inner[k]))
                          : ArgValue::None());
  }
  fields.push_back({"transforms", ArgValue::Tuple(std::move(items))});
  return fields;
}

absl::Status CompositeOp::ReadInner(const ArgValue* items, Size2 input,
                                    OpDecision* d) const {
  const size_t n = transforms_.size();
  d->inner.assign(n, OpDecision());
  const bool none = items == nullptr || items->kind == ArgValue::Kind::kNone;
  if (!none &&
      (items->kind != ArgValue::Kind::kTuple || items->items.size() != n)) {
    return InvalidArgumentCat(op_name(),
                              " decision transforms: ", Brief(*items),
                              " is not a list of ", n,
                              " decisions dicts or None (one per transform)");
  }
  // Those that run first, in their order and each for the size the ones
  // before it make; then those that do not (None, or still read: a wrong
  // one is refused, never ignored).
  const std::vector<bool> ran = Running(*d, n);
  std::vector<int32_t> order = d->runs;
  for (size_t k = 0; k < n; ++k) {
    if (!ran[k]) order.push_back(static_cast<int32_t>(k));
  }
  Size2 size = input;
  for (const int32_t k : order) {
    const std::string where =
        absl::StrCat(op_name(), " decision transforms[", k, "]: ");
    const ArgValue* item = none ? nullptr : &items->items[k];
    if (item == nullptr || item->kind == ArgValue::Kind::kNone) {
      if (!ran[k]) continue;
      return InvalidArgumentCat(where, "missing, but transform ", k,
                                " runs: give its decisions dict");
    }
    if (item->kind != ArgValue::Kind::kCall)
      return InvalidArgumentCat(where, Brief(*item),
                                " is not a decisions dict");
    std::vector<NamedArg> fields;
    for (const OpArgument& a : item->call->args)
      fields.push_back({a.keyword, a.value});
    const Size2 in = ran[k] ? size : input;
    absl::StatusOr<OpDecision> inner =
        transforms_[k]->DecisionFromFields(fields, in);
    if (!inner.ok()) return PrefixStatus(inner.status(), where);
    if (!ran[k]) continue;
    absl::StatusOr<Size2> next = transforms_[k]->DecidedOutputSize(in, *inner);
    if (!next.ok()) return PrefixStatus(next.status(), where);
    size = *next;
    d->inner[k] = *std::move(inner);
  }
  return absl::OkStatus();
}

absl::StatusOr<OpDecision> CompositeOp::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 input) const {
  DecisionReader r(*this, fields);
  OpDecision d;
  FUSEDNORM_RETURN_IF_ERROR(OwnFromFields(r, &d));
  FUSEDNORM_RETURN_IF_ERROR(ReadInner(r.Take("transforms"), input, &d));
  FUSEDNORM_RETURN_IF_ERROR(r.Done());
  return d;
}

// ---- RandomApply ----

RandomApply::RandomApply(std::vector<std::unique_ptr<PreprocessOp>> transforms,
                         double p)
    : CompositeOp(std::move(transforms)), p_(p) {}

std::unique_ptr<PreprocessOp> RandomApply::Clone() const {
  return std::make_unique<RandomApply>(*this);
}

std::vector<NamedArg> RandomApply::OwnArgs() const {
  return {{"p", ArgValue::Float(p_)}};
}

absl::Status RandomApply::ValidateOwn() const {
  return CheckProbability(op_name(), "p", p_);
}

absl::StatusOr<std::optional<Size2>> RandomApply::SizeOfEveryDraw(
    Size2 input) const {
  // Not applied: the input's size; applied: its transforms'.
  FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<Size2> made,
                             RunSize(input, InOrder(transforms_.size())));
  if (made && *made == input) return made;
  return std::optional<Size2>();
}

void RandomApply::Pick(SampleStream& stream, OpDecision* d) const {
  // torchvision: `if self.p < torch.rand(1): return img`, in float32.
  d->apply = !(static_cast<float>(p_) < stream.Uniform());
  d->runs = d->apply ? InOrder(transforms_.size()) : std::vector<int32_t>();
}

std::vector<NamedArg> RandomApply::OwnFields(const OpDecision& d) const {
  return {{"apply", ArgValue::Bool(d.apply)}};
}

absl::Status RandomApply::OwnFromFields(DecisionReader& r,
                                        OpDecision* d) const {
  FUSEDNORM_ASSIGN_OR_RETURN(d->apply, r.Bool("apply"));
  d->runs = d->apply ? InOrder(transforms_.size()) : std::vector<int32_t>();
  return absl::OkStatus();
}

// ---- RandomChoice ----

SampleRandomChoice::SampleRandomChoice(
    std::vector<std::unique_ptr<PreprocessOp>> transforms,
    std::optional<std::vector<double>> p)
    : CompositeOp(std::move(transforms)), p_(std::move(p)) {}

std::unique_ptr<PreprocessOp> SampleRandomChoice::Clone() const {
  return std::make_unique<SampleRandomChoice>(*this);
}

std::vector<NamedArg> SampleRandomChoice::OwnArgs() const {
  if (!p_) return {{"p", ArgValue::None()}};
  std::vector<ArgValue> p;
  for (const double x : *p_) p.push_back(ArgValue::Float(x));
  return {{"p", ArgValue::Tuple(std::move(p))}};
}

absl::Status SampleRandomChoice::ValidateOwn() const {
  if (transforms_.empty())
    return absl::InvalidArgumentError(
        "RandomChoice transforms: the list is empty");
  return CheckChoiceWeights(p_, transforms_.size());
}

absl::StatusOr<std::optional<Size2>> SampleRandomChoice::SizeOfEveryDraw(
    Size2 input) const {
  std::optional<Size2> first;
  bool same = true;
  for (size_t k = 0; k < transforms_.size(); ++k) {
    const int32_t one[] = {static_cast<int32_t>(k)};
    FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<Size2> made,
                               RunSize(input, one));
    if (!first) first = made;
    same = same && made && first && *made == *first;
  }
  return same ? first : std::optional<Size2>();
}

std::optional<Size2> SampleRandomChoice::FixedOutputSize() const {
  std::optional<Size2> fixed;
  for (const auto& t : transforms_) {
    const std::optional<Size2> f = t->FixedOutputSize();
    if (!f || (fixed && *f != *fixed)) return std::nullopt;
    fixed = f;
  }
  return fixed;
}

void SampleRandomChoice::Pick(SampleStream& stream, OpDecision* d) const {
  d->runs.assign(
      1, static_cast<int32_t>(PickChoice(p_, transforms_.size(), stream)));
}

std::vector<NamedArg> SampleRandomChoice::OwnFields(const OpDecision& d) const {
  return {{"choice",
           d.runs.size() == 1 ? ArgValue::Int(d.runs[0]) : ArgValue::None()}};
}

absl::Status SampleRandomChoice::OwnFromFields(DecisionReader& r,
                                               OpDecision* d) const {
  FUSEDNORM_ASSIGN_OR_RETURN(const int64_t k, r.Int("choice"));
  if (k < 0 || k >= static_cast<int64_t>(transforms_.size())) {
    return r.Error("choice", absl::StrCat(k, " is not an index in 0..",
                                          transforms_.size() - 1));
  }
  d->runs.assign(1, static_cast<int32_t>(k));
  return absl::OkStatus();
}

// ---- RandomOrder ----

RandomOrder::RandomOrder(std::vector<std::unique_ptr<PreprocessOp>> transforms)
    : CompositeOp(std::move(transforms)) {}

std::unique_ptr<PreprocessOp> RandomOrder::Clone() const {
  return std::make_unique<RandomOrder>(*this);
}

absl::StatusOr<std::optional<Size2>> RandomOrder::SizeOfEveryDraw(
    Size2 input) const {
  // One size for every order where each transform gives back its input's.
  bool same = true;
  for (size_t k = 0; k < transforms_.size(); ++k) {
    const int32_t one[] = {static_cast<int32_t>(k)};
    FUSEDNORM_ASSIGN_OR_RETURN(const std::optional<Size2> made,
                               RunSize(input, one));
    same = same && made && *made == input;
  }
  return same ? std::optional<Size2>(input) : std::nullopt;
}

void RandomOrder::Pick(SampleStream& stream, OpDecision* d) const {
  // Python's random.shuffle, as torchvision calls it: from the last place
  // down, a swap with a place drawn at or below it.
  d->runs = InOrder(transforms_.size());
  for (size_t i = d->runs.size(); i > 1; --i) {
    const int64_t j = stream.UniformInt(0, static_cast<int64_t>(i) - 1);
    std::swap(d->runs[i - 1], d->runs[j]);
  }
}

std::vector<NamedArg> RandomOrder::OwnFields(const OpDecision& d) const {
  std::vector<ArgValue> order;
  for (const int32_t k : d.runs) order.push_back(ArgValue::Int(k));
  return {{"order", ArgValue::Tuple(std::move(order))}};
}

absl::Status RandomOrder::OwnFromFields(DecisionReader& r,
                                        OpDecision* d) const {
  const ArgValue* order = r.Take("order");
  if (order == nullptr) return r.Missing("order");
  const size_t n = transforms_.size();
  std::vector<bool> seen(n, false);
  d->runs.clear();
  const bool tuple = order->kind == ArgValue::Kind::kTuple;
  for (size_t i = 0; tuple && i < order->items.size(); ++i) {
    const ArgValue& v = order->items[i];
    if (v.kind != ArgValue::Kind::kInt || v.integer < 0 ||
        v.integer >= static_cast<int64_t>(n) || seen[v.integer])
      break;
    seen[v.integer] = true;
    d->runs.push_back(static_cast<int32_t>(v.integer));
  }
  if (!tuple || d->runs.size() != n || order->items.size() != n) {
    return r.Error("order",
                   absl::StrCat(Brief(*order), " is not a permutation of 0..",
                                static_cast<int64_t>(n) - 1));
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
