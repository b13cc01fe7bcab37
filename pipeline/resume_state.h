// Where a run of a Preprocessor's split stands, to resume it exactly: a
// few hundred bytes of flat JSON (and the transforms' text), the same on
// every rank, plain data that goes into a training checkpoint as it is
// (Python's Loader.state_dict()).
//
// A sample's pixels depend only on (seed, epoch, index) and an epoch's
// order only on (seed, epoch), so the state is a position -- the epoch and
// how many of its batches (over all ranks) were handed out -- plus what
// must not change for that position to mean the same samples and pixels:
// the dataset's index (its sample count and digest), the seed, the split,
// the batch size, shuffling, reduced-size decoding, repeats and a digest
// of the transforms (Preprocessor::PixelRecipe), whose text the state keeps
// too, so that a change is shown where it is.
// The world size and thread count may change, and so may drop_last:
// pipeline/epoch_order.h deals what is left. With repeated augmentations
// the ranks' lists depend on the world size, so it must stay. A "check"
// digest over the rest tells a state that was damaged or edited by hand;
// it is no signature (anyone can recompute it), so it does not stop a
// deliberate forgery.
#ifndef FUSEDNORM_PIPELINE_RESUME_STATE_H_
#define FUSEDNORM_PIPELINE_RESUME_STATE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "pipeline/epoch_loader.h"
#include "pipeline/preprocessor.h"

namespace fusednorm {

// 3: the state keeps the transforms' text; 2 (read too) did not. 2: a
// shard dataset's digest covers its members (1 saw names and sizes).
inline constexpr uint64_t kResumeStateVersion = 3;
// States take under 17 KiB (most under 2 KiB); longer text is refused
// unread.
inline constexpr size_t kMaxResumeStateBytes = 64 << 10;
// The longest transforms' text a state keeps.
inline constexpr size_t kMaxRecipeText = 16 << 10;
// The epoch a state stands at once epoch 2^32 - 1, the last, is over.
inline constexpr uint64_t kPastLastEpoch = uint64_t{1} << 32;

struct ResumeState {
  uint64_t version = kResumeStateVersion;  // as read: 2 or 3
  // Where the run stands: `epoch`, after `batches` of its batches over all
  // ranks (samples_handed samples). Epoch 2^32 stands after the last.
  uint64_t epoch = 0;
  uint64_t batches = 0;
  uint64_t samples_handed = 0;
  // What must not change.
  uint64_t seed = 0;
  std::string split;  // train, val
  uint64_t batch_size = 0;
  uint64_t samples = 0;  // an epoch's, over all ranks
  std::string dataset;   // Dataset::IndexDigest, 16 hex digits
  std::string recipe;    // a digest of PixelRecipe, 16 hex digits
  // PixelRecipe's text up to kMaxRecipeText bytes of plain ASCII (empty
  // past that, or in a version 2 state): not compared, only shown.
  std::string transforms;
  uint64_t shuffle = 1;       // 0 or 1
  uint64_t decode_scale = 0;  // 0 or 1
  uint64_t repeats = 1;       // repeated_augmentations
  uint64_t world_size = 1;    // when saved
  // Sets where the run stands: epoch, batches and samples_handed.
  void MoveTo(EpochLoader::Position position);
};

// The state of `p`'s `split` at `position` (EpochLoader::resume_position).
ResumeState MakeResumeState(const Preprocessor& p, Split split,
                            EpochLoader::Position position);

// The state as one line of JSON, with its format, version and check.
std::string ResumeStateJson(const ResumeState& state);

// Reads ResumeStateJson's text (`what` names it in errors): InvalidArgument
// for text that is not that JSON (truncated, say) or is longer than
// kMaxResumeStateBytes, a key missing ("transforms" may be) or unknown,
// another format or version (2 and 3 are read), or a check that does not
// match.
absl::StatusOr<ResumeState> ParseResumeState(absl::string_view json,
                                             absl::string_view what);

// OK when `state` resumes `p`'s `split`; else InvalidArgument naming the
// first difference (the dataset, the seed, the split, the batch size,
// shuffle, decode_scale, repeats and the world size, the transforms) or a
// position the epoch does not have.
absl::Status CheckResumeState(const ResumeState& state, const Preprocessor& p,
                              Split split);

}  // namespace fusednorm

#endif  // FUSEDNORM_PIPELINE_RESUME_STATE_H_
