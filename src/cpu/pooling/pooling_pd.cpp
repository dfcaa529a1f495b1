#include "cpu/pooling/pooling_pd.hpp"

#include <cfloat>

#include "cpu/post_ops.hpp"

namespace kestrel {

status_t pooling_desc_query(const pooling_desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = d.alg; return status::success;
        case dnnl_query_kernel: *(const dims_t **)result = &d.kernel; return status::success;
        case dnnl_query_strides: *(const dims_t **)result = &d.strides; return status::success;
        case dnnl_query_dilations: *(const dims_t **)result = &d.dilation; return status::success;
        case dnnl_query_padding_l: *(const dims_t **)result = &d.padding_l; return status::success;
        case dnnl_query_padding_r: *(const dims_t **)result = &d.padding_r; return status::success;
        default: return status::unimplemented;
    }
}

status_t pooling_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    const status_t st = pooling_desc_query(desc_, what, result);
    return st == status::success ? st : pd_t::query(what, idx, result);
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

// The problem in 3 spatial dims from the op descriptor and the (diff_)src
// and (diff_)dst descriptors; shared by forward and backward.
void pooling_init_conf(pooling_conf_t &c, const pooling_desc_t &desc, const memory_desc_t &src_md,
        const memory_desc_t &dst_md) {
    const int nd = src_md.ndims, ns = nd - 2;
    auto sp = [&](const dim_t *v, int i, dim_t dflt) { // i: 0 = d, 1 = h, 2 = w
        int k = i - (3 - ns);
        return k < 0 ? dflt : v[k];
    };
    c.ndims = nd;
    c.MB = src_md.dims[0];
    c.C = src_md.dims[1];
    const dim_t *sd = src_md.dims + 2, *dd = dst_md.dims + 2;
    c.ID = sp(sd, 0, 1), c.IH = sp(sd, 1, 1), c.IW = sp(sd, 2, 1);
    c.OD = sp(dd, 0, 1), c.OH = sp(dd, 1, 1), c.OW = sp(dd, 2, 1);
    c.KD = sp(desc.kernel, 0, 1), c.KH = sp(desc.kernel, 1, 1), c.KW = sp(desc.kernel, 2, 1);
    c.SD = sp(desc.strides, 0, 1), c.SH = sp(desc.strides, 1, 1), c.SW = sp(desc.strides, 2, 1);
    c.DD = sp(desc.dilation, 0, 0), c.DH = sp(desc.dilation, 1, 0), c.DW = sp(desc.dilation, 2, 0);
    c.padF = sp(desc.padding_l, 0, 0), c.padT = sp(desc.padding_l, 1, 0);
    c.padL = sp(desc.padding_l, 2, 0);
    c.is_max = desc.alg == dnnl_pooling_max;
    c.exclude_padding = desc.alg == dnnl_pooling_avg_exclude_padding;
    c.with_ws = c.is_max && desc.prop_kind == dnnl_forward_training;
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

    pooling_init_conf(conf_, desc_, src_md_, dst_md_);
    auto &c = conf_;
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

status_t pooling_bwd_pd_t::init_common() {
    if (!attr_.has_default_values()) return status::unimplemented;
    if (!pool::is_fp(diff_src_md_.data_type) || !pool::is_fp(diff_dst_md_.data_type))
        return decline("pooling_bwd", "data types");
    if (mdw_t(diff_dst_md_).is_any())
        KESTREL_CHECK(pool::set_like(diff_dst_md_, mdw_t(hint_dst_md_).is_blocked() ? hint_dst_md_ : diff_src_md_));
    const mdw_t dd(diff_dst_md_);
    if (!dd.is_blocked() || dd.has_runtime_dims_or_strides()) return status::unimplemented;
    // diff_src `any` takes the forward src layout, as a training pair wants.
    if (mdw_t(diff_src_md_).is_any()) {
        if (mdw_t(hint_src_md_).is_blocked()) {
            const data_type_t dt = diff_src_md_.data_type;
            diff_src_md_ = hint_src_md_;
            diff_src_md_.data_type = dt;
            diff_src_md_.offset0 = 0;
        } else {
            KESTREL_CHECK(pool::set_like(diff_src_md_, diff_dst_md_));
        }
    }
    const mdw_t ds(diff_src_md_);
    if (!ds.is_blocked() || ds.has_runtime_dims_or_strides()) return status::unimplemented;
    pooling_init_conf(conf_, desc_, diff_src_md_, diff_dst_md_);
    conf_.with_ws = conf_.is_max;
    if (conf_.is_max) {
        // The indices come from a forward training primitive of the same
        // output shape.
        if (mdw_t(ws_md_).is_zero()) return decline("pooling_bwd", "hint has no workspace");
        if (ws_md_.ndims != diff_dst_md_.ndims) return status::unimplemented;
        for (int i = 0; i < ws_md_.ndims; ++i)
            if (ws_md_.dims[i] != diff_dst_md_.dims[i]) return decline("pooling_bwd", "workspace shape");
        if (!one_of(ws_md_.data_type, dnnl_u8, dnnl_s32)) return status::unimplemented;
    }
    return status::success;
}

} // namespace kestrel
