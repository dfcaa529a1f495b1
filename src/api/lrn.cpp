#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/norm/lrn_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_lrn_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc, dnnl_dim_t local_size,
        float alpha, float beta, float k, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, dst_desc)), dnnl_invalid_arguments,
                   dnnl_lrn, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)),
                   dnnl_invalid_arguments, dnnl_lrn,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_lrn_across_channels, dnnl_lrn_within_channel)),
                   dnnl_invalid_arguments, dnnl_lrn, "algorithm is not valid for this primitive");
    KESTREL_VCHECK(!(local_size < 0), dnnl_invalid_arguments, dnnl_lrn, "local size is negative");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 2 || dst_desc->ndims != nd), dnnl_invalid_arguments, dnnl_lrn,
                   "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(!(mdw_t(*src_desc).is_any()), dnnl_invalid_arguments, dnnl_lrn,
                   "source format must not be any");
    for (int i = 0; i < nd; ++i)
        KESTREL_VCHECK(!(src_desc->dims[i] != dst_desc->dims[i]), dnnl_invalid_arguments, dnnl_lrn,
                       "dimensions are inconsistent between tensors");
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
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc, src_desc)),
                   dnnl_invalid_arguments, dnnl_lrn, "a required argument is null");
    // The hint is optional (without it the window sums are recomputed).
    KESTREL_VCHECK(!(hint_fwd_pd && (!hint_fwd_pd->pd() || hint_fwd_pd->pd()->kind() != dnnl_lrn)),
                   dnnl_invalid_arguments, dnnl_lrn,
                   "the forward hint is not a forward descriptor of this primitive");
    if (any_runtime(src_desc, diff_src_desc, diff_dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_lrn_across_channels, dnnl_lrn_within_channel)),
                   dnnl_invalid_arguments, dnnl_lrn, "algorithm is not valid for this primitive");
    KESTREL_VCHECK(!(local_size < 0), dnnl_invalid_arguments, dnnl_lrn, "local size is negative");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 2 || diff_src_desc->ndims != nd || diff_dst_desc->ndims != nd),
                   dnnl_invalid_arguments, dnnl_lrn,
                   "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(!(mdw_t(*src_desc).is_any()), dnnl_invalid_arguments, dnnl_lrn,
                   "source format must not be any");
    for (int i = 0; i < nd; ++i)
        KESTREL_VCHECK(!(src_desc->dims[i] != diff_src_desc->dims[i]
                         || src_desc->dims[i] != diff_dst_desc->dims[i]),
                       dnnl_invalid_arguments, dnnl_lrn,
                       "dimensions are inconsistent between tensors");
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
