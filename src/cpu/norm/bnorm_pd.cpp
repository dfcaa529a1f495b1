#include "cpu/norm/bnorm_pd.hpp"

namespace kestrel {

namespace {

// The fused ReLU's workspace: one byte per physical src element (1 where
// the normalized value before ReLU is positive), indexed by its offset.
status_t relu_ws_md(const memory_desc_t &src, memory_desc_t &ws) {
    dim_t n = (dim_t)(mdw_t(src).size() / mdw_t(src).dt_size());
    if (n == 0) n = 1;
    return md_init_by_tag(ws, 1, &n, dnnl_u8, dnnl_a);
}

} // namespace


arg_usage_t bnorm_fwd_pd_t::arg_usage(int arg) const {
    switch (arg) {
        case DNNL_ARG_SRC: return arg_usage_t::input;
        case DNNL_ARG_DST: return arg_usage_t::output;
        case DNNL_ARG_MEAN:
        case DNNL_ARG_VARIANCE:
            if (global_stats()) return arg_usage_t::input;
            return stats_out() ? arg_usage_t::output : arg_usage_t::unused;
        case DNNL_ARG_SCALE: return use_scale() ? arg_usage_t::input : arg_usage_t::unused;
        case DNNL_ARG_SHIFT: return use_shift() ? arg_usage_t::input : arg_usage_t::unused;
        case DNNL_ARG_SRC_1: return fuse_add() ? arg_usage_t::input : arg_usage_t::unused;
        case DNNL_ARG_WORKSPACE: return with_ws() ? arg_usage_t::output : arg_usage_t::unused;
        default: return pd_t::arg_usage(arg);
    }
}

const memory_desc_t *bnorm_fwd_pd_t::arg_md(int arg) const {
    switch (arg) {
        case DNNL_ARG_MEAN:
        case DNNL_ARG_VARIANCE: return global_stats() || stats_out() ? &stat_md_ : &zero_md_;
        case DNNL_ARG_SCALE:
        case DNNL_ARG_SHIFT: return weights_md(0);
        case DNNL_ARG_SRC_1: return fuse_add() ? &src_md_ : &zero_md_;
        default: return pd_t::arg_md(arg);
    }
}

status_t bnorm_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_epsilon_f32: *(float *)result = desc_.epsilon; return status::success;
        case dnnl_query_flags: *(unsigned *)result = desc_.flags; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

status_t bnorm_fwd_pd_t::init_common() {
    if (!attr_.has_default_values(attr_t::skip_post_ops)) return status::unimplemented;
    const auto &po = attr_.post_ops.entries;
    if (po.size() > 1) return status::unimplemented;
    if (po.size() == 1
            && (po[0].kind != dnnl_eltwise || po[0].eltwise.alg != dnnl_eltwise_relu
                    || (is_training() && po[0].eltwise.alpha != 0.f)))
        return status::unimplemented;
    // f32/bf16, or s8 in and out for inference with given statistics
    // (oneDNN's forward-only s8 row), stored rounded to nearest even and
    // saturated; the relu post-op runs on the f32/bf16 paths only.
    const data_type_t sdt = src_md_.data_type, ddt = dst_md_.data_type;
    const bool s8 = sdt == dnnl_s8 && ddt == dnnl_s8 && !is_training() && global_stats() && !fuse_add()
            && po.empty();
    if (!s8 && (!pool::is_fp(sdt) || !pool::is_fp(ddt))) return status::unimplemented;
    if (!mdw_t(src_md_).is_blocked() || mdw_t(src_md_).has_runtime_dims_or_strides())
        return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(pool::set_like(dst_md_, src_md_));
    if (!mdw_t(dst_md_).is_blocked()) return status::unimplemented;
    dim_t c = C();
    KESTREL_CHECK(md_init_by_tag(stat_md_, 1, &c, dnnl_f32, dnnl_a));
    KESTREL_CHECK(md_init_by_tag(scale_md_, 1, &c, dnnl_f32, dnnl_a));
    if (with_ws()) KESTREL_CHECK(relu_ws_md(src_md_, ws_md_));
    return status::success;
}

status_t bnorm_bwd_pd_t::init_common() {
    // Without a hint, the forward is taken to have used this src layout.
    if (mdw_t(fwd_src_md_).is_zero()) {
        fwd_src_md_ = src_md_;
        if (fuse_relu()) KESTREL_CHECK(relu_ws_md(src_md_, hint_ws_md_));
    }
    KESTREL_CHECK(init_base("bnorm_bwd", C(), dnnl_f32, dnnl_f32));
    dim_t c = C();
    KESTREL_CHECK(md_init_by_tag(stat_md_, 1, &c, dnnl_f32, dnnl_a));
    if (fuse_relu()) {
        // The mask of a forward training primitive over the same shape.
        if (mdw_t(hint_ws_md_).is_zero()) return decline("bnorm_bwd", "hint has no workspace");
        if (fwd_src_md_.ndims != src_md_.ndims) return status::unimplemented;
        for (int i = 0; i < src_md_.ndims; ++i)
            if (fwd_src_md_.dims[i] != src_md_.dims[i]) return decline("bnorm_bwd", "hint shape");
        ws_md_ = hint_ws_md_;
    }
    return status::success;
}

} // namespace kestrel
