// `fusednorm kernels`: every SIMD op's variants (kernels/all_tables.h) --
// id, supported here, chosen, the SIMD target a row runs, what it needs --
// and each op's default.
#include <string>

#include "kernels/all_tables.h"
#include "tools/commands.h"

namespace fusednorm {

absl::Status KernelsCommand(const SettingValues&, FILE* out, FILE* err) {
  bool first = true;
  for (const KernelTableView& table : AllKernelTables()) {
    if (!first) std::fprintf(out, "\n");
    first = false;
    std::fprintf(out, "%ss (forced with %s):\n", table.op.c_str(),
                 table.env.c_str());
    std::fprintf(out, "%-16s %-10s %-7s %-9s %s\n", "id", "supported", "chosen",
                 "target", "needs");
    for (const VariantView& row : table.rows) {
      std::fprintf(out, "%-16s %-10s %-7s %-9s %s\n", row.id.c_str(),
                   row.supported ? "yes" : "no", row.chosen ? "*" : "",
                   row.target.c_str(), row.needs.c_str());
    }
    std::fprintf(out, "default %s: %s\n", table.op.c_str(),
                 table.chosen.c_str());
  }
  return absl::OkStatus();
}

}  // namespace fusednorm
