// Direct bf16 convolution forward (bf16 src and weights, f32 sums) on
// channels-last data with AVX512-BF16: the contract between the driver
// (conv_bf16_direct.cpp) and the register tiles
// (conv_bf16_direct_avx512.cpp), and the primitive.
//
// Weights are [g]OI[d][h]w8i16o2i: per (group, 16 oc, 16 ic, tap) a block
// of 512 bytes, 8 pairs of input channels, each pair 16 output channels x 2
// input channels, which is exactly the weights operand of one vdpbf16ps. A
// tile is URW output columns x NOC blocks of 16 output channels in NOC * URW
// zmm accumulators. For each pair of input channels the kernel loads NOC
// weight vectors, broadcasts the pair's two src values of each column as
// one dword and issues NOC * URW vdpbf16ps (each adds two products to an
// f32 lane).
//
// The last pair of a group's input channels may be a single channel (odd
// ICg): its src value is loaded alone with a zero partner, so nothing past
// the group's last channel is read (the weights there are zero too). Along
// w, row tiles that reach into the padding skip each column's padded taps
// (skip kernels); along d and h the driver passes only the taps inside
// src. Short output rows are walked as one row per (n, od) plane, so a
// tile may span output rows: its columns' src pointers are then gathered
// per (kh, kw) tap, padded taps reading the zero block.
#ifndef KESTREL_CPU_CONV_CONV_BF16_DIRECT_HPP
#define KESTREL_CPU_CONV_CONV_BF16_DIRECT_HPP

#include "cpu/conv/conv_impls.hpp"

namespace kestrel {

// Fixed for one primitive; strides in bf16 elements.
struct bf16_direct_conf_t {
    int noc = 1, urw = 1; // register tile: blocks of 16 oc x columns
    bool flat = false; // 1x1 unit: spatial dims walked as one row
    dim_t nicb = 0, ic_tail = 0; // ic blocks of 16 per group, valid channels in the last
    dim_t nocb = 0; // oc blocks per group
    dim_t row = 0, seg = 0, nseg = 1; // columns per row, per segment, segments
    dim_t s_col = 0; // src: next column (stride included)
    dim_t tap_d = 0, tap_h = 0, tap_w = 0; // src step between kernel taps
    dim_t w_icb = 0, w_ocb = 0, w_kd = 0, w_kh = 0, w_kw = 0; // weights strides
    dim_t KW = 1, SW = 1, DW1 = 1, IW = 1; // for skip and gathered tiles
    // Short rows: the output points of a (n, od) plane walked as one row,
    // tiles spanning output rows (gathered tiles, see bf16_direct_args_t).
    bool gather = false;
    dim_t KH = 1, DH1 = 1, IH = 1, s_h = 0, s_w = 0; // for gathered tiles
    // Few input channels (one block, no groups, unit dilation along w):
    // unchecked tiles run the folded kernels, whose pairs run over the
    // KW * IC contiguous src values of a kernel row (kw, ic) rather than
    // over the channels of one tap; their weights are a copy made at each
    // execution, [oc block][kd][kh][fold_np pairs][16 oc][2].
    bool fold = false;
    dim_t fold_np = 0; // pairs of a kernel row, the last maybe a lone value
    bool fold_single = false; // KW * IC odd
    dim_t fw_ocb = 0, fw_kd = 0, fw_kh = 0; // folded weights strides
};

// The output stage done in registers when the epilogue is only this: v +=
// bias (f32 vector of the item's channels, or nullptr), then one
// relu / linear / clip (direct_act_t, as the f32 direct kernels do it),
// then the store: f32, or bf16 rounded to nearest even as f32_to_bf16.
struct bf16_direct_out_t {
    const float *bias;
    int act;
    float act_a, act_b;
    bool dst_bf16;
    char *dst; // at the point of column 0, first channel of the item
    dim_t d_w; // bytes between points
    dim_t nn; // valid channels (the rest of the last block is not stored)
};

// One call.
struct bf16_direct_args_t {
    const uint16_t *src; // at (n, group's first ic, first valid d/h tap, column 0, tap kw 0)
    const uint16_t *wei; // at (g, first oc block, ic 0, first valid kd/kh, kw 0)
    const uint16_t *zero; // 16 zero values (padded taps of gathered tiles)
    float *out; // sums [k * out_k + j * 16 + lane] (when fo is nullptr)
    const bf16_direct_out_t *fo; // else the output stage in registers
    dim_t out_k;
    dim_t nkd, nkh; // valid taps along d and h
    dim_t iw0; // src w index of column 0 at tap kw 0 (skip tiles)
    // Gathered tiles (nkh is then KH): column j's src
    // window starts at h index col_ih[j], w index col_iw[j] (before
    // padding is removed), src being at h 0, w 0; taps outside src read
    // the zero block.
    const dim_t *col_ih = nullptr, *col_iw = nullptr;
};

using bf16_direct_fn_t = void (*)(const bf16_direct_conf_t &, const bf16_direct_args_t &);

struct bf16_direct_kernels_t {
    static constexpr int max_noc = 4, max_urw = 16;
    bf16_direct_fn_t fn[max_noc + 1][max_urw + 1][2] = {}; // [noc][urw][gathered]
    bf16_direct_fn_t skip[max_noc + 1][max_urw + 1] = {}; // row tiles reaching into the padding
    bf16_direct_fn_t fold[max_noc + 1][max_urw + 1] = {}; // folded kernel rows, unchecked
    bf16_direct_fn_t flat[max_noc + 1][max_urw + 1] = {}; // 1x1 units (flattened rows)
};

// Largest URW for NOC blocks; the kernels (false when the compiler cannot
// build AVX512-BF16 code).
int bf16_direct_max_urw(int noc);
// Four blocks also have row tiles of this many columns (as the int8 ones,
// conv_s8_direct.hpp), taken only where they save tiles.
constexpr int bf16_direct_wide4_urw = 7;
bool bf16_direct_avx512_kernels(bf16_direct_kernels_t &k);

// Direct bf16 convolution: nwc/nhwc/ndhwc bf16 src, [g]OI[d][h]w8i16o2i
// bf16 weights (chosen for `any`; plain weights are left to the other
// routes), dst bf16 or f32 in the same layout, bias f32/bf16, every post-op
// the conv epilogue takes (bias and one relu / linear / clip in registers).
struct bf16_direct_conv_fwd_t : conv_fwd_prim_t {
    struct pd_t : pd_impl_t<pd_t, conv_fwd_pd_t, bf16_direct_conv_fwd_t> {
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "direct:avx512_bf16:nhwc"; }
        status_t init(dnnl_engine *) override;

        bf16_direct_conf_t conf;
        dim_t fold_elems = 0; // folded weights (bf16 values), booked in the scratchpad
        // The output stage in registers (bf16_direct_out_t): no scales, at
        // most one relu / linear / clip post-op.
        bool fast_out = false;
        int act = direct_act_none;
        float act_a = 0.f, act_b = 0.f;
    };
    explicit bf16_direct_conv_fwd_t(const pd_t *pd) : conv_fwd_prim_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    bf16_direct_kernels_t ker_;
};

} // namespace kestrel

#endif
