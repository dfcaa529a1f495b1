// im2col / col2im and in-place operands of the backward convolutions.
#include "cpu/conv/conv_bwd_cols.hpp"

#include <algorithm>
#include <cstring>

#include "cpu/types.hpp"

namespace kestrel {
namespace conv_bwd {

namespace {

dim_t floor_div(dim_t a, dim_t s) {
    return a >= 0 ? a / s : -((-a + s - 1) / s);
}

// The j in [0, seg) whose big coordinate (w0 + j) * s + off lies in [0, B).
void valid_range(dim_t w0, dim_t seg, dim_t s, dim_t off, dim_t B, dim_t &lo, dim_t &hi) {
    lo = std::max<dim_t>(0, -floor_div(off, s) - w0); // ceil(-off / s) - w0
    hi = std::min<dim_t>(seg, floor_div(B - 1 - off, s) - w0 + 1);
    if (hi < lo) hi = lo;
}

// Point sp of the small tensor as (d, h, w0) and the length of its row
// segment within [sp, sp0 + len).
struct seg_t {
    dim_t d, h, w0, seg;
    seg_t(const conv_bs_geom_t &b, dim_t sp, dim_t left)
        : d(sp / (b.SW * b.SH)), h(sp / b.SW % b.SH), w0(sp % b.SW),
          seg(std::min(left, b.SW - sp % b.SW)) {}
};

void im2col_generic(const conv_bs_geom_t &b, const conv_data_view_t &v, const void *big, dim_t n,
                    dim_t gr, dim_t sp0, dim_t len, float *col) {
    const dim_t KS = b.KS();
    for (dim_t j0 = 0; j0 < len;) {
        const seg_t s(b, sp0 + j0, len - j0);
        for (dim_t cb = 0; cb < b.Cb; ++cb) {
            const dim_t c = gr * b.Cb + cb;
            for (dim_t kd = 0; kd < b.KD; ++kd) {
                const dim_t bd = s.d * b.sD - b.pD + kd * (b.dD + 1);
                for (dim_t kh = 0; kh < b.KH; ++kh) {
                    const dim_t bh = s.h * b.sH - b.pH + kh * (b.dH + 1);
                    const bool in = bd >= 0 && bd < b.BD && bh >= 0 && bh < b.BH;
                    for (dim_t kw = 0; kw < b.KW; ++kw) {
                        const dim_t k = (kd * b.KH + kh) * b.KW + kw;
                        float *out = col + (cb * KS + k) * len + j0;
                        for (dim_t j = 0; j < s.seg; ++j) {
                            const dim_t bw = (s.w0 + j) * b.sW - b.pW + kw * (b.dW + 1);
                            out[j] = in && bw >= 0 && bw < b.BW
                                             ? load_f32(v.dt, big, v.off(n, c, bd, bh, bw))
                                             : 0.f;
                        }
                    }
                }
            }
        }
        j0 += s.seg;
    }
}

} // namespace

dim_t point_stride(const conv_data_view_t &v, dim_t D, dim_t H, dim_t W) {
    const dim_t ps = v.sw;
    if (ps <= 0) return 0;
    if (H > 1 && v.sh != W * ps) return 0;
    if (D > 1 && v.sd != H * W * ps) return 0;
    return ps;
}

void im2col(const conv_bs_geom_t &b, const conv_data_view_t &v, dim_t ps, const void *big, dim_t n,
            dim_t gr, dim_t sp0, dim_t len, float *col) {
    if (ps == 0 || v.dt != dnnl_f32) return im2col_generic(b, v, big, n, gr, sp0, len, col);
    const dim_t KS = b.KS(), step = b.sW * ps;
    const float *src = static_cast<const float *>(big);
    for (dim_t j0 = 0; j0 < len;) {
        const seg_t s(b, sp0 + j0, len - j0);
        // The valid range of a tap depends on the segment and kw only:
        // worked out once for all channels.
        for (dim_t kd = 0; kd < b.KD; ++kd) {
            const dim_t bd = s.d * b.sD - b.pD + kd * (b.dD + 1);
            for (dim_t kh = 0; kh < b.KH; ++kh) {
                const dim_t bh = s.h * b.sH - b.pH + kh * (b.dH + 1);
                const bool in = bd >= 0 && bd < b.BD && bh >= 0 && bh < b.BH;
                for (dim_t kw = 0; kw < b.KW; ++kw) {
                    const dim_t k = (kd * b.KH + kh) * b.KW + kw;
                    dim_t lo = 0, hi = 0;
                    const dim_t off = kw * (b.dW + 1) - b.pW;
                    if (in) valid_range(s.w0, s.seg, b.sW, off, b.BW, lo, hi);
                    const dim_t pos =
                            hi > lo ? ((bd * b.BH + bh) * b.BW + (s.w0 + lo) * b.sW + off) * ps : 0;
                    for (dim_t cb = 0; cb < b.Cb; ++cb) {
                        float *out = col + (cb * KS + k) * len + j0;
                        std::fill(out, out + lo, 0.f);
                        if (hi > lo) {
                            const float *row = src + v.off(n, gr * b.Cb + cb, 0, 0, 0) + pos;
                            if (step == 1)
                                std::memcpy(out + lo, row, sizeof(float) * (hi - lo));
                            else
                                for (dim_t j = 0; j < hi - lo; ++j) out[lo + j] = row[j * step];
                        }
                        std::fill(out + hi, out + s.seg, 0.f);
                    }
                }
            }
        }
        j0 += s.seg;
    }
}

void col2im(const conv_bs_geom_t &b, const float *col, dim_t sp0, dim_t len,
            const conv_data_view_t &v, dim_t ps, float *big, dim_t n, dim_t c0) {
    const dim_t KS = b.KS(), step = b.sW * ps;
    for (dim_t j0 = 0; j0 < len;) {
        const seg_t s(b, sp0 + j0, len - j0);
        // As in im2col: one valid range per (segment, tap) for all channels.
        for (dim_t kd = 0; kd < b.KD; ++kd) {
            const dim_t bd = s.d * b.sD - b.pD + kd * (b.dD + 1);
            if (bd < 0 || bd >= b.BD) continue;
            for (dim_t kh = 0; kh < b.KH; ++kh) {
                const dim_t bh = s.h * b.sH - b.pH + kh * (b.dH + 1);
                if (bh < 0 || bh >= b.BH) continue;
                for (dim_t kw = 0; kw < b.KW; ++kw) {
                    const dim_t k = (kd * b.KH + kh) * b.KW + kw;
                    dim_t lo, hi;
                    const dim_t off = kw * (b.dW + 1) - b.pW;
                    valid_range(s.w0, s.seg, b.sW, off, b.BW, lo, hi);
                    if (hi <= lo) continue;
                    const dim_t pos = ((bd * b.BH + bh) * b.BW + (s.w0 + lo) * b.sW + off) * ps;
                    for (dim_t cb = 0; cb < b.Cb; ++cb) {
                        const float *in = col + (cb * KS + k) * len + j0 + lo;
                        float *row = big + v.off(n, c0 + cb, 0, 0, 0) + pos;
                        if (step == 1)
                            for (dim_t j = 0; j < hi - lo; ++j) row[j] += in[j];
                        else
                            for (dim_t j = 0; j < hi - lo; ++j) row[j * step] += in[j];
                    }
                }
            }
        }
        j0 += s.seg;
    }
}

void zero_points(const conv_data_view_t &v, dim_t ps, float *big, dim_t n, dim_t c0, dim_t C,
                 dim_t p0, dim_t p1) {
    if (p1 <= p0) return;
    for (dim_t c = 0; c < C; ++c) {
        float *chan = big + v.off(n, c0 + c, 0, 0, 0) + p0 * ps;
        if (ps == 1)
            std::memset(chan, 0, sizeof(float) * (p1 - p0));
        else
            for (dim_t p = 0; p < p1 - p0; ++p) chan[p * ps] = 0.f;
    }
}

dim_t last_big_row(const conv_bs_geom_t &b, dim_t sp0, dim_t len) {
    const dim_t plane = b.SW * b.SH, last = sp0 + len - 1;
    const dim_t h = sp0 / plane == last / plane ? last / b.SW % b.SH : b.SH - 1;
    return std::min<dim_t>(b.BH - 1, h * b.sH - b.pH + (b.KH - 1) * (b.dH + 1));
}

void small_chunk_load(const conv_bs_geom_t &b, const conv_data_view_t &v, dim_t ps,
                      const void *small, dim_t n, dim_t gr, dim_t sp0, dim_t len, float *buf) {
    if (ps != 0 && v.dt == dnnl_f32) { // one strided row per channel
        for (dim_t cs = 0; cs < b.Cs; ++cs) {
            const float *chan = static_cast<const float *>(small)
                                + v.off(n, gr * b.Cs + cs, 0, 0, 0) + sp0 * ps;
            float *out = buf + cs * len;
            for (dim_t j = 0; j < len; ++j) out[j] = chan[j * ps];
        }
        return;
    }
    for (dim_t j = 0; j < len; ++j) {
        const dim_t sp = sp0 + j;
        const dim_t w = sp % b.SW, h = sp / b.SW % b.SH, d = sp / (b.SW * b.SH);
        for (dim_t cs = 0; cs < b.Cs; ++cs)
            buf[cs * len + j] = load_f32(v.dt, small, v.off(n, gr * b.Cs + cs, d, h, w));
    }
}

void small_chunk_store(const conv_bs_geom_t &b, const conv_data_view_t &v, dim_t ps, void *small,
                       dim_t n, dim_t gr, dim_t sp0, dim_t len, const float *buf) {
    if (ps != 0 && v.dt == dnnl_f32) {
        for (dim_t cs = 0; cs < b.Cs; ++cs) {
            float *chan =
                    static_cast<float *>(small) + v.off(n, gr * b.Cs + cs, 0, 0, 0) + sp0 * ps;
            const float *in = buf + cs * len;
            for (dim_t j = 0; j < len; ++j) chan[j * ps] = in[j];
        }
        return;
    }
    for (dim_t j = 0; j < len; ++j) {
        const dim_t sp = sp0 + j;
        const dim_t w = sp % b.SW, h = sp / b.SW % b.SH, d = sp / (b.SW * b.SH);
        for (dim_t cs = 0; cs < b.Cs; ++cs)
            store_f32(v.dt, small, v.off(n, gr * b.Cs + cs, d, h, w), buf[cs * len + j]);
    }
}

bool in_place_ok(const conv_data_view_t &v, dim_t ps) {
    return v.dt == dnnl_f32 && v.blk == 1 && ps != 0 && (ps == 1 || v.sc == 1);
}

mat_t chan_points(const conv_data_view_t &v, dim_t ps, const void *base, dim_t n, dim_t c0,
                  dim_t sp0) {
    mat_t m;
    m.rs = v.sc, m.cs = ps;
    if (base) m.p = static_cast<const float *>(base) + v.off(n, c0, 0, 0, 0) + sp0 * ps;
    return m;
}

gemm_call_t orient(dim_t M, dim_t N, dim_t K, mat_t A, mat_t B, mat_t C) {
    gemm_call_t g;
    if (C.cs != 1) { // C^T = B^T A^T
        std::swap(M, N);
        const mat_t a = B.t(), bt = A.t();
        A = a, B = bt, C = C.t();
    }
    g.M = M, g.N = N, g.K = K;
    g.ta = A.cs != 1, g.lda = g.ta ? A.cs : A.rs;
    g.tb = B.cs != 1, g.ldb = g.tb ? B.cs : B.rs;
    g.A = A.p, g.B = B.p, g.C = const_cast<float *>(C.p), g.ldc = C.rs;
    return g;
}

} // namespace conv_bwd
} // namespace kestrel
