// Data movement of the backward convolutions (conv_bwd.hpp's big/small
// formulation): im2col, col2im, chunks of the small tensor, and tensors
// read in place as GEMM operands.
//
// The fast paths need a view whose spatial points sit at one uniform stride
// ps inside each channel (ncx: 1, nxc: C, nCx16c: 16): then one channel of
// one image is a row base + p * ps, and a row segment of im2col / col2im is
// a strided (for stride 1 and ps 1, contiguous) copy whose valid range is
// computed once, not tested per element.
#ifndef KESTREL_CPU_CONV_CONV_BWD_COLS_HPP
#define KESTREL_CPU_CONV_CONV_BWD_COLS_HPP

#include "cpu/conv/conv_bwd.hpp"

namespace kestrel {
namespace conv_bwd {

// Point stride of view v over spatial dims (D, H, W), or 0 when the points
// are not at one uniform stride.
dim_t point_stride(const conv_data_view_t &v, dim_t D, dim_t H, dim_t W);

// col[(cb * KS + k)][j] for small points [sp0, sp0 + len) of image n,
// group gr: the big-tensor element tap k of point j reads, 0 in padding.
// ps: the big view's point stride when it is f32 (fast path), else 0.
void im2col(const conv_bs_geom_t &b, const conv_data_view_t &v, dim_t ps, const void *big, dim_t n,
            dim_t gr, dim_t sp0, dim_t len, float *col);

// The inverse scatter, f32: big(n, c0 + cb, point) += col[(cb * KS + k)][j]
// over the taps of small points [sp0, sp0 + len); v with point stride ps
// describes the target (the user's tensor, or a scratch image).
void col2im(const conv_bs_geom_t &b, const float *col, dim_t sp0, dim_t len,
            const conv_data_view_t &v, dim_t ps, float *big, dim_t n, dim_t c0);

// Zeroes points [p0, p1) of channels [c0, c0 + C) of image n of an f32
// view with point stride ps.
void zero_points(const conv_data_view_t &v, dim_t ps, float *big, dim_t n, dim_t c0, dim_t C,
                 dim_t p0, dim_t p1);

// The last big row (h) the taps of small points [sp0, sp0 + len) reach
// (clamped to BH - 1; negative when none): with one big depth plane, the
// scatter zeroes its target rows just before the first chunk that touches
// them, while they are still in cache, instead of the whole image first.
dim_t last_big_row(const conv_bs_geom_t &b, dim_t sp0, dim_t len);

// buf[cs][j] = small tensor at (n, gr * Cs + cs, point sp0 + j), or back
// (store); ps: the view's point stride (0: element by element).
void small_chunk_load(const conv_bs_geom_t &b, const conv_data_view_t &v, dim_t ps,
                      const void *small, dim_t n, dim_t gr, dim_t sp0, dim_t len, float *buf);
void small_chunk_store(const conv_bs_geom_t &b, const conv_data_view_t &v, dim_t ps, void *small,
                       dim_t n, dim_t gr, dim_t sp0, dim_t len, const float *buf);

// A strided f32 matrix: element (i, j) at p[i * rs + j * cs].
struct mat_t {
    const float *p = nullptr;
    dim_t rs = 0, cs = 0;
    mat_t t() const { return {p, cs, rs}; }
};

// Channels x points matrix of a view read in place (f32, no channel
// blocking, uniform points with ps 1 or channel stride 1), or p nullptr
// when the view is not one. base may be null at descriptor creation (only
// the strides matter there).
mat_t chan_points(const conv_data_view_t &v, dim_t ps, const void *base, dim_t n, dim_t c0,
                  dim_t sp0);
bool in_place_ok(const conv_data_view_t &v, dim_t ps);

// C (M x N) = alpha A (M x K) B (K x N) + beta C for strided operands, as
// the row-major GEMM engine takes it: C must have a unit stride (if its
// rows are the unit one, the product is transposed), A and B one unit
// stride each.
struct gemm_call_t {
    dim_t M = 0, N = 0, K = 0;
    bool ta = false, tb = false;
    const float *A = nullptr, *B = nullptr;
    float *C = nullptr;
    dim_t lda = 0, ldb = 0, ldc = 0;
};
gemm_call_t orient(dim_t M, dim_t N, dim_t K, mat_t A, mat_t B, mat_t C);

} // namespace conv_bwd
} // namespace kestrel

#endif
