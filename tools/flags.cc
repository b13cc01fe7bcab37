// The commands' own rows and the command-line parser (flags.h).
#include "tools/flags.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/image.h"
#include "tools/exit_code.h"

namespace fusednorm {

const Setting kInputFlag{
    "input", SettingType::kText, "",
    "input .npy (uint8, (H,W,C) or (N,H,W,C), C in 1..4) or PNG/JPEG"};
const Setting kOutputFlag{"output", SettingType::kText, "", "output .npy file"};
const Setting kPreviewFlag{"preview", SettingType::kText, "",
                           "PNG grid of the first 16 samples, de-normalized"};
const Setting kEpochsFlag{
    "epochs", SettingType::kInt, "1", "epochs to run", {}, 1, 1e9};
const Setting kDeviceCopyFlag{
    "device_copy", SettingType::kBool, "false",
    "copy each batch to a buffer on --cuda-device while the workers fill "
    "the next, as a trainer's loader would (needs an NVIDIA driver; with "
    "--pinned=cuda the copies are direct and asynchronous)"};
const Setting kStateOutFlag{
    "state_out", SettingType::kText, "",
    "write where the run stands (a resume state, one line of JSON) to FILE "
    "at the start and after each batch, atomically"};
const Setting kResumeFlag{
    "resume", SettingType::kText, "",
    "resume from a state --state-out wrote: the run goes on from its epoch "
    "and batch to the end of the epochs the other flags name, with the "
    "same bytes (they must give the same dataset, seed, batch size and "
    "transforms; world size and threads may differ)"};
const Setting kIndexDataFlag{
    "data", SettingType::kText, "",
    "WebDataset shards to index: a.tar,b.tar or train-{000000..000146}.tar"};
const Setting kFlipFlag{"flip",
                        SettingType::kChoice,
                        "random",
                        "0, 1, or random (with --flip-p)",
                        {"0", "1", "random"}};
const Setting kEraseFlag{
    "erase", SettingType::kText, "none",
    "none, random (with --erase-p, --erase-scale, --erase-ratio) or "
    "I,J,H,W (a rectangle in output coordinates)"};
const Setting kPrintDecisionsFlag{
    "print_decisions", SettingType::kBool, "false",
    "print each sample's flip and erase rectangle"};
const Setting kResizedCropFlag{
    "resized_crop", SettingType::kText, "",
    "TOP,LEFT,H,W: the box of the input (pixels) to resize to --size"};
const Setting kResizeToFlag{
    "size",
    SettingType::kSize,
    "",
    "resize each image (its --resized-crop box) to H,W or N first",
    {},
    1,
    static_cast<double>(kMaxSide)};

absl::StatusOr<SettingValues> ParseFlags(
    const char* command, const std::vector<const Setting*>& accepted,
    const std::vector<std::string>& args, bool* help) {
  SettingValues values(accepted, SettingStyle::kFlag);
  std::string bare_bool;  // the previous argument, an on/off flag given bare
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      if (!bare_bool.empty()) {
        return UsageError(
            absl::StrCat("unexpected argument \"", arg, "\": ", bare_bool,
                         " is an on/off flag, on when given alone; write ",
                         bare_bool, "=", arg, " to give it a value"));
      }
      return UsageError(absl::StrCat("unexpected argument \"", arg,
                                     "\" (flags are --name=value)"));
    }
    bare_bool.clear();
    const size_t eq = arg.find('=');
    const std::string name = absl::StrReplaceAll(
        arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2),
        {{"-", "_"}});
    const Setting* s = values.Find(name);
    if (s == nullptr) {
      return UsageError(absl::StrCat("unknown flag ", arg.substr(0, eq),
                                     " for `fusednorm ", command,
                                     "` (see --help)"));
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (s->type == SettingType::kBool) {
      value = "true";
      bare_bool = arg;
    } else if (TakesBool(*s) &&
               (i + 1 == args.size() || absl::StartsWith(args[i + 1], "--"))) {
      value = "true";  // a choice that was a bool, given bare
    } else if (i + 1 < args.size() && !absl::StartsWith(args[i + 1], "--")) {
      value = args[++i];
    } else {
      // The next flag is not taken for this one's value (`--output
      // --epochs=2` wrote a file named "--epochs=2"): --name=--value is.
      return UsageError(
          absl::StrCat(SettingName(*s, SettingStyle::kFlag), " needs a value",
                       i + 1 < args.size() ? " (write --name=VALUE for one "
                                             "that starts with --)"
                                           : ""));
    }
    // A file flag given empty (`--resume="$STATE"` with STATE unset) is a
    // mistake, not the flag left out; so is a choice given empty.
    if (std::string problem = EmptyValueProblem(*s, SettingStyle::kFlag, value);
        !problem.empty()) {
      return UsageError(problem);
    }
    // A flag given twice is a mistake one way or the other: which value
    // was meant is not for the parser to guess.
    if (values.Given(*s)) {
      return UsageError(absl::StrCat(SettingName(*s, SettingStyle::kFlag),
                                     " is given twice"));
    }
    values.Set(*s, std::move(value));
  }
  return values;
}

}  // namespace fusednorm
