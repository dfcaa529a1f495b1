// int8 convolution on the int8 GEMM engine. See conv_impls.hpp for the
// formulation; the pieces here are the weights' K order, the byte im2col
// and the epilogue that turns s32 tiles into dst.
#include <algorithm>
#include <cstring>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/gemm/s8_out.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

using s8_pd_t = gemm_s8_conv_fwd_t::pd_t;

// Scratchpad keys: the plan's, then the per-thread column buffer.
constexpr scratchpad::key_t key_plan = 0;
constexpr scratchpad::key_t key_col = gemm::s8_key_count;
// Column buffer budget per thread, in bytes.
constexpr dim_t col_budget = 512 * 1024;

format_tag_t nxc_data_tag(int nd) { return nd == 3 ? dnnl_nwc : nd == 4 ? dnnl_nhwc : dnnl_ndhwc; }

// Weights with the input channel innermost ([g]o[d]hwi), the layout `any`
// gets with channels-last data: B is then rows of K bytes per output
// channel in the column buffer's order.
format_tag_t ic_inner_wei_tag(int nd, bool groups) {
    if (groups) return nd == 3 ? dnnl_abdc : nd == 4 ? dnnl_abdec : dnnl_abdefc;
    return nd == 3 ? dnnl_acb : nd == 4 ? dnnl_acdb : dnnl_acdeb;
}

// Strides of a plain layout for (c, d, h, w) of data, 0 for missing dims.
void data_strides(const mdw_t &m, dim_t &sc, dim_t &sd, dim_t &sh, dim_t &sw) {
    const int nd = m.ndims();
    const auto &s = m.blk().strides;
    sc = s[1];
    sd = nd == 5 ? s[2] : 0;
    sh = nd >= 4 ? s[nd - 2] : 0;
    sw = s[nd - 1];
}

// Decides whether plain weights are one K x OCg matrix per group for the
// K order asked (ic_inner: k = tap * ICg + ic; else k = ic * taps + tap).
// Dims of size 1 do not constrain their stride.
bool wei_as_matrix(const conv_geom_t &g, const mdw_t &w, bool ic_inner, bool &transb, dim_t &ldb) {
    const auto &s = w.blk().strides;
    const int o = g.with_groups ? 1 : 0;
    const int nd = w.ndims();
    const dim_t s_oc = s[o], s_ic = s[o + 1];
    const dim_t s_kw = s[nd - 1], s_kh = g.ndims >= 4 ? s[nd - 2] : 0, s_kd = g.ndims == 5 ? s[o + 2] : 0;
    const dim_t taps = g.KD * g.KH * g.KW, K = g.ICg * taps;
    // (size, stride, position in units of k) of each dim in K.
    struct kdim_t {
        dim_t n, stride, unit;
    } dims[4] = {{g.ICg, s_ic, ic_inner ? 1 : taps}, {g.KW, s_kw, ic_inner ? g.ICg : 1},
            {g.KH, s_kh, (ic_inner ? g.ICg : 1) * g.KW}, {g.KD, s_kd, (ic_inner ? g.ICg : 1) * g.KW * g.KH}};
    dim_t u = 0; // stride of one step of k
    for (const auto &d : dims)
        if (d.n > 1) {
            if (d.stride % d.unit) return false;
            u = d.stride / d.unit;
            break;
        }
    if (K == 1) u = 1;
    if (u <= 0) return false;
    for (const auto &d : dims)
        if (d.n > 1 && d.stride != d.unit * u) return false;
    if (u == 1 && (g.OCg == 1 || s_oc >= K)) { // rows of K per output channel
        transb = true;
        ldb = g.OCg == 1 ? K : s_oc;
        return true;
    }
    if ((g.OCg == 1 || s_oc == 1) && u >= g.OCg) { // K rows of OCg channels
        transb = false;
        ldb = u;
        return true;
    }
    return false;
}

// The column buffer of output points [sp0, sp0 + len) of one image and
// group, as bytes: col[j * K + k] (channels-last, GEMM A row-major) or
// col[k * len + j] (channels-first, A transposed). Taps that fall into
// the padding hold `pad` (the src zero point, so that they add nothing
// once the zero point is taken out).
void im2col_s8(const conv_geom_t &g, const s8_pd_t &p, const uint8_t *src_ng, dim_t s_c, dim_t s_d,
        dim_t s_h, dim_t s_w, dim_t sp0, dim_t len, uint8_t pad, uint8_t *col) {
    const dim_t K = p.K, taps = g.KD * g.KH * g.KW;
    const bool fast = p.nxc && p.ic_inner && s_c == 1;
    for (dim_t j0 = 0; j0 < len;) {
        const dim_t sp = sp0 + j0;
        const dim_t ow0 = sp % g.OW, oh = sp / g.OW % g.OH, od = sp / (g.OW * g.OH);
        const dim_t seg = std::min(len - j0, g.OW - ow0);
        for (dim_t kd = 0; kd < g.KD; ++kd) {
            const dim_t id = od * g.SD - g.PD + kd * (g.DD + 1);
            for (dim_t kh = 0; kh < g.KH; ++kh) {
                const dim_t ih = oh * g.SH - g.PH + kh * (g.DH + 1);
                const bool row_in = id >= 0 && id < g.ID && ih >= 0 && ih < g.IH;
                const uint8_t *srow = src_ng + id * s_d + ih * s_h;
                for (dim_t kw = 0; kw < g.KW; ++kw) {
                    const dim_t tap = (kd * g.KH + kh) * g.KW + kw;
                    for (dim_t j = 0; j < seg; ++j) {
                        const dim_t iw = (ow0 + j) * g.SW - g.PW + kw * (g.DW + 1);
                        const bool in = row_in && iw >= 0 && iw < g.IW;
                        const uint8_t *s = srow + iw * s_w;
                        if (fast) {
                            uint8_t *out = col + (j0 + j) * K + tap * g.ICg;
                            if (in)
                                std::memcpy(out, s, (size_t)g.ICg);
                            else
                                std::memset(out, pad, (size_t)g.ICg);
                            continue;
                        }
                        for (dim_t ic = 0; ic < g.ICg; ++ic) {
                            const dim_t k = p.ic_inner ? tap * g.ICg + ic : ic * taps + tap;
                            col[p.nxc ? (j0 + j) * K + k : k * len + j0 + j] = in ? s[ic * s_c] : pad;
                        }
                    }
                }
            }
        }
        j0 += seg;
    }
}

// s32 tiles (output points x channels of one group) into dst: the src zero
// point through the weights' column sums, then the conv epilogue, dst's
// rounding and saturation.
struct s8_tile_out_t : gemm::s8_epilogue_t {
    const conv_epilogue_t *epi;
    const conv_epilogue_t::args_t *ea;
    const post_ops::applier_t *ap;
    const conv_geom_t *g;
    char *dst_ng; // dst at (image, first channel of the group, point 0)
    data_type_t ddt;
    dim_t sp_stride, oc_stride; // in elements
    dim_t n, oc_base, sp0;

    void apply(dim_t m0, dim_t n0, dim_t m, dim_t nn, const int32_t *acc, dim_t ld, const int32_t *,
            const int32_t *col_sum) const override {
        float t[gemm::s8_max_nr], prev[gemm::s8_max_nr];
        const uint32_t zp = (uint32_t)ea->src_zp;
        const dim_t oc0 = oc_base + n0;
        dim_t pos[max_ndims] = {};
        for (dim_t i = 0; i < m; ++i) {
            const int32_t *a = acc + i * ld;
            if (zp)
                for (dim_t j = 0; j < nn; ++j) t[j] = (float)(int32_t)((uint32_t)a[j] - zp * (uint32_t)col_sum[j]);
            else
                for (dim_t j = 0; j < nn; ++j) t[j] = (float)a[j];
            const dim_t sp = sp0 + m0 + i;
            const dim_t off = sp * sp_stride + n0 * oc_stride;
            if (epi->has_chain()) {
                const dim_t ow = sp % g->OW, oh = sp / g->OW % g->OH, od = sp / (g->OW * g->OH);
                g->data_pos(pos, n, 0, od, oh, ow);
                if (epi->has_sum())
                    for (dim_t j = 0; j < nn; ++j) prev[j] = load_f32(ddt, dst_ng, off + j * oc_stride);
            }
            epi->apply(t, nn, oc0, pos, prev, *ea, *ap);
            if (oc_stride == 1)
                gemm::store_row(ddt, dst_ng, off, t, nn);
            else
                for (dim_t j = 0; j < nn; ++j) store_f32(ddt, dst_ng, off + j * oc_stride, t[j]);
        }
    }
};

} // namespace

status_t gemm_s8_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (!int8_types()) return decline(me, "data types");
    if (status_t st = check_attr(true); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;

    // Layout family from whichever data tensor the user fixed and that
    // tells them apart (one with a single channel is both); channels-last
    // otherwise, as oneDNN picks for int8.
    const int nd = g.ndims;
    const format_tag_t ncx = conv_plain_data_tag(nd), nxc_t = nxc_data_tag(nd);
    nxc = true;
    for (const memory_desc_t *m : {&src_md_, &dst_md_}) {
        const mdw_t d(*m);
        if (d.is_any() || (d.matches_tag(ncx) && d.matches_tag(nxc_t))) continue;
        nxc = !d.matches_tag(ncx);
        break;
    }
    const format_tag_t dtag = nxc ? nxc_t : ncx;
    KESTREL_CHECK(set_formats(dtag,
            nxc ? ic_inner_wei_tag(nd, g.with_groups) : conv_plain_wei_tag(nd, g.with_groups)));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag))
        return decline(me, "data layouts");
    const mdw_t w(weights_md_);
    if (!w.is_plain()) return decline(me, "weights layout");
    // The K order the weights allow; channels-last data prefers ic inner.
    ic_inner = nxc;
    if (!wei_as_matrix(g, w, ic_inner, transb, ldb)) {
        ic_inner = !ic_inner;
        if (!wei_as_matrix(g, w, ic_inner, transb, ldb)) return decline(me, "weights layout");
    }

    K = g.ICg * g.KD * g.KH * g.KW;
    direct = g.is_1x1_unit();
    const dim_t OSP = g.OD * g.OH * g.OW;
    chunk = std::max<dim_t>(16, col_budget / std::max<dim_t>(K, 1) / 16 * 16);
    // Enough items for every thread when the images are few.
    const dim_t nthr = max_threads(), per_item = g.MB * g.G;
    if (per_item * div_up(OSP, chunk) < nthr) chunk = std::max<dim_t>(16, div_up(OSP, div_up(nthr, per_item)));
    chunk = std::min(chunk, OSP);
    KESTREL_CHECK(plan.init(std::max<dim_t>(chunk, 1), g.OCg, K, !nxc, transb, src_md_.data_type == dnnl_s8,
            false, attr_.zero_points.get(DNNL_ARG_SRC) != nullptr, 1));
    plan.book(scratchpad_registry(), key_plan);
    if (!direct) scratchpad_registry().book_per_thread(key_col, (size_t)K * chunk, 64);
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;
    return status::success;
}

status_t gemm_s8_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    // Padding reads the zero point as a src byte; one the src type cannot
    // hold leaves the problem to the reference loop.
    const int32_t zp = ex.ea.src_zp;
    const bool s8 = src_d.data_type() == dnnl_s8;
    const bool zp_fits = s8 ? zp >= -128 && zp <= 127 : zp >= 0 && zp <= 255;
    if (!p->direct && !zp_fits) {
        ref_conv_fwd_run(p, epi_, ex);
        return status::success;
    }
    const uint8_t pad = (uint8_t)zp;
    const auto &sg = ctx.scratchpad();
    const dim_t K = p->K, chunk = p->chunk;
    const dim_t OSP = g.OD * g.OH * g.OW;
    const dim_t nchunks = div_up(OSP, chunk);
    const dim_t work = g.MB * g.G * nchunks;
    dim_t s_c, s_d, s_h, s_w;
    data_strides(src_d, s_c, s_d, s_h, s_w);
    dim_t d_c, d_d, d_h, d_w;
    data_strides(dst_d, d_c, d_d, d_h, d_w);
    const size_t dsz = dst_d.dt_size();

    auto run = [&](dim_t item, int ithr, bool) -> status_t {
        const dim_t c = item % nchunks, gr = item / nchunks % g.G, n = item / nchunks / g.G;
        const dim_t sp0 = c * chunk, len = std::min(chunk, OSP - sp0);
        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * g.ICg, 0, 0, 0);
        const uint8_t *src_ng = static_cast<const uint8_t *>(ex.src) + src_d.off_v(pos);
        g.wei_pos(pos, gr, 0, 0, 0, 0, 0);
        const int8_t *w = static_cast<const int8_t *>(ex.wei) + wei_d.off_v(pos);
        g.data_pos(pos, n, gr * g.OCg, 0, 0, 0);

        s8_tile_out_t ep;
        ep.epi = &epi_, ep.ea = &ex.ea, ep.ap = &ex.ap, ep.g = &g;
        ep.dst_ng = static_cast<char *>(ex.dst) + dst_d.off_v(pos) * dsz;
        ep.ddt = dst_d.data_type();
        ep.sp_stride = p->nxc ? d_w : 1;
        ep.oc_stride = d_c;
        ep.n = n, ep.oc_base = gr * g.OCg, ep.sp0 = sp0;

        const uint8_t *A;
        dim_t lda;
        if (p->direct) { // 1x1, unit stride, no padding: src is A
            A = src_ng + (p->nxc ? sp0 * s_w : sp0);
            lda = p->nxc ? s_w : s_c;
        } else {
            uint8_t *col = sg.get<uint8_t>(key_col, ithr);
            if (!col) return status::out_of_memory;
            im2col_s8(g, *p, src_ng, s_c, s_d, s_h, s_w, sp0, len, pad, col);
            A = col;
            lda = p->nxc ? K : len;
        }
        return p->plan.execute_st(len, A, lda, w, p->ldb, sg, key_plan, ithr, ep);
    };
    return conv_for_items(work, sg, run);
}

} // namespace kestrel
