// Every convolution/deconvolution forward implementation, for the lists.
#ifndef KESTREL_CPU_CONV_CONV_IMPLS_HPP
#define KESTREL_CPU_CONV_CONV_IMPLS_HPP

#include <algorithm>
#include <atomic>

#include "core/primitive.hpp"
#include "cpu/conv/conv_epilogue.hpp"
#include "cpu/conv/conv_pd.hpp"
#include "cpu/conv/conv_s8_direct.hpp"
#include "cpu/conv/direct_conv.hpp"
#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

// Plain tags of a problem: ncw/nchw/ncdhw and oiw/.../goidhw.
format_tag_t conv_plain_data_tag(int ndims);
format_tag_t conv_plain_wei_tag(int ndims, bool with_groups);

// Base of the forward primitives: the epilogue, built once from the pd.
struct conv_fwd_prim_t : primitive_t {
    explicit conv_fwd_prim_t(const conv_fwd_pd_t *pd) : primitive_t(pd) {}
    status_t init() override;

protected:
    conv_epilogue_t epi_;
};

// What every execution starts from: the data pointers, the epilogue's
// arguments and the post-op applier.
struct conv_exec_args_t {
    conv_exec_args_t(const exec_ctx_t &ctx, const conv_fwd_pd_t *pd, const conv_epilogue_t &epi);
    const void *src, *wei;
    void *dst;
    conv_epilogue_t::args_t ea;
    post_ops::applier_t ap;
};

// Runs run(item, ithr, inner_parallel) for items [0, work). With at least as
// many items as threads, items are split over the threads (inner_parallel
// false, ithr the slot for per-thread scratchpad); otherwise items run one
// after another on the calling thread with inner_parallel true, so the
// item itself (a GEMM) may use every thread. Returns the first failure.
template <typename F>
status_t conv_for_items(dim_t work, const scratchpad::grantor_t &sg, const F &run) {
    const int nthr = std::max(1, std::min(max_threads(), sg.nthr()));
    if (work >= nthr || nthr == 1) {
        std::atomic<int> failed {(int)status::success};
        parallel((int)std::min<dim_t>(nthr, work), [&](int ithr, int nt) {
            dim_t s, e;
            balance211(work, nt, ithr, s, e);
            for (dim_t it = s; it < e; ++it) {
                const status_t st = run(it, ithr, false);
                if (st != status::success) failed = (int)st;
            }
        });
        return (status_t)failed.load();
    }
    for (dim_t it = 0; it < work; ++it) KESTREL_CHECK(run(it, 0, true));
    return status::success;
}

// Zero points with one value per channel (mask 1 << 1), which only the
// reference takes: the user's arrays (one value per src / dst channel, in
// the attribute's data type), null where the zero point is per tensor.
struct conv_zp_vec_t {
    const void *src = nullptr, *dst = nullptr;
    data_type_t src_dt = dnnl_s32, dst_dt = dnnl_s32;
};

// The reference loop (also the int8 GEMM path's fallback): every dst
// element of one execution, any layout through mdw_t.
void ref_conv_fwd_run(const conv_fwd_pd_t *pd, const conv_epilogue_t &epi, const conv_exec_args_t &ex,
        const conv_zp_vec_t &zpv = conv_zp_vec_t());

// Reference: any layout through mdw_t, f32/bf16/f16 storage with f32
// compute, or int8 (u8/s8 src, s8 weights) with exact s32 accumulation and
// src/dst zero points; every attribute the kind accepts. Serves
// convolution and deconvolution.
struct ref_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, ref_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override {
            return geom_.is_deconv ? "ref:any:deconv" : "ref:any";
        }
        status_t init(dnnl_engine *) override;
    };
    explicit ref_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// Direct convolution: data nCx16c with [g]OIx16i16o weights (AVX-512), or
// nCx8c with [g]OIx8i8o (AVX2); or channels-last data (nwc/nhwc/ndhwc, f32)
// through the same kernels, a block of channels being contiguous there too.
// Register tiles of output columns x blocks of output channels; see
// direct_conv.hpp. Channels-last takes weights in the blocked layout
// (chosen for `any`) or plain, copied to the blocked layout into the
// scratchpad at each execution.
struct direct_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, direct_conv_fwd_t> {
        pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint, int blk = 16, bool nxc = false,
                bool ncx = false)
            : pd_impl_t(d, a, hint), blk(blk), nxc(nxc), ncx(ncx) {}
        const char *name() const override {
            if (nxc) return blk == 16 ? "direct:avx512:nhwc" : "direct:avx2:nhwc";
            if (ncx) return blk == 16 ? "direct:avx512:nchw" : "direct:avx2:nchw";
            return blk == 16 ? "direct:avx512:nCx16c" : "direct:avx2:nCx8c";
        }
        status_t init(dnnl_engine *) override;

        int blk; // channels per block: 16 (AVX-512) or 8 (AVX2)
        bool nxc; // channels-last data
        // Channels-first plain data (ncw/nchw/ncdhw): each work item's src
        // window is gathered into blocks in the scratchpad (as for bf16)
        // and results are stored channel by channel.
        bool ncx;
        // Plain user weights: the blocked copy the kernels read (else the
        // weights md itself).
        bool wei_copy = false;
        memory_desc_t wei_blk_md = zero_md();
        direct_conv_conf_t conf;
        // bf16 src/weights: the kernels read f32 copies (weights whole, src
        // a per-thread window per work item, laid out as conf_s says; for
        // other f32 data conf_s is conf, for ncx the window's) and a bf16
        // dst is rounded at the store.
        bool bf16 = false;
        dim_t wei_f32_elems = 0;
        direct_conv_conf_t conf_s;
        // First scratchpad key of the driver's regions: 0 when it is the
        // primitive, else set before init() by an implementation that runs
        // the driver inside its own primitive (backward data) and books
        // these regions beside its own.
        scratchpad::key_t key_base = 0;
    };
    struct pd_8c_t : pd_t {
        pd_8c_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, 8) {}
    };
    struct pd_nxc_t : pd_t {
        pd_nxc_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, 16, true) {}
    };
    struct pd_nxc_8c_t : pd_t {
        pd_nxc_8c_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, 8, true) {}
    };
    struct pd_ncx_t : pd_t {
        pd_ncx_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
            : pd_t(d, a, hint, 16, false, true) {}
    };
    struct pd_ncx_8c_t : pd_t {
        pd_ncx_8c_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint)
            : pd_t(d, a, hint, 8, false, true) {}
    };
    explicit direct_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    direct_kernels_t ker_;
};

// Depthwise f32 2D convolution (groups = channels) on nChw16c or nhwc data
// with AVX-512: see dw_conv.cpp. Weights Goihw16g (`any` resolves to it;
// plain weights are copied into it in the scratchpad at each execution);
// bias and one relu / linear / clip post-op, no scales.
struct dw_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, dw_conv_fwd_t> {
        pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint, bool nxc = false, int blk = 16)
            : pd_impl_t(d, a, hint), nxc(nxc), blk(blk) {}
        const char *name() const override {
            return blk == 16 ? (nxc ? "dw:avx512:nhwc" : "dw:avx512:nCx16c") : (nxc ? "dw:avx2:nhwc" : "dw:avx2:nCx8c");
        }
        status_t init(dnnl_engine *) override;

        bool nxc;
        int blk; // channels per vector: 16 (AVX-512) or 8 (AVX2)
        bool wei_copy = false;
        memory_desc_t wei_blk_md = zero_md();
        int act = direct_act_none;
        float act_a = 0.f, act_b = 0.f;
    };
    struct pd_nxc_t : pd_t {
        pd_nxc_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, true) {}
    };
    // The AVX2 kernels: 8 channels in a ymm, nChw8c or nhwc.
    struct pd_8c_t : pd_t {
        pd_8c_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, false, 8) {}
    };
    struct pd_nxc_8c_t : pd_t {
        pd_nxc_8c_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, true, 8) {}
    };
    explicit dw_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// GEMM-based convolution on plain layouts (ncx or nxc data, [g]oix
// weights). Per image and group, dst = W * col (ncx) or dst^T = col^T * W^T
// (nxc), where col is im2col of src built per thread in the scratchpad, in
// chunks of output points. The 1x1 variant (unit stride, no padding) feeds
// src to the GEMM directly with no im2col. The epilogue runs on each GEMM
// tile while it is in cache; a leading sum post-op becomes the GEMM's beta.
// bf16 src/weights run through the same f32 GEMM: the weights are converted
// to f32 into the scratchpad once per execution, src is converted while the
// column buffer is built (the 1x1 variant then builds one too), and a bf16
// dst is accumulated in a per-thread f32 buffer and rounded once at the end.
struct gemm_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, gemm_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return is_1x1 ? "gemm:1x1" : "gemm:im2col"; }
        status_t init(dnnl_engine *) override;

        bool is_1x1 = false; // set by the 1x1 entry before init
        bool nxc = false; // channels-last data
        bool sum_in_gemm = false; // post-op 0 is a sum done through beta
        bool bf16 = false; // src and weights are bf16 (converted to f32)
        bool acc_buf = false; // dst is not f32: the GEMM writes an f32 buffer
        dim_t chunk = 0; // output points per GEMM call
        dim_t K = 0; // ICg * KD * KH * KW
        gemm::plan_t plan;
    };
    // The 1x1 entry of the list: the same pd, asking for the 1x1 variant.
    struct pd_1x1_t : pd_t {
        pd_1x1_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint) {
            is_1x1 = true;
        }
    };
    explicit gemm_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// int8 convolution on the int8 GEMM engine (u8/s8 src, s8 weights), plain
// ncx or nxc data. Per image, group and chunk of output points,
//   acc (points x OCg) = col (points x K) * W^T (K x OCg)      exact s32
// where col is the byte im2col of src (ncx: built K x points and read
// transposed) or, for a unit-stride unpadded 1x1, src itself. K runs over
// (tap, ic) or (ic, tap), whichever order the plain weights store as one
// matrix per group (`any`: [g]o..i with nxc data, [g]oi.. with ncx). The
// src zero point comes out through the weights' column sums, padding
// holding the zero point's byte (a zero point the src type cannot hold
// sends padded problems to the reference loop). The conv epilogue runs on
// each s32 tile while it is in cache. Chunks are spread over the threads,
// each GEMM running on one.
struct gemm_s8_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, gemm_s8_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "gemm:s8"; }
        status_t init(dnnl_engine *) override;

        bool nxc = true; // channels-last data
        bool ic_inner = true; // K order: k = tap * ICg + ic (else ic * taps + tap)
        bool direct = false; // 1x1 unit stride, no padding: no im2col
        bool transb = true; // weights are OCg rows of K (else K rows of OCg)
        dim_t ldb = 0, K = 0, chunk = 0;
        gemm::s8_plan_t plan;
    };
    explicit gemm_s8_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// Direct int8 convolution on AVX512-VNNI (or AVX-VNNI, the `ymm` variant):
// channels-last data (u8/s8 src),
// s8 weights in [g]OI[d][h]w4i16o4i (chosen for `any`; plain weights are
// left to the GEMM route), register tiles of output columns x blocks of 16
// output channels summed with vpdpbusd, any dst type and every int8
// attribute through the conv epilogue. See conv_s8_direct.hpp.
struct s8_direct_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, s8_direct_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint, bool ymm = false)
            : pd_impl_t(d, a, hint), ymm(ymm) {}
        const char *name() const override {
            return ymm ? "direct:avx2_vnni:nhwc:s8" : "direct:avx512_vnni:nhwc:s8";
        }
        status_t init(dnnl_engine *) override;

        bool ymm; // the AVX-VNNI kernels (one oc block per tile, epilogue from the buffer)
        s8_direct_conf_t conf;
        bool need_comp = false; // weight sums booked (s8 src or src zero point)
        // The output stage in the kernels' registers (s8_direct_out_t): no
        // post-ops, f32 or no bias, dst f32/s32/s8/u8; which steps it has.
        bool fast_out = false, with_scale = false, wei_per_oc = false;
        bool with_dscale = false, dscale_per_oc = false, with_dzp = false;
    };
    struct pd_avx2_t : pd_t {
        pd_avx2_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, true) {}
    };
    explicit s8_direct_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    s8_direct_kernels_t ker_;
};

// A 1x1 convolution (2D, unit stride, no padding, no groups) with a fused
// depthwise 3x3 convolution (dnnl_post_ops_append_dw: stride 1 or 2,
// padding 1), f32 throughout, nchw / nhwc / nChw16c data. dst is the
// depthwise output, {MB, OC, ceil(H / s), ceil(W / s)}, in the 1x1 dst's
// layout; the depthwise weights ({OC, 1, 1, 3, 3}, goihw) and bias ({OC})
// come as DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS / BIAS. Work items
// are (image, band of dst rows): the 1x1 output rows a band needs (band * s
// + 2 at most, clipped to the image) are computed by the GEMM into a
// per-thread buffer, channels innermost, with the 1x1 bias and the post-ops
// before the depthwise entry (eltwise); then the depthwise taps run over
// that buffer, followed by the post-ops after the entry (eltwise, sum).
// The intermediate tensor never exists whole.
struct dw_fused_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, dw_fused_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "gemm:1x1+dw"; }
        status_t init(dnnl_engine *) override;
        arg_usage_t arg_usage(int arg) const override;
        const memory_desc_t *arg_md(int arg) const override;
        int n_inputs() const override { return conv_fwd_pd_t::n_inputs() + 1 + (with_dw_bias ? 1 : 0); }

        enum layout_t { ncx, nxc, blocked16 } layout = nxc;
        bool with_dw_bias = false;
        dim_t stride = 1, OH2 = 0, OW2 = 0; // depthwise stride and dst size
        dim_t band = 1, rows_max = 0; // dst rows per work item, 1x1 rows it needs
        memory_desc_t inter_md = zero_md(); // the 1x1 output (never stored whole)
        memory_desc_t dw_wei_md = zero_md(), dw_bias_md = zero_md();
        post_ops_t pre_po, post_po; // the chain before / after the depthwise entry
        gemm::plan_t plan;
    };
    explicit dw_fused_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// Deconvolution through GEMM and col2im on plain layouts: per image and
// group, col = W^T * src (one row per (oc, tap), ncx; or one row per src
// point, nxc), then each column is scattered into dst (dst += col2im(col));
// the epilogue runs on the image's dst once the scatter is complete. dst
// starts from zero, or, with a leading sum post-op, from the sum's term
// scale * (dst - zero point), so the old values are used in place. W^T is
// rebuilt from the user's weights into the scratchpad at every execution
// (weights may change between runs).
struct gemm_deconv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, gemm_deconv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "gemm:col2im:deconv"; }
        status_t init(dnnl_engine *) override;

        bool nxc = false; // channels-last data
        bool sum_seed = false; // post-op 0 is a sum folded into dst's start
        dim_t chunk = 0; // src points per GEMM call
        dim_t M = 0; // OCg * KD * KH * KW
        gemm::plan_t plan;
    };
    explicit gemm_deconv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

} // namespace kestrel

#endif
