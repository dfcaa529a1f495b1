#include "cpu/reduction/reduction_pd.hpp"

#include <cmath>

#include "cpu/post_ops.hpp"

namespace kestrel {

status_t reduction_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = desc_.alg; return status::success;
        case dnnl_query_p_f32: *(float *)result = desc_.p; return status::success;
        case dnnl_query_epsilon_f32: *(float *)result = desc_.eps; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

float reduction_pd_t::finish(float acc, dim_t count) const {
    const float p = desc_.p, eps = desc_.eps;
    // 1/p-th root; the common p = 1 and p = 2 without pow.
    auto root = [&](float v) { return p == 1.f ? v : p == 2.f ? std::sqrt(v) : std::pow(v, 1.f / p); };
    switch (desc_.alg) {
        case dnnl_reduction_mean: return count ? acc / (float)count : acc;
        case dnnl_reduction_norm_lp_max: return root(acc > eps ? acc : eps);
        case dnnl_reduction_norm_lp_sum: return root(acc + eps);
        case dnnl_reduction_norm_lp_power_p_max: return acc > eps ? acc : eps;
        case dnnl_reduction_norm_lp_power_p_sum: return acc + eps;
        default: return acc;
    }
}

status_t reduction_pd_t::init_common() {
    using pool::red_op_t;
    if (!attr_.has_default_values(attr_t::skip_post_ops)) return status::unimplemented;
    // f32/bf16 and s8/u8 src; f32/bf16, s8/u8 and s32 dst. Integer results
    // are rounded to nearest even and saturated.
    const data_type_t sdt = src_md_.data_type, ddt = dst_md_.data_type;
    if (!pool::is_fp(sdt) && !pool::is_int8(sdt)) return status::unimplemented;
    if (!pool::is_fp(ddt) && !pool::is_int8(ddt) && ddt != dnnl_s32) return status::unimplemented;
    const mdw_t s(src_md_);
    if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) {
        // A src blocked by channels whose channels are reduced away would
        // leave a dst of one channel padded to a whole block: use the
        // channel-last form then (the same as plain for one channel).
        const pool::layout_t l = pool::classify(src_md_);
        const bool c_reduced = dst_md_.ndims >= 2 && dst_md_.dims[1] != src_md_.dims[1];
        if (c_reduced && (l == pool::layout_t::blocked8 || l == pool::layout_t::blocked16))
            KESTREL_CHECK(md_set_tag(dst_md_, pool::tag_of(pool::layout_t::nspc, dst_md_.ndims)));
        else
            KESTREL_CHECK(pool::set_like(dst_md_, src_md_));
    }
    const mdw_t d(dst_md_);
    if (!d.is_blocked() || d.has_runtime_dims_or_strides()) return status::unimplemented;
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    KESTREL_CHECK(post_ops::check(attr_.post_ops, dst_md_));
    switch (desc_.alg) {
        case dnnl_reduction_max: op_ = red_op_t::max; break;
        case dnnl_reduction_min: op_ = red_op_t::min; break;
        case dnnl_reduction_mul: op_ = red_op_t::mul; break;
        case dnnl_reduction_sum:
        case dnnl_reduction_mean: op_ = red_op_t::sum; break;
        default:
            op_ = desc_.p == 1.f ? red_op_t::abs_sum : desc_.p == 2.f ? red_op_t::sq_sum : red_op_t::pow_sum;
            break;
    }
    return status::success;
}

} // namespace kestrel
