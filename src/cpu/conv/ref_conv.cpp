// Reference convolution and deconvolution forward. One output element at a
// time, every offset through mdw_t: slow, obviously correct, the oracle of
// the tests.
#include "cpu/conv/conv_impls.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

format_tag_t conv_plain_data_tag(int ndims) {
    return ndims == 3 ? dnnl_ncw : ndims == 4 ? dnnl_nchw : dnnl_ncdhw;
}

format_tag_t conv_plain_wei_tag(int ndims, bool with_groups) {
    if (with_groups) return ndims == 3 ? dnnl_goiw : ndims == 4 ? dnnl_goihw : dnnl_goidhw;
    return ndims == 3 ? dnnl_oiw : ndims == 4 ? dnnl_oihw : dnnl_oidhw;
}

status_t ref_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const bool fp = one_of(src_md_.data_type, dnnl_f32, dnnl_bf16, dnnl_f16)
            && weights_md_.data_type == src_md_.data_type
            && one_of(dst_md_.data_type, dnnl_f32, src_md_.data_type)
            && (!geom_.with_bias || one_of(bias_md_.data_type, dnnl_f32, src_md_.data_type));
    const bool int8 = int8_types();
    if (!fp && !int8) return decline(me, "data types");
    if (geom_.is_deconv ? desc_.alg_kind != dnnl_deconvolution_direct
                        : !one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (status_t st = check_attr(int8, true); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    KESTREL_CHECK(set_formats(conv_plain_data_tag(geom_.ndims),
            conv_plain_wei_tag(geom_.ndims, geom_.with_groups)));
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

status_t ref_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const mdw_t dst_d(pd()->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, pd(), epi_);
    conv_zp_vec_t zpv;
    const quant_t &zps = pd()->attr()->zero_points;
    const quant_entry_t *q;
    if ((q = zps.get(DNNL_ARG_SRC)) && q->mask != 0) {
        zpv.src = ctx.input<void>(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC);
        zpv.src_dt = q->dt;
    }
    if ((q = zps.get(DNNL_ARG_DST)) && q->mask != 0) {
        zpv.dst = ctx.input<void>(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST);
        zpv.dst_dt = q->dt;
    }
    ref_conv_fwd_run(pd(), epi_, ex, zpv);
    return status::success;
}

// Integer source element minus the zero point (int8 path).
static inline int32_t load_s32(data_type_t dt, const void *p, dim_t i) {
    return dt == dnnl_u8 ? (int32_t) static_cast<const uint8_t *>(p)[i]
                         : (int32_t) static_cast<const int8_t *>(p)[i];
}

// Element i of an s32 / s8 / u8 zero-point array.
static inline int32_t zp_at(data_type_t dt, const void *p, dim_t i) {
    switch (dt) {
        case dnnl_s8: return static_cast<const int8_t *>(p)[i];
        case dnnl_u8: return static_cast<const uint8_t *>(p)[i];
        default: return static_cast<const int32_t *>(p)[i];
    }
}

void ref_conv_fwd_run(const conv_fwd_pd_t *pd, const conv_epilogue_t &epi, const conv_exec_args_t &ex,
        const conv_zp_vec_t &zpv) {
    const conv_geom_t &g = pd->geom();
    const mdw_t src_d(pd->src_md()), wei_d(pd->weights_md()), dst_d(pd->dst_md());
    const void *src = ex.src, *wei = ex.wei;
    void *dst = ex.dst;
    const data_type_t sdt = src_d.data_type(), wdt = wei_d.data_type(), ddt = dst_d.data_type();
    // int8: exact s32 sum of (src - zero point) * weights, wrapping modulo
    // 2^32 like the int8 GEMM, converted to f32 once for the epilogue.
    const bool int8 = one_of(sdt, dnnl_u8, dnnl_s8);
    const uint32_t zp = (uint32_t)ex.ea.src_zp;

    // Convolution: src index = dst index * stride - pad + k * (dil + 1).
    // Deconvolution inverts it: src index = (dst index + pad - k * (dil + 1))
    // / stride when that division is exact.
    auto src_idx = [&](dim_t o, dim_t k, dim_t S, dim_t P, dim_t D, dim_t I, dim_t &i) {
        if (!g.is_deconv) {
            i = o * S - P + k * (D + 1);
        } else {
            dim_t t = o + P - k * (D + 1);
            if (t < 0 || t % S) return false;
            i = t / S;
        }
        return i >= 0 && i < I;
    };

    const dim_t osp = g.OD * g.OH * g.OW;
    parallel_nd(g.MB, g.G, g.OCg, osp, [&](dim_t n, dim_t gr, dim_t oc, dim_t sp) {
        const dim_t ow = sp % g.OW, oh = sp / g.OW % g.OH, od = sp / (g.OW * g.OH);
        float acc = 0.f;
        uint32_t iacc = 0;
        dim_t pos[max_ndims];
        for (dim_t kd = 0; kd < g.KD; ++kd) {
            dim_t id;
            if (!src_idx(od, kd, g.SD, g.PD, g.DD, g.ID, id)) continue;
            for (dim_t kh = 0; kh < g.KH; ++kh) {
                dim_t ih;
                if (!src_idx(oh, kh, g.SH, g.PH, g.DH, g.IH, ih)) continue;
                for (dim_t kw = 0; kw < g.KW; ++kw) {
                    dim_t iw;
                    if (!src_idx(ow, kw, g.SW, g.PW, g.DW, g.IW, iw)) continue;
                    for (dim_t ic = 0; ic < g.ICg; ++ic) {
                        const dim_t c = gr * g.ICg + ic;
                        g.data_pos(pos, n, c, id, ih, iw);
                        const dim_t so = src_d.off_v(pos);
                        g.wei_pos(pos, gr, oc, ic, kd, kh, kw);
                        const dim_t wo = wei_d.off_v(pos);
                        if (int8)
                            iacc += ((uint32_t)load_s32(sdt, src, so)
                                            - (zpv.src ? (uint32_t)zp_at(zpv.src_dt, zpv.src, c) : zp))
                                    * (uint32_t) static_cast<const int8_t *>(wei)[wo];
                        else
                            acc += load_f32(sdt, src, so) * load_f32(wdt, wei, wo);
                    }
                }
            }
        }
        if (int8) acc = (float)(int32_t)iacc;
        const dim_t c = gr * g.OCg + oc;
        g.data_pos(pos, n, c, od, oh, ow);
        const dim_t off = dst_d.off_v(pos);
        const float prev = epi.has_sum() ? load_f32(ddt, dst, off) : 0.f;
        if (zpv.dst) {
            conv_epilogue_t::args_t ea = ex.ea;
            ea.dst_zp = (float)zp_at(zpv.dst_dt, zpv.dst, c);
            epi.apply(&acc, 1, c, pos, &prev, ea, ex.ap);
        } else {
            epi.apply(&acc, 1, c, pos, &prev, ex.ea, ex.ap);
        }
        store_f32(ddt, dst, off, acc);
    });
}

} // namespace kestrel
