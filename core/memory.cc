// Memory limits (memory.h).
#include "core/memory.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace fusednorm {
namespace {

// A cgroup's files: its limit, its use (page cache included) and the
// memory.stat field of its page cache.
struct CgroupFiles {
  const char* limit;
  const char* usage;
  const char* stat;
  const char* cache;
};
constexpr CgroupFiles kCgroups[] = {
    {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current",
     "/sys/fs/cgroup/memory.stat", "file"},
    {"/sys/fs/cgroup/memory/memory.limit_in_bytes",
     "/sys/fs/cgroup/memory/memory.usage_in_bytes",
     "/sys/fs/cgroup/memory/memory.stat", "total_cache"}};

// The first number in the file at `path`, or 0 (none, "max", unreadable).
uint64_t NumberIn(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  unsigned long long n = 0;
  if (std::fscanf(f, "%llu", &n) != 1) n = 0;
  std::fclose(f);
  return n;
}

// The number after "`name` " or "`name`: " at the start of a line of the
// file at `path`, times `unit`; 0 when there is none.
uint64_t Field(const std::string& path, const char* name, uint64_t unit) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return 0;
  const size_t n = std::strlen(name);
  char line[256];
  unsigned long long value = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, name, n) != 0) continue;
    const char* rest = line + n;
    if (*rest == ':') ++rest;
    if (*rest == ' ' && std::sscanf(rest, "%llu", &value) == 1) break;
    value = 0;
  }
  std::fclose(f);
  return static_cast<uint64_t>(value) * unit;
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
  for (const CgroupFiles& g : kCgroups)
    memory = LowestKnown(memory, NumberIn(g.limit));
  return memory;
}

uint64_t AvailableMemoryBytes() { return AvailableMemoryBytesUnder(""); }

uint64_t AvailableMemoryBytesUnder(const std::string& root) {
  uint64_t available = Field(root + "/proc/meminfo", "MemAvailable", 1024);
  for (const CgroupFiles& g : kCgroups) {
    const uint64_t limit = NumberIn(root + g.limit);
    if (limit == 0) continue;
    const uint64_t usage = NumberIn(root + g.usage);
    const uint64_t cache = Field(root + g.stat, g.cache, 1);
    const uint64_t used = usage - std::min(usage, cache);
    available = LowestKnown(available, limit > used ? limit - used : 1);
  }
  return available;
}

}  // namespace fusednorm
