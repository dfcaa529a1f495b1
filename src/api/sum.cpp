#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/reorder/sum_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_sum_primitive_desc_create(dnnl_primitive_desc_t *sum_primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t dst_desc, int n, const float *scales,
        const_dnnl_memory_desc_t const *src_descs, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(sum_primitive_desc, engine, scales, src_descs) || n <= 0),
                   dnnl_invalid_arguments, dnnl_sum, "a required argument is null");
    for (int i = 0; i < n; ++i)
        KESTREL_VCHECK(!(!src_descs[i]), dnnl_invalid_arguments, dnnl_sum,
                       "a required argument is null");
    if (any_runtime_of(n, src_descs) || any_runtime(dst_desc)) return dnnl_unimplemented;
    return guard([&]() -> dnnl_status_t {
        if (attr && !attr->has_default_values()) return dnnl_unimplemented;
        KESTREL_CHECK(multi_src_check_srcs(n, src_descs, -1));
        const memory_desc_t &s0 = *src_descs[0];
        sum_desc_t desc;
        if (dst_desc) {
            KESTREL_CHECK(multi_src_check_dst(*dst_desc, s0.ndims, s0.dims));
            desc.dst_md = *dst_desc;
        } else {
            desc.dst_md = s0;
            desc.dst_md.format_kind = dnnl_format_kind_any;
        }
        desc.scales.assign(scales, scales + n);
        for (int i = 0; i < n; ++i) desc.src_mds.push_back(*src_descs[i]);
        return create_pd_handle(sum_primitive_desc, desc, attr, engine, sum_impl_list, nullptr);
    });
}

} // extern "C"
