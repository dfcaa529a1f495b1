// Depthwise convolution (groups = channels, one input and one output
// channel per group), f32, 2D, on nChw16c or nhwc data with AVX-512: 16
// channels in the lanes of a vector, 8 columns at a time in registers. A
// work item is an output row of a channel block, or for 3x3 stride-1
// undilated kernels a pair of rows (4 src rows read for 2 output rows, each
// src vector loaded once for all its taps); on nhwc a work item takes a
// group of channel blocks 32 columns at a time. Each output element is
// bias + sum over the valid (kh, kw) taps of src * weight, in kh then kw
// order, with one FMA per tap; a lone relu / linear / clip post-op is
// applied in registers before the store. Columns whose window crosses the
// left or right edge take only their valid kw taps. Channels past C (the
// tail of a block) read as zero, are never written on nhwc and are stored
// as zero on nChw16c.
#include <algorithm>
#include <cstring>

#include <immintrin.h>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/isa.hpp"
#include "cpu/simd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Plain user weights: their Goihw16g copy.
constexpr scratchpad::key_t key_wei_blk = 0;
constexpr int dw_blk = 16, dw_ur = 8;

#define KESTREL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

// One output row of one block of 16 channels. Strides in floats.
struct dw_row_t {
    const float *src; // src at (n, channel block, h 0, w 0)
    float *dst; // dst at (n, channel block, oh, ow 0)
    const float *wei; // [kh][kw][16] of this block
    const float *bias; // 16 lanes (masked), or nullptr
    __mmask16 m; // valid channels
    bool zero_tail; // store zeros in the invalid lanes (blocked dst)
    dim_t kh0, kh1, ih0; // valid kernel rows, src row of kh 0
    dim_t s_h, s_w, d_w; // src row / column, dst column strides
    dim_t IW, OW, KW, SW, DW1, DH1, PW;
    dim_t lo, hi; // columns whose whole window lies inside the row
    int act;
    float act_a, act_b;
};

KESTREL_AVX512 inline __m512 dw_act(const dw_row_t &r, __m512 x) {
    const __m512 a = _mm512_set1_ps(r.act_a), b = _mm512_set1_ps(r.act_b);
    if (r.act == direct_act_relu)
        return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), _mm512_mul_ps(a, x), x);
    if (r.act == direct_act_linear) return _mm512_fmadd_ps(a, x, b);
    if (r.act == direct_act_clip) return _mm512_min_ps(_mm512_max_ps(x, a), b);
    return x;
}

// A block's src vector: all 16 lanes, or the valid ones.
template <bool FULL>
KESTREL_AVX512 inline __m512 dw_ld(const dw_row_t &r, const float *p) {
    return FULL ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(r.m, p);
}

KESTREL_AVX512 inline void dw_store(const dw_row_t &r, float *d, __m512 v) {
    v = dw_act(r, v);
    if (r.m == 0xffff)
        _mm512_storeu_ps(d, v);
    else if (r.zero_tail)
        _mm512_storeu_ps(d, _mm512_maskz_mov_ps(r.m, v));
    else
        _mm512_mask_storeu_ps(d, r.m, v);
}

// N interior columns from ow: every tap inside the row.
template <int N, bool FULL>
KESTREL_AVX512 inline void dw_cols(const dw_row_t &r, dim_t ow) {
    const __m512 b0 = r.bias ? _mm512_maskz_loadu_ps(r.m, r.bias) : _mm512_setzero_ps();
    __m512 acc[N];
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) acc[j] = b0;
    const dim_t col = r.SW * r.s_w, tap = r.DW1 * r.s_w;
    const float *base = r.src + (ow * r.SW - r.PW) * r.s_w;
    for (dim_t kh = r.kh0; kh < r.kh1; ++kh) {
        const float *row = base + (r.ih0 + kh * r.DH1) * r.s_h;
        const float *w = r.wei + kh * r.KW * dw_blk;
        // The columns four blocks ahead, each of them (the hardware
        // prefetchers lose track of the KH interleaved rows); formed as an
        // integer, the address may lie past the row.
        if (N > 1)
            for (dim_t c = 0; c < N * r.SW; ++c)
                _mm_prefetch((const char *)((uintptr_t)row + (uintptr_t)((4 * N * r.SW + c) * r.s_w * 4)), _MM_HINT_T0);
        for (dim_t kw = 0; kw < r.KW; ++kw) {
            const __m512 wv = _mm512_loadu_ps(w + kw * dw_blk);
            const float *q = row + kw * tap;
#pragma GCC unroll 8
            for (int j = 0; j < N; ++j) acc[j] = _mm512_fmadd_ps(dw_ld<FULL>(r, q + j * col), wv, acc[j]);
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) dw_store(r, r.dst + (ow + j) * r.d_w, acc[j]);
}

// N interior columns from ow of a unit-stride, undilated 3-wide kernel:
// the N + 2 src vectors of a row are loaded once and serve all three kw
// taps (the same products and order as dw_cols).
template <int N, bool FULL>
KESTREL_AVX512 inline void dw_cols_k3(const dw_row_t &r, dim_t ow) {
    const __m512 b0 = r.bias ? _mm512_maskz_loadu_ps(r.m, r.bias) : _mm512_setzero_ps();
    __m512 acc[N];
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) acc[j] = b0;
    const float *base = r.src + (ow - r.PW) * r.s_w;
    for (dim_t kh = r.kh0; kh < r.kh1; ++kh) {
        const float *row = base + (r.ih0 + kh * r.DH1) * r.s_h;
        const float *w = r.wei + kh * 3 * dw_blk;
        for (dim_t c = 0; c < N; ++c)
            _mm_prefetch((const char *)((uintptr_t)row + (uintptr_t)((4 * N + c) * r.s_w * 4)), _MM_HINT_T0);
        __m512 in[N + 2];
#pragma GCC unroll 10
        for (int j = 0; j < N + 2; ++j) in[j] = dw_ld<FULL>(r, row + j * r.s_w);
#pragma GCC unroll 3
        for (int kw = 0; kw < 3; ++kw) {
            const __m512 wv = _mm512_loadu_ps(w + kw * dw_blk);
#pragma GCC unroll 8
            for (int j = 0; j < N; ++j) acc[j] = _mm512_fmadd_ps(in[j + kw], wv, acc[j]);
        }
    }
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) dw_store(r, r.dst + (ow + j) * r.d_w, acc[j]);
}

// N interior columns from ow of two adjacent output rows (r and the row
// below it, d_h floats further in dst) of a 3x3, unit-stride, undilated
// kernel whose six taps rows all lie inside the src: the four src rows are
// walked once, each src vector loaded once and used by every (row, kw) tap
// it serves, so a row pair reads 4 src rows instead of 6. Each output still
// sums bias + its taps in kh then kw order, one FMA each (as dw_cols).
template <int N, bool FULL>
KESTREL_AVX512 inline void dw_rows2_k3(const dw_row_t &r, dim_t d_h, dim_t ow) {
    const __m512 b0 = r.bias ? _mm512_maskz_loadu_ps(r.m, r.bias) : _mm512_setzero_ps();
    __m512 acc0[N], acc1[N], wv[9];
    KESTREL_UNROLL(8)
    for (int j = 0; j < N; ++j) acc0[j] = acc1[j] = b0;
    KESTREL_UNROLL(9)
    for (int k = 0; k < 9; ++k) wv[k] = _mm512_loadu_ps(r.wei + k * dw_blk);
    const float *base = r.src + r.ih0 * r.s_h + (ow - r.PW) * r.s_w;
    KESTREL_UNROLL(4)
    for (int s = 0; s < 4; ++s) {
        const float *row = base + s * r.s_h;
        for (dim_t c = 0; c < N; ++c)
            _mm_prefetch((const char *)((uintptr_t)row + (uintptr_t)((4 * N + c) * r.s_w * 4)), _MM_HINT_T0);
        KESTREL_UNROLL(10)
        for (int i = 0; i < N + 2; ++i) {
            const __m512 v = dw_ld<FULL>(r, row + i * r.s_w);
            KESTREL_UNROLL(3)
            for (int kw = 0; kw < 3; ++kw) {
                const int j = i - kw;
                if (j < 0 || j >= N) continue;
                if (s < 3) acc0[j] = _mm512_fmadd_ps(v, wv[s * 3 + kw], acc0[j]);
                if (s > 0) acc1[j] = _mm512_fmadd_ps(v, wv[(s - 1) * 3 + kw], acc1[j]);
            }
        }
    }
    KESTREL_UNROLL(8)
    for (int j = 0; j < N; ++j) {
        dw_store(r, r.dst + (ow + j) * r.d_w, acc0[j]);
        dw_store(r, r.dst + d_h + (ow + j) * r.d_w, acc1[j]);
    }
}

// One edge column: only the kw taps inside the row.
KESTREL_AVX512 inline void dw_edge(const dw_row_t &r, dim_t ow) {
    __m512 acc = r.bias ? _mm512_maskz_loadu_ps(r.m, r.bias) : _mm512_setzero_ps();
    const dim_t iw0 = ow * r.SW - r.PW;
    for (dim_t kh = r.kh0; kh < r.kh1; ++kh) {
        const float *row = r.src + (r.ih0 + kh * r.DH1) * r.s_h;
        const float *w = r.wei + kh * r.KW * dw_blk;
        for (dim_t kw = 0; kw < r.KW; ++kw) {
            const dim_t iw = iw0 + kw * r.DW1;
            if (iw < 0 || iw >= r.IW) continue;
            acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(r.m, row + iw * r.s_w), _mm512_loadu_ps(w + kw * dw_blk), acc);
        }
    }
    dw_store(r, r.dst + ow * r.d_w, acc);
}

// Columns [ow_b, ow_e) of one output row.
template <bool FULL>
KESTREL_AVX512 void dw_row_avx512(const dw_row_t &r, dim_t ow_b, dim_t ow_e) {
    dim_t ow = ow_b;
    const dim_t ie = std::min(r.hi, ow_e);
    for (; ow < std::min(r.lo, ow_e); ++ow) dw_edge(r, ow);
    if (r.KW == 3 && r.SW == 1 && r.DW1 == 1)
        for (; ow + dw_ur <= ie; ow += dw_ur) dw_cols_k3<dw_ur, FULL>(r, ow);
    for (; ow + dw_ur <= ie; ow += dw_ur) dw_cols<dw_ur, FULL>(r, ow);
    for (; ow < ie; ++ow) dw_cols<1, FULL>(r, ow);
    for (; ow < ow_e; ++ow) dw_edge(r, ow);
}

// Columns [ow_b, ow_e) of output rows r (oh) and r1 (oh + 1), both with
// every kh tap inside the src, of a 3x3 unit-stride undilated kernel: the
// interior columns in pairs of rows (dw_rows2_k3), the edges and a
// remainder shorter than a block row by row. A remainder after at least
// one block of interior columns of the range is instead the last dw_ur
// of them again (the overlap is rewritten with the same values).
template <bool FULL>
KESTREL_AVX512 void dw_pair_avx512(const dw_row_t &r, const dw_row_t &r1, dim_t d_h, dim_t ow_b, dim_t ow_e) {
    dim_t ow = ow_b;
    for (; ow < std::min(r.lo, ow_e); ++ow) {
        dw_edge(r, ow);
        dw_edge(r1, ow);
    }
    const dim_t ie = std::min(r.hi, ow_e);
    for (; ow + dw_ur <= ie; ow += dw_ur) dw_rows2_k3<dw_ur, FULL>(r, d_h, ow);
    if (ow < ie && ie - std::max(r.lo, ow_b) >= dw_ur) {
        dw_rows2_k3<dw_ur, FULL>(r, d_h, ie - dw_ur);
        ow = ie;
    }
    for (; ow < ie; ++ow) {
        dw_cols<1, FULL>(r, ow);
        dw_cols<1, FULL>(r1, ow);
    }
    for (; ow < ow_e; ++ow) {
        dw_edge(r, ow);
        dw_edge(r1, ow);
    }
}

#undef KESTREL_AVX512

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
    if (!isa::has(isa::avx512)) return decline(me, "instruction set");
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
    const format_tag_t dtag = nxc ? dnnl_nhwc : dnnl_nChw16c;
    KESTREL_CHECK(set_formats(dtag, dnnl_Goihw16g));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag)) return decline(me, "layouts");
    if (g.with_bias && !mdw_t(bias_md_).matches_tag(dnnl_a)) return decline(me, "bias layout");
    wei_copy = !mdw_t(weights_md_).matches_tag(dnnl_Goihw16g);
    if (wei_copy && !mdw_t(weights_md_).is_plain()) return decline(me, "weights layout");
    if (wei_copy) {
        KESTREL_CHECK(md_init_by_tag(wei_blk_md, weights_md_.ndims, weights_md_.dims, dnnl_f32, dnnl_Goihw16g));
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
    const dim_t C = g.G, NB = div_up(C, (dim_t)dw_blk), KS = g.KH * g.KW;
    if (bias) bias += p->weights_md(1)->offset0;
    if (p->wei_copy) {
        // [block][kh][kw][16], zeros past C.
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
    // nhwc takes the channel blocks of a row pair column chunk by column
    // chunk (they share the chunk's cache lines); nChw16c a whole row pair
    // (or row) of one block per work item.
    // (Groups of GB blocks: fewer when there are too few row pairs to
    // keep every thread busy.)
    dim_t GB = nxc ? NB : 1;
    while (GB > 1 && g.MB * OHB * div_up(NB, GB) < 8 * (dim_t)max_threads()) GB = div_up(GB, (dim_t)2);
    const dim_t NG = div_up(NB, GB);
    // Chunks start at the first interior column (the first one also takes
    // the left edge), so whole blocks of dw_ur tile them.
    const dim_t CW = GB > 1 ? 4 * dw_ur : g.OW, c_lo = std::min(proto.lo, g.OW);
    const dim_t NCH = GB > 1 ? std::max<dim_t>(1, div_up(g.OW - c_lo, CW)) : 1;
    const dim_t pos0[4] = {0, 0, 0, 0};
    const dim_t s_n = src_d.blk().strides[0], d_n = ds[0];
    const float *src0 = src + src_d.off_v(pos0);
    float *dst0 = dst + dst_d.off_v(pos0);
    parallel_nd(g.MB, nxc ? OHB : NB, nxc ? NG : OHB, [&](dim_t n, dim_t i1, dim_t i2) {
        const dim_t ohb = nxc ? i1 : i2;
        const dim_t cb_b = nxc ? i2 * GB : i1, cb_e = nxc ? std::min(NB, cb_b + GB) : i1 + 1;
        const dim_t oh0 = ohb * RH, nrows = std::min(RH, g.OH - oh0);
        // The rows' vertical taps, once per work item (not per chunk and block).
        dw_row_t rb[2];
        for (dim_t k = 0; k < nrows; ++k) {
            rb[k] = proto;
            rb[k].ih0 = (oh0 + k) * g.SH - g.PH;
            dw_taps(rb[k].ih0, g.DH + 1, g.KH, g.IH, rb[k].kh0, rb[k].kh1);
        }
        const bool pair = nrows == 2 && rb[0].kh0 == 0 && rb[0].kh1 == 3 && rb[1].kh0 == 0 && rb[1].kh1 == 3;
        for (dim_t ch = 0; ch < NCH; ++ch) {
            const dim_t ow_b = ch == 0 ? 0 : c_lo + ch * CW;
            const dim_t ow_e = ch == NCH - 1 ? g.OW : c_lo + (ch + 1) * CW;
            for (dim_t cb = cb_b; cb < cb_e; ++cb) {
                dw_row_t rr[2];
                const dim_t nc = std::min<dim_t>(dw_blk, C - cb * dw_blk);
                for (dim_t k = 0; k < nrows; ++k) {
                    dw_row_t &r = rr[k];
                    r = rb[k];
                    r.m = (__mmask16)((1u << nc) - 1);
                    r.src = src0 + n * s_n + cb * s_cb;
                    r.wei = wei + cb * KS * dw_blk;
                    r.bias = bias ? bias + cb * dw_blk : nullptr;
                    r.dst = dst0 + n * d_n + cb * d_cb + (oh0 + k) * ds[2];
                }
                if (pair && nc == dw_blk)
                    dw_pair_avx512<true>(rr[0], rr[1], ds[2], ow_b, ow_e);
                else if (pair)
                    dw_pair_avx512<false>(rr[0], rr[1], ds[2], ow_b, ow_e);
                else
                    for (dim_t k = 0; k < nrows; ++k) {
                        if (nc == dw_blk)
                            dw_row_avx512<true>(rr[k], ow_b, ow_e);
                        else
                            dw_row_avx512<false>(rr[k], ow_b, ow_e);
                    }
            }
        }
    });
    return status::success;
}

} // namespace kestrel
