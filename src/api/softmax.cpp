#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/softmax_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_softmax_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc, int softmax_axis,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, dst_desc)), dnnl_invalid_arguments,
                   dnnl_softmax, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!elt::is_fwd(prop_kind)
                     || !one_of(alg_kind, dnnl_softmax_accurate, dnnl_softmax_log)),
                   dnnl_invalid_arguments, dnnl_softmax,
                   "propagation kind or algorithm is not valid");
    KESTREL_VCHECK(!(!elt::md_usable(*src_desc) || !elt::md_usable(*dst_desc)
                     || !elt::same_dims(*src_desc, *dst_desc)),
                   dnnl_invalid_arguments, dnnl_softmax,
                   "dimensions are inconsistent between tensors");
    KESTREL_VCHECK(!(softmax_axis < 0 || softmax_axis >= src_desc->ndims), dnnl_invalid_arguments,
                   dnnl_softmax, "axis is out of range");
    return guard([&] {
        softmax_desc_t d;
        d.prop_kind = prop_kind;
        d.alg = alg_kind;
        d.src_md = *src_desc;
        d.dst_md = *dst_desc;
        d.axis = softmax_axis;
        return create_pd_handle(primitive_desc, d, attr, engine, softmax_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_softmax_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t diff_src_desc,
        const_dnnl_memory_desc_t diff_dst_desc, const_dnnl_memory_desc_t dst_desc, int softmax_axis,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc, dst_desc)),
                   dnnl_invalid_arguments, dnnl_softmax, "a required argument is null");
    if (any_runtime(diff_src_desc, diff_dst_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_softmax_accurate, dnnl_softmax_log)),
                   dnnl_invalid_arguments, dnnl_softmax,
                   "algorithm is not valid for this primitive");
    for (auto *md : {diff_src_desc, diff_dst_desc, dst_desc})
        KESTREL_VCHECK(!(!elt::md_usable(*md) || !elt::same_dims(*md, *dst_desc)),
                       dnnl_invalid_arguments, dnnl_softmax,
                       "dimensions are inconsistent between tensors");
    KESTREL_VCHECK(!(softmax_axis < 0 || softmax_axis >= dst_desc->ndims), dnnl_invalid_arguments,
                   dnnl_softmax, "axis is out of range");
    return guard([&] {
        softmax_bwd_desc_t d;
        d.alg = alg_kind;
        d.data_md = *dst_desc;
        d.diff_src_md = *diff_src_desc;
        d.diff_dst_md = *diff_dst_desc;
        d.axis = softmax_axis;
        return create_pd_handle(primitive_desc, d, attr, engine, softmax_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
