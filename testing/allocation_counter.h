// Counting the C++ heap allocations of a test binary: linking
// //testing:allocation_counter replaces the global operator new with one
// that counts every call (and operator delete to match). Under a sanitizer,
// whose allocator must stay in place, nothing is replaced and
// kAllocationsCounted is false: tests skip.
#ifndef FUSEDNORM_TESTING_ALLOCATION_COUNTER_H_
#define FUSEDNORM_TESTING_ALLOCATION_COUNTER_H_

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FUSEDNORM_SANITIZED_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FUSEDNORM_SANITIZED_ALLOCATOR 1
#endif

namespace fusednorm {

#ifdef FUSEDNORM_SANITIZED_ALLOCATOR
inline constexpr bool kAllocationsCounted = false;
#else
inline constexpr bool kAllocationsCounted = true;
#endif

// operator new calls in the process so far.
long Allocations();

}  // namespace fusednorm

#endif  // FUSEDNORM_TESTING_ALLOCATION_COUNTER_H_
