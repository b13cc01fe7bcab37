// ListImageFolder against listings worked out by hand from torchvision's
// rules (python/image_folder_test.py compares with torchvision itself).
#include "data/image_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "testing/expect_error.h"
#include "testing/temp_dir.h"

namespace fusednorm {
namespace {

// Makes the folders on the way to `path` (below `root`) and the file.
void Touch(const std::string& root, const std::string& path) {
  for (size_t at = path.find('/'); at != std::string::npos;
       at = path.find('/', at + 1)) {
    mkdir((root + "/" + path.substr(0, at)).c_str(), 0755);
  }
  std::ofstream(root + "/" + path) << "x";
}

std::vector<std::pair<std::string, int64_t>> Listed(const std::string& root) {
  absl::StatusOr<std::vector<FolderFile>> files = ListImageFolder(root);
  EXPECT_TRUE(files.ok()) << files.status();
  std::vector<std::pair<std::string, int64_t>> out;
  if (!files.ok()) return out;
  for (const FolderFile& f : *files) {
    EXPECT_EQ(f.path.substr(0, root.size() + 1), root + "/");
    out.emplace_back(f.path.substr(root.size() + 1), f.label);
  }
  return out;
}

TEST(ImageFolder, NestedFoldersAreSortedByPathAndLinksFollowed) {
  const std::string root = MakeTempDir("folder");
  // Created out of order. Sorted by path, "cat/a-b" comes between "cat/a"
  // and "cat/a/b" ('-' < '/'): not the order of a depth-first walk.
  for (const char* f : {"cat/z.jpg", "cat/a/b/deep.png", "cat/a-b/x.JPG",
                        "cat/a/y.jpeg", "cat/a/notes.txt", "cat/A.PNG",
                        "dog/1.jpg", "dog/data.npy", "top.jpg"}) {
    Touch(root, f);
  }
  ASSERT_EQ(symlink((root + "/dog").c_str(), (root + "/cat/link").c_str()), 0);
  ASSERT_EQ(symlink("nowhere.jpg", (root + "/dog/0dangling.jpg").c_str()), 0);
  const std::vector<std::pair<std::string, int64_t>> want = {
      {"cat/A.PNG", 0},        {"cat/z.jpg", 0},
      {"cat/a/y.jpeg", 0},     {"cat/a-b/x.JPG", 0},
      {"cat/a/b/deep.png", 0}, {"cat/link/0dangling.jpg", 0},
      {"cat/link/1.jpg", 0},   {"dog/0dangling.jpg", 1},
      {"dog/1.jpg", 1}};
  EXPECT_EQ(Listed(root), want);
}

// Python sorts names by code point, each byte outside UTF-8 as U+DC00 plus
// the byte (the order os.fsdecode gives): Latin-1's "\xb5" after UTF-8's
// "\xc3\xa9" (U+00E9), though its byte is smaller.
TEST(ImageFolder, NamesSortAsPythonSortsThem) {
  const std::string root = MakeTempDir("folder");
  for (const char* f :
       {"\xb5/1.jpg", "\xc3\xa9/2.jpg", "z/3.jpg", "a/\xb5.jpg",
        "a/\xc3\xa9.jpg", "a/\xe2\x82.jpg", "a/\xef\xbf\xbd.jpg",
        "a/\xf0\x9f\x98\x80.jpg", "a/\xed\xa0\x80.jpg"}) {
    Touch(root, f);
  }
  const std::vector<std::pair<std::string, int64_t>> want = {
      {"a/\xc3\xa9.jpg", 0},          // U+00E9
      {"a/\xb5.jpg", 0},              // U+DCB5
      {"a/\xe2\x82.jpg", 0},          // a cut sequence: U+DCE2 U+DC82
      {"a/\xed\xa0\x80.jpg", 0},      // an encoded surrogate: U+DCED ...
      {"a/\xef\xbf\xbd.jpg", 0},      // U+FFFD
      {"a/\xf0\x9f\x98\x80.jpg", 0},  // U+1F600
      {"z/3.jpg", 1},
      {"\xc3\xa9/2.jpg", 2},
      {"\xb5/1.jpg", 3}};
  EXPECT_EQ(Listed(root), want);
}

TEST(ImageFolder, ImagesTheCodecsCannotDecodeAreRefusedByName) {
  for (const char* ext : {".bmp", ".ppm", ".pgm", ".tif", ".TIFF", ".webp"}) {
    const std::string root = MakeTempDir("folder");
    Touch(root, "a/1.jpg");
    Touch(root, std::string("a/sub/2") + ext);
    ExpectError(ListImageFolder(root).status(),
                absl::StatusCode::kInvalidArgument,
                root + "/a/sub/2" + ext + ": a ");
  }
}

TEST(ImageFolder, EmptyClassesAreRefusedByName) {
  const std::string root = MakeTempDir("folder");
  Touch(root, "a/1.jpg");
  Touch(root, "b/readme.txt");
  Touch(root, "c/sub/2.png");
  mkdir((root + "/d").c_str(), 0755);
  ExpectError(ListImageFolder(root).status(),
              absl::StatusCode::kInvalidArgument,
              "class folders with no .jpg, .jpeg or .png file: b, d");
}

TEST(ImageFolder, NoClassFoldersAndMissingRootAreRefused) {
  const std::string root = MakeTempDir("folder");
  Touch(root, "1.jpg");
  ExpectError(ListImageFolder(root).status(),
              absl::StatusCode::kInvalidArgument, "no class sub-folders");
  ExpectError(ListImageFolder(root + "/missing").status(),
              absl::StatusCode::kNotFound, root + "/missing: cannot open");
}

TEST(ImageFolder, ALinkToAnEnclosingFolderIsRefused) {
  const std::string root = MakeTempDir("folder");
  Touch(root, "a/b/1.jpg");
  ASSERT_EQ(symlink("..", (root + "/a/b/up").c_str()), 0);
  ExpectError(ListImageFolder(root).status(),
              absl::StatusCode::kInvalidArgument,
              root + "/a/b/up: a link to a folder that contains it");
}

TEST(ImageFolder, TheSameFolderLinkedTwiceIsListedTwice) {
  const std::string root = MakeTempDir("folder");
  Touch(root, "shared/1.jpg");
  Touch(root, "a/0.jpg");
  ASSERT_EQ(symlink("../shared", (root + "/a/x").c_str()), 0);
  ASSERT_EQ(symlink("../shared", (root + "/a/y").c_str()), 0);
  const std::vector<std::pair<std::string, int64_t>> want = {
      {"a/0.jpg", 0}, {"a/x/1.jpg", 0}, {"a/y/1.jpg", 0}, {"shared/1.jpg", 1}};
  EXPECT_EQ(Listed(root), want);
}

}  // namespace
}  // namespace fusednorm
