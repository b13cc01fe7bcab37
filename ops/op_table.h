// The op table: every transform a list can name, one row each, with
// torchvision's name, its parameters (name, default, help) and the factory
// that makes it. The list grammar (ops/transform_list.h), the command
// line's --help, Python's fusednorm.transforms classes and the torchvision
// Compose converter all read this table, so an op is added by its own
// files and one row here.
//
// Two kinds: per-sample transforms (PreprocessOp: ops/geometry.h,
// ops/color.h, ops/fused_ops.h) and batch transforms (BatchOp:
// ops/batch_ops.h). Making an op binds its arguments (ops/op_args.h) and
// runs its Validate(), so a bad value is refused before any image is
// read, with an error naming the op, the argument and the value.
#ifndef FUSEDNORM_OPS_OP_TABLE_H_
#define FUSEDNORM_OPS_OP_TABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ops/batch_ops.h"
#include "ops/op_args.h"
#include "ops/resize.h"
#include "ops/transform.h"
#include "ops/transform_list.h"

namespace fusednorm {

// What an op is made with besides its arguments: the loader's resize filter
// (not a torchvision argument: ops/resize.h).
struct OpContext {
  ResizeFilter resize_filter = ResizeFilter::kPil;
};

enum class OpKind { kSample, kBatch };

struct OpRow {
  const char* name;
  OpKind kind;
  const char* help;
  std::vector<OpParam> params;
  absl::StatusOr<std::unique_ptr<PreprocessOp>> (*make)(const BoundArgs&,
                                                        const OpContext&);
  absl::StatusOr<std::unique_ptr<BatchOp>> (*make_batch)(const BoundArgs&,
                                                         const OpContext&);
};

// Every row, in the order --help lists them.
absl::Span<const OpRow> OpRows();
// The first row named `name`, or nullptr. RandomChoice has two rows, a
// per-sample and a batch one, with the same parameters.
const OpRow* FindOpRow(absl::string_view name);
// The row named `name` of `kind`, or nullptr.
const OpRow* FindOpRow(absl::string_view name, OpKind kind);

// The op `call` names: InvalidArgument for an unknown name (listing the
// ops of that kind), and the binding's, readers' and Validate()'s errors.
absl::StatusOr<std::unique_ptr<PreprocessOp>> MakeTransform(
    const OpCall& call, const OpContext& context);
absl::StatusOr<std::unique_ptr<BatchOp>> MakeBatchTransform(
    const OpCall& call, const OpContext& context);

// The ops of a list's text, in order; `list` names the list in errors,
// which also give the op's position: "--train-transforms position 2
// (RandomErasing): RandomErasing p = 1.5: must be ...".
absl::StatusOr<std::vector<std::unique_ptr<PreprocessOp>>> MakeTransforms(
    absl::string_view text, absl::string_view list, const OpContext& context);
absl::StatusOr<std::vector<std::unique_ptr<BatchOp>>> MakeBatchTransforms(
    absl::string_view text, absl::string_view list, const OpContext& context);

// Every op of `kind` with its parameters and defaults, one line an op, for
// --help: "  RandomResizedCrop(size, scale=(0.08, 1.0), ...)  help".
std::string TransformsHelp(OpKind kind);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_OP_TABLE_H_
