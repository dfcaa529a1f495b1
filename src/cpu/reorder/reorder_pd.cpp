#include "cpu/reorder/reorder_pd.hpp"

#include "core/primitive.hpp"

namespace kestrel {

status_t reorder_quant_t::init(const attr_t &attr, int ndims) {
    if (!attr.has_default_values(attr_t::skip_scales | attr_t::skip_zero_points
                | attr_t::skip_post_ops | attr_t::skip_rounding))
        return status::unimplemented;
    for (const auto &r : attr.rounding)
        if (r.second != dnnl_rounding_mode_environment) return status::unimplemented;
    const int full = (1 << ndims) - 1;
    for (const auto &it : attr.scales.items) {
        const quant_entry_t &e = it.e;
        if (!one_of(it.arg, DNNL_ARG_SRC, DNNL_ARG_DST)) return status::unimplemented;
        if (e.ndims != 0 || e.dt != dnnl_f32 || (e.mask & ~full)) return status::unimplemented;
        if (it.arg == DNNL_ARG_SRC) {
            src_scale = true;
            src_scale_mask = e.mask;
        } else {
            dst_scale = true;
            dst_scale_mask = e.mask;
        }
    }
    for (const auto &it : attr.zero_points.items) {
        const quant_entry_t &e = it.e;
        if (!one_of(it.arg, DNNL_ARG_SRC, DNNL_ARG_DST)) return status::unimplemented;
        if (e.ndims != 0 || e.dt != dnnl_s32 || (e.mask & ~full)) return status::unimplemented;
        if (it.arg == DNNL_ARG_SRC) {
            src_zp = true;
            src_zp_mask = e.mask;
        } else {
            if (e.mask != 0) return status::unimplemented;
            dst_zp = true;
        }
    }
    const auto &po = attr.post_ops.entries;
    if (po.size() > 1) return status::unimplemented;
    if (po.size() == 1) {
        const post_op_t &e = po[0];
        if (e.kind != dnnl_sum || e.sum.zero_point != 0) return status::unimplemented;
        if (e.sum.dt != dnnl_data_type_undef) return status::unimplemented;
        with_sum = true;
        beta = e.sum.scale;
    }
    return status::success;
}

reorder_quant_args_t reorder_quant_args(const reorder_quant_t &q, const exec_ctx_t &ctx) {
    reorder_quant_args_t a;
    if (q.src_scale) a.src_scale = ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC);
    if (q.dst_scale) a.dst_scale = ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST);
    if (q.src_zp) a.src_zp = ctx.input<int32_t>(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC);
    if (q.dst_zp) a.dst_zp = *ctx.input<int32_t>(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST);
    return a;
}

arg_usage_t reorder_base_pd_t::arg_usage(int arg) const {
    if (arg == DNNL_ARG_FROM) return arg_usage_t::input;
    if (arg == DNNL_ARG_TO) return arg_usage_t::output;
    return pd_t::arg_usage(arg);
}

status_t reorder_base_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_reorder_src_engine:
        case dnnl_query_reorder_dst_engine:
            *(dnnl_engine_t *)result = engine_;
            return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

status_t reorder_base_pd_t::init_common(const char *impl) {
    mdw_t s(src_md_), d(dst_md_);
    if (!s.is_blocked() || !d.is_blocked()) return decline(impl, "format kind is not blocked");
    if (src_md_.ndims != dst_md_.ndims) return decline(impl, "ndims differ");
    for (int k = 0; k < src_md_.ndims; ++k)
        if (src_md_.dims[k] != dst_md_.dims[k]) return decline(impl, "dims differ");
    if (s.has_runtime_dims_or_strides() || d.has_runtime_dims_or_strides())
        return decline(impl, "runtime dims or strides");
    status_t st = quant_.init(attr_, src_md_.ndims);
    if (st != status::success) return decline(impl, "unsupported attributes");
    return status::success;
}

} // namespace kestrel
