// A memory object: a descriptor, an engine and its data handles. A dense
// or blocked descriptor has one handle (`data`); a sparse one has
// md_num_handles(md) of them, the first being `data` and the others `extra`.
#ifndef KESTREL_CORE_MEMORY_HPP
#define KESTREL_CORE_MEMORY_HPP

#include "core/engine.hpp"
#include "core/memory_desc.hpp"

struct dnnl_memory {
    static constexpr int max_extra = 3; // a 2D COO/CSR or packed: 3 handles

    dnnl_engine *engine = nullptr;
    kestrel::memory_desc_t md;
    void *data = nullptr;
    bool owns_data = false;
    int nhandles = 1;
    void *extra[max_extra] = {};
    bool owns_extra[max_extra] = {};

    // Handle `index` (0 is `data`); nullptr when out of range.
    void *handle(int index) const {
        if (index == 0) return data;
        return index > 0 && index < nhandles ? extra[index - 1] : nullptr;
    }
    // Replaces handle `index`, freeing a buffer the library allocated.
    void set_handle(int index, void *h);

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
// The same with one handle per buffer of the descriptor: nhandles must be
// md_num_handles(md); each handle may be DNNL_MEMORY_ALLOCATE or
// DNNL_MEMORY_NONE.
status_t memory_create(dnnl_memory **out, const memory_desc_t &md,
        dnnl_engine *engine, int nhandles, void *const *handles);

} // namespace kestrel

#endif
