#include <cmath>

#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/resampling/resampling_pd.hpp"

using namespace kestrel;

namespace {

// Checks the arguments both directions share and fills the op desc: `src`
// is src (forward) or diff_src (backward), `dst` likewise; the output size
// comes from dst, or from the factors when dst is absent.
status_t init_desc(resampling_desc_t &d, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind,
        const float *factors, const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc) {
    KESTREL_VCHECK(!(!dst_desc && !factors), status::invalid_arguments, dnnl_resampling,
                   "a required argument is null");
    KESTREL_VCHECK(!(!one_of(alg_kind, dnnl_resampling_nearest, dnnl_resampling_linear)),
                   status::invalid_arguments, dnnl_resampling,
                   "algorithm is not valid for this primitive");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 3 || nd > 5), status::invalid_arguments, dnnl_resampling,
                   "number of dimensions is not valid or differs between tensors");
    if (mdw_t(*src_desc).has_runtime_dims_or_strides()
            || (dst_desc && mdw_t(*dst_desc).has_runtime_dims_or_strides()))
        return status::invalid_arguments;
    // Factors only size a missing dst; a zero factor gives an empty one.
    if (factors && !dst_desc)
        for (int i = 0; i < nd - 2; ++i)
            KESTREL_VCHECK(!(!(factors[i] >= 0.f) || !std::isfinite(factors[i])),
                           status::invalid_arguments, dnnl_resampling,
                           "window (kernel, strides, padding, factors) does not fit the shapes");
    d.prop_kind = prop_kind;
    d.alg = alg_kind;
    d.src_md = *src_desc;
    if (dst_desc) {
        KESTREL_VCHECK(!(dst_desc->ndims != nd || dst_desc->dims[0] != src_desc->dims[0]
                         || dst_desc->dims[1] != src_desc->dims[1]),
                       status::invalid_arguments, dnnl_resampling,
                       "number of dimensions is not valid or differs between tensors");
        d.dst_md = *dst_desc;
    } else {
        dims_t dims = {src_desc->dims[0], src_desc->dims[1]};
        for (int i = 2; i < nd; ++i) dims[i] = (dim_t)((double)src_desc->dims[i] * factors[i - 2]);
        KESTREL_CHECK(md_init_by_tag(d.dst_md, nd, dims, src_desc->data_type, dnnl_format_tag_any));
    }
    for (int i = 2; i < nd; ++i) {
        const dim_t I = src_desc->dims[i], O = d.dst_md.dims[i];
        // A non-empty output needs a non-empty source to sample from.
        KESTREL_VCHECK(!(I < 0 || O < 0 || (I == 0 && O > 0)), status::invalid_arguments,
                       dnnl_resampling,
                       "window (kernel, strides, padding, factors) does not fit the shapes");
        // The factors the primitive reports and uses are always O / I.
        d.factors[i - 2] = I > 0 ? (float)((double)O / (double)I) : 1.f;
    }
    return status::success;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_resampling_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t alg_kind, const float *factors,
        const_dnnl_memory_desc_t src_desc, const_dnnl_memory_desc_t dst_desc,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc)), dnnl_invalid_arguments,
                   dnnl_resampling, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    KESTREL_VCHECK(!(!one_of(prop_kind, dnnl_forward_training, dnnl_forward_inference)),
                   dnnl_invalid_arguments, dnnl_resampling,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(mdw_t(*src_desc).is_any()), dnnl_invalid_arguments, dnnl_resampling,
                   "source format must not be any");
    return guard([&] {
        resampling_desc_t d;
        KESTREL_CHECK(init_desc(d, prop_kind, alg_kind, factors, src_desc, dst_desc));
        return create_pd_handle(primitive_desc, d, attr, engine, resampling_impl_list, nullptr);
    });
}

dnnl_status_t dnnl_resampling_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const float *factors,
        const_dnnl_memory_desc_t diff_src_desc, const_dnnl_memory_desc_t diff_dst_desc,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    // Backward needs both sizes: diff_dst is required here.
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, diff_src_desc, diff_dst_desc)),
                   dnnl_invalid_arguments, dnnl_resampling, "a required argument is null");
    if (any_runtime(diff_src_desc, diff_dst_desc)) return dnnl_unimplemented;
    return guard([&] {
        resampling_desc_t d;
        KESTREL_CHECK(init_desc(d, dnnl_backward_data, alg_kind, factors, diff_src_desc, diff_dst_desc));
        return create_pd_handle(primitive_desc, d, attr, engine, resampling_bwd_impl_list, hint_fwd_pd);
    });
}

} // extern "C"
