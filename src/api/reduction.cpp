#include <cmath>

#include "api/api.hpp"
#include "core/verbose.hpp"
#include "core/primitive_desc.hpp"
#include "cpu/reduction/reduction_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_reduction_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_alg_kind_t alg_kind, const_dnnl_memory_desc_t src_desc,
        const_dnnl_memory_desc_t dst_desc, float p, float eps, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, src_desc, dst_desc)), dnnl_invalid_arguments,
                   dnnl_reduction, "a required argument is null");
    if (any_runtime(src_desc, dst_desc)) return dnnl_unimplemented;
    const bool lp = one_of(alg_kind, dnnl_reduction_norm_lp_max, dnnl_reduction_norm_lp_sum,
            dnnl_reduction_norm_lp_power_p_max, dnnl_reduction_norm_lp_power_p_sum);
    KESTREL_VCHECK(!(!lp
                     && !one_of(alg_kind, dnnl_reduction_max, dnnl_reduction_min,
                                dnnl_reduction_sum, dnnl_reduction_mul, dnnl_reduction_mean)),
                   dnnl_invalid_arguments, dnnl_reduction,
                   "algorithm is not valid for this primitive");
    KESTREL_VCHECK(!(lp && !(p >= 1.f && !std::isinf(p))), dnnl_invalid_arguments, dnnl_reduction,
                   "parameter out of range");
    KESTREL_VCHECK(!(lp && !one_of(src_desc->data_type, dnnl_f32, dnnl_bf16, dnnl_f16)),
                   dnnl_invalid_arguments, dnnl_reduction, "data type is not valid");
    const int nd = src_desc->ndims;
    KESTREL_VCHECK(!(nd < 1 || dst_desc->ndims != nd), dnnl_invalid_arguments, dnnl_reduction,
                   "number of dimensions is not valid or differs between tensors");
    KESTREL_VCHECK(!(!mdw_t(*src_desc).is_blocked()), dnnl_invalid_arguments, dnnl_reduction,
                   "src is not blocked");
    KESTREL_VCHECK(!(!mdw_t(*dst_desc).is_blocked() && !mdw_t(*dst_desc).is_any()),
                   dnnl_invalid_arguments, dnnl_reduction, "dst is neither blocked nor any");
    bool same = true;
    for (int i = 0; i < nd; ++i) {
        KESTREL_VCHECK(!(!one_of(dst_desc->dims[i], (dim_t)1, src_desc->dims[i])),
                       dnnl_invalid_arguments, dnnl_reduction,
                       "dimensions are inconsistent between tensors");
        same = same && dst_desc->dims[i] == src_desc->dims[i];
    }
    KESTREL_VCHECK(!(same), dnnl_invalid_arguments, dnnl_reduction,
                   "dst has the dims of src: nothing to reduce");
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
