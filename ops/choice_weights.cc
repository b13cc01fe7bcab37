// RandomChoice's probabilities (choice_weights.h).
#include "ops/choice_weights.h"

#include <algorithm>
#include <cmath>

#include "core/status.h"

namespace fusednorm {

absl::Status CheckChoiceWeights(const std::optional<std::vector<double>>& p,
                                size_t transforms) {
  if (!p) return absl::OkStatus();
  if (p->size() != transforms) {
    return InvalidArgumentCat("RandomChoice p has ", p->size(),
                              " probabilities for ", transforms, " transforms");
  }
  double total = 0;
  for (const double x : *p) {
    if (!(x >= 0) || !std::isfinite(x))
      return InvalidArgumentCat("RandomChoice p: ", x,
                                " must be finite and >= 0");
    total += x;
  }
  if (!(total > 0) || !std::isfinite(total)) {
    return InvalidArgumentCat("RandomChoice p: the probabilities sum to ",
                              total, "; they must sum to a finite total > 0");
  }
  return absl::OkStatus();
}

int64_t PickChoice(const std::optional<std::vector<double>>& p,
                   size_t transforms, SampleStream& stream) {
  const bool uniform = !p || std::all_of(p->begin(), p->end(), [&](double x) {
    return x == p->front();
  });
  if (uniform)
    return stream.UniformInt(0, static_cast<int64_t>(transforms) - 1);
  double total = 0;
  for (const double x : *p) total += x;
  const double u = stream.Uniform53() * total;
  double sum = 0;
  for (size_t k = 0; k < p->size(); ++k) {
    sum += (*p)[k];
    if (u < sum && (*p)[k] > 0) return static_cast<int64_t>(k);
  }
  return static_cast<int64_t>(p->size()) - 1;
}

}  // namespace fusednorm
