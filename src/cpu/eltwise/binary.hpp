// Binary implementations: vectorised (one operand of dst's shape, the other
// of the same shape, scalar or per-channel, on dense layouts; either src0
// or src1 may be the broadcast one) and the reference (any broadcast of
// src0, src1 and src2, any layout).
// Both apply the post-op chain (eltwise, sum, binary) in their output loop.
#ifndef KESTREL_CPU_ELTWISE_BINARY_HPP
#define KESTREL_CPU_ELTWISE_BINARY_HPP

#include "core/primitive.hpp"
#include "cpu/eltwise/bcast.hpp"
#include "cpu/eltwise/binary_pd.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "cpu/eltwise/post_rows.hpp"

namespace kestrel {

struct binary_vec_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, binary_pd_t, binary_vec_t> {
        using desc_t = binary_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override;
        const elt::kernels_t *k_ = nullptr;
        // swap_: src0 is the broadcast operand, so the plan streams src1
        // and the kernels run kalg_ (op with its operands exchanged; sub
        // becomes an add of src1 scaled by -s1, negate_).
        bool swap_ = false, negate_ = false;
        dnnl_alg_kind_t kalg_ = dnnl_alg_kind_undef;
        elt::bcast_plan_t plan_;
        elt::post_rows_t post_; // post-op chain in dst's physical order
        char name_[32] = "vec:any";
    };
    explicit binary_vec_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

struct binary_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, binary_pd_t, binary_ref_t> {
        using desc_t = binary_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit binary_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

// Scales of src0/src1 (1 when not set), read at execution.
void binary_scales(const attr_t &attr, const exec_ctx_t &ctx, float &s0, float &s1);

} // namespace kestrel

#endif
