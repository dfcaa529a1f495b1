// Recurrent backward on the GEMM engine (defined in rnn_bwd.cpp; listed in
// rnn_list.cpp).
#ifndef KESTREL_CPU_RNN_RNN_BWD_HPP
#define KESTREL_CPU_RNN_RNN_BWD_HPP

#include "cpu/gemm/gemm.hpp"
#include "cpu/rnn/rnn_pd.hpp"

namespace kestrel {

// f32 and bf16 data (rnn_bf16.hpp; every diff tensor f32, as oneDNN
// takes them), every cell, direction and layer count, back-propagation through
// time from the forward training workspace. Per layer (top down) and
// direction: per step (in reverse) the cell's derivative math and one or
// two GEMMs of the gate gradients with weights_iter for the previous
// hidden state's gradient; then, over all steps at once, one GEMM each for
// diff_weights_layer, diff_weights_iter and the layer input's gradient.
// Weights ldgoi or ldigo, diff weights ldigo or ldgoi (projection ldoi /
// ldio), every other descriptor any strided plain layout.
struct gemm_rnn_bwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, rnn_bwd_pd_t, gemm_rnn_bwd_t> {
        using base = pd_impl_t<pd_t, rnn_bwd_pd_t, gemm_rnn_bwd_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return is_bf16() ? "gemm:bf16" : "gemm:f32"; }
        status_t init(dnnl_engine *) override;

        enum : scratchpad::key_t {
            key_x = 0, // input of one layer and direction, T x N x SLC
            key_dx = 1, // gradients of a layer's output and input, two of T x N x x_stride
            key_dg = 2, // gate gradients of one layer and direction, T x N x G*DHC
            key_dgi = 3, // LBR: the gradients weights_iter sees, T x N x G*DHC
            key_hp = 4, // previous hidden state in time order, T x N x SIC
            key_rh = 5, // GRU: r * h_prev in time order, T x N x SIC
            key_proj = 6, // projection: o * tanh(c) and dh in time order
            key_step = 7, // bias / peephole rows and the per-step state gradients
            key_wcvt = 8, // bf16: weights_layer and weights_iter widened to f32
            // The weights of the per-step plans (p_dh .. p_dproj) packed
            // once per layer and direction, key_packed + plan id.
            key_packed = 9,
            key_plan = 16, // gemm plans from here, gemm::key_count each
        };
        // The first n_step_plans run at every time step.
        enum plan_id_t { p_dh, p_drh, p_ghc, p_dproj, p_dx, p_dwl, p_dwi, p_dwi_c, p_dwp, n_plans };
        static constexpr int n_step_plans = p_dproj + 1;
        static scratchpad::key_t plan_key(int id) { return key_plan + (scratchpad::key_t)id * gemm::key_count; }

        rnn_ws_layout_t ws;
        dim_t x_stride = 0;
        bool wl_t = false, wi_t = false, wp_t = false; // weights ldgoi / ldoi
        bool dwl_t = false, dwi_t = false, dwp_t = false; // diff weights ldgoi / ldoi
        gemm::plan_t plan[n_plans];
    };
    explicit gemm_rnn_bwd_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

} // namespace kestrel

#endif
