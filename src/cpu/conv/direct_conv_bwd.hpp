// Convolution backward data on channel-blocked layouts through the forward
// direct driver (direct_conv.hpp).
//
// With unit strides, diff_src is the forward convolution of diff_dst with
// the weights flipped along every spatial axis and their channel roles
// swapped,
//   W'(g, ic, oc, k) = W(g, oc, ic, K - 1 - k),
// same dilation, each side padded by the kernel's dilated extent
// (K - 1) * (dilation + 1) minus the original padding of that side. Each
// execution writes W' into the scratchpad in the forward driver's weights
// layout ([g]OIx16i16o or [g]OIx8i8o of the swapped problem, padded
// channels zero), then runs the driver (a nested direct_conv_fwd_t whose
// own regions are booked beside ours under offset keys) over diff_dst.
//
// Declined, so that the GEMM path serves them: strides above 1, data types
// other than f32, deconvolution, format `any` for data unless the forward
// hint chose the blocked layout, and whatever the forward driver declines
// for the swapped problem (groups whose channels are not whole blocks).
#ifndef KESTREL_CPU_CONV_DIRECT_CONV_BWD_HPP
#define KESTREL_CPU_CONV_DIRECT_CONV_BWD_HPP

#include <memory>
#include <vector>

#include "cpu/conv/conv_bwd.hpp"
#include "cpu/conv/conv_impls.hpp"

namespace kestrel {

// Offsets of a weights md as a sum over its logical axes:
// off(pos) = base + sum_a tab[a][pos[a]], which holds for every blocked
// layout (each block and stride involves one axis). Tables span the padded
// dims; axes are (g, o, i, kd, kh, kw), absent ones of length 1.
struct wei_axis_offsets_t {
    dim_t base = 0;
    std::vector<dim_t> tab[6];
    void init(const memory_desc_t &md, bool with_groups);
};

struct direct_conv_bwd_data_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_bwd_pd_t, direct_conv_bwd_data_t> {
        pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint, int blk = 16);
        const char *name() const override {
            return blk == 16 ? "direct:avx512:nCx16c:bwd_d" : "direct:avx2:nCx8c:bwd_d";
        }
        status_t init(dnnl_engine *) override;

        int blk; // channels per block: 16 (AVX-512) or 8 (AVX2)
        bool hint_blocked = false; // the forward hint's src is nCx<blk>c
        // The swapped forward problem, immutable once made (clones share it).
        std::shared_ptr<const direct_conv_fwd_t::pd_t> fwd;
        wei_axis_offsets_t user_wei, fwd_wei;
    };
    struct pd_8c_t : pd_t {
        pd_8c_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_t(d, a, hint, 8) {}
    };
    explicit direct_conv_bwd_data_t(const pd_t *pd) : primitive_t(pd) {}
    status_t init() override;
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
    std::unique_ptr<direct_conv_fwd_t> fwd_;
};

// Convolution backward weights on nCx16c data (AVX-512), f32, any stride,
// dilation and padding; groups of whole blocks. Work items are output rows
// (image, od, oh), split over the threads; each thread accumulates its
// own partial diff_weights (and diff_bias) in the scratchpad in the
// 16i16o block layout over a row of points, two oc blocks of a group at a
// time, half of their src channels per pass (direct_bwd_w_16c_row_x2), or
// a single block's 16 x 16 when one is left (direct_bwd_w_16c_row); the
// partials are then summed in slot order into
// the user's diff_weights, whatever its blocked layout.
struct direct_conv_bwd_weights_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, conv_bwd_pd_t, direct_conv_bwd_weights_t> {
        pd_t(const conv_desc_t *d, const attr_t *a, const kestrel::pd_t *hint);
        const char *name() const override { return "direct:avx512:nCx16c:bwd_w"; }
        status_t init(dnnl_engine *) override;

        bool hint_blocked = false; // the forward hint's src is nCx16c
        dim_t part_elems = 0; // floats of one partial diff_weights
        wei_axis_offsets_t user_wei;
    };
    explicit direct_conv_bwd_weights_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;

private:
    const pd_t *pd() const { return static_cast<const pd_t *>(pd_.get()); }
};

// dw[i * 16 + o] += sum over j < n of src[j * s_src + i] * ddst[j * s_dd + o]
// (AVX-512).
void direct_bwd_w_16c_row(float *dw, const float *src, dim_t s_src, const float *ddst, dim_t s_dd, dim_t n);
// Two oc blocks at once, for half of the src channels of a block:
// dw0[i * 16 + o] += sum over j < n of src[j * s_src + i] * dd0[j * s_dd + o]
// and dw1 likewise with dd1, for i < 8: each src value broadcast once for
// both (10 loads per 16 FMAs where one block takes 17).
void direct_bwd_w_16c_row_x2(float *dw0, float *dw1, const float *src, dim_t s_src, const float *dd0,
        const float *dd1, dim_t s_dd, dim_t n);

} // namespace kestrel

#endif
