// A split's transform chain as the workers run it: the real ops in order,
// then ONE FusedNormalization that does the fused ops' work (erasing, the
// last horizontal flip where every real op after it commutes with it),
// then, for a training split, the batch transform and the soft targets
// (docs/design.md, "The sample path"). Internal to pipeline/.
//
// Every op that draws does so in list order (Chain::steps): a sample's
// decisions depend on where its ops sit, not on which of them the fused
// op does.
#ifndef FUSEDNORM_PIPELINE_CHAIN_H_
#define FUSEDNORM_PIPELINE_CHAIN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/batch_ops.h"
#include "ops/fused_normalization.h"
#include "ops/transform.h"

namespace fusednorm {

struct Chain {
  // One op that draws, in list order, and what its decision is for.
  struct Step {
    enum class Kind { kReal, kFlip, kErase };
    Kind kind;
    const PreprocessOp* op;
    size_t real = 0;  // kReal: its index in `ops`
  };

  std::vector<std::unique_ptr<PreprocessOp>> ops;  // real ops, in order
  // The ops the fused op stands for (the flip it does, the erasing).
  std::vector<std::unique_ptr<PreprocessOp>> fused_ops;
  std::vector<Step> steps;
  std::optional<FusedNormalization> fused;
  Size2 size;               // every sample's size after the real ops
  int channels = 0;         // and its channel count
  size_t sample_bytes = 0;  // the fused op's output per sample
  // The batch transform (training only) and the soft targets' classes
  // (0: the labels are handed out as they are) and label smoothing.
  std::unique_ptr<BatchOp> batch_op;
  const MixKernelInfo* mix_kernel = nullptr;  // the batch op's, with it
  int64_t num_classes = 0;
  double label_smoothing = 0;

  // How a batch of this chain lies in its slot.
  BatchShape batch_shape() const;
};

// What a chain is built from besides its list.
struct ChainOptions {
  std::string list_name = "train_transforms";  // in errors
  bool allow_erase = true;                     // false for val
  FusedNormalizationOptions base;  // normalization, dtype, layout, kernel
  std::optional<Size2> sample_size;
  int channels = 3;  // the dataset's
  // The size all the dataset's images share, when it knows one: the list's
  // output size follows from it (CIFAR's val list, ToTensor and Normalize,
  // keeps it; Resize(224) scales it).
  std::optional<Size2> image_size;
};

// The size every sample has after a list's real ops, followed from
// `image_size` (the dataset's images' when they share one): an op of fixed
// size sets it (a crop, an exact Resize), one whose size follows from its
// input's (Resize(int)) computes it from the size before when that is
// known, the others keep it. nullopt when it is not known before a sample
// is read (an expanding rotation, a list op whose draws make different
// sizes, or Resize(int) on images of many sizes
// with no crop before it). `position` is the last op that set or changed
// it; kDatasetSize when the dataset's size passes through. InvalidArgument
// "position I (OP) on HxW images: ..." for an op that cannot make a size
// from the known one (Resize(int, max_size) rounding a side to 0, a
// Resize(int) past the largest image, a RandomCrop larger than its padded
// input).
struct ListSize {
  static constexpr size_t kDatasetSize = ~size_t{0};
  size_t position;
  Size2 size;
};
absl::StatusOr<std::optional<ListSize>> ListOutputSize(
    const std::vector<std::unique_ptr<PreprocessOp>>& list,
    std::optional<Size2> image_size = std::nullopt);

// Builds the chain of transform list `list`: copies of its real ops, the
// fused op made from `options.base` plus the list's fused ops (the erased
// values normalized when RandomErasing comes before Normalize, or, with
// no Normalize in the list, before its conversion to float). Refused,
// naming the list, the position and the op: a Normalize that disagrees
// with `options.base` (the normalization is a setting; a list's Normalize
// must say the same, as pipeline/recipe.h makes it), that comes twice or
// that a real op other than a flip follows, a mean or std count that is
// neither 1 nor the channel count, RandomErasing twice, where erasing is not
// allowed, or before a real op (it works on the normalized tensor), an op
// after ToTensor that torchvision would run on tensors (only flips may
// follow it), a conversion given what torchvision v1's refuses (ToTensor
// or PILToTensor a tensor, ToDtype or ConvertImageDtype a PIL image),
// Normalize or an erase to other than 0 on a uint8 tensor, a list that
// ends in one, a channel count an op does not take, and an output size
// that neither the list nor `sample_size` fixes.
absl::StatusOr<Chain> BuildChain(
    const std::vector<std::unique_ptr<PreprocessOp>>& list,
    const ChainOptions& options);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_CHAIN_H_
