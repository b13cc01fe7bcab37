// libjpeg's error handling as fusednorm's JPEG code wants it: an error
// keeps libjpeg's message and jumps back to the caller's setjmp (libjpeg's
// default exits the process); warnings are accepted, as Pillow accepts
// them, except a premature end of data, which is an error.
//
//   JpegErrors err;
//   cinfo.err = err.Install();
//   if (setjmp(err.jump)) { ... err.message says why ... }
#ifndef FUSEDNORM_CODECS_JPEG_ERRORS_H_
#define FUSEDNORM_CODECS_JPEG_ERRORS_H_

// jpeglib.h needs <cstdio> before it.
// clang-format off
#include <csetjmp>
#include <cstdio>
#include <jpeglib.h>
// clang-format on

namespace fusednorm {

struct JpegErrors {
  jpeg_error_mgr pub;  // first: libjpeg's pointer to it is ours
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = "";

  // The handlers, in `pub`, for a decompressor's or compressor's `err`.
  jpeg_error_mgr* Install();
};

}  // namespace fusednorm

#endif  // FUSEDNORM_CODECS_JPEG_ERRORS_H_
