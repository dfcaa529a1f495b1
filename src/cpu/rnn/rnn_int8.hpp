// int8 recurrent inference on the int8 GEMM engine (defined in
// rnn_int8.cpp; listed in rnn_list.cpp).
#ifndef KESTREL_CPU_RNN_RNN_INT8_HPP
#define KESTREL_CPU_RNN_RNN_INT8_HPP

#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/rnn/rnn_pd.hpp"

namespace kestrel {

// LSTM (with or without projection) and GRU, forward inference: src_layer
// u8, weights s8 (ldigo or ldgoi, projection ldio or ldoi), bias f32,
// src_iter/dst_iter u8 or f32, cell states f32, dst_layer u8 or f32, every
// direction and layer count. The hidden states travel between steps and
// layers as u8 quantised with the data qparams; each u8 x s8 GEMM's s32
// result is dequantised into f32 gates and the cell math is the f32 one
// (rnn_cell.hpp).
struct gemm_rnn_int8_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, rnn_fwd_pd_t, gemm_rnn_int8_fwd_t> {
        using base = pd_impl_t<pd_t, rnn_fwd_pd_t, gemm_rnn_int8_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "gemm:int8"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t {
            key_h = 0, // u8 hidden states, [L * D][T + 1][N][HS] (rnn_dims_t::HS)
            key_c = 1, // f32 cell states of one layer and direction, [2][N][DHC]
            key_gates = 2, // f32 gates of one chunk of steps, [t_chunk][N][G * DHC]
            key_x = 3, // u8 input of one layer and direction, [T][N][SLC]
            key_hf = 4, // f32 rows of one step: new hidden state, GRU's dequantised previous one
            key_q = 5, // u8 GEMM input of one step: LSTMP hidden state, GRU r * h
            key_params = 6, // f32 bias (G + 1 rows) and zero peepholes (3 rows) of one layer and direction
            key_packed = 7, // weights_iter (GRU: three gates as two plans), projection and
                            // weights_layer, packed once per layer and direction
            key_plan_layer = 8,
            key_plan_iter = key_plan_layer + gemm::s8_key_count,
            key_plan_iter_o = key_plan_iter + gemm::s8_key_count,
            key_plan_proj = key_plan_iter_o + gemm::s8_key_count,
            key_plan_layer_tail = key_plan_proj + gemm::s8_key_count,
        };

        // The input GEMM runs over t_chunk steps at a time (plan_layer;
        // plan_layer_tail for the T % t_chunk left), just before those
        // steps' recurrence, so its f32 gates are still in cache when the
        // step GEMMs add onto them and the cell reads them.
        gemm::s8_plan_t plan_layer, plan_layer_tail, plan_iter, plan_iter_o, plan_proj;
        dim_t t_chunk = 1;
        // Room for plan_iter's (0), plan_iter_o's (1), plan_proj's (2) or
        // plan_layer's (3, shared by plan_layer_tail: the packed layout
        // does not depend on M) packed weights in key_packed, 64-byte
        // multiples (0 when unused). One chunk of steps reads the layer
        // weights once: its GEMM packs them block by block as it goes
        // (a packed copy would be one more pass over them through memory).
        size_t packed_bytes(int i) const {
            if ((i == 3 && (dims_.T <= t_chunk || wl_packed)) || (i <= 1 && wi_packed)) return 0;
            const gemm::s8_plan_t &p = i == 0 ? plan_iter : i == 1 ? plan_iter_o : i == 2 ? plan_proj : plan_layer;
            return (p.packed_b_bytes() + 63) / 64 * 64;
        }
        bool wl_t = false, wi_t = false, wp_t = false; // weights stored transposed (..goi / ..oi)
        // Weights given in Kestrel's packed layout (kestrel_rnn_packed_desc):
        // the GEMMs read their slices in place.
        bool wl_packed = false, wi_packed = false;
        dim_t x_stride = 0;
    };
    explicit gemm_rnn_int8_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
