// libjpeg's error handlers for JpegErrors (jpeg_errors.h).
#include "codecs/jpeg_errors.h"

#include <jerror.h>

namespace fusednorm {
namespace {

void ErrorExit(j_common_ptr cinfo) {
  JpegErrors* e = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}

void EmitMessage(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) ErrorExit(cinfo);
}

}  // namespace

jpeg_error_mgr* JpegErrors::Install() {
  jpeg_std_error(&pub);
  pub.error_exit = ErrorExit;
  pub.emit_message = EmitMessage;
  return &pub;
}

}  // namespace fusednorm
