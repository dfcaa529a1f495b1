// Layer normalization: op descriptor and the base of forward implementations.
// Statistics run over the last logical dim; one mean/variance per point of
// the other dims.
#ifndef KESTREL_CPU_POOLING_LNORM_PD_HPP
#define KESTREL_CPU_POOLING_LNORM_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"
#include "cpu/norm/norm_bwd_pd.hpp"

namespace kestrel {

struct lnorm_desc_t : op_desc_impl_t<lnorm_desc_t> {
    lnorm_desc_t() : op_desc_impl_t(dnnl_layer_normalization) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md(), dst_md = zero_md(), stat_md = zero_md();
    // Backward only (zero / f32 for forward).
    memory_desc_t diff_src_md = zero_md(), diff_dst_md = zero_md();
    data_type_t diff_ss_dt = dnnl_f32;
    data_type_t ss_dt = dnnl_f32;
    float epsilon = 0.f;
    unsigned flags = 0;

    // Every field, for the primitive cache key.
    bool serialize(key_writer_t &k) const override {
        k.put(prop_kind);
        k.put(src_md);
        k.put(dst_md);
        k.put(stat_md);
        k.put(ss_dt);
        k.put(diff_src_md);
        k.put(diff_dst_md);
        k.put(diff_ss_dt);
        k.put(epsilon);
        k.put(flags);
        return true;
    }
};

struct lnorm_fwd_pd_t : pd_t {
    using desc_t = lnorm_desc_t;
    lnorm_fwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_layer_normalization), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md),
          stat_md_(d->stat_md) {}

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_training() const { return desc_.prop_kind == dnnl_forward_training; }
    bool global_stats() const { return desc_.flags & dnnl_use_global_stats; }
    bool stats_out() const { return is_training() && !global_stats(); }
    bool use_scale() const { return desc_.flags & dnnl_use_scale; }
    bool use_shift() const { return desc_.flags & dnnl_use_shift; }
    // RMS normalization: no mean (taken as 0), variance = mean of squares.
    bool rms() const { return desc_.flags & dnnl_rms_norm; }
    dim_t C() const { return src_md_.dims[src_md_.ndims - 1]; }
    // The statistics layout, whether or not they are arguments.
    const memory_desc_t *stat_md() const { return &stat_md_; }

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
        if (idx == 0 && (use_scale() || use_shift())) return &ss_md_;
        return &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override;
    const memory_desc_t *arg_md(int arg) const override;
    int n_inputs() const override { return 1 + (global_stats() ? (rms() ? 1 : 2) : 0) + use_scale() + use_shift(); }
    int n_outputs() const override { return 1 + (stats_out() ? (rms() ? 1 : 2) : 0); }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    status_t init_common();
    status_t stat_like_src();

    desc_t desc_;
    memory_desc_t src_md_, dst_md_, stat_md_, ss_md_ = zero_md();
};

// Backward: see norm_bwd_pd_t; statistics in `any` take the hint's layout.
struct lnorm_bwd_pd_t : norm_bwd_pd_t {
    using desc_t = lnorm_desc_t;
    lnorm_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *hint)
        : norm_bwd_pd_t(a, dnnl_layer_normalization, d->prop_kind, d->flags, d->epsilon, d->src_md, d->diff_src_md,
                d->diff_dst_md),
          desc_(*d) {
        stat_md_ = d->stat_md;
        if (const auto *h = dynamic_cast<const lnorm_fwd_pd_t *>(hint)) {
            hint_stat_md_ = *h->stat_md();
        }
    }
    const desc_t *desc() const { return &desc_; }
    dim_t C() const { return src_md_.dims[src_md_.ndims - 1]; }

protected:
    status_t init_common();

    desc_t desc_;
    memory_desc_t hint_stat_md_ = zero_md();
};

extern const impl_entry_t lnorm_impl_list[];
extern const impl_entry_t lnorm_bwd_impl_list[];

} // namespace kestrel

#endif
