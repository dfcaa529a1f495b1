// Matmul C entry point: shape validation, then the implementation walk.
#include "api/api.hpp"
#include "cpu/gemm/matmul_pd.hpp"

using namespace kestrel;

namespace {

bool rt(dim_t v) { return v == DNNL_RUNTIME_DIM_VAL; }
bool same_or_rt(dim_t a, dim_t b) { return a == b || rt(a) || rt(b); }

status_t check_shapes(const memory_desc_t &s, const memory_desc_t &w, const memory_desc_t *b,
        const memory_desc_t &d) {
    const int nd = d.ndims;
    if (nd < 2 || nd > 12 || s.ndims != nd || w.ndims != nd) return status::invalid_arguments;
    if (!same_or_rt(s.dims[nd - 1], w.dims[nd - 2]) || !same_or_rt(s.dims[nd - 2], d.dims[nd - 2])
            || !same_or_rt(w.dims[nd - 1], d.dims[nd - 1]))
        return status::invalid_arguments;
    for (int i = 0; i < nd - 2; ++i) {
        if (rt(s.dims[i]) || rt(w.dims[i]) || rt(d.dims[i])) return status::unimplemented;
        const dim_t sd = s.dims[i], wd = w.dims[i], dd = d.dims[i];
        if ((sd != 1 && sd != dd) || (wd != 1 && wd != dd)) return status::invalid_arguments;
        if (sd != wd && sd != 1 && wd != 1) return status::invalid_arguments;
    }
    if (b && b->ndims != 0) {
        if (b->ndims != nd) return status::invalid_arguments;
        for (int i = 0; i < nd; ++i)
            if (b->dims[i] != 1 && !same_or_rt(b->dims[i], d.dims[i])) return status::invalid_arguments;
    }
    return status::success;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_matmul_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t weights_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_desc, const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, src_desc, weights_desc, dst_desc))
        return dnnl_invalid_arguments;
    return guard([&]() -> dnnl_status_t {
        KESTREL_CHECK(check_shapes(*src_desc, *weights_desc, bias_desc, *dst_desc));
        matmul_desc_t d;
        d.src_md = *src_desc;
        d.weights_md = *weights_desc;
        d.bias_md = bias_desc ? *bias_desc : zero_md();
        d.dst_md = *dst_desc;
        return create_pd_handle(primitive_desc, d, attr, engine, matmul_impl_list, nullptr);
    });
}

} // extern "C"
