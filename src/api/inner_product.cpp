// Inner product C entry points: forward, backward data, backward weights.
#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/gemm/inner_product_bwd.hpp"
#include "cpu/gemm/inner_product_pd.hpp"

using namespace kestrel;

namespace {

// Checks the shapes shared by every propagation kind (src_desc is diff_src
// for backward data, weights_desc diff_weights for backward weights, and so
// on) and creates the handle from `list`.
dnnl_status_t ip_create(dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        dnnl_prop_kind_t prop_kind, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t weights_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_desc, const_dnnl_primitive_desc_t hint,
        const_dnnl_primitive_attr_t attr, impl_list_t list) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, weights_desc, dst_desc)),
                   dnnl_invalid_arguments, dnnl_inner_product, "a required argument is null");
    if (any_runtime(src_desc, weights_desc, bias_desc, dst_desc)) return dnnl_unimplemented;
    const memory_desc_t &s = *src_desc, &w = *weights_desc, &d = *dst_desc;
    KESTREL_VCHECK(!(s.ndims < 2 || s.ndims > 5 || w.ndims != s.ndims || d.ndims != 2),
                   dnnl_invalid_arguments, dnnl_inner_product,
                   "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(!(d.dims[0] != s.dims[0] || d.dims[1] != w.dims[0]), dnnl_invalid_arguments,
                   dnnl_inner_product, "dimensions are inconsistent between tensors");
    // Empty weights (IC or OC of 0) are refused, as oneDNN refuses them.
    KESTREL_VCHECK(!(mdw_t(w).nelems() == 0), dnnl_invalid_arguments, dnnl_inner_product,
                   "weights are empty");
    for (int i = 1; i < s.ndims; ++i)
        KESTREL_VCHECK(!(w.dims[i] != s.dims[i]), dnnl_invalid_arguments, dnnl_inner_product,
                       "dimensions are inconsistent between tensors");
    for (int i = 0; i < s.ndims; ++i)
        if (s.dims[i] == DNNL_RUNTIME_DIM_VAL || w.dims[i] == DNNL_RUNTIME_DIM_VAL)
            return dnnl_unimplemented;
    const bool with_bias = bias_desc && bias_desc->ndims != 0;
    KESTREL_VCHECK(!(with_bias && (bias_desc->ndims != 1 || bias_desc->dims[0] != d.dims[1])),
                   dnnl_invalid_arguments, dnnl_inner_product,
                   "bias is not one dim of the output channels");
    // A hint must be an inner product forward descriptor.
    KESTREL_VCHECK(!(hint
                     && (!hint->pd() || hint->pd()->kind() != dnnl_inner_product
                         || !one_of(hint->pd()->prop_kind(), dnnl_forward_training,
                                    dnnl_forward_inference))),
                   dnnl_invalid_arguments, dnnl_inner_product,
                   "the forward hint is not a forward descriptor of this primitive");
    return guard([&]() -> dnnl_status_t {
        ip_fwd_desc_t desc;
        desc.prop_kind = prop_kind;
        desc.src_md = s;
        desc.weights_md = w;
        desc.bias_md = with_bias ? *bias_desc : zero_md();
        desc.dst_md = d;
        return create_pd_handle(primitive_desc, desc, attr, engine, list, hint);
    });
}

} // namespace

extern "C" {

dnnl_status_t dnnl_inner_product_forward_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_prop_kind_t prop_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t weights_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_desc,
        const_dnnl_primitive_attr_t attr) {
    if (!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)) {
        KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, weights_desc, dst_desc)),
                       dnnl_invalid_arguments, dnnl_inner_product, "a required argument is null");
        if (any_runtime(src_desc, weights_desc, bias_desc, dst_desc)) return dnnl_unimplemented;
        return dnnl_invalid_arguments;
    }
    return ip_create(primitive_desc, engine, prop_kind, src_desc, weights_desc, bias_desc, dst_desc,
            nullptr, attr, ip_fwd_impl_list);
}

dnnl_status_t dnnl_inner_product_backward_data_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t weights_desc,
        const_dnnl_memory_desc_t diff_dst_desc, const_dnnl_primitive_desc_t hint_fwd_pd,
        const_dnnl_primitive_attr_t attr) {
    return ip_create(primitive_desc, engine, dnnl_backward_data, diff_src_desc, weights_desc,
            nullptr, diff_dst_desc, hint_fwd_pd, attr, ip_bwd_impl_list);
}

dnnl_status_t dnnl_inner_product_backward_weights_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t diff_weights_desc,
        const_dnnl_memory_desc_t diff_bias_desc, const_dnnl_memory_desc_t diff_dst_desc,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    return ip_create(primitive_desc, engine, dnnl_backward_weights, src_desc, diff_weights_desc,
            diff_bias_desc, diff_dst_desc, hint_fwd_pd, attr, ip_bwd_impl_list);
}

} // extern "C"
