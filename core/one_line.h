// One line of text for a terminal, a log or an exception: messages name
// files as the file system spells them, and a name may hold any byte but
// '/' and NUL. OneLine keeps a message as it is except for the bytes a
// terminal acts on instead of showing: C0 controls (newline, carriage
// return, escape, ...), DEL, and C1 controls in their UTF-8 spelling
// (U+0080..U+009F). Each such byte is shown as \xNN. Other UTF-8 text,
// such as "图片.jpg", is kept.
#ifndef FUSEDNORM_CORE_ONE_LINE_H_
#define FUSEDNORM_CORE_ONE_LINE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace fusednorm {

std::string OneLine(absl::string_view text);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_ONE_LINE_H_
