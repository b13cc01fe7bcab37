// ReadFileInto: its bound is checked before any memory is taken (a sparse
// file claims any size), and a file that ends early says where.
#include "data/read_file.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string Dir() {
  static const std::string d = MakeTempDir("fusednorm_read_file");
  return d;
}

TEST(ReadFile, ABoundIsCheckedBeforeTheBytesAreRead) {
  const std::string path = Dir() + "/sparse";
  std::ofstream(path, std::ios::binary) << "x";
  // 6 GiB that take no disk: read, they would take 6 GiB of memory.
  ASSERT_EQ(truncate(path.c_str(), int64_t{6} << 30), 0);
  std::vector<uint8_t> out;
  const absl::Status s = ReadFileInto(path, &out, kMaxImageFileBytes);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(s.message(), path + ": 6442450944 bytes, more than the " +
                             std::to_string(kMaxImageFileBytes) +
                             " it may hold");
  EXPECT_EQ(out.capacity(), 0u);
  ASSERT_EQ(truncate(path.c_str(), 5), 0);
  ASSERT_TRUE(ReadFileInto(path, &out, 5).ok());
  EXPECT_EQ(out.size(), 5u);
  EXPECT_FALSE(ReadFileInto(path, &out, 4).ok());
}

TEST(ReadFile, AFileShorterThanItsSizeSaysWhereItEnded) {
  // A sysfs file's size is a page; its text is shorter (it was reported
  // with a stale errno, "Success").
  const std::string path = "/sys/kernel/mm/transparent_hugepage/enabled";
  if (access(path.c_str(), R_OK) != 0) GTEST_SKIP() << "no " << path;
  std::vector<uint8_t> out;
  const absl::Status s = ReadFileInto(path, &out, 1 << 20);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_NE(s.message().find(": the file ended after "), std::string::npos)
      << s;
  EXPECT_NE(s.message().find(" of its 4096 bytes"), std::string::npos) << s;
}

}  // namespace
}  // namespace fusednorm
