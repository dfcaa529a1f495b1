// Software prefetch of a byte range, for the access patterns the hardware
// prefetchers do not follow (short runs at a large stride: channels-last
// pixels, the rows of a GEMM tile's output).
#ifndef KESTREL_CPU_PREFETCH_HPP
#define KESTREL_CPU_PREFETCH_HPP

#include <cstdint>

#include "core/common.hpp"

namespace kestrel {

// The cache lines of [a, a + bytes), fetched for reading / for writing.
inline void pf_read(const void *a, dim_t bytes) {
    const uintptr_t e = (uintptr_t)a + (uintptr_t)bytes;
    for (uintptr_t x = (uintptr_t)a & ~(uintptr_t)63; x < e; x += 64) __builtin_prefetch((const void *)x, 0, 3);
}
inline void pf_write(void *a, dim_t bytes) {
    const uintptr_t e = (uintptr_t)a + (uintptr_t)bytes;
    for (uintptr_t x = (uintptr_t)a & ~(uintptr_t)63; x < e; x += 64) __builtin_prefetch((void *)x, 1, 3);
}

} // namespace kestrel

#endif
