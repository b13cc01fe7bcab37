// One registry for the variants of every SIMD op: the fused normalization
// (kernels/dispatch.h), the Pillow resize (kernels/resize/resize_dispatch.h),
// the colour ops (kernels/color/color_dispatch.h), the auto-augment ops
// (kernels/augment/augment_dispatch.h), the batch mixing
// (kernels/mix/mix_dispatch.h) and the pixel packing
// (kernels/highway/pack_pixels.h) each list their variants as rows of one
// table, and this registry serves them all the same way: lookup by id, the
// environment variable that forces a row, the choice of the best supported
// row (covering a configuration where the op has several), the description
// a row prints, and the listing `fusednorm kernels` shows
// (kernels/all_tables.h).
//
// A row is any struct with the fields
//
//   const char* id;         // "highway_avx2"
//   const char* needs;      // "SSE4.1 F16C AVX", for messages
//   int priority;           // higher wins among the supported rows
//   bool (*supported)();    // can this CPU run it? asked once per row
//   const char* (*target)();  // the SIMD target it runs, or nullptr
//
// plus the op's own (its function, what it covers). Rows are listed
// explicitly by each op (no static registration). An unknown id is NotFound,
// one this CPU cannot run Unimplemented: never a silent fallback. Building
// and querying the registry runs baseline code only.
#ifndef FUSEDNORM_KERNELS_REGISTRY_H_
#define FUSEDNORM_KERNELS_REGISTRY_H_

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace fusednorm {

// A row as every op's listing shows it.
struct VariantView {
  std::string id, needs, target;
  int priority = 0;
  bool supported = false;
  bool chosen = false;  // the row used when none is named
};

template <typename Row>
class KernelRegistry {
 public:
  // `op` names the op in messages ("kernel", "resize kernel"); `env` is the
  // variable that forces a row when a caller names none.
  KernelRegistry(const char* op, const char* env, std::vector<Row> rows)
      : op_(op), env_(env), rows_(std::move(rows)) {
    for (const Row& row : rows_) supported_.push_back(row.supported());
  }

  const char* op() const { return op_; }
  const char* env() const { return env_; }
  absl::Span<const Row> rows() const { return rows_; }
  bool supported(const Row& row) const {
    return supported_[&row - rows_.data()];
  }

  // The row with this id: NotFound if none has it, Unimplemented if this
  // CPU cannot run it.
  absl::StatusOr<const Row*> Find(absl::string_view id) const {
    for (const Row& row : rows_) {
      if (id != row.id) continue;
      if (!supported(row)) {
        return absl::UnimplementedError(
            absl::StrCat(op_, " \"", id, "\" needs ", row.needs,
                         ", which this CPU does not have"));
      }
      return &row;
    }
    return absl::NotFoundError(absl::StrCat(op_, " \"", id,
                                            "\" is not a known ", op_,
                                            " id (known: ", KnownIds(), ")"));
  }

  // The row named by `id`, or, when `id` is empty, by the environment
  // variable (its errors name it); nullptr when neither names one. Ops make
  // this choice once, when they are made, not per call.
  absl::StatusOr<const Row*> Forced(absl::string_view id) const {
    if (!id.empty()) return Find(id);
    const char* value = std::getenv(env_);
    if (value == nullptr || *value == '\0') return nullptr;
    absl::StatusOr<const Row*> found = Find(value);
    if (!found.ok()) {
      return absl::Status(found.status().code(),
                          absl::StrCat(env_, ": ", found.status().message()));
    }
    return found;
  }

  // The forced row (which must cover the configuration), else the
  // highest-priority supported row that does. `covers(row)` says whether a
  // row covers it; `config` describes it for messages.
  template <typename Covers>
  absl::StatusOr<const Row*> Select(absl::string_view id, Covers covers,
                                    absl::string_view config = "") const {
    absl::StatusOr<const Row*> forced = Forced(id);
    if (!forced.ok() || *forced != nullptr) {
      if (forced.ok() && !covers(**forced)) {
        return absl::UnimplementedError(absl::StrCat(
            op_, " \"", (*forced)->id, "\" does not cover ", config));
      }
      return forced;
    }
    const Row* best = nullptr;
    for (const Row& row : rows_) {
      if (supported(row) && covers(row) &&
          (best == nullptr || row.priority > best->priority)) {
        best = &row;
      }
    }
    if (best == nullptr)
      return absl::UnimplementedError(
          absl::StrCat("no ", op_, " covers ", config));
    return best;
  }

  // The row used when none is named: forced, or the best supported one.
  absl::StatusOr<const Row*> Default() const {
    return Select(
        "", [](const Row&) { return true; }, "this configuration");
  }

  // The row's id, followed by the target it runs in parentheses where it
  // has one, e.g. "highway (AVX3)".
  std::string Describe(const Row& row) const {
    if (row.target == nullptr) return row.id;
    return absl::StrCat(row.id, " (", row.target(), ")");
  }

  std::vector<VariantView> Views() const {
    const absl::StatusOr<const Row*> chosen = Default();
    std::vector<VariantView> views;
    for (const Row& row : rows_) {
      views.push_back({row.id, row.needs,
                       row.target != nullptr ? row.target() : "", row.priority,
                       supported(row), chosen.ok() && *chosen == &row});
    }
    return views;
  }

 private:
  std::string KnownIds() const {
    std::string ids;
    for (const Row& row : rows_)
      absl::StrAppend(&ids, ids.empty() ? "" : ", ", row.id);
    return ids;
  }

  const char* op_;
  const char* env_;
  std::vector<Row> rows_;
  std::vector<bool> supported_;
};

}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_REGISTRY_H_
