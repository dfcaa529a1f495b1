#include "cpu/norm/lrn_pd.hpp"

namespace kestrel {

status_t lrn_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = desc_.alg; return status::success;
        case dnnl_query_alpha_f32: *(float *)result = desc_.alpha; return status::success;
        case dnnl_query_beta_f32: *(float *)result = desc_.beta; return status::success;
        case dnnl_query_k_f32: *(float *)result = desc_.k; return status::success;
        case dnnl_query_local_size_s64: *(dim_t *)result = desc_.local_size; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

status_t lrn_fwd_pd_t::init_common() {
    // LRN takes no attributes.
    if (!attr_.has_default_values()) return status::unimplemented;
    if (src_md_.ndims > 5) return status::unimplemented;
    if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type)) return status::unimplemented;
    const mdw_t s(src_md_);
    if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(pool::set_like(dst_md_, src_md_));
    if (!mdw_t(dst_md_).is_blocked() || mdw_t(dst_md_).has_runtime_dims_or_strides())
        return status::unimplemented;
    if (with_ws()) {
        KESTREL_CHECK(md_init_by_tag(ws_md_, dst_md_.ndims, dst_md_.dims, dnnl_f32, dnnl_format_tag_any));
        KESTREL_CHECK(pool::set_like(ws_md_, dst_md_));
    }
    return status::success;
}

} // namespace kestrel
