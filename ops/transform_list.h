// The text of a transform list, as users write torchvision's in Python:
//
//   RandomResizedCrop(176), RandomHorizontalFlip(), RandomErasing(0.1)
//   Resize(232, interpolation=InterpolationMode.BICUBIC), CenterCrop(224)
//   RandomChoice([MixUp(alpha=0.2), CutMix(alpha=1.0)])
//
// An op is a name (a dotted prefix such as `T.` or `transforms.` is
// dropped) and, optionally, arguments in parentheses: positional first,
// then `keyword=value`. A value is a number (176, 0.5, 1e-3, inf), None,
// True or False, a quoted string, a bare name (bicubic,
// InterpolationMode.BICUBIC), a tuple or list of values, or an op. Ops are
// separated by commas; an optional Compose([...]) around the whole list is
// read as the list. The command line's --train-transforms, Python's
// Loader(train_transforms=...) (which writes its objects as this text) and
// the op table (ops/op_table.h) all read this one grammar.
//
// Errors are InvalidArgument naming the list, the character offset, and
// the op at that point with its position in the list.
#ifndef FUSEDNORM_OPS_TRANSFORM_LIST_H_
#define FUSEDNORM_OPS_TRANSFORM_LIST_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ops/arg_value.h"

namespace fusednorm {

// Values nested deeper than this are refused (tuples in tuples, ops in
// ops), in the text and in Python's arguments alike.
inline constexpr int kMaxArgDepth = 32;

// One argument as written: `keyword` is empty for a positional one.
struct OpArgument {
  std::string keyword;
  ArgValue value;
};

// One op as written.
struct OpCall {
  std::string name;  // without a dotted prefix
  std::vector<OpArgument> args;
  size_t offset = 0;  // of the name in the list's text
};

// `call` as a value (kCall): an op inside another's arguments
// (RandomChoice([MixUp(0.2)])), or a transform's decision fields inside a
// list op's.
ArgValue CallArg(OpCall call);
ArgValue CallArg(std::string name, std::vector<NamedArg> args);

// The ops of `text` in order (an empty or blank text has none). `list`
// names the list in errors ("--train-transforms").
absl::StatusOr<std::vector<OpCall>> ParseTransformList(absl::string_view text,
                                                       absl::string_view list);

// One value as the grammar reads it ("(0.08, 1.0)", "bilinear", "None").
absl::StatusOr<ArgValue> ParseArgValue(absl::string_view text);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_TRANSFORM_LIST_H_
