#include "api/api.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/norm/lrn_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_lrn_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc, dnnl_dim_t local_size,
        float alpha, float beta, float k, const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, src_desc, dst_desc)) return dnnl_invalid_arguments;
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    if (!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)) return dnnl_invalid_arguments;
    if (!one_of(alg_kind, dnnl_lrn_across_channels, dnnl_lrn_within_channel)) return dnnl_invalid_arguments;
    if (local_size < 0) return dnnl_invalid_arguments;
    const int nd = src_desc->ndims;
    if (nd < 2 || dst_desc->ndims != nd) return dnnl_invalid_arguments;
    if (mdw_t(*src_desc).is_any()) return dnnl_invalid_arguments;
    for (int i = 0; i < nd; ++i)
        if (src_desc->dims[i] != dst_desc->dims[i]) return dnnl_invalid_arguments;
    return guard([&] {
        lrn_desc_t d;
        d.prop_kind = prop_kind;
        d.alg = alg_kind;
        d.src_md = *src_desc;
        d.dst_md = *dst_desc;
        d.local_size = local_size;
        d.alpha = alpha;
        d.beta = beta;
        d.k = k;
        return create_pd_handle(primitive_desc, d, attr, engine, lrn_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_lrn_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t diff_src_desc,
        const_dnnl_memory_desc_t diff_dst_desc, const_dnnl_memory_desc_t src_desc, dnnl_dim_t local_size,
        float alpha, float beta, float k, const_dnnl_primitive_desc_t hint_fwd_pd,
        const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc, src_desc)) return dnnl_invalid_arguments;
    // The hint is optional (without it the window sums are recomputed).
    if (hint_fwd_pd && (!hint_fwd_pd->pd() || hint_fwd_pd->pd()->kind() != dnnl_lrn)) return dnnl_invalid_arguments;
    if (any_runtime(src_desc, diff_src_desc, diff_dst_desc)) return dnnl_unimplemented;
    if (!one_of(alg_kind, dnnl_lrn_across_channels, dnnl_lrn_within_channel)) return dnnl_invalid_arguments;
    if (local_size < 0) return dnnl_invalid_arguments;
    const int nd = src_desc->ndims;
    if (nd < 2 || diff_src_desc->ndims != nd || diff_dst_desc->ndims != nd) return dnnl_invalid_arguments;
    if (mdw_t(*src_desc).is_any()) return dnnl_invalid_arguments;
    for (int i = 0; i < nd; ++i)
        if (src_desc->dims[i] != diff_src_desc->dims[i] || src_desc->dims[i] != diff_dst_desc->dims[i])
            return dnnl_invalid_arguments;
    return guard([&] {
        lrn_desc_t d;
        d.prop_kind = dnnl_backward_data;
        d.alg = alg_kind;
        d.src_md = *src_desc;
        d.diff_src_md = *diff_src_desc;
        d.diff_dst_md = *diff_dst_desc;
        d.local_size = local_size;
        d.alpha = alpha;
        d.beta = beta;
        d.k = k;
        return create_pd_handle(primitive_desc, d, attr, engine, lrn_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
