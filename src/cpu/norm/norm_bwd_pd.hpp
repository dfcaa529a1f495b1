// The base of the batch, layer and group normalization backward pds: the
// arguments, descriptors and queries the three share.
//   inputs:  src, mean (not for RMS), variance, diff_dst, scale (use_scale),
//            workspace (when the kind sets ws_md_);
//   outputs: diff_src, and for prop backward diff_scale (use_scale) and
//            diff_shift (use_shift).
// The forward hint is required (checked at the API).
#ifndef KESTREL_CPU_NORM_NORM_BWD_PD_HPP
#define KESTREL_CPU_NORM_NORM_BWD_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/common/common.hpp"

namespace kestrel {

struct norm_bwd_pd_t : pd_t {
    norm_bwd_pd_t(const attr_t *a, dnnl_primitive_kind_t kind, dnnl_prop_kind_t prop, unsigned flags, float eps,
            const memory_desc_t &src, const memory_desc_t &diff_src, const memory_desc_t &diff_dst)
        : pd_t(a, kind), prop_(prop), flags_(flags), eps_(eps), src_md_(src), diff_src_md_(diff_src),
          diff_dst_md_(diff_dst) {}

    dnnl_prop_kind_t prop_kind() const override { return prop_; }
    float epsilon() const { return eps_; }
    bool global_stats() const { return flags_ & dnnl_use_global_stats; }
    bool use_scale() const { return flags_ & dnnl_use_scale; }
    bool use_shift() const { return flags_ & dnnl_use_shift; }
    bool rms() const { return flags_ & dnnl_rms_norm; }
    bool bwd() const { return prop_ == dnnl_backward; }
    bool diff_ss() const { return bwd() && (use_scale() || use_shift()); }
    bool with_ws() const { return !mdw_t(ws_md_).is_zero(); }
    const memory_desc_t *stat_md() const { return &stat_md_; }

    const memory_desc_t *src_md(int idx = 0) const override {
        if (idx == 0) return &src_md_;
        return idx == 1 || idx == 2 ? &stat_md_ : &zero_md_;
    }
    const memory_desc_t *diff_src_md(int idx = 0) const override { return idx == 0 ? &diff_src_md_ : &zero_md_; }
    const memory_desc_t *diff_dst_md(int idx = 0) const override { return idx == 0 ? &diff_dst_md_ : &zero_md_; }
    const memory_desc_t *weights_md(int idx = 0) const override {
        return idx == 0 && (use_scale() || use_shift()) ? &ss_md_ : &zero_md_;
    }
    const memory_desc_t *diff_weights_md(int idx = 0) const override {
        return idx == 0 && diff_ss() ? &diff_ss_md_ : &zero_md_;
    }
    const memory_desc_t *workspace_md(int idx = 0) const override { return idx == 0 ? &ws_md_ : &zero_md_; }
    arg_usage_t arg_usage(int arg) const override {
        switch (arg) {
            case DNNL_ARG_MEAN: return rms() ? arg_usage_t::unused : arg_usage_t::input;
            case DNNL_ARG_SRC:
            case DNNL_ARG_VARIANCE:
            case DNNL_ARG_DIFF_DST: return arg_usage_t::input;
            case DNNL_ARG_DIFF_SRC: return arg_usage_t::output;
            case DNNL_ARG_SCALE: return use_scale() ? arg_usage_t::input : arg_usage_t::unused;
            case DNNL_ARG_DIFF_SCALE: return bwd() && use_scale() ? arg_usage_t::output : arg_usage_t::unused;
            case DNNL_ARG_DIFF_SHIFT: return bwd() && use_shift() ? arg_usage_t::output : arg_usage_t::unused;
            case DNNL_ARG_WORKSPACE: return with_ws() ? arg_usage_t::input : arg_usage_t::unused;
            default: return pd_t::arg_usage(arg);
        }
    }
    const memory_desc_t *arg_md(int arg) const override {
        switch (arg) {
            case DNNL_ARG_MEAN:
            case DNNL_ARG_VARIANCE: return &stat_md_;
            case DNNL_ARG_SCALE: return use_scale() ? &ss_md_ : &zero_md_;
            case DNNL_ARG_DIFF_SCALE:
            case DNNL_ARG_DIFF_SHIFT: return arg_usage(arg) == arg_usage_t::output ? &diff_ss_md_ : &zero_md_;
            default: return pd_t::arg_md(arg);
        }
    }
    int n_inputs() const override { return 3 + (rms() ? 0 : 1) + use_scale() + with_ws(); }
    int n_outputs() const override { return 1 + (bwd() ? use_scale() + use_shift() : 0); }
    status_t query(dnnl_query_t what, int idx, void *result) const override {
        switch (what) {
            case dnnl_query_epsilon_f32: *(float *)result = eps_; return status::success;
            case dnnl_query_flags: *(unsigned *)result = flags_; return status::success;
            default: return pd_t::query(what, idx, result);
        }
    }

protected:
    // Checks what every implementation needs (no attributes, f32/bf16
    // data, plain or blocked layouts) and resolves diff_src and diff_dst
    // `any` to the src layout; scale/shift of C channels in ss_dt and
    // diff_ss_dt. The forward hint is optional.
    status_t init_base(const char *who, dim_t C, data_type_t ss_dt, data_type_t diff_ss_dt) {
        if (!attr_.has_default_values()) return status::unimplemented;
        for (const memory_desc_t *md : {&src_md_, &diff_src_md_, &diff_dst_md_})
            if (!pool::is_fp(md->data_type)) return decline(who, "data types");
        const mdw_t s(src_md_);
        if (!s.is_blocked() || s.has_runtime_dims_or_strides()) return status::unimplemented;
        for (memory_desc_t *md : {&diff_dst_md_, &diff_src_md_})
            if (mdw_t(*md).is_any()) {
                const data_type_t dt = md->data_type;
                *md = src_md_;
                md->data_type = dt;
                md->offset0 = 0;
            }
        for (const memory_desc_t *md : {&diff_src_md_, &diff_dst_md_})
            if (!mdw_t(*md).is_blocked() || mdw_t(*md).has_runtime_dims_or_strides()) return status::unimplemented;
        if (!one_of(ss_dt, dnnl_f32, dnnl_bf16, dnnl_f16) || !one_of(diff_ss_dt, dnnl_f32, dnnl_bf16, dnnl_f16))
            return status::unimplemented;
        if (use_scale() || use_shift()) KESTREL_CHECK(md_init_by_tag(ss_md_, 1, &C, ss_dt, dnnl_a));
        if (diff_ss()) KESTREL_CHECK(md_init_by_tag(diff_ss_md_, 1, &C, diff_ss_dt, dnnl_a));
        return status::success;
    }

    dnnl_prop_kind_t prop_;
    unsigned flags_;
    float eps_;
    memory_desc_t src_md_, diff_src_md_, diff_dst_md_, stat_md_ = zero_md(), ss_md_ = zero_md(),
            diff_ss_md_ = zero_md(), ws_md_ = zero_md();
};

} // namespace kestrel

#endif
