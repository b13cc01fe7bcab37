// The command table and the one path from a command line to an exit status:
// find the command, parse its flags, run it, print its error.
#include "tools/cli.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tools/commands.h"
#include "tools/exit_code.h"
#include "tools/flags.h"

namespace fusednorm {
namespace {

struct Command {
  const char* name;
  const char* summary;
  std::vector<const char*> flags;  // the only flags it accepts
  absl::Status (*run)(FILE* out, FILE* err);
};

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"run",
       "run the training (or --split val) pipeline over a dataset and report",
       {"data",   "dataset", "path",          "split",    "images",
        "batch",  "threads", "epochs",        "seed",     "preset",
        "mean",   "std",     "dtype",         "layout",   "mode",
        "kernel", "size",    "resize_filter", "on_error", "decode_scale",
        "output", "preview"},
       &RunCommand},
      {"normalize",
       "normalize uint8 images from .npy/PNG/JPEG into a .npy",
       {"input",
        "output",
        "preset",
        "mean",
        "std",
        "dtype",
        "layout",
        "mode",
        "flip",
        "flip_p",
        "erase",
        "erase_p",
        "erase_scale",
        "erase_ratio",
        "seed",
        "kernel",
        "print_decisions",
        "resized_crop",
        "size",
        "resize_filter"},
       &NormalizeCommand},
      {"pack",
       "write a dataset as WebDataset tar shards (JPEG or raw .npy)",
       {"data", "dataset", "path", "output", "max_side", "encoding", "quality",
        "jpeg_restart", "shard_bytes"},
       &PackCommand},
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
  for (const char* f : c.flags) out += FlagHelp(f);
  return out;
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
    std::fprintf(err, "fusednorm: unknown command \"%s\"\n%s", args[0].c_str(),
                 MainHelp().c_str());
    return 2;
  }
  for (const Command& c : Commands()) ResetFlags(c.flags);
  bool help = false;
  absl::Status status =
      ParseFlags(command->name, command->flags,
                 std::vector<std::string>(args.begin() + 1, args.end()), &help);
  if (status.ok() && help) {
    std::fputs(Help(*command).c_str(), out);
    return 0;
  }
  if (status.ok()) status = command->run(out, err);
  if (!status.ok()) {
    std::fprintf(err, "fusednorm %s: %s\n", command->name,
                 std::string(status.message()).c_str());
  }
  return ExitCode(status);
}

}  // namespace fusednorm
