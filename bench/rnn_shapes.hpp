// Recurrent shapes timed by bench/bench_rnn (Kestrel) and by the anchor
// (`anchor_onednn --rnn`): LSTM inference, ldigo weights, tnc data, zero
// initial states, bias; a GRU training step; and int8 LSTM inference. Header-only and free of any library header.
#ifndef KESTREL_BENCH_RNN_SHAPES_HPP
#define KESTREL_BENCH_RNN_SHAPES_HPP

#include <cstdio>

namespace bench {

struct rnn_shape_t {
    long L, T, N, C; // layers, steps, batch, channels (input = hidden)
    const char *id(char *buf, int n) const {
        std::snprintf(buf, (size_t)n, "lstm_inf_L%ld_T%ld_N%ld_C%ld", L, T, N, C);
        return buf;
    }
    // Two GEMMs per step and layer: input and hidden state, 4 gates each.
    double flop() const { return 2.0 * L * T * N * (2.0 * C) * 4.0 * C; }
};

const rnn_shape_t rnn_shapes[] = {{2, 50, 1, 1024}, {2, 50, 64, 1024}};

// A GRU training step: forward training then backward (data and weights),
// one layer, left to right, no initial states, bias.
struct gru_train_shape_t {
    long L, T, N, C;
    const char *id(char *buf, int n) const {
        std::snprintf(buf, (size_t)n, "gru_train_L%ld_T%ld_N%ld_C%ld", L, T, N, C);
        return buf;
    }
    // Forward: input and hidden GEMMs of 3 gates; backward: twice that
    // (data gradients and weight gradients).
    double flop() const { return 3.0 * 2.0 * L * T * N * (2.0 * C) * 3.0 * C; }
};

const gru_train_shape_t gru_train_shapes[] = {{1, 25, 32, 256}};

// int8 LSTM inference: u8 src_layer and dst_layer, s8 weights (one scale),
// f32 bias, data qparams scale 64 shift 128, no initial states. Same
// operation count as the f32 shape.
struct lstm_int8_shape_t {
    long L, T, N, C;
    const char *id(char *buf, int n) const {
        std::snprintf(buf, (size_t)n, "lstm_u8_inf_L%ld_T%ld_N%ld_C%ld", L, T, N, C);
        return buf;
    }
    double flop() const { return 2.0 * L * T * N * (2.0 * C) * 4.0 * C; }
};

const lstm_int8_shape_t lstm_int8_shapes[] = {{2, 50, 1, 1024}, {2, 50, 64, 1024}};

} // namespace bench

#endif
