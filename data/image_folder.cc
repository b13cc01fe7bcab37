// ListImageFolder (image_folder.h): a class's folders walked with links
// followed, sorted by path, as torchvision's sorted(os.walk(...)) does, in
// Python's order of names.
#include "data/image_folder.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codecs/codec.h"

namespace fusednorm {
namespace {

// The code point at byte `*i` of `name` as Python sees a file name (UTF-8,
// each byte of an invalid sequence as the lone surrogate U+DC80..U+DCFF:
// surrogateescape), and `*i` moved past it.
char32_t NextCodePoint(const std::string& name, size_t* i) {
  const auto byte = [&](size_t k) {
    return k < name.size() ? static_cast<uint8_t>(name[k]) : 0;
  };
  const uint8_t b = byte(*i);
  // The sequence's length and its second byte's range (strict UTF-8: no
  // overlong forms, surrogates or values past U+10FFFF).
  int n = 0;
  uint8_t lo = 0x80, hi = 0xBF;
  if (b < 0x80)
    n = 1;
  else if (b >= 0xC2 && b <= 0xDF)
    n = 2;
  else if (b >= 0xE0 && b <= 0xEF)
    n = 3;
  else if (b >= 0xF0 && b <= 0xF4)
    n = 4;
  if (b == 0xE0) lo = 0xA0;
  if (b == 0xED) hi = 0x9F;
  if (b == 0xF0) lo = 0x90;
  if (b == 0xF4) hi = 0x8F;
  bool valid = n > 0 && *i + n <= name.size();
  for (int k = 1; valid && k < n; ++k) {
    const uint8_t c = byte(*i + k);
    valid = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
  }
  if (!valid) {
    ++*i;
    return 0xDC00 + b;
  }
  char32_t cp = n == 1 ? b : b & (0x7F >> n);
  for (int k = 1; k < n; ++k) cp = (cp << 6) | (byte(*i + k) & 0x3F);
  *i += n;
  return cp;
}

// Python's order of file names (by code points), which is the bytes'
// order for UTF-8 names but not for others. Allocates nothing.
bool PythonLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const char32_t x = NextCodePoint(a, &i), y = NextCodePoint(b, &j);
    if (x != y) return x < y;
  }
  return i == a.size() && j < b.size();
}

// A folder's entries, sorted by name, split into folders and the rest
// (links followed: a link to a folder is a folder, a dangling one a file).
struct Entries {
  std::vector<std::string> folders;
  std::vector<std::string> files;
};

absl::StatusOr<Entries> ReadFolder(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    return absl::NotFoundError(
        absl::StrCat(dir, ": cannot open the folder: ", std::strerror(errno)));
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end(), PythonLess);
  Entries out;
  for (std::string& n : names) {
    struct stat st;
    const bool folder = stat(absl::StrCat(dir, "/", n).c_str(), &st) == 0 &&
                        S_ISDIR(st.st_mode);
    (folder ? out.folders : out.files).push_back(std::move(n));
  }
  return out;
}

// The image extensions torchvision's ImageFolder loads.
constexpr const char* kTorchvisionImages[] = {
    ".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp"};

// True for a file that is a sample; false for one torchvision skips too; an
// error for an image torchvision would load and the codecs cannot decode.
absl::StatusOr<bool> IsSample(const std::string& path) {
  const Codec* codec = CodecForFile(path);
  if (codec != nullptr && codec->channels == 3) return true;
  const std::string lower = absl::AsciiStrToLower(path);
  for (const char* ext : kTorchvisionImages) {
    if (absl::EndsWith(lower, ext)) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": a ", ext,
          " image, which torchvision's ImageFolder would load but fusednorm "
          "does not decode (it decodes .jpg, .jpeg and .png): convert it or "
          "move it out of the folder"));
    }
  }
  return false;
}

// A folder below a class, found by the walk, and its files.
struct Walked {
  std::string path;
  std::vector<std::string> files;
};

struct FolderId {
  dev_t dev;
  ino_t ino;
  bool operator==(const FolderId& o) const {
    return dev == o.dev && ino == o.ino;
  }
};

// Appends `dir` and every folder below it to `out`; `above` holds the
// folders the walk is inside, to refuse a link back to one of them.
absl::Status Walk(const std::string& dir, std::vector<FolderId>* above,
                  std::vector<Walked>* out) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(
        dir, ": cannot look at the folder: ", std::strerror(errno)));
  }
  const FolderId id{st.st_dev, st.st_ino};
  if (std::find(above->begin(), above->end(), id) != above->end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir,
        ": a link to a folder that contains it, which would list its "
        "files without end"));
  }
  absl::StatusOr<Entries> entries = ReadFolder(dir);
  if (!entries.ok()) return entries.status();
  out->push_back({dir, std::move(entries->files)});
  above->push_back(id);
  for (const std::string& f : entries->folders) {
    const absl::Status s = Walk(absl::StrCat(dir, "/", f), above, out);
    if (!s.ok()) return s;
  }
  above->pop_back();
  return absl::OkStatus();
}

// Appends the samples below class folder `dir` with `label`; returns how
// many.
absl::StatusOr<size_t> ListClass(const std::string& dir, int64_t label,
                                 std::vector<FolderFile>* files) {
  std::vector<Walked> walked;
  std::vector<FolderId> above;
  if (absl::Status s = Walk(dir, &above, &walked); !s.ok()) return s;
  std::sort(walked.begin(), walked.end(), [](const Walked& a, const Walked& b) {
    return PythonLess(a.path, b.path);
  });
  size_t count = 0;
  for (const Walked& w : walked) {
    for (const std::string& name : w.files) {
      std::string path = absl::StrCat(w.path, "/", name);
      absl::StatusOr<bool> sample = IsSample(path);
      if (!sample.ok()) return sample.status();
      if (!*sample) continue;
      files->push_back({std::move(path), label});
      ++count;
    }
  }
  return count;
}

}  // namespace

absl::StatusOr<std::vector<FolderFile>> ListImageFolder(
    const std::string& root) {
  absl::StatusOr<Entries> top = ReadFolder(root);
  if (!top.ok()) return top.status();
  if (top->folders.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        root,
        ": no class sub-folders (a folder of data holds one sub-folder "
        "of .jpg, .jpeg or .png files per class)"));
  }
  std::vector<FolderFile> files;
  std::vector<std::string> empty;
  for (size_t k = 0; k < top->folders.size(); ++k) {
    const std::string& name = top->folders[k];
    absl::StatusOr<size_t> n = ListClass(absl::StrCat(root, "/", name),
                                         static_cast<int64_t>(k), &files);
    if (!n.ok()) return n.status();
    if (*n == 0) empty.push_back(name);
  }
  if (!empty.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        root, ": class folders with no .jpg, .jpeg or .png file: ",
        absl::StrJoin(empty, ", "),
        " (torchvision's ImageFolder refuses them too): add images or move "
        "them out"));
  }
  return files;
}

}  // namespace fusednorm
