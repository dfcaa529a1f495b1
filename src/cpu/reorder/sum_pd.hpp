// Sum: dst = sum_i scales[i] * src_i, accumulated in f32 in order of i.
#ifndef KESTREL_CPU_REORDER_SUM_PD_HPP
#define KESTREL_CPU_REORDER_SUM_PD_HPP

#include <vector>

#include "core/primitive.hpp"

namespace kestrel {

struct sum_desc_t : op_desc_impl_t<sum_desc_t> {
    sum_desc_t() : op_desc_impl_t(dnnl_sum) {}
    memory_desc_t dst_md = zero_md(); // format any allowed
    std::vector<float> scales;
    std::vector<memory_desc_t> src_mds;
};

struct sum_base_pd_t : pd_t {
    sum_base_pd_t(const sum_desc_t *d, const attr_t *a)
        : pd_t(a, dnnl_sum), desc_(*d), dst_md_(d->dst_md) {}

    const memory_desc_t *src_md(int idx = 0) const override {
        return idx >= 0 && idx < n() ? &desc_.src_mds[(size_t)idx] : &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    arg_usage_t arg_usage(int arg) const override {
        if (arg >= DNNL_ARG_MULTIPLE_SRC && arg < DNNL_ARG_MULTIPLE_SRC + n()) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return n(); }
    int n_outputs() const override { return 1; }

    int n() const { return (int)desc_.src_mds.size(); }
    const float *scales() const { return desc_.scales.data(); }

protected:
    // Resolves a dst of format any to the layout of src 0 and checks what
    // every implementation needs.
    status_t init_common(const char *impl);

    sum_desc_t desc_;
    memory_desc_t dst_md_;
};

// Dense sources and dst all in one layout: a flat, vectorised loop.
struct sum_dense_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, sum_base_pd_t, sum_dense_t> {
        using desc_t = sum_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "sum:dense_simd"; }
        status_t init(dnnl_engine *) override;
        bool all_f32 = false;
        int vec = 1;
    };
    static constexpr int max_srcs = 64;
    explicit sum_dense_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// Any layouts: element by element through mdw_t::off_v.
struct sum_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, sum_base_pd_t, sum_ref_t> {
        using desc_t = sum_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "sum:ref"; }
        status_t init(dnnl_engine *) override;
    };
    explicit sum_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

extern const impl_entry_t sum_impl_list[];

} // namespace kestrel

#endif
