// Resampling: op descriptor, the coordinate rules and the base of forward
// implementations.
//
// An output coordinate o of a dim resized from I to O points maps to the
// source coordinate s = (o + 0.5) * I / O - 0.5 (half-pixel centres, the
// factor being O / I whatever the user passed). Nearest takes the point
// round(s) (halves away from zero); linear blends the points floor(s) and
// ceil(s), clipped to [0, I - 1], with weights 1 - w and w, w = s - floor(s).
#ifndef KESTREL_CPU_POOLING_RESAMPLING_PD_HPP
#define KESTREL_CPU_POOLING_RESAMPLING_PD_HPP

#include <cmath>
#include <vector>

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"

namespace kestrel {

struct resampling_desc_t : op_desc_impl_t<resampling_desc_t> {
    resampling_desc_t() : op_desc_impl_t(dnnl_resampling) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    dnnl_alg_kind_t alg = dnnl_resampling_nearest;
    memory_desc_t src_md = zero_md(), dst_md = zero_md();
    float factors[3] = {1.f, 1.f, 1.f};

    bool serialize(key_writer_t &k) const override {
        k.put(prop_kind);
        k.put(alg);
        k.put(src_md);
        k.put(dst_md);
        for (float f : factors) k.put(f);
        return true;
    }
};

namespace resampling {

inline float src_coord(dim_t o, dim_t O, dim_t I) {
    return ((float)o + 0.5f) * (float)I / (float)O - 0.5f;
}

inline dim_t nearest(dim_t o, dim_t O, dim_t I) {
    const dim_t i = (dim_t)std::round(src_coord(o, O, I));
    return i < 0 ? 0 : i > I - 1 ? I - 1 : i;
}

struct linear_t {
    dim_t i0, i1;
    float w0, w1;
};

inline linear_t linear(dim_t o, dim_t O, dim_t I) {
    const float s = src_coord(o, O, I);
    linear_t c;
    // Left of the first centre (s < 0) both points are 0; right of the last
    // both are I - 1; the weights then do not matter.
    c.i0 = s <= 0.f ? 0 : (dim_t)s;
    if (c.i0 > I - 1) c.i0 = I - 1;
    const dim_t up = s <= 0.f ? 0 : ((float)(dim_t)s == s ? (dim_t)s : (dim_t)s + 1);
    c.i1 = up > I - 1 ? I - 1 : up;
    c.w1 = std::fabs(s - (float)c.i0);
    c.w0 = 1.f - c.w1;
    return c;
}

// The queries resampling answers beyond the base pd's, forward and
// backward alike; false when `what` is not one of them.
inline bool query(const resampling_desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = d.alg; return true;
        case dnnl_query_factors: *(const float **)result = d.factors; return true;
        default: return false;
    }
}

} // namespace resampling

struct resampling_fwd_pd_t : pd_t {
    using desc_t = resampling_desc_t;
    resampling_fwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_resampling), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_linear() const { return desc_.alg == dnnl_resampling_linear; }
    int nsp() const { return src_md_.ndims - 2; }
    // Spatial size of dim i of 3 (d, h, w; missing ones are 1).
    dim_t isz(int i) const { return sp(src_md_, i); }
    dim_t osz(int i) const { return sp(dst_md_, i); }

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    status_t init_common();
    static dim_t sp(const memory_desc_t &md, int i) {
        const int k = i - (3 - (md.ndims - 2));
        return k < 0 ? 1 : md.dims[2 + k];
    }

    desc_t desc_;
    memory_desc_t src_md_, dst_md_;
};

extern const impl_entry_t resampling_impl_list[];

// Backward: diff_src from diff_dst (the op desc's src_md and dst_md hold
// diff_src and diff_dst). Each diff_src point is the sum of the diff_dst
// points that read it in the forward pass, times the forward weights.
struct resampling_bwd_pd_t : pd_t {
    using desc_t = resampling_desc_t;
    resampling_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_resampling), desc_(*d), diff_src_md_(d->src_md), diff_dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_linear() const { return desc_.alg == dnnl_resampling_linear; }
    const memory_desc_t *diff_src_md(int idx = 0) const override {
        return idx == 0 ? &diff_src_md_ : &zero_md_;
    }
    const memory_desc_t *diff_dst_md(int idx = 0) const override {
        return idx == 0 ? &diff_dst_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_DIFF_DST) return arg_usage_t::input;
        if (arg == DNNL_ARG_DIFF_SRC) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return resampling::query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }

protected:
    desc_t desc_;
    memory_desc_t diff_src_md_, diff_dst_md_;
};

extern const impl_entry_t resampling_bwd_impl_list[];

} // namespace kestrel

#endif
