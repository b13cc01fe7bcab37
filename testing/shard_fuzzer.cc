// Fuzz target for WebDataset shards: the input is one shard file. Opening it
// (the tar parser, grouping, .cls and .npy headers) and reading every sample
// (decoding) must give a status, never a crash or a read outside the file.
//
// Built with --config=fuzz this is a libFuzzer target; otherwise main()
// replays mutations of a valid shard (tar_test.cc covers the parser's rules).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "codecs/encode.h"
#include "codecs/npy.h"
#include "data/shards.h"
#include "data/tar.h"

namespace fusednorm {
namespace {

long g_opened = 0, g_samples = 0;

// Opens `data` as a shard (an in-memory file) and reads every sample.
void RunOne(const uint8_t* data, size_t size) {
  const int fd = memfd_create("shard", 0);
  if (fd < 0) std::abort();
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size))
    std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  absl::StatusOr<std::unique_ptr<Dataset>> shards = OpenShards({path});
  if (shards.ok()) {
    ++g_opened;
    for (size_t i = 0; i < (*shards)->size(); ++i) {
      g_samples += DecodeSample(**shards, i).ok();
    }
  }
  close(fd);
}

// A valid shard: a JPEG, a PNG and an .npy sample with labels.
std::string Seed() {
  Image img{6, 5, 3, std::vector<uint8_t>(90)};
  for (size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = i * 7;
  const std::vector<uint8_t> jpg = *EncodeJpeg(img), png = *EncodePng(img);
  const std::string npy = NpyHeader("|u1", {6, 5, 3}) +
                          std::string(img.pixels.begin(), img.pixels.end());
  std::string tar;
  for (const auto& [name, body] :
       std::vector<std::pair<std::string, std::string>>{
           {"a.jpg", std::string(jpg.begin(), jpg.end())},
           {"a.cls", "1"},
           {"b.png", std::string(png.begin(), png.end())},
           {"c.npy", npy},
           {"c.cls", "2"}}) {
    tar += *TarFileHeader(name, body.size()) + body +
           std::string(TarPadding(body.size()), '\0');
  }
  return tar;
}

}  // namespace
}  // namespace fusednorm

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fusednorm::RunOne(data, size);
  return 0;
}

#ifndef FUSEDNORM_LIBFUZZER
// Replays mutations of a valid shard: `shard_fuzzer [iterations]` (default
// 3000).
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 3000;
  const std::string seed = fusednorm::Seed();
  std::mt19937 gen(7);
  for (long i = 0; i < iterations; ++i) {
    std::string s = seed.substr(0, i % 4 ? seed.size() : gen() % seed.size());
    for (int m = 0, n = gen() % 4; m < n && !s.empty(); ++m) {
      s[gen() % s.size()] = static_cast<char>(gen());
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()),
                           s.size());
  }
  std::printf("replayed %ld shards: %ld opened, %ld samples read\n", iterations,
              fusednorm::g_opened, fusednorm::g_samples);
  // A replay where nothing got through would test nothing.
  return fusednorm::g_samples < iterations / 4 ? 1 : 0;
}
#endif
