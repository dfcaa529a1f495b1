// bf16 recurrent problems on the f32 engine. The cells always compute in
// f32; bf16 enters and leaves at the edges:
//   - weights_layer and weights_iter are widened once per execution into a
//     scratchpad region (rnn_weights_f32), in the user's own order, so the
//     f32 GEMM plans run on them unchanged;
//   - src_layer, src_iter(_c), bias and attention are read element-wise
//     through load_f32 (cpu/types.hpp) where the f32 code copies them in;
//   - every hidden state is rounded to bf16 as soon as it is made (and the
//     LSTM cell state too when src_iter_c / dst_iter_c are bf16), because
//     oneDNN keeps those states in bf16 and feeds them to the bf16 GEMMs of
//     the next step and the next layer; the layer input of a layer above
//     the first is rounded likewise (bidirectional sum: the f32 sum);
//   - dst_layer / dst_iter(_c) are written through store_f32, so a value
//     is rounded once, at the store.
// The workspace keeps Kestrel's f32 layout (rnn_ws_layout), so backward
// reads the rounded states forward used.
#ifndef KESTREL_CPU_RNN_RNN_BF16_HPP
#define KESTREL_CPU_RNN_RNN_BF16_HPP

#include "core/primitive.hpp"
#include "cpu/rnn/rnn_pd.hpp"

namespace kestrel {

// Bytes of the f32 copies of weights_layer and weights_iter (0 for an f32
// problem, which reads the user's memory).
size_t rnn_weights_f32_bytes(const rnn_fwd_pd_t &pd);

// f32 views of weights_layer and weights_iter, offset0 applied: the user's
// memory for f32, else the widened copies written into `buf` (booked with
// rnn_weights_f32_bytes).
void rnn_weights_f32(const exec_ctx_t &ctx, const rnn_fwd_pd_t &pd, float *buf, const float *&wl,
        const float *&wi);

// x[i] = the bf16 value nearest x[i] (round to nearest even), i < n.
void rnn_round_bf16(float *x, dim_t n);

} // namespace kestrel

#endif
