// One line of text for a terminal, a log or an exception: messages name
// files as the file system spells them, and a name may hold any byte but
// '/' and NUL. OneLine keeps a message as it is except for what a terminal
// or a reader of lines would act on instead of showing, and for what
// Python cannot take as text:
//
// - C0 controls (newline, carriage return, escape, ...) and DEL;
// - C1 controls (U+0080..U+009F), the line and paragraph separators
//   (U+2028, U+2029) and the bidirectional overrides and isolates
//   (U+202A..U+202E, U+2066..U+2069), which reorder what a line shows;
// - bytes that are not part of well-formed UTF-8 (a name in Latin-1, a
//   sequence cut short, overlong forms, surrogates).
//
// Each such byte is shown as \xNN. Other UTF-8 text, such as "图片.jpg",
// is kept, and a backslash is kept too: OneLine of its own result changes
// nothing.
#ifndef FUSEDNORM_CORE_ONE_LINE_H_
#define FUSEDNORM_CORE_ONE_LINE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace fusednorm {

std::string OneLine(absl::string_view text);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_ONE_LINE_H_
