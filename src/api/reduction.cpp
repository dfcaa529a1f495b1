#include <cmath>

#include "api/api.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/reduction/reduction_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_reduction_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t dst_desc, float p, float eps, const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, src_desc, dst_desc)) return dnnl_invalid_arguments;
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    const bool lp = one_of(alg_kind, dnnl_reduction_norm_lp_max, dnnl_reduction_norm_lp_sum,
            dnnl_reduction_norm_lp_power_p_max, dnnl_reduction_norm_lp_power_p_sum);
    if (!lp && !one_of(alg_kind, dnnl_reduction_max, dnnl_reduction_min, dnnl_reduction_sum,
                       dnnl_reduction_mul, dnnl_reduction_mean))
        return dnnl_invalid_arguments;
    if (lp && !(p >= 1.f && !std::isinf(p))) return dnnl_invalid_arguments;
    if (lp && !one_of(src_desc->data_type, dnnl_f32, dnnl_bf16, dnnl_f16)) return dnnl_invalid_arguments;
    const int nd = src_desc->ndims;
    if (nd < 1 || dst_desc->ndims != nd) return dnnl_invalid_arguments;
    if (!mdw_t(*src_desc).is_blocked()) return dnnl_invalid_arguments;
    if (!mdw_t(*dst_desc).is_blocked() && !mdw_t(*dst_desc).is_any()) return dnnl_invalid_arguments;
    bool same = true;
    for (int i = 0; i < nd; ++i) {
        if (!one_of(dst_desc->dims[i], (dim_t)1, src_desc->dims[i])) return dnnl_invalid_arguments;
        same = same && dst_desc->dims[i] == src_desc->dims[i];
    }
    if (same) return dnnl_invalid_arguments; // nothing to reduce
    return guard([&] {
        reduction_desc_t d;
        d.alg = alg_kind;
        d.src_md = *src_desc;
        d.dst_md = *dst_desc;
        d.p = p;
        d.eps = eps;
        return create_pd_handle(primitive_desc, d, attr, engine, reduction_impl_list, nullptr);
    });
}

} // extern "C"
