// `fusednorm kernels`.
#include <string>

#include "kernels/dispatch.h"
#include "tools/commands.h"

namespace fusednorm {

absl::Status KernelsCommand(const SettingValues&, FILE* out, FILE* err) {
  const absl::StatusOr<const KernelInfo*> active = ActiveKernel();
  std::fprintf(out, "%-16s %-10s %-7s %-9s %s\n", "id", "supported", "chosen",
               "target", "needs");
  for (const KernelInfo& k : KernelTable()) {
    std::fprintf(out, "%-16s %-10s %-7s %-9s %s\n", k.id,
                 k.supported() ? "yes" : "no",
                 active.ok() && *active == &k ? "*" : "",
                 k.target != nullptr ? k.target() : "", k.needs);
  }
  if (!active.ok()) {
    std::fprintf(out, "no default kernel: %s\n",
                 std::string(active.status().message()).c_str());
  } else {
    std::fprintf(out, "default kernel: %s\n", DescribeKernel(**active).c_str());
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
