// The values a transform's arguments take, however they were written: in a
// transform list's text ("RandomResizedCrop(176, scale=(0.08, 1.0))",
// ops/transform_list.h) or as Python objects (the bindings build the same
// values). An op's decisions are shown to Python in the same values.
//
// Printing follows Python's repr, so that an op prints as torchvision
// prints it and the text reads back as the same values: integers plainly,
// floats as the shortest text that reads back as the same double (with a
// ".0" when integral), strings quoted, names (enum values such as
// `bicubic`) bare, tuples in parentheses.
#ifndef FUSEDNORM_OPS_ARG_VALUE_H_
#define FUSEDNORM_OPS_ARG_VALUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusednorm {

struct OpCall;  // ops/transform_list.h

struct ArgValue {
  enum class Kind {
    kNone,   // None
    kBool,   // True, False
    kInt,    // an integer: 176, -1
    kFloat,  // a number with a fraction or an exponent: 0.5, 1e-3, inf
    kText,   // a quoted string: 'bicubic'
    kName,   // a bare name: bicubic, InterpolationMode.BICUBIC
    kTuple,  // (a, b) or [a, b]
    kCall,   // an op inside an argument: RandomChoice([MixUp(0.2)])
  };
  Kind kind = Kind::kNone;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string text;                    // kText, kName
  std::vector<ArgValue> items;         // kTuple
  std::shared_ptr<const OpCall> call;  // kCall

  static ArgValue None() { return {}; }
  static ArgValue Bool(bool b);
  static ArgValue Int(int64_t v);
  static ArgValue Float(double v);
  static ArgValue Text(std::string s);
  static ArgValue Name(std::string s);
  static ArgValue Tuple(std::vector<ArgValue> items);

  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  // The number (an integer widened); 0 for other kinds.
  double AsDouble() const;
};

// A named value: an op's argument, or one field of its decisions.
struct NamedArg {
  std::string name;
  ArgValue value;
};

// Python's repr of a float: the shortest text that reads back as `v`, with
// ".0" when it has no fraction; inf, -inf and nan as Python writes them
// (float('inf') and so on are not literals; the grammar reads inf and nan).
std::string FormatFloat(double v);

// Python's repr of `v` (see the overview).
std::string FormatArg(const ArgValue& v);

// "Name(a=1, b=(0.5, 1.0))".
std::string FormatCall(const std::string& name,
                       const std::vector<NamedArg>& args);

}  // namespace fusednorm

#endif  // FUSEDNORM_OPS_ARG_VALUE_H_
