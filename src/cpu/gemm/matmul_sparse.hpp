// Matmul with one sparse operand: a CSR or COO src times dense weights, or a
// dense src times CSR or COO weights; 2D, all f32 or all f16 (f16 summed in
// f32), row-major (ab) dense operands
// and dst, no bias and no attributes, as oneDNN accepts sparse matmul on CPU.
// The kernel walks the nonzeros only, rows of dst in parallel.
//
// Packed sparse weights (weights compression) are matmul_packed.hpp's.
#ifndef KESTREL_CPU_GEMM_MATMUL_SPARSE_HPP
#define KESTREL_CPU_GEMM_MATMUL_SPARSE_HPP

#include "cpu/gemm/matmul_pd.hpp"

namespace kestrel {

struct sparse_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, sparse_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, sparse_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return dt == dnnl_f16 ? "sparse:f16" : "sparse:f32"; }
        bool accepts_sparse() const override { return true; }
        status_t init(dnnl_engine *) override;

        // COO row indices are turned into CSR row pointers plus the order
        // that visits each row's entries together (the indices need not be
        // sorted).
        // f16: each thread sums a row of dst in f32 (N floats).
        enum : scratchpad::key_t { key_row_ptr = 0, key_order = 1, key_acc = 2 };

        bool src_sparse = false; // else the weights are
        dnnl_sparse_encoding_t encoding = dnnl_sparse_encoding_undef;
        data_type_t dt = dnnl_f32; // of every tensor: f32 or f16
    };
    explicit sparse_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
