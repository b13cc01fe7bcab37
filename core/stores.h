// When an output is stored with non-temporal (streaming) stores by default.
// Streaming stores bypass the caches: they win when the buffer written is
// larger than a core's caches and not read back soon by that core (a batch
// tensor, a transfer slot), where regular stores would read every line into
// the cache first and write it back when evicted. Regular stores win when the
// output stays in the cache and is read again soon.
#ifndef FUSEDNORM_CORE_STORES_H_
#define FUSEDNORM_CORE_STORES_H_

#include <cstddef>

namespace fusednorm {

// Buffers of at least this many bytes are streamed by default: above the
// per-core L2 of current x86 and Arm servers.
inline constexpr size_t kNontemporalAutoBytes = size_t{2} << 20;

}  // namespace fusednorm

#endif  // FUSEDNORM_CORE_STORES_H_
