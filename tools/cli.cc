#include "tools/cli.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "hwy/targets.h"
#include "kernels/dispatch.h"
#include "kernels/highway/highway.h"
#include "ops/fused_normalization.h"
#include "ops/transforms.h"
#include "pipeline/codecs.h"
#include "pipeline/preprocessor.h"
#include "tools/npy.h"

// Flags of every subcommand (each subcommand accepts only its own; see
// kSubcommands).
ABSL_FLAG(std::string, input, "",
          "input .npy (uint8, (H,W,C) or (N,H,W,C), C in 1..4) or PNG/JPEG");
ABSL_FLAG(std::string, output, "", "output .npy file");
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
          "image folder (class sub-folders of JPEG/PNG files)");
ABSL_FLAG(std::string, dataset, "synthetic",
          "synthetic|mnist|cifar10 (with --path)");
ABSL_FLAG(std::string, path, "", "directory of the --dataset files");
ABSL_FLAG(std::string, split, "train", "train|val");
ABSL_FLAG(int64_t, images, 512,
          "use the first N images of the dataset (0: all)");
ABSL_FLAG(int64_t, batch, 64, "batch size");
ABSL_FLAG(int32_t, threads, 0, "worker threads (0: all cores)");
ABSL_FLAG(int32_t, epochs, 1, "epochs");
ABSL_FLAG(int64_t, size, 224, "output height and width of the crops");
ABSL_FLAG(std::string, preview, "",
          "PNG grid of the first 16 samples, de-normalized");

namespace fusednorm {
namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  std::vector<const char*> flags;
};

const std::vector<Subcommand>& Subcommands() {
  static const auto* s = new std::vector<Subcommand>{
      {"run",
       "run the training (or --split val) pipeline over a dataset and report",
       {"data", "dataset", "path", "split", "images", "batch", "threads",
        "epochs", "seed", "preset", "mean", "std", "dtype", "layout", "mode",
        "kernel", "size", "output", "preview"}},
      {"normalize",
       "normalize uint8 images from .npy/PNG/JPEG into a .npy",
       {"input", "output", "preset", "mean", "std", "dtype", "layout", "mode",
        "flip", "flip_p", "erase", "erase_p", "erase_scale", "erase_ratio",
        "seed", "kernel", "print_decisions"}},
      {"kernels", "list the kernel variants and Highway targets", {}},
  };
  return *s;
}

// Paths on the command line are relative to where the user ran `bazel run`,
// which sets BUILD_WORKING_DIRECTORY (the program itself runs in its runfiles
// tree).
std::string Resolve(const std::string& path) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (path.empty() || path[0] == '/' || wd == nullptr || *wd == '\0')
    return path;
  return absl::StrCat(wd, "/", path);
}

// A usage error (exit 2) or a data error (exit 1), with its message.
struct Failure {
  int code;
  std::string message;
};

Failure Usage(const std::string& m) { return {2, m}; }
Failure Data(const absl::Status& s) { return {1, std::string(s.message())}; }

std::string Help(const Subcommand& sc) {
  std::string out = absl::StrCat("usage: fusednorm ", sc.name, " [flags]\n  ",
                                 sc.summary, "\n");
  for (const char* f : sc.flags) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(f);
    absl::StrAppend(&out, "  --", absl::StrReplaceAll(f, {{"_", "-"}}),
                    " (default \"", flag->DefaultValue(), "\")\n      ",
                    flag->Help(), "\n");
  }
  return out;
}

std::string MainHelp() {
  std::string out =
      "usage: fusednorm <command> [flags]   (fusednorm <command> --help)\n";
  for (const Subcommand& sc : Subcommands())
    absl::StrAppend(&out, "  ", sc.name, "  ", sc.summary, "\n");
  return out;
}

// Sets every flag to its default, then parses args[first..]. Returns false with
// a usage error for an unknown flag, one of another subcommand, or a bad value.
bool ParseFlags(const Subcommand& sc, const std::vector<std::string>& args,
                bool* help, Failure* error) {
  for (const Subcommand& any : Subcommands()) {
    for (const char* f : any.flags) {
      absl::CommandLineFlag* flag = absl::FindCommandLineFlag(f);
      std::string ignored;
      flag->ParseFrom(flag->DefaultValue(), &ignored);
    }
  }
  const std::set<std::string> allowed(sc.flags.begin(), sc.flags.end());
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      *error = Usage(absl::StrCat("unexpected argument \"", arg,
                                  "\" (flags are --name=value)"));
      return false;
    }
    arg = arg.substr(2);
    std::string name = arg, value;
    const size_t eq = arg.find('=');
    bool has_value = eq != std::string::npos;
    if (has_value) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    name = absl::StrReplaceAll(name, {{"-", "_"}});
    absl::CommandLineFlag* flag =
        allowed.count(name) ? absl::FindCommandLineFlag(name) : nullptr;
    if (flag == nullptr) {
      *error =
          Usage(absl::StrCat("unknown flag --", arg.substr(0, eq),
                             " for `fusednorm ", sc.name, "` (see --help)"));
      return false;
    }
    if (!has_value) {
      if (flag->IsOfType<bool>()) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        *error = Usage(absl::StrCat("flag --", name, " needs a value"));
        return false;
      }
    }
    std::string why;
    if (!flag->ParseFrom(value, &why)) {
      *error = Usage(absl::StrCat("flag --", name, "=", value, ": ", why));
      return false;
    }
  }
  return true;
}

// ---- option parsing shared by run and normalize ----

bool ParseFloats(const std::string& flag, const std::string& text, size_t min,
                 size_t max, std::vector<float>* out, Failure* error) {
  out->clear();
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    float v;
    if (!absl::SimpleAtof(part, &v) || !std::isfinite(v)) {
      *error = Usage(absl::StrCat("--", flag, "=", text, ": \"", part,
                                  "\" is not a number"));
      return false;
    }
    out->push_back(v);
  }
  if (out->size() < min || out->size() > max) {
    *error = Usage(absl::StrCat("--", flag, "=", text, ": needs ", min, "..",
                                max, " values"));
    return false;
  }
  return true;
}

bool ParseNormalization(FusedNormalizationOptions* o, Failure* error) {
  const std::string mean = absl::GetFlag(FLAGS_mean),
                    std = absl::GetFlag(FLAGS_std);
  if (!mean.empty() || !std.empty()) {
    if (mean.empty() || std.empty()) {
      *error = Usage("--mean and --std go together");
      return false;
    }
    if (!ParseFloats("mean", mean, 1, 4, &o->mean, error) ||
        !ParseFloats("std", std, 1, 4, &o->std, error)) {
      return false;
    }
  } else {
    absl::StatusOr<Preset> p = ParsePreset(absl::GetFlag(FLAGS_preset));
    if (!p.ok()) {
      *error = Usage(absl::StrCat("--", p.status().message()));
      return false;
    }
    o->preset = *p;
  }
  const std::string dtype = absl::GetFlag(FLAGS_dtype);
  if (dtype == "float32") {
    o->dtype = DType::kFloat32;
  } else if (dtype == "float16") {
    o->dtype = DType::kFloat16;
  } else if (dtype == "bfloat16") {
    o->dtype = DType::kBFloat16;
  } else {
    *error = Usage(
        absl::StrCat("--dtype=", dtype, ": not float32, float16 or bfloat16"));
    return false;
  }
  const std::string layout = absl::GetFlag(FLAGS_layout);
  if (layout == "hwc") {
    o->layout = Layout::kHWC;
  } else if (layout == "hwc4") {
    o->layout = Layout::kHWC4;
  } else if (layout == "chw") {
    o->layout = Layout::kCHW;
  } else if (!layout.empty()) {
    *error = Usage(absl::StrCat("--layout=", layout, ": not hwc, hwc4 or chw"));
    return false;
  }
  const std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode == "fast" || mode == "exact") {
    o->mode = mode == "fast" ? Mode::kFast : Mode::kTorchvisionExact;
  } else {
    *error = Usage(absl::StrCat("--mode=", mode, ": not fast or exact"));
    return false;
  }
  o->kernel = absl::GetFlag(FLAGS_kernel);
  return true;
}

// The .npy dtype string and shape of one output image.
std::string NpyDescr(DType d) {
  return d == DType::kFloat32 ? "<f4" : d == DType::kFloat16 ? "<f2" : "<u2";
}

std::vector<int64_t> OutputShape(const FusedNormalization& op, int64_t h,
                                 int64_t w, int c) {
  switch (op.layout()) {
    case Layout::kHWC:
      return {h, w, c};
    case Layout::kHWC4:
      return {h, w, 4};
    case Layout::kCHW:
      return {c, h, w};
  }
  return {};
}

// ---- kernels ----

int Kernels(FILE* out) {
  const absl::StatusOr<const KernelInfo*> active = ActiveKernel();
  std::fprintf(out, "%-16s %-10s %-7s %s\n", "id", "supported", "chosen",
               "needs");
  for (const KernelInfo& k : KernelTable()) {
    std::fprintf(out, "%-16s %-10s %-7s %s\n", k.id,
                 k.supported() ? "yes" : "no",
                 active.ok() && *active == &k ? "*" : "", k.needs);
  }
  if (!active.ok())
    std::fprintf(out, "no default kernel: %s\n",
                 std::string(active.status().message()).c_str());
  std::string targets;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    absl::StrAppend(&targets, targets.empty() ? "" : " ", hwy::TargetName(t));
  }
  std::fprintf(
      out,
      "Highway targets compiled and supported here: %s (highway runs %s)\n",
      targets.c_str(), HighwayActiveTarget());
  return 0;
}

// ---- normalize ----

bool ParsePair(const std::string& flag, double* a, double* b, Failure* error) {
  std::vector<float> v;
  if (!ParseFloats(flag,
                   absl::GetFlag(flag == "erase-scale" ? FLAGS_erase_scale
                                                       : FLAGS_erase_ratio),
                   2, 2, &v, error)) {
    return false;
  }
  *a = v[0];
  *b = v[1];
  return true;
}

int NormalizeCommand(FILE* out, FILE* err) {
  Failure f{0, ""};
  const auto fail = [&](const Failure& x) {
    std::fprintf(err, "fusednorm normalize: %s\n", x.message.c_str());
    return x.code;
  };
  const std::string input = Resolve(absl::GetFlag(FLAGS_input)),
                    output = Resolve(absl::GetFlag(FLAGS_output));
  if (input.empty() || output.empty())
    return fail(Usage("--input and --output are required"));
  FusedNormalizationOptions o;
  if (!ParseNormalization(&o, &f)) return fail(f);
  const std::string flip = absl::GetFlag(FLAGS_flip),
                    erase = absl::GetFlag(FLAGS_erase);
  if (flip != "0" && flip != "1" && flip != "random") {
    return fail(Usage(absl::StrCat("--flip=", flip, ": not 0, 1 or random")));
  }
  o.flip_p = flip == "random" ? absl::GetFlag(FLAGS_flip_p) : 0.0;
  std::optional<EraseRect> explicit_rect;
  if (erase == "random") {
    o.erase.enabled = true;
    o.erase.p = absl::GetFlag(FLAGS_erase_p);
    if (!ParsePair("erase-scale", &o.erase.scale_min, &o.erase.scale_max, &f) ||
        !ParsePair("erase-ratio", &o.erase.ratio_min, &o.erase.ratio_max, &f)) {
      return fail(f);
    }
  } else if (erase != "none") {
    std::vector<int64_t> r;
    for (absl::string_view p : absl::StrSplit(erase, ',')) {
      int64_t v;
      if (!absl::SimpleAtoi(p, &v)) break;
      r.push_back(v);
    }
    if (r.size() != 4)
      return fail(Usage(
          absl::StrCat("--erase=", erase, ": not none, random or I,J,H,W")));
    explicit_rect = EraseRect{r[0], r[1], r[2], r[3]};
  }
  absl::StatusOr<FusedNormalization> op = FusedNormalization::Create(o);
  if (!op.ok()) {
    return fail(op.status().code() == absl::StatusCode::kInvalidArgument
                    ? Usage(std::string(op.status().message()))
                    : Data(op.status()));
  }
  // The input: a uint8 .npy of (H,W,C) or (N,H,W,C), or one PNG/JPEG.
  absl::StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(input);
  if (!bytes.ok()) return fail(Data(bytes.status()));
  std::vector<Image> images;
  bool batched = false;
  if (bytes->size() >= 6 && std::memcmp(bytes->data(), "\x93NUMPY", 6) == 0) {
    absl::StatusOr<NpyArray> a = ParseNpy(*bytes, input);
    if (!a.ok()) return fail(Data(a.status()));
    if (a->descr != "|u1" && a->descr != "<u1" && a->descr != "u1") {
      return fail(Data(absl::InvalidArgumentError(
          absl::StrCat(input, ": dtype ", a->descr, " is not uint8 (|u1)"))));
    }
    if (a->shape.size() != 3 && a->shape.size() != 4) {
      return fail(Data(absl::InvalidArgumentError(absl::StrCat(
          input, ": needs 3 or 4 dimensions, has ", a->shape.size()))));
    }
    batched = a->shape.size() == 4;
    const int64_t n = batched ? a->shape[0] : 1;
    const auto* s = &a->shape[batched ? 1 : 0];
    if (s[2] > 4) {
      return fail(Data(absl::InvalidArgumentError(
          absl::StrCat(input, ": ", s[2], " channels (1..4 supported)"))));
    }
    const size_t each = static_cast<size_t>(s[0] * s[1] * s[2]);
    for (int64_t i = 0; i < n; ++i) {
      images.push_back(
          Image{s[0], s[1], static_cast<int>(s[2]),
                std::vector<uint8_t>(a->data.begin() + i * each,
                                     a->data.begin() + (i + 1) * each)});
    }
  } else {
    absl::StatusOr<Image> img = DecodeImage(*bytes, input);
    if (!img.ok()) return fail(Data(img.status()));
    images.push_back(*std::move(img));
  }
  std::vector<std::vector<uint8_t>> results;
  for (size_t n = 0; n < images.size(); ++n) {
    const Image& img = images[n];
    SampleStream stream(absl::GetFlag(FLAGS_seed), 0, n);
    Augmentation aug = op->Sample(img.height, img.width, stream);
    if (flip != "random") aug.flip = flip == "1";
    if (explicit_rect) aug.erase = *explicit_rect;
    absl::StatusOr<size_t> size =
        op->OutputBytes(img.height, img.width, img.channels);
    if (!size.ok()) return fail(Data(size.status()));
    results.emplace_back(*size);
    const absl::Status s =
        op->Apply(img.view(), aug, OutputView{absl::MakeSpan(results.back())});
    if (!s.ok()) {
      const bool usage =
          explicit_rect && absl::StrContains(s.message(), "erase rectangle");
      return fail(usage ? Usage(absl::StrCat("--erase: ", s.message()))
                        : Data(s));
    }
    if (absl::GetFlag(FLAGS_print_decisions)) {
      std::fprintf(out, "sample %zu: flip=%d erase=", n, aug.flip ? 1 : 0);
      if (aug.erase.empty()) {
        std::fprintf(out, "none\n");
      } else {
        std::fprintf(out, "%lld,%lld,%lld,%lld\n",
                     static_cast<long long>(aug.erase.top),
                     static_cast<long long>(aug.erase.left),
                     static_cast<long long>(aug.erase.height),
                     static_cast<long long>(aug.erase.width));
      }
    }
  }
  std::vector<int64_t> shape =
      OutputShape(*op, images[0].height, images[0].width, images[0].channels);
  if (batched) shape.insert(shape.begin(), static_cast<int64_t>(images.size()));
  std::vector<absl::Span<const uint8_t>> chunks(results.begin(), results.end());
  const absl::Status w = WriteNpy(output, NpyDescr(op->dtype()), shape, chunks);
  if (!w.ok()) return fail(Data(w));
  return 0;
}

// ---- run ----

// The first `n` samples of a dataset.
class Prefix : public Dataset {
 public:
  Prefix(std::shared_ptr<const Dataset> d, size_t n)
      : d_(std::move(d)), n_(n) {}
  std::string name() const override {
    return absl::StrCat(d_->name(), "[:", n_, "]");
  }
  size_t size() const override { return n_; }
  int channels() const override { return d_->channels(); }
  absl::StatusOr<Sample> Get(size_t i) const override { return d_->Get(i); }

 private:
  std::shared_ptr<const Dataset> d_;
  size_t n_;
};

// Value (c, h, w) of one output sample, as float.
float ValueAt(const uint8_t* s, const FusedNormalization& op, int64_t H,
              int64_t W, int C, int c, int64_t h, int64_t w) {
  const int stored = StoredChannels(op.layout(), C);
  const size_t i = op.layout() == Layout::kCHW ? (c * H + h) * W + w
                                               : (h * W + w) * stored + c;
  if (op.dtype() == DType::kFloat32) {
    float f;
    std::memcpy(&f, s + i * 4, 4);
    return f;
  }
  uint16_t b;
  std::memcpy(&b, s + i * 2, 2);
  if (op.dtype() == DType::kBFloat16) {
    const uint32_t u = uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const int e = (b >> 10) & 0x1f, m = b & 0x3ff;
  const float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
                         : std::ldexp(1024.0f + m, e - 25);
  return (b & 0x8000) ? -v : v;
}

int RunCommand(FILE* out, FILE* err) {
  Failure f{0, ""};
  const auto fail = [&](const Failure& x) {
    std::fprintf(err, "fusednorm run: %s\n", x.message.c_str());
    return x.code;
  };
  FusedNormalizationOptions o;
  if (!ParseNormalization(&o, &f)) return fail(f);
  const std::string split_name = absl::GetFlag(FLAGS_split);
  if (split_name != "train" && split_name != "val") {
    return fail(
        Usage(absl::StrCat("--split=", split_name, ": not train or val")));
  }
  const Split split = split_name == "train" ? Split::kTrain : Split::kVal;
  const int64_t size = absl::GetFlag(FLAGS_size),
                images = absl::GetFlag(FLAGS_images),
                batch = absl::GetFlag(FLAGS_batch);
  const int epochs = absl::GetFlag(FLAGS_epochs);
  if (size < 1 || size > 4096)
    return fail(Usage(absl::StrCat("--size=", size, ": must be in 1..4096")));
  if (images < 0)
    return fail(Usage(absl::StrCat("--images=", images, ": must be >= 0")));
  if (batch < 1)
    return fail(Usage(absl::StrCat("--batch=", batch, ": must be >= 1")));
  if (epochs < 1)
    return fail(Usage(absl::StrCat("--epochs=", epochs, ": must be >= 1")));
  absl::StatusOr<std::unique_ptr<Dataset>> opened =
      !Resolve(absl::GetFlag(FLAGS_data)).empty()
          ? OpenImageFolder(Resolve(absl::GetFlag(FLAGS_data)))
          : OpenDataset(absl::GetFlag(FLAGS_dataset),
                        Resolve(absl::GetFlag(FLAGS_path)),
                        split == Split::kVal);
  if (!opened.ok()) {
    return fail(
        absl::StrContains(opened.status().message(), "is not one of")
            ? Usage(absl::StrCat("--dataset: ", opened.status().message()))
            : Data(opened.status()));
  }
  std::shared_ptr<const Dataset> data = std::move(*opened);
  if (images > 0 && static_cast<size_t>(images) < data->size()) {
    data = std::make_shared<Prefix>(data, static_cast<size_t>(images));
  }
  PreprocessorBuilder b;
  b.dataset(data)
      .dtype(o.dtype)
      .mode(o.mode)
      .kernel(o.kernel)
      .batch_size(batch)
      .threads(absl::GetFlag(FLAGS_threads))
      .seed(absl::GetFlag(FLAGS_seed));
  if (o.layout) b.layout(*o.layout);
  if (o.mean.empty()) {
    b.normalization(o.preset);
  } else {
    b.normalization(o.mean, o.std);
  }
  b.train_transforms(RandomResizedCrop(size), RandomHorizontalFlip(),
                     RandomErasing(0.5))
      .val_transforms(Resize(size * 256 / 224), CenterCrop(size));
  absl::StatusOr<Preprocessor> p = b.Commit();
  if (!p.ok()) return fail(Usage(std::string(p.status().message())));
  const bool tty = isatty(fileno(err));
  std::fprintf(out, "dataset %s, %zu images; %s\n", data->name().c_str(),
               data->size(), p->Describe(split).c_str());
  const FusedNormalization& fused = p->fused(split);
  const int C = data->channels();
  std::vector<std::vector<uint8_t>>
      kept;  // batches for --output, first samples for --preview
  const bool keep_all = !Resolve(absl::GetFlag(FLAGS_output)).empty();
  const std::string preview = Resolve(absl::GetFlag(FLAGS_preview));
  std::vector<std::vector<uint8_t>> preview_samples;
  size_t done = 0, skipped = 0;
  const size_t total = p->batches_per_epoch() * epochs;
  EpochLoader::StageSeconds stages;
  const auto start = std::chrono::steady_clock::now();
  auto last_line = start;
  size_t images_done = 0;
  for (int e = 0; e < epochs; ++e) {
    absl::StatusOr<std::unique_ptr<EpochLoader>> loader =
        p->StartEpoch(split, e);
    if (!loader.ok()) return fail(Data(loader.status()));
    for (;;) {
      absl::StatusOr<const Batch*> bt = (*loader)->Next();
      if (!bt.ok()) return fail(Data(bt.status()));
      if (*bt == nullptr) break;
      const Batch& batch_ref = **bt;
      ++done;
      images_done += batch_ref.count;
      skipped += batch_ref.skipped;
      if (keep_all)
        kept.emplace_back(
            batch_ref.data,
            batch_ref.data + batch_ref.count * batch_ref.sample_bytes);
      for (size_t k = 0; k < batch_ref.count && preview_samples.size() < 16 &&
                         !preview.empty();
           ++k) {
        preview_samples.emplace_back(
            batch_ref.data + k * batch_ref.sample_bytes,
            batch_ref.data + (k + 1) * batch_ref.sample_bytes);
      }
      const auto now = std::chrono::steady_clock::now();
      const double secs = std::chrono::duration<double>(now - start).count();
      if (tty) {
        const int bar = static_cast<int>(30.0 * done / total);
        std::fprintf(err, "\r[%s%s] %zu/%zu batches, %.0f images/s",
                     std::string(bar, '=').c_str(),
                     std::string(30 - bar, ' ').c_str(), done, total,
                     images_done / secs);
      } else if (std::chrono::duration<double>(now - last_line).count() >=
                     1.0 ||
                 done == total) {
        std::fprintf(err, "%zu/%zu batches, %.0f images/s\n", done, total,
                     images_done / secs);
        last_line = now;
      }
    }
    const EpochLoader::StageSeconds s = (*loader)->stage_seconds();
    stages.load += s.load;
    stages.transforms += s.transforms;
    stages.fused += s.fused;
  }
  if (tty) std::fprintf(err, "\n");
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const double work = stages.load + stages.transforms + stages.fused;
  std::fprintf(
      out,
      "%zu images in %.2f s: %.0f images/s with %d threads; %zu skipped\n"
      "kernel %s (Highway target %s); worker time: load %.0f%%, transforms "
      "%.0f%%, "
      "fused %.0f%% (%.1f us/image)\n",
      images_done, secs, images_done / secs, p->threads(), skipped,
      fused.kernel_id(C), HighwayActiveTarget(), 100 * stages.load / work,
      100 * stages.transforms / work, 100 * stages.fused / work,
      1e6 * stages.fused / std::max<size_t>(1, images_done));
  const Size2 sz = p->sample_size();
  if (keep_all) {
    std::vector<int64_t> shape = OutputShape(fused, sz.height, sz.width, C);
    shape.insert(shape.begin(), static_cast<int64_t>(images_done));
    std::vector<absl::Span<const uint8_t>> chunks(kept.begin(), kept.end());
    const absl::Status w = WriteNpy(Resolve(absl::GetFlag(FLAGS_output)),
                                    NpyDescr(fused.dtype()), shape, chunks);
    if (!w.ok()) return fail(Data(w));
    std::fprintf(out, "wrote %s\n",
                 Resolve(absl::GetFlag(FLAGS_output)).c_str());
  }
  if (!preview.empty()) {
    // A 4x4 grid, each sample de-normalized: pixel = (y * std + mean) * 255.
    const Normalization& norm = fused.normalization();
    const int64_t H = sz.height, W = sz.width, cols = 4;
    const int64_t rows =
        (static_cast<int64_t>(preview_samples.size()) + cols - 1) / cols;
    Image grid{rows * (H + 2), cols * (W + 2), 3, {}};
    grid.pixels.assign(grid.height * grid.width * 3, 40);
    for (size_t n = 0; n < preview_samples.size(); ++n) {
      const int64_t y0 = (n / cols) * (H + 2) + 1,
                    x0 = (n % cols) * (W + 2) + 1;
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t w = 0; w < W; ++w) {
          for (int c = 0; c < 3; ++c) {
            const int src = C == 1 ? 0 : c;
            const float y =
                ValueAt(preview_samples[n].data(), fused, H, W, C, src, h, w);
            const size_t i = std::min<size_t>(src, norm.mean.size() - 1);
            const float v = (y * norm.std[i] + norm.mean[i]) * 255.0f;
            grid.pixels[((y0 + h) * grid.width + x0 + w) * 3 + c] =
                static_cast<uint8_t>(
                    std::lround(std::min(255.0f, std::max(0.0f, v))));
          }
        }
      }
    }
    absl::StatusOr<std::vector<uint8_t>> png = EncodePng(grid);
    if (!png.ok()) return fail(Data(png.status()));
    const std::string tmp = preview + ".tmp";
    FILE* pf = std::fopen(tmp.c_str(), "wb");
    bool ok = pf != nullptr &&
              std::fwrite(png->data(), 1, png->size(), pf) == png->size();
    if (pf != nullptr) ok = std::fclose(pf) == 0 && ok;
    if (!ok || std::rename(tmp.c_str(), preview.c_str()) != 0) {
      std::remove(tmp.c_str());
      return fail(Data(absl::PermissionDeniedError(
          absl::StrCat(preview, ": cannot write"))));
    }
    std::fprintf(out, "wrote %s (%zu samples)\n", preview.c_str(),
                 preview_samples.size());
  }
  return 0;
}

}  // namespace

int FusednormMain(const std::vector<std::string>& args, FILE* out, FILE* err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
      args[0] == "help") {
    std::fputs(MainHelp().c_str(), args.empty() ? err : out);
    return args.empty() ? 2 : 0;
  }
  const Subcommand* sc = nullptr;
  for (const Subcommand& s : Subcommands()) {
    if (args[0] == s.name) sc = &s;
  }
  if (sc == nullptr) {
    std::fprintf(err, "fusednorm: unknown command \"%s\"\n%s", args[0].c_str(),
                 MainHelp().c_str());
    return 2;
  }
  bool help = false;
  Failure f{0, ""};
  if (!ParseFlags(*sc, std::vector<std::string>(args.begin() + 1, args.end()),
                  &help, &f)) {
    std::fprintf(err, "fusednorm %s: %s\n", sc->name, f.message.c_str());
    return f.code;
  }
  if (help) {
    std::fputs(Help(*sc).c_str(), out);
    return 0;
  }
  const std::string name = sc->name;
  if (name == "kernels") return Kernels(out);
  if (name == "normalize") return NormalizeCommand(out, err);
  return RunCommand(out, err);
}

}  // namespace fusednorm
