// The batch transforms (batch_ops.h): Beta draws from the batch's stream,
// torchvision v2's MixUp and CutMix parameters, and the in-slot mixing.
//
// Rounding, as torch does it on a tensor of the output's dtype (float32
// arithmetic with the Python floats 1.0 - lam and lam rounded to float32;
// float16 and bfloat16 tensors compute each operation in float32 and round
// its result to their type):
//   mixed  = round(round(partner * f32(1 - lam)) + round(x * f32(lam)))
//   target = f32(1 - lam) at the partner's label, f32(lam) at the own one,
//            their float32 sum where the two labels agree;
//   smoothed = round(round(t * f32(1 - eps)) + f32(eps / K)).
#include "ops/batch_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "ops/choice_weights.h"
#include "ops/transform_list.h"

namespace fusednorm {
namespace {

// A standard normal draw (Box-Muller).
double Normal(SampleStream& s) {
  const double u1 = 1.0 - s.Uniform53();  // (0, 1]
  const double u2 = s.Uniform53();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// The log of a Gamma(a, 1) draw (Marsaglia and Tsang; for a < 1 the draw
// of a + 1 times U^(1/a), in logs so that small a does not underflow).
double LogGamma(double a, SampleStream& s) {
  if (a < 1.0) return LogGamma(a + 1.0, s) + std::log(1.0 - s.Uniform53()) / a;
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = Normal(s);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    const double u = 1.0 - s.Uniform53();
    if (u < 1.0 - 0.0331 * x * x * x * x ||
        std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
      return std::log(d) + std::log(v);
  }
}

absl::Status CheckAlpha(const char* op, double alpha) {
  // torchvision keeps alpha as a float32 tensor: a value that is 0 or
  // infinite there is refused (and below it, the draws would be NaN).
  const float kept = static_cast<float>(alpha);
  if (!(kept > 0) || !std::isfinite(kept)) {
    return InvalidArgumentCat(op, " alpha = ", alpha,
                              ": must be > 0 and finite as a float32");
  }
  return absl::OkStatus();
}

absl::Status CheckClasses(const char* op, const std::optional<int64_t>& n) {
  if (n && (*n < 1 || *n > kMaxClasses)) {
    return InvalidArgumentCat(op, " num_classes = ", *n, ": must be in 1..",
                              kMaxClasses);
  }
  return absl::OkStatus();
}

std::vector<NamedArg> MixArgs(double alpha, const std::optional<int64_t>& n) {
  return {{"alpha", ArgValue::Float(alpha)},
          {"num_classes", n ? ArgValue::Int(*n) : ArgValue::None()}};
}

// The element size of `dtype`.
size_t ElementBytes(DType dtype) { return dtype == DType::kFloat32 ? 4 : 2; }

// Stored values per pixel.
int Stored(const BatchShape& s) {
  return s.layout == Layout::kHWC4 ? 4 : s.channels;
}

// Copies the box of `from` over the same box of `to` (one sample each).
void PasteBox(const BatchDecision& d, const BatchShape& s,
              const MixKernelInfo& kernel, const uint8_t* from, uint8_t* to,
              bool nontemporal) {
  const size_t e = ElementBytes(s.dtype);
  const int64_t w = d.x2 - d.x1;
  if (w <= 0 || d.y2 <= d.y1) return;
  const size_t rows = static_cast<size_t>(d.y2 - d.y1);
  if (s.layout == Layout::kCHW) {
    for (int c = 0; c < s.channels; ++c) {
      const size_t at = ((c * s.height + d.y1) * s.width + d.x1) * e;
      kernel.paste(from + at, to + at, rows, static_cast<size_t>(w) * e,
                   static_cast<size_t>(s.width) * e, nontemporal);
    }
    return;
  }
  const size_t pixel = static_cast<size_t>(Stored(s)) * e;
  const size_t at = static_cast<size_t>(d.y1 * s.width + d.x1) * pixel;
  kernel.paste(from + at, to + at, rows, static_cast<size_t>(w) * pixel,
               static_cast<size_t>(s.width) * pixel, nontemporal);
}

}  // namespace

double DrawBeta(double alpha, SampleStream& stream) {
  const double lx = LogGamma(alpha, stream);
  const double ly = LogGamma(alpha, stream);
  return 1.0 / (1.0 + std::exp(ly - lx));
}

std::vector<NamedArg> BatchOp::DecisionFields(const BatchDecision& d) const {
  std::vector<NamedArg> fields;
  if (d.choice >= 0) fields.push_back({"choice", ArgValue::Int(d.choice)});
  if (d.kind == BatchDecision::Kind::kMixUp) {
    fields.push_back({"lam", ArgValue::Float(d.lam)});
  } else if (d.kind == BatchDecision::Kind::kCutMix) {
    fields.push_back(
        {"box", ArgValue::Tuple({ArgValue::Int(d.x1), ArgValue::Int(d.y1),
                                 ArgValue::Int(d.x2), ArgValue::Int(d.y2)})});
    fields.push_back({"lam", ArgValue::Float(d.drawn)});
    fields.push_back({"lam_adjusted", ArgValue::Float(d.lam)});
  }
  return fields;
}

// A field of `fields`, or nullptr.
const ArgValue* Field(const std::vector<NamedArg>& fields, const char* name) {
  for (const NamedArg& f : fields) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

// Refuses fields other than `known`.
absl::Status OnlyFields(const char* op, const std::vector<NamedArg>& fields,
                        std::initializer_list<const char*> known) {
  for (const NamedArg& f : fields) {
    bool ok = false;
    for (const char* k : known) ok = ok || f.name == k;
    if (!ok) return InvalidArgumentCat(op, " has no decision named ", f.name);
  }
  return absl::OkStatus();
}

absl::StatusOr<double> LamField(const char* op,
                                const std::vector<NamedArg>& fields,
                                const char* name) {
  const ArgValue* v = Field(fields, name);
  if (v == nullptr)
    return InvalidArgumentCat(op, " decision ", name, ": missing");
  if (!v->is_number() || !(v->number >= 0 && v->number <= 1)) {
    return InvalidArgumentCat(op, " decision ", name, " = ", FormatArg(*v),
                              ": must be a number in [0, 1]");
  }
  return v->number;
}

// ---- MixUp ----

std::vector<NamedArg> MixUp::args() const {
  return MixArgs(alpha_, num_classes_);
}
std::unique_ptr<BatchOp> MixUp::Clone() const {
  return std::make_unique<MixUp>(*this);
}
absl::Status MixUp::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckAlpha("MixUp", alpha_));
  return CheckClasses("MixUp", num_classes_);
}

BatchDecision MixUp::Decide(Size2, SampleStream& stream) const {
  BatchDecision d;
  d.kind = BatchDecision::Kind::kMixUp;
  d.lam = d.drawn = DrawBeta(alpha_, stream);
  return d;
}

absl::StatusOr<BatchDecision> MixUp::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2) const {
  FUSEDNORM_RETURN_IF_ERROR(OnlyFields("MixUp", fields, {"lam", "choice"}));
  BatchDecision d;
  d.kind = BatchDecision::Kind::kMixUp;
  FUSEDNORM_ASSIGN_OR_RETURN(d.lam, LamField("MixUp", fields, "lam"));
  d.drawn = d.lam;
  return d;
}

// ---- CutMix ----

std::vector<NamedArg> CutMix::args() const {
  return MixArgs(alpha_, num_classes_);
}
std::unique_ptr<BatchOp> CutMix::Clone() const {
  return std::make_unique<CutMix>(*this);
}
absl::Status CutMix::Validate() const {
  FUSEDNORM_RETURN_IF_ERROR(CheckAlpha("CutMix", alpha_));
  return CheckClasses("CutMix", num_classes_);
}

namespace {

// torchvision v2's lam_adjusted for CutMix's box: 1 - box area / image area.
double BoxLam(const BatchDecision& d, Size2 size) {
  return 1.0 - static_cast<double>((d.x2 - d.x1) * (d.y2 - d.y1)) /
                   static_cast<double>(size.width * size.height);
}

}  // namespace

BatchDecision CutMix::Decide(Size2 size, SampleStream& stream) const {
  BatchDecision d;
  d.kind = BatchDecision::Kind::kCutMix;
  d.drawn = DrawBeta(alpha_, stream);
  const int64_t H = size.height, W = size.width;
  const int64_t r_x = stream.UniformInt(0, W - 1);
  const int64_t r_y = stream.UniformInt(0, H - 1);
  const double r = 0.5 * std::sqrt(1.0 - d.drawn);
  const int64_t r_w_half = static_cast<int64_t>(r * W);
  const int64_t r_h_half = static_cast<int64_t>(r * H);
  d.x1 = std::max<int64_t>(r_x - r_w_half, 0);
  d.y1 = std::max<int64_t>(r_y - r_h_half, 0);
  d.x2 = std::min<int64_t>(r_x + r_w_half, W);
  d.y2 = std::min<int64_t>(r_y + r_h_half, H);
  d.lam = BoxLam(d, size);
  return d;
}

absl::StatusOr<BatchDecision> CutMix::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 size) const {
  FUSEDNORM_RETURN_IF_ERROR(
      OnlyFields("CutMix", fields, {"box", "lam", "lam_adjusted", "choice"}));
  BatchDecision d;
  d.kind = BatchDecision::Kind::kCutMix;
  const ArgValue* box = Field(fields, "box");
  const auto bad_box = [&] {
    return InvalidArgumentCat(
        "CutMix decision box = ", box ? FormatArg(*box) : "missing",
        ": must be (x1, y1, x2, y2) with 0 <= x1 <= x2 <= ", size.width,
        " and 0 <= y1 <= y2 <= ", size.height);
  };
  if (box == nullptr || box->kind != ArgValue::Kind::kTuple ||
      box->items.size() != 4) {
    return bad_box();
  }
  int64_t v[4];
  for (int k = 0; k < 4; ++k) {
    if (box->items[k].kind != ArgValue::Kind::kInt) return bad_box();
    v[k] = box->items[k].integer;
  }
  d.x1 = v[0], d.y1 = v[1], d.x2 = v[2], d.y2 = v[3];
  if (!(0 <= d.x1 && d.x1 <= d.x2 && d.x2 <= size.width && 0 <= d.y1 &&
        d.y1 <= d.y2 && d.y2 <= size.height)) {
    return bad_box();
  }
  FUSEDNORM_ASSIGN_OR_RETURN(d.lam, LamField("CutMix", fields, "lam_adjusted"));
  // The targets must say what the images got: a lam_adjusted of another
  // box would mix labels in proportions the pixels do not have. Boxes'
  // values lie 1 / (H * W) apart at least, so a value rounded on the way
  // (to float32, by torch) is still the box's, and used as given, as
  // torchvision uses it.
  const double want = BoxLam(d, size);
  if (!(std::fabs(d.lam - want) <
        0.5 / static_cast<double>(size.width * size.height))) {
    return InvalidArgumentCat(
        "CutMix decision lam_adjusted = ", d.lam, ": the box ", FormatArg(*box),
        " on ", size.height, "x", size.width,
        " images gives 1 - box area / image area = ", want);
  }
  d.drawn = d.lam;
  if (Field(fields, "lam") != nullptr) {
    FUSEDNORM_ASSIGN_OR_RETURN(d.drawn, LamField("CutMix", fields, "lam"));
  }
  return d;
}

// ---- RandomChoice ----

RandomChoice::RandomChoice(std::vector<std::unique_ptr<BatchOp>> transforms,
                           std::optional<std::vector<double>> p)
    : transforms_(std::move(transforms)), p_(std::move(p)) {}

RandomChoice::RandomChoice(const RandomChoice& other) : p_(other.p_) {
  for (const auto& t : other.transforms_) transforms_.push_back(t->Clone());
}

std::vector<NamedArg> RandomChoice::args() const {
  std::vector<ArgValue> items, p;
  for (const auto& t : transforms_)
    items.push_back(CallArg(t->op_name(), t->args()));
  if (p_) {
    for (const double x : *p_) p.push_back(ArgValue::Float(x));
  }
  return {{"transforms", ArgValue::Tuple(std::move(items))},
          {"p", p_ ? ArgValue::Tuple(std::move(p)) : ArgValue::None()}};
}

std::unique_ptr<BatchOp> RandomChoice::Clone() const {
  return std::make_unique<RandomChoice>(*this);
}

absl::Status RandomChoice::Validate() const {
  if (transforms_.empty())
    return absl::InvalidArgumentError(
        "RandomChoice transforms: the list is empty");
  FUSEDNORM_RETURN_IF_ERROR(CheckChoiceWeights(p_, transforms_.size()));
  for (const auto& t : transforms_) {
    // One "choice" decision field: a RandomChoice in a RandomChoice would
    // need two.
    if (dynamic_cast<const RandomChoice*>(t.get()) != nullptr) {
      return InvalidArgumentCat("RandomChoice transforms: ", t->name(),
                                " is a RandomChoice; list its transforms in "
                                "the outer one instead");
    }
    FUSEDNORM_RETURN_IF_ERROR(PrefixStatus(t->Validate(), "RandomChoice: "));
  }
  const std::optional<int64_t> n = num_classes();
  for (const auto& t : transforms_) {
    if (t->num_classes() && n && *t->num_classes() != *n) {
      return InvalidArgumentCat(
          "RandomChoice: its transforms give num_classes ", *n, " and ",
          *t->num_classes());
    }
  }
  return absl::OkStatus();
}

std::optional<int64_t> RandomChoice::num_classes() const {
  for (const auto& t : transforms_) {
    if (t->num_classes()) return t->num_classes();
  }
  return std::nullopt;
}

BatchDecision RandomChoice::Decide(Size2 size, SampleStream& stream) const {
  const int64_t pick = PickChoice(p_, transforms_.size(), stream);
  BatchDecision d = transforms_[pick]->Decide(size, stream);
  d.choice = pick;
  return d;
}

absl::StatusOr<BatchDecision> RandomChoice::DecisionFromFields(
    const std::vector<NamedArg>& fields, Size2 size) const {
  const ArgValue* choice = Field(fields, "choice");
  if (choice == nullptr || choice->kind != ArgValue::Kind::kInt ||
      choice->integer < 0 ||
      choice->integer >= static_cast<int64_t>(transforms_.size())) {
    return InvalidArgumentCat("RandomChoice decision choice = ",
                              choice ? FormatArg(*choice) : "missing",
                              ": must be an index in 0..",
                              transforms_.size() - 1);
  }
  FUSEDNORM_ASSIGN_OR_RETURN(
      BatchDecision d,
      transforms_[choice->integer]->DecisionFromFields(fields, size));
  d.choice = choice->integer;
  return d;
}

// ---- applying ----

void MixBatch(const BatchDecision& d, const BatchShape& s,
              const MixKernelInfo& kernel, const std::vector<bool>& ok,
              uint8_t* data, size_t count, std::vector<uint8_t>* scratch) {
  if (d.kind == BatchDecision::Kind::kNone || count == 0) return;
  const size_t bytes = s.sample_bytes;
  // Sample i mixes with the original of sample i - 1: from the last down
  // to the second, then the first with the last's saved original.
  scratch->resize(std::max(scratch->size(), bytes));
  uint8_t* last = scratch->data();
  const bool stream = MixStreams(s, count);
  std::memcpy(last, data + (count - 1) * bytes, bytes);
  for (size_t i = count; i-- > 0;) {
    const size_t p = (i + count - 1) % count;
    if (!MixesWithPartner(ok[i], ok[p])) continue;
    const uint8_t* partner = i == 0 ? last : data + p * bytes;
    MixSample(d, s, kernel, partner, data + i * bytes, stream);
  }
}

void MixSample(const BatchDecision& d, const BatchShape& s,
               const MixKernelInfo& kernel, const uint8_t* partner,
               uint8_t* cur, bool nontemporal) {
  if (d.kind == BatchDecision::Kind::kMixUp) {
    kernel.mix(s.dtype, partner, cur, s.sample_bytes / ElementBytes(s.dtype),
               static_cast<float>(1.0 - d.lam), static_cast<float>(d.lam),
               nontemporal);
  } else if (d.kind == BatchDecision::Kind::kCutMix) {
    PasteBox(d, s, kernel, partner, cur, nontemporal);
  }
}

void MakeTargets(const BatchDecision& d, absl::Span<const int64_t> labels,
                 int64_t num_classes, double label_smoothing, float* targets) {
  const size_t n = labels.size();
  const size_t K = static_cast<size_t>(num_classes);
  std::fill(targets, targets + n * K, 0.0f);
  const bool mixed = d.kind != BatchDecision::Kind::kNone;
  const float own = mixed ? static_cast<float>(d.lam) : 1.0f;
  const float other = static_cast<float>(1.0 - d.lam);
  const float keep = static_cast<float>(1.0 - label_smoothing);
  const float add = static_cast<float>(label_smoothing / num_classes);
  for (size_t i = 0; i < n && K > 0; ++i) {
    if (labels[i] < 0) continue;  // skipped: zeros
    float* row = targets + i * K;
    const int64_t partner = labels[(i + n - 1) % n];
    if (mixed && MixesWithPartner(true, partner >= 0)) {
      row[partner] = other;
      row[labels[i]] = row[labels[i]] + own;
    } else {
      row[labels[i]] = 1.0f;
    }
    if (label_smoothing == 0) continue;
    for (size_t j = 0; j < K; ++j) row[j] = row[j] * keep + add;
  }
}

}  // namespace fusednorm
