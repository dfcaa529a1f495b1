#include "core/memory.hpp"

#include <cstdlib>

#include "scratchpad/sysmem.hpp"

dnnl_memory::~dnnl_memory() {
    if (owns_data) kestrel::aligned_free(data);
}

namespace kestrel {

void *aligned_malloc(size_t size, size_t alignment) {
    return sysmem::alloc(size, alignment);
}

void aligned_free(void *p) { sysmem::free(p); }

status_t memory_create(dnnl_memory **out, const memory_desc_t &md,
        dnnl_engine *engine, void *handle) {
    mdw_t m(md);
    if (!m.is_zero() && !m.is_blocked()) return status::invalid_arguments;
    if (m.has_runtime_dims_or_strides()) return status::invalid_arguments;
    auto *mem = new (std::nothrow) dnnl_memory;
    if (!mem) return status::out_of_memory;
    mem->engine = engine;
    mem->md = md;
    if (handle == DNNL_MEMORY_ALLOCATE) {
        size_t sz = m.size();
        // size() is the reach of the layout from offset0, as in oneDNN; a
        // buffer the library allocates itself must hold offset0 too (a
        // submemory descriptor starts there), or its own kernels run past
        // the end (found by fuzz_reorder).
        if (sz && md.offset0 > 0) sz += (size_t)md.offset0 * m.dt_size();
        if (sz) {
            mem->data = aligned_malloc(sz);
            if (!mem->data) {
                delete mem;
                return status::out_of_memory;
            }
            mem->owns_data = true;
        }
    } else if (handle != DNNL_MEMORY_NONE) {
        mem->data = handle;
    }
    *out = mem;
    return status::success;
}

} // namespace kestrel
