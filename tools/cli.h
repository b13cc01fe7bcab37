// The `fusednorm` command-line program, callable in-process (for its tests):
//
//   fusednorm run        the training or val pipeline over a dataset, with
//                        a report
//   fusednorm normalize  one fused op over uint8 images (.npy, PNG, JPEG),
//                        into a .npy
//   fusednorm kernels    the dispatch table and the default kernel
//
// Exit status: 0 success, 2 usage error (bad flag or value), 1 data error
// (unreadable input, bad file contents, failed write); tools/exit_code.h is
// the one place that decides. Errors go to `err`, naming the flag or file.
#ifndef FUSEDNORM_TOOLS_CLI_H_
#define FUSEDNORM_TOOLS_CLI_H_

#include <cstdio>
#include <string>
#include <vector>

namespace fusednorm {

// Runs one command; `args` excludes the program name. Returns the exit
// status.
int FusednormMain(const std::vector<std::string>& args, FILE* out, FILE* err);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_CLI_H_
