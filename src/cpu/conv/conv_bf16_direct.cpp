// Direct bf16 convolution on channels-last data: problem setup, work split
// and the epilogue; the register tiles and the weights layout are described
// in conv_bf16_direct.hpp.
//
// A work item is a segment of one output row (n, group, group of NOC oc
// blocks, od, oh); a unit 1x1 walks all output points of an image as one
// row, and so does a problem with short output rows (fewer than two full
// tiles) for each (n, od) plane, its tiles gathering each column's src
// per tap (weights are then reused over wider tiles: 3x3 512->512 at 7x7
// measured 1.3x the row-by-row walk). Threads take consecutive items (balance211), so items sharing
// weights run together; when all oc groups' weights fit L2, the oc groups
// of one row are consecutive instead (items sharing src rows together),
// and each tile prefetches the next tile's lines when an image's src
// outgrows L2 (pf_lines_max). Bias and a lone relu / linear / clip are applied in
// registers and the tile stored straight to dst (f32, or bf16 rounded to
// nearest even); any other epilogue (scales, sum, binary, longer chains)
// runs on the tile's f32 sums, put in a small buffer on the stack, point by
// point through the conv epilogue, as the other routes do.
#include "cpu/conv/conv_bf16_direct.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "cpu/gemm/s8_out.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

// Largest segment of a flattened 1x1 row, in columns.
constexpr dim_t flat_seg_cols = 96;
// L2 per core (Zen 5: 1 MiB): the bound of the prefetch gate and of the oc
// group order.
constexpr dim_t l2_bytes = 1024 * 1024;
// A tile fetches the src lines of the next tile of its row (a flattened
// row runs on into the next segment) and, when it stores from registers,
// the next tile's dst lines, up to this many src lines. Channels-last src
// from memory is read in short per-column runs of channels (a 1x1 over 256
// channels: 6 columns of 8 lines a tile) that the hardware prefetchers do
// not follow. Only when an image's src outgrows L2 (it then comes from L3
// or memory), not for src of under 16 channels a pixel (columns sharing
// lines, read as one stream), not for gathered planes (small images).
constexpr dim_t pf_lines_max = 320;

// The folded weights (conf.fold).
constexpr scratchpad::key_t key_fold = 0;
// A thread's edge window (direct_conv.hpp) for folded rows.
constexpr scratchpad::key_t key_win = 1;

format_tag_t nxc_tag(int nd) { return nd == 3 ? dnnl_nwc : nd == 4 ? dnnl_nhwc : dnnl_ndhwc; }

format_tag_t pair_wei_tag(int nd, bool groups) {
    if (groups) return nd == 3 ? dnnl_gOIw8i16o2i : nd == 4 ? dnnl_gOIhw8i16o2i : dnnl_gOIdhw8i16o2i;
    return nd == 3 ? dnnl_OIw8i16o2i : nd == 4 ? dnnl_OIhw8i16o2i : dnnl_OIdhw8i16o2i;
}

// Range [lo, lo + n) of taps k with 0 <= o0 + k * step < I, for k < K.
void tap_range(dim_t o0, dim_t step, dim_t K, dim_t I, dim_t &lo, dim_t &n) {
    lo = o0 >= 0 ? 0 : div_up(-o0, step);
    const dim_t hi = I - 1 - o0 < 0 ? 0 : std::min(K, (I - 1 - o0) / step + 1);
    n = std::max<dim_t>(0, hi - lo);
    if (n == 0) lo = 0;
}

} // namespace

status_t bf16_direct_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (!isa::has_avx512_bf16()) return decline(me, "instruction set");
    {
        bf16_direct_kernels_t probe;
        if (!bf16_direct_avx512_kernels(probe)) return decline(me, "compiler without AVX512-BF16");
    }
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (src_md_.data_type != dnnl_bf16 || weights_md_.data_type != dnnl_bf16
            || !one_of(dst_md_.data_type, dnnl_bf16, dnnl_f32)
            || (g.with_bias && !one_of(bias_md_.data_type, dnnl_bf16, dnnl_f32)))
        return decline(me, "data types");
    // One output channel per group would leave 15 of 16 lanes idle.
    if (g.G > 1 && g.OCg == 1) return decline(me, "depthwise");
    if (status_t st = check_attr(); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    const int nd = g.ndims;
    const format_tag_t dtag = nxc_tag(nd), wtag = pair_wei_tag(nd, g.with_groups);
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag))
        return decline(me, "data layouts");
    // Plain weights stay with the routes that read them as they are.
    if (!mdw_t(weights_md_).matches_tag(wtag)) return decline(me, "weights layout");
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;

    bf16_direct_conf_t &c = conf;
    const auto &ss = mdw_t(src_md_).blk().strides, &ws = mdw_t(weights_md_).blk().strides;
    const int wg = g.with_groups ? 1 : 0;
    const dim_t s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];
    c.nicb = div_up(g.ICg, 16);
    c.ic_tail = g.ICg - (c.nicb - 1) * 16;
    c.nocb = div_up(g.OCg, 16);
    // As many oc blocks per tile as divide them evenly, then the widest row.
    c.noc = 1;
    for (int n = (int)std::min<dim_t>(4, c.nocb); n >= 1; --n)
        if (c.nocb % n == 0) {
            c.noc = n;
            break;
        }
    if (c.noc == 1 && c.nocb > 1) c.noc = 2;
    c.flat = g.is_1x1_unit();
    // Four oc blocks over 7 columns where that saves row tiles over 6
    // (see the int8 driver; not for the folded first layers' few channels).
    const bool wide4 = c.noc == 4 && !c.flat && g.ICg >= 16
            && div_up(g.OW, (dim_t)bf16_direct_wide4_urw) < div_up(g.OW, (dim_t)bf16_direct_max_urw(4));
    // A short row that one tile of 2 oc blocks covers: each weight vector
    // serves the whole row and the row's tile skips its padded taps, where
    // a gathered plane of 4-block tiles sums them (512 channels at 7x7
    // with 3x3 taps: 18% of the taps are padding).
    if (!wide4 && !c.flat && c.noc > 2 && c.nocb % 2 == 0 && g.OW > bf16_direct_max_urw(c.noc)
            && g.OW <= bf16_direct_max_urw(2))
        c.noc = 2;
    c.urw = wide4 ? bf16_direct_wide4_urw : bf16_direct_max_urw(c.noc);
    // Rows shorter than two full tiles: the (n, od) plane as one row.
    c.gather = !c.flat && g.OW < 2 * c.urw && g.OH > 1 && g.OW > c.urw;
    c.row = c.flat ? g.OD * g.OH * g.OW : c.gather ? g.OH * g.OW : g.OW;
    c.s_col = c.flat ? s_w : g.SW * s_w;
    c.tap_d = (g.DD + 1) * s_d, c.tap_h = (g.DH + 1) * s_h, c.tap_w = (g.DW + 1) * s_w;
    c.w_ocb = ws[wg + 0];
    c.w_icb = ws[wg + 1];
    c.w_kd = nd == 5 ? ws[wg + 2] : 0;
    c.w_kh = nd >= 4 ? ws[wg + nd - 2] : 0;
    c.w_kw = ws[wg + nd - 1];
    c.KW = g.KW, c.SW = g.SW, c.DW1 = g.DW + 1, c.IW = g.IW;
    c.KH = g.KH, c.DH1 = g.DH + 1, c.IH = g.IH, c.s_h = s_h, c.s_w = s_w;

    // Segments: flattened rows are cut so a segment's src stays in L2;
    // rows are cut further when there are too few items for the threads.
    c.seg = c.flat || c.gather ? std::min<dim_t>(c.row, rnd_up(flat_seg_cols, c.urw)) : c.row;
    const dim_t rows = g.MB * g.G * div_up(c.nocb, c.noc) * (c.flat ? 1 : c.gather ? g.OD : g.OD * g.OH);
    const dim_t want = 2 * max_threads();
    if (rows * div_up(c.row, c.seg) < want && c.seg > c.urw) {
        const dim_t per_row = div_up(want, rows);
        c.seg = std::max<dim_t>(c.urw, rnd_up(div_up(c.row, per_row), c.urw));
    }
    c.nseg = div_up(c.row, c.seg);
    c.seg = div_up(c.row, c.nseg); // segments of near-equal length

    // Folded kernel rows: an odd channel count (a lone channel per tap
    // otherwise) in one block, no groups, taps adjacent along w.
    c.fold = g.G == 1 && g.ICg < 16 && g.ICg % 2 == 1 && g.DW == 0 && g.KW > 1 && !c.flat && !c.gather
            && s_w == g.ICg;
    if (c.fold) {
        c.fold_np = div_up(g.KW * g.ICg, 2);
        c.fold_single = (g.KW * g.ICg) % 2 == 1;
        c.fw_kh = c.fold_np * 32;
        c.fw_kd = g.KH * c.fw_kh;
        c.fw_ocb = g.KD * c.fw_kd;
        fold_elems = c.nocb * c.fw_ocb;
        scratchpad_registry().book(key_fold, (size_t)fold_elems * sizeof(uint16_t));
        scratchpad_registry().book_per_thread(
                key_win, (size_t)(g.KD * g.KH * window_px(c.urw, g.SW, g.KW, g.DW) * g.ICg) * sizeof(uint16_t), 64);
    }

    // The output stage in registers: no scales, bias with unit stride, no
    // post-op or one relu / linear / clip.
    const auto &po = attr_.post_ops.entries;
    act = direct_act_none;
    bool po_ok = po.empty();
    if (po.size() == 1 && po[0].kind == dnnl_eltwise) {
        const dnnl_alg_kind_t alg = po[0].eltwise.alg;
        act = one_of(alg, dnnl_eltwise_relu, dnnl_eltwise_relu_use_dst_for_bwd) ? direct_act_relu
                : alg == dnnl_eltwise_linear                                    ? direct_act_linear
                : one_of(alg, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_clip_v2_use_dst_for_bwd)
                ? direct_act_clip
                : direct_act_none;
        act_a = po[0].eltwise.alpha, act_b = po[0].eltwise.beta;
        po_ok = act != direct_act_none;
    }
    fast_out = po_ok && attr_.scales.items.empty()
            && (!g.with_bias || mdw_t(bias_md_).blk().strides[0] == 1);
    return status::success;
}

status_t bf16_direct_conv_fwd_t::init() {
    KESTREL_CHECK(conv_fwd_prim_t::init());
    if (!bf16_direct_avx512_kernels(ker_)) return status::unimplemented;
    return status::success;
}

status_t bf16_direct_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const bf16_direct_conf_t &c = p->conf;
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    const uint16_t *wei = static_cast<const uint16_t *>(ex.wei);

    const int nd = g.ndims;
    const auto &ss = src_d.blk().strides, &ds = dst_d.blk().strides;
    const dim_t s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];
    const dim_t d_w = ds[nd - 1];
    const dim_t nocg = div_up(c.nocb, (dim_t)c.noc);
    const dim_t rows_sp = c.flat ? 1 : c.gather ? g.OD : g.OD * g.OH;
    const dim_t work = g.MB * g.G * nocg * rows_sp * c.nseg;
    const data_type_t ddt = dst_d.data_type();
    const dim_t ext_w = (g.KW - 1) * (g.DW + 1);
    // Items of an output row for every oc group run one after the other
    // (oc groups inside rows) when all oc groups' weights fit L2: the src
    // rows an item reads then serve the other oc groups from L2, where the
    // other order reads an image's src once per oc group.
    // Weights beyond L2 over small images: images inside oc groups (Zen 4,
    // mb16, 3x3 512-512 at 2x2 1.17x, 3x3 1.12x, 7x7 1.01x).
    const row_order_t order = row_order(c.flat, g.MB, nocg, 2.0 * g.ID * g.IH * g.IW * g.ICg,
            2.0 * g.KD * g.KH * g.KW * c.nocb * c.nicb * 256, (double)l2_bytes);
    // The next tile's src and dst lines (see pf_lines_max) when an image's
    // src outgrows L2 and the call's data comes from memory; the dst ones
    // also on their own (direct_conv_from_memory).
    const double src_bytes = (double)g.MB * g.IC() * g.ID * g.IH * g.IW * (double)sizeof(uint16_t);
    const dim_t dsz = (dim_t)dst_d.dt_size();
    const double dst_bytes = (double)g.MB * g.OC() * g.OD * g.OH * g.OW * (double)dsz;
    const bool pf_src = !c.gather && s_w >= 16 && src_bytes / (double)g.MB > (double)l2_bytes
            && direct_conv_from_memory(src_bytes + dst_bytes);
    const bool pf_dst = !c.gather && (pf_src || direct_conv_from_memory(dst_bytes));
    alignas(64) static const uint16_t zero[32] = {};
    const uint16_t *src_b = static_cast<const uint16_t *>(ex.src);
    char *dst_b = static_cast<char *>(ex.dst);
    constexpr int max_oc = bf16_direct_kernels_t::max_noc * 16;
    // Folded weights: value e = 2 q + half of kernel row (kd, kh) is
    // (kw, ic) = (e / IC, e % IC), zero past KW * IC and past OC.
    uint16_t *wfold = nullptr;
    if (c.fold) {
        wfold = ctx.scratchpad().get<uint16_t>(key_fold);
        if (!wfold) return status::out_of_memory;
        const dim_t ne = g.KW * g.ICg;
        dim_t pos0[max_ndims];
        g.wei_pos(pos0, 0, 0, 0, 0, 0, 0);
        const uint16_t *w0 = wei + wei_d.off_v(pos0);
        // One block of 16 ic per oc block: the pair of channel ic at
        // (ic / 2) * 32 + oc * 2 + ic % 2 of each tap's block.
        parallel_nd(c.nocb, g.KD * g.KH, [&](dim_t ocb, dim_t dh) {
            const dim_t kd = dh / g.KH, kh = dh % g.KH;
            uint16_t *w = wfold + ocb * c.fw_ocb + kd * c.fw_kd + kh * c.fw_kh;
            const uint16_t *u = w0 + ocb * c.w_ocb + kd * c.w_kd + kh * c.w_kh;
            const dim_t no = std::min<dim_t>(16, g.OCg - ocb * 16);
            for (dim_t q = 0; q < c.fold_np; ++q)
                for (dim_t o = 0; o < 16; ++o)
                    for (dim_t h = 0; h < 2; ++h) {
                        const dim_t e = 2 * q + h, ic = e % g.ICg;
                        w[q * 32 + o * 2 + h] = e < ne && o < no
                                ? u[e / g.ICg * c.w_kw + (ic / 2) * 32 + o * 2 + ic % 2]
                                : (uint16_t)0;
                    }
        });
    }
    const data_type_t bias_dt = g.with_bias ? p->weights_md(1)->data_type : dnnl_f32;
    const dim_t bias_off0 = g.with_bias ? p->weights_md(1)->offset0 : 0;

    // Columns [col0, col0 + ncols) of row item r (an index over n, group,
    // oc group and spatial row).
    auto run_item = [&](dim_t r, dim_t col0, dim_t ncols, float *buf, uint16_t *win) {
        const row_item_t it = row_item(r, order, g.MB, g.G, nocg, rows_sp);
        const dim_t n = it.n, gr = it.gr, ocg = it.ocg, sp_row = it.row;
        const dim_t od = c.flat ? 0 : c.gather ? sp_row : sp_row / g.OH;
        const dim_t oh = c.flat || c.gather ? 0 : sp_row % g.OH;
        const int noc = (int)std::min<dim_t>(c.noc, c.nocb - ocg * c.noc);
        const dim_t oc_l0 = ocg * c.noc * 16; // first channel of the item in the group
        const dim_t nn = std::min<dim_t>(noc * 16, g.OCg - oc_l0); // valid channels
        const dim_t oc0 = gr * g.OCg + oc_l0;

        dim_t kd_lo = 0, nkd = 1, kh_lo = 0, nkh = 1;
        const dim_t id0 = od * g.SD - g.PD, ih0 = oh * g.SH - g.PH;
        tap_range(id0, g.DD + 1, g.KD, g.ID, kd_lo, nkd);
        if (c.gather)
            nkh = g.KH; // per column, in the kernels
        else
            tap_range(ih0, g.DH + 1, g.KH, g.IH, kh_lo, nkh);

        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * g.ICg, 0, 0, 0);
        const dim_t src_off = src_d.off_v(pos) + (id0 + kd_lo * (g.DD + 1)) * s_d
                + (c.gather ? 0 : (ih0 + kh_lo * (g.DH + 1)) * s_h);
        // At column 0 (w index -PW for rows; h 0, w 0 for gathered planes);
        // may point before src, never read there.
        const uint16_t *src_row = src_b + src_off - (c.flat || c.gather ? 0 : g.PW * s_w);
        g.wei_pos(pos, gr, oc_l0, 0, 0, 0, 0);
        const uint16_t *wei_g = wei + wei_d.off_v(pos) + kd_lo * c.w_kd + kh_lo * c.w_kh;
        const uint16_t *wf_g = c.fold ? wfold + ocg * c.noc * c.fw_ocb + kd_lo * c.fw_kd + kh_lo * c.fw_kh : nullptr;
        g.data_pos(pos, n, oc0, od, oh, 0);
        const dim_t dst_row = dst_d.off_v(pos); // element offset of column 0

        bf16_direct_args_t t;
        t.nkd = nkd, t.nkh = nkh, t.zero = zero, t.out = buf, t.fo = nullptr;
        dim_t col_ih[bf16_direct_kernels_t::max_urw], col_iw[bf16_direct_kernels_t::max_urw];
        if (c.gather) t.col_ih = col_ih, t.col_iw = col_iw;
        bf16_direct_out_t fo;
        alignas(64) float f_bias[max_oc];
        if (p->fast_out) {
            if (g.with_bias)
                for (dim_t i = 0; i < nn; ++i) f_bias[i] = load_f32(bias_dt, ex.ea.bias, bias_off0 + oc0 + i);
            fo.bias = g.with_bias ? f_bias : nullptr;
            fo.act = p->act, fo.act_a = p->act_a, fo.act_b = p->act_b;
            fo.dst_bf16 = ddt == dnnl_bf16;
            fo.d_w = d_w * dsz;
            fo.nn = nn;
            t.fo = &fo;
        }
        // No valid tap along d or h: the sums are zero (and the kernels
        // are not called, their loops would not run anyway).
        const bool no_taps = nkd == 0 || nkh == 0;
        // Folded rows' edge tiles: the window's tap rows, pitch apart.
        bf16_direct_conf_t wc = c;
        const dim_t pitch = c.fold ? window_px(c.urw, g.SW, g.KW, g.DW) * g.ICg : 0;
        wc.tap_h = pitch, wc.tap_d = nkh * pitch;
        // Tiles of near-equal width: a narrow last tile would have too few
        // accumulators to hide vdpbf16ps's latency.
        for (dim_t j0 = 0; j0 < ncols;) {
            const int urw = (int)even_tile_width(ncols, c.urw, j0);
            const dim_t col = col0 + j0;
            j0 += urw;
            const dim_t iw_lo = col * g.SW - g.PW;
            bool check = !c.flat && (iw_lo < 0 || (col + urw - 1) * g.SW - g.PW + ext_w >= g.IW);
            t.src = src_row + col * c.s_col;
            if (c.gather) {
                for (int j = 0; j < urw; ++j) {
                    const dim_t pt = col + j;
                    col_ih[j] = pt / g.OW * g.SH - g.PH;
                    col_iw[j] = pt % g.OW * g.SW - g.PW;
                }
                check = true;
                t.src = src_row;
            }
            // The next tile (of the row, or of a flattened row's next
            // segment): its src lines (each tap row's pixels inside src)
            // and, when it stores from registers, its dst lines.
            const dim_t ncol = col + urw;
            const dim_t nw = !pf_dst || no_taps ? 0
                    : j0 < ncols           ? even_tile_width(ncols, c.urw, j0)
                    : c.flat               ? std::min<dim_t>(c.urw, c.row - ncol)
                                           : 0;
            if (nw > 0) {
                dim_t px0 = 0, npx = nw; // pixels of a tap row, from the tile's column 0
                if (!c.flat) {
                    const dim_t iw0 = ncol * g.SW - g.PW;
                    const dim_t lo = std::max<dim_t>(0, iw0), hi = std::min<dim_t>(g.IW, iw0 + (nw - 1) * g.SW + ext_w + 1);
                    px0 = lo - iw0, npx = hi - lo;
                }
                const dim_t pix = g.ICg * (dim_t)sizeof(uint16_t);
                const bool dense = s_w == g.ICg;
                const dim_t row_lines = dense ? npx * pix / 64 + 2 : npx * (pix / 64 + 2);
                if (pf_src && npx > 0 && nkd * nkh * row_lines <= pf_lines_max)
                    for (dim_t kd = 0; kd < nkd; ++kd)
                        for (dim_t kh = 0; kh < nkh; ++kh) {
                            const uint16_t *r0 = src_row + ncol * c.s_col + kd * c.tap_d + kh * c.tap_h + px0 * s_w;
                            if (dense)
                                pf_read(r0, npx * pix);
                            else
                                for (dim_t x = 0; x < npx; ++x) pf_read(r0 + x * s_w, pix);
                        }
                if (t.fo)
                    for (dim_t j = 0; j < nw; ++j)
                        pf_write(dst_b + (dst_row + (ncol + j) * d_w) * dsz, nn * dsz);
            }
            const bool windowed = c.fold && check && !no_taps;
            if (windowed) {
                fill_window(win, pitch, t.src, c.tap_d, c.tap_h, nkd, nkh, iw_lo, g.IW,
                        window_px(urw, g.SW, g.KW, g.DW), g.ICg, (uint16_t)0);
                t.src = win;
                check = false;
            }
            const bool folded = c.fold && !check;
            const bf16_direct_fn_t fn = folded ? ker_.fold[noc][urw]
                    : c.flat                      ? ker_.flat[noc][urw]
                    : c.gather                    ? ker_.fn[noc][urw][1]
                    : check                       ? ker_.skip[noc][urw]
                                                  : ker_.fn[noc][urw][0];
            t.wei = folded ? wf_g : wei_g;
            t.iw0 = iw_lo;
            t.out_k = (dim_t)urw * 16;
            const bf16_direct_conf_t &tc = windowed ? wc : c;
            if (t.fo) {
                fo.dst = dst_b + (dst_row + col * d_w) * dsz;
                fn(tc, t);
                continue;
            }
            if (!no_taps) {
                fn(tc, t);
            } else {
                std::fill(buf, buf + (dim_t)noc * urw * 16, 0.f);
            }

            // The epilogue, one point at a time.
            for (int j = 0; j < urw; ++j) {
                float v[max_oc], prev[max_oc];
                for (dim_t i = 0; i < nn; ++i) v[i] = buf[(i / 16) * t.out_k + j * 16 + i % 16];
                const dim_t pt = col + j;
                const dim_t off = dst_row + pt * d_w;
                if (epi_.has_chain()) {
                    if (c.flat)
                        g.data_pos(pos, n, 0, pt / (g.OW * g.OH), pt / g.OW % g.OH, pt % g.OW);
                    else if (c.gather)
                        g.data_pos(pos, n, 0, od, pt / g.OW, pt % g.OW);
                    else
                        g.data_pos(pos, n, 0, od, oh, pt);
                    if (epi_.has_sum())
                        for (dim_t i = 0; i < nn; ++i) prev[i] = load_f32(ddt, dst_b, off + i);
                }
                if (!epi_.trivial()) epi_.apply(v, nn, oc0, pos, prev, ex.ea, ex.ap);
                gemm::store_row(ddt, dst_b, off, v, nn);
            }
        }
    };

    std::atomic<bool> failed {false};
    int nthr_use = nthr_for(work);
    if (c.fold) nthr_use = std::min(nthr_use, ctx.scratchpad().nthr()); // a window per booked slot
    parallel(nthr_use, [&](int ithr, int nthr) {
        alignas(64) float buf[max_oc * bf16_direct_kernels_t::max_urw];
        uint16_t *win = c.fold ? ctx.scratchpad().get<uint16_t>(key_win, ithr) : nullptr;
        if (c.fold && !win) {
            failed = true;
            return;
        }
        for_row_pieces(c.flat, work, c.row, c.seg, c.nseg, c.urw, nthr, ithr,
                [&](dim_t r, dim_t col0, dim_t ncols) { run_item(r, col0, ncols, buf, win); });
    });
    return failed ? status::out_of_memory : status::success;
}

} // namespace kestrel
