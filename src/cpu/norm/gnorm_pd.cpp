#include "cpu/norm/gnorm_pd.hpp"

#include "cpu/post_ops.hpp"

namespace kestrel {

arg_usage_t gnorm_fwd_pd_t::arg_usage(int arg) const {
    switch (arg) {
        case DNNL_ARG_SRC: return arg_usage_t::input;
        case DNNL_ARG_DST: return arg_usage_t::output;
        case DNNL_ARG_MEAN:
        case DNNL_ARG_VARIANCE:
            if (global_stats()) return arg_usage_t::input;
            return stats_out() ? arg_usage_t::output : arg_usage_t::unused;
        case DNNL_ARG_SCALE: return use_scale() ? arg_usage_t::input : arg_usage_t::unused;
        case DNNL_ARG_SHIFT: return use_shift() ? arg_usage_t::input : arg_usage_t::unused;
        default: return pd_t::arg_usage(arg);
    }
}

const memory_desc_t *gnorm_fwd_pd_t::arg_md(int arg) const {
    switch (arg) {
        case DNNL_ARG_MEAN:
        case DNNL_ARG_VARIANCE: return global_stats() || stats_out() ? &stat_md_ : &zero_md_;
        case DNNL_ARG_SCALE:
        case DNNL_ARG_SHIFT: return weights_md(0);
        default: return pd_t::arg_md(arg);
    }
}

status_t gnorm_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_epsilon_f32: *(float *)result = desc_.epsilon; return status::success;
        case dnnl_query_flags: *(unsigned *)result = desc_.flags; return status::success;
        case dnnl_query_group_size_s64: *(dim_t *)result = desc_.groups; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

status_t gnorm_fwd_pd_t::init_common() {
    // Post-ops: eltwise and binary, as oneDNN documents for this kind.
    if (!attr_.has_default_values(attr_t::skip_post_ops)) return status::unimplemented;
    if (!attr_.post_ops.has_only({dnnl_eltwise, dnnl_binary})) return status::unimplemented;
    if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type)) return status::unimplemented;
    const mdw_t s(src_md_);
    if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(pool::set_like(dst_md_, src_md_));
    if (!mdw_t(dst_md_).is_blocked() || mdw_t(dst_md_).has_runtime_dims_or_strides())
        return status::unimplemented;
    const dim_t ng[2] = {MB(), G()}, c = C();
    KESTREL_CHECK(md_init_by_tag(stat_md_, 2, ng, dnnl_f32, dnnl_ab));
    KESTREL_CHECK(md_init_by_tag(ss_md_, 1, &c, dnnl_f32, dnnl_a));
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_);
}

} // namespace kestrel
