// How much memory this process may use: the machine's, or its cgroup's
// limit where that is lower (a container). Read from /proc and /sys on
// each call; 0 where nothing says.
#ifndef FUSEDNORM_CORE_MEMORY_H_
#define FUSEDNORM_CORE_MEMORY_H_

#include <cstdint>

namespace fusednorm {

// The machine's memory, or the cgroup's limit where that is lower.
uint64_t MemoryLimitBytes();

// What more the process can have without swapping or the kernel killing
// it: the kernel's MemAvailable, or the cgroup's limit less its use where
// that is lower. 0 when neither is known.
uint64_t AvailableMemoryBytes();

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_MEMORY_H_
