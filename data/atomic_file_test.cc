// AtomicFile: writers of one path never share a temporary file; a commit
// leaves one whole output; an abandoned or failed write leaves nothing.
#include "data/atomic_file.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string Dir() { return MakeTempDir("fusednorm_atomic"); }

std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  return names;
}

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(AtomicFile, TwoWritersOfOnePathNeverMix) {
  const std::string dir = Dir(), path = dir + "/out.npy";
  auto a = AtomicFile::Create(path);
  auto b = AtomicFile::Create(path);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->temporary_path(), b->temporary_path());
  // Interleaved writes, as two runs would make them.
  const std::string one(100000, '1'), two(100000, '2');
  for (int k = 0; k < 10; ++k) {
    ASSERT_TRUE(a->Write(Bytes(one.substr(k * 10000, 10000))).ok());
    ASSERT_TRUE(b->Write(Bytes(two.substr(k * 10000, 10000))).ok());
  }
  ASSERT_TRUE(b->Commit().ok());
  EXPECT_EQ(Read(path), two);
  ASSERT_TRUE(a->Commit().ok());
  EXPECT_EQ(Read(path), one) << "the last commit wins, whole";
  EXPECT_EQ(Entries(dir), std::vector<std::string>{"out.npy"});
}

TEST(AtomicFile, ManyConcurrentWritersLeaveOneWholeFile) {
  const std::string dir = Dir(), path = dir + "/shard.tar";
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      auto f = AtomicFile::Create(path);
      const std::string body(50000 + t, static_cast<char>('a' + t));
      if (f.ok() && f->Write(Bytes(body)).ok()) (void)f->Commit();
    });
  }
  for (auto& w : writers) w.join();
  const std::string got = Read(path);
  ASSERT_GE(got.size(), 50000u);
  EXPECT_EQ(got, std::string(got.size(), got[0])) << "one writer's bytes";
  EXPECT_EQ(got.size(), 50000u + (got[0] - 'a'));
  EXPECT_EQ(Entries(dir).size(), 1u) << "no temporary file left";
}

// Files get 0666 less the umask, and making them from many threads at once
// leaves the umask as it was (reading it once meant setting it to 0 for a
// moment, which two threads could leave in place).
TEST(AtomicFile, FilesFromManyThreadsKeepTheUmask) {
  const mode_t before = umask(027);
  const std::string dir = Dir();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      // Mostly abandoned (nothing is left), the last of each committed.
      for (int i = 0; i < 2000; ++i) {
        const std::string path =
            dir + "/m" + std::to_string(t) + "_" + std::to_string(i % 200);
        absl::StatusOr<AtomicFile> f = AtomicFile::Create(path);
        if (f.ok() && i == 1999) (void)f->Commit();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(umask(before), 027);
  for (int t = 0; t < 8; ++t) {
    struct stat st;
    ASSERT_EQ(stat((dir + "/m" + std::to_string(t) + "_199").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640);
  }
}

TEST(AtomicFile, AbandonedOrFailedWritesLeaveNothing) {
  const std::string dir = Dir();
  {
    auto f = AtomicFile::Create(dir + "/never");
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->Write(Bytes("partial")).ok());
  }  // no Commit
  EXPECT_TRUE(Entries(dir).empty());
  const absl::Status s = WriteFileAtomically(dir + "/missing/x", {Bytes("x")});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir + "/missing/x"), std::string::npos) << s;
  chmod(dir.c_str(), 0500);  // not writable (when not root)
  if (!AtomicFile::Create(dir + "/y").ok()) {
    EXPECT_TRUE(Entries(dir).empty());
  }
  chmod(dir.c_str(), 0700);
}

// A file whose folder takes no new file (a missing one; /proc) is named
// with the file the writing would have begun with, and why.
TEST(AtomicFile, AFolderThatTakesNoFileSaysSo) {
  const std::string path = Dir() + "/missing/out.npy";
  const absl::Status s = WriteFileAtomically(path, {Bytes("x")});
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_NE(s.message().find(path +
                             ": cannot write: cannot make a file "
                             "beside it (" +
                             path + ".tmp-"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("): No such file or directory"), std::string::npos)
      << s;
}

// A device, a symbolic link or a directory at the path is refused, before
// and after the writing, and left as it was.
TEST(AtomicFile, RefusesToReplaceWhatIsNotARegularFile) {
  const std::string dir = Dir();
  const std::string target = dir + "/target", link = dir + "/link";
  std::ofstream(target) << "kept";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  ASSERT_EQ(mkdir((dir + "/sub").c_str(), 0700), 0);
  for (const std::string& path :
       {std::string("/dev/null"), link, dir + "/sub"}) {
    const absl::Status s = WriteFileAtomically(path, {Bytes("x")});
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << path;
    EXPECT_NE(s.message().find(path + ": cannot write: it exists and is not "
                                      "a regular file"),
              std::string::npos)
        << s;
  }
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // Made a link while the file was being written: refused at the rename.
  auto f = AtomicFile::Create(dir + "/late");
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->Write(Bytes("late")).ok());
  ASSERT_EQ(symlink(target.c_str(), (dir + "/late").c_str()), 0);
  EXPECT_EQ(f->Commit().code(), absl::StatusCode::kFailedPrecondition);
  std::ifstream in(target);
  std::string kept;
  in >> kept;
  EXPECT_EQ(kept, "kept");
  unlink(link.c_str());
  unlink((dir + "/late").c_str());
  unlink(target.c_str());
  rmdir((dir + "/sub").c_str());
  EXPECT_TRUE(Entries(dir).empty());
}

}  // namespace
}  // namespace fusednorm
