#include "data/shard_cache.h"

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string MakeDir() { return MakeTempDir("cache"); }

const std::vector<ShardCache::Key> kKeys = {{"http://h/a.tar", 4, "\"e1\""},
                                            {"http://h/b.tar", 4, "\"e2\""}};

TEST(ShardCacheTest, ACopyIsWrittenThenMapped) {
  absl::StatusOr<std::unique_ptr<ShardCache>> cache =
      ShardCache::Open({MakeDir(), 0}, kKeys);
  ASSERT_TRUE(cache.ok()) << cache.status();
  ShardCache& c = **cache;
  ASSERT_TRUE(c.Begin(0));
  EXPECT_FALSE(c.Begin(0));  // being written
  const uint8_t bytes[] = {1, 2, 3, 4};
  ASSERT_TRUE(c.Write(0, bytes).ok());
  ASSERT_TRUE(c.Finish(0, true).ok());
  ASSERT_NE(c.Get(0), nullptr);
  EXPECT_EQ(c.Get(0)->bytes()[3], 4);
  EXPECT_TRUE(c.Fits(1));
}

// Opens `dir` for `key` alone; whether an earlier run's copy is mapped.
bool FindsACopy(const std::string& dir, const ShardCache::Key& key) {
  absl::StatusOr<std::unique_ptr<ShardCache>> cache =
      ShardCache::Open({dir, 0}, {key});
  EXPECT_TRUE(cache.ok()) << cache.status();
  return cache.ok() && (*cache)->Get(0) != nullptr;
}

TEST(ShardCacheTest, ACopyIsFoundOnlyForItsVersion) {
  const std::string dir = MakeDir();
  const ShardCache::Key weak = {"http://h/a.tar", 4, "W/\"e\"", "D0"};
  {
    absl::StatusOr<std::unique_ptr<ShardCache>> cache =
        ShardCache::Open({dir, 0}, {weak});
    ASSERT_TRUE(cache.ok()) << cache.status();
    const uint8_t bytes[] = {1, 2, 3, 4};
    ASSERT_TRUE((*cache)->Begin(0));
    ASSERT_TRUE((*cache)->Write(0, bytes).ok());
    ASSERT_TRUE((*cache)->Finish(0, true).ok());
  }
  EXPECT_TRUE(FindsACopy(dir, weak));
  ShardCache::Key other = weak;
  other.date = "D1";  // the same weak ETag, modified since
  EXPECT_FALSE(FindsACopy(dir, other));
  other.date = "";
  EXPECT_FALSE(FindsACopy(dir, other));
  other = weak;
  other.etag = "W/\"f\"";
  EXPECT_FALSE(FindsACopy(dir, other));
  other = weak;
  other.size = 5;
  EXPECT_FALSE(FindsACopy(dir, other));
}

TEST(ShardCacheTest, ADirectoryNotWritableIsRefusedAtOpen) {
  // Not even root makes files in /proc/self.
  absl::StatusOr<std::unique_ptr<ShardCache>> cache =
      ShardCache::Open({"/proc/self", 0}, kKeys);
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.status().message().find(
                "cache_dir = \"/proc/self\": cannot write in it"),
            std::string::npos)
      << cache.status();
}

TEST(ShardCacheTest, ACopyThatCannotBeMadeTurnsTheCacheOff) {
  const std::string dir = MakeDir();
  absl::StatusOr<std::unique_ptr<ShardCache>> cache =
      ShardCache::Open({dir, 0}, kKeys);
  ASSERT_TRUE(cache.ok()) << cache.status();
  ShardCache& c = **cache;
  ASSERT_EQ(rmdir(dir.c_str()), 0);  // gone under the run
  EXPECT_FALSE(c.Begin(0));
  // Off: no shard is chosen again, to be fetched in vain.
  EXPECT_FALSE(c.Fits(0));
  EXPECT_FALSE(c.Fits(1));
  EXPECT_FALSE(c.Begin(1));
  EXPECT_EQ(c.Get(0), nullptr);
}

}  // namespace
}  // namespace fusednorm
