// ResumeState (resume_state.h): made from a Preprocessor, written and read
// as flat JSON (core/flat_json.h), checked against a Preprocessor.
#include "pipeline/resume_state.h"

#include <limits>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/digest.h"
#include "core/flat_json.h"
#include "core/names.h"
#include "core/status.h"
#include "pipeline/epoch_order.h"

namespace fusednorm {
namespace {

constexpr char kFormat[] = "fusednorm-resume-state";

using Fields = std::vector<std::pair<std::string, FlatJsonValue>>;

// Every field but the check, in the order they are written; "transforms"
// only when there is text (a state saved without it checks as it did).
Fields FieldsOf(const ResumeState& s) {
  Fields fields = {{"format", std::string(kFormat)},
                   {"version", s.version},
                   {"epoch", s.epoch},
                   {"batches", s.batches},
                   {"samples_handed", s.samples_handed},
                   {"seed", s.seed},
                   {"split", s.split},
                   {"batch_size", s.batch_size},
                   {"samples", s.samples},
                   {"dataset", s.dataset},
                   {"recipe", s.recipe},
                   {"shuffle", s.shuffle},
                   {"decode_scale", s.decode_scale},
                   {"repeated_augmentations", s.repeats},
                   {"world_size", s.world_size}};
  if (!s.transforms.empty()) fields.emplace_back("transforms", s.transforms);
  return fields;
}

std::string Check(const Fields& fields) {
  Digest d;
  for (const auto& [key, value] : fields) {
    d.Text(key);
    if (const auto* n = std::get_if<uint64_t>(&value)) {
      d.Number(*n);
    } else {
      d.Text(std::get<std::string>(value));
    }
  }
  return d.Hex();
}

// What an error shows of a field's value.
std::string Shown(const FlatJsonValue& value) {
  if (const uint64_t* n = std::get_if<uint64_t>(&value))
    return absl::StrCat(*n);
  return absl::StrCat("\"", Shortened(std::get<std::string>(value)), "\"");
}

// Reads field `key` of `json` into `out` (a number or a string).
template <typename T>
absl::Status Take(const std::map<std::string, FlatJsonValue>& json,
                  const std::string& key, absl::string_view what, T* out) {
  const auto it = json.find(key);
  if (it == json.end())
    return InvalidArgumentCat(what, ": the key \"", key, "\" is missing");
  const T* v = std::get_if<T>(&it->second);
  if (v == nullptr) {
    return InvalidArgumentCat(what, ": \"", key, "\" must be a ",
                              std::is_same_v<T, uint64_t> ? "number" : "string",
                              ", not ", Shown(it->second));
  }
  *out = *v;
  return absl::OkStatus();
}

// `text` around byte `at`: up to 40 bytes before it and 80 from it.
std::string Around(const std::string& text, size_t at) {
  const size_t from = at > 40 ? at - 40 : 0;
  return absl::StrCat(from > 0 ? "..." : "", text.substr(from, at + 80 - from),
                      at + 80 < text.size() ? "..." : "");
}

// The transforms of `state` and `here` differ: where, when the state kept
// its text; else the digests and this run's text.
absl::Status TransformsDiffer(const ResumeState& state,
                              const std::string& here_text) {
  if (state.transforms.empty()) {
    return InvalidArgumentCat(
        "the resume state is for another run: the transforms' digest = ",
        Shortened(state.recipe), " in the state, ",
        Digest().Text(here_text).Hex(), " (this run's transforms: ", here_text,
        ") here");
  }
  size_t at = 0;
  while (at < state.transforms.size() && at < here_text.size() &&
         state.transforms[at] == here_text[at]) {
    ++at;
  }
  return InvalidArgumentCat(
      "the resume state is for another run: its transforms differ from "
      "this run's at character ",
      at, ": ", Around(state.transforms, at), " in the state, ",
      Around(here_text, at), " here");
}

// "name = a in the state, b here".
template <typename A, typename B>
absl::Status Differs(absl::string_view name, const A& saved, const B& here) {
  return InvalidArgumentCat("the resume state is for another run: ", name,
                            " = ", saved, " in the state, ", here, " here");
}

}  // namespace

ResumeState MakeResumeState(const Preprocessor& p, Split split,
                            EpochLoader::Position position) {
  const LoaderSettings l = p.loader_settings(split);
  ResumeState s;
  s.seed = l.seed;
  s.split = NameOf(SplitNames(), split);
  s.batch_size = l.batch_size;
  s.samples = p.samples_per_epoch();
  s.dataset = absl::StrFormat("%016x", p.dataset().IndexDigest());
  const std::string recipe = p.PixelRecipe(split);
  s.recipe = Digest().Text(recipe).Hex();
  // Flat JSON holds plain ASCII only, unescaped; the ops print nothing
  // else today, but a text that is not is left out rather than written.
  if (recipe.size() <= kMaxRecipeText && IsFlatJsonText(recipe))
    s.transforms = recipe;
  s.shuffle = l.shuffle ? 1 : 0;
  s.decode_scale = l.decode_scale ? 1 : 0;
  s.repeats = static_cast<uint64_t>(l.repeats);
  s.world_size = static_cast<uint64_t>(l.world);
  s.MoveTo(position);
  return s;
}

void ResumeState::MoveTo(EpochLoader::Position position) {
  epoch = position.epoch;
  batches = position.batches;
  samples_handed = position.batches * batch_size;
}

std::string ResumeStateJson(const ResumeState& state) {
  Fields fields = FieldsOf(state);
  fields.emplace_back("check", Check(fields));
  return WriteFlatJson(fields);
}

absl::StatusOr<ResumeState> ParseResumeState(absl::string_view text,
                                             absl::string_view what) {
  if (text.size() > kMaxResumeStateBytes) {
    return InvalidArgumentCat(what, ": ", text.size(),
                              " bytes is no resume state (they take under ",
                              kMaxResumeStateBytes, ")");
  }
  FUSEDNORM_ASSIGN_OR_RETURN(const auto json, ReadFlatJson(text, what));
  std::string format;
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "format", what, &format));
  uint64_t version = 0;
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "version", what, &version));
  if (format != kFormat || version < 2 || version > kResumeStateVersion) {
    return InvalidArgumentCat(
        what, ": format \"", Shortened(format), "\" version ", version,
        " is not a resume state this build "
        "reads (\"",
        kFormat, "\" versions 2 and ", kResumeStateVersion, ")");
  }
  ResumeState s;
  s.version = version;
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "epoch", what, &s.epoch));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "batches", what, &s.batches));
  FUSEDNORM_RETURN_IF_ERROR(
      Take(json, "samples_handed", what, &s.samples_handed));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "seed", what, &s.seed));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "split", what, &s.split));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "batch_size", what, &s.batch_size));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "samples", what, &s.samples));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "dataset", what, &s.dataset));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "recipe", what, &s.recipe));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "shuffle", what, &s.shuffle));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "decode_scale", what, &s.decode_scale));
  FUSEDNORM_RETURN_IF_ERROR(
      Take(json, "repeated_augmentations", what, &s.repeats));
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "world_size", what, &s.world_size));
  if (version > 2 && json.count("transforms") != 0) {
    FUSEDNORM_RETURN_IF_ERROR(Take(json, "transforms", what, &s.transforms));
    if (s.transforms.empty() || s.transforms.size() > kMaxRecipeText) {
      return InvalidArgumentCat(what, ": \"transforms\" holds ",
                                s.transforms.size(), " bytes (1..",
                                kMaxRecipeText, ")");
    }
  }
  std::string check;
  FUSEDNORM_RETURN_IF_ERROR(Take(json, "check", what, &check));
  if (s.epoch > kPastLastEpoch) {
    return InvalidArgumentCat(what, ": epoch ", s.epoch,
                              " is past 2^32 (after the last, 2^32 - 1)");
  }
  if (s.world_size < 1 ||
      s.world_size > uint64_t{std::numeric_limits<int>::max()}) {
    return InvalidArgumentCat(what, ": world_size = ", s.world_size,
                              " is not a world size (1..",
                              std::numeric_limits<int>::max(), ")");
  }
  const Fields fields = FieldsOf(s);
  if (json.size() != fields.size() + 1) {
    for (const auto& [key, value] : json) {
      bool known = key == "check";
      for (const auto& f : fields) known = known || f.first == key;
      if (!known)
        return InvalidArgumentCat(what, ": unknown key \"", key, "\"");
    }
  }
  if (check != Check(fields)) {
    return InvalidArgumentCat(what, ": its check (", Shortened(check),
                              ") does not match its content (", Check(fields),
                              "): the state was edited or damaged");
  }
  return s;
}

absl::Status CheckResumeState(const ResumeState& state, const Preprocessor& p,
                              Split split) {
  const ResumeState here = MakeResumeState(p, split, {});
  if (state.samples != here.samples)
    return Differs("the epoch's samples", state.samples, here.samples);
  if (state.dataset != here.dataset) {
    return Differs(
        "the dataset's index digest (its files' names and sizes, a shard's "
        "members, or its "
        "contents)",
        Shortened(state.dataset), here.dataset);
  }
  if (state.seed != here.seed) return Differs("seed", state.seed, here.seed);
  if (state.split != here.split)
    return Differs("split", Shortened(state.split), here.split);
  if (state.batch_size != here.batch_size)
    return Differs("batch_size", state.batch_size, here.batch_size);
  if (state.shuffle != here.shuffle)
    return Differs("shuffle", state.shuffle, here.shuffle);
  if (state.decode_scale != here.decode_scale)
    return Differs("decode_scale", state.decode_scale, here.decode_scale);
  if (state.repeats != here.repeats)
    return Differs("repeated_augmentations", state.repeats, here.repeats);
  if (state.repeats > 1 && state.world_size != here.world_size) {
    return InvalidArgumentCat(
        "the resume state was saved with world_size = ", state.world_size,
        " and repeated_augmentations = ", state.repeats,
        ", whose ranks' lists depend on the world size: resume it with "
        "world_size = ",
        state.world_size, ", not ", here.world_size);
  }
  if (state.recipe != here.recipe)
    return TransformsDiffer(state, p.PixelRecipe(split));
  if (state.epoch == kPastLastEpoch && state.batches != 0) {
    return InvalidArgumentCat("the resume state's batches = ", state.batches,
                              " at epoch 2^32: that epoch never starts (the "
                              "last is 2^32 - 1)");
  }
  if (state.samples_handed != state.batches * state.batch_size) {
    return InvalidArgumentCat(
        "the resume state's samples_handed = ", state.samples_handed,
        " is not batches x "
        "batch_size = ",
        state.batches, " x ", state.batch_size);
  }
  return PrefixStatus(
      EpochOrder::CheckStart(p.loader_settings(split), here.samples,
                             state.batches),
      absl::StrCat("the resume state (epoch ", state.epoch, "): "));
}

}  // namespace fusednorm
