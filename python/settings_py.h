// Python keywords as setting values (core/settings.h): each keyword is
// checked against the rows a callable accepts and its Python type against
// the row's type (TypeError naming the keyword), then turned into the text
// the command line would give, so that the C++ side reads and validates
// both the same way (ValueError naming the keyword and the value). None
// leaves a setting at its default.
#ifndef FUSEDNORM_PYTHON_SETTINGS_PY_H_
#define FUSEDNORM_PYTHON_SETTINGS_PY_H_

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "core/settings.h"

namespace fusednorm {

namespace py = pybind11;

// The values of `keywords` for `accepted`; `callable` names the function in
// TypeErrors ("Loader() got an unexpected keyword argument 'x'").
SettingValues FromKeywords(const py::dict& keywords,
                           const std::vector<const Setting*>& accepted,
                           const char* callable);

// [(name, default or None, help)] of `accepted`, for docstrings.
py::list DescribeSettings(const std::vector<const Setting*>& accepted);

// A copy of `row` with another default, for an interface whose default
// differs from the row's (the copy lives as long as the process), and
// another help text when given (a literal: the row's spoke of its default).
const Setting* WithDefault(const Setting& row, std::string default_value,
                           const char* help = nullptr);

}  // namespace fusednorm

#endif  // FUSEDNORM_PYTHON_SETTINGS_PY_H_
