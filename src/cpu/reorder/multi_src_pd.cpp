#include "cpu/reorder/multi_src_pd.hpp"

#include "cpu/reorder/layout_util.hpp"

namespace kestrel {

status_t multi_src_init_mds(const char *impl, const std::vector<memory_desc_t> &srcs,
        memory_desc_t &dst) {
    if (srcs.empty()) return decline(impl, "no sources");
    for (const memory_desc_t &md : srcs) {
        const mdw_t s(md);
        if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return decline(impl, "src layout");
        if (!reorder_dt_supported(s.data_type()) || is_f8(s.data_type())) return decline(impl, "src data type");
    }
    if (mdw_t(dst).is_any()) KESTREL_CHECK(data_movement::md_dense_like(dst, srcs[0]));
    const mdw_t d(dst);
    if (!d.is_blocked() || d.has_runtime_dims_or_strides()) return decline(impl, "dst layout");
    if (!reorder_dt_supported(d.data_type()) || is_f8(d.data_type())) return decline(impl, "dst data type");
    return status::success;
}

status_t multi_src_check_srcs(int n, const_dnnl_memory_desc_t const *srcs, int free_dim) {
    const memory_desc_t &s0 = *srcs[0];
    for (int i = 0; i < n; ++i) {
        const mdw_t s(srcs[i]);
        if (s.is_zero() || s.is_any() || !s.is_blocked()) return status::invalid_arguments;
        if (s.has_runtime_dims_or_strides()) return status::unimplemented;
        if (srcs[i]->ndims != s0.ndims) return status::invalid_arguments;
        for (int k = 0; k < s0.ndims; ++k)
            if (k != free_dim && srcs[i]->dims[k] != s0.dims[k]) return status::invalid_arguments;
    }
    return status::success;
}

status_t multi_src_check_dst(const memory_desc_t &dst, int ndims, const dim_t *want) {
    const mdw_t d(dst);
    if (d.is_zero() || dst.ndims != ndims || d.has_runtime_dims_or_strides())
        return status::invalid_arguments;
    for (int k = 0; k < ndims; ++k)
        if (dst.dims[k] != want[k]) return status::invalid_arguments;
    return status::success;
}

} // namespace kestrel
