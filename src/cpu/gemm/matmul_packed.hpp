// Matmul with dense src and packed sparse weights (weights compression,
// Kestrel's layout in core/packed_layout.hpp), on any x86-64 CPU: 2D, src
// and dst row-major (ab or any), no bias, no attributes. Types: f32 src,
// weights and dst; or u8/s8 src with s8 weights and f32, s32, s8 or u8 dst
// (summed exactly in s32). The kernels (packed_kernels.hpp) compute from
// the packed format directly and skip the zeros; nothing is densified and
// no scratchpad is used. Work items are (panel, block of src rows), split
// across threads, so even M = 1 keeps every thread busy.
#ifndef KESTREL_CPU_GEMM_MATMUL_PACKED_HPP
#define KESTREL_CPU_GEMM_MATMUL_PACKED_HPP

#include <string>

#include "cpu/gemm/matmul_pd.hpp"
#include "cpu/gemm/packed_kernels.hpp"

namespace kestrel {

struct packed_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, packed_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, packed_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        // sparse:packed until init picks the kernels, then sparse:packed:<isa>.
        const char *name() const override { return name_.c_str(); }
        bool accepts_sparse() const override { return true; }
        status_t init(dnnl_engine *) override;

        bool integer = false; // s8 weights: s32 sums
        const gemm::packed_kernels_t *kernels = nullptr;
        std::string name_ = "sparse:packed";
    };
    explicit packed_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
