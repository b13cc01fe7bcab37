// The flag definitions and the command-line parser (flags.h).
#include "tools/flags.h"

#include <set>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tools/exit_code.h"

ABSL_FLAG(std::string, input, "",
          "input .npy (uint8, (H,W,C) or (N,H,W,C), C in 1..4) or PNG/JPEG");
ABSL_FLAG(std::string, output, "",
          "output .npy file; pack: shard pattern, e.g. shards/train-%06d.tar");
ABSL_FLAG(std::string, preset, "imagenet", "none|mnist|cifar|imagenet|mlperf");
ABSL_FLAG(std::string, mean, "", "custom mean, comma-separated (with --std)");
ABSL_FLAG(std::string, std, "", "custom std, comma-separated (with --mean)");
ABSL_FLAG(std::string, dtype, "float32", "float32|float16|bfloat16");
ABSL_FLAG(std::string, layout, "",
          "hwc|hwc4|chw (default: float32 hwc, else hwc4)");
ABSL_FLAG(std::string, mode, "fast", "fast|exact (exact: torchvision's bits)");
ABSL_FLAG(std::string, flip, "random", "0|1|random");
ABSL_FLAG(double, flip_p, 0.5, "flip probability for --flip=random");
ABSL_FLAG(std::string, erase, "none",
          "none|random|I,J,H,W (rectangle in output coordinates)");
ABSL_FLAG(double, erase_p, 0.5, "erase probability for --erase=random");
ABSL_FLAG(std::string, erase_scale, "0.02,0.33",
          "erased area fraction range A,B");
ABSL_FLAG(std::string, erase_ratio, "0.3,3.3", "erased aspect ratio range A,B");
ABSL_FLAG(uint64_t, seed, 0, "seed; sample n uses the stream (seed, epoch, n)");
ABSL_FLAG(std::string, kernel, "",
          "kernel variant id (see `fusednorm kernels`)");
ABSL_FLAG(bool, print_decisions, false,
          "print each sample's flip and erase rectangle");
ABSL_FLAG(std::string, data, "",
          "image folder (class sub-folders of JPEG/PNG files), or WebDataset "
          "shards: a.tar,b.tar or train-{000000..000146}.tar");
ABSL_FLAG(std::string, dataset, "synthetic",
          "synthetic|mnist|cifar10 (with --path)");
ABSL_FLAG(std::string, path, "", "directory of the --dataset files");
ABSL_FLAG(std::string, split, "train", "train|val");
ABSL_FLAG(int64_t, images, 512,
          "use the first N images of the dataset (0: all)");
ABSL_FLAG(int64_t, batch, 64, "batch size");
ABSL_FLAG(int32_t, threads, 0, "worker threads (0: all cores)");
ABSL_FLAG(int32_t, epochs, 1, "epochs");
ABSL_FLAG(std::string, size, "",
          "output size H,W or N (square); run: N, default 224; normalize: "
          "resize to it before normalizing");
ABSL_FLAG(std::string, resized_crop, "",
          "TOP,LEFT,H,W: the box of the input (pixels) to resize to --size "
          "before normalizing");
ABSL_FLAG(std::string, resize_filter, "pil",
          "pil|tensor|bilinear (pil: Pillow's bits, as torchvision's PIL "
          "route)");
ABSL_FLAG(int64_t, max_side, 0,
          "pack: shrink images whose longer side exceeds this (0: keep)");
ABSL_FLAG(std::string, encoding, "jpeg",
          "pack: jpeg (stored bytes kept where possible) or raw (uint8 .npy)");
ABSL_FLAG(int32_t, quality, 90, "pack: JPEG quality of re-encoded images");
ABSL_FLAG(std::string, jpeg_restart, "4",
          "pack: restart markers added losslessly to every JPEG, so that "
          "loading decodes only a crop's segments: N (an interval of at most "
          "N MCUs that divides the MCU row), rows (one per MCU row), or keep "
          "(the stored bytes as they are)");
ABSL_FLAG(std::string, shard_bytes, "1G",
          "pack: largest shard size, e.g. 1G, 500M");
ABSL_FLAG(bool, decode_scale, false,
          "decode JPEGs at 1/2, 1/4 or 1/8 size when the crop allows (faster; "
          "changes pixels)");
ABSL_FLAG(std::string, on_error, "fail",
          "fail|skip: stop at the first sample that cannot be read, or skip "
          "it (zero-filled in its batch) and list it in the report");
ABSL_FLAG(std::string, preview, "",
          "PNG grid of the first 16 samples, de-normalized");

namespace fusednorm {
namespace {

// One argument split into the flag's name (underscores) and its value.
struct Arg {
  std::string name;
  std::string value;
  bool has_value = false;
};

Arg SplitArg(const std::string& arg) {
  Arg a;
  const size_t eq = arg.find('=');
  a.has_value = eq != std::string::npos;
  a.name = absl::StrReplaceAll(
      arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2),
      {{"-", "_"}});
  if (a.has_value) a.value = arg.substr(eq + 1);
  return a;
}

}  // namespace

void ResetFlags(const std::vector<const char*>& names) {
  for (const char* name : names) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    std::string ignored;
    flag->ParseFrom(flag->DefaultValue(), &ignored);
  }
}

absl::Status ParseFlags(const char* command,
                        const std::vector<const char*>& allowed,
                        const std::vector<std::string>& args, bool* help) {
  const std::set<std::string> known(allowed.begin(), allowed.end());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      *help = true;
      continue;
    }
    if (!absl::StartsWith(args[i], "--")) {
      return UsageError(absl::StrCat("unexpected argument \"", args[i],
                                     "\" (flags are --name=value)"));
    }
    Arg a = SplitArg(args[i]);
    absl::CommandLineFlag* flag =
        known.count(a.name) ? absl::FindCommandLineFlag(a.name) : nullptr;
    if (flag == nullptr) {
      return UsageError(
          absl::StrCat("unknown flag ", args[i].substr(0, args[i].find('=')),
                       " for `fusednorm ", command, "` (see --help)"));
    }
    if (!a.has_value && flag->IsOfType<bool>()) {
      a.value = "true";
    } else if (!a.has_value) {
      if (i + 1 == args.size())
        return UsageError(absl::StrCat("flag --", a.name, " needs a value"));
      a.value = args[++i];
    }
    std::string why;
    if (!flag->ParseFrom(a.value, &why)) {
      return UsageError(
          absl::StrCat("flag --", a.name, "=", a.value, ": ", why));
    }
  }
  return absl::OkStatus();
}

std::string FlagHelp(const char* name) {
  const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
  return absl::StrCat("  --", absl::StrReplaceAll(name, {{"_", "-"}}),
                      " (default \"", flag->DefaultValue(), "\")\n      ",
                      flag->Help(), "\n");
}

}  // namespace fusednorm
