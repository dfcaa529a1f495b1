// Matmul with dense src and packed sparse weights (weights compression,
// Kestrel's layout in core/packed_layout.hpp), on any x86-64 CPU: 2D, src
// and dst row-major (ab or any), no bias, no attributes. Types: f32 src,
// weights and dst; or u8/s8 src with s8 weights and f32, s32, s8 or u8 dst
// (summed exactly in s32). Panels of 16 columns are split across threads;
// each thread expands one panel's nonzeros into a dense K x 16 tile in its
// scratchpad (walking the bitmasks, so zeros cost nothing to expand) and
// multiplies src by the tile: f32 through the library's GEMM on the calling
// thread (groups of 4 panels); int8 expands every panel (in parallel) into
// a dense s8 K x N buffer in the scratchpad and runs the int8 GEMM on it.
#ifndef KESTREL_CPU_GEMM_MATMUL_PACKED_HPP
#define KESTREL_CPU_GEMM_MATMUL_PACKED_HPP

#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/gemm_s8.hpp"
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

        // Per thread: the expanded tile (K x group columns, f32 or s32),
        // then the f32 GEMM plan's packing regions.
        // int8: the whole weights expanded (K x N s8), then the int8 plan's.
        enum : scratchpad::key_t { key_tile = 0, key_plan = 1, key_wdense = 8 };
        bool integer = false; // s8 weights: s32 sums
        gemm::plan_t plan; // f32: src times each expanded tile
        gemm::s8_plan_t s8plan; // int8: src times the expanded weights
    };
    explicit packed_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
