// C entry points of convolution forward and backward.
#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/engine.hpp"
#include "cpu/conv/conv_bwd.hpp"
#include "cpu/conv/conv_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_convolution_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t weights_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_desc,
        const dnnl_dims_t strides, const dnnl_dims_t dilates, const dnnl_dims_t padding_l,
        const dnnl_dims_t padding_r, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine)), dnnl_invalid_arguments, dnnl_convolution,
                   "a required argument is null");
    if (any_runtime(src_desc, weights_desc, bias_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)),
                   dnnl_invalid_arguments, dnnl_convolution,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_convolution_direct, dnnl_convolution_auto,
                             dnnl_convolution_winograd)),
                   dnnl_invalid_arguments, dnnl_convolution,
                   "algorithm is not valid for this primitive");
    return guard([&] {
        conv_desc_t d(dnnl_convolution);
        KESTREL_CHECK(conv_desc_init(d, prop_kind, alg_kind, src_desc, weights_desc, bias_desc,
                dst_desc, strides, dilates, padding_l, padding_r));
        return create_pd_handle(primitive_desc, d, attr, engine, conv_fwd_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_convolution_backward_data_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t weights_desc,
        const_dnnl_memory_desc_t diff_dst_desc, const dnnl_dims_t strides, const dnnl_dims_t dilates,
        const dnnl_dims_t padding_l, const dnnl_dims_t padding_r,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine)), dnnl_invalid_arguments, dnnl_convolution,
                   "a required argument is null");
    if (any_runtime(diff_src_desc, weights_desc, diff_dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_convolution_direct, dnnl_convolution_auto,
                             dnnl_convolution_winograd)),
                   dnnl_invalid_arguments, dnnl_convolution,
                   "algorithm is not valid for this primitive");
    return guard([&] {
        return conv_bwd_pd_create(primitive_desc, engine, dnnl_convolution, dnnl_backward_data, alg_kind,
                diff_src_desc, weights_desc, nullptr, diff_dst_desc, strides, dilates, padding_l,
                padding_r, hint_fwd_pd, attr);
    });
}

dnnl_status_t dnnl_convolution_backward_weights_primitive_desc_create(
        dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t diff_weights_desc,
        const_dnnl_memory_desc_t diff_bias_desc, const_dnnl_memory_desc_t diff_dst_desc,
        const dnnl_dims_t strides, const dnnl_dims_t dilates, const dnnl_dims_t padding_l,
        const dnnl_dims_t padding_r, const_dnnl_primitive_desc_t hint_fwd_pd,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine)), dnnl_invalid_arguments, dnnl_convolution,
                   "a required argument is null");
    if (any_runtime(src_desc, diff_weights_desc, diff_bias_desc, diff_dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_convolution_direct, dnnl_convolution_auto,
                             dnnl_convolution_winograd)),
                   dnnl_invalid_arguments, dnnl_convolution,
                   "algorithm is not valid for this primitive");
    return guard([&] {
        return conv_bwd_pd_create(primitive_desc, engine, dnnl_convolution, dnnl_backward_weights, alg_kind,
                src_desc, diff_weights_desc, diff_bias_desc, diff_dst_desc, strides, dilates,
                padding_l, padding_r, hint_fwd_pd, attr);
    });
}

} // extern "C"
