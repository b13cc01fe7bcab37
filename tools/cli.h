// The `fusednorm` command-line program, callable in-process (for its tests):
//   fusednorm run        the training/val pipeline over a dataset, with a
//   report fusednorm normalize  one fused op over uint8 arrays (.npy) or
//   images, into a .npy fusednorm kernels    the dispatch table and Highway
//   targets
// Exit status: 0 success, 2 usage error (bad flag or value), 1 data error
// (unreadable input, bad file contents). Errors go to `err` naming the flag or
// file.
#ifndef FUSEDNORM_TOOLS_CLI_H_
#define FUSEDNORM_TOOLS_CLI_H_

#include <cstdio>
#include <string>
#include <vector>

namespace fusednorm {

// Runs one command; `args` excludes the program name.
int FusednormMain(const std::vector<std::string>& args, FILE* out, FILE* err);

}  // namespace fusednorm

#endif  // FUSEDNORM_TOOLS_CLI_H_
