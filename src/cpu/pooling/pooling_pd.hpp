// Pooling: the op descriptor and the base of every forward implementation.
#ifndef KESTREL_CPU_POOLING_POOLING_PD_HPP
#define KESTREL_CPU_POOLING_POOLING_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"

namespace kestrel {

struct pooling_desc_t : op_desc_impl_t<pooling_desc_t> {
    pooling_desc_t() : op_desc_impl_t(dnnl_pooling) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    dnnl_alg_kind_t alg = dnnl_pooling_max;
    memory_desc_t src_md = zero_md(), dst_md = zero_md();
    dims_t strides = {}, kernel = {}, dilation = {}, padding_l = {}, padding_r = {};

    // Every field, for the primitive cache key.
    bool serialize(key_writer_t &k) const override {
        k.put(prop_kind);
        k.put(alg);
        k.put(src_md);
        k.put(dst_md);
        for (int d = 0; d < max_ndims; ++d) {
            k.put(strides[d]);
            k.put(kernel[d]);
            k.put(dilation[d]);
            k.put(padding_l[d]);
            k.put(padding_r[d]);
        }
        return true;
    }
};

// The problem in 3 spatial dims (missing ones are 1, padding 0).
struct pooling_conf_t {
    int ndims;
    dim_t MB, C, ID, IH, IW, OD, OH, OW, KD, KH, KW, SD, SH, SW, DD, DH, DW, padF, padT, padL;
    bool is_max, exclude_padding, with_ws;
    float max_init; // lowest value of the dst type
};

// Calls f(kd, kh, id, ih) for each source row (depth and height index) of
// output (od, oh)'s window that lies inside src; padding rows are skipped,
// kd outermost.
template <typename F>
inline void for_each_window_row(const pooling_conf_t &c, dim_t od, dim_t oh, const F &f) {
    for (dim_t kd = 0; kd < c.KD; ++kd) {
        const dim_t id = od * c.SD - c.padF + kd * (c.DD + 1);
        if (id < 0 || id >= c.ID) continue;
        for (dim_t kh = 0; kh < c.KH; ++kh) {
            const dim_t ih = oh * c.SH - c.padT + kh * (c.DH + 1);
            if (ih < 0 || ih >= c.IH) continue;
            f(kd, kh, id, ih);
        }
    }
}

// The same for every point: f(kd, kh, kw, id, ih, iw), kw innermost.
template <typename F>
inline void for_each_window_point(const pooling_conf_t &c, dim_t od, dim_t oh, dim_t ow, const F &f) {
    for_each_window_row(c, od, oh, [&](dim_t kd, dim_t kh, dim_t id, dim_t ih) {
        for (dim_t kw = 0; kw < c.KW; ++kw) {
            const dim_t iw = ow * c.SW - c.padL + kw * (c.DW + 1);
            if (iw < 0 || iw >= c.IW) continue;
            f(kd, kh, kw, id, ih, iw);
        }
    });
}

// Fills `c` from the op descriptor and the (diff_)src / (diff_)dst
// descriptors; every field but max_init.
void pooling_init_conf(pooling_conf_t &c, const pooling_desc_t &desc, const memory_desc_t &src_md,
        const memory_desc_t &dst_md);
// The pooling queries both directions answer (alg, kernel, strides, ...);
// unimplemented for any other.
status_t pooling_desc_query(const pooling_desc_t &d, dnnl_query_t what, void *result);

struct pooling_fwd_pd_t : pd_t {
    using desc_t = pooling_desc_t;
    pooling_fwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_pooling), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    const pooling_conf_t &conf() const { return conf_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    const memory_desc_t *workspace_md(int idx = 0) const override {
        return idx == 0 && conf_.with_ws ? &ws_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        if (arg == DNNL_ARG_WORKSPACE && conf_.with_ws) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1 + (conf_.with_ws ? 1 : 0); }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    // Checks what every implementation needs, resolves dst format `any`
    // to the src layout and sets up the workspace.
    status_t init_common();
    status_t check_data_types() const;

    desc_t desc_;
    memory_desc_t src_md_, dst_md_, ws_md_ = zero_md();
    pooling_conf_t conf_ = {};
};

// Backward (backward_data): diff_src from diff_dst and, for max pooling,
// the forward's workspace of indices. The forward hint is required for max
// pooling (it supplies the workspace descriptor); when given, its src and
// dst layouts resolve diff_src and diff_dst `any` (else each takes the
// other's layout, or plain when both are `any`).
struct pooling_bwd_pd_t : pd_t {
    using desc_t = pooling_desc_t;
    pooling_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *hint)
        : pd_t(a, dnnl_pooling), desc_(*d), diff_src_md_(d->src_md), diff_dst_md_(d->dst_md) {
        if (const auto *h = dynamic_cast<const pooling_fwd_pd_t *>(hint)) {
            hint_src_md_ = *h->src_md();
            hint_dst_md_ = *h->dst_md();
            ws_md_ = *h->workspace_md();
        }
    }

    const desc_t *desc() const { return &desc_; }
    const pooling_conf_t &conf() const { return conf_; }
    dnnl_prop_kind_t prop_kind() const override { return dnnl_backward_data; }

    const memory_desc_t *diff_src_md(int idx = 0) const override { return idx == 0 ? &diff_src_md_ : &zero_md_; }
    const memory_desc_t *diff_dst_md(int idx = 0) const override { return idx == 0 ? &diff_dst_md_ : &zero_md_; }
    const memory_desc_t *workspace_md(int idx = 0) const override {
        return idx == 0 && conf_.is_max ? &ws_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_DIFF_DST) return arg_usage_t::input;
        if (arg == DNNL_ARG_DIFF_SRC) return arg_usage_t::output;
        if (arg == DNNL_ARG_WORKSPACE && conf_.is_max) return arg_usage_t::input;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 1 + (conf_.is_max ? 1 : 0); }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override {
        const status_t st = pooling_desc_query(desc_, what, result);
        return st == status::success ? st : pd_t::query(what, idx, result);
    }

protected:
    // Checks what every backward implementation needs and resolves
    // diff_src format `any`.
    status_t init_common();

    desc_t desc_;
    memory_desc_t diff_src_md_, diff_dst_md_, hint_src_md_ = zero_md(), hint_dst_md_ = zero_md(),
                  ws_md_ = zero_md();
    pooling_conf_t conf_ = {};
};

// Element strides of a channel-innermost (or channel-blocked) 3D..5D md in
// the order the kernels walk: n, channel block, d, h, w (0 for a missing
// spatial dim).
inline void pool_walk_strides(const memory_desc_t &md, dim_t st[5]) {
    const dim_t *b = md.blocking.strides;
    const int nd = md.ndims;
    st[0] = b[0];
    st[1] = b[1];
    st[2] = nd == 5 ? b[2] : 0;
    st[3] = nd >= 4 ? b[nd - 2] : 0;
    st[4] = b[nd - 1];
}

// Valid kernel taps [k0, k1) for a window starting at i0 with step dil in
// an input of size n.
inline void tap_range(dim_t i0, dim_t K, dim_t dil, dim_t n, dim_t &k0, dim_t &k1) {
    k0 = i0 < 0 ? div_up(-i0, dil) : 0;
    k1 = i0 >= n ? 0 : (K < div_up(n - i0, dil) ? K : div_up(n - i0, dil));
    if (k1 < k0) k1 = k0;
}

extern const impl_entry_t pooling_impl_list[];
extern const impl_entry_t pooling_bwd_impl_list[];

// 8-bit integer src on channel-innermost layouts (pooling_int8.cpp).
status_t create_int8_pooling_pd(pd_t **out, const op_desc_t *desc, const attr_t *attr, dnnl_engine *engine,
        const pd_t *hint);

// The plain channel-first implementation (pooling_ncsp.cpp).
status_t create_ncsp_pooling_pd(pd_t **out, const op_desc_t *desc, const attr_t *attr, dnnl_engine *engine,
        const pd_t *hint);

} // namespace kestrel

#endif
