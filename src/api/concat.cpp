#include "api/api.hpp"
#include "cpu/reorder/concat_pd.hpp"

using namespace kestrel;

extern "C" {

dnnl_status_t dnnl_concat_primitive_desc_create(dnnl_primitive_desc_t *concat_primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t dst_desc, int n, int concat_dimension,
        const_dnnl_memory_desc_t const *src_descs, const_dnnl_primitive_attr_t attr) {
    if (any_null(concat_primitive_desc, engine, src_descs) || n <= 0) return dnnl_invalid_arguments;
    for (int i = 0; i < n; ++i)
        if (!src_descs[i]) return dnnl_invalid_arguments;
    return guard([&]() -> dnnl_status_t {
        if (attr && !attr->has_default_values()) return dnnl_unimplemented;
        const memory_desc_t &s0 = *src_descs[0];
        const int nd = s0.ndims, a = concat_dimension;
        if (nd < 1 || a < 0 || a >= nd) return dnnl_invalid_arguments;
        dim_t axis_total = 0;
        for (int i = 0; i < n; ++i) {
            const mdw_t s(src_descs[i]);
            if (s.is_zero() || s.is_any() || !s.is_blocked()) return dnnl_invalid_arguments;
            if (s.has_runtime_dims_or_strides()) return dnnl_unimplemented;
            if (src_descs[i]->ndims != nd) return dnnl_invalid_arguments;
            for (int k = 0; k < nd; ++k)
                if (k != a && src_descs[i]->dims[k] != s0.dims[k]) return dnnl_invalid_arguments;
            axis_total += src_descs[i]->dims[a];
        }
        concat_desc_t desc;
        desc.axis = a;
        if (dst_desc) {
            const mdw_t d(dst_desc);
            if (d.is_zero() || dst_desc->ndims != nd) return dnnl_invalid_arguments;
            if (d.has_runtime_dims_or_strides()) return dnnl_invalid_arguments;
            for (int k = 0; k < nd; ++k)
                if (dst_desc->dims[k] != (k == a ? axis_total : s0.dims[k])) return dnnl_invalid_arguments;
            desc.dst_md = *dst_desc;
        } else {
            KESTREL_CHECK(md_init_by_tag(desc.dst_md, nd, s0.dims, s0.data_type, dnnl_format_tag_any));
            desc.dst_md.dims[a] = desc.dst_md.padded_dims[a] = axis_total;
        }
        for (int i = 0; i < n; ++i) desc.src_mds.push_back(*src_descs[i]);
        return create_pd_handle(concat_primitive_desc, desc, attr, engine, concat_impl_list, nullptr);
    });
}

} // extern "C"
