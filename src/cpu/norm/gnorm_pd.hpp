// Group normalization: op descriptor and the base of forward implementations.
// Channels split into G groups of C/G; one mean/variance per (n, group),
// taken over the group's channels and every spatial point (if any: 2D
// tensors are accepted, as by oneDNN).
#ifndef KESTREL_CPU_POOLING_GNORM_PD_HPP
#define KESTREL_CPU_POOLING_GNORM_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"
#include "cpu/norm/norm_bwd_pd.hpp"

namespace kestrel {

struct gnorm_desc_t : op_desc_impl_t<gnorm_desc_t> {
    gnorm_desc_t() : op_desc_impl_t(dnnl_group_normalization) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md(), dst_md = zero_md();
    // Backward only (zero for forward).
    memory_desc_t diff_src_md = zero_md(), diff_dst_md = zero_md();
    dim_t groups = 1;
    float epsilon = 0.f;
    unsigned flags = 0;

    bool serialize(key_writer_t &k) const override {
        k.put(prop_kind);
        k.put(src_md);
        k.put(dst_md);
        k.put(groups);
        k.put(diff_src_md);
        k.put(diff_dst_md);
        k.put(epsilon);
        k.put(flags);
        return true;
    }
};

struct gnorm_fwd_pd_t : pd_t {
    using desc_t = gnorm_desc_t;
    gnorm_fwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_group_normalization), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t *desc() const { return &desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_training() const { return desc_.prop_kind == dnnl_forward_training; }
    bool global_stats() const { return desc_.flags & dnnl_use_global_stats; }
    bool stats_out() const { return is_training() && !global_stats(); }
    bool use_scale() const { return desc_.flags & dnnl_use_scale; }
    bool use_shift() const { return desc_.flags & dnnl_use_shift; }
    dim_t MB() const { return src_md_.dims[0]; }
    dim_t C() const { return src_md_.dims[1]; }
    dim_t G() const { return desc_.groups; }
    dim_t SP() const {
        dim_t sp = 1;
        for (int i = 2; i < src_md_.ndims; ++i) sp *= src_md_.dims[i];
        return sp;
    }
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
    int n_inputs() const override { return 1 + (global_stats() ? 2 : 0) + use_scale() + use_shift(); }
    int n_outputs() const override { return 1 + (stats_out() ? 2 : 0); }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    status_t init_common();

    desc_t desc_;
    memory_desc_t src_md_, dst_md_, stat_md_ = zero_md(), ss_md_ = zero_md();
};

// Backward: see norm_bwd_pd_t.
struct gnorm_bwd_pd_t : norm_bwd_pd_t {
    using desc_t = gnorm_desc_t;
    gnorm_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *hint)
        : norm_bwd_pd_t(a, dnnl_group_normalization, d->prop_kind, d->flags, d->epsilon, d->src_md, d->diff_src_md,
                d->diff_dst_md),
          desc_(*d) {
        (void)hint;
    }
    const desc_t *desc() const { return &desc_; }
    dim_t MB() const { return src_md_.dims[0]; }
    dim_t C() const { return src_md_.dims[1]; }
    dim_t G() const { return desc_.groups; }
    dim_t SP() const {
        dim_t sp = 1;
        for (int i = 2; i < src_md_.ndims; ++i) sp *= src_md_.dims[i];
        return sp;
    }
    status_t query(dnnl_query_t what, int idx, void *result) const override {
        if (what != dnnl_query_group_size_s64) return norm_bwd_pd_t::query(what, idx, result);
        *(dim_t *)result = desc_.groups;
        return status::success;
    }

protected:
    status_t init_common() {
        KESTREL_CHECK(init_base("gnorm_bwd", C(), dnnl_f32, dnnl_f32));
        const dim_t ng[2] = {MB(), G()};
        return md_init_by_tag(stat_md_, 2, ng, dnnl_f32, dnnl_ab);
    }

    desc_t desc_;
};

extern const impl_entry_t gnorm_impl_list[];
extern const impl_entry_t gnorm_bwd_impl_list[];

} // namespace kestrel

#endif
