// Every convolution/deconvolution forward implementation, for the lists.
#ifndef KESTREL_CPU_CONV_CONV_IMPLS_HPP
#define KESTREL_CPU_CONV_CONV_IMPLS_HPP

#include "core/primitive.hpp"
#include "cpu/conv/conv_epilogue.hpp"
#include "cpu/conv/conv_pd.hpp"
#include "cpu/gemm/gemm.hpp"

namespace kestrel {

// Plain tags of a problem: ncw/nchw/ncdhw and oiw/.../goidhw.
format_tag_t conv_plain_data_tag(int ndims);
format_tag_t conv_plain_wei_tag(int ndims, bool with_groups);

// Reference: any layout through mdw_t, f32/bf16/f16 storage, f32 compute,
// every attribute the kind accepts. Serves convolution and deconvolution.
struct ref_conv_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, ref_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override {
            return geom_.is_deconv ? "ref:any:deconv" : "ref:any";
        }
        status_t init(dnnl_engine *) override;
    };
    explicit ref_conv_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    conv_epilogue_t epi_;
};

// Direct convolution on nCx16c data and [g]OIx16i16o weights, AVX-512,
// register tile of up to 12 output columns by 2 blocks of 16 channels.
struct direct_conv_16c_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, direct_conv_16c_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "direct:avx512:nCx16c"; }
        status_t init(dnnl_engine *) override;
    };
    explicit direct_conv_16c_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    conv_epilogue_t epi_;
};

// GEMM-based convolution on plain layouts (ncx or nxc data, [g]oix
// weights). Per image and group, dst = W * col (ncx) or dst^T = col^T * W^T
// (nxc), where col is im2col of src built per thread in the scratchpad, in
// chunks of output points. The 1x1 variant (unit stride, no padding) feeds
// src to the GEMM directly with no im2col. The epilogue runs on each GEMM
// tile while it is in cache; a leading sum post-op becomes the GEMM's beta.
struct gemm_conv_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, gemm_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return is_1x1 ? "gemm:1x1" : "gemm:im2col"; }
        status_t init(dnnl_engine *) override;

        bool is_1x1 = false; // set by the 1x1 entry before init
        bool nxc = false; // channels-last data
        bool sum_in_gemm = false; // post-op 0 is a sum done through beta
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
    explicit gemm_conv_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    conv_epilogue_t epi_;
};

// Deconvolution through GEMM and col2im on plain ncx layouts: per image and
// group, col[(oc, k)][point] = W^T * src, then each column is scattered into
// dst (dst += col2im(col)); the epilogue runs on the image's dst rows once
// the scatter is complete. W^T is rebuilt from the user's weights into the
// scratchpad at every execution (weights may change between runs).
struct gemm_deconv_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, gemm_deconv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "gemm:col2im:deconv"; }
        status_t init(dnnl_engine *) override;

        dim_t chunk = 0; // src points per GEMM call
        dim_t M = 0; // OCg * KD * KH * KW
        gemm::plan_t plan;
    };
    explicit gemm_deconv_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    conv_epilogue_t epi_;
};

} // namespace kestrel

#endif
