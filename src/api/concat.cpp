#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/reorder/concat_pd.hpp"

using namespace kestrel;

namespace {

// Concat takes scales on its sources only, one value each (mask 0).
bool concat_attr_supported(const dnnl_primitive_attr *attr, int n) {
    if (!attr) return true;
    if (!attr->has_default_values(attr_t::skip_scales)) return false;
    for (const auto &it : attr->scales.items)
        if (it.arg < DNNL_ARG_MULTIPLE_SRC || it.arg >= DNNL_ARG_MULTIPLE_SRC + n || it.e.mask != 0)
            return false;
    return true;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_concat_primitive_desc_create(dnnl_primitive_desc_t *concat_primitive_desc,
        dnnl_engine_t engine, const_dnnl_memory_desc_t dst_desc, int n, int concat_dimension,
        const_dnnl_memory_desc_t const *src_descs, const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(concat_primitive_desc, engine, src_descs) || n <= 0),
                   dnnl_invalid_arguments, dnnl_concat, "a required argument is null");
    for (int i = 0; i < n; ++i)
        KESTREL_VCHECK(!(!src_descs[i]), dnnl_invalid_arguments, dnnl_concat,
                       "a required argument is null");
    if (any_runtime_of(n, src_descs) || any_runtime(dst_desc)) return dnnl_unimplemented;
    return guard([&]() -> dnnl_status_t {
        if (!concat_attr_supported(attr, n)) return dnnl_unimplemented;
        const memory_desc_t &s0 = *src_descs[0];
        const int nd = s0.ndims, a = concat_dimension;
        KESTREL_VCHECK(!(nd < 1 || a < 0 || a >= nd), dnnl_invalid_arguments, dnnl_concat,
                       "axis is out of range");
        KESTREL_CHECK(multi_src_check_srcs(n, src_descs, a));
        dims_t dims;
        std::memcpy(dims, s0.dims, sizeof(dims));
        dims[a] = 0;
        for (int i = 0; i < n; ++i) dims[a] += src_descs[i]->dims[a];
        concat_desc_t desc;
        desc.axis = a;
        if (dst_desc) {
            KESTREL_CHECK(multi_src_check_dst(*dst_desc, nd, dims));
            desc.dst_md = *dst_desc;
        } else {
            KESTREL_CHECK(md_init_by_tag(desc.dst_md, nd, dims, s0.data_type, dnnl_format_tag_any));
        }
        for (int i = 0; i < n; ++i) desc.src_mds.push_back(*src_descs[i]);
        return create_pd_handle(concat_primitive_desc, desc, attr, engine, concat_impl_list, nullptr);
    });
}

} // extern "C"
