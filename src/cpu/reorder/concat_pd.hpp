// Concat: dst is the sources placed one after another along `axis`.
#ifndef KESTREL_CPU_REORDER_CONCAT_PD_HPP
#define KESTREL_CPU_REORDER_CONCAT_PD_HPP

#include <vector>

#include "core/primitive.hpp"

namespace kestrel {

struct concat_desc_t : op_desc_impl_t<concat_desc_t> {
    concat_desc_t() : op_desc_impl_t(dnnl_concat) {}
    memory_desc_t dst_md = zero_md(); // format any allowed
    int axis = 0;
    std::vector<memory_desc_t> src_mds;
};

struct concat_base_pd_t : pd_t {
    concat_base_pd_t(const concat_desc_t *d, const attr_t *a)
        : pd_t(a, dnnl_concat), desc_(*d), dst_md_(d->dst_md) {}

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
    int axis() const { return desc_.axis; }

protected:
    status_t init_common(const char *impl);

    concat_desc_t desc_;
    memory_desc_t dst_md_;
};

// Plain dense sources and dst with one order of dims and one data type:
// each source is a run of contiguous chunks, copied with memcpy.
struct concat_dense_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, concat_base_pd_t, concat_dense_t> {
        using desc_t = concat_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "concat:dense_copy"; }
        status_t init(dnnl_engine *) override;
        dim_t outer = 0, row = 0; // rows of the dst and elements per row
        std::vector<dim_t> chunk, dst_off; // per source, in elements
    };
    explicit concat_dense_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// Any layouts and data types: element by element through mdw_t::off_v.
struct concat_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, concat_base_pd_t, concat_ref_t> {
        using desc_t = concat_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "concat:ref"; }
        status_t init(dnnl_engine *) override;
    };
    explicit concat_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

extern const impl_entry_t concat_impl_list[];

} // namespace kestrel

#endif
