#include "api/api.hpp"
#include "core/memory.hpp"
#include "core/verbose.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_memory_create(dnnl_memory_t *memory, const_dnnl_memory_desc_t memory_desc,
        dnnl_engine_t engine, void *handle) {
    if (any_null(memory, memory_desc, engine)) return dnnl_invalid_arguments;
    const dnnl_status_t st = guard([&] { return memory_create(memory, *memory_desc, engine, handle); });
    if (st == dnnl_out_of_memory)
        verbose::error("common", "create", verbose::component_memory, "out of memory allocating %zu bytes",
                dnnl_memory_desc_get_size(memory_desc));
    return st;
}

// One handle per buffer of the descriptor (md_num_handles), no more, no less.
dnnl_status_t dnnl_memory_create_v2(dnnl_memory_t *memory, const_dnnl_memory_desc_t memory_desc,
        dnnl_engine_t engine, int nhandles, void **handles) {
    if (any_null(memory, memory_desc, engine, handles) || nhandles < 1) return dnnl_invalid_arguments;
    const dnnl_status_t st
            = guard([&] { return memory_create(memory, *memory_desc, engine, nhandles, handles); });
    if (st == dnnl_out_of_memory)
        verbose::error("common", "create", verbose::component_memory, "out of memory allocating %zu bytes",
                dnnl_memory_desc_get_size_v2(memory_desc, 0));
    return st;
}

dnnl_status_t dnnl_memory_get_memory_desc(const_dnnl_memory_t memory,
        const_dnnl_memory_desc_t *memory_desc) {
    if (any_null(memory, memory_desc)) return dnnl_invalid_arguments;
    *memory_desc = &memory->md;
    return dnnl_success;
}

dnnl_status_t dnnl_memory_get_engine(const_dnnl_memory_t memory, dnnl_engine_t *engine) {
    if (any_null(memory, engine)) return dnnl_invalid_arguments;
    *engine = memory->engine;
    return dnnl_success;
}

dnnl_status_t dnnl_memory_map_data(const_dnnl_memory_t memory, void **mapped_ptr) {
    if (any_null(memory, mapped_ptr)) return dnnl_invalid_arguments;
    *mapped_ptr = memory->data;
    return dnnl_success;
}

dnnl_status_t dnnl_memory_map_data_v2(const_dnnl_memory_t memory, void **mapped_ptr, int index) {
    if (any_null(memory, mapped_ptr) || index < 0 || index >= memory->nhandles)
        return dnnl_invalid_arguments;
    *mapped_ptr = memory->handle(index);
    return dnnl_success;
}

dnnl_status_t dnnl_memory_unmap_data(const_dnnl_memory_t memory, void *mapped_ptr) {
    (void)mapped_ptr;
    return memory ? dnnl_success : dnnl_invalid_arguments;
}

dnnl_status_t dnnl_memory_unmap_data_v2(const_dnnl_memory_t memory, void *mapped_ptr, int index) {
    (void)mapped_ptr;
    return memory && index >= 0 && index < memory->nhandles ? dnnl_success : dnnl_invalid_arguments;
}

dnnl_status_t dnnl_memory_get_data_handle(const_dnnl_memory_t memory, void **handle) {
    if (any_null(memory, handle)) return dnnl_invalid_arguments;
    *handle = memory->data;
    return dnnl_success;
}

dnnl_status_t dnnl_memory_get_data_handle_v2(const_dnnl_memory_t memory, void **handle, int index) {
    if (any_null(memory, handle) || index < 0 || index >= memory->nhandles)
        return dnnl_invalid_arguments;
    *handle = memory->handle(index);
    return dnnl_success;
}

dnnl_status_t dnnl_memory_set_data_handle(dnnl_memory_t memory, void *handle) {
    if (!memory) return dnnl_invalid_arguments;
    memory->set_handle(0, handle);
    return dnnl_success;
}

dnnl_status_t dnnl_memory_set_data_handle_v2(dnnl_memory_t memory, void *handle, int index) {
    if (!memory || index < 0 || index >= memory->nhandles) return dnnl_invalid_arguments;
    memory->set_handle(index, handle);
    return dnnl_success;
}

dnnl_status_t dnnl_memory_destroy(dnnl_memory_t memory) {
    delete memory;
    return dnnl_success;
}

} // extern "C"
