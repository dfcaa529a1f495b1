// Direct f32 convolution on blocked layouts: src/dst nCx16c, weights
// [g]OIx16i16o, AVX-512.
//
// One work item is an output row (n, group, pair of 16-channel output
// blocks, od, oh). The row is cut into tiles of up to 12 columns; a tile
// keeps 12 x 2 accumulators in registers and, for each input channel,
// loads 2 weight vectors (16 output channels each) and broadcasts one src
// value per column. Tiles whose receptive field lies inside src run the
// unchecked kernel; the ones touching the padding check every column.
// The epilogue (scales, bias, post-ops) runs on each finished tile before
// it is stored, so dst is written once.
#include <immintrin.h>

#include <algorithm>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

constexpr int blk = 16; // channels per block
constexpr int max_urw = 12; // output columns per tile

format_tag_t data_tag_16c(int ndims) {
    return ndims == 3 ? dnnl_nCw16c : ndims == 4 ? dnnl_nChw16c : dnnl_nCdhw16c;
}

format_tag_t wei_tag_16c(int ndims, bool groups) {
    if (groups) return ndims == 3 ? dnnl_gOIw16i16o : ndims == 4 ? dnnl_gOIhw16i16o : dnnl_gOIdhw16i16o;
    return ndims == 3 ? dnnl_OIw16i16o : ndims == 4 ? dnnl_OIhw16i16o : dnnl_OIdhw16i16o;
}

// Everything a tile needs, in elements.
struct tile_args_t {
    const float *src;   // at (n, first ic block of the group), spatial origin
    const float *wei;   // at (g, first oc block of the tile, first ic block)
    dim_t s_icb, s_d, s_h, s_w;          // src strides
    dim_t w_ocb, w_icb, w_kd, w_kh, w_kw; // weight strides
    dim_t nicb, ic_tail;                 // ic blocks, valid channels in the last
    dim_t od, oh, ow0;
    dim_t KD, KH, KW, SD, SH, SW, DD, DH, DW, PD, PH, PW, ID, IH, IW;
};

template <int NOC, int URW, bool CHECK>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
void f32_conv_tile_16c__avx512(const tile_args_t &t, float *out) {
    __m512 acc[URW][NOC];
    for (int j = 0; j < URW; ++j)
        for (int k = 0; k < NOC; ++k) acc[j][k] = _mm512_setzero_ps();
    for (dim_t icb = 0; icb < t.nicb; ++icb) {
        const dim_t nic = icb == t.nicb - 1 ? t.ic_tail : blk;
        for (dim_t kd = 0; kd < t.KD; ++kd) {
            const dim_t id = t.od * t.SD - t.PD + kd * (t.DD + 1);
            if (id < 0 || id >= t.ID) continue;
            for (dim_t kh = 0; kh < t.KH; ++kh) {
                const dim_t ih = t.oh * t.SH - t.PH + kh * (t.DH + 1);
                if (ih < 0 || ih >= t.IH) continue;
                const float *srow = t.src + icb * t.s_icb + id * t.s_d + ih * t.s_h;
                const float *wk = t.wei + icb * t.w_icb + kd * t.w_kd + kh * t.w_kh;
                for (dim_t kw = 0; kw < t.KW; ++kw) {
                    const dim_t iw0 = t.ow0 * t.SW - t.PW + kw * (t.DW + 1);
                    const float *wp = wk + kw * t.w_kw;
                    // Column j reads s0[j * jstep + ic]; for checked tiles
                    // s0 may point before the row (never dereferenced then).
                    const float *s0 = srow + iw0 * t.s_w;
                    const dim_t jstep = t.SW * t.s_w;
                    for (dim_t ic = 0; ic < nic; ++ic, wp += blk, ++s0) {
                        __m512 wv[NOC];
                        for (int k = 0; k < NOC; ++k) wv[k] = _mm512_loadu_ps(wp + k * t.w_ocb);
                        for (int j = 0; j < URW; ++j) {
                            if (CHECK) {
                                const dim_t iw = iw0 + j * t.SW;
                                if (iw < 0 || iw >= t.IW) continue;
                            }
                            const __m512 s = _mm512_set1_ps(s0[j * jstep]);
                            for (int k = 0; k < NOC; ++k) acc[j][k] = _mm512_fmadd_ps(s, wv[k], acc[j][k]);
                        }
                    }
                }
            }
        }
    }
    for (int j = 0; j < URW; ++j)
        for (int k = 0; k < NOC; ++k) _mm512_storeu_ps(out + (j * NOC + k) * blk, acc[j][k]);
}

// Picks the instantiation for a tile of `urw` columns.
template <int NOC, int U>
void run_tile(int urw, bool check, const tile_args_t &t, float *out) {
    if constexpr (U > 0) {
        if (urw == U) {
            if (check)
                f32_conv_tile_16c__avx512<NOC, U, true>(t, out);
            else
                f32_conv_tile_16c__avx512<NOC, U, false>(t, out);
            return;
        }
        run_tile<NOC, U - 1>(urw, check, t, out);
    } else {
        (void)urw, (void)check, (void)t, (void)out;
    }
}

} // namespace

status_t direct_conv_16c_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (!isa::has(isa::avx512)) return decline(me, "needs avx512");
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32))
        return decline(me, "data types");
    if (g.G > 1 && (g.ICg % blk || g.OCg % blk)) return decline(me, "group channels not a multiple of 16");
    if (status_t st = check_attr(); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    const format_tag_t dtag = data_tag_16c(g.ndims), wtag = wei_tag_16c(g.ndims, g.with_groups);
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag)
            || !mdw_t(weights_md_).matches_tag(wtag))
        return decline(me, "layouts");
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

status_t direct_conv_16c_fwd_t::init() {
    KESTREL_CHECK(primitive_t::init());
    epi_.init(pd());
    return status::success;
}

status_t direct_conv_16c_fwd_t::execute(const exec_ctx_t &ctx) const {
    const conv_geom_t &g = pd()->geom();
    const mdw_t src_d(pd()->src_md()), wei_d(pd()->weights_md()), dst_d(pd()->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const float *src = ctx.input<float>(DNNL_ARG_SRC);
    const float *wei = ctx.input<float>(DNNL_ARG_WEIGHTS);
    float *dst = ctx.output<float>(DNNL_ARG_DST);
    conv_epilogue_t::args_t ea;
    epi_.get_args(ctx, ea);
    const post_ops::applier_t ap(pd()->attr()->post_ops, *pd()->dst_md(), ctx);

    const int nd = g.ndims, wg = g.with_groups ? 1 : 0;
    const auto &ss = src_d.blk().strides, &ds = dst_d.blk().strides, &ws = wei_d.blk().strides;
    tile_args_t base {};
    base.s_icb = ss[1];
    base.s_d = nd == 5 ? ss[2] : 0;
    base.s_h = nd >= 4 ? ss[nd - 2] : 0;
    base.s_w = ss[nd - 1];
    base.w_ocb = ws[wg + 0];
    base.w_icb = ws[wg + 1];
    base.w_kd = nd == 5 ? ws[wg + 2] : 0;
    base.w_kh = nd >= 4 ? ws[wg + nd - 2] : 0;
    base.w_kw = ws[wg + nd - 1];
    base.nicb = div_up(g.ICg, blk);
    base.ic_tail = g.ICg - (base.nicb - 1) * blk;
    base.KD = g.KD, base.KH = g.KH, base.KW = g.KW;
    base.SD = g.SD, base.SH = g.SH, base.SW = g.SW;
    base.DD = g.DD, base.DH = g.DH, base.DW = g.DW;
    base.PD = g.PD, base.PH = g.PH, base.PW = g.PW;
    base.ID = g.ID, base.IH = g.IH, base.IW = g.IW;
    const dim_t d_w = ds[nd - 1];

    const dim_t nocb = div_up(g.OCg, blk); // oc blocks per group
    const dim_t nocp = div_up(nocb, 2);     // pairs of them
    const dim_t OC = g.OC();
    // Columns whose whole receptive field lies inside src need no checks.
    const dim_t ext_w = (g.KW - 1) * (g.DW + 1);

    parallel_nd(g.MB * g.G, nocp, g.OD, g.OH, [&](dim_t ng, dim_t ocp, dim_t od, dim_t oh) {
        const dim_t n = ng / g.G, gr = ng % g.G;
        const int noc = (int)std::min<dim_t>(2, nocb - ocp * 2);
        tile_args_t t = base;
        t.od = od;
        t.oh = oh;
        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * g.ICg, 0, 0, 0);
        t.src = src + src_d.off_v(pos);
        g.wei_pos(pos, gr, ocp * 2 * blk, 0, 0, 0, 0);
        t.wei = wei + wei_d.off_v(pos);
        const dim_t oc0 = gr * g.OCg + ocp * 2 * blk;
        g.data_pos(pos, n, oc0, od, oh, 0);
        float *drow = dst + dst_d.off_v(pos);

        alignas(64) float acc[max_urw * 2 * blk];
        float row[max_urw], prev[max_urw];
        for (dim_t ow0 = 0; ow0 < g.OW; ow0 += max_urw) {
            const int urw = (int)std::min<dim_t>(max_urw, g.OW - ow0);
            t.ow0 = ow0;
            const dim_t iw_lo = ow0 * g.SW - g.PW;
            const dim_t iw_hi = (ow0 + urw - 1) * g.SW - g.PW + ext_w;
            const bool check = iw_lo < 0 || iw_hi >= g.IW;
            if (noc == 2)
                run_tile<2, max_urw>(urw, check, t, acc);
            else
                run_tile<1, max_urw>(urw, check, t, acc);
            // Epilogue on the finished tile: scales and bias per channel
            // run, the post-op chain along each channel's row of columns,
            // dst scales, then one store.
            if (!epi_.trivial()) {
                for (int j = 0; j < urw; ++j)
                    for (int k = 0; k < noc; ++k) {
                        const dim_t c0 = oc0 + k * blk;
                        epi_.pre(acc + (j * noc + k) * blk, std::min<dim_t>(blk, OC - c0), c0, ea);
                    }
                if (epi_.has_chain()) {
                    for (int k = 0; k < noc; ++k) {
                        const dim_t c0 = oc0 + k * blk;
                        const dim_t nvalid = std::min<dim_t>(blk, OC - c0);
                        for (dim_t c = 0; c < nvalid; ++c) {
                            for (int j = 0; j < urw; ++j) {
                                row[j] = acc[(j * noc + k) * blk + c];
                                if (epi_.has_sum()) prev[j] = drow[k * ds[1] + (ow0 + j) * d_w + c];
                            }
                            pos[1] = c0 + c;
                            pos[nd - 1] = ow0;
                            ap.apply_row(row, prev, urw, pos);
                            for (int j = 0; j < urw; ++j) acc[(j * noc + k) * blk + c] = row[j];
                        }
                    }
                }
                for (int j = 0; j < urw; ++j)
                    for (int k = 0; k < noc; ++k) {
                        const dim_t c0 = oc0 + k * blk;
                        epi_.post(acc + (j * noc + k) * blk, std::min<dim_t>(blk, OC - c0), c0, ea);
                    }
            }
            for (int j = 0; j < urw; ++j) {
                for (int k = 0; k < noc; ++k) {
                    float *v = acc + (j * noc + k) * blk;
                    const dim_t nvalid = std::min<dim_t>(blk, OC - (oc0 + k * blk));
                    // Padded channels of the last block stay zero.
                    for (dim_t c = nvalid; c < blk; ++c) v[c] = 0.f;
                    std::copy(v, v + blk, drow + k * ds[1] + (ow0 + j) * d_w);
                }
            }
        }
    });
    return status::success;
}

} // namespace kestrel
