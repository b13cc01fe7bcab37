// The fusednorm program in-process: outputs against the reference, exit
// statuses and messages for bad flags and bad files, no partial outputs.
#include "tools/cli.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "codecs/codec.h"
#include "codecs/encode.h"
#include "codecs/npy.h"
#include "gtest/gtest.h"
#include "ops/presets.h"
#include "testing/reference.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

struct Result {
  int code;
  std::string out, err;
};

std::string Slurp(FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

Result Cli(std::vector<std::string> args) {
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  const int code = FusednormMain(args, out, err);
  return {code, Slurp(out), Slurp(err)};
}

std::string Dir() {
  static const std::string d = MakeTempDir("fusednorm_cli");
  return d;
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), bytes.size());
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// A uint8 (N,H,W,C) .npy with random bytes; returns the pixels.
std::vector<uint8_t> WriteInput(const std::string& path, int n, int h, int w,
                                int c) {
  std::vector<uint8_t> px(n * h * w * c);
  std::mt19937 gen(n * 100 + h);
  for (auto& v : px) v = static_cast<uint8_t>(gen());
  Write(path,
        NpyHeader("|u1", {n, h, w, c}) + std::string(px.begin(), px.end()));
  return px;
}

TEST(Cli, KernelsAndHelp) {
  const Result k = Cli({"kernels"});
  EXPECT_EQ(k.code, 0);
  EXPECT_NE(k.out.find("scalar_eigen"), std::string::npos);
  EXPECT_NE(k.out.find("default kernel: highway ("), std::string::npos)
      << k.out;
  EXPECT_NE(k.out.find("colour kernels (forced with FUSEDNORM_COLOR_KERNEL)"),
            std::string::npos)
      << k.out;
  EXPECT_NE(
      k.out.find("augment kernels (forced with FUSEDNORM_AUGMENT_KERNEL)"),
      std::string::npos)
      << k.out;
  for (const char* cmd : {"run", "normalize", "kernels"}) {
    const Result h = Cli({cmd, "--help"});
    EXPECT_EQ(h.code, 0) << cmd;
    EXPECT_NE(h.out.find(std::string("usage: fusednorm ") + cmd),
              std::string::npos);
  }
  EXPECT_EQ(Cli({}).code, 2);
  EXPECT_EQ(Cli({"frobnicate"}).code, 2);
}

// normalize's .npy output, read back by hand (header text and raw values),
// equals the independent reference for the same decisions.
TEST(Cli, NormalizeMatchesTheReference) {
  const std::string in = Dir() + "/in.npy", out = Dir() + "/out.npy";
  const std::vector<uint8_t> px = WriteInput(in, 2, 5, 7, 3);
  const Result r = Cli({"normalize", "--input", in, "--output=" + out,
                        "--dtype=float16", "--layout=chw", "--mode=exact",
                        "--flip=1", "--erase=1,2,3,4", "--print-decisions"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sample 1: flip=1 erase=1,2,3,4"), std::string::npos)
      << r.out;
  const std::string bytes = ReadAll(out);
  const std::string header = NpyHeader("<f2", {2, 3, 5, 7});
  ASSERT_EQ(bytes.substr(0, header.size()), header);
  EXPECT_NE(header.find("'shape': (2, 3, 5, 7)"), std::string::npos);
  const Normalization n = PresetNormalization(Preset::kImagenet);
  for (int s = 0; s < 2; ++s) {
    testing_ref::RefInput ref;
    ref.pixels = px.data() + s * 5 * 7 * 3;
    ref.height = 5;
    ref.width = 7;
    ref.channels = 3;
    ref.row_stride = 21;
    ref.mean = n.mean;
    ref.std = n.std;
    ref.flip = true;
    ref.erase = {1, 2, 3, 4};
    const std::vector<uint8_t> expected = testing_ref::Encode(
        testing_ref::TorchvisionFloat(ref), DType::kFloat16, Layout::kCHW);
    EXPECT_EQ(
        bytes.substr(header.size() + s * expected.size(), expected.size()),
        std::string(expected.begin(), expected.end()))
        << "sample " << s;
  }
}

TEST(Cli, NormalizeRandomDecisionsAndImageInput) {
  const std::string in = Dir() + "/in2.npy", out = Dir() + "/out2.npy";
  WriteInput(in, 1, 30, 40, 1);  // (1,30,40,1) with a leading N
  Result r =
      Cli({"normalize", "--input=" + in, "--output=" + out, "--preset=mnist",
           "--erase=random", "--erase-p=1", "--seed=4", "--print-decisions"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("erase=none"), std::string::npos) << r.out;
  EXPECT_NE(ReadAll(out).find("'shape': (1, 30, 40, 1)"), std::string::npos);
  // A PNG input gives (H,W,C) without N; float32 defaults to hwc.
  Image img{6, 9, 3, std::vector<uint8_t>(6 * 9 * 3, 100)};
  const std::vector<uint8_t> png = *EncodePng(img);
  Write(Dir() + "/img.png", std::string(png.begin(), png.end()));
  r = Cli({"normalize", "--input=" + Dir() + "/img.png", "--output=" + out,
           "--flip=0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(ReadAll(out).find(
                "'descr': '<f4', 'fortran_order': False, 'shape': (6, 9, 3)"),
            std::string::npos);
}

TEST(Cli, NormalizeFlagErrorsNameTheFlagAndLeaveNoFile) {
  const std::string in = Dir() + "/in3.npy", out = Dir() + "/never.npy";
  WriteInput(in, 1, 4, 4, 3);
  struct Case {
    std::vector<std::string> extra;
    int code;
    const char* needle;
  };
  const Case cases[] = {
      {{"--dtype=float64"}, 2, "--dtype \"float64\" is not one of float32"},
      {{"--layout=nhwc"}, 2, "--layout \"nhwc\" is not one of hwc, hwc4"},
      {{"--mode=slow"}, 2, "--mode \"slow\" is not one of fast, exact"},
      {{"--flip=maybe"}, 2, "--flip=maybe"},
      {{"--erase=1,2,3"}, 2, "--erase=1,2,3"},
      {{"--erase=3,3,5,5"}, 2, "erase rectangle"},
      {{"--mean=0.5,x", "--std=1,1"}, 2, "\"x\" is not a finite number"},
      {{"--mean=0.5"}, 2, "--mean and --std go together"},
      {{"--preset=coco"}, 2, "coco"},
      {{"--erase-p=2", "--erase=random"}, 2, "--erase-p=2: must be in 0..1"},
      {{"--erase-p=0.5"}, 2, "--erase-p=0.5: is for --erase random only"},
      {{"--erase-ratio=1,2", "--erase=1,1,2,2"},
       2,
       "--erase-ratio=1,2: is for --erase random only"},
      {{"--size=100000"}, 2, "--size=100000: output size 100000x100000 must"},
      {{"--erase-scale=0.1", "--erase=random"}, 2, "--erase-scale=0.1"},
      {{"--erase-scale=0.5,0.1", "--erase=random"},
       2,
       "--erase-scale=0.5,0.1: the first value (the minimum) exceeds"},
      {{"--erase-ratio=0,1", "--erase=random"},
       2,
       "--erase-ratio=0,1: each value must be > 0"},
      {{"--kernel=nope"}, 2, "kernel \"nope\" is not a known kernel id"},
      {{"--frobnicate=1"}, 2, "unknown flag --frobnicate"},
      {{"--data=x"}, 2, "unknown flag --data"},  // a flag of `run`
      {{"--preset=mnist"}, 1, "does not match the normalization's 1 channels"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"normalize", "--input=" + in,
                                     "--output=" + out};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const Result r = Cli(args);
    EXPECT_EQ(r.code, c.code) << c.needle << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_FALSE(Exists(out)) << c.needle;
  }
}

TEST(Cli, NormalizeFileErrorsNameTheFileAndLeaveNoFile) {
  const std::string out = Dir() + "/never.npy";
  // Bad files: data errors (exit 1) naming the file.
  const std::string bad = Dir() + "/bad.npy";
  const std::vector<std::pair<std::string, const char*>> files = {
      {NpyHeader("<f4", {2, 2, 3}) + std::string(48, '\0'),
       "dtype <f4 is not uint8"},
      {"{'descr': '|u1'}", "neither a JPEG, a PNG nor a .npy"},
      {std::string(NpyHeader("|u1", {2, 2, 3}))
               .replace(NpyHeader("|u1", {2, 2, 3}).find("False"), 5, "True ") +
           std::string(12, '\0'),
       "Fortran-order"},
      {NpyHeader("|u1", {100000000, 100000000, 3}), "outside 1..16777216"},
      {NpyHeader("|u1", {2, 2, 3}) + std::string(11, '\0'),
       "needs 12 data bytes but the file has 11"},
      {NpyHeader("|u1", {2, 2, 9}) + std::string(36, '\0'), "9 channels"},
      {NpyHeader("|u1", {4, 3}) + std::string(12, '\0'),
       "needs 3 or 4 dimensions"},
  };
  for (const auto& [content, needle] : files) {
    Write(bad, content);
    const Result r = Cli({"normalize", "--input=" + bad, "--output=" + out});
    EXPECT_EQ(r.code, 1) << needle << ": " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("bad.npy"), std::string::npos) << r.err;
    EXPECT_FALSE(Exists(out));
  }
  Write(bad, "not an image at all");
  Result r = Cli({"normalize", "--input=" + bad, "--output=" + out});
  EXPECT_EQ(r.code, 1);
  r = Cli(
      {"normalize", "--input=" + Dir() + "/missing.npy", "--output=" + out});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("missing.npy"), std::string::npos);
  EXPECT_FALSE(Exists(out));
}

TEST(Cli, RunWritesBatchesAndPreview) {
  const std::string out = Dir() + "/run.npy", preview = Dir() + "/preview.png";
  const Result r =
      Cli({"run", "--images=10", "--batch-size=4", "--size=32", "--threads=2",
           "--output=" + out, "--preview=" + preview, "--dtype=bfloat16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("10 images in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kernel "), std::string::npos);
  const std::string npy = ReadAll(out);
  EXPECT_EQ(npy.size(),
            NpyHeader("<u2", {10, 32, 32, 4}).size() + 10u * 32 * 32 * 4 * 2);
  EXPECT_NE(npy.find("'shape': (10, 32, 32, 4)"), std::string::npos);
  const std::string png = ReadAll(preview);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  const absl::StatusOr<Image> decoded =
      DecodeWhole(absl::MakeConstSpan(
                      reinterpret_cast<const uint8_t*>(png.data()), png.size()),
                  "preview");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->width, 4 * 34);
  EXPECT_EQ(decoded->height, 3 * 34);  // 10 samples: 3 rows of 4
}

// An image folder of `good` 40x30 PNGs in class a/ and one corrupt JPEG.
std::string FolderWithABadFile(int good) {
  const std::string root = Dir() + "/folder";
  mkdir(root.c_str(), 0755);
  mkdir((root + "/a").c_str(), 0755);
  Image img{30, 40, 3, std::vector<uint8_t>(30 * 40 * 3, 77)};
  const std::vector<uint8_t> png = *EncodePng(img);
  for (int i = 0; i < good; ++i) {
    Write(root + "/a/" + std::to_string(i) + ".png",
          std::string(png.begin(), png.end()));
  }
  Write(root + "/a/broken.jpg", "\xff\xd8\xff not really a JPEG");
  return root;
}

TEST(Cli, SkippedSamplesPastAThousandAreCountedNotListed) {
  // Each listed reason is kept to the end of the run: a broken shard
  // skipped every epoch grew the report without end.
  const std::string root = Dir() + "/many_bad";
  mkdir(root.c_str(), 0755);
  mkdir((root + "/a").c_str(), 0755);
  for (int i = 0; i < 1003; ++i)
    Write(root + "/a/" + std::to_string(i) + ".jpg", "\xff\xd8\xff no");
  const Result r = Cli({"run", "--data=" + root, "--batch-size=256", "--size=8",
                        "--on-error=skip", "--epochs=2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2006 skipped"), std::string::npos) << r.out;
  size_t listed = 0;
  for (size_t at = r.out.find("\nskipped sample "); at != std::string::npos;
       at = r.out.find("\nskipped sample ", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, 1000u);
  EXPECT_NE(r.out.find("\nskipped 1006 more samples, not listed (the first "
                       "1000 are)\n"),
            std::string::npos)
      << r.out.substr(r.out.size() - 300);
}

TEST(Cli, RunOnErrorFailsOrSkipsAndListsTheFile) {
  const std::string root = FolderWithABadFile(5);
  const std::vector<std::string> base = {
      "run", "--data=" + root, "--batch-size=4", "--size=16", "--threads=2"};
  std::vector<std::string> args = base;
  Result r = Cli(args);  // --on-error=fail is the default
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.err.find("broken.jpg"), std::string::npos) << r.err;
  args.push_back("--on-error=skip");
  r = Cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("6 images in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 skipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nskipped sample 5 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(root + "/a/broken.jpg): not a readable JPEG"),
            std::string::npos)
      << r.out;
  args.back() = "--on-error=ignore";
  r = Cli(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--on-error \"ignore\" is not one of fail, skip"),
            std::string::npos)
      << r.err;
}

// The report says how much of the JPEGs' pixels were decoded: the training
// crops' windows with or without an images limit or a rank, whole images
// for the val split's Resize.
TEST(Cli, RunReportsTheDecodedShareOfTheJpegs) {
  const std::string root = Dir() + "/jpegs";
  mkdir(root.c_str(), 0755);
  mkdir((root + "/a").c_str(), 0755);
  Image img{256, 320, 3, std::vector<uint8_t>(256 * 320 * 3)};
  for (size_t i = 0; i < img.pixels.size(); ++i) {
    img.pixels[i] = static_cast<uint8_t>((i * 7) ^ (i / 961));
  }
  const std::vector<uint8_t> jpg = *EncodeJpeg(img, 90);
  for (int i = 0; i < 40; ++i) {
    Write(root + "/a/" + std::to_string(i) + ".jpg",
          std::string(jpg.begin(), jpg.end()));
  }
  const auto share = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--data=" + root, "--size=32",
                                     "--batch-size=8", "--threads=2"};
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = Cli(args);
    EXPECT_EQ(r.code, 0) << r.err;
    const size_t at = r.out.find("decoded ");
    EXPECT_NE(at, std::string::npos) << r.out;
    return at == std::string::npos ? -1 : std::atoi(r.out.c_str() + at + 8);
  };
  for (const auto& extra : std::vector<std::vector<std::string>>{
           {},
           {"--images=39"},
           {"--rank=1", "--world-size=2"},
           {"--images=39", "--on-error=skip"}}) {
    const int percent = share(extra);
    EXPECT_GT(percent, 0);
    EXPECT_LT(percent, 80) << "crop windows, not whole images";
  }
  EXPECT_EQ(share({"--split=val"}), 100);
}

TEST(Cli, RunErrors) {
  EXPECT_EQ(Cli({"run", "--split=test"}).code, 2);
  EXPECT_EQ(Cli({"run", "--dataset=imagenet21k"}).code, 2);
  EXPECT_EQ(Cli({"run", "--batch-size=0"}).code, 2);
  EXPECT_EQ(Cli({"run", "--batch-size=abc"}).code, 2);
  EXPECT_EQ(Cli({"run", "--size=0"}).code, 2);
  EXPECT_EQ(Cli({"run", "--epochs=0"}).code, 2);
  EXPECT_EQ(Cli({"run", "--mean=1,1", "--std=1,1"}).code,
            2);  // 2 != 3 channels
  const Result r = Cli({"run", "--data=/nonexistent/dir"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("/nonexistent/dir"), std::string::npos);
  const Result m = Cli({"run", "--dataset=mnist", "--path=/nonexistent"});
  EXPECT_EQ(m.code, 1);
  EXPECT_NE(m.err.find("train-images-idx3-ubyte"), std::string::npos);
}

// The transform lists: run --help lists every op with its defaults; a
// list runs; its errors are usage errors naming the flag, the position and
// the op.
struct UsageCase {
  std::vector<std::string> args;
  std::string message;
};

// `run`'s flags that are usage errors (exit 2), and what each says.
std::vector<UsageCase> BadRunFlags() {
  return {
      {{"--train-transforms=RandomResizedCrop(40), ColorJitter(hue=2)"},
       "--train-transforms position 1 (ColorJitter): ColorJitter hue = 2"},
      {{"--train-transforms=RandomResizedCrop(40"},
       "--train-transforms: character 21 (in RandomResizedCrop, position 0)"},
      {{"--val-transforms=CenterCrop(8), Frobnicate()"},
       "--val-transforms position 1 (Frobnicate): Frobnicate is not a "
       "per-sample transform"},
      {{"--train-transforms=RandomErasing(), CenterCrop(8)"},
       "--train-transforms position 1 (CenterCrop(size=(8, 8))): after "
       "RandomErasing"},
      // Settings named by their flags, a default list as the default.
      {{"--batch-transforms=MixUp(0.2)"},
       "--batch-transforms: MixUp(alpha=0.2, num_classes=None) mixes labels "
       "into soft targets: set --num-classes"},
      {{"--label-smoothing=0.1"},
       "--label-smoothing = 0.1 smooths soft targets: set --num-classes"},
      // The synthetic data's labels are index % 10, known before reading.
      {{"--num-classes=5"},
       "--num-classes = 5 but synthetic(1024) has labels up to 9: soft "
       "targets need --num-classes >= 10"},
      {{"--kernel=nope"}, "--kernel=nope: kernel \"nope\" is not a known"},
      {{"--mean=0.5,0.5", "--std=0.2"},
       "the default train list (--train-transforms not given): the "
       "normalization's mean [0.5, 0.5] has 2 values"},
      {{"--dataset=mnist"},
       "--dataset mnist reads its files from --path, which is not given"},
      {{"--data=/tmp", "--cache-dir=/tmp/c"},
       "--cache-dir \"/tmp/c\": only remote shards"},
      // A list or pattern that names no shard well: a usage error, as in
      // `index` (it was a data error, exit 1).
      {{"--data=/tmp/a{3..1}.tar"}, "is not PREFIX{LO..HI}SUFFIX"},
      // A URL of a scheme that is not read is not looked for as a path.
      {{"--data=file:///tmp/x.tar"},
       "--data \"file:///tmp/x.tar\": file:// is not read; data is a local "
       "path (without file://)"},
      {{"--data=/tmp/a.tar,FTP://h/b.tar"}, "--data \"FTP://h/b.tar\": FTP://"},
      {{"--data=/tmp/x.tar,/tmp/x.tar"}, "\"/tmp/x.tar\" is listed twice"},
      // Data settings that would do nothing.
      {{"--path=/tmp"}, "--path \"/tmp\": --dataset synthetic reads no files"},
      {{"--data=/tmp", "--path=/tmp"},
       "--path \"/tmp\": --data is read instead"},
      {{"--cache-bytes=1M"},
       "--cache-bytes bounds --cache-dir, which is not given"},
      {{"--data=/tmp", "--cache-bytes=0"},
       "--cache-bytes bounds --cache-dir, which is not given"},
      {{"--train-transforms=Resize(32)"},
       "--train-transforms: no transform fixes the output size (end the list "
       "with a crop or an exact Resize)"},
      {{"--train-transforms=RandomHorizontalFlip()"},
       "--train-transforms: no transform fixes the output size (end the list "
       "with a crop or an exact Resize)"},
      {{"--train-transforms= "},
       "--train-transforms is an empty list: name at least one transform"},
      {{"--num-classes=-1"}, "--num-classes=-1: must be in 0..16777216"},
      // A bad list is reported before missing data is looked for.
      {{"--data=/nonexistent/fusednorm-data",
        "--train-transforms=ColorJitter(hue=0.6), RandomResizedCrop(8)"},
       "--train-transforms position 0 (ColorJitter): ColorJitter hue = 0.6"},
      {{"--repeated-augmentations=2", "--images=100"}, "RASampler keeps"},
      // A number of hundreds of digits is shown by its first 40.
      {{"--batch-size=" + std::string(300, '9')},
       "--batch-size=" + std::string(40, '9') + "...: must be in 1..16777216"},
  };
}

// Runs `command` with each case's flags: exit 2 and its message.
void ExpectUsageErrors(const std::string& command,
                       const std::vector<UsageCase>& cases) {
  for (const UsageCase& b : cases) {
    std::vector<std::string> args = {command};
    args.insert(args.end(), b.args.begin(), b.args.end());
    const Result r = Cli(args);
    EXPECT_EQ(r.code, 2) << b.message << ": " << r.err;
    EXPECT_NE(r.err.find(b.message), std::string::npos) << r.err;
  }
}

TEST(Cli, TransformLists) {
  const Result h = Cli({"run", "--help"});
  EXPECT_NE(h.out.find("--train-transforms"), std::string::npos);
  for (const char* shown :
       {"RandomResizedCrop(size, scale=(0.08, 1.0), ratio=(0.75, "
        "1.3333333333333333), interpolation=bilinear, antialias=True)",
        "ColorJitter(brightness=0, contrast=0, saturation=0, hue=0)",
        "MixUp(alpha=1.0, num_classes=None, labels_getter='default')",
        "RandomChoice(transforms, p=None)"}) {
    EXPECT_NE(h.out.find(shown), std::string::npos) << shown;
  }
  const Result ok =
      Cli({"run", "--images=16", "--batch-size=8",
           "--train-transforms=RandomResizedCrop(40), RandomHorizontalFlip(), "
           "ColorJitter(0.4, 0.4, 0.4, 0.1), RandomErasing(0.1)",
           "--batch-transforms=RandomChoice([MixUp(0.2), CutMix(1.0)])",
           "--num-classes=10", "--label-smoothing=0.1"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("ColorJitter(brightness=(0.6, 1.4)"), std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("=> RandomChoice("), std::string::npos) << ok.out;
  ExpectUsageErrors("run", BadRunFlags());
}

// --pinned was a bool and is a choice: the bool spellings still work.
TEST(Cli, PinnedSpellings) {
  const std::vector<std::string> run = {"run", "--images=8", "--batch-size=4",
                                        "--size=16", "--threads=1"};
  for (const char* mlock : {"--pinned", "--pinned=true", "--pinned=mlock"}) {
    std::vector<std::string> args = run;
    args.insert(args.begin() + 1, mlock);  // bare, before another flag
    const Result r = Cli(args);
    // mlock works, or the locked-memory limit refuses it: never ignored.
    EXPECT_TRUE(r.code == 0 || r.err.find("mlock") != std::string::npos)
        << mlock << ": " << r.err;
  }
  for (const char* none : {"--pinned=false", "--pinned=none"}) {
    std::vector<std::string> args = run;
    args.push_back(none);
    EXPECT_EQ(Cli(args).code, 0) << none;
  }
  const Result bad = Cli({"run", "--pinned=yes"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--pinned \"yes\" is not one of none, mlock, cuda"),
            std::string::npos)
      << bad.err;
  const Result help = Cli({"run", "--help"});
  EXPECT_NE(help.out.find("--pinned none|mlock|cuda (default none) (also "
                          "false = none, true = mlock)"),
            std::string::npos);
  EXPECT_NE(help.out.find("--cuda-device"), std::string::npos);
}

}  // namespace
}  // namespace fusednorm
