#include "api/api.hpp"
#include "core/engine.hpp"

using namespace kestrel;

extern "C" {

size_t dnnl_engine_get_count(dnnl_engine_kind_t kind) {
    return kind == dnnl_cpu ? 1 : 0;
}

dnnl_status_t dnnl_engine_create(dnnl_engine_t *engine, dnnl_engine_kind_t kind, size_t index) {
    if (!engine) return dnnl_invalid_arguments;
    if (kind != dnnl_cpu || index != 0) return dnnl_invalid_arguments;
    auto *e = make_handle<dnnl_engine>();
    if (!e) return dnnl_out_of_memory;
    e->kind = kind;
    e->index = index;
    *engine = e;
    return dnnl_success;
}

dnnl_status_t dnnl_engine_get_kind(dnnl_engine_t engine, dnnl_engine_kind_t *kind) {
    if (any_null(engine, kind)) return dnnl_invalid_arguments;
    *kind = engine->kind;
    return dnnl_success;
}

dnnl_status_t dnnl_engine_destroy(dnnl_engine_t engine) {
    delete engine;
    return dnnl_success;
}

// api-coverage: partial: the experimental profiling flag returns dnnl_unimplemented
dnnl_status_t dnnl_stream_create(dnnl_stream_t *stream, dnnl_engine_t engine, unsigned flags) {
    if (any_null(stream, engine)) return dnnl_invalid_arguments;
    // Profiling (0x4) exists only in experimental oneDNN builds.
    const unsigned profiling = 0x4u;
    const unsigned known = dnnl_stream_in_order | dnnl_stream_out_of_order | profiling;
    if (flags & ~known) return dnnl_invalid_arguments;
    if (flags & profiling) return dnnl_unimplemented;
    auto *s = make_handle<dnnl_stream>();
    if (!s) return dnnl_out_of_memory;
    s->engine = engine;
    s->flags = flags;
    *stream = s;
    return dnnl_success;
}

dnnl_status_t dnnl_stream_get_engine(const_dnnl_stream_t stream, dnnl_engine_t *engine) {
    if (any_null(stream, engine)) return dnnl_invalid_arguments;
    *engine = stream->engine;
    return dnnl_success;
}

// Execution is synchronous: by the time execute returns, the work is done.
dnnl_status_t dnnl_stream_wait(dnnl_stream_t stream) {
    return stream ? dnnl_success : dnnl_invalid_arguments;
}

dnnl_status_t dnnl_stream_destroy(dnnl_stream_t stream) {
    delete stream;
    return dnnl_success;
}

} // extern "C"
