// How a second operand b meets a dense operand a in the vectorised binary
// and PReLU paths, planned at descriptor creation and run over flat ranges
// of a (and dst, which shares a's layout) at execution:
//   same          b has a's dims and layout: elementwise
//   scalar        b has one element
//   chan_first    b is per channel, a plain channel-first (nchw): runs of
//                 spatial size with one channel each
//   chan_last     b is per channel, a plain channel-last (nhwc): runs of C
//   chan_blocked  b is per channel, a blocked nChw16c/8c: the channel
//                 pattern repeats with the block
// Every shape but `same` reads b as f32 values w[] prepared per execution
// (scaled, padded with zeros to the channel block).
#ifndef KESTREL_CPU_ELTWISE_BCAST_HPP
#define KESTREL_CPU_ELTWISE_BCAST_HPP

#include "cpu/eltwise/common.hpp"
#include "cpu/eltwise/kernels.hpp"

namespace kestrel {
namespace elt {

struct bcast_plan_t {
    enum shape_t { same, scalar, chan_first, chan_last, chan_blocked };
    shape_t shape = same;
    dim_t n = 0; // flat elements of a (padding included)
    dim_t C = 1, sp = 1, blk = 1, nw = 1; // channels, spatial size, block, size of w

    // Plans a op b into dst (same layout as a). keeps_zero: op(0, w) is +0
    // for any w the caller passes (padding may then be computed as data).
    // Returns a reason to decline, or nullptr.
    const char *init(const memory_desc_t &a, const memory_desc_t &b, bool keeps_zero) {
        const int nd = a.ndims;
        mdw_t am(a), bm(b);
        n = flat_nelems(a);
        if (bm.nelems() == 1) {
            shape = scalar;
            return flat_ok(a, false) ? nullptr : "src0 not dense";
        }
        if (same_dims(a, b)) {
            shape = same;
            if (!same_layout(a, b) || b.offset0 != 0) return "src0 and src1 layouts differ";
            return flat_ok(a, keeps_zero) ? nullptr : "src0 not dense";
        }
        if (nd < 2 || b.dims[1] != a.dims[1]) return "broadcast";
        for (int d = 0; d < nd; ++d)
            if (d != 1 && b.dims[d] != 1) return "broadcast";
        // Channel-last first: when the two plain layouts coincide (2D, or
        // unit spatial dims) its runs of C are the longer ones.
        if (am.matches_tag(tag_of(nd, 1)))
            shape = chan_last;
        else if (am.matches_tag(tag_of(nd, 0)))
            shape = chan_first;
        else if (nd >= 3 && (am.matches_tag(tag_of(nd, 2)) || am.matches_tag(tag8_of(nd))))
            shape = chan_blocked;
        else
            return "src0 layout";
        if (!flat_ok(a, keeps_zero)) return "src0 not dense";
        C = a.dims[1];
        blk = am.block_of(1);
        nw = rnd_up(C, blk);
        sp = 1;
        for (int d = 2; d < nd; ++d) sp *= a.dims[d];
        return nullptr;
    }
    bool uses_w() const { return shape != same; }

    // w[0, nw) = s1 * b (per channel, or the one scalar), zero beyond C.
    void fill_w(float *w, data_type_t b_dt, const void *b, const memory_desc_t &b_md,
            float s1) const {
        const dim_t nc = shape == scalar ? 1 : C;
        mdw_t bm(b_md);
        for (dim_t c = 0; c < nw; ++c) w[c] = c < nc ? s1 * load_f32(b_dt, b, bm.off_l(c)) : 0.f;
    }

    // dst[i] = op(s0 * a[i], b at i) for flat i in [s, e); s must be a
    // multiple of the block (callers split at multiples of 64).
    void run(const kernels_t *k, dnnl_alg_kind_t alg, float s0, float s1, data_type_t dt,
            data_type_t b_dt, const char *a, const char *b, const float *w, char *dst, dim_t s,
            dim_t e) const {
        const size_t esz = data_type_size(dt);
        switch (shape) {
            case same:
                k->binary(alg, s0, s1, dt, b_dt, a + s * esz, b + s * data_type_size(b_dt), 1,
                        dst + s * esz, e - s);
                return;
            case scalar:
                k->binary(alg, s0, 1.f, dt, dnnl_f32, a + s * esz, w, 0, dst + s * esz, e - s);
                return;
            case chan_first:
                for (dim_t i = s; i < e;) {
                    const dim_t r = i / sp, end = (r + 1) * sp < e ? (r + 1) * sp : e;
                    k->binary(alg, s0, 1.f, dt, dnnl_f32, a + i * esz, w + r % C, 0,
                            dst + i * esz, end - i);
                    i = end;
                }
                return;
            case chan_last:
                for (dim_t i = s; i < e;) {
                    const dim_t c = i % C, end = i - c + C < e ? i - c + C : e;
                    k->binary(alg, s0, 1.f, dt, dnnl_f32, a + i * esz, w + c, 1, dst + i * esz,
                            end - i);
                    i = end;
                }
                return;
            case chan_blocked: { // [N][C/blk][sp][blk]
                const dim_t len = sp * blk, nb = nw / blk;
                for (dim_t i = s; i < e;) {
                    const dim_t r = i / len, end = (r + 1) * len < e ? (r + 1) * len : e;
                    k->binary_period(alg, s0, dt, a + i * esz, w + (r % nb) * blk, blk,
                            dst + i * esz, end - i);
                    i = end;
                }
                return;
            }
        }
    }

private:
    // The plain channel-first, channel-last and 16c-blocked tags of a rank.
    static format_tag_t tag_of(int ndims, int which) {
        static const format_tag_t tags[3][4] = {
                {dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde},
                {dnnl_ab, dnnl_acb, dnnl_acdb, dnnl_acdeb},
                {dnnl_aBc16b, dnnl_aBc16b, dnnl_aBcd16b, dnnl_aBcde16b},
        };
        if (ndims < 2 || ndims > 5) return dnnl_format_tag_undef;
        return tags[which][ndims - 2];
    }
    static format_tag_t tag8_of(int ndims) {
        static const format_tag_t tags[4] = {dnnl_aBc8b, dnnl_aBc8b, dnnl_aBcd8b, dnnl_aBcde8b};
        return ndims >= 3 && ndims <= 5 ? tags[ndims - 2] : dnnl_format_tag_undef;
    }
};

} // namespace elt
} // namespace kestrel

#endif
