// Batch normalization: op descriptor and the base of forward implementations.
#ifndef KESTREL_CPU_POOLING_BNORM_PD_HPP
#define KESTREL_CPU_POOLING_BNORM_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"
#include "cpu/norm/norm_bwd_pd.hpp"

namespace kestrel {

struct bnorm_desc_t : op_desc_impl_t<bnorm_desc_t> {
    bnorm_desc_t() : op_desc_impl_t(dnnl_batch_normalization) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md(), dst_md = zero_md();
    // Backward only (zero for forward).
    memory_desc_t diff_src_md = zero_md(), diff_dst_md = zero_md();
    float epsilon = 0.f;
    unsigned flags = 0;

    // Every field, for the primitive cache key.
    bool serialize(key_writer_t &k) const override {
        k.put(prop_kind);
        k.put(src_md);
        k.put(dst_md);
        k.put(diff_src_md);
        k.put(diff_dst_md);
        k.put(epsilon);
        k.put(flags);
        return true;
    }
};

struct bnorm_fwd_pd_t : pd_t {
    using desc_t = bnorm_desc_t;
    bnorm_fwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_batch_normalization), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_training() const { return desc_.prop_kind == dnnl_forward_training; }
    bool global_stats() const { return desc_.flags & dnnl_use_global_stats; }
    bool stats_out() const { return is_training() && !global_stats(); }
    bool use_scale() const { return desc_.flags & dnnl_use_scale; }
    bool use_shift() const { return desc_.flags & dnnl_use_shift; }
    bool fuse_add() const { return desc_.flags & dnnl_fuse_norm_add_relu; }
    bool fuse_relu() const { return desc_.flags & (dnnl_fuse_norm_relu | dnnl_fuse_norm_add_relu); }
    bool with_ws() const { return is_training() && fuse_relu(); }
    // The one post-op batch normalization takes: eltwise relu (negative
    // slope alpha; 0 in training, where the flag is the way to get a
    // workspace). No workspace comes from the post-op.
    bool relu_post_op() const { return !attr_.post_ops.entries.empty(); }
    float relu_alpha() const { return relu_post_op() ? attr_.post_ops.entries[0].eltwise.alpha : 0.f; }
    dim_t C() const { return src_md_.dims[1]; }

    const memory_desc_t *src_md(int idx = 0) const override {
        if (idx == 0) return &src_md_;
        if (global_stats() && (idx == 1 || idx == 2)) return &stat_md_;
        return &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override {
        if (idx == 0) return &dst_md_;
        if (stats_out() && (idx == 1 || idx == 2)) return &stat_md_;
        return &zero_md_;
    }
    const memory_desc_t *weights_md(int idx = 0) const override {
        // One descriptor serves scale and shift, as oneDNN reports it.
        if (idx == 0 && (use_scale() || use_shift())) return &scale_md_;
        return &zero_md_;
    }
    const memory_desc_t *workspace_md(int idx = 0) const override {
        return idx == 0 && with_ws() ? &ws_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override;
    const memory_desc_t *arg_md(int arg) const override;
    int n_inputs() const override {
        return 1 + (global_stats() ? 2 : 0) + use_scale() + use_shift() + fuse_add();
    }
    int n_outputs() const override { return 1 + (stats_out() ? 2 : 0) + with_ws(); }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    status_t init_common();

    desc_t desc_;
    memory_desc_t src_md_, dst_md_, stat_md_ = zero_md(), scale_md_ = zero_md(), ws_md_ = zero_md();
};

// Backward: see norm_bwd_pd_t; with fuse_norm_relu or fuse_norm_add_relu
// the forward's workspace masks diff_dst.
struct bnorm_bwd_pd_t : norm_bwd_pd_t {
    using desc_t = bnorm_desc_t;
    bnorm_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *hint)
        : norm_bwd_pd_t(a, dnnl_batch_normalization, d->prop_kind, d->flags, d->epsilon, d->src_md, d->diff_src_md,
                d->diff_dst_md),
          desc_(*d) {
        if (const auto *h = dynamic_cast<const bnorm_fwd_pd_t *>(hint)) {
            fwd_src_md_ = *h->src_md();
            hint_ws_md_ = *h->workspace_md();
        }
    }
    const desc_t *desc() const { return &desc_; }
    bool fuse_relu() const { return desc_.flags & (dnnl_fuse_norm_relu | dnnl_fuse_norm_add_relu); }
    // With fuse_norm_add_relu the masked diff_dst is also the gradient of
    // the added input (DIFF_SRC_1, in diff_src's layout).
    bool fuse_add() const { return desc_.flags & dnnl_fuse_norm_add_relu; }
    dim_t C() const { return src_md_.dims[1]; }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_DIFF_SRC_1) return fuse_add() ? arg_usage_t::output : arg_usage_t::unused;
        return norm_bwd_pd_t::arg_usage(arg);
    }
    const memory_desc_t *arg_md(int arg) const override {
        if (arg == DNNL_ARG_DIFF_SRC_1) return fuse_add() ? &diff_src_md_ : &zero_md_;
        return norm_bwd_pd_t::arg_md(arg);
    }
    int n_outputs() const override { return norm_bwd_pd_t::n_outputs() + fuse_add(); }
    // The forward src layout, which indexes the workspace.
    const memory_desc_t *fwd_src_md() const { return &fwd_src_md_; }

protected:
    status_t init_common();

    desc_t desc_;
    memory_desc_t fwd_src_md_ = zero_md(), hint_ws_md_ = zero_md();
};

extern const impl_entry_t bnorm_impl_list[];
extern const impl_entry_t bnorm_bwd_impl_list[];

} // namespace kestrel

#endif
