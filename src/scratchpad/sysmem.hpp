// The one place that asks the system for large buffers. Counting every call
// lets tests prove that the steady state allocates nothing, and a failure
// switch lets them walk the out-of-memory paths.
#ifndef KESTREL_SCRATCHPAD_SYSMEM_HPP
#define KESTREL_SCRATCHPAD_SYSMEM_HPP

#include <cstddef>
#include <cstdint>

namespace kestrel {
namespace sysmem {

void *alloc(size_t size, size_t alignment);
void free(void *p);

struct counters_t {
    uint64_t allocs; // successful calls of alloc()
    uint64_t frees;
};
counters_t counters();

// Test hook: the next `n` allocations succeed, every one after fails.
// A negative n turns failures off.
void fail_after(long n);

} // namespace sysmem
} // namespace kestrel

#endif
