// Direct convolution on blocked layouts: the contract between the portable
// driver (direct_conv.cpp) and the per-ISA register-tile kernels
// (direct_conv_avx512.cpp: nCx16c, direct_conv_avx2.cpp: nCx8c). The same
// tiles serve channels-last data (nwc/nhwc/ndhwc): a block's channels are
// contiguous there too, only the strides differ (next ic block: blk, next
// column: C * SW, next oc block of the output: blk, next output column: OC).
//
// A tile is URW output columns (consecutive points along w, or along the
// flattened spatial dims of a unit 1x1) by NOC blocks of `blk` output
// channels, held in NOC * URW vector registers. For each input channel the
// kernel loads NOC weight vectors (blk output channels each, contiguous in
// [g]OIx<blk>i<blk>o) and broadcasts one src value per column, then does
// NOC * URW FMAs. It sums over a range of input channel blocks and over
// every tap the caller says lies inside src along d and h; along w,
// unchecked tiles have every column's receptive field inside src, checked
// tiles work out per tap the run of columns whose src point is inside and
// skip the others' FMAs (padding adds nothing).
#ifndef KESTREL_CPU_CONV_DIRECT_CONV_HPP
#define KESTREL_CPU_CONV_DIRECT_CONV_HPP

#include <algorithm>
#include <cstdint>

#include "core/common.hpp"
#include "cpu/prefetch.hpp"

namespace kestrel {

// Fixed for one primitive (element strides and sizes).
struct direct_conv_conf_t {
    int blk = 16; // channels per block
    int noc = 1, urw = 1; // register tile: blocks of oc x columns
    bool flat = false; // 1x1 unit: spatial dims walked as one row
    dim_t nicb = 0, ic_tail = 0; // ic blocks per group, valid channels in the last
    dim_t icb_chunk = 0; // ic blocks per pass (partial sums kept between passes)
    dim_t nocb = 0; // oc blocks per group
    dim_t row = 0, seg = 0, nseg = 1; // columns per row, per segment, segments
    dim_t rblk = 1, nrb = 1; // output rows (od, oh) per work item, row blocks
    dim_t s_icb = 0, s_col = 0; // src: next ic block, next column (stride included)
    dim_t tap_d = 0, tap_h = 0, tap_w = 0; // src step between kernel taps
    dim_t w_ocb = 0, w_icb = 0, w_kd = 0, w_kh = 0, w_kw = 0; // weights strides
    dim_t KW = 1, SW = 1, DW1 = 1, IW = 1; // for checked tiles
};

// One call.
struct direct_tile_args_t {
    const float *src; // src at (n, first ic block, first valid d/h tap, column 0, tap kw 0)
    const float *wei; // weights at (g, first oc block, first ic block, first valid kd/kh, kw 0)
    const float *acc_in; // partial sums to continue from ([k * in_k + j * in_w]), or nullptr
    float *out; // results [k * out_k + j * out_w + lane]
    dim_t in_k, in_w, out_k, out_w;
    dim_t nicb; // ic blocks to sum
    dim_t ic_last; // valid channels in the last of them
    dim_t nkd, nkh; // valid taps along d and h
    dim_t iw0; // src w index of column 0 at tap kw 0 (checked tiles)
    // An eltwise post-op applied in registers before the store (the whole
    // epilogue, when it is this one op): direct_act_* with its alpha, beta.
    int act = 0;
    float act_a = 0.f, act_b = 0.f;
};

enum direct_act_t { direct_act_none = 0, direct_act_relu, direct_act_linear, direct_act_clip };

using direct_tile_fn_t = void (*)(const direct_conv_conf_t &, const direct_tile_args_t &);

// The kernels of one ISA, looked up once when a primitive is created.
struct direct_kernels_t {
    static constexpr int max_noc = 4, max_urw = 24;
    direct_tile_fn_t fn[max_noc + 1][max_urw + 1][2] = {}; // [noc][urw][checked]
};

// Register tiles along a row of n columns, at most w wide, as even as
// possible (56 at 6: six of 6 and four of 5, not nine of 6 and one of 2,
// whose few columns leave the tile's weight loads and accumulator chains
// short): the width of the tile starting at column j0 of the row.
inline dim_t even_tile_width(dim_t n, dim_t w, dim_t j0) {
    const dim_t nt = (n + w - 1) / w, base = n / nt, wide = n % nt; // the first `wide` tiles get base + 1
    return j0 < wide * (base + 1) ? base + 1 : base;
}

// The order of a direct convolution's row items: r counts (image, group,
// oc group, spatial row) with the row fastest (images_outer), the oc group
// fastest (ocg_inside_rows: every oc group's weights in L2, the src rows an
// item reads serve the others from there), or the image just outside the
// row (images_inside_ocg: an oc group's weights, from L2, serve every
// image before the next group's are read; for weights beyond L2 over
// small images, which otherwise stream all the weights once per image).
enum class row_order_t { images_outer, ocg_inside_rows, images_inside_ocg };

// The order for weights of wei_bytes over images of img_src_bytes (an
// image's src): oc groups inside rows while the weights fit L2;
// beyond, images inside oc groups when an image's src, read once per oc
// group, is less than the weights, read once per image in the other orders.
inline row_order_t row_order(bool flat, dim_t MB, dim_t nocg, double img_src_bytes, double wei_bytes, double l2) {
    if (flat || nocg < 2) return row_order_t::images_outer;
    if (wei_bytes <= l2) return row_order_t::ocg_inside_rows;
    return MB > 1 && img_src_bytes * (double)nocg < wei_bytes ? row_order_t::images_inside_ocg
                                                              : row_order_t::images_outer;
}

struct row_item_t {
    dim_t n, gr, ocg, row;
};

inline row_item_t row_item(dim_t r, row_order_t o, dim_t MB, dim_t G, dim_t nocg, dim_t rows) {
    row_item_t it;
    switch (o) {
    case row_order_t::ocg_inside_rows:
        it.ocg = r % nocg, r /= nocg;
        it.row = r % rows, r /= rows;
        it.gr = r % G, it.n = r / G;
        break;
    case row_order_t::images_inside_ocg:
        it.row = r % rows, r /= rows;
        it.n = r % MB, r /= MB;
        it.ocg = r % nocg, it.gr = r / nocg;
        break;
    default:
        it.row = r % rows, r /= rows;
        it.ocg = r % nocg, r /= nocg;
        it.gr = r % G, it.n = r / G;
        break;
    }
    return it;
}

// A thread's share of a direct convolution's work: f(r, col0, ncols) for
// each piece, r a row item (n, group, oc group, spatial row; `work` is
// their count times nseg), the columns [col0, col0 + ncols) of it.
// Rows are cut into nseg segments of seg columns, shared out whole; a
// flattened 1x1 row (flat) is shared out in tiles of urw columns instead
// (a segment's imbalance is 3% of a 56x56 image on two threads) and walked
// in pieces of whole tiles, at most a segment (at least one tile), which may
// start and end inside a row.
template <typename F>
void for_row_pieces(bool flat, dim_t work, dim_t row, dim_t seg, dim_t nseg, dim_t urw, int nthr, int ithr,
        const F &f) {
    dim_t s, e;
    if (!flat) {
        balance211(work, nthr, ithr, s, e);
        for (dim_t it = s; it < e; ++it) {
            const dim_t col0 = it % nseg * seg;
            f(it / nseg, col0, std::min(seg, row - col0));
        }
        return;
    }
    const dim_t row_tiles = (row + urw - 1) / urw, seg_tiles = std::max<dim_t>(1, seg / urw);
    balance211(work / nseg * row_tiles, nthr, ithr, s, e);
    for (dim_t it = s; it < e;) {
        const dim_t r = it / row_tiles, t0 = it % row_tiles;
        const dim_t t1 = std::min(std::min(row_tiles, t0 + seg_tiles), t0 + (e - it));
        f(r, t0 * urw, std::min(row, t1 * urw) - t0 * urw);
        it += t1 - t0;
    }
}

// Edge windows. Rows whose kernel taps along w are read as one run of
// KW * C contiguous values (the int8 and bf16 folded kernels for few
// channels) cannot point a padded column at pad values in the middle of
// the run; a row tile that reaches into the padding runs the folded kernel
// on a copy of its src instead: per valid (kd, kh) tap row the
// window_px(...) pixels its columns read, those outside [0, IW) set to
// `pad` (what a checked kernel's padded column would read). Cutting rows at
// the padding left tiles of 1 and 2 columns instead (the int8 first layer,
// 112 columns of 3 channels at 7x7 stride 2 pad 3: 11% of its time).
inline dim_t window_px(dim_t urw, dim_t SW, dim_t KW, dim_t DW) { return (urw - 1) * SW + (KW - 1) * (DW + 1) + 1; }

// Fills a window of nkd x nkh tap rows, `pitch` values apart: src points at
// the tile's first pixel (w index iw_lo, maybe outside src) of the first
// tap row; tap rows tap_d / tap_h apart; C values a pixel, pixels adjacent.
template <typename T>
void fill_window(T *win, dim_t pitch, const T *src, dim_t tap_d, dim_t tap_h, dim_t nkd, dim_t nkh, dim_t iw_lo,
        dim_t IW, dim_t npx, dim_t C, T pad) {
    const dim_t lo = std::clamp<dim_t>(-iw_lo, 0, npx), hi = std::clamp<dim_t>(IW - iw_lo, lo, npx);
    for (dim_t kd = 0; kd < nkd; ++kd)
        for (dim_t kh = 0; kh < nkh; ++kh) {
            T *w = win + (kd * nkh + kh) * pitch;
            const T *s = src + kd * tap_d + kh * tap_h;
            std::fill(w, w + lo * C, pad);
            std::copy(s + lo * C, s + hi * C, w + lo * C);
            std::fill(w + hi * C, w + npx * C, pad);
        }
}

// The columns [jlo, jhi) of a checked row tile (urw columns, SW apart)
// whose src point at one tap lies inside src (w in [0, IW)), column 0's
// being w index iw: a contiguous run, the index growing with the column.
// The tiles skip the other columns at that tap (padding adds nothing).
inline void valid_columns(dim_t iw, dim_t SW, dim_t IW, int urw, int &jlo, int &jhi) {
    const dim_t lo = iw >= 0 ? 0 : (-iw + SW - 1) / SW;
    const dim_t hi = iw >= IW ? 0 : (IW - iw + SW - 1) / SW;
    jlo = lo < urw ? (int)lo : urw;
    jhi = hi < urw ? (int)hi : urw;
}

// Whether a direct convolution call's data, of `bytes`, outgrows half of
// L3, so that its lines come from memory rather than from a cache that
// holds them between calls. The tiles fetch the next tile's src lines
// only then (the src of one image larger than L2 too): mb1 and mb2 layers
// that L3 holds ran 4-8% faster without (f32 1x1 256-64 at 56x56, bf16
// the same layer +8%), mb16 ones need them (bf16 1x1 256-64 mb16 at less
// than half the speed without). The dst lines are fetched with the src
// ones, or on their own when the call's dst alone outgrows half of L3
// (the 7x7 s2 3-64 first layer on nhwc, 3 input channels and no src
// fetching, at mb16: f32 1.15-1.19x, bf16 1.06x; mb1 0.94-0.98x).
bool direct_conv_from_memory(double bytes);

// Largest URW a kernel set offers for NOC blocks (0: none).
int direct_conv_16c_max_urw(int noc);
int direct_conv_8c_max_urw(int noc);
// Fills `k` (AVX-512 / AVX2 builds of the kernels).
void direct_conv_16c_kernels(direct_kernels_t &k);
void direct_conv_8c_kernels(direct_kernels_t &k);

} // namespace kestrel

#endif
