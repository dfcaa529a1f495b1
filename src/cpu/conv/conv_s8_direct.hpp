// Direct int8 convolution (u8/s8 src, s8 weights, s32 sums) on
// channels-last data with VNNI-blocked weights: the contract between the
// driver (conv_s8_direct.cpp) and the register tiles (AVX512-VNNI in
// conv_s8_direct_avx512.cpp).
//
// Weights are [g]OI[d][h]w4i16o4i: per (group, 16 oc, 16 ic, tap) a block of
// 256 bytes, 4 quads of input channels, each quad 16 output channels x 4
// input channels, which is exactly the s8 operand of one vpdpbusd. A tile
// is URW output columns x NOC blocks of 16 output channels, in NOC * URW
// zmm accumulators. For each quad of input channels the kernel loads NOC
// weight vectors, broadcasts the quad's 4 src bytes of each column as one
// dword and issues NOC * URW vpdpbusd. vpdpbusd takes src unsigned: an s8
// src is flipped to u8 (xor 0x80, i.e. + 128) in the register and the
// driver takes 128 * (sum of the weights) out afterwards.
//
// Padding: every tap of the kernel window is summed, the padded ones
// reading the byte `pad` (the src zero point, shifted like src), so that
// zp' * (sum of the weights over the taps summed) removes both the zero
// point and the shift exactly. Along w the kernel does this itself
// (checked tiles point padded columns at the driver's pad bytes, one per
// input channel of the group: the AVX512 tiles sum a tap's ic blocks with
// the column pointers set once); along d
// and h the driver passes only the taps inside src and subtracts the sums
// of those taps only. When the pad byte is 0 (u8 src, zero point 0) a
// padded tap adds nothing and there is nothing to compensate: row tiles
// that reach into the padding then run skip kernels, which leave each
// column's padded kw taps out (s8_direct_args_t::skip_pad).
//
// Plane tiles (plane = true): for short rows, a tile's columns are
// consecutive points of the flattened output plane (oh * OW + ow, one od),
// so one tile spans several output rows and each weight vector serves
// more columns. Such tiles are always checked: the driver gives each
// column's first src row and column (col_ih, col_iw, at tap 0) and its
// src offset (col_off, from the plane's origin); the kernel walks every
// kh tap and points a column whose src row or column is outside src at
// the pad bytes, so the compensation covers all kh taps.
//
// The last quad of a group's input channels may be partial (ICg % 4): it
// is loaded with a byte mask, so no byte past the group's last channel is
// read (the weights of the missing channels are zero anyway).
#ifndef KESTREL_CPU_CONV_CONV_S8_DIRECT_HPP
#define KESTREL_CPU_CONV_CONV_S8_DIRECT_HPP

#include "core/common.hpp"

namespace kestrel {

// Fixed for one primitive; strides in bytes.
struct s8_direct_conf_t {
    int noc = 1, urw = 1; // register tile: blocks of 16 oc x columns
    bool flat = false; // 1x1 unit: spatial dims walked as one row
    bool shift = false; // s8 src: flip to u8 in the register
    dim_t nicb = 0, ic_tail = 0; // ic blocks of 16 per group, valid channels in the last
    dim_t nocb = 0; // oc blocks per group
    dim_t row = 0, seg = 0, nseg = 1; // columns per row, per segment, segments
    dim_t s_col = 0; // src: next column (stride included)
    dim_t tap_d = 0, tap_h = 0, tap_w = 0; // src step between kernel taps
    dim_t w_icb = 0, w_ocb = 0, w_kd = 0, w_kh = 0, w_kw = 0; // weights strides
    dim_t KW = 1, SW = 1, DW1 = 1, IW = 1; // for checked tiles
    bool plane = false; // plane tiles (see above)
    // Checked tiles: ic blocks outside the taps, the taps' column pointers
    // set once per tile (at most s8_direct_max_tab_taps taps), so that an
    // oc block's weights are read in memory order; for weights that do not
    // stay in L1 between ic blocks.
    bool tap_inner = false;
    dim_t DH1 = 1, IH = 1; // for plane tiles
};

// The output stage done in registers, when it is only this (the same
// float operations as the conv epilogue, in its order): v = (float)(acc -
// comp) (the tile starts its sums at -comp), v *= scale, v += bias, v /= dscale, v += dzp, then dst's rounding
// and saturation. Arrays hold the item's channels (noc * 16); a nullptr
// step is skipped.
struct s8_direct_out_t {
    const int32_t *comp;
    const float *scale, *bias, *dscale;
    float dzp;
    bool with_dzp;
    // Every scale, bias and dst zero point finite and no dst scale zero:
    // the chain cannot make a NaN, and the integer dsts skip the NaN test.
    bool finite;
    int kind; // dst: 0 f32, 1 s32, 2 s8, 3 u8
    char *dst; // at the point of column 0, first channel of the item
    dim_t d_w; // bytes between points
    dim_t nn; // valid channels
};

// One call.
struct s8_direct_args_t {
    const uint8_t *src; // at (n, group's first ic, first valid d/h tap, column 0, tap kw 0)
    const int8_t *wei; // at (g, first oc block, ic 0, first valid kd/kh, kw 0)
    const uint8_t *pad; // nicb * 16 bytes of the padding value (checked tiles)
    int32_t *out; // sums [k * out_k + j * 16 + lane] (when fo is nullptr)
    const s8_direct_out_t *fo; // else the output stage in registers
    dim_t out_k;
    dim_t nkd, nkh; // valid taps along d and h
    dim_t iw0; // src w index of column 0 at tap kw 0 (checked and skip tiles)
    // Row tiles (not plane ones) whose pad byte is 0 (u8 src, zero point
    // 0: nothing to compensate): the padded taps of a column add nothing,
    // and the skip kernels leave them out instead of summing pad bytes.
    bool skip_pad = false;
    // Plane tiles: per column, src h and w index at tap 0 and the src
    // offset of that point from `src` (which is then at h = w = 0).
    const dim_t *col_ih, *col_iw, *col_off;
};

constexpr dim_t s8_direct_max_tab_taps = 64;

using s8_direct_fn_t = void (*)(const s8_direct_conf_t &, const s8_direct_args_t &);

struct s8_direct_kernels_t {
    static constexpr int max_noc = 4, max_urw = 16;
    s8_direct_fn_t fn[max_noc + 1][max_urw + 1][2][2] = {}; // [noc][urw][checked][shift]
    // Row tiles reaching into zero padding that skip it (skip_pad; u8 src):
    // [noc][urw], where a kernel set has them.
    s8_direct_fn_t skip[max_noc + 1][max_urw + 1] = {};
};

// Largest URW for NOC blocks, and the AVX512-VNNI kernels. Four blocks
// also have tiles of s8_direct_wide4_urw columns, two more accumulators
// than the registers hold besides the weights and the broadcast (the
// driver takes them only where they save tiles).
int s8_direct_max_urw(int noc);
constexpr int s8_direct_wide4_urw = 7;
void s8_direct_avx512_vnni_kernels(s8_direct_kernels_t &k);
// The AVX-VNNI kernels: NOC 1 only, URW up to s8_direct_avx2_max_urw, the
// sums always to the tile buffer. false when the compiler cannot build them.
constexpr int s8_direct_avx2_max_urw = 6;
bool s8_direct_avx2_vnni_kernels(s8_direct_kernels_t &k);

} // namespace kestrel

#endif
