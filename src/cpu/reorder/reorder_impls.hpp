// The reorder implementations, in the order reorder_list.cpp tries them.
#ifndef KESTREL_CPU_REORDER_REORDER_IMPLS_HPP
#define KESTREL_CPU_REORDER_REORDER_IMPLS_HPP

#include <vector>

#include "core/primitive.hpp"
#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/reorder/layout_util.hpp"
#include "cpu/reorder/reorder_pd.hpp"

namespace kestrel {

// Identical dense layouts, same data type, no attributes: a parallel memcpy.
struct reorder_direct_copy_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_direct_copy_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:direct_copy"; }
        // The first test init() makes, before a pd is built.
        static bool may_accept(const desc_t &d, const attr_t *attr);
        status_t init(dnnl_engine *) override;
    };
    explicit reorder_direct_copy_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// From or to s4/u4 (reorder_sub_byte.cpp): unpadded layouts, the
// reference's data types and attributes.
struct reorder_sub_byte_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_sub_byte_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:sub_byte"; }
        // The first test init() makes, before a pd is built.
        static bool may_accept(const desc_t &d, const attr_t *attr);
        bool accepts_sub_byte() const override { return true; }
        status_t init(dnnl_engine *) override;
        int split = -1; // dst dim threads split, -1: one thread
    };
    explicit reorder_sub_byte_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// Dense ab <-> packed sparse weights in Kestrel's layout (f32, s8, u8;
// reorder_packed.cpp).
struct reorder_packed_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_packed_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:packed"; }
        // The first test init() makes, before a pd is built.
        static bool may_accept(const desc_t &d, const attr_t *attr);
        bool accepts_sparse() const override { return true; }
        status_t init(dnnl_engine *) override;
        bool to_packed_ = true;
    };
    explicit reorder_packed_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// Plain <-> nChw16c (16 channels innermost, spatial dims dense on both
// sides; n and c strides free), 4-byte types, AVX-512: 16x16 tiles
// transposed in registers instead of gathered or scattered.
struct reorder_transpose_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_transpose_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:transpose16_avx512"; }
        status_t init(dnnl_engine *) override;

        bool to_blocked = true; // dst is the blocked side
        dim_t N = 0, C = 0, SP = 0; // SP: product of the spatial dims
        dim_t b_off0 = 0, b_ns = 0, b_cbs = 0; // blocked: base, n step, 16c step
        dim_t p_off0 = 0, p_ns = 0, p_cs = 0; // plain: base, n step, c step
    };
    explicit reorder_transpose_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// One side plain (any strides), the other blocked (any inner blocks), same
// data type, no attributes: each inner block of the blocked side is filled
// from (or spread to) the plain side through a precomputed index table,
// with AVX-512 / AVX2 gathers (and AVX-512 scatters) for 4-byte types.
struct reorder_blocked_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_blocked_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:blocked_simd"; }
        status_t init(dnnl_engine *) override;

        bool to_blocked = true; // dst is the blocked side
        dim_t K = 0; // elements in one inner block
        dim_t blk[max_ndims] = {}; // block of each dim in the blocked side
        dim_t ext[max_ndims] = {}; // outer extents of the blocked side
        int order[max_ndims] = {}; // outer dims, outermost first
        std::vector<dim_t> b_outer, p_outer; // per dim, per outer index
        dim_t outer_start[max_ndims] = {};
        dim_t b_off0 = 0, p_off0 = 0;
        std::vector<int32_t> idx; // plain-side offset of block element j
        std::vector<dim_t> ipos; // [j * ndims + d]: in-block index along d
        std::vector<uint8_t> contig; // per 16 (or 8) elements: idx is a run
        int vec = 1; // 16 (avx512), 8 (avx2) or 1 (scalar)
    };
    explicit reorder_blocked_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// Any layouts, data types and attributes: walks the dst in its physical
// order; offsets come from per-dim tables, so no division per element.
struct reorder_generic_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_generic_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:generic"; }
        status_t init(dnnl_engine *) override;

        data_movement::offset_table_t stab, dtab;
        int order[max_ndims] = {};
        dim_t ss_ms[max_ndims] = {}, ds_ms[max_ndims] = {}, zp_ms[max_ndims] = {};
    };
    struct row_args_t;
    using row_fn_t = void (*)(const row_args_t &);

    explicit reorder_generic_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }

private:
    row_fn_t row_ = nullptr;
};

// The reference: every element on its own, offsets from mdw_t::off_v.
struct reorder_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_ref_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:ref"; }
        status_t init(dnnl_engine *) override;
    };
    explicit reorder_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// f32 to u8 data or s8 weights with the RNN quantisation attributes
// (rnn_data_qparams, rnn_weights_qparams, rnn_weights_projection_qparams),
// any plain or blocked layouts (reorder_rnn.cpp).
struct reorder_rnn_quant_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_rnn_quant_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:rnn_quant"; }
        // The first test init() makes, before a pd is built.
        static bool may_accept(const desc_t &d, const attr_t *attr);
        status_t init(dnnl_engine *) override;
        enum class kind_t { data, weights, projection } kind = kind_t::data;
    };
    explicit reorder_rnn_quant_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

// Into Kestrel's packed RNN weights (kestrel_rnn_packed_desc) from plain
// 5D weights: s8 as they are, or f32 quantised as reorder:rnn_quant does
// (the rnn weights scales when set, else 1). Slice by slice through a
// K x N s8 copy in the scratchpad (reorder_rnn.cpp).
struct reorder_rnn_packed_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, reorder_base_pd_t, reorder_rnn_packed_t> {
        using desc_t = reorder_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *) : pd_impl_t(d, a) {}
        const char *name() const override { return "reorder:rnn_packed"; }
        // The first test init() makes, before a pd is built.
        static bool may_accept(const desc_t &d, const attr_t *attr);
        status_t init(dnnl_engine *) override;
        // Pack one slice's columns [0, n_first) and [n_first, n) (the
        // layout does not depend on M).
        gemm::s8_plan_t plan, plan2;
        enum : scratchpad::key_t { key_slice = 0 };
    };
    explicit reorder_rnn_packed_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
    const pd_t *pd() const { return static_cast<const pd_t *>(primitive_t::pd()); }
};

extern const impl_entry_t reorder_impl_list[];

} // namespace kestrel

#endif
