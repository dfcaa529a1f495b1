#include "api/api.hpp"
#include "core/prim_blob.hpp"
#include "core/primitive.hpp"
#include "core/verbose.hpp"
#include "dnnl_debug.h"

using namespace kestrel;

namespace {

// The error level's line for a primitive that could not be created or run.
void report_failure(const char *stage, dnnl_primitive_kind_t kind, dnnl_status_t st) {
    if (!verbose::enabled(verbose::flag_error, kind)) return;
    verbose::error("primitive", stage, kind, "%s", dnnl_status2str(st));
}

} // namespace

extern "C" {

dnnl_status_t dnnl_primitive_desc_next_impl(dnnl_primitive_desc_t primitive_desc) {
    if (!primitive_desc || !primitive_desc->list) return dnnl_invalid_arguments;
    dnnl_primitive_desc &h = *primitive_desc;
    return guard([&] {
        for (int i = h.impl_idx + 1; h.list[i].create; ++i) {
            pd_t *pd = nullptr;
            status_t st = h.list[i].create(&pd, h.desc.get(), &h.attr, h.engine, h.hint.get());
            if (st == dnnl_success) {
                h.impl.reset(pd);
                h.impl_idx = i;
                h.blob_id_ready = false;
                return dnnl_success;
            }
            if (st != dnnl_unimplemented) return st;
        }
        return dnnl_last_impl_reached;
    });
}

dnnl_status_t dnnl_primitive_desc_clone(dnnl_primitive_desc_t *primitive_desc,
        const_dnnl_primitive_desc_t existing_primitive_desc) {
    if (any_null(primitive_desc, existing_primitive_desc)) return dnnl_invalid_arguments;
    return guard([&] {
        const dnnl_primitive_desc &e = *existing_primitive_desc;
        std::unique_ptr<dnnl_primitive_desc> h(new dnnl_primitive_desc);
        h->desc.reset(e.desc->clone());
        h->impl.reset(e.impl->clone());
        if (e.hint) h->hint.reset(e.hint->clone());
        if (!h->desc || !h->impl || (e.hint && !h->hint)) return dnnl_out_of_memory;
        h->list = e.list;
        h->impl_idx = e.impl_idx;
        h->engine = e.engine;
        h->attr = e.attr;
        *primitive_desc = h.release();
        return dnnl_success;
    });
}

dnnl_status_t dnnl_primitive_desc_get_attr(const_dnnl_primitive_desc_t primitive_desc,
        const_dnnl_primitive_attr_t *attr) {
    if (any_null(primitive_desc, attr)) return dnnl_invalid_arguments;
    *attr = primitive_desc->pd()->attr();
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_desc_destroy(dnnl_primitive_desc_t primitive_desc) {
    delete primitive_desc;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_desc_query(const_dnnl_primitive_desc_t primitive_desc,
        dnnl_query_t what, int index, void *result) {
    if (any_null(primitive_desc, result) || index < 0) return dnnl_invalid_arguments;
    // Checked as a raw integer: a C caller may pass any int.
    const int q = raw_enum(what);
    if (q < 0 || q > (int)dnnl_query_max) return dnnl_invalid_arguments;
    if (q == dnnl_query_cache_blob_id)
        return guard([&] { return prim_blob_id(*primitive_desc, (const uint8_t **)result, nullptr); });
    if (q == dnnl_query_cache_blob_id_size_s64)
        return guard([&] { return prim_blob_id(*primitive_desc, nullptr, (dim_t *)result); });
    return guard([&] { return primitive_desc->pd()->query((dnnl_query_t)q, index, result); });
}

const_dnnl_memory_desc_t dnnl_primitive_desc_query_md(const_dnnl_primitive_desc_t primitive_desc,
        dnnl_query_t what, int index) {
    const int q = raw_enum(what);
    bool md_query = (q >= dnnl_query_some_md && q <= dnnl_query_exec_arg_md) || q == dnnl_query_exec_arg_md;
    if (!primitive_desc || !md_query || index < 0) return nullptr;
    const_dnnl_memory_desc_t md = nullptr;
    if (dnnl_primitive_desc_query(primitive_desc, what, index, &md) != dnnl_success) return nullptr;
    return md;
}

int dnnl_primitive_desc_query_s32(const_dnnl_primitive_desc_t primitive_desc, dnnl_query_t what,
        int index) {
    // Only the int-valued queries: any other writes more than an int.
    const int q = raw_enum(what);
    if (!primitive_desc
            || !(q == dnnl_query_num_of_inputs_s32 || q == dnnl_query_num_of_outputs_s32
                    || q == dnnl_query_axis_s32))
        return 0;
    int v = 0;
    if (dnnl_primitive_desc_query(primitive_desc, what, index, &v) != dnnl_success) return 0;
    return v;
}

dnnl_status_t dnnl_primitive_create(dnnl_primitive_t *primitive,
        const_dnnl_primitive_desc_t primitive_desc) {
    if (any_null(primitive, primitive_desc)) return dnnl_invalid_arguments;
    const dnnl_status_t st = guard([&] { return primitive_create(primitive, primitive_desc); });
    if (st != dnnl_success) report_failure("create", primitive_desc->pd()->kind(), st);
    return st;
}

dnnl_status_t dnnl_primitive_create_from_cache_blob(dnnl_primitive_t *primitive,
        const_dnnl_primitive_desc_t primitive_desc, size_t size, const uint8_t *cache_blob) {
    if (any_null(primitive, primitive_desc, cache_blob) || size == 0) return dnnl_invalid_arguments;
    return guard([&] {
        KESTREL_CHECK(prim_blob_check(*primitive_desc, cache_blob, size));
        return primitive_create(primitive, primitive_desc);
    });
}

dnnl_status_t dnnl_primitive_get_cache_blob(const_dnnl_primitive_t primitive, size_t *size,
        uint8_t *cache_blob) {
    if (any_null(primitive, size)) return dnnl_invalid_arguments;
    return guard([&] {
        std::vector<uint8_t> blob;
        KESTREL_CHECK(prim_to_blob(primitive->pd, blob));
        // Without a buffer, the size; with one, exactly that size.
        if (!cache_blob) {
            *size = blob.size();
            return dnnl_success;
        }
        if (*size != blob.size()) return dnnl_invalid_arguments;
        std::memcpy(cache_blob, blob.data(), blob.size());
        return dnnl_success;
    });
}

dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t primitive, dnnl_stream_t stream,
        int nargs, const dnnl_exec_arg_t *args) {
    if (any_null(primitive, stream) || nargs < 0 || (nargs > 0 && !args))
        return dnnl_invalid_arguments;
    const dnnl_status_t st = guard([&] { return primitive_execute(primitive, stream, nargs, args); });
    if (st != dnnl_success) report_failure("exec", primitive->impl->pd()->kind(), st);
    return st;
}

dnnl_status_t dnnl_primitive_get_primitive_desc(const_dnnl_primitive_t primitive,
        const_dnnl_primitive_desc_t *primitive_desc) {
    if (any_null(primitive, primitive_desc)) return dnnl_invalid_arguments;
    *primitive_desc = &primitive->pd;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_destroy(dnnl_primitive_t primitive) {
    delete primitive;
    return dnnl_success;
}

} // extern "C"
