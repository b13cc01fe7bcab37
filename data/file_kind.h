// What a path holds, in the words errors use: "a regular file", "a
// directory", "a symbolic link" (from lstat), or "a device, pipe or
// socket". Reading, mapping and writing whole files accept regular files
// only, and say what they found instead.
#ifndef FUSEDNORM_DATA_FILE_KIND_H_
#define FUSEDNORM_DATA_FILE_KIND_H_

#include <sys/stat.h>

namespace fusednorm {

inline const char* FileKind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a device, pipe or socket";
}

}  // namespace fusednorm

#endif  // FUSEDNORM_DATA_FILE_KIND_H_
