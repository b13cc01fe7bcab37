// How much memory this process may use: the machine's, or its cgroup's
// limit where that is lower (a container). Read from /proc and /sys on
// each call; 0 where nothing says.
#ifndef FUSEDNORM_CORE_MEMORY_H_
#define FUSEDNORM_CORE_MEMORY_H_

#include <cstdint>
#include <string>

namespace fusednorm {

// The machine's memory, or the cgroup's limit where that is lower.
uint64_t MemoryLimitBytes();

// What more the process can have without swapping or the kernel killing
// it: the kernel's MemAvailable, or the cgroup's limit less what it uses
// besides the page cache (which the kernel reclaims first), where that is
// lower. 0 when neither is known.
uint64_t AvailableMemoryBytes();

// The same with /proc and /sys read under the directory `root` (tests).
uint64_t AvailableMemoryBytesUnder(const std::string& root);

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_MEMORY_H_
