// Convolution / deconvolution backward data and backward weights. See
// conv_bwd.hpp for the big/small formulation shared by both kinds.
#include "cpu/conv/conv_bwd.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

constexpr scratchpad::key_t key_gemm = 0; // gemm::key_count keys
constexpr scratchpad::key_t key_wt = gemm::key_count; // weights rearranged for the GEMM
constexpr scratchpad::key_t key_col = gemm::key_count + 1; // im2col / col2im columns
constexpr scratchpad::key_t key_small = gemm::key_count + 2; // a chunk of the small tensor
constexpr scratchpad::key_t key_acc = gemm::key_count + 3; // one big image, f32
constexpr scratchpad::key_t key_part = gemm::key_count + 4; // partial diff_weights
constexpr dim_t col_budget = 256 * 1024; // floats of columns per thread

format_tag_t nxc_tag(int ndims) { return ndims == 3 ? dnnl_nwc : ndims == 4 ? dnnl_nhwc : dnnl_ndhwc; }

// Small points per GEMM call: the columns fit the budget, and there are
// enough work items for every thread when the minibatch is small.
dim_t pick_chunk(const conv_bs_geom_t &b, int nthr, bool split_for_threads) {
    const dim_t ssp = b.SSP(), rows = std::max<dim_t>(1, b.Cb * b.KS());
    dim_t chunk = std::max<dim_t>(16, col_budget / rows / 16 * 16);
    if (split_for_threads) {
        const dim_t images = std::max<dim_t>(1, b.MB * b.G);
        const dim_t want = div_up((dim_t)nthr, images); // chunks per image
        chunk = std::min(chunk, std::max<dim_t>(1, div_up(ssp, want)));
    }
    return std::max<dim_t>(1, std::min(chunk, ssp));
}

// col[(cb * KS + k)][j] for small points [sp0, sp0 + len) of image n,
// group gr: the big-tensor element tap k of point j reads, 0 in padding.
void im2col(const conv_bs_geom_t &b, const conv_data_view_t &v, const void *big, dim_t n,
        dim_t gr, dim_t sp0, dim_t len, float *col) {
    const dim_t KS = b.KS();
    for (dim_t j0 = 0; j0 < len;) {
        const dim_t sp = sp0 + j0;
        const dim_t w0 = sp % b.SW, h = sp / b.SW % b.SH, d = sp / (b.SW * b.SH);
        const dim_t seg = std::min(len - j0, b.SW - w0);
        for (dim_t cb = 0; cb < b.Cb; ++cb) {
            const dim_t c = gr * b.Cb + cb;
            for (dim_t kd = 0; kd < b.KD; ++kd) {
                const dim_t bd = d * b.sD - b.pD + kd * (b.dD + 1);
                for (dim_t kh = 0; kh < b.KH; ++kh) {
                    const dim_t bh = h * b.sH - b.pH + kh * (b.dH + 1);
                    const bool in = bd >= 0 && bd < b.BD && bh >= 0 && bh < b.BH;
                    for (dim_t kw = 0; kw < b.KW; ++kw) {
                        const dim_t k = (kd * b.KH + kh) * b.KW + kw;
                        float *out = col + (cb * KS + k) * len + j0;
                        for (dim_t j = 0; j < seg; ++j) {
                            const dim_t bw = (w0 + j) * b.sW - b.pW + kw * (b.dW + 1);
                            out[j] = in && bw >= 0 && bw < b.BW ? load_f32(v.dt, big, v.off(n, c, bd, bh, bw)) : 0.f;
                        }
                    }
                }
            }
        }
        j0 += seg;
    }
}

// The inverse scatter: acc[cb][big point] += col[(cb * KS + k)][j].
void col2im(const conv_bs_geom_t &b, const float *col, dim_t sp0, dim_t len, float *acc) {
    const dim_t KS = b.KS(), BSP = b.BSP();
    for (dim_t j0 = 0; j0 < len;) {
        const dim_t sp = sp0 + j0;
        const dim_t w0 = sp % b.SW, h = sp / b.SW % b.SH, d = sp / (b.SW * b.SH);
        const dim_t seg = std::min(len - j0, b.SW - w0);
        for (dim_t cb = 0; cb < b.Cb; ++cb)
            for (dim_t kd = 0; kd < b.KD; ++kd) {
                const dim_t bd = d * b.sD - b.pD + kd * (b.dD + 1);
                if (bd < 0 || bd >= b.BD) continue;
                for (dim_t kh = 0; kh < b.KH; ++kh) {
                    const dim_t bh = h * b.sH - b.pH + kh * (b.dH + 1);
                    if (bh < 0 || bh >= b.BH) continue;
                    float *row = acc + cb * BSP + (bd * b.BH + bh) * b.BW;
                    for (dim_t kw = 0; kw < b.KW; ++kw) {
                        const dim_t k = (kd * b.KH + kh) * b.KW + kw;
                        const float *in = col + (cb * KS + k) * len + j0;
                        for (dim_t j = 0; j < seg; ++j) {
                            const dim_t bw = (w0 + j) * b.sW - b.pW + kw * (b.dW + 1);
                            if (bw >= 0 && bw < b.BW) row[bw] += in[j];
                        }
                    }
                }
            }
        j0 += seg;
    }
}

// buf[cs][j] = small tensor at (n, gr * Cs + cs, point sp0 + j), or back.
template <bool store>
void small_chunk(const conv_bs_geom_t &b, const conv_data_view_t &v, const void *small_c,
        void *small_m, dim_t n, dim_t gr, dim_t sp0, dim_t len, float *buf) {
    for (dim_t j = 0; j < len; ++j) {
        const dim_t sp = sp0 + j;
        const dim_t w = sp % b.SW, h = sp / b.SW % b.SH, d = sp / (b.SW * b.SH);
        for (dim_t cs = 0; cs < b.Cs; ++cs) {
            const dim_t off = v.off(n, gr * b.Cs + cs, d, h, w);
            if (store)
                store_f32(v.dt, small_m, off, buf[cs * len + j]);
            else
                buf[cs * len + j] = load_f32(v.dt, small_c, off);
        }
    }
}

} // namespace

void conv_bs_geom_t::init(const conv_geom_t &g) {
    deconv = g.is_deconv;
    G = g.G, MB = g.MB;
    Cs = deconv ? g.ICg : g.OCg;
    Cb = deconv ? g.OCg : g.ICg;
    BD = deconv ? g.OD : g.ID, BH = deconv ? g.OH : g.IH, BW = deconv ? g.OW : g.IW;
    SD = deconv ? g.ID : g.OD, SH = deconv ? g.IH : g.OH, SW = deconv ? g.IW : g.OW;
    KD = g.KD, KH = g.KH, KW = g.KW;
    sD = g.SD, sH = g.SH, sW = g.SW;
    dD = g.DD, dH = g.DH, dW = g.DW;
    pD = g.PD, pH = g.PH, pW = g.PW;
}

bool conv_data_view_t::supports(const memory_desc_t &md) {
    const mdw_t m(md);
    if (!m.is_blocked()) return false;
    const auto &b = m.blk();
    return b.inner_nblks == 0 || (b.inner_nblks == 1 && b.inner_idxs[0] == 1);
}

void conv_data_view_t::init(const memory_desc_t &md) {
    const mdw_t m(md);
    const auto &b = m.blk();
    const int nd = m.ndims();
    dt = m.data_type();
    off0 = md.offset0;
    blk = b.inner_nblks == 1 ? b.inner_blks[0] : 1;
    sn = b.strides[0];
    sc = b.strides[1];
    sd = nd == 5 ? b.strides[2] : 0;
    sh = nd >= 4 ? b.strides[nd - 2] : 0;
    sw = b.strides[nd - 1];
}

status_t conv_bwd_pd_t::init_common(const char *me) {
    const conv_geom_t &g = geom_;
    if (!attr_.has_default_values()) return decline(me, "attributes");
    for (const memory_desc_t *m : {&src_md_, &wei_md_, &dst_md_})
        if (!one_of(m->data_type, dnnl_f32, dnnl_bf16, dnnl_f16)) return decline(me, "data types");
    if (g.with_bias && !one_of(bias_md_.data_type, dnnl_f32, dnnl_bf16, dnnl_f16))
        return decline(me, "data types");
    if (g.is_deconv ? desc_.alg_kind != dnnl_deconvolution_direct
                    : !one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");

    const int nd = g.ndims;
    const format_tag_t ncx = conv_plain_data_tag(nd), nxc = nxc_tag(nd);
    format_tag_t dtag = ncx;
    for (const memory_desc_t *m : {&src_md_, &dst_md_})
        if (!mdw_t(*m).is_any()) {
            if (mdw_t(*m).matches_tag(nxc) && !mdw_t(*m).matches_tag(ncx)) dtag = nxc;
            break;
        }
    if (mdw_t(src_md_).is_any()) KESTREL_CHECK(md_set_tag(src_md_, dtag));
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(md_set_tag(dst_md_, dtag));
    if (mdw_t(wei_md_).is_any()) KESTREL_CHECK(md_set_tag(wei_md_, conv_plain_wei_tag(nd, g.with_groups)));
    if (g.with_bias && mdw_t(bias_md_).is_any()) KESTREL_CHECK(md_set_tag(bias_md_, dnnl_a));
    if (!conv_data_view_t::supports(src_md_) || !conv_data_view_t::supports(dst_md_))
        return decline(me, "data layouts");
    if (!mdw_t(wei_md_).is_blocked() || (g.with_bias && !mdw_t(bias_md_).is_blocked()))
        return decline(me, "weights layout");
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

// ------------------------------------------------------------ backward data

status_t gemm_conv_bwd_data_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    if (!is_bwd_d()) return decline(me, "not backward data");
    KESTREL_CHECK(init_common(me));
    bs.init(geom_);
    const int nthr = max_threads();
    const dim_t rows = bs.Cb * bs.KS();
    // The gather (deconvolution) has independent chunks; the scatter
    // accumulates a whole big image per item, so it splits by image only.
    chunk = pick_chunk(bs, nthr, bs.deconv);
    const dim_t pts = bs.SSP() % chunk == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    auto &r = scratchpad_registry();
    if (bs.deconv) {
        KESTREL_CHECK(plan.init(bs.Cs, pts, rows, false, false));
    } else {
        KESTREL_CHECK(plan.init(rows, pts, bs.Cs, false, false));
        r.book_per_thread(key_acc, (size_t)bs.Cb * bs.BSP() * sizeof(float));
    }
    plan.book(r, key_gemm);
    r.book(key_wt, (size_t)bs.G * rows * bs.Cs * sizeof(float));
    r.book_per_thread(key_col, (size_t)rows * chunk * sizeof(float));
    r.book_per_thread(key_small, (size_t)bs.Cs * chunk * sizeof(float));
    return status::success;
}

status_t gemm_conv_bwd_data_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const conv_bs_geom_t &b = p->bs;
    const mdw_t wei_d(p->weights_md());
    const void *wei = ctx.input(DNNL_ARG_WEIGHTS);
    const void *diff_dst = ctx.input(DNNL_ARG_DIFF_DST);
    void *diff_src = ctx.output(DNNL_ARG_DIFF_SRC);
    const auto &sg = ctx.scratchpad();
    float *wt = sg.get<float>(key_wt);
    if (!wt) return status::out_of_memory;
    const dim_t KS = b.KS(), rows = b.Cb * KS;
    const data_type_t wdt = wei_d.data_type();

    // Scatter: wt[g][(cb, k)][cs]; gather: wt[g][cs][(cb, k)].
    parallel_nd(b.G, b.Cs, [&](dim_t gr, dim_t cs) {
        dim_t pos[max_ndims];
        float *t = wt + gr * rows * b.Cs;
        for (dim_t cb = 0; cb < b.Cb; ++cb)
            for (dim_t kd = 0; kd < b.KD; ++kd)
                for (dim_t kh = 0; kh < b.KH; ++kh)
                    for (dim_t kw = 0; kw < b.KW; ++kw) {
                        b.wei_pos(g, pos, gr, cs, cb, kd, kh, kw);
                        const float w = load_f32(wdt, wei, wei_d.off_v(pos));
                        const dim_t r = cb * KS + (kd * b.KH + kh) * b.KW + kw;
                        if (b.deconv)
                            t[cs * rows + r] = w;
                        else
                            t[r * b.Cs + cs] = w;
                    }
    });

    conv_data_view_t big_v, small_v;
    // Convolution: big = diff_src, small = diff_dst. Deconvolution: big =
    // diff_dst, small = diff_src.
    big_v.init(b.deconv ? *p->diff_dst_md() : *p->diff_src_md());
    small_v.init(b.deconv ? *p->diff_src_md() : *p->diff_dst_md());
    const dim_t SSP = b.SSP(), BSP = b.BSP(), chunk = p->chunk, nchunks = div_up(SSP, chunk);

    if (b.deconv) {
        auto run = [&](dim_t item, int ithr, bool par) -> status_t {
            const dim_t c = item % nchunks, gr = item / nchunks % b.G, n = item / nchunks / b.G;
            const dim_t sp0 = c * chunk, len = std::min(chunk, SSP - sp0);
            float *col = sg.get<float>(key_col, ithr), *out = sg.get<float>(key_small, ithr);
            if (!col || !out) return status::out_of_memory;
            im2col(b, big_v, diff_dst, n, gr, sp0, len, col);
            const float *A = wt + gr * rows * b.Cs;
            KESTREL_CHECK(par ? p->plan.execute(b.Cs, len, rows, 1.f, A, rows, col, len, 0.f, out, len, sg, key_gemm)
                              : p->plan.execute_st(b.Cs, len, rows, 1.f, A, rows, col, len, 0.f, out, len, sg,
                                      key_gemm, ithr));
            small_chunk<true>(b, small_v, nullptr, diff_src, n, gr, sp0, len, out);
            return status::success;
        };
        return conv_for_items(b.MB * b.G * nchunks, sg, run);
    }

    auto run = [&](dim_t item, int ithr, bool par) -> status_t {
        const dim_t gr = item % b.G, n = item / b.G;
        float *col = sg.get<float>(key_col, ithr), *in = sg.get<float>(key_small, ithr);
        float *acc = sg.get<float>(key_acc, ithr);
        if (!col || !in || !acc) return status::out_of_memory;
        std::memset(acc, 0, sizeof(float) * b.Cb * BSP);
        const float *A = wt + gr * rows * b.Cs;
        for (dim_t c = 0; c < nchunks; ++c) {
            const dim_t sp0 = c * chunk, len = std::min(chunk, SSP - sp0);
            small_chunk<false>(b, small_v, diff_dst, nullptr, n, gr, sp0, len, in);
            KESTREL_CHECK(par ? p->plan.execute(rows, len, b.Cs, 1.f, A, b.Cs, in, len, 0.f, col, len, sg, key_gemm)
                              : p->plan.execute_st(rows, len, b.Cs, 1.f, A, b.Cs, in, len, 0.f, col, len, sg,
                                      key_gemm, ithr));
            col2im(b, col, sp0, len, acc);
        }
        for (dim_t cb = 0; cb < b.Cb; ++cb)
            for (dim_t sp = 0; sp < BSP; ++sp) {
                const dim_t w = sp % b.BW, h = sp / b.BW % b.BH, d = sp / (b.BW * b.BH);
                store_f32(big_v.dt, diff_src, big_v.off(n, gr * b.Cb + cb, d, h, w), acc[cb * BSP + sp]);
            }
        return status::success;
    };
    return conv_for_items(b.MB * b.G, sg, run);
}

// --------------------------------------------------------- backward weights

status_t gemm_conv_bwd_weights_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    if (desc_.prop_kind != dnnl_backward_weights) return decline(me, "not backward weights");
    KESTREL_CHECK(init_common(me));
    bs.init(geom_);
    nthr = max_threads();
    const dim_t rows = bs.Cb * bs.KS();
    chunk = pick_chunk(bs, nthr, true);
    const dim_t pts = bs.SSP() % chunk == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    KESTREL_CHECK(plan.init(bs.Cs, rows, pts, false, true));
    auto &r = scratchpad_registry();
    r.set_nthr(nthr);
    plan.book(r, key_gemm);
    r.book_per_thread(key_col, (size_t)rows * chunk * sizeof(float));
    r.book_per_thread(key_small, (size_t)bs.Cs * chunk * sizeof(float));
    r.book_per_thread(key_part, (size_t)bs.G * bs.Cs * rows * sizeof(float));
    return status::success;
}

status_t gemm_conv_bwd_weights_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const conv_bs_geom_t &b = p->bs;
    const void *src = ctx.input(DNNL_ARG_SRC), *diff_dst = ctx.input(DNNL_ARG_DIFF_DST);
    void *diff_wei = ctx.output(DNNL_ARG_DIFF_WEIGHTS);
    const auto &sg = ctx.scratchpad();
    const dim_t KS = b.KS(), rows = b.Cb * KS, wsize = b.G * b.Cs * rows;
    const dim_t SSP = b.SSP(), chunk = p->chunk, nchunks = div_up(SSP, chunk);
    const dim_t work = b.MB * b.G * nchunks;
    // Convolution: small = diff_dst, big = src. Deconvolution: small = src,
    // big = diff_dst.
    conv_data_view_t big_v, small_v;
    big_v.init(b.deconv ? *p->diff_dst_md() : *p->src_md());
    small_v.init(b.deconv ? *p->src_md() : *p->diff_dst_md());
    const void *big = b.deconv ? diff_dst : src, *small = b.deconv ? src : diff_dst;

    const int nthr = (int)std::max<dim_t>(1, std::min<dim_t>({max_threads(), sg.nthr(), work}));
    std::atomic<int> failed {(int)status::success};
    parallel(nthr, [&](int ithr, int nt) {
        float *part = sg.get<float>(key_part, ithr);
        float *col = sg.get<float>(key_col, ithr), *in = sg.get<float>(key_small, ithr);
        if (!part || !col || !in) {
            failed = (int)status::out_of_memory;
            return;
        }
        std::memset(part, 0, sizeof(float) * wsize);
        dim_t s, e;
        balance211(work, nt, ithr, s, e);
        for (dim_t it = s; it < e; ++it) {
            const dim_t c = it % nchunks, gr = it / nchunks % b.G, n = it / nchunks / b.G;
            const dim_t sp0 = c * chunk, len = std::min(chunk, SSP - sp0);
            im2col(b, big_v, big, n, gr, sp0, len, col);
            small_chunk<false>(b, small_v, small, nullptr, n, gr, sp0, len, in);
            const status_t st = p->plan.execute_st(b.Cs, rows, len, 1.f, in, len, col, len, 1.f,
                    part + gr * b.Cs * rows, rows, sg, key_gemm, ithr);
            if (st != status::success) failed = (int)st;
        }
    });
    if (failed.load() != (int)status::success) return (status_t)failed.load();

    // Sum the partials (always in slot order) into the user's diff_weights.
    const mdw_t dw_d(p->diff_weights_md(0));
    const data_type_t wdt = dw_d.data_type();
    parallel_nd(b.G, b.Cs, [&](dim_t gr, dim_t cs) {
        dim_t pos[max_ndims];
        const dim_t base = (gr * b.Cs + cs) * rows;
        for (dim_t cb = 0; cb < b.Cb; ++cb)
            for (dim_t kd = 0; kd < b.KD; ++kd)
                for (dim_t kh = 0; kh < b.KH; ++kh)
                    for (dim_t kw = 0; kw < b.KW; ++kw) {
                        const dim_t i = base + cb * KS + (kd * b.KH + kh) * b.KW + kw;
                        float v = 0.f;
                        for (int t = 0; t < nthr; ++t) v += sg.get<float>(key_part, t)[i];
                        b.wei_pos(g, pos, gr, cs, cb, kd, kh, kw);
                        store_f32(wdt, diff_wei, dw_d.off_v(pos), v);
                    }
    });

    if (!g.with_bias) return status::success;
    // diff_bias[c] = sum of diff_dst over images and points, one channel
    // per task (diff_dst is the small tensor of a convolution, the big one
    // of a deconvolution).
    void *diff_bias = ctx.output(DNNL_ARG_DIFF_BIAS);
    const mdw_t db_d(p->diff_weights_md(1));
    const conv_data_view_t &dv = b.deconv ? big_v : small_v;
    const dim_t C = g.OC(), OD = g.OD, OH = g.OH, OW = g.OW;
    parallel_nd(C, [&](dim_t c) {
        float v = 0.f;
        for (dim_t n = 0; n < g.MB; ++n)
            for (dim_t d = 0; d < OD; ++d)
                for (dim_t h = 0; h < OH; ++h)
                    for (dim_t w = 0; w < OW; ++w) v += load_f32(dv.dt, diff_dst, dv.off(n, c, d, h, w));
        const dim_t pos[1] = {c};
        store_f32(db_d.data_type(), diff_bias, db_d.off_v(pos), v);
    });
    return status::success;
}

// ------------------------------------------------------------------- lists

const impl_entry_t conv_bwd_data_impl_list[] = {
        {"gemm:col2im:bwd_d", make_pd<gemm_conv_bwd_data_t::pd_t>},
        {nullptr, nullptr},
};
const impl_entry_t deconv_bwd_data_impl_list[] = {
        {"gemm:im2col:deconv_bwd_d", make_pd<gemm_conv_bwd_data_t::pd_t>},
        {nullptr, nullptr},
};
const impl_entry_t conv_bwd_weights_impl_list[] = {
        {"gemm:im2col:bwd_w", make_pd<gemm_conv_bwd_weights_t::pd_t>},
        {nullptr, nullptr},
};
const impl_entry_t deconv_bwd_weights_impl_list[] = {
        {"gemm:im2col:deconv_bwd_w", make_pd<gemm_conv_bwd_weights_t::pd_t>},
        {nullptr, nullptr},
};

status_t conv_bwd_pd_create(dnnl_primitive_desc **out, dnnl_engine *engine,
        dnnl_primitive_kind_t kind, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
        const memory_desc_t *src, const memory_desc_t *weights, const memory_desc_t *bias,
        const memory_desc_t *dst, const dim_t *strides, const dim_t *dilates, const dim_t *pad_l,
        const dim_t *pad_r, const dnnl_primitive_desc *hint, const dnnl_primitive_attr *attr) {
    if (hint) {
        const kestrel::pd_t *h = hint->pd();
        if (!h || h->kind() != kind
                || !one_of(h->prop_kind(), dnnl_forward_training, dnnl_forward_inference))
            return status::invalid_arguments;
    }
    conv_desc_t d(kind);
    KESTREL_CHECK(conv_desc_init(d, prop, alg, src, weights, bias, dst, strides, dilates, pad_l, pad_r));
    const bool deconv = kind == dnnl_deconvolution;
    impl_list_t list = prop == dnnl_backward_data
            ? (deconv ? deconv_bwd_data_impl_list : conv_bwd_data_impl_list)
            : (deconv ? deconv_bwd_weights_impl_list : conv_bwd_weights_impl_list);
    return create_pd_handle(out, d, attr, engine, list, hint);
}

} // namespace kestrel
