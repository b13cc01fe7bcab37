// MakePlan (plan.h).
#include "pipeline/plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

absl::Status MakePlan(const Chain& chain, Size2 image, SampleStream& stream,
                      SamplePlan* plan) {
  plan->ops.resize(chain.ops.size());
  plan->fused = Augmentation();
  plan->largest_output = 0;
  Size2 size = image;
  for (const Chain::Step& step : chain.steps) {
    const PreprocessOp& op = *step.op;
    const OpDecision d = op.Decide(size, stream);
    switch (step.kind) {
      case Chain::Step::Kind::kFlip:
        plan->fused.flip = d.apply;
        continue;
      case Chain::Step::Kind::kErase:
        plan->fused.erase = d.apply ? d.erase : EraseRect();
        continue;
      case Chain::Step::Kind::kReal:
        break;
    }
    plan->ops[step.real] = d;
    absl::StatusOr<Size2> next = op.DecidedOutputSize(size, d);
    if (!next.ok()) {
      return PrefixStatus(next.status(), absl::StrCat(op.name(), ": "));
    }
    size = *next;
    plan->largest_output =
        std::max(plan->largest_output, size.height * size.width);
  }
  if (size != chain.size) {
    return InvalidArgumentCat("after the transforms it is ", size.height, "x",
                              size.width, " but the batch holds ",
                              chain.size.height, "x", chain.size.width,
                              " samples");
  }
  return absl::OkStatus();
}

int DecodeScale(const CropWindow& window, Size2 out) {
  for (int k : {8, 4, 2}) {
    if (window.height >= k * out.height && window.width >= k * out.width)
      return k;
  }
  return 1;
}

}  // namespace fusednorm
