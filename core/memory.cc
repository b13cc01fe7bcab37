// Memory limits (memory.h).
#include "core/memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace fusednorm {
namespace {

// cgroup v2's files, then v1's.
constexpr const char* kLimits[] = {
    "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
constexpr const char* kUsages[] = {
    "/sys/fs/cgroup/memory.current",
    "/sys/fs/cgroup/memory/memory.usage_in_bytes"};

// The first number in the file at `path`, or 0 (none, "max", unreadable).
uint64_t NumberIn(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  unsigned long long n = 0;
  if (std::fscanf(f, "%llu", &n) != 1) n = 0;
  std::fclose(f);
  return n;
}

// /proc/meminfo's MemAvailable in bytes, or 0.
uint64_t MemAvailable() {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) break;
  }
  std::fclose(f);
  return static_cast<uint64_t>(kib) << 10;
}

// The lowest non-zero of a and b (0 when both are).
uint64_t LowestKnown(uint64_t a, uint64_t b) {
  if (a == 0) return b;
  if (b == 0) return a;
  return std::min(a, b);
}

}  // namespace

uint64_t MemoryLimitBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t memory = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) *
                                                static_cast<uint64_t>(page)
                                          : 0;
  for (const char* limit : kLimits)
    memory = LowestKnown(memory, NumberIn(limit));
  return memory;
}

uint64_t AvailableMemoryBytes() {
  uint64_t available = MemAvailable();
  for (size_t i = 0; i < 2; ++i) {
    const uint64_t limit = NumberIn(kLimits[i]);
    if (limit == 0) continue;
    const uint64_t used = NumberIn(kUsages[i]);
    available = LowestKnown(available, limit > used ? limit - used : 1);
  }
  return available;
}

}  // namespace fusednorm
