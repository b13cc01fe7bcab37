// MakePlan (plan.h).
#include "pipeline/plan.h"

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace fusednorm {

absl::Status MakePlan(const Chain& chain, Size2 image, SampleStream& stream,
                      SamplePlan* plan) {
  plan->ops.resize(chain.ops.size());
  Size2 size = image;
  for (size_t i = 0; i < chain.ops.size(); ++i) {
    const PreprocessOp& op = *chain.ops[i];
    plan->ops[i] = op.Decide(size, stream);
    absl::StatusOr<Size2> next = op.OutputSize(size);
    if (!next.ok()) {
      return PrefixStatus(next.status(), absl::StrCat(op.name(), ": "));
    }
    size = *next;
  }
  if (size.height != chain.size.height || size.width != chain.size.width) {
    return InvalidArgumentCat("after the transforms it is ", size.height, "x",
                              size.width, " but the batch holds ",
                              chain.size.height, "x", chain.size.width,
                              " samples");
  }
  plan->fused = chain.fused->Sample(size.height, size.width, stream);
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
