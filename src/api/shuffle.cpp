#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/shuffle.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_shuffle_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t dst_desc, int axis, dnnl_dim_t group_size,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, dst_desc)), dnnl_invalid_arguments,
                   dnnl_shuffle, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!elt::is_fwd(prop_kind)), dnnl_invalid_arguments, dnnl_shuffle,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(!elt::md_usable(*src_desc) || !elt::md_usable(*dst_desc)
                     || !elt::same_dims(*src_desc, *dst_desc)),
                   dnnl_invalid_arguments, dnnl_shuffle,
                   "dimensions are inconsistent between tensors");
    KESTREL_VCHECK(!(axis < 0 || axis >= src_desc->ndims || group_size <= 0
                     || src_desc->dims[axis] % group_size != 0),
                   dnnl_invalid_arguments, dnnl_shuffle,
                   "axis out of range or group size does not divide it");
    return guard([&] {
        shuffle_desc_t d;
        d.prop_kind = prop_kind;
        d.src_md = *src_desc;
        d.dst_md = *dst_desc;
        d.axis = axis;
        d.group_size = group_size;
        return create_pd_handle(primitive_desc, d, attr, engine, shuffle_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_shuffle_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t diff_src_desc,
        const_dnnl_memory_desc_t diff_dst_desc, int axis, dnnl_dim_t group_size,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc)),
                   dnnl_invalid_arguments, dnnl_shuffle, "a required argument is null");
    if (any_runtime(diff_src_desc, diff_dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!elt::md_usable(*diff_src_desc) || !elt::md_usable(*diff_dst_desc)
                     || !elt::same_dims(*diff_src_desc, *diff_dst_desc)),
                   dnnl_invalid_arguments, dnnl_shuffle,
                   "dimensions are inconsistent between tensors");
    KESTREL_VCHECK(!(axis < 0 || axis >= diff_src_desc->ndims || group_size <= 0
                     || diff_src_desc->dims[axis] % group_size != 0),
                   dnnl_invalid_arguments, dnnl_shuffle,
                   "axis out of range or group size does not divide it");
    return guard([&] {
        shuffle_bwd_desc_t d;
        d.diff_src_md = *diff_src_desc;
        d.diff_dst_md = *diff_dst_desc;
        d.axis = axis;
        d.group_size = group_size;
        return create_pd_handle(primitive_desc, d, attr, engine, shuffle_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
