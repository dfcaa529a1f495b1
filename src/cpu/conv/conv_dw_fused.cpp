// 1x1 convolution with a fused depthwise 3x3 (dnnl_post_ops_append_dw):
// row bands of the 1x1 output through the GEMM into a per-thread buffer,
// then the depthwise taps over it. See conv_impls.hpp.
#include <algorithm>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/math/eltwise_math.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Scratchpad keys: the GEMM plan's packing buffers, then the depthwise
// weights transposed to [tap][OC] (shared), and per thread the 1x1 output
// rows of a band, the gathered src rows (blocked src only) and one
// depthwise output row.
constexpr scratchpad::key_t key_gemm = 0;
constexpr scratchpad::key_t key_dw_wei = gemm::key_count;
constexpr scratchpad::key_t key_inter = key_dw_wei + 1;
constexpr scratchpad::key_t key_gather = key_dw_wei + 2;
constexpr scratchpad::key_t key_row = key_dw_wei + 3;
// Budget of the 1x1 rows buffer, in floats per thread (512 KiB).
constexpr dim_t inter_budget = 128 * 1024;
constexpr dim_t dw_k = 3, dw_pad = 1; // the only depthwise kernel served

// Element offsets of (n, c, h, w) in a 4D nchw / nhwc / nChw16c tensor.
struct data_off_t {
    dim_t off0 = 0, sn = 0, sc = 0, sh = 0, sw = 0, blk = 1;
    explicit data_off_t(const memory_desc_t &md) {
        const mdw_t m(md);
        const auto &b = m.blk();
        off0 = md.offset0;
        sn = b.strides[0], sc = b.strides[1], sh = b.strides[2], sw = b.strides[3];
        blk = b.inner_nblks == 1 ? b.inner_blks[0] : 1;
    }
    dim_t operator()(dim_t n, dim_t c, dim_t h, dim_t w) const {
        return off0 + n * sn + c / blk * sc + h * sh + w * sw + c % blk;
    }
};

} // namespace

status_t dw_fused_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    const auto &po = attr_.post_ops.entries;
    const int dw = attr_.post_ops.find(dnnl_convolution);
    if (dw < 0) return decline(me, "no depthwise post-op");
    if (attr_.post_ops.find(dnnl_convolution, dw + 1) >= 0) return decline(me, "two depthwise post-ops");
    if (g.is_deconv || g.ndims != 4 || g.with_groups || !g.is_1x1_unit())
        return decline(me, "not a 2D unit-stride unpadded 1x1 convolution without groups");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32))
        return decline(me, "data types (f32 only)");
    const auto &d = po[dw].dw;
    if (d.kernel != dw_k || d.padding_l != dw_pad || (d.stride != 1 && d.stride != 2))
        return decline(me, "depthwise kernel other than 3x3, padding 1, stride 1 or 2");
    if (d.wei_dt != dnnl_f32 || d.dst_dt != dnnl_f32 || !one_of(d.bias_dt, dnnl_f32, dnnl_data_type_undef))
        return decline(me, "depthwise data types (f32 only)");
    if (!attr_.has_default_values(attr_t::skip_t::skip_post_ops)) return decline(me, "attributes");
    // Eltwise before the depthwise entry (on the 1x1 output, which has no
    // previous value to sum into); eltwise or sum after it.
    pre_po.entries.assign(po.begin(), po.begin() + dw);
    post_po.entries.assign(po.begin() + dw + 1, po.end());
    for (const auto &e : pre_po.entries)
        if (e.kind != dnnl_eltwise || !math::eltwise_supported(e.eltwise.alg))
            return decline(me, "post-op before the depthwise entry");
    for (const auto &e : post_po.entries) {
        const bool ok = (e.kind == dnnl_eltwise && math::eltwise_supported(e.eltwise.alg))
                || (e.kind == dnnl_sum && one_of(e.sum.dt, dnnl_data_type_undef, dnnl_f32));
        if (!ok) return decline(me, "post-op after the depthwise entry");
    }

    // Layout from whichever data tensor the user fixed; `any` takes nhwc.
    format_tag_t tag = dnnl_nhwc;
    for (const memory_desc_t *m : {&src_md_, &dst_md_}) {
        const mdw_t w(*m);
        if (w.is_any()) continue;
        tag = w.matches_tag(dnnl_nchw) ? dnnl_nchw : w.matches_tag(dnnl_nChw16c) ? dnnl_nChw16c : dnnl_nhwc;
        break;
    }
    KESTREL_CHECK(set_formats(tag, dnnl_oihw));
    if (!mdw_t(src_md_).matches_tag(tag) || !mdw_t(dst_md_).matches_tag(tag)
            || !mdw_t(weights_md_).matches_tag(dnnl_oihw)
            || (g.with_bias && !mdw_t(bias_md_).matches_tag(dnnl_a)))
        return decline(me, "layouts");
    layout = tag == dnnl_nchw ? ncx : tag == dnnl_nhwc ? nxc : blocked16;

    // The depthwise problem: dst rows ceil(H / s), the right padding
    // whatever the last window needs.
    stride = d.stride;
    OH2 = div_up(g.OH, stride);
    OW2 = div_up(g.OW, stride);
    const dim_t OC = g.OC();
    inter_md = dst_md_;
    const dim_t dst_dims[4] = {g.MB, OC, OH2, OW2};
    KESTREL_CHECK(md_init_by_tag(dst_md_, 4, dst_dims, d.dst_dt, tag));
    const dim_t wei_dims[5] = {OC, 1, 1, dw_k, dw_k};
    KESTREL_CHECK(md_init_by_tag(dw_wei_md, 5, wei_dims, d.wei_dt, dnnl_goihw));
    with_dw_bias = d.bias_dt != dnnl_data_type_undef;
    if (with_dw_bias) KESTREL_CHECK(md_init_by_tag(dw_bias_md, 1, &OC, d.bias_dt, dnnl_a));

    // Band of dst rows per work item: the 1x1 rows it needs fit the
    // budget, and there are work items for every thread when the image
    // allows.
    const dim_t row_floats = std::max<dim_t>(1, g.OW * OC);
    band = std::max<dim_t>(1, (inter_budget / row_floats - dw_k) / stride + 1);
    band = std::min(band, std::max<dim_t>(1, OH2));
    const int nthr = max_threads();
    while (band > 1 && g.MB * div_up(OH2, band) < nthr) band = div_up(band, 2);
    rows_max = std::min((band - 1) * stride + dw_k, g.OH);

    // inter (points x OC) = src rows (points x IC) * W^T, W being OC x IC.
    KESTREL_CHECK(plan.init(DNNL_RUNTIME_DIM_VAL, OC, g.ICg, layout == ncx, true));
    auto &reg = scratchpad_registry();
    plan.book(reg, key_gemm);
    reg.book(key_dw_wei, (size_t)dw_k * dw_k * OC * sizeof(float));
    reg.book_per_thread(key_inter, (size_t)rows_max * g.OW * OC * sizeof(float));
    if (layout == blocked16) reg.book_per_thread(key_gather, (size_t)rows_max * g.OW * g.ICg * sizeof(float));
    reg.book_per_thread(key_row, (size_t)OW2 * OC * sizeof(float));
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

arg_usage_t dw_fused_conv_fwd_t::pd_t::arg_usage(int arg) const {
    if (arg == (DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS)) return arg_usage_t::input;
    if (arg == (DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS))
        return with_dw_bias ? arg_usage_t::input : arg_usage_t::unused;
    return conv_fwd_pd_t::arg_usage(arg);
}

const memory_desc_t *dw_fused_conv_fwd_t::pd_t::arg_md(int arg) const {
    if (arg == (DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS)) return &dw_wei_md;
    if (arg == (DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS)) return with_dw_bias ? &dw_bias_md : &zero_md_;
    return conv_fwd_pd_t::arg_md(arg);
}

status_t dw_fused_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    if (mdw_t(p->dst_md()).has_zero_dim()) return status::success;
    const float *src = ctx.input<float>(DNNL_ARG_SRC);
    const float *wei = ctx.input<float>(DNNL_ARG_WEIGHTS) + p->weights_md()->offset0;
    float *dst = ctx.output<float>(DNNL_ARG_DST);
    const float *dw_wei = ctx.input<float>(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS);
    const float *dw_bias = p->with_dw_bias ? ctx.input<float>(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS) : nullptr;
    if (!src || !dst || !dw_wei || (p->with_dw_bias && !dw_bias)) return status::invalid_arguments;
    if (dw_bias) dw_bias += p->dw_bias_md.offset0;
    conv_epilogue_t::args_t ea;
    epi_.get_args(ctx, ea);
    const post_ops::applier_t pre(p->pre_po, p->inter_md, ctx), post(p->post_po, *p->dst_md(), ctx);
    const auto &sg = ctx.scratchpad();

    const dim_t OC = g.OC(), IC = g.ICg, H = g.OH, W = g.OW, OH2 = p->OH2, OW2 = p->OW2;
    const dim_t s = p->stride, band = p->band;
    // Depthwise weights as [tap][OC], so the taps run along channels.
    float *wt = sg.get<float>(key_dw_wei);
    if (!wt) return status::out_of_memory;
    dw_wei += p->dw_wei_md.offset0; // dense goihw: channel c's taps at c * 9
    for (dim_t c = 0; c < OC; ++c)
        for (dim_t t = 0; t < dw_k * dw_k; ++t) wt[t * OC + c] = dw_wei[c * dw_k * dw_k + t];
    const data_off_t so(*p->src_md()), dso(*p->dst_md());
    const auto layout = p->layout;
    const dim_t nbands = div_up(OH2, band);
    const dim_t work = g.MB * nbands;

    auto run = [&](dim_t item, int ithr, bool parallel_gemm) -> status_t {
        const dim_t n = item / nbands, b = item % nbands;
        const dim_t oh0 = b * band, oh1 = std::min(OH2, oh0 + band);
        // 1x1 rows [h0, h1) feed dst rows [oh0, oh1).
        const dim_t h0 = std::max<dim_t>(0, oh0 * s - dw_pad);
        const dim_t h1 = std::min(H, (oh1 - 1) * s - dw_pad + dw_k);
        const dim_t pts = (h1 - h0) * W;
        float *inter = sg.get<float>(key_inter, ithr);
        float *row = sg.get<float>(key_row, ithr);
        if (!inter || !row) return status::out_of_memory;

        const float *A;
        dim_t lda;
        if (layout == pd_t::blocked16) {
            float *gat = sg.get<float>(key_gather, ithr);
            if (!gat) return status::out_of_memory;
            for (dim_t h = h0; h < h1; ++h)
                for (dim_t w = 0; w < W; ++w) {
                    float *out = gat + ((h - h0) * W + w) * IC;
                    for (dim_t ic = 0; ic < IC; ++ic) out[ic] = src[so(n, ic, h, w)];
                }
            A = gat, lda = IC;
        } else {
            A = src + so(n, 0, h0, 0);
            lda = layout == pd_t::ncx ? so.sc : so.sw;
        }
        const status_t st = parallel_gemm
                ? p->plan.execute(pts, OC, IC, 1.f, A, lda, wei, IC, 0.f, inter, OC, sg, key_gemm)
                : p->plan.execute_st(pts, OC, IC, 1.f, A, lda, wei, IC, 0.f, inter, OC, sg, key_gemm, ithr);
        if (st != status::success) return st;

        // The 1x1 bias and the chain before the depthwise entry.
        if (epi_.has_pre() || !pre.empty()) {
            dim_t pos[4] = {n, 0, 0, 0};
            for (dim_t pt = 0; pt < pts; ++pt) {
                float *v = inter + pt * OC;
                epi_.pre(v, OC, 0, ea, 1, false);
                if (pre.empty()) continue;
                pos[2] = h0 + pt / W, pos[3] = pt % W;
                for (dim_t c = 0; c < OC; ++c) {
                    pos[1] = c;
                    v[c] = pre.apply(v[c], 0.f, pos);
                }
            }
        }

        // Depthwise taps, then the chain after the entry, into dst.
        for (dim_t oh = oh0; oh < oh1; ++oh) {
            for (dim_t ow = 0; ow < OW2; ++ow) {
                float *acc = row + ow * OC;
                for (dim_t c = 0; c < OC; ++c) acc[c] = dw_bias ? dw_bias[c] : 0.f;
                for (dim_t kh = 0; kh < dw_k; ++kh) {
                    const dim_t ih = oh * s - dw_pad + kh;
                    if (ih < 0 || ih >= H) continue;
                    for (dim_t kw = 0; kw < dw_k; ++kw) {
                        const dim_t iw = ow * s - dw_pad + kw;
                        if (iw < 0 || iw >= W) continue;
                        const float *in = inter + ((ih - h0) * W + iw) * OC;
                        const float *tw = wt + (kh * dw_k + kw) * OC;
                        for (dim_t c = 0; c < OC; ++c) acc[c] += in[c] * tw[c];
                    }
                }
            }
            dim_t pos[4] = {n, 0, oh, 0};
            for (dim_t ow = 0; ow < OW2; ++ow) {
                const float *acc = row + ow * OC;
                pos[3] = ow;
                for (dim_t c = 0; c < OC; ++c) {
                    float *out = dst + dso(n, c, oh, ow);
                    float v = acc[c];
                    if (!post.empty()) {
                        pos[1] = c;
                        v = post.apply(v, *out, pos);
                    }
                    *out = v;
                }
            }
        }
        return status::success;
    };
    return conv_for_items(work, sg, run);
}

} // namespace kestrel
