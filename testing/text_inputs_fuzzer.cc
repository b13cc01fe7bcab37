// Fuzz target for the text the library parses from users and servers: a
// transform list (--train-transforms, Python's lists), a batch transform
// list, a --data shard spec, and a shard's index (SHARD.fnidx, which a
// remote server hands over as it likes). Each must give a status or a
// value, never a crash, a hang or a read outside the text; and what is
// accepted must hold up:
//
// - every op made prints a name (torchvision's repr) that makes the same
//   op again: the same name, the same decisions for the same stream;
// - an index's samples lie inside the shard's bytes, and its text
//   (ShardIndexText) parses back to the same index;
// - a spec expands to at most 1,000,000 paths, none empty.
//
// The input's first byte picks the parser; the rest is the text.
//
// Built with --config=fuzz this is a libFuzzer target; otherwise main()
// replays inputs made from the grammars' own tokens.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "data/shard_index.h"
#include "data/shards.h"
#include "ops/op_table.h"
#include "rng/philox.h"

namespace fusednorm {
namespace {

long g_runs = 0, g_accepted = 0, g_ops = 0;

[[noreturn]] void Fail(const std::string& what, absl::string_view text) {
  std::fprintf(stderr, "%s\ninput: %s\n", what.c_str(),
               std::string(text).c_str());
  std::abort();
}

// An op's decisions for a few samples of a 57x83 image, as text: two ops
// that draw the same are the same op, whatever their names print.
template <typename Op>
std::string Decisions(const Op& op) {
  SampleStream stream(1, 2, 3);
  std::string s;
  for (int i = 0; i < 4; ++i) {
    for (const NamedArg& f : op.DecisionFields(op.Decide({57, 83}, stream))) {
      absl::StrAppend(&s, f.name, "=", FormatArg(f.value), "; ");
    }
  }
  return s;
}

// Each op's name makes the same op again: the same name, the same
// decisions.
template <typename Ops, typename Make>
void CheckNames(const Ops& ops, Make make, absl::string_view text) {
  for (const auto& op : ops) {
    const std::string name = op->name();
    const auto again = make(name);
    if (!again.ok() || again->size() != 1 || (*again)[0]->name() != name ||
        Decisions(*(*again)[0]) != Decisions(*op)) {
      Fail(absl::StrCat("the name ", name, " does not make the same op: ",
                        again.ok()
                            ? (again->empty() ? "no op" : (*again)[0]->name())
                            : again.status().ToString()),
           text);
    }
  }
}

// A list made by `make` (MakeTransforms or MakeBatchTransforms).
template <typename Make>
void List(absl::string_view text, Make make) {
  const auto ops = make(text);
  if (!ops.ok()) return;
  ++g_accepted;
  g_ops += ops->size();
  CheckNames(*ops, make, text);
}

void Spec(absl::string_view text) {
  const auto paths = ExpandShardSpec(std::string(text));
  if (!paths.ok()) return;
  ++g_accepted;
  if (paths->size() > 1000000) Fail("more than 1,000,000 paths", text);
  for (const std::string& p : *paths) {
    if (p.empty()) Fail("an empty path", text);
  }
}

void Index(absl::string_view text) {
  const auto index = ParseShardIndex(text, "fuzz.fnidx");
  if (!index.ok()) return;
  ++g_accepted;
  for (const ShardEntry& e : index->samples) {
    if (e.offset > index->bytes || e.size > index->bytes - e.offset)
      Fail("a sample outside the shard", text);
  }
  const std::string again = ShardIndexText(*index);
  const auto parsed = ParseShardIndex(again, "again.fnidx");
  if (!parsed.ok()) Fail("its text does not parse: " + again, text);
  if (!FirstDifference(*index, *parsed).empty() ||
      ShardIndexText(*parsed) != again) {
    Fail("its text parses to another index: " + again, text);
  }
}

void RunOne(const uint8_t* data, size_t size) {
  if (size == 0) return;
  ++g_runs;
  const absl::string_view text(reinterpret_cast<const char*>(data + 1),
                               size - 1);
  switch (data[0] % 4) {
    case 0:
      return List(text, [](absl::string_view t) {
        return MakeTransforms(t, "fuzz", OpContext());
      });
    case 1:
      return List(text, [](absl::string_view t) {
        return MakeBatchTransforms(t, "fuzz", OpContext());
      });
    case 2:
      return Spec(text);
    default:
      return Index(text);
  }
}

}  // namespace
}  // namespace fusednorm

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fusednorm::RunOne(data, size);
  return 0;
}

#ifndef FUSEDNORM_LIBFUZZER
namespace {

// The grammars' tokens: op names, their parameters, values at and past
// their edges, and punctuation; an index's words and numbers.
const char* const kOps[] = {"RandomResizedCrop",
                            "Resize",
                            "CenterCrop",
                            "RandomHorizontalFlip",
                            "RandomVerticalFlip",
                            "RandomErasing",
                            "ColorJitter",
                            "Grayscale",
                            "RandomGrayscale",
                            "Normalize",
                            "ToTensor",
                            "PILToTensor",
                            "ToImage",
                            "ToDtype",
                            "ConvertImageDtype",
                            "TrivialAugmentWide",
                            "RandAugment",
                            "AutoAugment",
                            "RandomRotation",
                            "RandomAffine",
                            "RandomSolarize",
                            "RandomPosterize",
                            "RandomInvert",
                            "RandomEqualize",
                            "RandomAutocontrast",
                            "RandomAdjustSharpness",
                            "MixUp",
                            "CutMix",
                            "RandomChoice",
                            "RandomApply",
                            "RandomOrder",
                            "T.Resize",
                            "transforms.CenterCrop",
                            "Bogus"};
const char* const kValues[] = {"0",
                               "1",
                               "-1",
                               "0.5",
                               "1.5",
                               "224",
                               "176",
                               "1e9",
                               "1e300",
                               "-0.0",
                               "nan",
                               "inf",
                               "-inf",
                               "2147483648",
                               "9223372036854775807",
                               "18446744073709551616",
                               "0.08",
                               "(0.08, 1.0)",
                               "(3/4, 4/3)",
                               "(1, 2)",
                               "(2, 1)",
                               "[0.485, 0.456, 0.406]",
                               "[]",
                               "()",
                               "(,)",
                               "None",
                               "True",
                               "False",
                               "bilinear",
                               "bicubic",
                               "nearest",
                               "'random'",
                               "\"x\"",
                               "p=",
                               "size=",
                               "scale=",
                               "ratio=",
                               "value=",
                               "hue=",
                               "alpha=",
                               "max_size=",
                               "interpolation=",
                               "num_classes=",
                               "antialias=",
                               "transforms=",
                               "0.5]",
                               "((((((((",
                               "))))",
                               "-",
                               "e",
                               "'",
                               "\\",
                               "\xc3\xa9",
                               "\xff"};
const char* const kPunct[] = {"(", ")", ", ", ",",  "[",  "]",
                              " ", "=", ".",  "\n", "\t", ""};

// Calls every op accepts, whose numbers the replay replaces: per-sample
// transforms, then batch transforms.
const char* const kCalls[] = {
    "RandomResizedCrop(176)",
    "RandomResizedCrop(size=(224, 192), scale=(0.08, 1.0), ratio=(0.75, "
    "1.3333333333333333), interpolation=bicubic, antialias=True)",
    "Resize(232)",
    "Resize((256, 300))",
    "Resize(224, max_size=300)",
    "CenterCrop(224)",
    "CenterCrop((30, 40))",
    "RandomHorizontalFlip(0.5)",
    "RandomVerticalFlip(p=0.25)",
    "RandomErasing(0.1)",
    "RandomErasing(p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0)",
    "RandomErasing(value=(0.1, 0.2, 0.3))",
    "ColorJitter(0.4, 0.4, 0.4, 0.1)",
    "ColorJitter(brightness=(0.5, 1.5), hue=(-0.1, 0.2))",
    "Grayscale(3)",
    "RandomGrayscale(0.2)",
    "Normalize([0.485, 0.456, 0.406], [0.229, "
    "0.224, 0.225])",
    "TrivialAugmentWide(31)",
    "RandAugment(2, 9, 31)",
    "AutoAugment()",
    "RandomRotation(30)",
    "RandomAffine(10, (0.1, 0.2), "
    "(0.9, 1.1), 5)",
    "RandomSolarize(128, 0.5)",
    "RandomPosterize(4, 0.5)",
    "RandomAdjustSharpness(2, 0.5)",
    "ToTensor()"};
const char* const kBatchCalls[] = {
    "MixUp(0.2, 1000)", "CutMix(alpha=1.0)",
    "RandomChoice([MixUp(0.2), CutMix(1.0)], p=[0.5, 0.5])",
    "RandomChoice([CutMix(), MixUp(alpha=0.8)])"};

std::string Pick(std::mt19937& gen, const char* const* a, size_t n) {
  return a[gen() % n];
}

// A call of kCalls or kBatchCalls with one of its numbers replaced by a
// value of kValues (one time in two).
std::string Mutated(std::mt19937& gen, bool batch) {
  std::string s = batch ? Pick(gen, kBatchCalls, std::size(kBatchCalls))
                        : Pick(gen, kCalls, std::size(kCalls));
  std::vector<std::pair<size_t, size_t>> numbers;  // (start, length)
  for (size_t i = 0; i < s.size();) {
    const size_t j = s.find_first_of("0123456789", i);
    if (j == std::string::npos) break;
    size_t k = j;
    while (k < s.size() &&
           (std::isdigit(static_cast<unsigned char>(s[k])) || s[k] == '.'))
      ++k;
    numbers.push_back({j, k - j});
    i = k;
  }
  if (!numbers.empty() && gen() % 2 != 0) {
    const auto [at, n] = numbers[gen() % numbers.size()];
    s.replace(at, n, Pick(gen, kValues, std::size(kValues)));
  }
  return s;
}

std::string TransformText(std::mt19937& gen, bool batch) {
  std::string s;
  const int ops = gen() % 4;
  for (int i = 0; i < ops; ++i) {
    if (i > 0) s += gen() % 8 ? ", " : Pick(gen, kPunct, 12);
    if (gen() % 4 != 0) {
      s += Mutated(gen, batch);
      continue;
    }
    s += batch && gen() % 2 ? (gen() % 2 ? "MixUp" : "CutMix")
                            : Pick(gen, kOps, std::size(kOps));
    if (gen() % 10 == 0) continue;  // a name without arguments
    s += "(";
    const int args = gen() % 4;
    for (int a = 0; a < args; ++a) {
      if (a > 0) s += ", ";
      s += Pick(gen, kValues, std::size(kValues));
      if (gen() % 3 == 0) s += Pick(gen, kValues, std::size(kValues));
    }
    if (gen() % 12 != 0) s += ")";
  }
  return s;
}

std::string SpecText(std::mt19937& gen) {
  const char* const parts[] = {"a",
                               "b-",
                               "{",
                               "}",
                               "..",
                               "0",
                               "9",
                               "000",
                               "999999",
                               "99999999999999999999",
                               ",",
                               ".tar",
                               "/",
                               "http://h/",
                               "s3://b/",
                               "-1",
                               " ",
                               "{0..2}",
                               "{00..10}",
                               "{5..1}",
                               "{18446744073709551615..18446744073709551615}"};
  std::string s;
  const int n = 1 + gen() % 8;
  for (int i = 0; i < n; ++i) s += Pick(gen, parts, std::size(parts));
  return s;
}

std::string IndexText(std::mt19937& gen) {
  const char* const numbers[] = {
      "0",   "1", "512", "1536", "4321", "10240", "-1", "18446744073709551615",
      "9e9", "x", "3",   "2",    "007"};
  std::string s = gen() % 8 ? "fusednorm-shard-index 1\n" : "fusednorm 2\n";
  const int samples = gen() % 4;
  s += absl::StrCat("bytes ", Pick(gen, numbers, std::size(numbers)),
                    " mtime_ns ", Pick(gen, numbers, std::size(numbers)),
                    " digest ", gen() % 2 ? "-" : "02d766b1b7edef52",
                    " channels ", gen() % 6, " samples ",
                    gen() % 5 ? samples : samples + 1, "\n");
  const char* const kinds[] = {"image", "npy", "link", "other"};
  for (int i = 0; i < samples; ++i) {
    s += absl::StrCat(Pick(gen, numbers, std::size(numbers)), " ",
                      Pick(gen, numbers, std::size(numbers)), " ",
                      kinds[gen() % 4], " ", gen() % 3 ? "7" : "-1", " key", i,
                      gen() % 4 ? "" : "%2", gen() % 6 ? "" : " why%20", "\n");
  }
  if (gen() % 6 == 0) s.resize(gen() % (s.size() + 1));  // cut anywhere
  return s;
}

}  // namespace

// Replays inputs made from the tokens above: `text_inputs_fuzzer
// [iterations]` (default 20000).
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 20000;
  std::mt19937 gen(23);
  for (long i = 0; i < iterations; ++i) {
    const int mode = static_cast<int>(i % 4);
    std::string text;
    if (mode <= 1) text = TransformText(gen, mode == 1);
    if (mode == 2) text = SpecText(gen);
    if (mode == 3) text = IndexText(gen);
    if (gen() % 10 == 0 && !text.empty()) {  // a bit flipped
      text[gen() % text.size()] ^= static_cast<char>(1 << gen() % 8);
    }
    const std::string input = std::string(1, static_cast<char>(mode)) + text;
    fusednorm::RunOne(reinterpret_cast<const uint8_t*>(input.data()),
                      input.size());
  }
  std::printf("replayed %ld inputs: %ld accepted, %ld ops made\n",
              fusednorm::g_runs, fusednorm::g_accepted, fusednorm::g_ops);
  // A replay where nothing is accepted checks only the errors.
  return fusednorm::g_accepted < iterations / 20 ? 1 : 0;
}
#endif
