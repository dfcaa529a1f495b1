// Local response normalization: op descriptor and the base of forward
// implementations.
//   across channels: window of local_size channels centred on c,
//   within channel:  window of local_size^(spatial dims) points centred on
//                    the point;
// both with half-width (local_size - 1) / 2 on each side, clipped at the
// borders, alpha divided by the full window size (local_size, or
// local_size^spatial dims), dst = src * (k + alpha / n * sum src^2)^-beta.
//
// Workspace (forward training): the base k + alpha / n * sum for every
// element, f32, in dst's layout; a backward pass reads it instead of
// recomputing the window sums.
#ifndef KESTREL_CPU_POOLING_LRN_PD_HPP
#define KESTREL_CPU_POOLING_LRN_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"

namespace kestrel {

struct lrn_desc_t : op_desc_impl_t<lrn_desc_t> {
    lrn_desc_t() : op_desc_impl_t(dnnl_lrn) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    dnnl_alg_kind_t alg = dnnl_lrn_across_channels;
    memory_desc_t src_md = zero_md(), dst_md = zero_md();
    // Backward only (zero for forward).
    memory_desc_t diff_src_md = zero_md(), diff_dst_md = zero_md();
    dim_t local_size = 1;
    float alpha = 0.f, beta = 0.f, k = 1.f;

    bool serialize(key_writer_t &w) const override {
        w.put(prop_kind);
        w.put(alg);
        w.put(src_md);
        w.put(dst_md);
        w.put(local_size);
        w.put(alpha);
        w.put(beta);
        w.put(k);
        w.put(diff_src_md);
        w.put(diff_dst_md);
        return true;
    }
};

// The divisor of alpha: the full window size.
inline float lrn_summands(const lrn_desc_t &d, int ndims) {
    const bool across = d.alg == dnnl_lrn_across_channels;
    dim_t n = d.local_size;
    if (!across)
        for (int i = 3; i < ndims; ++i) n *= d.local_size;
    if (!across && ndims == 2) n = 1;
    return (float)n;
}

struct lrn_fwd_pd_t : pd_t {
    using desc_t = lrn_desc_t;
    lrn_fwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_lrn), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool across() const { return desc_.alg == dnnl_lrn_across_channels; }
    bool with_ws() const { return desc_.prop_kind == dnnl_forward_training; }
    dim_t half() const { return (desc_.local_size - 1) / 2; }
    float summands() const { return lrn_summands(desc_, src_md_.ndims); }

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    const memory_desc_t *workspace_md(int idx = 0) const override {
        return idx == 0 && with_ws() ? &ws_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        if (arg == DNNL_ARG_WORKSPACE && with_ws()) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1 + (with_ws() ? 1 : 0); }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    status_t init_common();

    desc_t desc_;
    memory_desc_t src_md_, dst_md_, ws_md_ = zero_md();
};

// Backward: diff_src from src and diff_dst. With a forward training hint
// the forward's workspace (the bases k + alpha / n * sum) is an input and
// saves recomputing the window sums; with an inference hint, or none, they
// are recomputed from src.
struct lrn_bwd_pd_t : pd_t {
    using desc_t = lrn_desc_t;
    lrn_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *hint)
        : pd_t(a, dnnl_lrn), desc_(*d), src_md_(d->src_md), diff_src_md_(d->diff_src_md),
          diff_dst_md_(d->diff_dst_md) {
        if (const auto *h = dynamic_cast<const lrn_fwd_pd_t *>(hint)) {
            ws_md_ = *h->workspace_md();
        }
    }

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return dnnl_backward_data; }
    bool across() const { return desc_.alg == dnnl_lrn_across_channels; }
    bool with_ws() const { return !mdw_t(ws_md_).is_zero(); }
    dim_t half() const { return (desc_.local_size - 1) / 2; }
    float summands() const { return lrn_summands(desc_, src_md_.ndims); }

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *diff_src_md(int idx = 0) const override { return idx == 0 ? &diff_src_md_ : &zero_md_; }
    const memory_desc_t *diff_dst_md(int idx = 0) const override { return idx == 0 ? &diff_dst_md_ : &zero_md_; }
    const memory_desc_t *workspace_md(int idx = 0) const override { return idx == 0 ? &ws_md_ : &zero_md_; }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC || arg == DNNL_ARG_DIFF_DST) return arg_usage_t::input;
        if (arg == DNNL_ARG_DIFF_SRC) return arg_usage_t::output;
        if (arg == DNNL_ARG_WORKSPACE && with_ws()) return arg_usage_t::input;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 2 + (with_ws() ? 1 : 0); }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    status_t init_common();

    desc_t desc_;
    memory_desc_t src_md_, diff_src_md_, diff_dst_md_, ws_md_ = zero_md();
};

extern const impl_entry_t lrn_impl_list[];
extern const impl_entry_t lrn_bwd_impl_list[];

} // namespace kestrel

#endif
