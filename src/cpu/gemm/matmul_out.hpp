// What the GEMM-based matmuls (gemm:f32/cvt and gemm:s8) apply to the
// product: source and weights scales (folded into the GEMM's alpha where
// they are per tensor), bias, dropout, post-ops after a leading sum, the dst
// scale and zero point. Set up once per execution; stage_at() gives one
// batch position's copy.
#ifndef KESTREL_CPU_GEMM_MATMUL_OUT_HPP
#define KESTREL_CPU_GEMM_MATMUL_OUT_HPP

#include "cpu/common/dropout.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/matmul_pd.hpp"

namespace kestrel {

class matmul_out_t {
public:
    gemm::scales_t sc;
    float alpha = 1.f; // the GEMM's alpha
    bool needed = false; // false: the product is dst as it stands

    matmul_out_t(const matmul_pd_t &pd, const exec_ctx_t &ctx, const memory_desc_t &dmd)
        : pd_(pd), ctx_(ctx), ap_(pd.attr()->post_ops, dmd, ctx), nd_(dmd.ndims) {}

    // first_po: the first post-op the stage applies (a leading sum rides on
    // the GEMM's beta); key_bias: the scratchpad key of the f32 bias copy.
    // weights_dequantized: the weights scales and zero points were applied
    // to the weights themselves (decompression), so the stage skips them.
    status_t init(int first_po, int key_bias, bool weights_dequantized = false) {
        KESTREL_CHECK(sc.init(*pd_.attr(), ctx_));
        if (weights_dequantized) {
            sc.wei = 1.f;
            sc.wei_p = nullptr;
            sc.wei_mask = 0;
            sc.wei_zp = nullptr;
        }
        alpha = proto_.init(sc, ap_, first_po, nd_);
        if (sc.dst_zp) proto_.dst_zp = &sc;
        KESTREL_CHECK(drop_.init(pd_, ctx_));
        if (drop_.on) proto_.drop = &drop_;
        proto_.wei_sn = sc.wei_mask & (1 << (nd_ - 1)) ? 1 : 0;
        if (pd_.with_bias()) {
            const memory_desc_t &bmd = *pd_.weights_md(1);
            float *buf = ctx_.scratchpad().get<float>(key_bias);
            if (bmd.data_type != dnnl_f32 && !buf) return status::out_of_memory;
            bias_.init(bmd, ctx_.input(DNNL_ARG_BIAS), buf);
            const mdw_t b(bmd);
            proto_.bias_sm = bmd.dims[nd_ - 2] == 1 ? 0 : b.blk().strides[nd_ - 2];
            proto_.bias_sn = bmd.dims[nd_ - 1] == 1 ? 0 : b.blk().strides[nd_ - 1];
        }
        needed = !proto_.trivial() || pd_.with_bias() || sc.wei_p;
        return status::success;
    }

    // The stage of the GEMM at batch position pos (dst rank; the last two
    // ignored), whose weights origin is at position wp of wmd.
    gemm::out_stage_t stage_at(const dim_t *pos, const memory_desc_t &wmd, const dim_t *wp) const {
        gemm::out_stage_t st = proto_;
        for (int i = 0; i < nd_ - 2; ++i) st.pos[i] = pos[i];
        if (sc.wei_p) st.wei_n = sc.wei_p + gemm::quant_off(sc.wei_mask, nd_, wmd.dims, wp);
        if (pd_.with_bias()) {
            const memory_desc_t &bmd = *pd_.weights_md(1);
            dim_t bp[max_ndims];
            for (int i = 0; i < nd_; ++i) bp[i] = bmd.dims[i] == 1 ? 0 : pos[i];
            st.bias = bias_.at(mdw_t(bmd).off_v(bp));
        }
        return st;
    }

private:
    const matmul_pd_t &pd_;
    const exec_ctx_t &ctx_;
    const post_ops::applier_t ap_;
    const int nd_;
    dropout_t drop_;
    gemm::bias_f32_t bias_;
    gemm::out_stage_t proto_;
};

} // namespace kestrel

#endif
