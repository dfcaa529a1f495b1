// Convolution / deconvolution backward data and backward weights. See
// conv_bwd.hpp for the big/small formulation shared by both kinds.
#include "cpu/conv/conv_bwd.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "cpu/conv/conv_bwd_cols.hpp"
#include "cpu/conv/conv_impls.hpp"
#include "cpu/conv/direct_conv_bwd.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

constexpr scratchpad::key_t key_gemm = 0;                    // gemm::key_count keys
constexpr scratchpad::key_t key_wt = gemm::key_count;        // weights rearranged for the GEMM
constexpr scratchpad::key_t key_col = gemm::key_count + 1;   // im2col / col2im columns
constexpr scratchpad::key_t key_small = gemm::key_count + 2; // a chunk of the small tensor
constexpr scratchpad::key_t key_acc = gemm::key_count + 3;   // one big image, f32
constexpr scratchpad::key_t key_part = gemm::key_count + 4;  // partial diff_weights
constexpr scratchpad::key_t key_bpart = gemm::key_count + 5; // partial diff_bias (fused)
constexpr dim_t col_budget = 256 * 1024;                     // floats of columns per thread

format_tag_t nxc_tag(int ndims) {
    return ndims == 3 ? dnnl_nwc : ndims == 4 ? dnnl_nhwc : dnnl_ndhwc;
}

// Small points per GEMM call: the columns fit the budget (no limit when
// no column buffer is used), and there are enough work items for every
// thread when the minibatch is small.
dim_t pick_chunk(const conv_bs_geom_t &b, int nthr, bool split_for_threads, bool no_cols) {
    const dim_t ssp = b.SSP(), rows = std::max<dim_t>(1, b.Cb * b.KS());
    dim_t chunk = no_cols ? ssp : std::max<dim_t>(16, col_budget / rows / 16 * 16);
    if (split_for_threads) {
        const dim_t images = std::max<dim_t>(1, b.MB * b.G);
        const dim_t want = div_up((dim_t)nthr, images); // chunks per image
        chunk = std::min(chunk, std::max<dim_t>(1, div_up(ssp, want)));
    }
    return std::max<dim_t>(1, std::min(chunk, ssp));
}

status_t run_gemm(const gemm::plan_t &plan, const conv_bwd::gemm_call_t &c, float beta, bool par,
                  const scratchpad::grantor_t &sg, int ithr) {
    return par ? plan.execute(c.M, c.N, c.K, 1.f, c.A, c.lda, c.B, c.ldb, beta, c.C, c.ldc, sg,
                              key_gemm)
               : plan.execute_st(c.M, c.N, c.K, 1.f, c.A, c.lda, c.B, c.ldb, beta, c.C, c.ldc, sg,
                                 key_gemm, ithr);
}

// Physical offset of weights element W(g, cs, cb, k...) (conv_bwd.hpp's
// formulation). A plain layout is read through its strides, worked out once
// (mdw_t::off_v per element made the weights passes of the GEMM paths a
// tenth of their time); a blocked one through off_v.
struct wei_offsets_t {
    const mdw_t &d;
    const conv_geom_t &geom;
    const conv_bs_geom_t &b;
    bool plain = false;
    dim_t base = 0, sg = 0, scs = 0, scb = 0, skd = 0, skh = 0, skw = 0;

    wei_offsets_t(const mdw_t &md, const conv_geom_t &g, const conv_bs_geom_t &bs)
        : d(md), geom(g), b(bs) {
        if (!d.is_plain()) return;
        const dim_t origin[max_ndims] = {};
        base = d.off_v(origin);
        const dim_t *st = d.blk().strides;
        int k = 0;
        if (g.with_groups) sg = st[k++];
        const dim_t so = st[k++], si = st[k++];
        if (g.ndims == 5) skd = st[k++];
        if (g.ndims >= 4) skh = st[k++];
        skw = st[k];
        // Convolution weights are [g][oc = cs][ic = cb], deconvolution's
        // [g][oc = cb][ic = cs].
        scs = b.deconv ? si : so;
        scb = b.deconv ? so : si;
        plain = true;
    }
    dim_t off(dim_t gr, dim_t cs, dim_t cb, dim_t kd, dim_t kh, dim_t kw) const {
        if (plain) return base + gr * sg + cs * scs + cb * scb + kd * skd + kh * skh + kw * skw;
        dim_t pos[max_ndims];
        b.wei_pos(geom, pos, gr, cs, cb, kd, kh, kw);
        return d.off_v(pos);
    }
};

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
    if (mdw_t(wei_md_).is_any())
        KESTREL_CHECK(md_set_tag(wei_md_, conv_plain_wei_tag(nd, g.with_groups)));
    if (g.with_bias && mdw_t(bias_md_).is_any()) KESTREL_CHECK(md_set_tag(bias_md_, dnnl_a));
    if (!conv_data_view_t::supports(src_md_) || !conv_data_view_t::supports(dst_md_))
        return decline(me, "data layouts");
    if (!mdw_t(wei_md_).is_blocked() || (g.with_bias && !mdw_t(bias_md_).is_blocked()))
        return decline(me, "weights layout");
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

// ------------------------------------------------------------ backward data

void conv_bwd_views_t::init(const conv_bs_geom_t &b, const memory_desc_t &big_md,
                            const memory_desc_t &small_md, bool unit_1x1) {
    using namespace conv_bwd;
    big.init(big_md);
    small.init(small_md);
    big_ps = point_stride(big, b.BD, b.BH, b.BW);
    small_ps = point_stride(small, b.SD, b.SH, b.SW);
    small_mat = in_place_ok(small, small_ps);
    big_mat = unit_1x1 && in_place_ok(big, big_ps);
}

conv_bwd::mat_t conv_bwd_views_t::big_m(const conv_bs_geom_t &b, const void *p, float *col, dim_t n,
                                        dim_t gr, dim_t sp0, dim_t len) const {
    return big_mat ? conv_bwd::chan_points(big, big_ps, p, n, gr * b.Cb, sp0)
                   : conv_bwd::mat_t{col, len, 1};
}

conv_bwd::mat_t conv_bwd_views_t::small_m(const conv_bs_geom_t &b, const void *p, float *buf,
                                          dim_t n, dim_t gr, dim_t sp0, dim_t len) const {
    return small_mat ? conv_bwd::chan_points(small, small_ps, p, n, gr * b.Cs, sp0)
                     : conv_bwd::mat_t{buf, len, 1};
}

// Gather: small (Cs x len) = W (Cs x rows) * im2col(big). Scatter: columns
// (rows x len) = W^T (rows x Cs) * small, then col2im; with a 1x1 unit
// kernel the columns are the big tensor itself.
conv_bwd::gemm_call_t gemm_conv_bwd_data_t::pd_t::call(const float *wt, const void *big,
                                                       const void *small, float *col, float *buf,
                                                       dim_t n, dim_t gr, dim_t sp0,
                                                       dim_t len) const {
    const dim_t rows = bs.Cb * bs.KS();
    const float *w = wt ? wt + gr * rows * bs.Cs : nullptr;
    const conv_bwd::mat_t bm = v.big_m(bs, big, col, n, gr, sp0, len),
                          sm = v.small_m(bs, small, buf, n, gr, sp0, len);
    if (bs.deconv) return conv_bwd::orient(bs.Cs, len, rows, {w, rows, 1}, bm, sm);
    // W^T read from wt[cs][(cb, k)]: the GEMM packs it with straight copies
    // (a transposing pack of the whole weights per image cost a tenth).
    return conv_bwd::orient(rows, len, bs.Cs, {w, 1, rows}, sm, bm);
}

status_t gemm_conv_bwd_data_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    if (!is_bwd_d()) return decline(me, "not backward data");
    KESTREL_CHECK(init_common(me));
    bs.init(geom_);
    v.init(bs, bs.deconv ? *diff_dst_md() : *diff_src_md(),
           bs.deconv ? *diff_src_md() : *diff_dst_md(), geom_.is_1x1_unit());
    // The scatter accumulates into the user's f32 diff_src when its points
    // are close enough for that to stay in cache, else into a scratch image.
    into_user = !bs.deconv && !v.big_mat && v.big.dt == dnnl_f32 && v.big_ps != 0 && v.big_ps <= 16;
    const int nthr = max_threads();
    const dim_t rows = bs.Cb * bs.KS();
    // The gather and the 1x1 scatter have independent chunks; the general
    // scatter accumulates a whole big image per item, so it splits by
    // image only.
    chunk = pick_chunk(bs, nthr, bs.deconv || v.big_mat, v.big_mat);
    const dim_t pts = bs.SSP() % chunk == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
    const conv_bwd::gemm_call_t c = call(nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, pts);
    KESTREL_CHECK(plan.init(c.M, c.N, c.K, c.ta, c.tb));
    auto &r = scratchpad_registry();
    if (!bs.deconv && !v.big_mat && !into_user)
        r.book_per_thread(key_acc, (size_t)bs.Cb * bs.BSP() * sizeof(float));
    plan.book(r, key_gemm);
    const mdw_t wd(*weights_md());
    const wei_offsets_t wo(wd, geom_, bs);
    const dim_t KS = bs.KS();
    wei_in_place = !bs.deconv && wd.data_type() == dnnl_f32 && wo.plain && wo.scs == rows
                   && wo.scb == KS && wo.skw == 1 && (geom_.ndims < 4 || wo.skh == bs.KW)
                   && (geom_.ndims < 5 || wo.skd == bs.KH * bs.KW)
                   && (!geom_.with_groups || wo.sg == bs.Cs * rows);
    wei_base = wei_in_place ? wo.base : 0;
    if (!wei_in_place) r.book(key_wt, (size_t)bs.G * rows * bs.Cs * sizeof(float));
    if (!v.big_mat) r.book_per_thread(key_col, (size_t)rows * chunk * sizeof(float));
    if (!v.small_mat) r.book_per_thread(key_small, (size_t)bs.Cs * chunk * sizeof(float));
    return status::success;
}

status_t gemm_conv_bwd_data_t::execute(const exec_ctx_t &ctx) const {
    using namespace conv_bwd;
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const conv_bs_geom_t &b = p->bs;
    const conv_bwd_views_t &v = p->v;
    const mdw_t wei_d(p->weights_md());
    const void *wei = ctx.input(DNNL_ARG_WEIGHTS);
    const void *diff_dst = ctx.input(DNNL_ARG_DIFF_DST);
    void *diff_src = ctx.output(DNNL_ARG_DIFF_SRC);
    const auto &sg = ctx.scratchpad();
    const dim_t KS = b.KS(), rows = b.Cb * KS;
    const data_type_t wdt = wei_d.data_type();
    float *wt_buf = p->wei_in_place ? nullptr : sg.get<float>(key_wt);
    if (!p->wei_in_place && !wt_buf) return status::out_of_memory;
    const float *wt = p->wei_in_place ? static_cast<const float *>(wei) + p->wei_base : wt_buf;

    // Both kinds: wt[g][cs][(cb, k)] (already so when read in place).
    const wei_offsets_t wo(wei_d, g, b);
    if (!p->wei_in_place)
        parallel_nd(b.G, b.Cs, [&](dim_t gr, dim_t cs) {
            float *t = wt_buf + gr * rows * b.Cs;
            for (dim_t cb = 0; cb < b.Cb; ++cb)
                for (dim_t kd = 0; kd < b.KD; ++kd)
                    for (dim_t kh = 0; kh < b.KH; ++kh)
                        for (dim_t kw = 0; kw < b.KW; ++kw) {
                            const float w = load_f32(wdt, wei, wo.off(gr, cs, cb, kd, kh, kw));
                            t[cs * rows + cb * KS + (kd * b.KH + kh) * b.KW + kw] = w;
                        }
        });

    // Convolution: big = diff_src, small = diff_dst. Deconvolution: big =
    // diff_dst, small = diff_src.
    const void *big = b.deconv ? diff_dst : diff_src;
    const void *small = b.deconv ? diff_src : diff_dst;
    const dim_t SSP = b.SSP(), BSP = b.BSP(), chunk = p->chunk, nchunks = div_up(SSP, chunk);

    if (b.deconv || v.big_mat) {
        // Independent chunks: (image, group, chunk of small points).
        auto run = [&](dim_t item, int ithr, bool par) -> status_t {
            const dim_t c = item % nchunks, gr = item / nchunks % b.G, n = item / nchunks / b.G;
            const dim_t sp0 = c * chunk, len = std::min(chunk, SSP - sp0);
            float *col = v.big_mat ? nullptr : sg.get<float>(key_col, ithr);
            float *buf = v.small_mat ? nullptr : sg.get<float>(key_small, ithr);
            if ((!v.big_mat && !col) || (!v.small_mat && !buf)) return status::out_of_memory;
            if (b.deconv) {
                if (!v.big_mat) im2col(b, v.big, v.big_ps, diff_dst, n, gr, sp0, len, col);
            } else if (!v.small_mat) {
                small_chunk_load(b, v.small, v.small_ps, diff_dst, n, gr, sp0, len, buf);
            }
            KESTREL_CHECK(run_gemm(p->plan, p->call(wt, big, small, col, buf, n, gr, sp0, len), 0.f,
                                   par, sg, ithr));
            if (b.deconv && !v.small_mat)
                small_chunk_store(b, v.small, v.small_ps, diff_src, n, gr, sp0, len, buf);
            return status::success;
        };
        return conv_for_items(b.MB * b.G * nchunks, sg, run);
    }

    // A scratch image: channels cb of BSP dense points.
    conv_data_view_t acc_v;
    acc_v.sc = BSP, acc_v.sd = b.BH * b.BW, acc_v.sh = b.BW, acc_v.sw = 1;
    auto run = [&](dim_t item, int ithr, bool par) -> status_t {
        const dim_t gr = item % b.G, n = item / b.G;
        float *col = sg.get<float>(key_col, ithr);
        float *buf = v.small_mat ? nullptr : sg.get<float>(key_small, ithr);
        float *acc = p->into_user ? static_cast<float *>(diff_src) : sg.get<float>(key_acc, ithr);
        if (!col || (!v.small_mat && !buf) || !acc) return status::out_of_memory;
        const conv_data_view_t &tv = p->into_user ? v.big : acc_v;
        const dim_t tps = p->into_user ? v.big_ps : 1, tn = p->into_user ? n : 0,
                    tc0 = p->into_user ? gr * b.Cb : 0;
        // Points [0, zeroed) of the target are zero or accumulating: with one
        // depth plane, big rows are zeroed just before the first chunk that
        // reaches them; with several, the whole image first.
        dim_t zeroed = 0;
        if (b.BD > 1) zero_points(tv, tps, acc, tn, tc0, b.Cb, 0, BSP), zeroed = BSP;
        for (dim_t c = 0; c < nchunks; ++c) {
            const dim_t sp0 = c * chunk, len = std::min(chunk, SSP - sp0);
            const dim_t reach = b.BD > 1 ? 0 : (last_big_row(b, sp0, len) + 1) * b.BW;
            if (reach > zeroed) {
                zero_points(tv, tps, acc, tn, tc0, b.Cb, zeroed, reach);
                zeroed = reach;
            }
            if (!v.small_mat)
                small_chunk_load(b, v.small, v.small_ps, diff_dst, n, gr, sp0, len, buf);
            KESTREL_CHECK(run_gemm(p->plan, p->call(wt, big, small, col, buf, n, gr, sp0, len), 0.f,
                                   par, sg, ithr));
            col2im(b, col, sp0, len, tv, tps, acc, tn, tc0);
        }
        zero_points(tv, tps, acc, tn, tc0, b.Cb, zeroed, BSP); // rows no tap reaches
        if (p->into_user) return status::success;
        for (dim_t cb = 0; cb < b.Cb; ++cb)
            for (dim_t sp = 0; sp < BSP; ++sp) {
                const dim_t w = sp % b.BW, h = sp / b.BW % b.BH, d = sp / (b.BW * b.BH);
                store_f32(v.big.dt, diff_src, v.big.off(n, gr * b.Cb + cb, d, h, w),
                          acc[cb * BSP + sp]);
            }
        return status::success;
    };
    return conv_for_items(b.MB * b.G, sg, run);
}

// --------------------------------------------------------- backward weights

// partial (Cs x rows) += small (Cs x len) * im2col(big)^T (len x rows).
conv_bwd::gemm_call_t gemm_conv_bwd_weights_t::pd_t::call(const void *big, const void *small,
                                                          float *col, float *buf, float *part,
                                                          dim_t n, dim_t gr, dim_t sp0,
                                                          dim_t len) const {
    const dim_t rows = bs.Cb * bs.KS();
    const conv_bwd::mat_t pm =
            part_t ? conv_bwd::mat_t{part, 1, bs.Cs} : conv_bwd::mat_t{part, rows, 1};
    return conv_bwd::orient(bs.Cs, rows, len, v.small_m(bs, small, buf, n, gr, sp0, len),
                            v.big_m(bs, big, col, n, gr, sp0, len).t(), pm);
}

// With both operands in place (a 1x1 kernel over f32 tensors whose
// layouts give op(B) contiguous rows, nxc), packing them chunk by chunk
// cost about as much as the product (nhwc 1x1: the src chunk was copied
// from memory into the packing buffer, then read again): the points are
// cut into equal chunks, as few as keep both operands of a chunk within
// what the GEMM runs with its direct tiles. Each chunk then rereads and
// rewrites the partial diff_weights (Cs x Cb floats): chunks shorter than
// min_direct points are left to the packed path (1024 -> 256 at 14x14,
// chunks of 98 points, was a sixth slower than packing; 256 -> 64 at 56x56
// takes chunks of 392 and gains).
status_t gemm_conv_bwd_weights_t::pd_t::pick_direct_chunks() {
    direct_chunks = false;
    part_t = false;
    if (!v.big_mat || !v.small_mat) return status::success;
    // The GEMM's C rows are the longer side (a B panel of the direct tiles
    // is reused by more A tiles): the partials transposed when the big
    // tensor has more channels.
    part_t = bs.Cb * bs.KS() > bs.Cs;
    constexpr dim_t min_direct = 256;
    const dim_t SSP = bs.SSP();
    auto plan_for = [&](gemm::plan_t &pl, dim_t len, bool &direct) -> status_t {
        const conv_bwd::gemm_call_t c =
                call(nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, len);
        KESTREL_CHECK(pl.init(c.M, c.N, c.K, c.ta, c.tb));
        direct = pl.direct();
        return status::success;
    };
    // Fewest chunks (at least as many as pick_chunk's) whose length runs
    // direct: doubling the count until it does, then backing off while the
    // count just below still does.
    dim_t nch = div_up(SSP, chunk);
    dim_t len = div_up(SSP, nch);
    bool direct = false;
    KESTREL_CHECK(plan_for(plan, len, direct));
    while (!direct && len > min_direct) {
        nch *= 2;
        len = div_up(SSP, nch);
        KESTREL_CHECK(plan_for(plan, len, direct));
    }
    if (!direct || len < std::min(min_direct, SSP)) return part_t = false, status::success;
    const dim_t nch_min = div_up(SSP, chunk);
    for (int step = 0; step < 64 && nch > nch_min; ++step) {
        const dim_t l = div_up(SSP, nch - 1);
        bool d = false;
        KESTREL_CHECK(plan_for(plan_tail, l, d));
        if (!d) break;
        --nch;
        len = l;
    }
    KESTREL_CHECK(plan_for(plan, len, direct));
    if (!direct) return part_t = false, status::success;
    const dim_t last = SSP - (div_up(SSP, len) - 1) * len;
    if (last != len) {
        KESTREL_CHECK(plan_for(plan_tail, last, direct));
        if (!direct) return part_t = false, status::success;
    }
    chunk = len;
    direct_chunks = true;
    return status::success;
}

status_t gemm_conv_bwd_weights_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    if (desc_.prop_kind != dnnl_backward_weights) return decline(me, "not backward weights");
    KESTREL_CHECK(init_common(me));
    bs.init(geom_);
    // Convolution: small = diff_dst, big = src. Deconvolution: small = src,
    // big = diff_dst.
    v.init(bs, bs.deconv ? *diff_dst_md() : *src_md(), bs.deconv ? *src_md() : *diff_dst_md(),
           geom_.is_1x1_unit());
    nthr = max_threads();
    const dim_t rows = bs.Cb * bs.KS();
    chunk = pick_chunk(bs, nthr, true, v.big_mat);
    KESTREL_CHECK(pick_direct_chunks());
    if (!direct_chunks) {
        const dim_t pts = bs.SSP() % chunk == 0 ? chunk : DNNL_RUNTIME_DIM_VAL;
        const conv_bwd::gemm_call_t c =
                call(nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, pts);
        KESTREL_CHECK(plan.init(c.M, c.N, c.K, c.ta, c.tb));
    }
    auto &r = scratchpad_registry();
    r.set_nthr(nthr);
    plan.book(r, key_gemm);
    if (!v.big_mat) r.book_per_thread(key_col, (size_t)rows * chunk * sizeof(float));
    if (!v.small_mat) r.book_per_thread(key_small, (size_t)bs.Cs * chunk * sizeof(float));
    r.book_per_thread(key_part, (size_t)bs.G * bs.Cs * rows * sizeof(float));
    // A convolution's diff_dst is the small tensor the GEMMs read chunk by
    // chunk: its bias gradient is summed in the same sweep, per thread.
    fused_bias = geom_.with_bias && !bs.deconv;
    if (fused_bias) r.book_per_thread(key_bpart, (size_t)bs.G * bs.Cs * sizeof(float));
    return status::success;
}

status_t gemm_conv_bwd_weights_t::execute(const exec_ctx_t &ctx) const {
    using namespace conv_bwd;
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const conv_bs_geom_t &b = p->bs;
    const conv_bwd_views_t &v = p->v;
    const void *src = ctx.input(DNNL_ARG_SRC), *diff_dst = ctx.input(DNNL_ARG_DIFF_DST);
    void *diff_wei = ctx.output(DNNL_ARG_DIFF_WEIGHTS);
    const auto &sg = ctx.scratchpad();
    const dim_t KS = b.KS(), rows = b.Cb * KS, wsize = b.G * b.Cs * rows;
    const dim_t SSP = b.SSP(), chunk = p->chunk, nchunks = div_up(SSP, chunk);
    const dim_t work = b.MB * b.G * nchunks;
    const void *big = b.deconv ? diff_dst : src, *small = b.deconv ? src : diff_dst;

    const int nthr = (int)std::max<dim_t>(1, std::min<dim_t>({max_threads(), sg.nthr(), work}));
    std::atomic<int> failed{(int)status::success};
    parallel(nthr, [&](int ithr, int nt) {
        float *part = sg.get<float>(key_part, ithr);
        float *col = v.big_mat ? nullptr : sg.get<float>(key_col, ithr);
        float *buf = v.small_mat ? nullptr : sg.get<float>(key_small, ithr);
        float *bpart = p->fused_bias ? sg.get<float>(key_bpart, ithr) : nullptr;
        if (!part || (!v.big_mat && !col) || (!v.small_mat && !buf) || (p->fused_bias && !bpart)) {
            failed = (int)status::out_of_memory;
            return;
        }
        std::memset(part, 0, sizeof(float) * wsize);
        if (bpart) std::memset(bpart, 0, sizeof(float) * b.G * b.Cs);
        dim_t s, e;
        balance211(work, nt, ithr, s, e);
        for (dim_t it = s; it < e; ++it) {
            const dim_t c = it % nchunks, gr = it / nchunks % b.G, n = it / nchunks / b.G;
            const dim_t sp0 = c * chunk, len = std::min(chunk, SSP - sp0);
            if (!v.big_mat) im2col(b, v.big, v.big_ps, big, n, gr, sp0, len, col);
            if (!v.small_mat) small_chunk_load(b, v.small, v.small_ps, small, n, gr, sp0, len, buf);
            const status_t st = run_gemm(
                    p->direct_chunks && len != chunk ? p->plan_tail : p->plan,
                    p->call(big, small, col, buf, part + gr * b.Cs * rows, n, gr, sp0, len), 1.f,
                    false, sg, ithr);
            if (st != status::success) failed = (int)st;
            if (bpart) {
                // Rows of the chunk's diff_dst matrix (channels x points).
                const mat_t sm = v.small_m(b, small, buf, n, gr, sp0, len);
                float *pb = bpart + gr * b.Cs;
                for (dim_t cs = 0; cs < b.Cs; ++cs) {
                    const float *row = sm.p + cs * sm.rs;
                    float acc = 0.f;
                    for (dim_t j = 0; j < len; ++j) acc += row[j * sm.cs];
                    pb[cs] += acc;
                }
            }
        }
    });
    if (failed.load() != (int)status::success) return (status_t)failed.load();

    // Sum the partials (always in slot order) into slot 0's, one row of
    // (cb, k) at a time, and store that row into the user's diff_weights.
    const mdw_t dw_d(p->diff_weights_md(0));
    const data_type_t wdt = dw_d.data_type();
    const wei_offsets_t wo(dw_d, g, b);
    if (p->part_t) {
        // Partials stored transposed, [g][(cb, k)][cs].
        parallel_nd(b.G, rows, [&](dim_t gr, dim_t r) {
            const dim_t base = (gr * rows + r) * b.Cs;
            float *acc = sg.get<float>(key_part, 0) + base;
            for (int t = 1; t < nthr; ++t) {
                const float *pt = sg.get<float>(key_part, t) + base;
                for (dim_t i = 0; i < b.Cs; ++i) acc[i] += pt[i];
            }
            const dim_t cb = r / KS, k = r % KS;
            const dim_t kw = k % b.KW, kh = k / b.KW % b.KH, kd = k / (b.KW * b.KH);
            for (dim_t cs = 0; cs < b.Cs; ++cs)
                store_f32(wdt, diff_wei, wo.off(gr, cs, cb, kd, kh, kw), acc[cs]);
        });
    } else {
        parallel_nd(b.G, b.Cs, [&](dim_t gr, dim_t cs) {
            const dim_t base = (gr * b.Cs + cs) * rows;
            float *acc = sg.get<float>(key_part, 0) + base;
            for (int t = 1; t < nthr; ++t) {
                const float *pt = sg.get<float>(key_part, t) + base;
                for (dim_t i = 0; i < rows; ++i) acc[i] += pt[i];
            }
            for (dim_t cb = 0; cb < b.Cb; ++cb)
                for (dim_t kd = 0; kd < b.KD; ++kd)
                    for (dim_t kh = 0; kh < b.KH; ++kh)
                        for (dim_t kw = 0; kw < b.KW; ++kw)
                            store_f32(wdt, diff_wei, wo.off(gr, cs, cb, kd, kh, kw),
                                      acc[cb * KS + (kd * b.KH + kh) * b.KW + kw]);
        });
    }

    if (!g.with_bias) return status::success;
    void *diff_bias = ctx.output(DNNL_ARG_DIFF_BIAS);
    const mdw_t db_d(p->diff_weights_md(1));
    if (p->fused_bias) {
        // Sum the bias partials, in slot order.
        for (dim_t c = 0; c < b.G * b.Cs; ++c) {
            float v = 0.f;
            for (int t = 0; t < nthr; ++t) v += sg.get<float>(key_bpart, t)[c];
            const dim_t pos[1] = {c};
            store_f32(db_d.data_type(), diff_bias, db_d.off_v(pos), v);
        }
        return status::success;
    }
    // Deconvolution: diff_bias[c] = sum of diff_dst (the big tensor) over
    // images and points, one channel per task.
    const conv_data_view_t &dv = b.deconv ? v.big : v.small;
    const dim_t dps = b.deconv ? v.big_ps : v.small_ps;
    const dim_t C = g.OC(), OD = g.OD, OH = g.OH, OW = g.OW, P = OD * OH * OW;
    parallel_nd(C, [&](dim_t c) {
        float v = 0.f;
        if (dps != 0 && dv.dt == dnnl_f32) // points in the same order, one stride
            for (dim_t n = 0; n < g.MB; ++n) {
                const float *chan = static_cast<const float *>(diff_dst) + dv.off(n, c, 0, 0, 0);
                for (dim_t q = 0; q < P; ++q) v += chan[q * dps];
            }
        else
            for (dim_t n = 0; n < g.MB; ++n)
                for (dim_t d = 0; d < OD; ++d)
                    for (dim_t h = 0; h < OH; ++h)
                        for (dim_t w = 0; w < OW; ++w)
                            v += load_f32(dv.dt, diff_dst, dv.off(n, c, d, h, w));
        const dim_t pos[1] = {c};
        store_f32(db_d.data_type(), diff_bias, db_d.off_v(pos), v);
    });
    return status::success;
}

// ------------------------------------------------------------------- lists

const impl_entry_t conv_bwd_data_impl_list[] = {
        {"direct:avx512:nCx16c:bwd_d", make_pd<direct_conv_bwd_data_t::pd_t>},
        {"direct:avx2:nCx8c:bwd_d", make_pd<direct_conv_bwd_data_t::pd_8c_t>},
        {"gemm:col2im:bwd_d", make_pd<gemm_conv_bwd_data_t::pd_t>},
        {nullptr, nullptr},
};
const impl_entry_t deconv_bwd_data_impl_list[] = {
        {"gemm:im2col:deconv_bwd_d", make_pd<gemm_conv_bwd_data_t::pd_t>},
        {nullptr, nullptr},
};
const impl_entry_t conv_bwd_weights_impl_list[] = {
        {"direct:avx512:nCx16c:bwd_w", make_pd<direct_conv_bwd_weights_t::pd_t>},
        {"gemm:im2col:bwd_w", make_pd<gemm_conv_bwd_weights_t::pd_t>},
        {nullptr, nullptr},
};
const impl_entry_t deconv_bwd_weights_impl_list[] = {
        {"gemm:im2col:deconv_bwd_w", make_pd<gemm_conv_bwd_weights_t::pd_t>},
        {nullptr, nullptr},
};

status_t conv_bwd_pd_create(dnnl_primitive_desc **out, dnnl_engine *engine,
                            dnnl_primitive_kind_t kind, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
                            const memory_desc_t *src, const memory_desc_t *weights,
                            const memory_desc_t *bias, const memory_desc_t *dst,
                            const dim_t *strides, const dim_t *dilates, const dim_t *pad_l,
                            const dim_t *pad_r, const dnnl_primitive_desc *hint,
                            const dnnl_primitive_attr *attr) {
    if (hint) {
        const kestrel::pd_t *h = hint->pd();
        if (!h || h->kind() != kind
            || !one_of(h->prop_kind(), dnnl_forward_training, dnnl_forward_inference))
            return status::invalid_arguments;
    }
    conv_desc_t d(kind);
    KESTREL_CHECK(
            conv_desc_init(d, prop, alg, src, weights, bias, dst, strides, dilates, pad_l, pad_r));
    const bool deconv = kind == dnnl_deconvolution;
    impl_list_t list =
            prop == dnnl_backward_data
                    ? (deconv ? deconv_bwd_data_impl_list : conv_bwd_data_impl_list)
                    : (deconv ? deconv_bwd_weights_impl_list : conv_bwd_weights_impl_list);
    return create_pd_handle(out, d, attr, engine, list, hint);
}

} // namespace kestrel
