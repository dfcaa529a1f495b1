#include "cpu/norm/lnorm_pd.hpp"

#include "cpu/post_ops.hpp"

#include <cstring>
#include <utility>

namespace kestrel {

arg_usage_t lnorm_fwd_pd_t::arg_usage(int arg) const {
    switch (arg) {
        case DNNL_ARG_SRC: return arg_usage_t::input;
        case DNNL_ARG_DST: return arg_usage_t::output;
        case DNNL_ARG_MEAN:
            if (rms()) return arg_usage_t::unused;
            // fall through
        case DNNL_ARG_VARIANCE:
            if (global_stats()) return arg_usage_t::input;
            return stats_out() ? arg_usage_t::output : arg_usage_t::unused;
        case DNNL_ARG_SCALE: return use_scale() ? arg_usage_t::input : arg_usage_t::unused;
        case DNNL_ARG_SHIFT: return use_shift() ? arg_usage_t::input : arg_usage_t::unused;
        default: return pd_t::arg_usage(arg);
    }
}

const memory_desc_t *lnorm_fwd_pd_t::arg_md(int arg) const {
    switch (arg) {
        case DNNL_ARG_MEAN:
        // As mean_desc()/variance_desc() report them, with RMS too.
        case DNNL_ARG_VARIANCE: return global_stats() || stats_out() ? &stat_md_ : &zero_md_;
        case DNNL_ARG_SCALE:
        case DNNL_ARG_SHIFT: return weights_md(0);
        default: return pd_t::arg_md(arg);
    }
}

status_t lnorm_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_epsilon_f32: *(float *)result = desc_.epsilon; return status::success;
        case dnnl_query_flags: *(unsigned *)result = desc_.flags; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

// Statistics in `any`: the src layout without the normalized (last) dim,
// the other dims kept in their physical order; plain row-major when the
// last dim is blocked. Dims are ordered by src stride, larger first, ties
// by larger dim, then by index (the order oneDNN derives).
status_t lnorm_fwd_pd_t::stat_like_src() {
    const int nd = stat_md_.ndims;
    const auto &sb = src_md_.blocking;
    for (int i = 0; i < sb.inner_nblks; ++i)
        if (sb.inner_idxs[i] == nd) return md_set_tag(stat_md_, pool::plain_tag(nd));
    int perm[DNNL_MAX_NDIMS];
    for (int d = 0; d < nd; ++d) perm[d] = d;
    auto before = [&](int a, int b) {
        if (sb.strides[a] != sb.strides[b]) return sb.strides[a] > sb.strides[b];
        if (src_md_.padded_dims[a] != src_md_.padded_dims[b])
            return src_md_.padded_dims[a] > src_md_.padded_dims[b];
        return a < b;
    };
    for (int i = 1; i < nd; ++i)
        for (int j = i; j > 0 && before(perm[j], perm[j - 1]); --j) std::swap(perm[j], perm[j - 1]);
    memory_desc_t md = stat_md_;
    md.format_kind = dnnl_blocked;
    md.offset0 = 0;
    auto &b = md.blocking;
    std::memset(&b, 0, sizeof(b));
    dim_t blk[DNNL_MAX_NDIMS];
    for (int d = 0; d < nd; ++d) blk[d] = 1;
    dim_t inner = 1;
    for (int i = 0; i < sb.inner_nblks; ++i) {
        b.inner_blks[b.inner_nblks] = sb.inner_blks[i];
        b.inner_idxs[b.inner_nblks++] = sb.inner_idxs[i];
        blk[sb.inner_idxs[i]] *= sb.inner_blks[i];
        inner *= sb.inner_blks[i];
    }
    for (int d = 0; d < nd; ++d) {
        md.padded_dims[d] = (md.dims[d] + blk[d] - 1) / blk[d] * blk[d];
        md.padded_offsets[d] = 0;
    }
    dim_t stride = inner;
    for (int i = nd - 1; i >= 0; --i) {
        const int d = perm[i];
        b.strides[d] = stride;
        if (md.padded_dims[d] != 0) stride *= md.padded_dims[d] / blk[d];
    }
    stat_md_ = md;
    return status::success;
}

status_t lnorm_fwd_pd_t::init_common() {
    // f32/bf16/s8/u8 src and dst in any mix; integer results rounded to
    // nearest even and saturated.
    const data_type_t sdt = src_md_.data_type, ddt = dst_md_.data_type;
    if (!pool::is_fp(sdt) && !pool::is_int8(sdt)) return status::unimplemented;
    if (!pool::is_fp(ddt) && !pool::is_int8(ddt)) return status::unimplemented;
    // As oneDNN: src and dst scales, one value each, for int8 only.
    if (!attr_.has_default_values(attr_t::skip_post_ops | attr_t::skip_scales)) return status::unimplemented;
    const bool int8 = pool::is_int8(sdt) || pool::is_int8(ddt);
    for (const auto &q : attr_.scales.items)
        if (!int8 || !one_of(q.arg, DNNL_ARG_SRC, DNNL_ARG_DST) || q.e.mask != 0 || q.e.ndims != 0
                || !one_of(q.e.dt, dnnl_f32, dnnl_bf16, dnnl_f16))
            return decline("lnorm", "scales");
    if (!one_of(desc_.ss_dt, dnnl_f32, dnnl_bf16, dnnl_f16)) return status::unimplemented;
    const mdw_t s(src_md_);
    if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) {
        // Like src when src is a dense plain layout (any order of dims),
        // else row-major.
        if (s.is_plain() && s.is_dense()) {
            const data_type_t dt = dst_md_.data_type;
            dst_md_ = src_md_;
            dst_md_.data_type = dt;
            dst_md_.offset0 = 0;
        } else {
            KESTREL_CHECK(md_set_tag(dst_md_, pool::plain_tag(dst_md_.ndims)));
        }
    }
    if (mdw_t(stat_md_).is_any()) KESTREL_CHECK(stat_like_src());
    if (!mdw_t(stat_md_).is_blocked() || stat_md_.data_type != dnnl_f32) return status::unimplemented;
    if (!mdw_t(dst_md_).is_blocked() || mdw_t(dst_md_).has_runtime_dims_or_strides()
            || mdw_t(stat_md_).has_runtime_dims_or_strides())
        return status::unimplemented;
    if (use_scale() || use_shift()) {
        dim_t c = C();
        KESTREL_CHECK(md_init_by_tag(ss_md_, 1, &c, desc_.ss_dt, dnnl_a));
    }
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_);
}

status_t lnorm_bwd_pd_t::init_common() {
    KESTREL_CHECK(init_base("lnorm_bwd", C(), desc_.ss_dt, desc_.diff_ss_dt));
    if (mdw_t(stat_md_).is_any()) {
        if (!mdw_t(hint_stat_md_).is_blocked() || hint_stat_md_.ndims != stat_md_.ndims)
            KESTREL_CHECK(md_set_tag(stat_md_, pool::plain_tag(stat_md_.ndims)));
        else
            stat_md_ = hint_stat_md_;
    }
    if (!mdw_t(stat_md_).is_blocked() || mdw_t(stat_md_).has_runtime_dims_or_strides()) return status::unimplemented;
    if (stat_md_.data_type != dnnl_f32) return status::unimplemented;
    return status::success;
}

} // namespace kestrel
