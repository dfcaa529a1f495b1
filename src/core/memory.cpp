#include "core/memory.hpp"

#include <cstdlib>
#include <memory>

#include "scratchpad/sysmem.hpp"

dnnl_memory::~dnnl_memory() {
    if (owns_data) kestrel::aligned_free(data);
    for (int i = 0; i < max_extra; ++i)
        if (owns_extra[i]) kestrel::aligned_free(extra[i]);
}

void dnnl_memory::set_handle(int index, void *h) {
    void *&slot = index == 0 ? data : extra[index - 1];
    bool &owns = index == 0 ? owns_data : owns_extra[index - 1];
    if (owns) kestrel::aligned_free(slot);
    owns = false;
    slot = h;
}

namespace kestrel {

void *aligned_malloc(size_t size, size_t alignment) {
    return sysmem::alloc(size, alignment);
}

void aligned_free(void *p) { sysmem::free(p); }

status_t memory_create(dnnl_memory **out, const memory_desc_t &md,
        dnnl_engine *engine, int nhandles, void *const *handles) {
    if (nhandles != md_num_handles(md) || !handles) return status::invalid_arguments;
    if (nhandles == 1) return memory_create(out, md, engine, handles[0]);
    if (nhandles - 1 > dnnl_memory::max_extra) return status::invalid_arguments;
    std::unique_ptr<dnnl_memory> mem(new (std::nothrow) dnnl_memory);
    if (!mem) return status::out_of_memory;
    mem->engine = engine;
    mem->md = md;
    mem->nhandles = nhandles;
    for (int i = 0; i < nhandles; ++i) {
        void *h = handles[i];
        if (h == DNNL_MEMORY_ALLOCATE) {
            const size_t sz = mdw_t(md).size(i);
            h = nullptr;
            if (sz) {
                h = aligned_malloc(sz);
                if (!h) return status::out_of_memory;
            }
        } else if (h == DNNL_MEMORY_NONE) {
            h = nullptr;
        }
        // Owned from here on, so a later failure frees it.
        mem->set_handle(i, h);
        (i == 0 ? mem->owns_data : mem->owns_extra[i - 1]) = h && handles[i] == DNNL_MEMORY_ALLOCATE;
    }
    *out = mem.release();
    return status::success;
}

status_t memory_create(dnnl_memory **out, const memory_desc_t &md,
        dnnl_engine *engine, void *handle) {
    mdw_t m(md);
    // Blocked, or Kestrel's packed RNN weights (which only a reorder fills).
    if (!m.is_zero() && !m.is_blocked() && !md_is_rnn_packed(md)) return status::invalid_arguments;
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
        if (sz && md.offset0 > 0) sz = bytes_of(md.data_type, md.offset0 + m.span_elems());
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
