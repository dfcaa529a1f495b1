// Recurrent forward on the GEMM engine.
//
// States live in one area (the workspace in training, the scratchpad in
// inference) laid out as rnn_ws_layout() says (rnn_pd.hpp). A step s of a
// right-to-left direction processes time T - 1 - (s - 1), so the output at
// time t of that direction is H[T - t].
#include "cpu/rnn/rnn_fwd.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/eltwise/kernels.hpp"
#include "cpu/math/eltwise_math.hpp"
#include "cpu/rnn/rnn_bf16.hpp"
#include "cpu/rnn/rnn_cell.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

using rnn_cell::act_row;

} // namespace

status_t gemm_rnn_fwd_t::pd_t::init(dnnl_engine *) {
    const status_t st = init_common();
    if (st == status::unimplemented)
        return decline(name(), "f32 or bf16 (no projection) plain layouts without attributes only");
    KESTREL_CHECK(st);
    const rnn_dims_t &r = dims_;
    if (!rnn_weights_order(weights_layer_, dnnl_ldigo, dnnl_ldgoi, wl_t)
            || !rnn_weights_order(weights_iter_, dnnl_ldigo, dnnl_ldgoi, wi_t))
        return decline(name(), "weights must be ldigo or ldgoi");
    if (with_projection() && !rnn_weights_order(weights_projection_, dnnl_ldio, dnnl_ldoi, wp_t))
        return decline(name(), "projection weights must be ldio or ldoi");

    const size_t f = sizeof(float);
    const rnn_ws_layout_t ws = rnn_ws_layout(r, is_lstm());
    off_h = ws.off_h;
    off_c = ws.off_c;
    off_g = ws.off_g;
    states_bytes = ws.bytes;
    if (is_training()) {
        const dim_t bytes = (dim_t)states_bytes;
        KESTREL_CHECK(md_init_by_tag(ws_md_, 1, &bytes, dnnl_u8, dnnl_a));
    } else {
        scratchpad_registry().book(key_states, states_bytes);
    }
    // Layer 0 reads src_layer, layer l > 0 of direction d the states of
    // layer l - 1 of direction d (DIC == SLC columns), both copied here.
    x_stride = r.SLC;
    scratchpad_registry().book(key_x, (size_t)(r.T * r.N * x_stride) * f);
    // Bias (G + 1 rows, the last only for LBR cells) and peepholes (3
    // rows) of one layer and direction, dense, then the per-step buffer.
    const dim_t params = (r.G + 1 + 3) * r.DHC;
    step_elems = is_lbr() ? r.N * r.G * r.DHC : is_gru() ? r.N * r.SIC : with_projection() ? r.N * r.DHC : 0;
    scratchpad_registry().book(key_step, (size_t)(params + step_elems) * f);
    scratchpad_registry().book(key_wcvt, rnn_weights_f32_bytes(*this));

    const dim_t GD = r.G * r.DHC;
    KESTREL_CHECK(plan_layer.init(r.T * r.N, GD, r.SLC, false, wl_t));
    plan_layer.book(scratchpad_registry(), key_plan_layer);
    KESTREL_CHECK(plan_iter.init(r.N, is_gru() ? 2 * r.DHC : GD, r.SIC, false, wi_t));
    plan_iter.book(scratchpad_registry(), key_plan_iter);
    if (is_gru()) {
        KESTREL_CHECK(plan_iter_o.init(r.N, r.DHC, r.SIC, false, wi_t));
        plan_iter_o.book(scratchpad_registry(), key_plan_iter_o);
    }
    if (with_projection()) {
        KESTREL_CHECK(plan_proj.init(r.N, r.DIC, r.DHC, false, wp_t));
        plan_proj.book(scratchpad_registry(), key_plan_proj);
    }
    // Empty plans (no GRU output gate, no projection) book nothing.
    scratchpad_registry().book(key_wi_packed, plan_iter.packed_b_bytes(), 64);
    scratchpad_registry().book(key_wi_o_packed, plan_iter_o.packed_b_bytes(), 64);
    scratchpad_registry().book(key_wp_packed, plan_proj.packed_b_bytes(), 64);
    return status::success;
}

namespace {

// One layer and direction of one execution: pointers and sizes the cell
// steps share.
struct ld_ctx_t {
    const gemm_rnn_fwd_t::pd_t *pd;
    const scratchpad::grantor_t *g;
    dim_t T, N, G, DHC, DIC, GD;
    dim_t SIC, HS; // width of the previous state in the W_iter product; row stride of H
    int l, d;
    bool r2l;
    float *H, *C, *Gt; // this layer and direction's slices
    const float *wi; // weights_iter of (l, d)
    dim_t wi_ld;
    const float *wp; // projection of (l, d), or null
    dim_t wp_ld;
    // The same packed for the step GEMMs (null: the plan reads them as they are).
    float *wi_packed, *wi_o_packed, *wp_packed;
    const float *bias, *peep; // dense rows of (l, d), zero when absent
    float *step;
    const void *att;
    const memory_desc_t *att_md;
    const elt::kernels_t *kern; // vector activations, or null

    // Column (or, transposed, row block) of gate `gate` in weights_iter.
    const float *wi_gate(int gate) const {
        return wi + (pd->wi_t ? gate * DHC * SIC : gate * DHC);
    }
    float attention(dim_t t, dim_t n) const {
        return att ? load_f32(att_md->data_type, att, rnn_off(*att_md, t, n, 0)) : 0.f;
    }
};

status_t cell_step(const ld_ctx_t &c, dim_t s) {
    const auto *pd = c.pd;
    const elt::kernels_t *k = c.kern;
    const dim_t t = c.r2l ? c.T - 1 - s : s;
    // The previous state is SIC wide (SIC == DHC for the GRU family), the
    // new one DIC; rows of both are HS apart.
    const dim_t N = c.N, DHC = c.DHC, DIC = c.DIC, GD = c.GD, SIC = c.SIC, HS = c.HS;
    const float *hp = c.H + s * N * HS;
    float *hn = c.H + (s + 1) * N * HS;
    float *gates = c.Gt + t * N * GD;
    const float *b = c.bias;
    using K = gemm_rnn_fwd_t::pd_t;
    const dnnl_alg_kind_t cell = pd->desc().cell_kind;

    if (pd->is_lbr()) {
        // Hidden-state gates apart: the candidate gate needs r * (U_o h + b').
        KESTREL_CHECK(pd->plan_iter.execute(N, GD, SIC, 1.f, hp, HS, c.wi, c.wi_ld, 0.f, c.step, GD, *c.g,
                K::key_plan_iter, nullptr, c.wi_packed));
        parallel_nd(N, [&](dim_t n) {
            float *gx = gates + n * GD;
            const float *gh = c.step + n * GD;
            for (dim_t o = 0; o < 2 * DHC; ++o) gx[o] += gh[o];
            rnn_cell::gru_part1_row(k, gx, b, DHC);
            for (dim_t o = 0; o < DHC; ++o) gx[2 * DHC + o] += gx[DHC + o] * (gh[2 * DHC + o] + b[3 * DHC + o]);
            rnn_cell::gru_part2_row(k, gx, b, c.attention(t, n), hp + n * HS, hn + n * HS, DHC);
        });
        return status::success;
    }

    if (pd->is_gru()) {
        KESTREL_CHECK(pd->plan_iter.execute(N, 2 * DHC, SIC, 1.f, hp, HS, c.wi_gate(0), c.wi_ld, 1.f, gates, GD,
                *c.g, K::key_plan_iter, nullptr, c.wi_packed));
        parallel_nd(N, [&](dim_t n) {
            float *gx = gates + n * GD;
            rnn_cell::gru_part1_row(k, gx, b, DHC);
            for (dim_t o = 0; o < DHC; ++o) c.step[n * SIC + o] = gx[DHC + o] * hp[n * HS + o];
        });
        KESTREL_CHECK(pd->plan_iter_o.execute(N, DHC, SIC, 1.f, c.step, SIC, c.wi_gate(2), c.wi_ld, 1.f,
                gates + 2 * DHC, GD, *c.g, K::key_plan_iter_o, nullptr, c.wi_o_packed));
        parallel_nd(N, [&](dim_t n) {
            rnn_cell::gru_part2_row(k, gates + n * GD, b, c.attention(t, n), hp + n * HS, hn + n * HS, DHC);
        });
        return status::success;
    }

    KESTREL_CHECK(pd->plan_iter.execute(N, GD, SIC, 1.f, hp, HS, c.wi, c.wi_ld, 1.f, gates, GD, *c.g,
            K::key_plan_iter, nullptr, c.wi_packed));
    if (cell == dnnl_vanilla_rnn) {
        const dnnl_alg_kind_t act = pd->desc().activation;
        const float alpha = pd->desc().alpha, beta = pd->desc().beta;
        parallel_nd(N, [&](dim_t n) {
            float *gx = gates + n * GD;
            for (dim_t o = 0; o < DHC; ++o) gx[o] += b[o];
            act_row(k, act, alpha, beta, gx, DHC);
            for (dim_t o = 0; o < DHC; ++o) hn[n * HS + o] = gx[o];
        });
        return status::success;
    }

    // LSTM: gates i, f, c~, o; peepholes i, f, o (zero when absent).
    const float *cp = c.C + s * N * DHC;
    float *cn = c.C + (s + 1) * N * DHC;
    const float *p = c.peep;
    float *hout = c.wp ? c.step : hn;
    const dim_t hld = c.wp ? DHC : HS;
    parallel_nd(N, [&](dim_t n) {
        rnn_cell::lstm_row(k, gates + n * GD, b, p, cp + n * DHC, cn + n * DHC, hout + n * hld, DHC);
    });
    if (c.wp)
        KESTREL_CHECK(pd->plan_proj.execute(N, DIC, DHC, 1.f, c.step, DHC, c.wp, c.wp_ld, 0.f, hn, HS, *c.g,
                K::key_plan_proj, nullptr, c.wp_packed));
    return status::success;
}

} // namespace

status_t gemm_rnn_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const rnn_dims_t &r = pd->dims();
    const rnn_desc_t &desc = pd->desc();
    const auto &g = ctx.scratchpad();
    char *states = pd->is_training() ? ctx.output<char>(DNNL_ARG_WORKSPACE) : g.get<char>(pd_t::key_states);
    float *xbuf = g.get<float>(pd_t::key_x);
    float *params = g.get<float>(pd_t::key_step);
    float *wcvt = g.get<float>(pd_t::key_wcvt);
    if (!states || !xbuf || !params || (pd->is_bf16() && !wcvt)) return status::out_of_memory;
    float *H = reinterpret_cast<float *>(states + pd->off_h);
    float *C = reinterpret_cast<float *>(states + pd->off_c);
    float *Gt = reinterpret_cast<float *>(states + pd->off_g);
    const dim_t T = r.T, N = r.N, L = r.L, D = r.D, G = r.G, DHC = r.DHC, DIC = r.DIC, SLC = r.SLC;
    const dim_t SIC = r.SIC, HS = r.HS(), GD = G * DHC, xs = pd->x_stride;

    const memory_desc_t &src_md = *pd->arg_md(DNNL_ARG_SRC_LAYER), &dst_md = *pd->arg_md(DNNL_ARG_DST_LAYER);
    const void *src = ctx.input(DNNL_ARG_SRC_LAYER);
    void *dst = ctx.output(DNNL_ARG_DST_LAYER);
    const float *wl = nullptr, *wi = nullptr;
    rnn_weights_f32(ctx, *pd, wcvt, wl, wi);
    const float *wp = pd->with_projection()
            ? ctx.input<float>(DNNL_ARG_WEIGHTS_PROJECTION) + pd->arg_md(DNNL_ARG_WEIGHTS_PROJECTION)->offset0
            : nullptr;
    const void *bias = pd->with_bias() ? ctx.input(DNNL_ARG_BIAS) : nullptr;
    const void *peep = pd->with_peephole() ? ctx.input(DNNL_ARG_WEIGHTS_PEEPHOLE) : nullptr;
    const void *si = pd->with_src_iter() ? ctx.input(DNNL_ARG_SRC_ITER) : nullptr;
    const void *sic = pd->with_src_iter_c() ? ctx.input(DNNL_ARG_SRC_ITER_C) : nullptr;
    void *di = pd->with_dst_iter() ? ctx.output(DNNL_ARG_DST_ITER) : nullptr;
    void *dic = pd->with_dst_iter_c() ? ctx.output(DNNL_ARG_DST_ITER_C) : nullptr;
    const void *att = pd->is_augru() ? ctx.input(DNNL_ARG_AUGRU_ATTENTION) : nullptr;
    // bf16: hidden states are rounded as made, cell states when stored in bf16.
    const bool round_h = pd->is_bf16();
    const bool round_c = round_h && pd->is_lstm() && (pd->arg_md(DNNL_ARG_SRC_ITER_C)->data_type == dnnl_bf16
                                                             || pd->arg_md(DNNL_ARG_DST_ITER_C)->data_type == dnnl_bf16);

    // Layer 0's input, dense T x N x SLC.
    parallel_nd(T, N, [&](dim_t t, dim_t n) {
        rnn_load_row(src_md, src, t, n, SLC, xbuf + (t * N + n) * xs);
    });

    ld_ctx_t c;
    c.pd = pd;
    c.g = &g;
    c.T = T;
    c.N = N;
    c.G = G;
    c.DHC = DHC;
    c.DIC = DIC;
    c.GD = GD;
    c.SIC = SIC;
    c.HS = HS;
    c.wi_ld = pd->wi_t ? SIC : GD;
    c.wp_ld = pd->wp_t ? DHC : DIC;
    float *bias_row = params, *peep_row = params + (G + 1) * DHC;
    c.bias = bias_row;
    c.peep = peep_row;
    c.step = params + (G + 4) * DHC;
    c.att = att;
    c.kern = elt::best_kernels();
    c.att_md = pd->arg_md(DNNL_ARG_AUGRU_ATTENTION);
    // Null when the plan reads B in place (booked 0 bytes).
    c.wi_packed = pd->plan_iter.packs_b() ? g.get<float>(pd_t::key_wi_packed) : nullptr;
    c.wi_o_packed = pd->plan_iter_o.packs_b() ? g.get<float>(pd_t::key_wi_o_packed) : nullptr;
    c.wp_packed = pd->plan_proj.packs_b() ? g.get<float>(pd_t::key_wp_packed) : nullptr;
    const memory_desc_t &bmd = *pd->arg_md(DNNL_ARG_BIAS), &pmd = *pd->arg_md(DNNL_ARG_WEIGHTS_PEEPHOLE);
    const memory_desc_t &si_md = *pd->arg_md(DNNL_ARG_SRC_ITER), &sic_md = *pd->arg_md(DNNL_ARG_SRC_ITER_C);

    const bool concat = desc.direction == dnnl_bidirectional_concat;
    const bool sum = desc.direction == dnnl_bidirectional_sum;
    auto is_r2l = [&](dim_t d) { return desc.direction == dnnl_unidirectional_right2left || d == 1; };
    // Hidden state of (l, d) at time t, batch row n.
    auto h_at = [&](dim_t l, dim_t d, dim_t t, dim_t n) {
        const dim_t s = is_r2l(d) ? T - t : t + 1;
        return H + ((l * D + d) * (T + 1) + s) * N * HS + n * HS;
    };
    for (dim_t l = 0; l < L; ++l) {
        for (dim_t d = 0; d < D; ++d) {
            const dim_t ld = l * D + d;
            c.l = (int)l;
            c.d = (int)d;
            c.r2l = is_r2l(d);
            c.H = H + ld * (T + 1) * N * HS;
            c.C = C + ld * (T + 1) * N * DHC;
            c.Gt = Gt + ld * T * N * GD;
            c.wi = wi + ld * SIC * GD;
            c.wp = wp ? wp + ld * DHC * DIC : nullptr;
            if (c.wi_packed) pd->plan_iter.pack_b_all(pd->is_gru() ? c.wi_gate(0) : c.wi, c.wi_ld, c.wi_packed);
            if (c.wi_o_packed) pd->plan_iter_o.pack_b_all(c.wi_gate(2), c.wi_ld, c.wi_o_packed);
            if (c.wp_packed && c.wp) pd->plan_proj.pack_b_all(c.wp, c.wp_ld, c.wp_packed);
            for (dim_t k = 0; k < r.n_bias_gates(); ++k)
                for (dim_t o = 0; o < DHC; ++o)
                    bias_row[k * DHC + o] = bias ? load_f32(bmd.data_type, bias, rnn_off(bmd, l, d, k, o)) : 0.f;
            for (dim_t k = 0; k < 3; ++k)
                for (dim_t o = 0; o < DHC; ++o)
                    peep_row[k * DHC + o] = peep ? load_f32(pmd.data_type, peep, rnn_off(pmd, l, d, k, o)) : 0.f;
            parallel_nd(N, [&](dim_t n) {
                for (dim_t o = 0; o < SIC; ++o)
                    c.H[n * HS + o] = si ? load_f32(si_md.data_type, si, rnn_off(si_md, l, d, n, o)) : 0.f;
                if (round_h) rnn_round_bf16(c.H + n * HS, SIC);
                if (pd->is_lstm())
                    for (dim_t o = 0; o < DHC; ++o)
                        c.C[n * DHC + o] = sic ? load_f32(sic_md.data_type, sic, rnn_off(sic_md, l, d, n, o)) : 0.f;
            });
            // Above the first layer, the input is this direction's output
            // of the layer below (already rounded for bf16), in time order.
            if (l > 0)
                parallel_nd(T, N, [&](dim_t t, dim_t n) {
                    const float *h = h_at(l - 1, d, t, n);
                    float *x = xbuf + (t * N + n) * xs;
                    for (dim_t o = 0; o < SLC; ++o) x[o] = h[o];
                });
            const float *wl_ld_p = wl + ld * SLC * GD;
            KESTREL_CHECK(pd->plan_layer.execute(T * N, GD, SLC, 1.f, xbuf, xs, wl_ld_p, pd->wl_t ? SLC : GD, 0.f,
                    c.Gt, GD, g, pd_t::key_plan_layer));
            for (dim_t s = 0; s < T; ++s) {
                KESTREL_CHECK(cell_step(c, s));
                if (round_h)
                    for (dim_t n = 0; n < N; ++n) rnn_round_bf16(c.H + ((s + 1) * N + n) * HS, DIC);
                if (round_c) rnn_round_bf16(c.C + (s + 1) * N * DHC, N * DHC);
            }
        }
    }

    // dst_layer: the last layer's directions, concatenated or summed (bf16:
    // rounded once, at the store).
    parallel_nd(T, N, [&](dim_t t, dim_t n) {
        if (sum) {
            const float *h0 = h_at(L - 1, 0, t, n), *h1 = h_at(L - 1, 1, t, n);
            for (dim_t o = 0; o < DIC; ++o) store_f32(dst_md.data_type, dst, rnn_off(dst_md, t, n, o), h0[o] + h1[o]);
            return;
        }
        for (dim_t d = 0; d < D; ++d) {
            const float *h = h_at(L - 1, d, t, n);
            rnn_store_row(dst_md, dst, t, n, concat ? d * DIC : 0, DIC, h);
        }
    });

    const memory_desc_t &di_md = *pd->arg_md(DNNL_ARG_DST_ITER), &dic_md = *pd->arg_md(DNNL_ARG_DST_ITER_C);
    if (di || dic)
        parallel_nd(L, D, N, [&](dim_t l, dim_t d, dim_t n) {
            const dim_t ld = l * D + d;
            if (di) {
                const float *h = H + (ld * (T + 1) + T) * N * HS + n * HS;
                for (dim_t o = 0; o < DIC; ++o) store_f32(di_md.data_type, di, rnn_off(di_md, l, d, n, o), h[o]);
            }
            if (dic) {
                const float *cs = C + (ld * (T + 1) + T) * N * DHC + n * DHC;
                for (dim_t o = 0; o < DHC; ++o) store_f32(dic_md.data_type, dic, rnn_off(dic_md, l, d, n, o), cs[o]);
            }
        });
    return status::success;
}

} // namespace kestrel
