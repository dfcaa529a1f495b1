#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/prelu.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_prelu_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t weights_desc, const_dnnl_memory_desc_t dst_desc,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, weights_desc, dst_desc)),
                   dnnl_invalid_arguments, dnnl_prelu, "a required argument is null");
    if (any_runtime(src_desc, weights_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!elt::is_fwd(prop_kind)), dnnl_invalid_arguments, dnnl_prelu,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(!elt::md_usable(*src_desc) || !elt::md_usable(*weights_desc)
                     || !elt::md_usable(*dst_desc) || !elt::same_dims(*src_desc, *dst_desc)
                     || weights_desc->ndims != src_desc->ndims),
                   dnnl_invalid_arguments, dnnl_prelu,
                   "number of dimensions is not valid or differs between tensors");
    for (int d = 0; d < src_desc->ndims; ++d)
        KESTREL_VCHECK(!(weights_desc->dims[d] != src_desc->dims[d] && weights_desc->dims[d] != 1),
                       dnnl_invalid_arguments, dnnl_prelu,
                       "dimensions are inconsistent between tensors");
    return guard([&] {
        prelu_desc_t d;
        d.prop_kind = prop_kind;
        d.src_md = *src_desc;
        d.weights_md = *weights_desc;
        d.dst_md = *dst_desc;
        return create_pd_handle(primitive_desc, d, attr, engine, prelu_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_prelu_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t weights_desc,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t diff_weights_desc,
        const_dnnl_memory_desc_t diff_dst_desc, const_dnnl_primitive_desc_t hint_fwd_pd,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, weights_desc, diff_src_desc,
                              diff_weights_desc, diff_dst_desc)),
                   dnnl_invalid_arguments, dnnl_prelu, "a required argument is null");
    if (any_runtime(src_desc, weights_desc, diff_src_desc, diff_weights_desc, diff_dst_desc))
        return dnnl_unimplemented;
    for (auto *md : {src_desc, weights_desc, diff_src_desc, diff_weights_desc, diff_dst_desc})
        KESTREL_VCHECK(!(!elt::md_usable(*md)), dnnl_invalid_arguments, dnnl_prelu,
                       "a memory descriptor is zero, runtime-sized or of an unusable format");
    KESTREL_VCHECK(!(!elt::same_dims(*src_desc, *diff_src_desc)
                     || !elt::same_dims(*src_desc, *diff_dst_desc)
                     || !elt::same_dims(*weights_desc, *diff_weights_desc)
                     || weights_desc->ndims != src_desc->ndims),
                   dnnl_invalid_arguments, dnnl_prelu,
                   "number of dimensions is not valid or differs between tensors");
    for (int d = 0; d < src_desc->ndims; ++d)
        KESTREL_VCHECK(!(weights_desc->dims[d] != src_desc->dims[d] && weights_desc->dims[d] != 1),
                       dnnl_invalid_arguments, dnnl_prelu,
                       "dimensions are inconsistent between tensors");
    return guard([&] {
        prelu_bwd_desc_t d;
        d.src_md = *src_desc;
        d.weights_md = *weights_desc;
        d.diff_src_md = *diff_src_desc;
        d.diff_weights_md = *diff_weights_desc;
        d.diff_dst_md = *diff_dst_desc;
        return create_pd_handle(primitive_desc, d, attr, engine, prelu_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
