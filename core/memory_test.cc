#include "core/memory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

void Write(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

// A fake /proc and /sys under a fresh directory: 100 GiB available on the
// machine, and a cgroup v2 of `limit` bytes using `usage`, `file` of them
// page cache.
std::string FakeRoot(uint64_t limit, uint64_t usage, uint64_t file) {
  const std::string root = MakeTempDir("memory_test");
  for (const char* d : {"/proc", "/sys", "/sys/fs", "/sys/fs/cgroup"})
    mkdir((root + d).c_str(), 0755);
  Write(root + "/proc/meminfo",
        "MemTotal:       209715200 kB\nMemAvailable:   104857600 kB\n");
  Write(root + "/sys/fs/cgroup/memory.max", std::to_string(limit) + "\n");
  Write(root + "/sys/fs/cgroup/memory.current", std::to_string(usage) + "\n");
  Write(root + "/sys/fs/cgroup/memory.stat",
        "anon " + std::to_string(usage - file) + "\nfile_mapped 4096\nfile " +
            std::to_string(file) + "\n");
  return root;
}

TEST(Memory, TheMachinesAvailableMemory) {
  const std::string root = FakeRoot(0, 0, 0);
  Write(root + "/sys/fs/cgroup/memory.max", "max\n");
  EXPECT_EQ(AvailableMemoryBytesUnder(root), 100 * kGiB);
}

// A cgroup filled with the dataset's page cache still has room: the
// kernel reclaims the cache before it kills anything.
TEST(Memory, PageCacheCountsAsAvailable) {
  EXPECT_EQ(AvailableMemoryBytesUnder(FakeRoot(8 * kGiB, 8 * kGiB, 7 * kGiB)),
            7 * kGiB);
  EXPECT_EQ(AvailableMemoryBytesUnder(FakeRoot(8 * kGiB, 6 * kGiB, 0)),
            2 * kGiB);
  EXPECT_EQ(AvailableMemoryBytesUnder(FakeRoot(8 * kGiB, 9 * kGiB, 0)), 1u);
}

TEST(Memory, NothingKnown) {
  EXPECT_EQ(AvailableMemoryBytesUnder("/nonexistent/root"), 0u);
}

}  // namespace
}  // namespace fusednorm
