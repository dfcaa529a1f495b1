#include "cpu/norm/lrn_pd.hpp"

namespace kestrel {

namespace {

status_t lrn_desc_query(const lrn_desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = d.alg; return status::success;
        case dnnl_query_alpha_f32: *(float *)result = d.alpha; return status::success;
        case dnnl_query_beta_f32: *(float *)result = d.beta; return status::success;
        case dnnl_query_k_f32: *(float *)result = d.k; return status::success;
        case dnnl_query_local_size_s64: *(dim_t *)result = d.local_size; return status::success;
        default: return status::unimplemented;
    }
}

} // namespace

status_t lrn_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    const status_t st = lrn_desc_query(desc_, what, result);
    return st == status::success ? st : pd_t::query(what, idx, result);
}

status_t lrn_bwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    const status_t st = lrn_desc_query(desc_, what, result);
    return st == status::success ? st : pd_t::query(what, idx, result);
}

status_t lrn_bwd_pd_t::init_common() {
    if (!attr_.has_default_values()) return status::unimplemented;
    if (src_md_.ndims > 5) return status::unimplemented;
    for (const memory_desc_t *md : {&src_md_, &diff_src_md_, &diff_dst_md_})
        if (!pool::is_fp(md->data_type)) return decline("lrn_bwd", "data types");
    const mdw_t s(src_md_);
    if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
    if (mdw_t(diff_dst_md_).is_any()) KESTREL_CHECK(pool::set_like(diff_dst_md_, src_md_));
    if (mdw_t(diff_src_md_).is_any()) KESTREL_CHECK(pool::set_like(diff_src_md_, src_md_));
    for (const memory_desc_t *md : {&diff_src_md_, &diff_dst_md_})
        if (!mdw_t(*md).is_blocked() || mdw_t(*md).has_runtime_dims_or_strides()) return status::unimplemented;
    if (with_ws()) {
        if (ws_md_.ndims != src_md_.ndims || ws_md_.data_type != dnnl_f32) return status::unimplemented;
        for (int i = 0; i < src_md_.ndims; ++i)
            if (ws_md_.dims[i] != src_md_.dims[i]) return decline("lrn_bwd", "hint shape");
    }
    return status::success;
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
