// The command table and the one path from a command line to an exit status:
// find the command, parse its flags, run it, print its error.
#include "tools/cli.h"

#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/one_line.h"
#include "data/pack_settings.h"
#include "ops/op_settings.h"
#include "ops/op_table.h"
#include "pipeline/recipe_settings.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/flags.h"

namespace fusednorm {
namespace {

struct Command {
  const char* name;
  const char* summary;
  std::vector<const Setting*> flags;  // the only flags it accepts
  absl::Status (*run)(const SettingValues& flags, FILE* out, FILE* err);
  // More help after the flags', or nullptr.
  std::string (*more_help)() = nullptr;
};

// run's list of the transforms its lists take.
std::string TransformsListHelp() {
  return absl::StrCat(
      "\n  The transforms --train-transforms and --val-transforms take "
      "(torchvision's\n  names, arguments and defaults; 'T.' or "
      "'transforms.' before a name is\n  dropped):\n",
      TransformsHelp(OpKind::kSample),
      "\n  The batch transforms --batch-transforms takes:\n",
      TransformsHelp(OpKind::kBatch));
}

// `rows`, then `more`.
std::vector<const Setting*> Join(std::vector<const Setting*> rows,
                                 const std::vector<const Setting*>& more) {
  rows.insert(rows.end(), more.begin(), more.end());
  return rows;
}

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"run",
       "run the training (or --split val) pipeline over a dataset and report",
       Join(RecipeSettings(), {&kEpochsFlag, &kOutputFlag, &kPreviewFlag,
                               &kDeviceCopyFlag, &kStateOutFlag, &kResumeFlag}),
       &RunCommand, &TransformsListHelp},
      {"normalize", "normalize uint8 images from .npy/PNG/JPEG into a .npy",
       Join({&kInputFlag, &kOutputFlag},
            Join(NormalizationSettings(),
                 {&kFlipFlag, &kFlipPSetting, &kEraseFlag, &kErasePSetting,
                  &kEraseScaleSetting, &kEraseRatioSetting, &kSeedSetting,
                  &kPrintDecisionsFlag, &kResizedCropFlag, &kResizeToFlag,
                  &kResizeFilterSetting})),
       &NormalizeCommand},
      {"pack", "write a dataset as WebDataset tar shards (JPEG or raw .npy)",
       Join({&kDataSetting, &kDatasetSetting, &kPathSetting}, PackSettings()),
       &PackCommand},
      {"index",
       "write the index of each shard beside it (SHARD.fnidx), so that "
       "opening them reads the indexes instead of the shards",
       {&kIndexDataFlag},
       &IndexCommand},
      {"kernels",
       "list the kernel variants and the default choice",
       {},
       &KernelsCommand},
  };
  return *commands;
}

std::string MainHelp() {
  std::string out =
      "usage: fusednorm <command> [flags]   (fusednorm <command> --help)\n";
  for (const Command& c : Commands())
    absl::StrAppend(&out, "  ", c.name, "  ", c.summary, "\n");
  return out;
}

std::string Help(const Command& c) {
  std::string out = absl::StrCat("usage: fusednorm ", c.name, " [flags]\n  ",
                                 c.summary, "\n");
  for (const Setting* f : c.flags) out += SettingHelp(*f, SettingStyle::kFlag);
  if (c.more_help != nullptr) out += c.more_help();
  return out;
}

// Runs the command; running out of memory anywhere in it is a data error
// (exit 1) rather than an abort.
absl::Status RunGuarded(const Command& c, const SettingValues& flags, FILE* out,
                        FILE* err) {
  try {
    return c.run(flags, out, err);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        "out of memory (a buffer could not be allocated)");
  }
}

const Command* Find(const std::string& name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

int FusednormMain(const std::vector<std::string>& args, FILE* out, FILE* err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
      args[0] == "help") {
    std::fputs(MainHelp().c_str(), args.empty() ? err : out);
    return args.empty() ? 2 : 0;
  }
  const Command* command = Find(args[0]);
  if (command == nullptr) {
    std::fprintf(err, "fusednorm: unknown command \"%s\"\n%s",
                 OneLine(args[0]).c_str(), MainHelp().c_str());
    return 2;
  }
  bool help = false;
  absl::StatusOr<SettingValues> flags =
      ParseFlags(command->name, command->flags,
                 std::vector<std::string>(args.begin() + 1, args.end()), &help);
  if (flags.ok() && help) {
    std::fputs(Help(*command).c_str(), out);
    return 0;
  }
  absl::Status status = flags.status();
  if (status.ok()) status = RunGuarded(*command, *flags, out, err);
  if (!status.ok()) {
    std::fprintf(err, "fusednorm %s: %s\n", command->name,
                 OneLine(status.message()).c_str());
  }
  return ExitCode(status);
}

}  // namespace fusednorm
