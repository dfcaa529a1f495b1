#include "cpu/resampling/resampling_pd.hpp"

#include "cpu/post_ops.hpp"

namespace kestrel {

status_t resampling_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    return resampling::query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
}

status_t resampling_fwd_pd_t::init_common() {
    // Post-ops: sum, eltwise and binary, as oneDNN documents for this kind.
    if (!attr_.has_default_values(attr_t::skip_post_ops)) return status::unimplemented;
    auto dt_ok = [](data_type_t dt) {
        return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8);
    };
    if (!dt_ok(src_md_.data_type) || !dt_ok(dst_md_.data_type)) return status::unimplemented;
    const mdw_t s(src_md_);
    if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(pool::set_like(dst_md_, src_md_));
    if (!mdw_t(dst_md_).is_blocked() || mdw_t(dst_md_).has_runtime_dims_or_strides())
        return status::unimplemented;
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_);
}

} // namespace kestrel
