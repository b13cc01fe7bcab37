// The fusednorm program's entry point (the commands are in cli.cc).
#include <string>
#include <vector>

#include "tools/cli.h"

int main(int argc, char** argv) {
  return fusednorm::FusednormMain(
      std::vector<std::string>(argv + 1, argv + argc), stdout, stderr);
}
