// WebDataset shards: brace patterns, grouping by key across formats and
// shards, labels, in-place decoding, and every error naming its file.
#include "data/shards.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codecs/codec.h"
#include "codecs/encode.h"
#include "codecs/npy.h"
#include "data/shard_index.h"
#include "data/tar.h"
#include "gtest/gtest.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

std::string Dir() {
  static const std::string d = MakeTempDir("fusednorm_shards");
  return d;
}

Image Random(int64_t h, int64_t w, int c, int seed) {
  Image img{h, w, c, std::vector<uint8_t>(h * w * c)};
  std::mt19937 rng(seed);
  for (uint8_t& p : img.pixels) p = static_cast<uint8_t>(rng());
  return img;
}

std::string Str(const std::vector<uint8_t>& v) {
  return std::string(v.begin(), v.end());
}

// A shard of (member name, bytes), ended by two zero blocks.
std::string WriteShard(
    const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& members) {
  std::string tar;
  for (const auto& [m, body] : members) {
    tar += *TarFileHeader(m, body.size()) + body +
           std::string(TarPadding(body.size()), '\0');
  }
  tar += std::string(2 * kTarBlock, '\0');
  const std::string path = Dir() + "/" + name;
  std::ofstream(path, std::ios::binary) << tar;
  return path;
}

std::string Npy(const Image& img) {
  return NpyHeader("|u1", {img.height, img.width, img.channels}) +
         Str(img.pixels);
}

TEST(Shards, ExpandsPatternsAndLists) {
  EXPECT_EQ(*ExpandShardSpec("s-{000..002}.tar"),
            (std::vector<std::string>{"s-000.tar", "s-001.tar", "s-002.tar"}));
  EXPECT_EQ(
      *ExpandShardSpec("x.tar,y-{8..10}.tar"),
      (std::vector<std::string>{"x.tar", "y-8.tar", "y-9.tar", "y-10.tar"}));
  // A sign or a space in a range took part in the zero padding's width.
  for (const char* bad : {"a{3..1}.tar", "a{x..2}.tar", "a{1..}.tar",
                          "a{1..2.tar", "", "a{0..1}{0..1}.tar", "a{+0..1}.tar",
                          "a{ 0..1}.tar", "a{0..+1}.tar", "a{-0..1}.tar"}) {
    absl::StatusOr<std::vector<std::string>> r = ExpandShardSpec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    if (*bad != '\0') {
      EXPECT_NE(r.status().message().find("is not PREFIX{LO..HI}SUFFIX"),
                std::string::npos)
          << r.status();
    }
  }
  // Too many is said as such, not as a malformed pattern.
  for (const char* many : {"a{0..1000000}.tar", "a{0..999999999}.tar",
                           "b.tar,a{1..1000000}.tar"}) {
    absl::StatusOr<std::vector<std::string>> r = ExpandShardSpec(many);
    ASSERT_FALSE(r.ok()) << many;
    EXPECT_NE(r.status().message().find("at most 1000000 are read in all"),
              std::string::npos)
        << r.status();
  }
  EXPECT_EQ(ExpandShardSpec("a{1..1000000}.tar")->size(), 1000000u);
  // A shard listed twice, by a list or a range over a listed one, would be
  // read twice an epoch: refused with both positions. "y-09" is another path.
  for (const auto& [twice, message] :
       std::vector<std::pair<const char*, const char*>>{
           {"a.tar,a.tar", "shard \"a.tar\" is listed twice (shards 1 and 2 "},
           {"x.tar,y-{8..10}.tar,y-9.tar",
            "shard \"y-9.tar\" is listed twice (shards 3 and 5 "},
           {"https://h/s-{0..2}.tar?X-Amz-Signature=k,https://h/s-1.tar?X-Amz-"
            "Signature=k",
            "shard \"https://h/s-1.tar?<query hidden>\" is listed twice "
            "(shards 2 and 4 "},
           // A URL's scheme and host name the server in any case.
           {"HTTP://Host:81/s.tar,http://host:81/s.tar",
            "shard \"http://host:81/s.tar\" is listed twice (shards 1 and 2 "},
           {"http://h/s.tar,hTTp://u@H/x,http://u@h/x",
            "is listed twice (shards 2 and 3 "}}) {
    absl::StatusOr<std::vector<std::string>> r = ExpandShardSpec(twice);
    ASSERT_FALSE(r.ok()) << twice;
    EXPECT_NE(r.status().message().find(message), std::string::npos)
        << r.status();
    EXPECT_EQ(r.status().message().find("Signature"), std::string::npos);
  }
  EXPECT_EQ(ExpandShardSpec("y-{8..10}.tar,y-09.tar")->size(), 4u);
  // Paths and a URL's user keep their case.
  EXPECT_EQ(ExpandShardSpec("http://h/S.tar,http://h/s.tar")->size(), 2u);
  EXPECT_EQ(ExpandShardSpec("http://U@h/s.tar,http://u@h/s.tar")->size(), 2u);
  // A range in a URL's query names one object many times.
  const absl::Status in_query =
      ExpandShardSpec("http://h/s.tar?v={1..3}").status();
  EXPECT_NE(in_query.message().find("has its range in the URL's query"),
            std::string::npos)
      << in_query;
  EXPECT_EQ(ExpandShardSpec("http://h/s-{1..3}.tar?v=1")->size(), 3u);
  // An s3:// key's '?' is part of the key: four objects.
  EXPECT_EQ(ExpandShardSpec("s3://b/run?{0..3}.tar")->size(), 4u);
  // The last uint64 as both bounds: one path (the loop once wrapped past it
  // and never ended).
  EXPECT_EQ(
      *ExpandShardSpec("x-{18446744073709551615..18446744073709551615}.tar"),
      (std::vector<std::string>{"x-18446744073709551615.tar"}));
  EXPECT_EQ(
      ExpandShardSpec("x-{18446744073709551614..18446744073709551615}.tar")
          ->size(),
      2u);
  EXPECT_TRUE(IsShardSpec("a/b.tar"));
  EXPECT_TRUE(IsShardSpec("t-{0..3}.tar"));
  EXPECT_TRUE(IsShardSpec("a.tar,b.tar,"));  // a trailing comma
  EXPECT_TRUE(IsShardSpec("a.tar,,"));
  EXPECT_FALSE(IsShardSpec("/data/imagenet/train"));
  // An existing folder is a folder, whatever its name holds.
  const std::string dir = MakeTempDir("folders");  // fresh when repeated
  for (const char* name : {"f{1..2}", "f.tar"}) {
    const std::string folder = dir + "/" + name;
    ASSERT_EQ(mkdir(folder.c_str(), 0755), 0) << folder;
    EXPECT_FALSE(IsShardSpec(folder)) << folder;
    const std::string absent = dir + "/g" + (name + 1);  // no such folder
    EXPECT_TRUE(IsShardSpec(absent)) << absent;
  }
}

TEST(Shards, GroupsByKeyAcrossFormatsAndShards) {
  const Image a = Random(20, 30, 3, 1), b = Random(9, 7, 3, 2),
              c = Random(5, 6, 3, 3);
  const std::vector<uint8_t> jpeg = *EncodeJpeg(a, 90);
  const std::string s0 =
      WriteShard("g-0.tar", {{"dir/k0.jpg", Str(jpeg)},
                             {"dir/k0.cls", "4\n"},
                             {"dir/k0.json", "{}"},
                             {"dir/k1.png", Str(*EncodePng(b))},
                             {"dir/k1.seg.png", "ignored: another field"},
                             {"dir/k1.cls", "1"}});
  const std::string s1 =
      WriteShard("g-1.tar", {{"k2.cls", "9"}, {"k2.npy", Npy(c)}});
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({s0, s1});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ((*d)->size(), 3u);
  EXPECT_EQ((*d)->channels(), 3);
  const std::vector<int64_t> labels = {4, 1, 9};
  const std::vector<Image> images = {*DecodeWhole(jpeg, "a"), b, c};
  for (size_t i = 0; i < 3; ++i) {
    const absl::StatusOr<Sample> s = DecodeSample(**d, i);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->label, labels[i]);
    EXPECT_EQ(s->image.height, images[i].height);
    EXPECT_EQ(s->image.pixels, images[i].pixels) << i;
  }
  EXPECT_NE((*d)->name().find("g-0.tar + 1 more"), std::string::npos);
}

// Empty shards anywhere in the list hold no sample, and every sample is
// found in its own shard.
TEST(Shards, EmptyShardsAreSkippedWherever) {
  const Image a = Random(4, 5, 3, 7), b = Random(6, 3, 3, 8),
              c = Random(2, 9, 3, 9);
  const std::string e0 = WriteShard("e-0.tar", {});
  const std::string s1 = WriteShard(
      "e-1.tar", {{"k0.npy", Npy(a)}, {"k0.cls", "5"}, {"k1.npy", Npy(b)}});
  const std::string e2 = WriteShard("e-2.tar", {});
  const std::string s3 = WriteShard("e-3.tar", {{"k2.npy", Npy(c)}});
  const std::string e4 = WriteShard("e-4.tar", {}),
                    e5 = WriteShard("e-5.tar", {});
  absl::StatusOr<std::unique_ptr<Dataset>> d =
      OpenShards({e0, s1, e2, e4, s3, e5});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ((*d)->size(), 3u);
  const std::vector<Image> images = {a, b, c};
  const std::vector<std::string> shards = {"e-1.tar", "e-1.tar", "e-3.tar"};
  for (size_t i = 0; i < 3; ++i) {
    SampleBuffer buffer;
    RawSample raw;
    ASSERT_TRUE((*d)->Read(i, &buffer, &raw).ok()) << i;
    EXPECT_NE(raw.what.find(shards[i]), std::string::npos) << raw.what;
    const absl::StatusOr<Sample> s = DecodeSample(**d, i);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(s->image.pixels, images[i].pixels) << i;
    EXPECT_EQ(s->label, i == 0 ? 5 : -1);
  }
  SampleBuffer buffer;
  RawSample raw;
  EXPECT_EQ((*d)->Read(3, &buffer, &raw).code(), absl::StatusCode::kOutOfRange);
  EXPECT_FALSE(OpenShards({e0, e2}).ok());  // no samples at all
}

// The labels are in the index: the largest among the first N samples is
// known before any is read (-1: none of them has one).
TEST(Shards, KnowTheirLargestLabelBeforeReading) {
  const std::string a = Npy(Random(4, 5, 3, 7));
  const std::string s0 = WriteShard(
      "largest-0.tar",
      {{"k0.npy", a}, {"k0.cls", "7"}, {"k1.npy", a}, {"k1.cls", "2"}});
  const std::string s1 = WriteShard(
      "largest-1.tar", {{"k2.npy", a}, {"k3.npy", a}, {"k3.cls", "11"}});
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({s1, s0});
  ASSERT_TRUE(d.ok()) << d.status();
  const int64_t want[] = {-1, -1, 11, 11, 11};
  for (size_t count = 0; count <= 4; ++count) {
    EXPECT_EQ((*d)->LargestLabel(count), std::optional<int64_t>(want[count]))
        << count;
  }
}

// The index round-trips keys with spaces, '%' and UTF-8, npy members,
// labels and broken links, and opening through it reads the same samples.
TEST(ShardIndex, RoundTripsAndOpensTheSameSamples) {
  const Image a = Random(8, 9, 3, 4), b = Random(5, 4, 3, 5);
  const std::string path =
      WriteShard("idx-0.tar", {{"a b%c.png", Str(*EncodePng(a))},
                               {"a b%c.cls", "-3"},
                               {"n\xc3\xa4me.npy", Npy(b)},
                               {"plain.png", Str(*EncodePng(b))},
                               {"plain.cls", "12"}});
  absl::StatusOr<std::unique_ptr<Dataset>> scanned = OpenShards({path});
  ASSERT_TRUE(scanned.ok()) << scanned.status();
  absl::StatusOr<ShardIndex> written = WriteShardIndex(path);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->samples.size(), 3u);
  EXPECT_EQ(written->samples[0].key, "a b%c");
  EXPECT_EQ(written->samples[0].label, -3);
  EXPECT_TRUE(written->samples[1].npy);
  const std::string text = ShardIndexText(*written);
  EXPECT_NE(text.find(" a%20b%25c\n"), std::string::npos) << text;
  absl::StatusOr<ShardIndex> read = ParseShardIndex(text, "x.fnidx");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(ShardIndexText(*read), text);
  absl::StatusOr<std::unique_ptr<Dataset>> indexed = OpenShards({path});
  ASSERT_TRUE(indexed.ok()) << indexed.status();
  EXPECT_EQ((*indexed)->IndexDigest(), (*scanned)->IndexDigest());
  for (size_t i = 0; i < 3; ++i) {
    SampleBuffer b1, b2;
    RawSample r1, r2;
    ASSERT_TRUE((*scanned)->Read(i, &b1, &r1).ok());
    ASSERT_TRUE((*indexed)->Read(i, &b2, &r2).ok());
    EXPECT_EQ(r1.what, r2.what);
    EXPECT_EQ(r1.label, r2.label);
    EXPECT_EQ(Str({r1.encoded.begin(), r1.encoded.end()}),
              Str({r2.encoded.begin(), r2.encoded.end()}));
  }
  std::remove(ShardIndexPath(path).c_str());
}

// The digest a resume compares tells apart shards of one size whose
// members differ: two that swapped contents, a sample relabelled, a
// member's kind; the same shards opened again agree.
TEST(Shards, TheIndexDigestSeesTheMembersNotOnlyTheSizes) {
  const std::string a = Npy(Random(4, 5, 3, 1)), b = Npy(Random(4, 5, 3, 2));
  const auto digest = [](const std::string& x, const std::string& y) {
    const std::string px = WriteShard("digest-x.tar", {{"k1.npy", x}});
    const std::string py = WriteShard("digest-y.tar", {{"k2.npy", y}});
    absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({px, py});
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? (*d)->IndexDigest() : 0;
  };
  const uint64_t base = digest(a, b);
  EXPECT_EQ(digest(a, b), base);
  // Swapped: the keys move with the contents (k2 in x, k1 in y).
  const std::string px = WriteShard("digest-x.tar", {{"k2.npy", b}});
  const std::string py = WriteShard("digest-y.tar", {{"k1.npy", a}});
  EXPECT_NE((*OpenShards({px, py}))->IndexDigest(), base);
  const auto labelled = [&](const char* label) {
    const std::string p =
        WriteShard("digest-l.tar", {{"k1.npy", a}, {"k1.cls", label}});
    return (*OpenShards({p}))->IndexDigest();
  };
  EXPECT_EQ(labelled("3"), labelled("3"));
  EXPECT_NE(labelled("3"), labelled("4"));
}

// Opening trusts an index while the shard keeps its size and modification
// time; with another time it checks the index against the shard's headers.
TEST(ShardIndex, AShardModifiedInPlaceIsCaughtACopyIsNot) {
  const Image a = Random(8, 9, 3, 6);
  const std::string png = Str(*EncodePng(a));
  const std::string path =
      WriteShard("idx-1.tar", {{"k.png", png}, {"k.cls", "0"}, {"m.png", png}});
  ASSERT_TRUE(WriteShardIndex(path).ok());
  // Touched only (as a copy would): the samples are the same.
  const timespec later[2] = {{0, UTIME_OMIT}, {1700000000, 5}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
  absl::StatusOr<std::unique_ptr<Dataset>> touched = OpenShards({path});
  ASSERT_TRUE(touched.ok()) << touched.status();
  EXPECT_EQ((*touched)->size(), 2u);
  // The label rewritten in place, same size: the index no longer holds.
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), {});
  const size_t at = bytes.find(std::string("0") + std::string(511, '\0'));
  ASSERT_NE(at, std::string::npos);
  f.seekp(static_cast<std::streamoff>(at));
  f.put('7');
  f.close();
  const absl::Status s = OpenShards({path}).status();
  EXPECT_NE(s.message().find("idx-1.tar.fnidx does not match"),
            std::string::npos)
      << s;
  EXPECT_NE(s.message().find("sample 0 (key k)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("the shard changed after it was indexed"),
            std::string::npos)
      << s;
  std::remove(ShardIndexPath(path).c_str());
}

TEST(ShardIndex, AnIndexLargerThanItsShardAllowsIsNotRead) {
  const std::string png = Str(*EncodePng(Random(8, 9, 3, 6)));
  const std::string path = WriteShard("idx-big.tar", {{"k.png", png}});
  ASSERT_TRUE(WriteShardIndex(path).ok());
  // Sparse: 5 GiB that would all be read before the first line's check.
  const std::string index = ShardIndexPath(path);
  ASSERT_EQ(truncate(index.c_str(), int64_t{5} << 30), 0);
  const absl::Status s = OpenShards({path}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  const uint64_t shard_bytes = std::filesystem::file_size(path);
  EXPECT_NE(s.message().find(
                absl::StrCat(index, ": 5368709120 bytes, more than the ",
                             MaxShardIndexBytes(shard_bytes), " it may hold")),
            std::string::npos)
      << s;
  EXPECT_EQ(MaxShardIndexBytes(shard_bytes), shard_bytes / 4 + 65536);
  EXPECT_EQ(MaxShardIndexBytes(uint64_t{1} << 40), uint64_t{256} << 20);
  std::remove(index.c_str());
}

TEST(ShardIndex, KeysAreEscapedForLinesAndMessages) {
  EXPECT_EQ(EscapeKey(std::string("a b\n%\0z\xc3", 8)), "a%20b%0A%25%00z%C3");
  EXPECT_EQ(EscapeKey("000000001"), "000000001");
}

// What `index` writes, its reader reads: an empty key (a member named
// ".jpg") and a modification time before 1970 were written and then
// refused, so that the shard no longer opened.
TEST(ShardIndex, EmptyKeysAndOldTimesReadBack) {
  ShardIndex index;
  index.bytes = 4096;
  index.mtime_ns = -86400000000000;  // 1969-12-31
  index.digest = "-";
  index.channels = 3;
  index.samples.push_back({"", 512, 100, false, "", 2});
  index.samples.push_back({"%", 1024, 100, false, "", 3});
  const std::string text = ShardIndexText(index);
  EXPECT_NE(text.find("512 100 image 2 %\n"), std::string::npos) << text;
  EXPECT_NE(text.find("1024 100 image 3 %25\n"), std::string::npos) << text;
  absl::StatusOr<ShardIndex> read = ParseShardIndex(text, "x.fnidx");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->mtime_ns, index.mtime_ns);
  EXPECT_EQ(read->samples.at(0).key, "");
  EXPECT_EQ(read->samples.at(1).key, "%");
  EXPECT_EQ(FirstDifference(index, *read), "");
}

TEST(ShardIndex, DamagedIndexesNameTheLine) {
  const std::string good =
      "fusednorm-shard-index 1\n"
      "bytes 4096 mtime_ns -1 digest - channels 3 samples 1\n"
      "512 100 image 2 key\n";
  ASSERT_TRUE(ParseShardIndex(good, "s.fnidx").ok());
  // The last line's newline is optional, and only one is.
  absl::StatusOr<ShardIndex> no_newline =
      ParseShardIndex(good.substr(0, good.size() - 1), "s.fnidx");
  ASSERT_TRUE(no_newline.ok()) << no_newline.status();
  EXPECT_EQ(no_newline->samples.at(0).key, "key");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "not a shard index"},
      {"fusednorm-shard-index 2\n", "not a shard index"},
      {"fusednorm-shard-index 1\n", "line 2 is missing"},
      {"fusednorm-shard-index 1\nbytes 4096\n", "line 2: expected"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest XYZ channels 3 "
       "samples 0\n",
       "line 2: expected"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 3 "
       "samples 2\n"
       "512 100 image 2 key\n",
       "line 2 says 2 samples, 1 lines follow"},
      {good + "\n", "line 2 says 1 samples, 2 lines follow"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 0 "
       "samples 0\n\n",
       "line 2 says 0 samples, 1 lines follow"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 3 "
       "samples 1\n"
       "4000 100 image 2 key\n",
       "line 3: bytes 4000..+100 are not inside the shard's 4096"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 3 "
       "samples 1\n"
       "512 100 webp 2 key\n",
       "line 3: kind \"webp\""},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 3 "
       "samples 1\n"
       "512 100 image 2 k%zz\n",
       "line 3: the key is empty or badly escaped"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 3 "
       "samples 1\n"
       "512 100 link 2 key\n",
       "line 3: a link, and only a link"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 3 "
       "samples 1\n"
       "+512 100 image 2 key\n",
       "line 3: offset, size or label"},
      {"fusednorm-shard-index 1\nbytes 4096 mtime_ns -1 digest - channels 0 "
       "samples 1\n"
       "512 100 image 2 key\n",
       "line 2: channels 0 with 1 samples"},
  };
  for (const auto& [text, needle] : bad) {
    const absl::Status s = ParseShardIndex(text, "s.fnidx").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(s.message().find("s.fnidx"), absl::string_view::npos) << s;
    EXPECT_NE(s.message().find(needle), absl::string_view::npos)
        << s << " should say " << needle;
  }
}

// One file under two paths (a link, "dir/./a.tar") would be read twice an
// epoch: refused, naming both paths and positions.
TEST(Shards, OneFileUnderTwoPathsIsRefused) {
  const std::string jpg = Str(*EncodeJpeg(Random(8, 8, 3, 4), 90));
  const std::string a = WriteShard("same-a.tar", {{"k.jpg", jpg}});
  const std::string b = WriteShard("same-b.tar", {{"m.jpg", jpg}});
  const std::string link = Dir() + "/same-link.tar";
  ASSERT_EQ(symlink(a.c_str(), link.c_str()), 0);
  const std::string dotted = Dir() + "/./same-b.tar";
  for (const auto& [paths, message] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{a, b, link},
            "shard \"" + link + "\" is the same file as shard \"" + a +
                "\" (shards 1 and 3 of the list)"},
           {{b, a, dotted},
            "shard \"" + dotted + "\" is the same file as shard \"" + b +
                "\" (shards 1 and 3 of the list)"}}) {
    const absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards(paths);
    ASSERT_FALSE(d.ok()) << message;
    EXPECT_NE(d.status().message().find(message), std::string::npos)
        << d.status();
  }
  EXPECT_TRUE(OpenShards({a, b}).ok());
}

TEST(Shards, ErrorsNameTheShard) {
  const std::string jpg = Str(*EncodeJpeg(Random(8, 8, 3, 4), 90));
  struct Case {
    std::vector<std::pair<std::string, std::string>> members;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"k.cls", "1"}}, "key k has no .jpg/.jpeg/.png/.npy member"},
      {{{"k.jpg", jpg}, {"k.png", jpg}}, "a second image for key k"},
      {{{"k.jpg", jpg}, {"k.cls", "1"}, {"k.cls", "2"}},
       "a second .cls for key k"},
      // Apart, a key's members would be two samples of one key.
      {{{"a.jpg", jpg}, {"a.cls", "1"}, {"b.jpg", jpg}, {"a.jpg", jpg}},
       "member a.jpg at byte 4608: key a again, after other keys"},
      {{{"a.jpg", jpg}, {"b.jpg", jpg}, {"a.cls", "1"}},
       "member a.cls at byte 3584: key a again, after other keys"},
      {{{"k.jpg", jpg}, {"m.npy", Npy(Random(2, 2, 1, 5))}},
       "key m: 1 channels, earlier samples 3"},
      {{}, "the shards hold no samples"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteShard("bad.tar", c.members);
    const absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({path});
    ASSERT_FALSE(d.ok()) << c.message;
    EXPECT_NE(d.status().message().find(path), std::string::npos)
        << d.status().message();
    EXPECT_NE(d.status().message().find(c.message), std::string::npos)
        << d.status().message();
  }
  const absl::StatusOr<std::unique_ptr<Dataset>> missing =
      OpenShards({Dir() + "/missing.tar"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("missing.tar"), std::string::npos);
}

// A comma in a URL's query or password splits the list there: the piece
// after it is refused as a local path, and its text (the secret) is never
// shown.
TEST(Shards, AUrlSplitByACommaShowsNoSecret) {
  for (const char* spec :
       {"http://h/a.tar?t=a,b&X-Amz-Signature=SIGSECRET",
        "https://user:pa,ss9SECRET@h/a.tar", "https://al:8080,9SECRET@h/a",
        "a.tar,http://h/b.tar"}) {
    absl::StatusOr<std::vector<std::string>> paths = ExpandShardSpec(spec);
    ASSERT_TRUE(paths.ok()) << paths.status();
    const absl::Status s = OpenShards(*paths).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(" of 2 is not a URL, shard "),
              absl::string_view::npos)
        << s;
    for (const char* secret : {"SECRET", "8080", "user", "al:"})
      EXPECT_EQ(s.message().find(secret), absl::string_view::npos) << s;
  }
}

// A member that cannot be read -- a .cls that is no label, an .npy whose
// header cannot be read -- fails its sample when read, naming the shard,
// the key and why (on_error decides, as for a corrupt image), not the
// whole shard at open; the index keeps the reason.
TEST(Shards, BadMembersAreTheirSamplesErrors) {
  const std::string jpg = Str(*EncodeJpeg(Random(8, 8, 3, 4), 90));
  const std::string bad_npy = NpyHeader("<f4", {2, 2, 1}) + std::string(16, 0);
  const struct {
    std::vector<std::pair<std::string, std::string>> members;
    std::string message;
  } cases[] = {
      {{{"k.jpg", jpg}, {"k.cls", "one"}},
       "its image has no label: its .cls \"one\" is not an integer"},
      {{{"k.cls", " -99999999999999999999\n"}, {"k.jpg", jpg}},
       "has no label: its .cls is past the int64 range of labels"},
      {{{"k.jpg", jpg}, {"k.cls", std::string(50, 'x')}},
       "\"" + std::string(40, 'x') + "...\" is not an integer"},
      {{{"k.npy", bad_npy}, {"k.cls", "1"}},
       "its image is an .npy that cannot be read (.npy: dtype <f4 is not "
       "uint8)"},
  };
  for (const auto& c : cases) {
    std::vector<std::pair<std::string, std::string>> members = c.members;
    members.push_back({"z.jpg", jpg});
    members.push_back({"z.cls", "7"});
    const std::string path = WriteShard("bad-member.tar", members);
    for (const bool indexed : {false, true}) {
      if (indexed) ASSERT_TRUE(WriteShardIndex(path).ok()) << c.message;
      const absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({path});
      ASSERT_TRUE(d.ok()) << d.status();
      const absl::StatusOr<Sample> bad = DecodeSample(**d, 0);
      ASSERT_FALSE(bad.ok()) << c.message;
      EXPECT_NE(bad.status().message().find(path + " at byte "),
                std::string::npos)
          << bad.status();
      EXPECT_NE(bad.status().message().find("key k)"), std::string::npos)
          << bad.status();
      EXPECT_NE(bad.status().message().find(c.message), std::string::npos)
          << bad.status();
      const absl::StatusOr<Sample> good = DecodeSample(**d, 1);
      ASSERT_TRUE(good.ok()) << good.status();
      EXPECT_EQ(good->label, 7);
      EXPECT_EQ((*d)->channels(), 3);
    }
    std::remove((path + ".fnidx").c_str());
  }
}

// A failing sample's channels: an .npy whose .cls is bad still says its
// own, and a shard none of whose samples says (its one .npy unreadable)
// takes the others' count, its index written and read back so.
TEST(Shards, FailingSamplesKeepTheChannelsTheySay) {
  const std::string gray = Npy(Random(4, 5, 1, 3));
  const std::string bad_npy = NpyHeader("<f4", {2, 2, 1}) + std::string(16, 0);
  const std::string a =
      WriteShard("ch-a.tar", {{"a0.npy", gray}, {"a1.npy", bad_npy}});
  const std::string b =
      WriteShard("ch-b.tar", {{"b0.npy", gray}, {"b0.cls", "nope"}});
  const std::string c = WriteShard("ch-c.tar", {{"c0.npy", bad_npy}});
  for (const bool indexed : {false, true}) {
    for (const std::string& path : {a, b, c})
      if (indexed) ASSERT_TRUE(WriteShardIndex(path).ok()) << path;
    for (const std::vector<std::string>& order :
         {std::vector<std::string>{a, b, c}, {c, b, a}}) {
      const absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards(order);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_EQ((*d)->channels(), 1);
    }
  }
  // A second .cls after a bad one is still a second .cls.
  const std::string twice = WriteShard(
      "twice.tar", {{"k.jpg", Str(*EncodeJpeg(Random(8, 8, 3, 4), 90))},
                    {"k.cls", "zz"},
                    {"k.cls", "1"}});
  EXPECT_NE(
      OpenShards({twice}).status().message().find("a second .cls for key k"),
      std::string::npos);
  for (const std::string& path : {a, b, c})
    std::remove((path + ".fnidx").c_str());
}

TEST(Shards, CorruptImageIsTheSampleErrorWithShardAndOffset) {
  const std::string path =
      WriteShard("c.tar", {{"a.jpg", "\xff\xd8\xff broken"}, {"a.cls", "0"}});
  const absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({path});
  ASSERT_TRUE(d.ok()) << d.status();
  const absl::StatusOr<Sample> s = DecodeSample(**d, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(path + " at byte 512, key a"),
            std::string::npos)
      << s.status().message();
}

// A shard truncated or rewritten under a reader: every later sample of it
// is an error naming the shard (the pages lost are never a SIGBUS); the
// other shards read on.
TEST(Shards, AShardTruncatedOrRewrittenWhileOpenIsAnError) {
  std::vector<std::pair<std::string, std::string>> members;
  for (int k = 0; k < 6; ++k) {
    const std::string key = "k" + std::to_string(k);
    members.push_back({key + ".npy", Npy(Random(40, 40, 3, k))});
  }
  const std::string cut = WriteShard("cut.tar", members);
  const std::string same = WriteShard("same.tar", members);
  const std::string kept = WriteShard("kept.tar", members);
  absl::StatusOr<std::unique_ptr<Dataset>> d = OpenShards({cut, same, kept});
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_EQ((*d)->size(), 18u);
  ASSERT_EQ(truncate(cut.c_str(), 2048), 0);
  usleep(20000);                    // a modification time of its own
  WriteShard("same.tar", members);  // rewritten in place, same bytes
  for (size_t i = 0; i < 18; ++i) {
    const absl::StatusOr<Sample> s = DecodeSample(**d, i);
    if (i >= 12) {
      EXPECT_TRUE(s.ok()) << i << ": " << s.status();
      continue;
    }
    ASSERT_FALSE(s.ok()) << i;
    const std::string& shard = i < 6 ? cut : same;
    EXPECT_NE(s.status().message().find(shard + ": the file was truncated"),
              std::string::npos)
        << s.status();
  }
}

}  // namespace
}  // namespace fusednorm
