// Matmul with dense src and packed sparse weights (weights compression,
// Kestrel's layout in core/packed_layout.hpp), on any x86-64 CPU: 2D, src
// and dst row-major (ab or any), no bias, no attributes. Types: f32 src,
// weights and dst; or u8/s8 src with s8 weights and f32, s32, s8 or u8 dst
// (summed exactly in s32). Panels of 16 columns are split across threads;
// each thread expands one panel's nonzeros into a dense K x 16 tile in its
// scratchpad (walking the bitmasks, so zeros cost nothing to expand) and
// multiplies its rows of src by the tile.
#ifndef KESTREL_CPU_GEMM_MATMUL_PACKED_HPP
#define KESTREL_CPU_GEMM_MATMUL_PACKED_HPP

#include "cpu/gemm/matmul_pd.hpp"

namespace kestrel {

struct packed_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, packed_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, packed_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "sparse:packed"; }
        bool accepts_sparse() const override { return true; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t { key_tile = 0 }; // per thread: K x 16 f32 or s32
        bool integer = false; // s8 weights: s32 sums
    };
    explicit packed_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
