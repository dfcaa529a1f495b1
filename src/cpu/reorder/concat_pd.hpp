// Concat: dst is the sources placed one after another along `axis`.
#ifndef KESTREL_CPU_REORDER_CONCAT_PD_HPP
#define KESTREL_CPU_REORDER_CONCAT_PD_HPP

#include <vector>

#include "cpu/reorder/multi_src_pd.hpp"

namespace kestrel {

struct concat_desc_t : op_desc_impl_t<concat_desc_t>, multi_src_mds_t {
    concat_desc_t() : op_desc_impl_t(dnnl_concat) {}
    int axis = 0;

    bool serialize(key_writer_t &k) const override {
        serialize_mds(k);
        k.put(axis);
        return true;
    }
};

// Per-source scales (attribute scales on DNNL_ARG_MULTIPLE_SRC + i, mask 0,
// f32) multiply each source before it is stored.
struct concat_base_pd_t : multi_src_pd_t<concat_desc_t> {
    using multi_src_pd_t::multi_src_pd_t;
    arg_usage_t arg_usage(int arg) const override;
    int axis() const { return desc_.axis; }
    // Whether source i has a scale; any_scale() for some source.
    bool has_scale(int i) const { return attr_.scales.get(DNNL_ARG_MULTIPLE_SRC + i) != nullptr; }
    bool any_scale() const { return !attr_.scales.empty(); }

protected:
    status_t init_common(const char *impl);
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
