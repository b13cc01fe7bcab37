// The files of an image folder and their labels, listed as torchvision's
// ImageFolder lists them, so that a folder gives the same samples in the same
// order with the same labels here and there:
//
// - the classes are the root's sub-folders (links followed), sorted by name;
//   class k has label k;
// - a class's files are every file below its folder, at any depth (links to
//   folders followed): the folders sorted by their paths, and in each folder
//   its files sorted by name;
// - a file counts when its name ends, in any case, in an extension torchvision
//   counts as an image; other files (README.txt, .npy) are not samples;
// - names sort as Python sorts them: by code point, each byte that is not
//   part of valid UTF-8 as Python's surrogate escape of it, U+DC80..U+DCFF.
//
// Where torchvision would load something this project cannot, or would fail
// later, the listing is refused with an error naming the path: an image file
// the codecs do not decode (.bmp, .ppm, .pgm, .tif, .tiff, .webp), a class
// with no image file (torchvision refuses it too), a folder that contains
// itself through a link, and a folder that cannot be read.
#ifndef FUSEDNORM_DATA_IMAGE_FOLDER_H_
#define FUSEDNORM_DATA_IMAGE_FOLDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace fusednorm {

struct FolderFile {
  std::string path;  // root + "/" + class + "/" + ... + "/" + name
  int64_t label = 0;
};

absl::StatusOr<std::vector<FolderFile>> ListImageFolder(
    const std::string& root);

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_IMAGE_FOLDER_H_
