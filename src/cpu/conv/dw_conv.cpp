// Depthwise convolution (groups = channels, one input and one output
// channel per group), f32, 2D: on nChw16c or nhwc data with AVX-512 (16
// channels in the lanes of a zmm, 8 columns a step in registers), and on
// nChw8c or nhwc data with AVX2 (8 channels in a ymm, 4 columns a step).
// The row kernels are written once over the vector type
// (dw_conv_row.inc) and the driver below is shared. A
// work item is an output row of a channel block, or for 3x3 stride-1
// undilated kernels a pair of rows (4 src rows read for 2 output rows, each
// src vector loaded once for all its taps); on nhwc a work item takes a
// group of channel blocks 32 columns at a time. Each output element is
// bias + sum over the valid (kh, kw) taps of src * weight, in kh then kw
// order, with one FMA per tap; a lone relu / linear / clip post-op is
// applied in registers before the store. Columns whose window crosses the
// left or right edge take only their valid kw taps. Channels past C (the
// tail of a block) read as zero, are never written on nhwc and are stored
// as zero on blocked dst.
#include <algorithm>
#include <cstring>

#include <immintrin.h>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/isa.hpp"
#include "cpu/simd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Plain user weights: their Goihw16g / Goihw8g copy.
constexpr scratchpad::key_t key_wei_blk = 0;

// One output row of a group of nb channel blocks (16 or 8 channels each),
// all full but the last. Strides in floats.
struct dw_row_t {
    const float *src; // src at (n, first channel block, h 0, w 0)
    float *dst; // dst at (n, first channel block, oh, ow 0)
    const float *wei; // [block][kh][kw][lane] from the first block
    const float *bias; // from the first block's lanes, or nullptr
    dim_t nb; // blocks in the group
    dim_t s_cb, d_cb, w_cb, b_cb; // src, dst, weights, bias block strides
    int nc; // valid channels of the last block
    bool zero_tail; // store zeros in the invalid lanes (blocked dst)
    dim_t kh0, kh1, ih0; // valid kernel rows, src row of kh 0
    dim_t s_h, s_w, d_w; // src row / column, dst column strides
    dim_t IW, OW, KW, SW, DW1, DH1, PW;
    dim_t lo, hi; // columns whose whole window lies inside the row
    int act;
    float act_a, act_b;
};

// Block b of a row's group: its pointers.
struct dw_blk_t {
    const float *src, *wei, *bias;
    float *dst;
    dw_blk_t(const dw_row_t &r, dim_t b)
        : src(r.src + b * r.s_cb), wei(r.wei + b * r.w_cb), bias(r.bias ? r.bias + b * r.b_cb : nullptr),
          dst(r.dst + b * r.d_cb) {}
};

// One ISA's row kernels.
struct dw_kernels_t {
    void (*row)(const dw_row_t &r, dim_t ow_b, dim_t ow_e);
    void (*pair)(const dw_row_t &r, const dw_row_t &r1, dim_t d_h, dim_t ow_b, dim_t ow_e);
    int blk, ur;
};

} // namespace

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#endif

namespace dw_avx512 {
namespace {

// 16 channels in a zmm, 8 columns a step, the nine 3x3 weights in registers.
struct V {
    using reg = __m512;
    using mask = __mmask16;
    static constexpr int W = 16, UR = 8;
    static constexpr bool WREG = true;
    static reg zero() { return _mm512_setzero_ps(); }
    static reg load(const float *p) { return _mm512_loadu_ps(p); }
    static mask mk(int nc) { return (__mmask16)((1u << nc) - 1); }
    static reg ldm(mask m, const float *p) { return _mm512_maskz_loadu_ps(m, p); }
    static reg bias(mask m, const float *p) { return p ? _mm512_maskz_loadu_ps(m, p) : zero(); }
    static reg fmadd(reg a, reg b, reg c) { return _mm512_fmadd_ps(a, b, c); }
    static void store(float *p, reg v) { _mm512_storeu_ps(p, v); }
    static void store_m(float *p, mask m, reg v) { _mm512_mask_storeu_ps(p, m, v); }
    static reg zero_off(mask m, reg v) { return _mm512_maskz_mov_ps(m, v); }
    static reg act(int kind, reg x, float fa, float fb) {
        const reg a = _mm512_set1_ps(fa), b = _mm512_set1_ps(fb);
        if (kind == direct_act_relu) return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, zero(), _CMP_GT_OQ), _mm512_mul_ps(a, x), x);
        if (kind == direct_act_linear) return _mm512_fmadd_ps(a, x, b);
        return _mm512_min_ps(_mm512_max_ps(x, a), b);
    }
};

#include "cpu/conv/dw_conv_row.inc"

} // namespace
} // namespace dw_avx512

#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

namespace dw_avx2 {
namespace {

// 8 channels in a ymm, 4 columns a step (a row pair's 8 accumulators and
// the 6 src vectors of a row fit the 16 registers; the weights are read
// as FMA memory operands).
struct V {
    using reg = __m256;
    using mask = __m256i;
    static constexpr int W = 8, UR = 4;
    static constexpr bool WREG = false;
    static reg zero() { return _mm256_setzero_ps(); }
    static reg load(const float *p) { return _mm256_loadu_ps(p); }
    static mask mk(int nc) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(nc), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
    static reg ldm(mask m, const float *p) { return _mm256_maskload_ps(p, m); }
    static reg bias(mask m, const float *p) { return p ? _mm256_maskload_ps(p, m) : zero(); }
    static reg fmadd(reg a, reg b, reg c) { return _mm256_fmadd_ps(a, b, c); }
    static void store(float *p, reg v) { _mm256_storeu_ps(p, v); }
    static void store_m(float *p, mask m, reg v) { _mm256_maskstore_ps(p, m, v); }
    static reg zero_off(mask m, reg v) { return _mm256_and_ps(_mm256_castsi256_ps(m), v); }
    static reg act(int kind, reg x, float fa, float fb) {
        const reg a = _mm256_set1_ps(fa), b = _mm256_set1_ps(fb);
        if (kind == direct_act_relu) return _mm256_blendv_ps(_mm256_mul_ps(a, x), x, _mm256_cmp_ps(x, zero(), _CMP_GT_OQ));
        if (kind == direct_act_linear) return _mm256_fmadd_ps(a, x, b);
        return _mm256_min_ps(_mm256_max_ps(x, a), b);
    }
};

#include "cpu/conv/dw_conv_row.inc"

} // namespace
} // namespace dw_avx2

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

namespace {

// Range [k0, k1) of taps k with 0 <= i0 + k * step < n, for k < K.
void dw_taps(dim_t i0, dim_t step, dim_t K, dim_t n, dim_t &k0, dim_t &k1) {
    k0 = i0 >= 0 ? 0 : div_up(-i0, step);
    k1 = n - 1 - i0 < 0 ? 0 : std::min(K, (n - 1 - i0) / step + 1);
    if (k1 < k0) k1 = k0;
}

} // namespace

status_t dw_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (!isa::has(blk == 16 ? isa::avx512 : isa::avx2)) return decline(me, "instruction set");
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto)) return decline(me, "algorithm");
    if (!g.with_groups || g.G < 2 || g.ICg != 1 || g.OCg != 1) return decline(me, "not depthwise");
    if (g.ndims != 4) return decline(me, "not 2D");
    if (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32)) return decline(me, "data types");
    if (nxc && (mdw_t(src_md_).is_any() || mdw_t(dst_md_).is_any())) return decline(me, "nhwc with format any");
    if (status_t st = check_attr(); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    // Scales and zero points go to other implementations; one eltwise of
    // the in-register kinds may follow.
    if (!attr_.has_default_values(attr_t::skip_t::skip_post_ops)) return decline(me, "scales");
    const auto &po = attr_.post_ops.entries;
    if (po.size() > 1 || (po.size() == 1 && po[0].kind != dnnl_eltwise)) return decline(me, "post-ops");
    if (po.size() == 1) {
        const dnnl_alg_kind_t alg = po[0].eltwise.alg;
        act = one_of(alg, dnnl_eltwise_relu, dnnl_eltwise_relu_use_dst_for_bwd) ? direct_act_relu
                : alg == dnnl_eltwise_linear                                    ? direct_act_linear
                : one_of(alg, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_clip_v2_use_dst_for_bwd)
                ? direct_act_clip
                : direct_act_none;
        if (act == direct_act_none) return decline(me, "eltwise kind");
        act_a = po[0].eltwise.alpha, act_b = po[0].eltwise.beta;
    }
    const format_tag_t dtag = nxc ? dnnl_nhwc : blk == 16 ? dnnl_nChw16c : dnnl_nChw8c;
    const format_tag_t wtag = blk == 16 ? dnnl_Goihw16g : dnnl_Goihw8g;
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag)) return decline(me, "layouts");
    if (g.with_bias && !mdw_t(bias_md_).matches_tag(dnnl_a)) return decline(me, "bias layout");
    wei_copy = !mdw_t(weights_md_).matches_tag(wtag);
    if (wei_copy && !mdw_t(weights_md_).is_plain()) return decline(me, "weights layout");
    if (wei_copy) {
        KESTREL_CHECK(md_init_by_tag(wei_blk_md, weights_md_.ndims, weights_md_.dims, dnnl_f32, wtag));
        scratchpad_registry().book(key_wei_blk, mdw_t(wei_blk_md).size());
    }
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

status_t dw_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const mdw_t src_d(p->src_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const float *src = ctx.input<float>(DNNL_ARG_SRC);
    const float *wei = ctx.input<float>(DNNL_ARG_WEIGHTS);
    const float *bias = g.with_bias ? ctx.input<float>(DNNL_ARG_BIAS) : nullptr;
    float *dst = ctx.output<float>(DNNL_ARG_DST);
    const dw_kernels_t &kr = p->blk == 16 ? dw_avx512::kernels : dw_avx2::kernels;
    const dim_t dw_blk = kr.blk, C = g.G, NB = div_up(C, dw_blk), KS = g.KH * g.KW;
    if (bias) bias += p->weights_md(1)->offset0;
    if (p->wei_copy) {
        // [block][kh][kw][lane], zeros past C.
        float *wb = ctx.scratchpad().get<float>(key_wei_blk);
        if (!wb) return status::out_of_memory;
        const mdw_t wd(*p->weights_md());
        parallel_nd(NB, [&](dim_t cb) {
            float *b = wb + cb * KS * dw_blk;
            std::fill(b, b + KS * dw_blk, 0.f);
            for (dim_t l = 0; l < std::min<dim_t>(dw_blk, C - cb * dw_blk); ++l)
                for (dim_t kh = 0; kh < g.KH; ++kh)
                    for (dim_t kw = 0; kw < g.KW; ++kw) {
                        const dim_t pos[5] = {cb * dw_blk + l, 0, 0, kh, kw};
                        b[(kh * g.KW + kw) * dw_blk + l] = wei[wd.off_v(pos)];
                    }
        });
        wei = wb;
    } else {
        wei += p->weights_md()->offset0;
    }

    const auto &ss = src_d.blk().strides, &ds = dst_d.blk().strides;
    dw_row_t proto = {};
    proto.zero_tail = !p->nxc;
    proto.s_h = ss[2], proto.s_w = ss[3], proto.d_w = ds[3];
    proto.IW = g.IW, proto.OW = g.OW, proto.KW = g.KW, proto.SW = g.SW;
    proto.DW1 = g.DW + 1, proto.DH1 = g.DH + 1, proto.PW = g.PW;
    proto.lo = div_up(g.PW, g.SW);
    const dim_t last = g.IW - 1 - (g.KW - 1) * (g.DW + 1) + g.PW;
    proto.hi = last < 0 ? 0 : std::min(g.OW, last / g.SW + 1);
    proto.hi = std::max(proto.hi, std::min(proto.lo, g.OW));
    proto.act = p->act, proto.act_a = p->act_a, proto.act_b = p->act_b;
    const dim_t s_cb = p->nxc ? dw_blk : ss[1], d_cb = p->nxc ? dw_blk : ds[1];
    // nhwc walks the channel blocks of a row together (they share lines).
    const bool nxc = p->nxc;
    // 3x3 unit-stride undilated kernels take output rows in pairs (each
    // pair reads 4 src rows, not 6); the others one row per work item.
    const bool k3 = g.KH == 3 && g.KW == 3 && g.SH == 1 && g.SW == 1 && g.DH == 0 && g.DW == 0;
    const dim_t RH = k3 ? 2 : 1, OHB = div_up(g.OH, RH);
    // nhwc takes a row pair (or row) of a group of GB channel blocks per
    // work item, the kernels stepping through the group's blocks at each
    // step of columns (they share the src and dst lines); blocked layouts
    // a row pair (or row) of one block. (Groups are smaller when there
    // are too few row pairs to keep every thread busy.)
    dim_t GB = nxc ? NB : 1;
    while (GB > 1 && g.MB * OHB * div_up(NB, GB) < 8 * (dim_t)max_threads()) GB = div_up(GB, (dim_t)2);
    const dim_t NG = div_up(NB, GB);
    proto.s_cb = s_cb, proto.d_cb = d_cb, proto.w_cb = KS * dw_blk, proto.b_cb = dw_blk;
    const dim_t pos0[4] = {0, 0, 0, 0};
    const dim_t s_n = src_d.blk().strides[0], d_n = ds[0];
    const float *src0 = src + src_d.off_v(pos0);
    float *dst0 = dst + dst_d.off_v(pos0);
    parallel_nd(g.MB, nxc ? OHB : NB, nxc ? NG : OHB, [&](dim_t n, dim_t i1, dim_t i2) {
        const dim_t ohb = nxc ? i1 : i2;
        const dim_t cb_b = nxc ? i2 * GB : i1, cb_e = nxc ? std::min(NB, cb_b + GB) : i1 + 1;
        const dim_t oh0 = ohb * RH, nrows = std::min(RH, g.OH - oh0);
        dw_row_t rr[2];
        for (dim_t k = 0; k < nrows; ++k) {
            dw_row_t &r = rr[k];
            r = proto;
            r.ih0 = (oh0 + k) * g.SH - g.PH;
            dw_taps(r.ih0, g.DH + 1, g.KH, g.IH, r.kh0, r.kh1);
            r.nb = cb_e - cb_b;
            r.nc = (int)std::min<dim_t>(dw_blk, C - (cb_e - 1) * dw_blk);
            r.src = src0 + n * s_n + cb_b * s_cb;
            r.wei = wei + cb_b * KS * dw_blk;
            r.bias = bias ? bias + cb_b * dw_blk : nullptr;
            r.dst = dst0 + n * d_n + cb_b * d_cb + (oh0 + k) * ds[2];
        }
        const bool pair = nrows == 2 && rr[0].kh0 == 0 && rr[0].kh1 == 3 && rr[1].kh0 == 0 && rr[1].kh1 == 3;
        if (pair)
            kr.pair(rr[0], rr[1], ds[2], 0, g.OW);
        else
            for (dim_t k = 0; k < nrows; ++k) kr.row(rr[k], 0, g.OW);
    });
    return status::success;
}

} // namespace kestrel
