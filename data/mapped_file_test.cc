// MappedFile: a file truncated or rewritten while mapped is an error of the
// readers that used it, never a SIGBUS; one replaced by rename keeps its
// mapped version; faults outside our mappings still kill the process.
#include "data/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string Dir() {
  static const std::string d = MakeTempDir("fusednorm_mapped");
  return d;
}

// A file of `pages` pages, page k filled with byte k + 1.
std::string Write(const std::string& name, int pages) {
  const std::string path = Dir() + "/" + name;
  std::string body;
  for (int k = 0; k < pages; ++k) body += std::string(4096, char(k + 1));
  std::ofstream(path, std::ios::binary) << body;
  return path;
}

// The sum of every byte (reads every page).
long Sum(const MappedFile& f) {
  long s = 0;
  for (uint8_t b : f.bytes()) s += b;
  return s;
}

TEST(MappedFile, ReadsTheFileAndPassesTheCheck) {
  const std::string path = Write("a.bin", 4);
  auto f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)->bytes().size(), 4u * 4096);
  EXPECT_EQ(Sum(**f), 4096L * (1 + 2 + 3 + 4));
  EXPECT_TRUE((*f)->CheckUnchanged().ok());
  EXPECT_EQ(MappedFile::Open(Dir() + "/none").status().code(),
            absl::StatusCode::kNotFound);
}

TEST(MappedFile, TruncatedWhileMappedIsAnErrorNotASignal) {
  const std::string path = Write("b.bin", 8);
  auto f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(truncate(path.c_str(), 4096), 0);
  // Pages 1..7 are past the end now: reading them would raise SIGBUS.
  EXPECT_EQ(Sum(**f), 4096L * 1) << "lost pages read as zeros";
  const absl::Status s = (*f)->CheckUnchanged();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find(path), std::string::npos) << s;
  EXPECT_NE(s.message().find("truncated or rewritten"), std::string::npos);
}

TEST(MappedFile, RewrittenInPlaceFailsTheCheck) {
  const std::string path = Write("c.bin", 2);
  auto f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok());
  usleep(20000);  // a later modification time than the file's first one
  std::ofstream(path, std::ios::binary) << std::string(2 * 4096, 'z');
  EXPECT_FALSE((*f)->CheckUnchanged().ok());
}

TEST(MappedFile, ReplacedByRenameKeepsTheMappedVersion) {
  const std::string path = Write("d.bin", 2);
  auto f = MappedFile::Open(path);
  ASSERT_TRUE(f.ok());
  const std::string other = Write("d.new", 1);
  ASSERT_EQ(std::rename(other.c_str(), path.c_str()), 0);
  EXPECT_EQ(Sum(**f), 4096L * (1 + 2));
  EXPECT_TRUE((*f)->CheckUnchanged().ok());
}

// AddressSanitizer reports a fault it did not expect and then aborts; any
// other build dies of the signal itself.
testing::KilledBySignal KilledByTheFault() {
#if defined(__SANITIZE_ADDRESS__)
  return testing::KilledBySignal(SIGABRT);
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return testing::KilledBySignal(SIGABRT);
#else
  return testing::KilledBySignal(SIGBUS);
#endif
#else
  return testing::KilledBySignal(SIGBUS);
#endif
}

TEST(MappedFile, FaultsOutsideOurMappingsStillKill) {
  auto f = MappedFile::Open(Write("e.bin", 1));  // installs the handler
  ASSERT_TRUE(f.ok());
  EXPECT_EXIT(
      {
        const std::string path = Write("f.bin", 2);
        const int fd = open(path.c_str(), O_RDONLY);
        auto* p = static_cast<volatile const uint8_t*>(
            mmap(nullptr, 8192, PROT_READ, MAP_SHARED, fd, 0));
        if (truncate(path.c_str(), 0) != 0) _exit(3);
        _exit(p[4096] == 0 ? 4 : 5);  // SIGBUS: not one of ours
      },
      KilledByTheFault(), "");
}

}  // namespace
}  // namespace fusednorm
