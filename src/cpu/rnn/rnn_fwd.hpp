// Recurrent forward on the GEMM engine (defined in rnn_fwd.cpp; listed in
// rnn_list.cpp).
#ifndef KESTREL_CPU_RNN_RNN_FWD_HPP
#define KESTREL_CPU_RNN_RNN_FWD_HPP

#include "cpu/gemm/gemm.hpp"
#include "cpu/rnn/rnn_pd.hpp"

namespace kestrel {

// f32 and bf16 (rnn_bf16.hpp: f32 math, bf16 at the edges), every cell,
// direction and layer count. Per layer and direction: one
// GEMM of the layer input over all time steps into the gates, then per step
// a GEMM of the previous hidden state into the gates and the cell's
// element-wise math; the recurrent weights are packed for the GEMM once per
// layer and direction, not at every step. Weights ldigo or ldgoi, projection ldio or ldoi, every
// other descriptor any strided plain layout.
struct gemm_rnn_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, rnn_fwd_pd_t, gemm_rnn_fwd_t> {
        using base = pd_impl_t<pd_t, rnn_fwd_pd_t, gemm_rnn_fwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return is_bf16() ? "gemm:bf16" : "gemm:f32"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t {
            key_states = 0, // hidden states, cell states, gates (inference)
            key_x = 1, // layer input of one layer and direction, T x N x SLC
            key_step = 2, // per-step buffer: LBR hidden gates, GRU r*h, LSTM o*tanh(c)
            key_wcvt = 3, // bf16: weights_layer and weights_iter widened to f32
            // weights_iter (GRU: its first two gates), its third GRU gate
            // and the projection, packed once per layer and direction for
            // the per-step GEMMs (only when their plans pack B)
            key_wi_packed = 4,
            key_wi_o_packed = 5,
            key_wp_packed = 6,
            key_plan_layer = 8,
            key_plan_iter = key_plan_layer + gemm::key_count,
            key_plan_iter_o = key_plan_iter + gemm::key_count,
            key_plan_proj = key_plan_iter_o + gemm::key_count,
        };

        // Byte offsets in the states area (workspace in training).
        size_t off_h = 0, off_c = 0, off_g = 0, states_bytes = 0;
        dim_t x_stride = 0; // channels of one row of the layer buffers
        gemm::plan_t plan_layer, plan_iter, plan_iter_o, plan_proj;
        bool wl_t = false, wi_t = false, wp_t = false; // weights stored transposed (..goi / ..oi)
        dim_t step_elems = 0;
    };
    explicit gemm_rnn_fwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
