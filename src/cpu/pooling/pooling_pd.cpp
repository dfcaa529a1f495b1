#include "cpu/pooling/pooling_pd.hpp"

#include <cfloat>

#include "cpu/post_ops.hpp"

namespace kestrel {

status_t pooling_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = desc_.alg; return status::success;
        case dnnl_query_kernel: *(const dims_t **)result = &desc_.kernel; return status::success;
        case dnnl_query_strides: *(const dims_t **)result = &desc_.strides; return status::success;
        case dnnl_query_dilations: *(const dims_t **)result = &desc_.dilation; return status::success;
        case dnnl_query_padding_l: *(const dims_t **)result = &desc_.padding_l; return status::success;
        case dnnl_query_padding_r: *(const dims_t **)result = &desc_.padding_r; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

// As oneDNN documents for CPU forward: f32/bf16 in and out (any mix of the
// two, as before), s8 and u8 to themselves, and for inference only s8/u8
// to one another, to f32 or f16, and f32/f16 to s8/u8. Max pooling's
// workspace (training) therefore always has src type == dst type for int8.
status_t pooling_fwd_pd_t::check_data_types() const {
    const data_type_t s = src_md_.data_type, d = dst_md_.data_type;
    if (pool::is_fp(s) && pool::is_fp(d)) return status::success;
    if (pool::is_int8(s) && s == d) return status::success;
    if (s == dnnl_s32 && d == dnnl_s32) return status::success;
    if (desc_.prop_kind != dnnl_forward_inference) return decline("pooling", "mixed int8 types need inference");
    if (pool::is_int8(s) && one_of(d, dnnl_s8, dnnl_u8, dnnl_f32, dnnl_f16)) return status::success;
    if (pool::is_int8(d) && one_of(s, dnnl_f32, dnnl_f16)) return status::success;
    return decline("pooling", "data types");
}

status_t pooling_fwd_pd_t::init_common() {
    if (!attr_.has_default_values(attr_t::skip_post_ops)) return status::unimplemented;
    if (!attr_.post_ops.has_only({dnnl_eltwise, dnnl_binary})) return status::unimplemented;
    KESTREL_CHECK(check_data_types());
    // Post-ops run on the f32 paths only.
    if (!attr_.post_ops.entries.empty()
            && (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type)))
        return status::unimplemented;
    if (!mdw_t(src_md_).is_blocked()) return status::unimplemented;
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(pool::set_like(dst_md_, src_md_));
    if (!mdw_t(dst_md_).is_blocked()) return status::unimplemented;
    if (mdw_t(src_md_).has_runtime_dims_or_strides() || mdw_t(dst_md_).has_runtime_dims_or_strides())
        return status::unimplemented;

    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    KESTREL_CHECK(post_ops::check(attr_.post_ops, dst_md_));

    const int nd = src_md_.ndims, ns = nd - 2;
    auto sp = [&](const dim_t *v, int i, dim_t dflt) { // i: 0 = d, 1 = h, 2 = w
        int k = i - (3 - ns);
        return k < 0 ? dflt : v[k];
    };
    auto &c = conf_;
    c.ndims = nd;
    c.MB = src_md_.dims[0];
    c.C = src_md_.dims[1];
    const dim_t *sd = src_md_.dims + 2, *dd = dst_md_.dims + 2;
    c.ID = sp(sd, 0, 1), c.IH = sp(sd, 1, 1), c.IW = sp(sd, 2, 1);
    c.OD = sp(dd, 0, 1), c.OH = sp(dd, 1, 1), c.OW = sp(dd, 2, 1);
    c.KD = sp(desc_.kernel, 0, 1), c.KH = sp(desc_.kernel, 1, 1), c.KW = sp(desc_.kernel, 2, 1);
    c.SD = sp(desc_.strides, 0, 1), c.SH = sp(desc_.strides, 1, 1), c.SW = sp(desc_.strides, 2, 1);
    c.DD = sp(desc_.dilation, 0, 0), c.DH = sp(desc_.dilation, 1, 0), c.DW = sp(desc_.dilation, 2, 0);
    c.padF = sp(desc_.padding_l, 0, 0), c.padT = sp(desc_.padding_l, 1, 0);
    c.padL = sp(desc_.padding_l, 2, 0);
    c.is_max = desc_.alg == dnnl_pooling_max;
    c.exclude_padding = desc_.alg == dnnl_pooling_avg_exclude_padding;
    c.with_ws = c.is_max && desc_.prop_kind == dnnl_forward_training;
    // The lowest finite value of the dst type, so an all-padding window
    // stores a finite number (bf16's lowest is 0xff7f).
    c.max_init = dst_md_.data_type == dnnl_bf16 ? bf16_to_f32(0xff7f) : -FLT_MAX;
    // An 8-bit src starts from its own lowest value (stored saturated).
    if (src_md_.data_type == dnnl_s8) c.max_init = -128.f;
    if (src_md_.data_type == dnnl_u8) c.max_init = 0.f;
    if (src_md_.data_type == dnnl_s32) c.max_init = -2147483648.f; // exact in f32
    if (c.with_ws) {
        ws_md_ = dst_md_;
        // Indices of the max inside the window: u8 while they fit.
        ws_md_.data_type = c.KD * c.KH * c.KW <= 255 ? dnnl_u8 : dnnl_s32;
    }
    return status::success;
}

} // namespace kestrel
