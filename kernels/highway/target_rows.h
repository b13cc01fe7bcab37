// Per-target dispatch-table rows for code compiled once per Highway target
// (foreach_target.h). Include it in the HWY_ONCE part of such a file: for
// every target in HWY_TARGETS it gives the row id ("highway_avx3"), the
// human-readable need ("Highway target AVX3"), the supported() check and the
// index of that target's entry in an HWY_EXPORT table. Only baseline code
// runs here; a target's code runs only through its row after the check.
#ifndef FUSEDNORM_KERNELS_HIGHWAY_TARGET_ROWS_H_
#define FUSEDNORM_KERNELS_HIGHWAY_TARGET_ROWS_H_

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "hwy/highway.h"

namespace fusednorm {
namespace hwy_rows {

// Highway puts its fallback target (EMU128, or SCALAR where EMU128 is not
// compiled) last in an HWY_EXPORT table; no build compiles both.
static_assert((HWY_TARGETS & HWY_EMU128) == 0 ||
                  (HWY_TARGETS & HWY_SCALAR) == 0,
              "EMU128 and SCALAR both compiled: one would have no table entry");

// The HWY_EXPORT table entry of `target`, found as Highway's own
// ChosenTarget::GetIndex finds the entry of the chosen target.
inline size_t TableIndex(int64_t target) {
  if (target & (HWY_EMU128 | HWY_SCALAR)) return HWY_MAX_DYNAMIC_TARGETS + 1;
  return hwy::Num0BitsBelowLS1Bit_Nonzero64(
      static_cast<uint64_t>(HWY_CHOSEN_TARGET_SHIFT(target)));
}

template <int kBit>
bool TargetSupported() {
  return (hwy::SupportedTargets() & (int64_t{1} << kBit)) != 0;
}

template <int kBit>
const char* TargetName() {
  return hwy::TargetName(int64_t{1} << kBit);
}

// "highway_avx3" (id) or "Highway target AVX3" for target bit kBit, made
// once and kept for the life of the process (rows hold the pointers).
template <int kBit>
const char* TargetText(bool id) {
  static const std::string* texts = [] {
    const std::string name = TargetName<kBit>();
    std::string lower = name;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
    return new std::string[2]{"highway_" + lower, "Highway target " + name};
  }();
  return texts[id ? 0 : 1].c_str();
}

// The name of the best target of HWY_TARGETS this CPU supports.
inline const char* ActiveTarget() {
  const int64_t supported = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(supported & -supported);  // a lower bit is better
}

template <class F, int... kBits>
void ForEachBit(std::integer_sequence<int, kBits...>, F& f) {
  (
      [&] {
        if constexpr ((HWY_TARGETS & (int64_t{1} << kBits)) != 0) {
          f(std::integral_constant<int, kBits>());
        }
      }(),
      ...);
}

// Calls f(std::integral_constant<int, kBit>()) for every compiled target, best
// (lowest bit) first.
template <class F>
void ForEachCompiledTarget(F f) {
  ForEachBit(std::make_integer_sequence<int, 63>(), f);
}

}  // namespace hwy_rows
}  // namespace fusednorm

#endif  // FUSEDNORM_KERNELS_HIGHWAY_TARGET_ROWS_H_
