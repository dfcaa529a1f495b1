// Convolution and deconvolution backward (data and weights).
//
// Both kinds are written once, over the two tensors a convolution relates:
// the "big" one (conv src, deconv dst: spatial size B) and the "small" one
// (conv dst, deconv src: spatial size S), where small point o and tap k
// meet big point o * stride - pad_l + k * (dilation + 1). Weights are read
// as W(g, cs, cb, k) with cs a small-tensor channel and cb a big-tensor
// channel: [g][oc][ic] for convolution, [g][ic][oc] swapped for
// deconvolution. Then
//   scatter (conv backward data):  big   += col2im(W^T * small)
//   gather  (deconv backward data): small = W * im2col(big)
//   weights (both):                 dW    = sum over images of small * im2col(big)^T
// which are deconvolution forward, convolution forward and their shared
// weights gradient. Every product is one f32 GEMM of the GEMM engine.
#ifndef KESTREL_CPU_CONV_CONV_BWD_HPP
#define KESTREL_CPU_CONV_CONV_BWD_HPP

#include "core/primitive.hpp"
#include "cpu/common/bwd_pd.hpp"
#include "cpu/conv/conv_pd.hpp"
#include "cpu/gemm/gemm.hpp"

namespace kestrel {

// Base of every backward implementation (tensor roles: bwd_pd.hpp).
struct conv_bwd_pd_t : bwd_pd_t {
    using desc_t = conv_desc_t;
    conv_bwd_pd_t(const conv_desc_t *d, const attr_t *a, const pd_t *hint)
        : bwd_pd_t(a, d->kind, d->prop_kind, d->src, d->weights, d->bias, d->dst), desc_(*d) {
        (void)hint;
        geom_.init(desc_);
    }

    const conv_desc_t *desc() const { return &desc_; }
    const conv_geom_t &geom() const { return geom_; }
    status_t query(dnnl_query_t what, int idx, void *result) const override {
        return conv_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
    }

protected:
    // Checks what every implementation needs (default attributes, data
    // types f32, bf16 or f16, the algorithm) and resolves `any`: data
    // tensors channels-last if the user fixed one so, else ncx; weights
    // [g]oix; bias a.
    status_t init_common(const char *me);

    conv_desc_t desc_;
    conv_geom_t geom_;
};

// Sizes of the big/small formulation above, derived from conv_geom_t.
struct conv_bs_geom_t {
    dim_t G = 1, MB = 0, Cs = 0, Cb = 0;                  // channels per group
    dim_t BD = 1, BH = 1, BW = 1, SD = 1, SH = 1, SW = 1; // big / small spatial
    dim_t KD = 1, KH = 1, KW = 1;
    dim_t sD = 1, sH = 1, sW = 1, dD = 0, dH = 0, dW = 0, pD = 0, pH = 0, pW = 0;
    bool deconv = false;

    dim_t KS() const { return KD * KH * KW; }
    dim_t BSP() const { return BD * BH * BW; }
    dim_t SSP() const { return SD * SH * SW; }
    // Logical weights position of W(g, cs, cb, k...).
    void wei_pos(const conv_geom_t &g, dim_t *pos, dim_t gr, dim_t cs, dim_t cb, dim_t kd, dim_t kh,
                 dim_t kw) const {
        if (deconv)
            g.wei_pos(pos, gr, cb, cs, kd, kh, kw);
        else
            g.wei_pos(pos, gr, cs, cb, kd, kh, kw);
    }
    void init(const conv_geom_t &g);
};

// A data tensor (n, c, d, h, w) whose layout is plain or blocked by
// channels only (nCx16c, nCx8c): element offset from five strides and the
// channel block. Built from the md by mdw_t's strides.
struct conv_data_view_t {
    data_type_t dt = dnnl_f32;
    dim_t off0 = 0, sn = 0, sc = 0, blk = 1, sd = 0, sh = 0, sw = 0;
    static bool supports(const memory_desc_t &md);
    void init(const memory_desc_t &md);
    dim_t off(dim_t n, dim_t c, dim_t d, dim_t h, dim_t w) const {
        return off0 + n * sn + (c / blk) * sc + c % blk + d * sd + h * sh + w * sw;
    }
};

namespace conv_bwd {
struct mat_t;
struct gemm_call_t;
} // namespace conv_bwd

// The big and small data tensors of one backward problem, with what the
// fast paths need to know of them (conv_bwd_cols.hpp): their point strides
// (0 when not uniform), and whether the GEMM reads or writes them in place
// (the small tensor always can when f32 and plain; the big one when the
// kernel is a 1x1 unit, so that im2col is the identity).
struct conv_bwd_views_t {
    conv_data_view_t big, small;
    dim_t big_ps = 0, small_ps = 0;
    bool big_mat = false, small_mat = false;
    void init(const conv_bs_geom_t &b, const memory_desc_t &big_md, const memory_desc_t &small_md,
              bool unit_1x1);
    // Operands (channels x points from sp0) for image n, group gr: the
    // tensor at p in place, or the scratch buffer given.
    conv_bwd::mat_t big_m(const conv_bs_geom_t &b, const void *p, float *col, dim_t n, dim_t gr,
                          dim_t sp0, dim_t len) const;
    conv_bwd::mat_t small_m(const conv_bs_geom_t &b, const void *p, float *buf, dim_t n, dim_t gr,
                            dim_t sp0, dim_t len) const;
};

// Backward data through GEMM and col2im (convolution) or im2col
// (deconvolution), any data layout conv_data_view_t reads, f32 or bf16.
struct gemm_conv_bwd_data_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_bwd_pd_t, gemm_conv_bwd_data_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override {
            return geom_.is_deconv ? "gemm:im2col:deconv_bwd_d" : "gemm:col2im:bwd_d";
        }
        status_t init(dnnl_engine *) override;
        // The GEMM of one chunk (null pointers: just its shape).
        conv_bwd::gemm_call_t call(const float *wt, const void *big, const void *small, float *col,
                                   float *buf, dim_t n, dim_t gr, dim_t sp0, dim_t len) const;

        conv_bs_geom_t bs;
        conv_bwd_views_t v;
        bool into_user = false; // col2im accumulates in diff_src itself
        // Convolution weights f32 in [g][oc][ic][k...] order, dense: the
        // GEMM reads them in place (from element wei_base), no copy.
        bool wei_in_place = false;
        dim_t wei_base = 0;
        dim_t chunk = 0; // small-tensor points per GEMM call
        gemm::plan_t plan;
    };
    explicit gemm_conv_bwd_data_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// Backward weights: work items (image, group, chunk of small points) are
// split over threads; each thread accumulates its own partial diff_weights
// in the scratchpad (GEMM with beta 1), then the partials are summed into
// the user's diff_weights in parallel. A convolution's diff_bias is summed
// in the same sweep from the diff_dst chunks the GEMMs read (per-thread
// partials, summed in slot order); a deconvolution's, whose diff_dst is
// the im2col'ed tensor, in a separate pass per channel.
struct gemm_conv_bwd_weights_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_bwd_pd_t, gemm_conv_bwd_weights_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override {
            return geom_.is_deconv ? "gemm:im2col:deconv_bwd_w" : "gemm:im2col:bwd_w";
        }
        status_t init(dnnl_engine *) override;
        // The GEMM of one chunk into partial `part` (null pointers: just
        // its shape).
        conv_bwd::gemm_call_t call(const void *big, const void *small, float *col, float *buf,
                                   float *part, dim_t n, dim_t gr, dim_t sp0, dim_t len) const;
        // Sets direct_chunks, part_t, chunk and the plans when the operands
        // allow the direct tiles (see conv_bwd.cpp).
        status_t pick_direct_chunks();

        conv_bs_geom_t bs;
        conv_bwd_views_t v;
        dim_t chunk = 0;
        int nthr = 1;            // partials booked, one per thread slot
        bool fused_bias = false; // convolution with bias: summed in the GEMM sweep
        gemm::plan_t plan;
        // Both operands read in place (1x1, f32, rows of op(B) contiguous):
        // the points are cut into chunks small enough for the GEMM's
        // direct tiles, no packing at all; plan_tail serves the last,
        // shorter chunk when there is one.
        bool direct_chunks = false;
        bool part_t = false; // partials stored [g][(cb, k)][cs]
        gemm::plan_t plan_tail;
    };
    explicit gemm_conv_bwd_weights_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// Builds the descriptor of a backward problem (prop backward_data or
// backward_weights; src/weights/bias/dst in the descriptor's sense above)
// and creates its handle. A hint, when given, must be a forward primitive
// descriptor of the same kind.
status_t conv_bwd_pd_create(dnnl_primitive_desc **out, dnnl_engine *engine,
                            dnnl_primitive_kind_t kind, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
                            const memory_desc_t *src, const memory_desc_t *weights,
                            const memory_desc_t *bias, const memory_desc_t *dst,
                            const dim_t *strides, const dim_t *dilates, const dim_t *pad_l,
                            const dim_t *pad_r, const dnnl_primitive_desc *hint,
                            const dnnl_primitive_attr *attr);

extern const impl_entry_t conv_bwd_data_impl_list[];
extern const impl_entry_t conv_bwd_weights_impl_list[];
extern const impl_entry_t deconv_bwd_data_impl_list[];
extern const impl_entry_t deconv_bwd_weights_impl_list[];

} // namespace kestrel

#endif
