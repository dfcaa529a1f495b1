// Direct convolution on blocked layouts: problem setup, work split and
// epilogue; the register tiles live in the per-ISA files (see
// direct_conv.hpp).
//
// A work item is a segment of one output row (n, group, group of NOC oc
// blocks, od, oh); a unit 1x1 walks all output points as one row. Threads
// take consecutive items (balance211), so items that share weights run
// together; when all oc groups' weights fit L2, the oc groups of one row
// are consecutive instead (ocg_inner_order), so items that share src rows
// run together. Each tile prefetches the next tile's src and dst lines. Within an item the input channel blocks are taken in passes
// (all of them in one pass unless their weights outgrow L2; a flattened
// 1x1 on blocked data: 8 ic blocks of 16, or 24 KiB of nCx8c weights, which
// stay in L1 while every tile of the segment uses them); partial sums of a segment wait in a per-thread scratchpad row
// between passes. When there are several passes over
// weights too large for L2 (and data is read in place), an item takes a
// block of whole rows instead, each pass running over all of them
// (pick_row_blocks), so the weights of an oc group are fetched once per
// block rather than once per row. The last pass runs the epilogue on each
// tile and stores it (straight from registers when there is no epilogue).
// Channels-first plain data (nchw) gathers each item's src window into
// blocks in a per-thread scratchpad row (the bf16 route's window) and
// stores results channel by channel.
// Channels-last data runs the same way with its own strides; a tile whose
// last oc block has a tail goes through the tile buffer and stores only the
// valid channels, as whole-block stores would spill into the next point's.
#include <algorithm>

#include "cpu/conv/conv_impls.hpp"
#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/kernels.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

constexpr scratchpad::key_t key_partial = 0;
// bf16 src/weights: the f32 copy of the weights (once per execution) and
// each thread's f32 window of src for one work item.
constexpr scratchpad::key_t key_wei_f32 = 1;
constexpr scratchpad::key_t key_src_f32 = 2;
// Channels-last data with plain weights: their blocked copy.
constexpr scratchpad::key_t key_wei_blk = 3;
// Bytes of weights one pass may keep hot in L1 (half of a 48 KiB L1D):
// now only a flattened 1x1 on nCx8c data (not measured against one pass).
constexpr dim_t pass_weights_budget = 24 * 1024;
// Otherwise a tile sums over every input channel before it stores (no
// partial sums) unless a pass's weights would outgrow L2. On Zen 5 (two
// threads, ResNet-50 layers, AVX-512) one pass ran 12-25% faster than
// passes of 24 KiB: a pass of one or two ic blocks per tile call paid the
// call, the accumulators' round trip and the per-tap set-up every 144 FMA
// steps, while weights streaming from L2 keep up with the FMAs. The AVX2
// kernels (nhwc, one core) gained 3-10% on the 3x3 and 1024-channel 1x1
// layers, whose 24 KiB passes held 5 and 48 ic blocks of 8.
constexpr dim_t pass_weights_l2 = 1024 * 1024;
// ... except a flattened 1x1 on blocked data, where each ic block of a
// tile's columns is its own src stream (a plane apart): at most 8 blocks a
// pass. All of them (up to 64) ran 10-30% slower at minibatch 16, where
// src comes from memory; 8 ran 5-10% faster than the 6 of 24 KiB.
constexpr dim_t flat_blocked_icb_pass = 8;
// A tile fetches the src lines of the next tile (of its row, or of the
// next segment of a flattened row) and the dst lines of the next tile
// before it runs, up to this many src lines (20 KiB of a 48 KiB L1D; the
// 384 lines of a 1x1 over 1024 nhwc channels ran 7% slower at minibatch
// 1). On Zen 5 (one core, minibatch 16, src from memory; paired runs in
// one process) the short per-column runs of channels-last data (a 1x1 over
// 256 channels reads 6 columns 1 KiB apart, 16 lines each) left the
// hardware prefetchers behind: 1x1 256-64 at 56 ran 29-37% faster on nhwc
// (AVX2 nhwc 15-37%), 17% on nChw16c (8 planes a pass), 3x3 s2 128-128 at
// 56 nhwc 5-7%, the 7x7 s2 first layer on nChw16c 16%. Channels-last data
// of fewer than 16 channels (columns sharing lines, read in one stream)
// gains nothing and is left alone (a 7x7 over 3 channels ran 3-13% slower),
// and so is an image's src that fits L2 (see pf_src).
constexpr dim_t pf_lines_max = 320;
// Largest segment of a flattened 1x1 row, in columns.
constexpr dim_t flat_seg_cols = 96;
// Bytes of partial sums one thread keeps for a block of rows (L2).
constexpr dim_t partial_budget = 64 * 1024;
// Weights of one oc group above which rows are taken in blocks (half of a
// 1 MiB L2): below it they stay in L2 from one row to the next.
constexpr dim_t group_weights_l2 = 512 * 1024;

format_tag_t data_tag(int ndims, int blk, bool nxc, bool ncx) {
    if (nxc) return ndims == 3 ? dnnl_nwc : ndims == 4 ? dnnl_nhwc : dnnl_ndhwc;
    if (ncx) return ndims == 3 ? dnnl_ncw : ndims == 4 ? dnnl_nchw : dnnl_ncdhw;
    if (blk == 16) return ndims == 3 ? dnnl_nCw16c : ndims == 4 ? dnnl_nChw16c : dnnl_nCdhw16c;
    return ndims == 3 ? dnnl_nCw8c : ndims == 4 ? dnnl_nChw8c : dnnl_nCdhw8c;
}

format_tag_t wei_tag(int ndims, bool groups, int blk) {
    if (blk == 16) {
        if (groups) return ndims == 3 ? dnnl_gOIw16i16o : ndims == 4 ? dnnl_gOIhw16i16o : dnnl_gOIdhw16i16o;
        return ndims == 3 ? dnnl_OIw16i16o : ndims == 4 ? dnnl_OIhw16i16o : dnnl_OIdhw16i16o;
    }
    if (groups) return ndims == 3 ? dnnl_gOIw8i8o : ndims == 4 ? dnnl_gOIhw8i8o : dnnl_gOIdhw8i8o;
    return ndims == 3 ? dnnl_OIw8i8o : ndims == 4 ? dnnl_OIhw8i8o : dnnl_OIdhw8i8o;
}

// Fewer input channels than a block (a first layer's 3): weights without
// input channel blocking, [g]O[d][h]wi<blk>o. A tap's channels are then
// ICg x blk floats apart instead of blk x blk: in 16i16o blocks the 3
// lines a tap uses lie 1 KiB apart, so a 7x7 kernel's weights fall in a
// few L1 sets and miss on every tile.
format_tag_t wei_tag_small_ic(int ndims, bool groups, int blk) {
    if (blk == 16) {
        if (groups) return ndims == 3 ? dnnl_gOwi16o : ndims == 4 ? dnnl_gOhwi16o : dnnl_gOdhwi16o;
        return ndims == 3 ? dnnl_Owi16o : ndims == 4 ? dnnl_Ohwi16o : dnnl_Odhwi16o;
    }
    if (groups) return ndims == 3 ? dnnl_gOwi8o : ndims == 4 ? dnnl_gOhwi8o : dnnl_gOdhwi8o;
    return ndims == 3 ? dnnl_Owi8o : ndims == 4 ? dnnl_Ohwi8o : dnnl_Odhwi8o;
}

// Estimated cycles of one input channel step over a row of `w` columns
// for every oc block: per tile, the FMAs (2 a cycle), the weight loads and
// broadcasts (2 a cycle) or the FMA latency (4 cycles, a chain per
// accumulator), whichever bounds it, plus two for what each tile costs
// besides (loop, per-tap set-up, accumulators in and out). One of
// overhead kept 4 x 6 tiles (6 + 6 + 2) on 14-column rows where 2 x 14
// ran 10-15% faster (Zen 5, one core). A ragged last group of blocks
// runs with the same column count.
double row_cost(dim_t nocb, int noc, int urw, dim_t w) {
    auto step = [](int n, dim_t u) {
        return std::max({(double)n * u / 2, (double)(n + u) / 2, 4.0}) + 2;
    };
    auto groups_of = [&](int n) {
        const dim_t full = w / urw, r = w % urw;
        return (double)full * step(n, urw) + (r ? step(n, r) : 0.0);
    };
    const dim_t rag = nocb % noc;
    return (double)(nocb / noc) * groups_of(noc) + (rag ? groups_of((int)rag) : 0.0);
}

// Register tile for `nocb` oc blocks: as many blocks as divide them evenly
// (up to the ISA's maximum), then the widest row of columns that fits.
// Rows of `w` columns (not flattened) that this tile cuts badly (7 columns
// at 6 per tile leave a tile of one) take the tile of least row_cost()
// instead, when it is clearly cheaper (the estimate is rough).
void pick_tile(int blk, dim_t nocb, dim_t w, int &noc, int &urw) {
    const int max_noc = blk == 16 ? 4 : 3;
    noc = 1;
    for (int n = std::min<dim_t>(max_noc, nocb); n >= 1; --n)
        if (nocb % n == 0) {
            noc = n;
            break;
        }
    if (noc == 1 && nocb > 1) noc = 2; // a ragged last group beats one block at a time
    if (blk == 16) {
        static const int u[] = {0, 24, 12, 8, 6};
        urw = u[noc];
    } else {
        static const int u[] = {0, 12, 6, 4};
        urw = u[noc];
    }
    if (w <= 0) return;
    const double base = row_cost(nocb, noc, urw, w);
    double best = base;
    int bn = noc, bu = urw;
    for (int n = (int)std::min<dim_t>(max_noc, nocb); n >= 1; --n) {
        const int umax = blk == 16 ? direct_conv_16c_max_urw(n) : direct_conv_8c_max_urw(n);
        for (int u = (int)std::min<dim_t>(umax, w); u >= 1; --u) {
            const double cst = row_cost(nocb, n, u, w);
            if (cst < best) best = cst, bn = n, bu = u;
        }
    }
    if (best < 0.95 * base) noc = bn, urw = bu;
}

// Output rows per work item when the weights of an oc group take several
// passes and exceed half of L2: a pass then runs over `rblk` rows, so its
// weights (kept in L2) serve all their columns instead of one row's before
// the next pass replaces them (one row at a time fetched the group's
// weights from L3 again for every row). `outer` items (images x groups x oc groups) of `rows`
// rows each are cut into row blocks of at most `rmax` rows (partial sums
// of a block stay in L2); of those cuts, the fewest blocks that still
// share the rows evenly among `nthr` threads (balance211 over the items,
// as execute() splits them) within 3%, else the most even split.
void pick_row_blocks(dim_t outer, dim_t rows, dim_t rmax, int nthr, dim_t &rblk, dim_t &nrb) {
    rblk = 1, nrb = rows;
    if (rows <= 1) return;
    double best = -1.0;
    for (dim_t want = div_up(rows, std::min(rmax, rows)); want <= rows; ++want) {
        const dim_t rb = div_up(rows, want), n = div_up(rows, rb);
        if (rb * (n - 1) >= rows) continue; // the same cut as a smaller count
        const dim_t items = outer * n;
        // Rows of items [0, i): whole rows of earlier items, then the blocks.
        auto cum = [&](dim_t i) { return (i / n) * rows + std::min(rows, (i % n) * rb); };
        const int nt = (int)std::max<dim_t>(1, std::min<dim_t>(nthr, items));
        dim_t most = 0;
        for (int t = 0; t < nt; ++t) {
            dim_t s, e;
            balance211(items, nt, t, s, e);
            most = std::max(most, cum(e) - cum(s));
        }
        const double eff = (double)(outer * rows) / ((double)most * nthr);
        if (eff > best + 1e-9) best = eff, rblk = rb, nrb = n;
        if (eff >= 0.97) return;
    }
}

// Work items of a row of output points (not a flattened 1x1, not row
// blocks) for every oc group run one after the other, rather than every
// row of an image for one oc group then every row for the next, when
// all oc groups' weights fit L2 together: the src rows a row reads then
// serve every oc group from L2, where the other order read an image's src
// once per oc group (from L3 or memory once it outgrows L2). Zen 5, one
// core, minibatch 16, paired runs in one process: 3x3 s2 128-128 at 56
// 10-14% faster on nhwc (weights 576 KiB, src 1.6 MB an image), 4% on
// nChw16c; 3x3 s2 64-128 at 56 nhwc 10%; 3x3 s1 128-128 at 28 even;
// 256-256 at 14 (2.25 MiB of weights) even, 256-512 s2 at 28 (4.5 MiB)
// 5% slower, hence the bound.
bool ocg_inner_order(const conv_geom_t &g, const direct_conv_conf_t &c) {
    const dim_t wei_all = c.nocb * c.nicb * (dim_t)c.blk * c.blk * g.KD * g.KH * g.KW * (dim_t)sizeof(float);
    return !c.flat && c.rblk == 1 && c.nocb > c.noc && wei_all <= pass_weights_l2;
}

// Range [lo, lo + n) of taps k with 0 <= o0 + k * step < I, for k < K.
void valid_taps(dim_t o0, dim_t step, dim_t K, dim_t I, dim_t &lo, dim_t &n) {
    lo = o0 >= 0 ? 0 : div_up(-o0, step);
    const dim_t hi = I - 1 - o0 < 0 ? 0 : std::min(K, (I - 1 - o0) / step + 1);
    n = std::max<dim_t>(0, hi - lo);
    if (n == 0) lo = 0;
}

inline float to_f32(uint16_t v) { return bf16_to_f32(v); }
inline float to_f32(float v) { return v; }

// Fills the f32 src window of one work item (layout of conf_s: ic block,
// d tap, h tap, column, lane) from s16, the src at (first ic block, first
// valid d/h taps, w 0): bf16 blocked data (lanes contiguous, s_l 1) or
// f32 channels-first data (a lane is a channel plane, s_l apart; lanes
// past the channels of the last block are left alone, the kernels read
// only the valid ones). A row takes the columns [iw_lo, iw_hi) its
// segment reads, at their own w index; a flattened row takes its
// segment's ncols points from col0 on. tpack (f32 planes along a unit w
// stride only; may be nullptr) is the GEMM's transposing pack, which
// moves 16 x 16 blocks through registers.
template <typename T>
void fill_src_window(const direct_conv_conf_t &c, const direct_conv_conf_t &cs, const T *s16, dim_t s_icb,
        dim_t s_l, dim_t last_lanes, dim_t s_kd, dim_t s_kh, dim_t s_w, dim_t nkd, dim_t nkh, dim_t col0,
        dim_t ncols, dim_t SW, dim_t PW, dim_t ext_w, dim_t IW, gemm::pack_fn_t tpack, float *win) {
    const int blk = c.blk;
    dim_t lo = col0, hi = col0 + ncols;
    if (!c.flat) {
        lo = std::max<dim_t>(0, col0 * SW - PW);
        hi = std::min<dim_t>(IW, (col0 + ncols - 1) * SW - PW + ext_w + 1);
    }
    const dim_t dst_w0 = c.flat ? col0 : 0; // buffer column of point col0 / w 0
    for (dim_t icb = 0; icb < c.nicb; ++icb) {
        const dim_t lanes = icb + 1 == c.nicb ? last_lanes : blk;
        for (dim_t kd = 0; kd < nkd; ++kd)
            for (dim_t kh = 0; kh < nkh; ++kh) {
                const T *srow = s16 + icb * s_icb + kd * s_kd + kh * s_kh;
                float *drow = win + icb * cs.s_icb + kd * cs.tap_d + kh * cs.tap_h - dst_w0 * blk;
                if (s_l == 1) {
                    for (dim_t w = lo; w < hi; ++w) {
                        const T *sp = srow + w * s_w;
                        float *dp = drow + w * blk;
                        for (dim_t l = 0; l < lanes; ++l) dp[l] = to_f32(sp[l]);
                    }
                } else if (tpack && s_w == 1) {
                    tpack(reinterpret_cast<const float *>(srow) + lo, s_l, hi - lo, lanes, blk, drow + lo * blk);
                } else {
                    // Plane by plane: each read runs along w.
                    for (dim_t l = 0; l < lanes; ++l) {
                        const T *sp = srow + l * s_l;
                        float *dp = drow + l;
                        for (dim_t w = lo; w < hi; ++w) dp[w * blk] = to_f32(sp[w * s_w]);
                    }
                }
            }
    }
}

// Copies plain weights `u` (any order of dims, offset0 included in the
// pointer) to the blocked layout `b` the kernels read, zeros in the padded
// channels; one task per (group, oc block). With fewer input channels than
// a block `b` has no input channel blocking (wei_tag_small_ic): a tap holds
// ICg rows of blk.
void copy_weights_blocked(const conv_geom_t &g, int blk, const memory_desc_t &umd, const float *u,
        const memory_desc_t &bmd, float *b) {
    const auto &us = umd.blocking.strides, &bs = bmd.blocking.strides;
    const int wg = g.with_groups ? 1 : 0, nd = g.ndims;
    const dim_t u_g = wg ? us[0] : 0, u_o = us[wg], u_i = us[wg + 1];
    const dim_t u_d = nd == 5 ? us[wg + 2] : 0, u_h = nd >= 4 ? us[wg + nd - 2] : 0, u_w = us[wg + nd - 1];
    const dim_t b_g = wg ? bs[0] : 0, b_o = bs[wg], b_i = bs[wg + 1];
    const dim_t b_d = nd == 5 ? bs[wg + 2] : 0, b_h = nd >= 4 ? bs[wg + nd - 2] : 0, b_w = bs[wg + nd - 1];
    const dim_t nocb = div_up(g.OCg, blk), nicb = div_up(g.ICg, blk);
    const dim_t tap_rows = g.ICg < blk ? g.ICg : blk;
    parallel_nd(g.G, nocb, [&](dim_t gr, dim_t ocb) {
        const dim_t noc = std::min<dim_t>(blk, g.OCg - ocb * blk);
        for (dim_t icb = 0; icb < nicb; ++icb) {
            const dim_t nic = std::min<dim_t>(blk, g.ICg - icb * blk);
            for (dim_t kd = 0; kd < g.KD; ++kd)
                for (dim_t kh = 0; kh < g.KH; ++kh)
                    for (dim_t kw = 0; kw < g.KW; ++kw) {
                        float *bp = b + gr * b_g + ocb * b_o + icb * b_i + kd * b_d + kh * b_h + kw * b_w;
                        const float *up = u + gr * u_g + ocb * blk * u_o + icb * blk * u_i + kd * u_d
                                + kh * u_h + kw * u_w;
                        // Zeros first (padded channels), then the valid ones;
                        // hwio-like weights (u_o 1) copy whole rows.
                        std::fill(bp, bp + tap_rows * blk, 0.f);
                        for (dim_t i = 0; i < nic; ++i) {
                            const float *ui = up + i * u_i;
                            float *bi = bp + i * blk;
                            if (u_o == 1)
                                std::copy(ui, ui + noc, bi);
                            else
                                for (dim_t o = 0; o < noc; ++o) bi[o] = ui[o * u_o];
                        }
                    }
        }
    });
}

} // namespace

status_t direct_conv_fwd_t::pd_t::init(dnnl_engine *) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (!isa::has(blk == 16 ? isa::avx512 : isa::avx2)) return decline(me, "instruction set");
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(desc_.alg_kind, dnnl_convolution_direct, dnnl_convolution_auto))
        return decline(me, "algorithm");
    // bf16 src and weights (dst bf16 or f32) run the f32 kernels on f32
    // copies; they take blocked layouts the user chose, `any` staying with
    // the GEMM route's plain layouts.
    bf16 = src_md_.data_type == dnnl_bf16 && weights_md_.data_type == dnnl_bf16
            && one_of(dst_md_.data_type, dnnl_bf16, dnnl_f32)
            && (!g.with_bias || one_of(bias_md_.data_type, dnnl_bf16, dnnl_f32));
    if (!bf16 && (!types_are(dnnl_f32) || (g.with_bias && bias_md_.data_type != dnnl_f32)))
        return decline(me, "data types");
    if (bf16 && (nxc || ncx)) return decline(me, "bf16 plain data");
    // Plain data serves the layout the user chose; `any` data stays with
    // the blocked kernels or, when they decline, the GEMM route's choice.
    if ((nxc || ncx) && (mdw_t(src_md_).is_any() || mdw_t(dst_md_).is_any()))
        return decline(me, "plain data with format any");
    // A unit 1x1 on channels-first data is one GEMM per image, read in place.
    if (ncx && g.is_1x1_unit()) return decline(me, "1x1 on channels-first data");
    if (bf16)
        for (const memory_desc_t *m : {&src_md_, &weights_md_, &dst_md_})
            if (mdw_t(*m).is_any()) return decline(me, "bf16 with format any");
    // Channels-last groups need no block alignment (a group's channels are
    // contiguous, tails read and write only valid channels); one output
    // channel per group (depthwise) would waste all but one lane.
    if (nxc || ncx ? g.G > 1 && g.OCg == 1 : g.G > 1 && (g.ICg % blk || g.OCg % blk))
        return decline(me, "group channels");
    if (status_t st = check_attr(); st != status::success)
        return st == status::unimplemented ? decline(me, "attributes") : st;
    const int nd = g.ndims;
    // `any` weights with fewer input channels than a block take the layout
    // without input channel blocking; weights the user blocked either way
    // are read as they are.
    const format_tag_t dtag = data_tag(nd, blk, nxc, ncx), wtag_blk = wei_tag(nd, g.with_groups, blk);
    const format_tag_t wtag = g.ICg < blk ? wei_tag_small_ic(nd, g.with_groups, blk) : wtag_blk;
    KESTREL_CHECK(set_formats(dtag, wtag));
    if (!mdw_t(src_md_).matches_tag(dtag) || !mdw_t(dst_md_).matches_tag(dtag))
        return decline(me, "layouts");
    wei_copy = !mdw_t(weights_md_).matches_tag(wtag) && !mdw_t(weights_md_).matches_tag(wtag_blk);
    if (wei_copy && (!(nxc || ncx) || !mdw_t(weights_md_).is_plain())) return decline(me, "weights layout");
    if (wei_copy)
        KESTREL_CHECK(md_init_by_tag(wei_blk_md, weights_md_.ndims, weights_md_.dims, dnnl_f32, wtag));
    const memory_desc_t &wmd = wei_copy ? wei_blk_md : weights_md_;
    if (desc_.alg_kind == dnnl_convolution_auto) desc_.alg_kind = dnnl_convolution_direct;

    direct_conv_conf_t &c = conf;
    const auto &ss = mdw_t(src_md_).blk().strides, &ws = mdw_t(wmd).blk().strides;
    const int wg = g.with_groups ? 1 : 0;
    const dim_t s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];
    c.blk = blk;
    c.nicb = div_up(g.ICg, blk);
    c.ic_tail = g.ICg - (c.nicb - 1) * blk;
    c.nocb = div_up(g.OCg, blk);
    c.flat = g.is_1x1_unit();
    pick_tile(blk, c.nocb, c.flat ? 0 : g.OW, c.noc, c.urw);
    c.row = c.flat ? g.OD * g.OH * g.OW : g.OW;
    c.s_icb = nxc || ncx ? blk * ss[1] : ss[1];
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

    // The f32 src window of a bf16 or channels-first problem: per ic block,
    // the KD x KH rows of one output row at full width (columns the segment
    // reads filled), or the segment's points of a flattened row.
    conf_s = c;
    if (bf16 || ncx) {
        const dim_t w_blk = c.flat ? c.seg : g.IW;
        conf_s.tap_w = (g.DW + 1) * blk;
        conf_s.tap_h = w_blk * blk;
        conf_s.tap_d = g.KH * conf_s.tap_h;
        conf_s.s_icb = g.KD * conf_s.tap_d;
        conf_s.s_col = (c.flat ? 1 : g.SW) * blk;
        if (bf16) {
            const mdw_t wd(weights_md_);
            wei_f32_elems = weights_md_.offset0 + (dim_t)(wd.size() / sizeof(uint16_t));
            scratchpad_registry().book(key_base + key_wei_f32, (size_t)wei_f32_elems * sizeof(float));
        }
        scratchpad_registry().book_per_thread(key_base + key_src_f32, (size_t)(c.nicb * conf_s.s_icb) * sizeof(float));
    }

    if (wei_copy) scratchpad_registry().book(key_base + key_wei_blk, mdw_t(wei_blk_md).size());

    const dim_t wei_per_icb = (dim_t)c.noc * blk * blk * g.KD * g.KH * g.KW * (dim_t)sizeof(float);
    if (c.flat && !nxc)
        c.icb_chunk = blk == 8 ? pass_weights_budget / wei_per_icb : flat_blocked_icb_pass;
    else
        c.icb_chunk = pass_weights_l2 / wei_per_icb;
    c.icb_chunk = std::max<dim_t>(1, std::min<dim_t>(c.nicb, c.icb_chunk));
    const dim_t rows_sp = c.flat ? 1 : g.OD * g.OH;
    c.rblk = 1, c.nrb = rows_sp;
    if (c.icb_chunk < c.nicb && wei_per_icb * c.nicb > group_weights_l2 && !c.flat && !(bf16 || ncx)
            && c.nseg == 1)
        pick_row_blocks(g.MB * g.G * div_up(c.nocb, c.noc), rows_sp,
                std::max<dim_t>(1, partial_budget / ((dim_t)c.noc * c.seg * blk * (dim_t)sizeof(float))),
                max_threads(), c.rblk, c.nrb);
    if (c.icb_chunk < c.nicb)
        scratchpad_registry().book_per_thread(
                key_base + key_partial, (size_t)c.noc * c.rblk * c.seg * blk * sizeof(float));
    return status::success;
}

status_t direct_conv_fwd_t::init() {
    KESTREL_CHECK(conv_fwd_prim_t::init());
    if (pd()->blk == 16)
        direct_conv_16c_kernels(ker_);
    else
        direct_conv_8c_kernels(ker_);
    return status::success;
}

bool direct_conv_from_memory(double bytes) {
    const size_t l3 = gemm::host_caches().l3 ? gemm::host_caches().l3 : (size_t)8 << 20;
    return bytes > 0.5 * (double)l3;
}

status_t direct_conv_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const conv_geom_t &g = p->geom();
    const direct_conv_conf_t &c = p->conf;
    const mdw_t src_d(p->src_md()), wei_d(p->wei_copy ? p->wei_blk_md : *p->weights_md()), dst_d(p->dst_md());
    if (dst_d.has_zero_dim()) return status::success;
    const conv_exec_args_t ex(ctx, p, epi_);
    const bool bf = p->bf16, dst_bf = dst_d.data_type() == dnnl_bf16;
    const bool ncx = p->ncx, windowed = bf || ncx;
    // Channels-first windows of 16 lanes go through the GEMM's AVX-512
    // transposing pack.
    const gemm::ukernel_t *uk16 = ncx && c.blk == 16 && isa::has(isa::avx512) ? gemm::f32_gemm_12x32__avx512() : nullptr;
    const gemm::pack_fn_t tpack = uk16 ? uk16->pack_transposing : nullptr;
    const direct_conv_conf_t &cs = p->conf_s; // src strides the kernels see
    const auto &sg = ctx.scratchpad();
    const float *wei = static_cast<const float *>(ex.wei);
    if (bf) {
        // One f32 copy of the weights per execution, same layout.
        float *w32 = sg.get<float>(p->key_base + key_wei_f32);
        if (!w32) return status::out_of_memory;
        const uint16_t *w16 = static_cast<const uint16_t *>(ex.wei);
        const dim_t nw = p->wei_f32_elems;
        parallel(nthr_for(nw / 4096 + 1), [&](int ithr, int nthr) {
            dim_t s, e;
            balance211(nw, nthr, ithr, s, e);
            for (dim_t i = s; i < e; ++i) w32[i] = bf16_to_f32(w16[i]);
        });
        wei = w32;
    } else if (p->wei_copy) {
        float *wb = sg.get<float>(p->key_base + key_wei_blk);
        if (!wb) return status::out_of_memory;
        const memory_desc_t &umd = *p->weights_md();
        copy_weights_blocked(g, c.blk, umd, wei + umd.offset0, p->wei_blk_md, wb);
        wei = wb;
    }

    const int nd = g.ndims, blk = c.blk;
    const auto &ss = src_d.blk().strides, &ds = dst_d.blk().strides;
    const dim_t s_d = nd == 5 ? ss[2] : 0, s_h = nd >= 4 ? ss[nd - 2] : 0, s_w = ss[nd - 1];
    // dst strides: next oc block, next channel in a block, next column.
    const dim_t d_k = p->nxc || ncx ? blk * ds[1] : ds[1], d_c = ncx ? ds[1] : 1, d_w = ds[nd - 1];
    const dim_t nocg = div_up(c.nocb, (dim_t)c.noc);
    const dim_t rows_sp = c.flat ? 1 : g.OD * g.OH;
    const dim_t work = g.MB * g.G * nocg * c.nrb * c.nseg;
    const bool ocg_inner = !windowed && ocg_inner_order(g, c);
    // Software prefetch of the next tile's src lines (read in place) and
    // dst lines (stored from registers): see pf_lines_max. A column of an
    // 8-channel block on blocked data is half a line.
    // Only when an image's src outgrows L2 and the call's data comes from
    // memory (direct_conv_from_memory): the 1x1 1024-256 layer at 14x14
    // (800 KiB an image, nChw16c) ran 6-8% slower at two threads with them.
    const double src_bytes = (double)g.MB * g.IC() * g.ID * g.IH * g.IW * sizeof(float);
    const double dst_bytes = (double)g.MB * g.OC() * g.OD * g.OH * g.OW * sizeof(float);
    const bool pf_src = !windowed && !(p->nxc && s_w < 16) && src_bytes / (double)g.MB > (double)pass_weights_l2
            && direct_conv_from_memory(src_bytes + dst_bytes);
    const dim_t pf_col_step = !p->nxc && !ncx && blk == 8 ? 2 : 1;
    // The next tile's dst lines, with the src ones or on their own.
    const bool pf_dst = pf_src || direct_conv_from_memory(dst_bytes);
    // A lone relu / linear / clip post-op runs in registers at the store.
    int act = direct_act_none;
    float act_a = 0.f, act_b = 0.f;
    const auto &po = p->attr()->post_ops.entries;
    if (!epi_.has_pre() && !epi_.has_post() && !epi_.has_sum() && po.size() == 1
            && po[0].kind == dnnl_eltwise) {
        const dnnl_alg_kind_t alg = po[0].eltwise.alg;
        act = one_of(alg, dnnl_eltwise_relu, dnnl_eltwise_relu_use_dst_for_bwd) ? direct_act_relu
                : alg == dnnl_eltwise_linear                                    ? direct_act_linear
                : one_of(alg, dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_clip_v2_use_dst_for_bwd)
                ? direct_act_clip
                : direct_act_none;
        act_a = po[0].eltwise.alpha, act_b = po[0].eltwise.beta;
    }
    // Stores straight from registers write whole blocks: a channels-last
    // tail would spill into the next group's or point's channels.
    const bool direct_store
            = (epi_.trivial() || act != direct_act_none) && g.OCg % blk == 0 && !dst_bf && !ncx;
    // Blocked dst keeps its padded channels zero; plain data has none.
    const bool store_tail = !p->nxc && !ncx;
    const bool chunked = c.icb_chunk < c.nicb;
    const dim_t ext_w = (g.KW - 1) * (g.DW + 1);

    // dst element access by offset: f32, or bf16 rounded at the store.
    auto load_dst = [&](dim_t off) {
        return dst_bf ? bf16_to_f32(static_cast<const uint16_t *>(ex.dst)[off]) : static_cast<const float *>(ex.dst)[off];
    };
    auto store_dst = [&](const float *v, dim_t off, dim_t n) {
        if (dst_bf) {
            uint16_t *d16 = static_cast<uint16_t *>(ex.dst) + off;
            for (dim_t l = 0; l < n; ++l) d16[l] = f32_to_bf16(v[l]);
        } else {
            std::copy(v, v + n, static_cast<float *>(ex.dst) + off);
        }
    };

    // Columns [col0, col0 + ncols) of row item r (n, group, oc group, row
    // block), at most a segment.
    auto run_item = [&](dim_t r, dim_t col0, dim_t ncols, int ithr, float *tile_buf) -> status_t {
        const row_item_t it = row_item(r, ocg_inner ? row_order_t::ocg_inside_rows : row_order_t::images_outer,
                g.MB, g.G, nocg, c.nrb);
        const dim_t rb = it.row, ocg = it.ocg, gr = it.gr, n = it.n;
        const dim_t sp0 = rb * c.rblk, nsp = std::min(c.rblk, rows_sp - sp0); // rows of the block
        const int noc = (int)std::min<dim_t>(c.noc, c.nocb - ocg * c.noc);
        const dim_t oc_first = gr * g.OCg + ocg * c.noc * blk;
        dim_t pos[max_ndims];
        g.data_pos(pos, n, gr * g.ICg, 0, 0, 0);
        const dim_t src_img = src_d.off_v(pos);
        g.wei_pos(pos, gr, ocg * c.noc * blk, 0, 0, 0, 0);
        const float *wei_grp = wei + wei_d.off_v(pos);
        float *partial = chunked ? sg.get<float>(p->key_base + key_partial, ithr) : nullptr;
        if (chunked && !partial) return status::out_of_memory;
        // Partial sums of row i of the block, column j: partial + (i * seg + j) * blk.
        const dim_t part_k = c.rblk * c.seg * blk;

        direct_tile_args_t t;
        for (dim_t icb0 = 0; icb0 < c.nicb; icb0 += c.icb_chunk) {
            const bool first = icb0 == 0, last = icb0 + c.icb_chunk >= c.nicb;
            t.nicb = std::min(c.icb_chunk, c.nicb - icb0);
            t.ic_last = last ? c.ic_tail : blk;
            for (dim_t ri = 0; ri < nsp; ++ri) {
                const dim_t sp_row = sp0 + ri;
                const dim_t od = c.flat ? 0 : sp_row / g.OH, oh = c.flat ? 0 : sp_row % g.OH;
                dim_t kd_lo = 0, nkd = 1, kh_lo = 0, nkh = 1;
                const dim_t id0 = od * g.SD - g.PD, ih0 = oh * g.SH - g.PH;
                valid_taps(id0, g.DD + 1, g.KD, g.ID, kd_lo, nkd);
                valid_taps(ih0, g.DH + 1, g.KH, g.IH, kh_lo, nkh);
                t.nkd = nkd, t.nkh = nkh;
                // src at the first valid d/h taps, w index 0.
                const dim_t src_off = src_img + (id0 + kd_lo * (g.DD + 1)) * s_d + (ih0 + kh_lo * (g.DH + 1)) * s_h;
                // Then at column 0 (w index -PW for rows).
                const float *src_row;
                if (!windowed) {
                    src_row = static_cast<const float *>(ex.src) + src_off - (c.flat ? 0 : g.PW * s_w);
                } else {
                    // One row per item (rblk 1): the window, filled before the
                    // first pass, serves every pass.
                    float *win = sg.get<float>(p->key_base + key_src_f32, ithr);
                    if (!win) return status::out_of_memory;
                    if (first && bf)
                        fill_src_window(c, cs, static_cast<const uint16_t *>(ex.src) + src_off, ss[1], 1, blk,
                                s_d * (g.DD + 1), s_h * (g.DH + 1), s_w, nkd, nkh, col0, ncols, g.SW, g.PW, ext_w,
                                g.IW, nullptr, win);
                    else if (first)
                        fill_src_window(c, cs, static_cast<const float *>(ex.src) + src_off, c.s_icb, ss[1],
                                c.ic_tail, s_d * (g.DD + 1), s_h * (g.DH + 1), s_w, nkd, nkh, col0, ncols, g.SW,
                                g.PW, ext_w, g.IW, tpack, win);
                    src_row = win - (c.flat ? col0 : g.PW) * blk;
                }
                const float *wei_g = wei_grp + kd_lo * c.w_kd + kh_lo * c.w_kh;
                g.data_pos(pos, n, oc_first, od, oh, 0);
                const dim_t dst_row = dst_d.off_v(pos); // element offset
                float *part_row = chunked ? partial + ri * c.seg * blk : nullptr;
                for (dim_t j0 = 0, urw = 0; j0 < ncols; j0 += urw) {
                    urw = even_tile_width(ncols, c.urw, j0);
                    const dim_t col = col0 + j0;
                    const dim_t iw_lo = col * g.SW - g.PW;
                    const bool check = !c.flat && (iw_lo < 0 || (col + urw - 1) * g.SW - g.PW + ext_w >= g.IW);
                    t.src = src_row + icb0 * cs.s_icb + col * cs.s_col;
                    t.wei = wei_g + icb0 * c.w_icb;
                    t.iw0 = iw_lo;
                    t.acc_in = first ? nullptr : part_row + j0 * blk;
                    t.in_k = part_k, t.in_w = blk;
                    const dim_t out_dst = dst_row + col * d_w; // element offset
                    if (!last) {
                        t.out = part_row + j0 * blk, t.out_k = part_k, t.out_w = blk;
                    } else if (direct_store) {
                        t.out = static_cast<float *>(ex.dst) + out_dst, t.out_k = d_k, t.out_w = d_w;
                    } else {
                        t.out = tile_buf, t.out_k = (dim_t)urw * blk, t.out_w = blk;
                    }
                    t.act = last && direct_store ? act : direct_act_none;
                    t.act_a = act_a, t.act_b = act_b;
                    if (pf_src && (c.flat || j0 + urw < ncols)) {
                        // The next tile's src (a flattened row runs on into
                        // the next segment), each line once.
                        const dim_t nn = c.flat ? c.urw : std::min<dim_t>(c.urw, ncols - j0 - urw);
                        const dim_t span = c.flat ? nn : (nn - 1) * g.SW + ext_w + 1;
                        if (nkd * nkh * t.nicb * span <= pf_lines_max)
                            for (dim_t kd = 0; kd < nkd; ++kd)
                                for (dim_t kh = 0; kh < nkh; ++kh)
                                    for (dim_t icb = 0; icb < t.nicb; ++icb) {
                                        const float *r = t.src + urw * c.s_col + kd * c.tap_d + kh * c.tap_h
                                                + icb * c.s_icb;
                                        for (dim_t x = 0; x < span; x += pf_col_step) __builtin_prefetch(r + x * s_w, 0, 3);
                                    }
                    }
                    if (pf_dst && last && direct_store && (c.flat || j0 + urw < ncols)) {
                        // The next tile's dst, for writing.
                        float *nd = static_cast<float *>(ex.dst) + out_dst + urw * d_w;
                        for (int k = 0; k < noc; ++k)
                            for (int j = 0; j < c.urw; j += (int)pf_col_step) __builtin_prefetch(nd + k * d_k + j * d_w, 1, 3);
                    }
                    ker_.fn[noc][urw][check ? 1 : 0](cs, t);
                    if (!last || direct_store) continue;

                    // Epilogue on the finished tile, then one store.
                    for (int k = 0; k < noc; ++k) {
                        float *v = tile_buf + (dim_t)k * urw * blk;
                        const dim_t c0 = oc_first + k * blk;
                        const dim_t nvalid = std::min<dim_t>(blk, (gr + 1) * g.OCg - c0);
                        const dim_t dk = out_dst + k * d_k;
                        if (!epi_.trivial()) {
                            for (int j = 0; j < urw; ++j) epi_.pre(v + j * blk, nvalid, c0, ex.ea);
                            if (epi_.has_chain()) {
                                float row[direct_kernels_t::max_urw], prev[direct_kernels_t::max_urw];
                                for (dim_t ch = 0; ch < nvalid; ++ch) {
                                    for (int j = 0; j < urw; ++j) {
                                        row[j] = v[j * blk + ch];
                                        if (epi_.has_sum()) prev[j] = load_dst(dk + j * d_w + ch * d_c);
                                    }
                                    // Runs along w: a flattened row is cut where a w-row ends.
                                    for (int j = 0; j < urw;) {
                                        const dim_t pt = col + j;
                                        const dim_t ow = c.flat ? pt % g.OW : pt;
                                        const dim_t len = std::min<dim_t>(urw - j, g.OW - ow);
                                        if (c.flat)
                                            g.data_pos(pos, n, c0 + ch, pt / (g.OW * g.OH), pt / g.OW % g.OH, ow);
                                        else
                                            g.data_pos(pos, n, c0 + ch, od, oh, ow);
                                        ex.ap.apply_row(row + j, prev + j, len, pos);
                                        j += (int)len;
                                    }
                                    for (int j = 0; j < urw; ++j) v[j * blk + ch] = row[j];
                                }
                            }
                            for (int j = 0; j < urw; ++j) epi_.post(v + j * blk, nvalid, c0, ex.ea);
                        }
                        if (ncx) {
                            // Channel by channel: each row of urw columns is contiguous.
                            float *dp = static_cast<float *>(ex.dst) + dk;
                            for (dim_t ch = 0; ch < nvalid; ++ch)
                                for (int j = 0; j < urw; ++j) dp[ch * d_c + j * d_w] = v[j * blk + ch];
                            continue;
                        }
                        for (int j = 0; j < urw; ++j) {
                            // Padded channels of the last block stay zero.
                            std::fill(v + j * blk + nvalid, v + (j + 1) * blk, 0.f);
                            store_dst(v + j * blk, dk + j * d_w, store_tail ? blk : nvalid);
                        }
                    }
                }
            }
        }
        return status::success;
    };

    std::atomic<bool> oom {false};
    int nthr_use = nthr_for(work);
    if (chunked || windowed) nthr_use = std::min(nthr_use, sg.nthr()); // per-slot partial row / src window
    parallel(nthr_use, [&](int ithr, int nthr) {
        alignas(64) float tile_buf[direct_kernels_t::max_noc * direct_kernels_t::max_urw * 16];
        for_row_pieces(c.flat, work, c.row, c.seg, c.nseg, c.urw, nthr, ithr, [&](dim_t r, dim_t col0, dim_t ncols) {
            if (run_item(r, col0, ncols, ithr, tile_buf) != status::success) oom = true;
        });
    });
    return oom ? status::out_of_memory : status::success;
}

} // namespace kestrel
