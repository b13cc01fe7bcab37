// Tar reading against archives made with TarFileHeader and hand-patched
// headers (pax, GNU long names, corruptions), and a mutation loop that must
// never read outside the archive.
#include "data/tar.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace fusednorm {
namespace {

absl::Span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Recomputes a header's checksum after a patch.
void Reseal(std::string* archive, size_t at) {
  char* h = &(*archive)[at];
  std::memset(h + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i) sum += static_cast<uint8_t>(h[i]);
  std::snprintf(h + 148, 8, "%06o", sum);
}

void Add(std::string* archive, const std::string& name, const std::string& body,
         char type = '0', const std::string& link = "") {
  const size_t at = archive->size();
  *archive += *TarFileHeader(name, body.size());
  (*archive)[at + 156] = type;
  std::memcpy(&(*archive)[at + 157], link.data(),
              std::min<size_t>(100, link.size()));
  Reseal(archive, at);
  *archive += body + std::string(TarPadding(body.size()), '\0');
}

TEST(Tar, RoundTripsMembersOfEverySize) {
  std::string archive;
  const std::string long_dir(140, 'd');
  const std::vector<std::pair<std::string, std::string>> files = {
      {"a.jpg", ""},
      {"b.cls", "7"},
      {"dir/c.png", std::string(511, 'x')},
      {long_dir + "/e.npy", std::string(512, 'y')},
      {"f.txt", std::string(513, 'z')},
  };
  for (const auto& [name, body] : files) Add(&archive, name, body);
  archive += std::string(2 * kTarBlock, '\0');
  const absl::StatusOr<std::vector<TarMember>> index =
      ReadTarIndex(Bytes(archive), "t.tar");
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_EQ(index->size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ((*index)[i].name, files[i].first);
    EXPECT_EQ(archive.substr((*index)[i].offset, (*index)[i].size),
              files[i].second);
  }
}

TEST(Tar, PaxAndGnuLongNamesAndSkippedTypes) {
  std::string archive;
  const std::string long_name = std::string(300, 'p') + ".jpg";
  Add(&archive, "pax", "20 path=renamed.png\n", 'x');
  Add(&archive, "orig.png", "PNG!");
  Add(&archive, "pax", "20 path=solaris.png\n", 'X');  // Solaris's pax
  Add(&archive, "s.png", "PNG!");
  Add(&archive, "././@LongLink", long_name + '\0', 'L');
  Add(&archive, "short", "JPEG");
  Add(&archive, "dir", "", '5');
  Add(&archive, "acl", "user::rw-", 'A');
  Add(&archive, "g", "8 a=bcd\n", 'g');
  Add(&archive, "last.cls", "3");
  TarEnd end;
  end.zero_blocks = true;
  absl::StatusOr<std::vector<TarMember>> index =
      ReadTarIndex(Bytes(archive), "t.tar", &end);  // ends at EOF
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_FALSE(end.zero_blocks);  // no end-of-archive blocks: maybe cut short
  const size_t size = archive.size();
  archive += std::string(2 * kTarBlock, '\0');
  ASSERT_TRUE(ReadTarIndex(Bytes(archive), "t.tar", &end).ok());
  EXPECT_TRUE(end.zero_blocks);
  EXPECT_EQ(end.at, size);
  EXPECT_FALSE(end.data_after);
  // Another archive appended after the blocks: said, and not read.
  std::string two = archive;
  Add(&two, "appended.png", "PNG!");
  absl::StatusOr<std::vector<TarMember>> first =
      ReadTarIndex(Bytes(two), "t.tar", &end);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->size(), 4u);
  EXPECT_TRUE(end.data_after);
  EXPECT_EQ(end.at, size);
  // A lone zero block ends the archive too (as tar and Python's tarfile
  // read it), with what follows said.
  std::string lone = archive.substr(0, size) + std::string(kTarBlock, '\0');
  Add(&lone, "after.png", "PNG!");
  ASSERT_EQ(ReadTarIndex(Bytes(lone), "t.tar", &end)->size(), 4u);
  EXPECT_TRUE(end.data_after);
  ASSERT_EQ(index->size(), 4u);
  EXPECT_EQ((*index)[0].name, "renamed.png");
  EXPECT_EQ((*index)[1].name, "solaris.png");
  EXPECT_EQ((*index)[2].name, long_name);
  EXPECT_EQ((*index)[3].name, "last.cls");
}

// GNU tar stores a file added twice as a hard link to the first copy; a
// symbolic link names its target relative to its own directory. Both read as
// their targets' bytes; a link to nothing of the archive says so.
TEST(Tar, LinksReadAsTheirTargets) {
  std::string archive;
  Add(&archive, "d/a.jpg", "AAAA");
  Add(&archive, "d/b.jpg", "", '1', "d/a.jpg");         // hard link
  Add(&archive, "d/c.jpg", "", '2', "a.jpg");           // relative symlink
  Add(&archive, "e/f.jpg", "", '2', "../d/./c.jpg");    // symlink to symlink
  Add(&archive, "g.jpg", "", '2', "later.jpg");         // to a later file
  Add(&archive, "h.jpg", "", '2', "missing.jpg");       // dangling
  Add(&archive, "i.jpg", "", '2', "../../etc/passwd");  // outside
  Add(&archive, "j.jpg", "", '2', "k.jpg");             // a cycle
  Add(&archive, "k.jpg", "", '2', "j.jpg");
  Add(&archive, "later.jpg", "LL");
  archive += std::string(2 * kTarBlock, '\0');
  const absl::StatusOr<std::vector<TarMember>> index =
      ReadTarIndex(Bytes(archive), "t.tar");
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_EQ(index->size(), 10u) << "no member is dropped";
  const auto body = [&](int i) {
    return archive.substr((*index)[i].offset, (*index)[i].size);
  };
  for (int i : {0, 1, 2, 3}) {
    EXPECT_EQ(body(i), "AAAA") << (*index)[i].name;
    EXPECT_EQ((*index)[i].link_error, "") << (*index)[i].name;
  }
  EXPECT_EQ(body(4), "LL");
  EXPECT_NE((*index)[5].link_error.find("\"missing.jpg\", which is not a file"),
            std::string::npos);
  EXPECT_NE((*index)[6].link_error.find("not a file of the archive"),
            std::string::npos);
  EXPECT_NE((*index)[7].link_error.find("32 deep"), std::string::npos);
  EXPECT_EQ((*index)[5].size, 0u);
  // Its header's place (after 1024 bytes of a.jpg and four link headers),
  // where errors about it point.
  EXPECT_EQ((*index)[5].offset, 3072u);
  EXPECT_EQ(archive.substr(3072, 5), "h.jpg");
}

TEST(Tar, CorruptHeadersNameTheArchiveAndOffset) {
  std::string good;
  Add(&good, "a.jpg", std::string(600, 'a'));
  Add(&good, "b.jpg", "b");
  const size_t second = kTarBlock + 1024;
  struct Case {
    std::string archive;
    const char* message;
  };
  std::vector<Case> cases;
  std::string bad = good;
  bad[second + 3] ^= 1;  // name byte, checksum not updated
  cases.push_back({bad, "tar header at byte 1536: bad header checksum"});
  bad = good;
  std::memcpy(&bad[second + 124], "0000000009\0", 11);
  Reseal(&bad, second);
  cases.push_back({bad, "tar header at byte 1536: bad size field"});
  bad = good;
  std::memcpy(&bad[second + 124], "00000077777", 11);
  Reseal(&bad, second);
  cases.push_back({bad, "at byte 1536: member of 32767 bytes runs past"});
  cases.push_back({good.substr(0, second + 100), "truncated tar header"});
  // `good` and one more member: `name` of `type`, after `before`'s members.
  const auto with = [&](std::string before, const std::string& name, char type,
                        const char* message) {
    Add(&before, name, "data", type);
    cases.push_back({before, message});
  };
  std::string pax = good;
  Add(&pax, "p", "999 path=x\n", 'x');
  cases.push_back({pax, "malformed pax record"});
  // Members whose bytes are not the file's are refused, never passed over
  // (a sample gone) or read as they are.
  with(good, "s.jpg", 'S', "member \"s.jpg\" is a sparse file");
  pax = good;
  Add(&pax, "p", "22 GNU.sparse.major=1\n", 'x');
  with(pax, "GNUSparseFile.0/s.jpg", '0',
       "member \"GNUSparseFile.0/s.jpg\" is a sparse file");
  with(good, "m.jpg", 'M', "\"m.jpg\" is the rest of a file from another");
  with(good, "c.jpg", 'C', "member \"c.jpg\" has tar type 'C'");
  with(good, "z.jpg", '\x80', "has tar type 0x80");
  for (const Case& c : cases) {
    const absl::StatusOr<std::vector<TarMember>> index =
        ReadTarIndex(Bytes(c.archive), "shard.tar");
    ASSERT_FALSE(index.ok()) << c.message;
    EXPECT_NE(index.status().message().find("shard.tar: "), std::string::npos);
    EXPECT_NE(index.status().message().find(c.message), std::string::npos)
        << index.status().message();
  }
}

TEST(Tar, HeaderErrors) {
  EXPECT_FALSE(TarFileHeader(std::string(101, 'n'), 1).ok());
  EXPECT_FALSE(TarFileHeader("x", uint64_t{1} << 33).ok());
  EXPECT_TRUE(
      TarFileHeader(std::string(100, 'n'), (uint64_t{1} << 33) - 1).ok());
}

// Random byte changes of a valid archive: an error or an index whose members
// all lie inside the archive, never a crash (ASan checks the reads).
TEST(Tar, MutationsStayInside) {
  std::string base;
  Add(&base, "k.jpg", std::string(700, 'j'));
  Add(&base, "x", "29 path=" + std::string(20, 'q') + "\n", 'x');
  Add(&base, "k.cls", "1");
  std::mt19937 rng(5);
  for (int i = 0; i < 5000; ++i) {
    std::string a = base.substr(0, rng() % (base.size() + 1));
    for (int m = 0; m < 3 && !a.empty(); ++m) {
      a[rng() % a.size()] = static_cast<char>(rng());
    }
    if (rng() % 2 && a.size() >= kTarBlock) Reseal(&a, 0);
    std::vector<uint8_t> copy(a.begin(), a.end());  // exact size for ASan
    const absl::StatusOr<std::vector<TarMember>> index =
        ReadTarIndex(copy, "m.tar");
    if (!index.ok()) continue;
    for (const TarMember& member : *index) {
      ASSERT_LE(member.offset, copy.size());
      ASSERT_LE(member.size, copy.size() - member.offset);
    }
  }
}

}  // namespace
}  // namespace fusednorm
