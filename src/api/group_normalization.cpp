#include "api/api.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/norm/gnorm_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_group_normalization_forward_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc, dnnl_dim_t groups,
        float epsilon, unsigned flags, const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, src_desc, dst_desc)) return dnnl_invalid_arguments;
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    if (!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)) return dnnl_invalid_arguments;
    const unsigned known = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift;
    if (flags & ~known) return dnnl_invalid_arguments;
    const int nd = src_desc->ndims;
    if (nd < 2 || dst_desc->ndims != nd) return dnnl_invalid_arguments;
    if (mdw_t(*src_desc).is_any()) return dnnl_invalid_arguments;
    for (int i = 0; i < nd; ++i)
        if (src_desc->dims[i] != dst_desc->dims[i]) return dnnl_invalid_arguments;
    // Groups must split the channels evenly.
    if (groups < 1 || groups > src_desc->dims[1] || src_desc->dims[1] % groups != 0)
        return dnnl_invalid_arguments;
    return guard([&] {
        gnorm_desc_t d;
        d.prop_kind = prop_kind;
        d.src_md = *src_desc;
        d.dst_md = *dst_desc;
        d.groups = groups;
        d.epsilon = epsilon;
        d.flags = flags;
        return create_pd_handle(primitive_desc, d, attr, engine, gnorm_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_group_normalization_backward_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t diff_dst_desc,
        const_dnnl_memory_desc_t src_desc, dnnl_dim_t groups, float epsilon, unsigned flags,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc, src_desc)) return dnnl_invalid_arguments;
    // The hint is optional (as in oneDNN); when given it must be of the kind.
    if (hint_fwd_pd && (!hint_fwd_pd->pd() || hint_fwd_pd->pd()->kind() != dnnl_group_normalization))
        return dnnl_invalid_arguments;
    if (any_runtime(src_desc, diff_src_desc, diff_dst_desc)) return dnnl_unimplemented;
    if (!one_of(prop_kind, dnnl_backward, dnnl_backward_data)) return dnnl_invalid_arguments;
    const unsigned known = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift;
    if (flags & ~known) return dnnl_invalid_arguments;
    const int nd = src_desc->ndims;
    if (nd < 2 || diff_src_desc->ndims != nd || diff_dst_desc->ndims != nd) return dnnl_invalid_arguments;
    if (mdw_t(*src_desc).is_any()) return dnnl_invalid_arguments;
    for (int i = 0; i < nd; ++i)
        if (src_desc->dims[i] != diff_src_desc->dims[i] || src_desc->dims[i] != diff_dst_desc->dims[i])
            return dnnl_invalid_arguments;
    if (groups < 1 || groups > src_desc->dims[1] || src_desc->dims[1] % groups != 0)
        return dnnl_invalid_arguments;
    return guard([&] {
        gnorm_desc_t d;
        d.prop_kind = prop_kind;
        d.src_md = *src_desc;
        d.diff_src_md = *diff_src_desc;
        d.diff_dst_md = *diff_dst_desc;
        d.groups = groups;
        d.epsilon = epsilon;
        d.flags = flags;
        return create_pd_handle(primitive_desc, d, attr, engine, gnorm_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
