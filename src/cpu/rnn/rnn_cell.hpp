// The element-wise math of the recurrent cells on one batch row, in f32.
// The f32 forward (rnn_fwd.cpp) and the int8 inference (rnn_int8.cpp) both
// call these after their GEMMs, so a cell's formula lives in one place; the
// int8 code dequantises its GEMM results into f32 gates first.
#ifndef KESTREL_CPU_RNN_RNN_CELL_HPP
#define KESTREL_CPU_RNN_RNN_CELL_HPP

#include "core/common.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "cpu/math/eltwise_math.hpp"

namespace kestrel {
namespace rnn_cell {

// x[i] = f(x[i]) over one row, with the vector kernels of the eltwise
// primitive when the CPU has them (f32, in place), else the scalar math.
inline void act_row(const elt::kernels_t *k, dnnl_alg_kind_t alg, float alpha, float beta, float *x, dim_t n) {
    if (k && k->eltwise_has(alg)) {
        k->eltwise(alg, alpha, beta, dnnl_f32, x, x, n);
        return;
    }
    for (dim_t i = 0; i < n; ++i) x[i] = math::eltwise_fwd(alg, x[i], alpha, beta);
}

// LSTM, gates i, f, c~, o (gx, G * DHC, holding the GEMM sums), bias b
// (4 rows of DHC), peepholes p (3 rows, zero when absent), previous cell
// state c0: activates the gates in place, writes the new cell state c1 and
// the hidden output h = o * tanh(c1).
inline void lstm_row(const elt::kernels_t *k, float *gx, const float *b, const float *p, const float *c0,
        float *c1, float *h, dim_t DHC) {
    for (dim_t o = 0; o < DHC; ++o) {
        gx[o] += b[o] + p[o] * c0[o];
        gx[DHC + o] += b[DHC + o] + p[DHC + o] * c0[o];
    }
    act_row(k, dnnl_eltwise_logistic, 0.f, 0.f, gx, 2 * DHC);
    for (dim_t o = 0; o < DHC; ++o) gx[2 * DHC + o] += b[2 * DHC + o];
    act_row(k, dnnl_eltwise_tanh, 0.f, 0.f, gx + 2 * DHC, DHC);
    for (dim_t o = 0; o < DHC; ++o) {
        c1[o] = gx[DHC + o] * c0[o] + gx[o] * gx[2 * DHC + o];
        gx[3 * DHC + o] += b[3 * DHC + o] + p[2 * DHC + o] * c1[o];
        h[o] = c1[o];
    }
    act_row(k, dnnl_eltwise_logistic, 0.f, 0.f, gx + 3 * DHC, DHC);
    act_row(k, dnnl_eltwise_tanh, 0.f, 0.f, h, DHC);
    for (dim_t o = 0; o < DHC; ++o) h[o] *= gx[3 * DHC + o];
}

// GRU, first part: update and reset gates (the first 2 * DHC of gx) get
// their bias and the logistic.
inline void gru_part1_row(const elt::kernels_t *k, float *gx, const float *b, dim_t DHC) {
    for (dim_t o = 0; o < 2 * DHC; ++o) gx[o] += b[o];
    act_row(k, dnnl_eltwise_logistic, 0.f, 0.f, gx, 2 * DHC);
}

// GRU, second part: the candidate (third gate) gets its bias and tanh, and
// h1 = u' * h0 + (1 - u') * candidate with u' = (1 - a) * u (a: AUGRU
// attention, 0 otherwise).
inline void gru_part2_row(const elt::kernels_t *k, float *gx, const float *b, float a, const float *h0, float *h1,
        dim_t DHC) {
    for (dim_t o = 0; o < DHC; ++o) gx[2 * DHC + o] += b[2 * DHC + o];
    act_row(k, dnnl_eltwise_tanh, 0.f, 0.f, gx + 2 * DHC, DHC);
    for (dim_t o = 0; o < DHC; ++o) {
        const float ua = (1.f - a) * gx[o];
        h1[o] = ua * h0[o] + (1.f - ua) * gx[2 * DHC + o];
    }
}

} // namespace rnn_cell
} // namespace kestrel

#endif
