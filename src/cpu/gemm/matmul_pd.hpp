// Matmul: dst[b..., M, N] = src[b..., M, K] x weights[b..., K, N] + bias,
// batch dims broadcast (a src or weights batch dim of 1 serves every dst
// index), then scales and post-ops. Float (f32, bf16, f16 storage, f32
// compute), int8 (s8/u8 src and weights with zero points, s32
// accumulation) and weights decompression (float src, s8/u8/s4/u4 weights with
// grouped scales and zero points) problems.
#ifndef KESTREL_CPU_GEMM_MATMUL_PD_HPP
#define KESTREL_CPU_GEMM_MATMUL_PD_HPP

#include "core/primitive.hpp"

namespace kestrel {

struct matmul_desc_t : op_desc_impl_t<matmul_desc_t> {
    matmul_desc_t() : op_desc_impl_t(dnnl_matmul) {}
    memory_desc_t src_md = zero_md(), weights_md = zero_md(), bias_md = zero_md(),
                  dst_md = zero_md();

    // No bias is the zero md, so its presence is part of the key too.
    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(matmul_desc_t) == 2480, "matmul_desc_t changed: update serialize");
        k.put(src_md);
        k.put(weights_md);
        k.put(bias_md);
        k.put(dst_md);
        return true;
    }
};

struct matmul_pd_t : pd_t {
    matmul_pd_t(const matmul_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_matmul), desc_(*d), src_md_(d->src_md), weights_md_(d->weights_md),
          bias_md_(d->bias_md), dst_md_(d->dst_md) {}

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    const memory_desc_t *weights_md(int idx = 0) const override {
        return idx == 0 ? &weights_md_ : idx == 1 ? &bias_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC || arg == DNNL_ARG_WEIGHTS) return arg_usage_t::input;
        if (arg == DNNL_ARG_BIAS) return with_bias() ? arg_usage_t::input : arg_usage_t::unused;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 2 + (with_bias() ? 1 : 0); }
    int n_outputs() const override { return 1; }

    bool with_bias() const { return !mdw_t(bias_md_).is_zero(); }
    bool is_int8() const { return one_of(src_md_.data_type, dnnl_s8, dnnl_u8); }
    // Weights decompression: floating-point src, s8/u8/s4/u4 weights that are
    // scaled and shifted back to floating point (grouped along K) before the
    // product; oneDNN asks for fpmath_mode with apply_to_int for it.
    bool is_wei_decomp() const {
        return !is_int8() && one_of(weights_md_.data_type, dnnl_s8, dnnl_u8, dnnl_s4, dnnl_u4);
    }
    int ndims() const { return dst_md_.ndims; }
    bool has_runtime_dims() const {
        return mdw_t(src_md_).has_runtime_dims_or_strides()
                || mdw_t(weights_md_).has_runtime_dims_or_strides()
                || mdw_t(dst_md_).has_runtime_dims_or_strides()
                || mdw_t(bias_md_).has_runtime_dims_or_strides();
    }

protected:
    // Shared part of every implementation's init: data types and
    // attributes are checked, formats `any` become plain row-major.
    // Returns unimplemented for what no implementation supports.
    status_t init_common();

    matmul_desc_t desc_;
    memory_desc_t src_md_, weights_md_, bias_md_, dst_md_;
};

// Position of the operand element (md: src or weights) feeding dst
// position `pos` (batch dims of size 1 broadcast), with its last two dims
// set to (r, c).
inline void matmul_operand_pos(
        const memory_desc_t &md, const dim_t *pos, dim_t r, dim_t c, dim_t *out) {
    const int n = md.ndims;
    for (int d = 0; d < n - 2; ++d) out[d] = md.dims[d] == 1 ? 0 : pos[d];
    out[n - 2] = r;
    out[n - 1] = c;
}

// The dst position of batch `ib` (row-major over dst's batch dims, last two
// 0) and the positions of the src and weights origins feeding it.
inline void matmul_batch_origin(const memory_desc_t &dmd, const memory_desc_t &smd, const memory_desc_t &wmd,
        dim_t ib, dim_t *pos, dim_t *sp, dim_t *wp) {
    const int nd = dmd.ndims;
    for (int i = nd - 3; i >= 0; --i) {
        pos[i] = ib % dmd.dims[i];
        ib /= dmd.dims[i];
    }
    pos[nd - 2] = pos[nd - 1] = 0;
    matmul_operand_pos(smd, pos, 0, 0, sp);
    matmul_operand_pos(wmd, pos, 0, 0, wp);
}

// Walk order of implementations; defined in matmul_list.cpp.
extern const impl_entry_t matmul_impl_list[];

} // namespace kestrel

#endif
