// Vector row kernels of the int8 recurrence (rnn_int8.cpp): the
// dequantisation of the GEMMs' s32 sums into f32 gates, the LSTM cell fused
// with the requantisation of its hidden state, and the requantisation of a
// row. One table per ISA (rnn_int8_avx512.cpp, rnn_int8_avx2.cpp, both from
// rnn_int8_rows.inc); without AVX2 the caller keeps its scalar loops.
#ifndef KESTREL_CPU_RNN_RNN_INT8_ROWS_HPP
#define KESTREL_CPU_RNN_RNN_INT8_ROWS_HPP

#include <cstdint>

#include "core/common.hpp"
#include "cpu/isa.hpp"

namespace kestrel {
namespace rnn_int8 {

struct rows_t {
    // f = (float)((double)a[j] - comp[j]) * inv[j] for j < n, stored into
    // out[j] or added onto it: the scalar formula, rounded alike.
    void (*deq)(float *out, const int32_t *a, const double *comp, const float *inv, dim_t n, bool accumulate);
    // The same when every comp[j] is an integer within int32: a[j] - comp[j]
    // is then exact in int32 and gives the same float.
    void (*deq_int)(float *out, const int32_t *a, const int32_t *comp, const float *inv, dim_t n, bool accumulate);
    // One LSTM row without peepholes: gx holds the gates i, f, c~, o (4 rows
    // of DHC, the dequantised GEMM sums), b their bias; from the previous
    // cell state c0 writes c1 and the hidden state h = o * tanh(c1)
    // quantised, hq[o] = saturate(round_half_even(h * scale + shift)).
    // gx is left as it was.
    void (*lstm)(const float *gx, const float *b, const float *c0, float *c1, uint8_t *hq, dim_t DHC, float scale,
            float shift);
    // q[j] = saturate(round_half_even(f[j] * scale + shift)), NaN to 0.
    void (*quant)(uint8_t *q, const float *f, dim_t n, float scale, float shift);
};

const rows_t *rows_avx512();
const rows_t *rows_avx2();

// The best table the CPU (capped by ONEDNN_MAX_CPU_ISA) allows; nullptr on
// baseline machines.
inline const rows_t *best_rows() {
    if (isa::has(isa::avx512)) return rows_avx512();
    if (isa::has(isa::avx2)) return rows_avx2();
    return nullptr;
}

} // namespace rnn_int8
} // namespace kestrel

#endif
