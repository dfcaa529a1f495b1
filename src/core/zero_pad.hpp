// Keeps the padding of a blocked memory zero. oneDNN guarantees that every
// element a primitive writes inside padded_dims but outside dims is +0.0,
// whatever the primitive computes (a post-op can map 0 to anything), so the
// execution path zeroes the padding of every output once the kernel is done.
#ifndef KESTREL_CORE_ZERO_PAD_HPP
#define KESTREL_CORE_ZERO_PAD_HPP

#include "core/memory_desc.hpp"

namespace kestrel {

// Writes zero bits to every padding element of the memory at `ptr`
// described by `md`. Touches nothing else. A no-op for descriptors without
// padding, with runtime dims, of a non-blocked format, of a sub-byte type,
// or describing a sub-memory (non-zero padded offsets: the padding belongs
// to the parent).
void zero_pad(const memory_desc_t &md, void *ptr);

} // namespace kestrel

#endif
