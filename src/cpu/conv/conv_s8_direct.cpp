// Direct int8 convolution on channels-last data: problem setup, work split,
// the zero point / s8 shift compensation and the epilogue; the register
// tiles and the weights layout are described in conv_s8_direct.hpp.
//
// A work item is a segment of one output row (n, group, group of NOC oc
// blocks, od, oh); a unit 1x1 walks all output points of an image as one
// row, and short rows are walked as their flattened plane (plane tiles).
// Threads take consecutive items (balance211), so items sharing
// weights run together; when all oc groups' weights fit L2, the oc groups
// of one row are consecutive instead (items sharing src rows together). Each tile's s32 sums land in a small buffer on the
// stack and go through the same output stage as the int8 GEMM route at
// once, point by point (the channels of a point are contiguous in dst):
// acc - zp' * (weight sums of the taps summed), conv epilogue (scales,
// bias, post-ops, dst scale and zero point), dst's rounding and
// saturation.
//
// The weight sums are per (group, kd, kh, output channel), over input
// channels and kw; they are rebuilt from the weights at every execution
// (O(weights)) when the compensation is needed (s8 src, or a src zero
// point).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/gemm/s8_out.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

constexpr scratchpad::key_t key_wsum = 0;
constexpr scratchpad::key_t key_fold = 1;
constexpr scratchpad::key_t key_pad = 2;
// A thread's edge window (see window_px): the folded kernels' view of a
// row tile that reaches into the padding.
constexpr scratchpad::key_t key_win = 3;
// Largest segment of a flattened 1x1 row, in columns.
constexpr dim_t flat_seg_cols = 96;
// L2 per core (Zen 5: 1 MiB): the bound for the oc group order below.
constexpr dim_t l2_bytes = 1024 * 1024;

format_tag_t nxc_tag(int nd) { return nd == 3 ? dnnl_nwc : nd == 4 ? dnnl_nhwc : dnnl_ndhwc; }

format_tag_t vnni_wei_tag(int nd, bool groups) {
    if (groups) return nd == 3 ? dnnl_gOIw4i16o4i : nd == 4 ? dnnl_gOIhw4i16o4i : dnnl_gOIdhw4i16o4i;
    return nd == 3 ? dnnl_OIw4i16o4i : nd == 4 ? dnnl_OIhw4i16o4i : dnnl_OIdhw4i16o4i;
}

// Range [lo, lo + n) of taps k with 0 <= o0 + k * step < I, for k < K.
void tap_range(dim_t o0, dim_t step, dim_t K, dim_t I, dim_t &lo, dim_t &n) {
    lo = o0 >= 0 ? 0 : div_up(-o0, step);
    const dim_t hi = I - 1 - o0 < 0 ? 0 : std::min(K, (I - 1 - o0) / step + 1);
    n = std::max<dim_t>(0, hi - lo);
    if (n == 0) lo = 0;
}

// Folded (kw, ic) reduction. With few input channels per group (ICg % 4
// != 0, one block of 16) and src pixels ICg bytes apart, the KW taps of a
// kernel row read KW * ICg consecutive src bytes; summing them as
// div_up(KW * ICg, 4) quads instead of KW partial quads wastes at most 3
// bytes per row instead of up to 3 per tap (the 3-channel first layer
// does 6 vpdpbusd per row instead of 7, none of them masked but the last).
// The tiles run it unchanged as a problem with KW = 1 and ICg' = KW * ICg
// on weights repacked at execution into [g][ocb][kd][kh][q][16o][4]
// (quads of the folded index kw * ICg + ic; bytes past the row are
// zero). Only unchecked tiles fold: a column in the padding would need its
// pad bytes in the middle of the folded row, so checked tiles keep the
// blocked weights and the per-tap walk.
bool fold_ok(const conv_geom_t &g, const s8_direct_conf_t &c, dim_t s_w) {
    return !c.flat && g.KW > 1 && g.DW == 0 && c.nicb == 1 && g.ICg % 4 != 0 && s_w == g.ICg;
}

// The folded problem's configuration; its weights strides describe the
// repacked weights of one group.
s8_direct_conf_t fold_conf(const conv_geom_t &g, const s8_direct_conf_t &c) {
    s8_direct_conf_t f = c;
    f.nicb = 1, f.ic_tail = g.KW * g.ICg;
    f.KW = 1, f.tap_w = 0, f.w_icb = 0, f.w_kw = 0;
    f.w_kh = div_up(f.ic_tail, 4) * 64;
    f.w_kd = g.KH * f.w_kh;
    f.w_ocb = g.KD * f.w_kd;
    return f;
}

// Folded row tiles that reach into the padding along w run on an edge
// window (direct_conv.hpp) whose padded pixels hold the pad byte: they add
// what the checked kernels' pad bytes add, the compensation is unchanged.
size_t window_bytes(const conv_geom_t &g, const s8_direct_conf_t &c) {
    return (size_t)(g.KD * g.KH * window_px(c.urw, g.SW, g.KW, g.DW) * g.ICg);
}

} // namespace

status_t s8_direct_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (ymm ? !isa::has_avx2_vnni() : !isa::has_avx512_vnni()) return decline(me, "instruction set");
    if (ymm) {
        // Measured slower than gemm:s8 (which reads src as it is there) on
        // a unit-stride unpadded 1x1 with the tile this variant has.
        if (g.is_1x1_unit()) return decline(me, "1x1 without padding or stride (gemm:s8 is faster)");
        s8_direct_kernels_t probe;
        if (!s8_direct_avx2_vnni_kernels(probe)) return decline(me, "compiler without AVX-VNNI");
    }
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    if (!int8_types()) return decline(me, "data types");
    // One output channel per group would leave 15 of 16 lanes idle.
    if (g.G > 1 && g.OCg == 1) return decline(me, "depthwise");
    if (status_t st = check_attr(true); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    const int nd = g.ndims;
    const format_tag_t dtag = nxc_tag(nd), wtag = vnni_wei_tag(nd, g.with_groups);
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag))
        return decline(me, "data layouts");
    // Plain weights stay with the GEMM route, which reads them as they are.
    if (!mdw_t(weights_md_).matches_tag(wtag)) return decline(me, "weights layout");
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;

    s8_direct_conf_t &c = conf;
    const auto &ss = mdw_t(src_md_).blk().strides, &ws = mdw_t(weights_md_).blk().strides;
    const int wg = g.with_groups ? 1 : 0;
    const dim_t s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];
    c.shift = src_md_.data_type == dnnl_s8;
    c.nicb = div_up(g.ICg, 16);
    c.ic_tail = g.ICg - (c.nicb - 1) * 16;
    c.nocb = div_up(g.OCg, 16);
    c.flat = g.is_1x1_unit();
    // When the pad byte is surely 0 (u8 src without a zero point), row
    // tiles skip their padded taps (s8_direct_args_t::skip_pad).
    const bool pad_zero = !c.shift && attr_.zero_points.get(DNNL_ARG_SRC) == nullptr;
    // As many oc blocks per tile as divide them evenly, then the widest row.
    c.noc = 1;
    for (int n = (int)std::min<dim_t>(4, c.nocb); n >= 1; --n)
        if (c.nocb % n == 0) {
            c.noc = n;
            break;
        }
    if (c.noc == 1 && c.nocb > 1) c.noc = 2;
    // Four oc blocks take 7 columns (28 accumulators; the compiler keeps
    // two of them on the stack) on skip rows where that saves tiles over
    // 6: Zen 4, 512 channels at 7x7 mb1 / mb16 (one 4x7 tile against two
    // 2x7 ones: half the weight reads from L2 per column) 1.06x / 1.08x.
    // Flattened 1x1 rows and the folded first layer measured no gain.
    const bool wide4 = c.noc == 4 && pad_zero && !c.flat && !fold_ok(g, c, s_w)
            && div_up(g.OW, (dim_t)s8_direct_wide4_urw) < div_up(g.OW, (dim_t)s8_direct_max_urw(4));
    // A short row (not a flattened 1x1) that one tile of fewer oc blocks
    // covers: each weight vector then serves the whole row in one pass
    // instead of two tiles (512 channels at 7x7: the weights stream from
    // L2, and a tile of 6 columns plus one of 1 cost about two passes).
    if (!wide4 && !c.flat && c.noc > 2 && c.nocb % 2 == 0 && g.OW > s8_direct_max_urw(c.noc)
            && g.OW <= s8_direct_max_urw(2))
        c.noc = 2;
    c.urw = wide4 ? s8_direct_wide4_urw : s8_direct_max_urw(c.noc);
    if (ymm) c.noc = 1, c.urw = s8_direct_avx2_max_urw;
    c.row = c.flat ? g.OD * g.OH * g.OW : g.OW;
    c.s_col = c.flat ? s_w : g.SW * s_w;
    c.tap_d = (g.DD + 1) * s_d, c.tap_h = (g.DH + 1) * s_h, c.tap_w = (g.DW + 1) * s_w;
    c.w_ocb = ws[wg + 0];
    c.w_icb = ws[wg + 1];
    c.w_kd = nd == 5 ? ws[wg + 2] : 0;
    c.w_kh = nd >= 4 ? ws[wg + nd - 2] : 0;
    c.w_kw = ws[wg + nd - 1];
    c.KW = g.KW, c.SW = g.SW, c.DW1 = g.DW + 1, c.IW = g.IW;

    // Segments: flattened rows are cut so a segment's src stays in L2;
    // rows are cut further when there are too few items for the threads.
    c.seg = c.flat ? std::min<dim_t>(c.row, rnd_up(flat_seg_cols, c.urw)) : c.row;
    const dim_t rows = g.MB * g.G * div_up(c.nocb, c.noc) * (c.flat ? 1 : g.OD * g.OH);
    const dim_t want = 2 * max_threads();
    if (rows * div_up(c.row, c.seg) < want && c.seg > c.urw) {
        const dim_t per_row = div_up(want, rows);
        c.seg = std::max<dim_t>(c.urw, rnd_up(div_up(c.row, per_row), c.urw));
    }
    c.nseg = div_up(c.row, c.seg);

    // Plane tiles (conv_s8_direct.hpp) when a row fits in one tile and
    // the flattened plane needs fewer tiles than the rows: 512 channels at
    // 7x7 take 5 tiles of 10 columns (the last 9) instead of 7 of 7, i.e.
    // 5 instead of 7 reads of the oc group's weights (from L2) per plane.
    // dst must be dense over the plane (the tile stores its points d_w
    // apart).
    const auto &dsd = mdw_t(dst_md_).blk().strides;
    const dim_t plane_pts = g.OH * g.OW;
    // Row tiles over zero padding skip their padded taps, which plane
    // tiles cannot: then only a plane of at most half the rows' tiles is
    // taken. Zen 4, 3x3 taps, mb16: 512 channels at 7x7 (5 plane tiles
    // against 7 rows) 0.87x as planes, 3x3 (2 against 3) 0.79x, 256 at 4x4
    // 0.75x; 512 at 2x2 (1 against 2) 1.23x.
    const dim_t nt = div_up(plane_pts, (dim_t)c.urw);
    if (!ymm && !c.flat && !fold_ok(g, c, s_w) && g.OH > 1 && g.OW <= c.urw
            && dsd[nd - 2] == g.OW * dsd[nd - 1] && (pad_zero ? 2 * nt <= g.OH : nt < g.OH)) {
        c.plane = true;
        c.row = plane_pts;
        c.urw = (int)div_up(plane_pts, nt);
        c.seg = c.urw, c.nseg = nt;
        c.DH1 = g.DH + 1, c.IH = g.IH;
    }

    // A tile's weights (every tap and ic block of its oc blocks) larger
    // than L1: read them in memory order (512 channels at 7x7: +11%).
    const dim_t taps = g.KD * g.KH * g.KW;
    const size_t tile_wei = (size_t)(c.nicb * 16 * taps * c.noc * 16);
    const size_t l1 = gemm::host_caches().l1 ? gemm::host_caches().l1 : 32 * 1024;
    c.tap_inner = !ymm && c.nicb > 1 && taps <= s8_direct_max_tab_taps && tile_wei > l1;

    // The output stage in registers: no post-ops, f32 (or no) bias, scales
    // and dst zero point only, a dst type the kernels store.
    const quant_entry_t *q;
    fast_out = !ymm && attr_.post_ops.entries.empty() && one_of(dst_md_.data_type, dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8)
            && (!g.with_bias || (bias_md_.data_type == dnnl_f32 && mdw_t(bias_md_).blk().strides[0] == 1));
    with_scale = attr_.scales.get(DNNL_ARG_SRC) || attr_.scales.get(DNNL_ARG_WEIGHTS);
    wei_per_oc = (q = attr_.scales.get(DNNL_ARG_WEIGHTS)) && q->mask != 0;
    with_dscale = (q = attr_.scales.get(DNNL_ARG_DST)) != nullptr;
    dscale_per_oc = with_dscale && q->mask != 0;
    with_dzp = attr_.zero_points.get(DNNL_ARG_DST) != nullptr;

    scratchpad_registry().book(key_pad, (size_t)c.nicb * 16, 64);
    need_comp = c.shift || attr_.zero_points.get(DNNL_ARG_SRC) != nullptr;
    if (need_comp)
        scratchpad_registry().book(key_wsum, (size_t)g.G * g.KD * g.KH * c.nocb * 16 * sizeof(int32_t));
    if (fold_ok(g, c, s_w)) {
        scratchpad_registry().book(key_fold, (size_t)(g.G * c.nocb * fold_conf(g, c).w_ocb), 64);
        scratchpad_registry().book_per_thread(key_win, window_bytes(g, c), 64);
    }
    return status::success;
}

status_t s8_direct_conv_fwd_t::init() {
    KESTREL_CHECK(conv_fwd_prim_t::init());
    if (pd()->ymm) {
        if (!s8_direct_avx2_vnni_kernels(ker_)) return status::unimplemented;
    } else {
        s8_direct_avx512_vnni_kernels(ker_);
    }
    return status::success;
}

status_t s8_direct_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const s8_direct_conf_t &c = p->conf;
    const mdw_t src_d(p->src_md()), wei_d(p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    // The padding byte in the kernels' (u8) view of src; a zero point the
    // src type cannot hold has none, and goes to the reference loop.
    const int32_t zp_u = ex.ea.src_zp + (c.shift ? 128 : 0);
    if (zp_u < 0 || zp_u > 255) {
        ref_conv_fwd_run(p, epi_, ex);
        return status::success;
    }
    const auto &sg = ctx.scratchpad();
    const int8_t *wei = static_cast<const int8_t *>(ex.wei);
    const dim_t taps_dh = g.KD * g.KH, nsum = c.nocb * 16;

    // Weight sums per (group, kd, kh, oc) over ic and kw.
    int32_t *wsum = nullptr;
    if (zp_u != 0) {
        wsum = sg.get<int32_t>(key_wsum);
        if (!wsum) return status::out_of_memory;
        parallel_nd(g.G, c.nocb, [&](dim_t gr, dim_t ocb) {
            dim_t pos[max_ndims];
            g.wei_pos(pos, gr, ocb * 16, 0, 0, 0, 0);
            const int8_t *wb = wei + wei_d.off_v(pos);
            for (dim_t kd = 0; kd < g.KD; ++kd)
                for (dim_t kh = 0; kh < g.KH; ++kh) {
                    int32_t s[16] = {};
                    for (dim_t icb = 0; icb < c.nicb; ++icb) {
                        const dim_t nic = icb + 1 == c.nicb ? c.ic_tail : 16;
                        for (dim_t kw = 0; kw < g.KW; ++kw) {
                            const int8_t *b = wb + icb * c.w_icb + kd * c.w_kd + kh * c.w_kh + kw * c.w_kw;
                            for (dim_t ic = 0; ic < nic; ++ic)
                                for (int l = 0; l < 16; ++l) s[l] += b[(ic / 4) * 64 + l * 4 + ic % 4];
                        }
                    }
                    std::copy(s, s + 16, wsum + (gr * taps_dh + kd * g.KH + kh) * nsum + ocb * 16);
                }
        });
    }

    const int nd = g.ndims;
    const auto &ss = src_d.blk().strides, &ds = dst_d.blk().strides;
    const dim_t s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];

    // The folded weights (see fold_ok): quad q of row (kd, kh) holds the
    // folded indices 4q..4q+3 of each output channel.
    const bool fold = fold_ok(g, c, s_w);
    const s8_direct_conf_t fc = fold ? fold_conf(g, c) : c;
    int8_t *wfold = nullptr;
    if (fold) {
        wfold = sg.get<int8_t>(key_fold);
        if (!wfold) return status::out_of_memory;
        parallel_nd(g.G, c.nocb, [&](dim_t gr, dim_t ocb) {
            dim_t pos[max_ndims];
            g.wei_pos(pos, gr, ocb * 16, 0, 0, 0, 0);
            const int8_t *wb = wei + wei_d.off_v(pos);
            int8_t *fb = wfold + (gr * c.nocb + ocb) * fc.w_ocb;
            std::fill(fb, fb + fc.w_ocb, (int8_t)0);
            for (dim_t kd = 0; kd < g.KD; ++kd)
                for (dim_t kh = 0; kh < g.KH; ++kh)
                    for (dim_t kw = 0; kw < g.KW; ++kw) {
                        const int8_t *b = wb + kd * c.w_kd + kh * c.w_kh + kw * c.w_kw;
                        int8_t *f = fb + kd * fc.w_kd + kh * fc.w_kh;
                        for (dim_t ic = 0; ic < g.ICg; ++ic) {
                            const dim_t e = kw * g.ICg + ic;
                            for (int l = 0; l < 16; ++l)
                                f[(e / 4) * 64 + l * 4 + e % 4] = b[(ic / 4) * 64 + l * 4 + ic % 4];
                        }
                    }
        });
    }
    const dim_t d_w = ds[nd - 1];
    const dim_t nocg = div_up(c.nocb, (dim_t)c.noc);
    const dim_t rows_sp = c.flat ? 1 : c.plane ? g.OD : g.OD * g.OH;
    const dim_t work = g.MB * g.G * nocg * rows_sp * c.nseg;
    const data_type_t ddt = dst_d.data_type();
    const dim_t ext_w = (g.KW - 1) * (g.DW + 1);
    // Items of an output row for every oc group run one after the other
    // (oc groups inside rows) when all oc groups' weights fit L2: the src
    // rows an item reads then serve the other oc groups from L2, where
    // the other order reads an image's src once per oc group. Weights
    // beyond L2 over small images: images inside oc groups (Zen 4, mb16,
    // 3x3 512-512 at 2x2 1.08x, 3x3 1.08x, 7x7 1.01-1.03x).
    const row_order_t order = row_order(c.flat, g.MB, nocg, (double)g.ID * g.IH * g.IW * g.ICg,
            (double)g.KD * g.KH * g.KW * c.nocb * c.nicb * 256, (double)l2_bytes);
    // Padded columns read these bytes as src: flipped like src they are zp'.
    // One per input channel of the group (conv_s8_direct.hpp).
    uint8_t *pad = sg.get<uint8_t>(key_pad);
    if (!pad) return status::out_of_memory;
    std::fill(pad, pad + c.nicb * 16, (uint8_t)(c.shift ? zp_u ^ 0x80 : zp_u));
    const dim_t dsz = (dim_t)dst_d.dt_size();
    // A flattened 1x1 row fetches the next tile's src pixels (a short run
    // of channels per column, which the hardware prefetchers do not follow)
    // when an image's src is over half of L2 and the call's src more than
    // two L2s: Zen 4, 256 -> 64 at 56x56 mb16 1.10-1.13x (in-process
    // toggle, 9 rounds); at mb1 (the src in the threads' L2), 1024 -> 256
    // at 14x14 (200 KB an image) and on 3x3 rows it measured 0.97-1.0x,
    // the first layer's folded 3 channels 0.83x.
    const double img_src = (double)g.ID * g.IH * g.IW * g.ICg;
    const bool pf_src = c.flat && s_w >= 64 && img_src > 0.5 * (double)l2_bytes
            && img_src * (double)g.MB * g.G > 2.0 * (double)l2_bytes;
    const uint8_t *src_b = static_cast<const uint8_t *>(ex.src);
    char *dst_b = static_cast<char *>(ex.dst);
    constexpr int max_oc = s8_direct_kernels_t::max_noc * 16;

    // A thread's per-channel vectors of the last item, reused while the
    // group, oc group and taps summed stay the same (a flattened 1x1 row
    // is many items of one key).
    struct item_vecs_t {
        dim_t key[6] = {-1, -1, -1, -1, -1, -1};
        uint32_t comp[max_oc];
        float scale[max_oc], bias[max_oc], dscale[max_oc];
        bool finite = false;
    };
    // Columns [col0, col0 + ncols) of row item r (an index over n, group,
    // oc group and spatial row); win: the thread's edge window.
    auto run_item = [&](dim_t r, dim_t col0, dim_t ncols, int32_t *buf, item_vecs_t &iv, uint8_t *win) {
        const row_item_t it = row_item(r, order, g.MB, g.G, nocg, rows_sp);
        const dim_t n = it.n, gr = it.gr, ocg = it.ocg, sp_row = it.row;
        const dim_t od = c.flat ? 0 : c.plane ? sp_row : sp_row / g.OH;
        const dim_t oh = c.flat || c.plane ? 0 : sp_row % g.OH;
        const int noc = (int)std::min<dim_t>(c.noc, c.nocb - ocg * c.noc);
        const dim_t oc_l0 = ocg * c.noc * 16; // first channel of the item in the group
        const dim_t nn = std::min<dim_t>(noc * 16, g.OCg - oc_l0); // valid channels
        const dim_t oc0 = gr * g.OCg + oc_l0;

        dim_t kd_lo = 0, nkd = 1, kh_lo = 0, nkh = 1;
        const dim_t id0 = od * g.SD - g.PD, ih0 = oh * g.SH - g.PH;
        tap_range(id0, g.DD + 1, g.KD, g.ID, kd_lo, nkd);
        // Plane tiles check h per column, over every kh tap.
        if (!c.plane) tap_range(ih0, g.DH + 1, g.KH, g.IH, kh_lo, nkh);
        else nkh = g.KH;

        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * g.ICg, 0, 0, 0);
        const dim_t src_off = src_d.off_v(pos) + (id0 + kd_lo * (g.DD + 1)) * s_d
                + (c.plane ? 0 : (ih0 + kh_lo * (g.DH + 1)) * s_h);
        // At column 0 (w index -PW for rows; h = w = 0 for plane tiles);
        // may point before src, never read there.
        const uint8_t *src_row = src_b + src_off - (c.flat || c.plane ? 0 : g.PW * s_w);
        g.wei_pos(pos, gr, oc_l0, 0, 0, 0, 0);
        const int8_t *wei_g = wei + wei_d.off_v(pos) + kd_lo * c.w_kd + kh_lo * c.w_kh;
        const int8_t *wei_f = fold ? wfold + (gr * c.nocb + ocg * c.noc) * fc.w_ocb + kd_lo * fc.w_kd + kh_lo * fc.w_kh
                                   : nullptr;
        g.data_pos(pos, n, oc0, od, oh, 0);
        const dim_t dst_row = dst_d.off_v(pos); // element offset of column 0

        s8_direct_args_t t;
        t.nkd = nkd, t.nkh = nkh, t.pad = pad, t.out = buf, t.fo = nullptr;
        t.skip_pad = zp_u == 0 && !c.plane;
        dim_t col_ih[s8_direct_kernels_t::max_urw], col_iw[s8_direct_kernels_t::max_urw],
                col_off[s8_direct_kernels_t::max_urw];
        t.col_ih = col_ih, t.col_iw = col_iw, t.col_off = col_off;
        // The output stage in registers: its per-channel vectors, as the
        // conv epilogue computes them.
        const dim_t key[6] = {gr, ocg, kd_lo, nkd, kh_lo, nkh};
        const bool fresh = !std::equal(key, key + 6, iv.key);
        uint32_t *comp = iv.comp;
        if (fresh) {
            std::copy(key, key + 6, iv.key);
            std::fill(comp, comp + max_oc, 0u);
            // zp' times the weight sums of the taps summed (mod 2^32, as the
            // sums themselves).
            if (wsum)
                for (dim_t kd = kd_lo; kd < kd_lo + nkd; ++kd)
                    for (dim_t kh = kh_lo; kh < kh_lo + nkh; ++kh) {
                        const int32_t *ws = wsum + (gr * taps_dh + kd * g.KH + kh) * nsum + oc_l0;
                        for (dim_t i = 0; i < nn; ++i) comp[i] += (uint32_t)zp_u * (uint32_t)ws[i];
                    }
        }
        s8_direct_out_t fo;
        if (p->fast_out) {
            if (fresh) {
                const float cs = epi_.common_scale(ex.ea);
                for (dim_t i = 0; i < nn; ++i) {
                    iv.scale[i] = p->wei_per_oc ? cs * ex.ea.wei_scale[oc0 + i] : cs;
                    iv.bias[i] = g.with_bias ? static_cast<const float *>(ex.ea.bias)[p->weights_md(1)->offset0 + oc0 + i]
                                             : 0.f;
                    iv.dscale[i] = p->with_dscale ? ex.ea.dst_scale[p->dscale_per_oc ? oc0 + i : 0] : 1.f;
                }
                iv.finite = !p->with_dzp || std::isfinite(ex.ea.dst_zp);
                for (dim_t i = 0; i < nn; ++i)
                    iv.finite = iv.finite && std::isfinite(iv.scale[i]) && std::isfinite(iv.bias[i])
                            && std::isfinite(iv.dscale[i]) && iv.dscale[i] != 0.f;
            }
            fo.comp = reinterpret_cast<const int32_t *>(comp);
            fo.scale = p->with_scale ? iv.scale : nullptr;
            fo.bias = g.with_bias ? iv.bias : nullptr;
            fo.dscale = p->with_dscale ? iv.dscale : nullptr;
            fo.dzp = ex.ea.dst_zp, fo.with_dzp = p->with_dzp;
            fo.finite = iv.finite;
            fo.kind = ddt == dnnl_f32 ? 0 : ddt == dnnl_s32 ? 1 : ddt == dnnl_s8 ? 2 : 3;
            fo.d_w = d_w * dsz;
            fo.nn = nn;
            t.fo = &fo;
        }
        // Tiles of up to URW columns. With the fold, a tile that reads
        // padding along w runs the folded kernel on its edge window.
        const dim_t col_end = col0 + ncols;
        // The edge windows' configuration: their tap rows are window_px
        // pixels long, one after the other.
        s8_direct_conf_t wc = fc;
        const dim_t pitch = fold ? window_px(c.urw, g.SW, g.KW, g.DW) * g.ICg : 0;
        wc.tap_h = pitch, wc.tap_d = nkh * pitch;
        for (dim_t col = col0; col < col_end; col += c.urw) {
            const int urw = (int)std::min<dim_t>(c.urw, col_end - col);
            const dim_t iw_lo = col * g.SW - g.PW;
            bool check = c.plane || (!c.flat && (iw_lo < 0 || (col + urw - 1) * g.SW - g.PW + ext_w >= g.IW));
            t.src = c.plane ? src_row : src_row + col * c.s_col;
            const bool windowed = fold && check && nkd > 0 && nkh > 0;
            if (windowed) {
                fill_window(win, pitch, t.src, c.tap_d, c.tap_h, nkd, nkh, iw_lo, g.IW,
                        window_px(urw, g.SW, g.KW, g.DW), g.ICg, pad[0]);
                t.src = win;
                check = false;
            }
            if (c.plane)
                for (int j = 0; j < urw; ++j) {
                    const dim_t pt = col + j;
                    col_ih[j] = pt / g.OW * g.SH - g.PH, col_iw[j] = pt % g.OW * g.SW - g.PW;
                    col_off[j] = col_ih[j] * s_h + col_iw[j] * s_w;
                }
            if (pf_src) {
                // The next tile's pixels (of this segment or the next).
                const dim_t ncol = col + urw, nw = std::min<dim_t>(c.urw, c.row - ncol);
                for (dim_t x = 0; x < nw; ++x) pf_read(src_row + (ncol + x) * c.s_col, g.ICg);
            }
            const bool folded = fold && !check;
            const s8_direct_conf_t &tc = windowed ? wc : folded ? fc : c;
            t.wei = folded ? wei_f : wei_g;
            t.iw0 = iw_lo;
            t.out_k = (dim_t)urw * 16;
            // No valid tap along d or h: the sums are zero.
            const bool no_taps = nkd == 0 || nkh == 0;
            const s8_direct_fn_t fn = check && t.skip_pad && ker_.skip[noc][urw] ? ker_.skip[noc][urw]
                                                                                  : ker_.fn[noc][urw][check ? 1 : 0][c.shift ? 1 : 0];
            if (t.fo && !no_taps) {
                fo.dst = dst_b + (dst_row + col * d_w) * dsz;
                fn(tc, t);
                continue;
            }
            if (!no_taps) {
                s8_direct_args_t tb = t;
                tb.fo = nullptr;
                fn(tc, tb);
            } else {
                std::fill(buf, buf + (dim_t)noc * urw * 16, 0);
            }

            // The output stage, one point at a time.
            for (int j = 0; j < urw; ++j) {
                float v[max_oc], prev[max_oc];
                for (dim_t i = 0; i < nn; ++i)
                    v[i] = (float)(int32_t)((uint32_t)buf[(i / 16) * t.out_k + j * 16 + i % 16] - comp[i]);
                const dim_t pt = col + j;
                const dim_t off = dst_row + pt * d_w;
                if (epi_.has_chain()) {
                    if (c.flat)
                        g.data_pos(pos, n, 0, pt / (g.OW * g.OH), pt / g.OW % g.OH, pt % g.OW);
                    else if (c.plane)
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
    if (fold) nthr_use = std::min(nthr_use, sg.nthr()); // a window per booked slot
    parallel(nthr_use, [&](int ithr, int nthr) {
        alignas(64) int32_t buf[max_oc * s8_direct_kernels_t::max_urw];
        item_vecs_t iv;
        uint8_t *win = fold ? sg.get<uint8_t>(key_win, ithr) : nullptr;
        if (fold && !win) {
            failed = true;
            return;
        }
        for_row_pieces(c.flat, work, c.row, c.seg, c.nseg, c.urw, nthr, ithr,
                [&](dim_t r, dim_t col0, dim_t ncols) { run_item(r, col0, ncols, buf, iv, win); });
    });
    return failed ? status::out_of_memory : status::success;
}

} // namespace kestrel
