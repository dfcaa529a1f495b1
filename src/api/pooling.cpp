#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/pooling/pooling_pd.hpp"

using namespace kestrel;

namespace {

// Checks the arguments both directions share and fills the op descriptor
// (src/dst: diff_src/diff_dst for backward).
status_t make_pooling_desc(pooling_desc_t &d, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t dst_desc, const dnnl_dims_t strides, const dnnl_dims_t kernel,
        const dnnl_dims_t dilation, const dnnl_dims_t padding_l, const dnnl_dims_t padding_r) {
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_pooling_max, dnnl_pooling_avg_include_padding,
                             dnnl_pooling_avg_exclude_padding)),
                   dnnl_invalid_arguments, dnnl_pooling,
                   "algorithm is not valid for this primitive");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 3 || nd > 5 || dst_desc->ndims != nd), dnnl_invalid_arguments,
                   dnnl_pooling, "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(
            !(src_desc->dims[0] != dst_desc->dims[0] || src_desc->dims[1] != dst_desc->dims[1]),
            dnnl_invalid_arguments, dnnl_pooling, "dimensions are inconsistent between tensors");
    d.alg = alg_kind;
    d.src_md = *src_desc;
    d.dst_md = *dst_desc;
    for (int i = 0; i < nd - 2; ++i) {
        d.strides[i] = strides[i];
        d.kernel[i] = kernel[i];
        d.dilation[i] = dilation ? dilation[i] : 0;
        d.padding_l[i] = padding_l[i];
        d.padding_r[i] = padding_r ? padding_r[i] : padding_l[i];
        KESTREL_VCHECK(!(d.strides[i] < 1 || d.kernel[i] < 1 || d.dilation[i] < 0
                         || d.padding_l[i] < 0 || d.padding_r[i] < 0),
                       dnnl_invalid_arguments, dnnl_pooling,
                       "window (kernel, strides, padding, factors) does not fit the shapes");
        const dim_t src = src_desc->dims[2 + i], dst = dst_desc->dims[2 + i];
        // Hostile kernel, dilation, padding or runtime dims must not
        // overflow (found by fuzz_pooling).
        dim_t dil1, range, span;
        KESTREL_VCHECK(!(__builtin_add_overflow(d.dilation[i], (dim_t)1, &dil1)
                         || __builtin_mul_overflow(d.kernel[i] - 1, dil1, &range)
                         || __builtin_add_overflow(range, (dim_t)1, &range)
                         || __builtin_sub_overflow(src, range, &span)
                         || __builtin_add_overflow(span, d.padding_l[i], &span)
                         || __builtin_add_overflow(span, d.padding_r[i], &span)),
                       dnnl_invalid_arguments, dnnl_pooling,
                       "window (kernel, strides, padding, factors) does not fit the shapes");
        KESTREL_VCHECK(!(span < 0 || span / d.strides[i] + 1 != dst), dnnl_invalid_arguments,
                       dnnl_pooling,
                       "window (kernel, strides, padding, factors) does not fit the shapes");
    }
    return dnnl_success;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_pooling_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc,
        const dnnl_dims_t strides, const dnnl_dims_t kernel, const dnnl_dims_t dilation,
        const dnnl_dims_t padding_l, const dnnl_dims_t padding_r, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(
            !(any_null(primitive_desc, engine, src_desc, dst_desc, strides, kernel, padding_l)),
            dnnl_invalid_arguments, dnnl_pooling, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)),
                   dnnl_invalid_arguments, dnnl_pooling,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(mdw_t(*src_desc).is_any()), dnnl_invalid_arguments, dnnl_pooling,
                   "source format must not be any");
    return guard([&] {
        pooling_desc_t d;
        d.prop_kind = prop_kind;
        const status_t st = make_pooling_desc(d, alg_kind, src_desc, dst_desc, strides, kernel,
                dilation, padding_l, padding_r);
        if (st != status::success) return st;
        return create_pd_handle(primitive_desc, d, attr, engine, pooling_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_pooling_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t diff_src_desc,
        const_dnnl_memory_desc_t diff_dst_desc, const dnnl_dims_t strides, const dnnl_dims_t kernel,
        const dnnl_dims_t dilation, const dnnl_dims_t padding_l, const dnnl_dims_t padding_r,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc, strides, kernel,
                              padding_l)),
                   dnnl_invalid_arguments, dnnl_pooling, "a required argument is null");
    // The forward hint is required for max pooling (it carries the
    // workspace layout) and optional for the averages; when given it must
    // be a pooling descriptor.
    KESTREL_VCHECK(
            !(hint_fwd_pd && (!hint_fwd_pd->pd() || hint_fwd_pd->pd()->kind() != dnnl_pooling)),
            dnnl_invalid_arguments, dnnl_pooling,
            "the forward hint is not a forward descriptor of this primitive");
    KESTREL_VCHECK(!(!hint_fwd_pd && alg_kind == dnnl_pooling_max), dnnl_invalid_arguments,
                   dnnl_pooling, "max pooling backward needs the forward hint");
    if (any_runtime(diff_src_desc, diff_dst_desc)) return dnnl_unimplemented;
    return guard([&] {
        pooling_desc_t d;
        d.prop_kind = dnnl_backward_data;
        const status_t st = make_pooling_desc(d, alg_kind, diff_src_desc, diff_dst_desc, strides,
                kernel, dilation, padding_l, padding_r);
        if (st != status::success) return st;
        return create_pd_handle(primitive_desc, d, attr, engine, pooling_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
