#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/norm/lnorm_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_layer_normalization_forward_primitive_desc_create_v2(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc,
        const_dnnl_memory_desc_t stat_desc, dnnl_data_type_t scale_shift_data_type, float epsilon,
        unsigned flags, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, dst_desc)), dnnl_invalid_arguments,
                   dnnl_layer_normalization, "a required argument is null");
    if (any_runtime(src_desc, dst_desc, stat_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)),
                   dnnl_invalid_arguments, dnnl_layer_normalization,
                   "propagation kind is not valid for this primitive");
    const unsigned known = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift | dnnl_rms_norm;
    KESTREL_VCHECK(!(flags & ~known), dnnl_invalid_arguments, dnnl_layer_normalization,
                   "flags hold unknown bits");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 2 || nd > 5 || dst_desc->ndims != nd), dnnl_invalid_arguments,
                   dnnl_layer_normalization,
                   "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(!(mdw_t(*src_desc).is_any()), dnnl_invalid_arguments, dnnl_layer_normalization,
                   "source format must not be any");
    for (int i = 0; i < nd; ++i)
        KESTREL_VCHECK(!(src_desc->dims[i] != dst_desc->dims[i]), dnnl_invalid_arguments,
                       dnnl_layer_normalization, "dimensions are inconsistent between tensors");
    if (stat_desc && !mdw_t(*stat_desc).is_zero()) {
        KESTREL_VCHECK(!(stat_desc->ndims != nd - 1), dnnl_invalid_arguments,
                       dnnl_layer_normalization,
                       "number of dimensions is not valid or differs between tensors");
        for (int i = 0; i < nd - 1; ++i)
            KESTREL_VCHECK(!(stat_desc->dims[i] != src_desc->dims[i]), dnnl_invalid_arguments,
                           dnnl_layer_normalization, "dimensions are inconsistent between tensors");
    }
    return guard([&] {
        lnorm_desc_t d;
        d.prop_kind = prop_kind;
        d.src_md = *src_desc;
        d.dst_md = *dst_desc;
        if (stat_desc && !mdw_t(*stat_desc).is_zero()) {
            d.stat_md = *stat_desc;
        } else {
            const status_t st = md_init_by_tag(d.stat_md, nd - 1, src_desc->dims, dnnl_f32,
                    dnnl_format_tag_any);
            if (st != status::success) return st;
        }
        d.ss_dt = scale_shift_data_type;
        d.epsilon = epsilon;
        d.flags = flags;
        return create_pd_handle(primitive_desc, d, attr, engine, lnorm_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_layer_normalization_forward_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc,
        const_dnnl_memory_desc_t stat_desc, float epsilon, unsigned flags,
        const_dnnl_primitive_attr_t attr) {
    return dnnl_layer_normalization_forward_primitive_desc_create_v2(primitive_desc, engine, prop_kind,
            src_desc, dst_desc, stat_desc, dnnl_f32, epsilon, flags, attr);
}

dnnl_status_t dnnl_layer_normalization_backward_primitive_desc_create_v2(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t diff_dst_desc,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t stat_desc,
        dnnl_data_type_t diff_scale_shift_data_type, dnnl_data_type_t scale_shift_data_type, float epsilon,
        unsigned flags, const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc, src_desc)),
                   dnnl_invalid_arguments, dnnl_layer_normalization, "a required argument is null");
    // The hint is optional (as in oneDNN); when given it must be of the kind.
    KESTREL_VCHECK(
            !(hint_fwd_pd
              && (!hint_fwd_pd->pd() || hint_fwd_pd->pd()->kind() != dnnl_layer_normalization)),
            dnnl_invalid_arguments, dnnl_layer_normalization,
            "the forward hint is not a forward descriptor of this primitive");
    if (any_runtime(src_desc, diff_src_desc, diff_dst_desc, stat_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(prop_kind, dnnl_backward, dnnl_backward_data)), dnnl_invalid_arguments,
                   dnnl_layer_normalization, "propagation kind is not valid for this primitive");
    const unsigned known = dnnl_use_global_stats | dnnl_use_scale | dnnl_use_shift | dnnl_rms_norm;
    KESTREL_VCHECK(!(flags & ~known), dnnl_invalid_arguments, dnnl_layer_normalization,
                   "flags hold unknown bits");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 2 || nd > 5 || diff_src_desc->ndims != nd || diff_dst_desc->ndims != nd),
                   dnnl_invalid_arguments, dnnl_layer_normalization,
                   "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(!(mdw_t(*src_desc).is_any()), dnnl_invalid_arguments, dnnl_layer_normalization,
                   "source format must not be any");
    for (int i = 0; i < nd; ++i)
        KESTREL_VCHECK(!(src_desc->dims[i] != diff_src_desc->dims[i]
                         || src_desc->dims[i] != diff_dst_desc->dims[i]),
                       dnnl_invalid_arguments, dnnl_layer_normalization,
                       "dimensions are inconsistent between tensors");
    if (stat_desc && !mdw_t(*stat_desc).is_zero()) {
        KESTREL_VCHECK(!(stat_desc->ndims != nd - 1), dnnl_invalid_arguments,
                       dnnl_layer_normalization,
                       "number of dimensions is not valid or differs between tensors");
        for (int i = 0; i < nd - 1; ++i)
            KESTREL_VCHECK(!(stat_desc->dims[i] != src_desc->dims[i]), dnnl_invalid_arguments,
                           dnnl_layer_normalization, "dimensions are inconsistent between tensors");
    }
    return guard([&] {
        lnorm_desc_t d;
        d.prop_kind = prop_kind;
        d.src_md = *src_desc;
        d.diff_src_md = *diff_src_desc;
        d.diff_dst_md = *diff_dst_desc;
        if (stat_desc && !mdw_t(*stat_desc).is_zero()) {
            d.stat_md = *stat_desc;
        } else {
            const status_t st = md_init_by_tag(d.stat_md, nd - 1, src_desc->dims, dnnl_f32,
                    dnnl_format_tag_any);
            if (st != status::success) return st;
        }
        d.ss_dt = scale_shift_data_type;
        d.diff_ss_dt = diff_scale_shift_data_type;
        d.epsilon = epsilon;
        d.flags = flags;
        return create_pd_handle(primitive_desc, d, attr, engine, lnorm_bwd_impl_list, hint_fwd_pd);
    });
}

dnnl_status_t dnnl_layer_normalization_backward_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t diff_dst_desc,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t stat_desc, float epsilon,
        unsigned flags, const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    return dnnl_layer_normalization_backward_primitive_desc_create_v2(primitive_desc, engine, prop_kind,
            diff_src_desc, diff_dst_desc, src_desc, stat_desc, dnnl_f32, dnnl_f32, epsilon, flags,
            hint_fwd_pd, attr);
}

} // extern "C"
