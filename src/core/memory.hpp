// A memory object: a descriptor, an engine and a data handle.
#ifndef KESTREL_CORE_MEMORY_HPP
#define KESTREL_CORE_MEMORY_HPP

#include "core/engine.hpp"
#include "core/memory_desc.hpp"

struct dnnl_memory {
    dnnl_engine *engine = nullptr;
    kestrel::memory_desc_t md;
    void *data = nullptr;
    bool owns_data = false;

    ~dnnl_memory();
};

namespace kestrel {

// Aligned allocation used for library-owned buffers; nullptr on failure.
constexpr size_t default_alignment = 64;
void *aligned_malloc(size_t size, size_t alignment = default_alignment);
void aligned_free(void *p);

// Creates a memory object; handle is DNNL_MEMORY_ALLOCATE, DNNL_MEMORY_NONE
// or a user pointer.
status_t memory_create(dnnl_memory **out, const memory_desc_t &md,
        dnnl_engine *engine, void *handle);

} // namespace kestrel

#endif
