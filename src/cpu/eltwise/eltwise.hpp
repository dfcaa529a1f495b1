// Eltwise forward implementations: a vectorised one for dense memories and
// the reference (any layout, every algorithm, the test oracle).
#ifndef KESTREL_CPU_ELTWISE_ELTWISE_HPP
#define KESTREL_CPU_ELTWISE_ELTWISE_HPP

#include "core/primitive.hpp"
#include "cpu/eltwise/eltwise_pd.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "cpu/eltwise/post_rows.hpp"

namespace kestrel {

struct eltwise_vec_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, eltwise_fwd_pd_t, eltwise_vec_t> {
        using desc_t = eltwise_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override;
        const elt::kernels_t *k_ = nullptr;
        elt::post_rows_t post_; // post-op chain in dst's physical order
        char name_[32] = "vec:any";
    };
    explicit eltwise_vec_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

struct eltwise_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, eltwise_fwd_pd_t, eltwise_ref_t> {
        using desc_t = eltwise_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit eltwise_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
