// Sum: dst = sum_i scales[i] * src_i, accumulated in f32 in order of i.
#ifndef KESTREL_CPU_REORDER_SUM_PD_HPP
#define KESTREL_CPU_REORDER_SUM_PD_HPP

#include <vector>

#include "cpu/reorder/multi_src_pd.hpp"

namespace kestrel {

struct sum_desc_t : op_desc_impl_t<sum_desc_t>, multi_src_mds_t {
    sum_desc_t() : op_desc_impl_t(dnnl_sum) {}
    std::vector<float> scales;

    bool serialize(key_writer_t &k) const override {
        serialize_mds(k);
        k.put(scales);
        return true;
    }
};

struct sum_base_pd_t : multi_src_pd_t<sum_desc_t> {
    using multi_src_pd_t::multi_src_pd_t;
    const float *scales() const { return desc_.scales.data(); }

protected:
    status_t init_common(const char *impl);
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
