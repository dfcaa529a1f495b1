// Recurrent backward on the GEMM engine: back-propagation through time
// over the states forward training left in the workspace (rnn_ws_layout).
//
// Per layer l (top down) and direction d, the gradient reaching the hidden
// state of step s is the part of the layer output's gradient at that step's
// time plus what step s + 1 sends back (diff_dst_iter for the last step).
// Each step turns it into pre-activation gate gradients dG (kept for the
// whole sequence, time-ordered) and the previous state's gradient:
//   dh_prev = dG x W_iter^T (+ the cell's direct terms)
// after which, over all steps at once,
//   diff_W_layer (+)= X^T x dG,  diff_W_iter (+)= H_prev^T x dG,
//   dX (+)= dG x W_layer^T (the layer input's gradient: for src_layer both
//          directions add; above layer 0 direction d's input was layer
//          l - 1's direction d, which gets this gradient alone),
// and diff_bias (+)= the column sums of dG. The weight gradients add to
// what the user's memory holds unless the diff_weights_overwrite flag is
// set, as oneDNN does.
#include "cpu/rnn/rnn_bwd.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cpu/gemm/s8_out.hpp" // KESTREL_VECTORIZE_CHEAP
#include "cpu/rnn/rnn_bf16.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

status_t gemm_rnn_bwd_t::pd_t::init(dnnl_engine *) {
    const status_t st = init_bwd_common();
    if (st == status::unimplemented)
        return decline(name(), "f32 or bf16 (no projection) plain layouts with f32 gradients, no attributes");
    KESTREL_CHECK(st);
    const rnn_dims_t &r = dims_;
    if (!rnn_weights_order(weights_layer_, dnnl_ldigo, dnnl_ldgoi, wl_t)
            || !rnn_weights_order(weights_iter_, dnnl_ldigo, dnnl_ldgoi, wi_t)
            || !rnn_weights_order(diff_weights_layer_, dnnl_ldigo, dnnl_ldgoi, dwl_t)
            || !rnn_weights_order(diff_weights_iter_, dnnl_ldigo, dnnl_ldgoi, dwi_t))
        return decline(name(), "weights and diff weights must be ldigo or ldgoi");
    if (with_projection()
            && (!rnn_weights_order(weights_projection_, dnnl_ldio, dnnl_ldoi, wp_t)
                    || !rnn_weights_order(diff_weights_projection_, dnnl_ldio, dnnl_ldoi, dwp_t)))
        return decline(name(), "projection weights must be ldio or ldoi");
    ws = rnn_ws_layout(r, is_lstm());

    const size_t f = sizeof(float);
    const dim_t T = r.T, N = r.N, TN = T * N, GD = r.G * r.DHC, DHC = r.DHC, DIC = r.DIC, SLC = r.SLC;
    const dim_t SIC = r.SIC, HS = r.HS();
    // The output gradients of a layer: the top layer's dst_layer gradient
    // (DLC columns), below it one SLC (== DIC) block per direction.
    x_stride = std::max(r.DLC, r.L > 1 ? r.D * SLC : SLC);
    auto &reg = scratchpad_registry();
    reg.book(key_x, (size_t)(TN * SLC) * f);
    reg.book(key_dx, 2 * (size_t)(TN * x_stride) * f);
    reg.book(key_dg, (size_t)(TN * GD) * f);
    if (is_lbr()) reg.book(key_dgi, (size_t)(TN * GD) * f);
    reg.book(key_hp, (size_t)(TN * SIC) * f);
    if (is_gru()) reg.book(key_rh, (size_t)(TN * SIC) * f);
    if (with_projection()) reg.book(key_proj, (size_t)(TN * (DHC + DIC)) * f);
    // Bias (G + 1 rows) and peepholes (3 rows) of one layer and direction;
    // dh (N x DIC), dh_prev (N x HS), dc, dhv and one temporary of
    // N x max(HS, DHC).
    const dim_t W = std::max(HS, DHC);
    reg.book(key_step, (size_t)((r.G + 4) * DHC + N * (DIC + HS + 2 * DHC + W)) * f);
    reg.book(key_wcvt, rnn_weights_f32_bytes(*this));

    // dh_prev = dG x W_iter^T; GRU splits off the candidate gate, whose
    // input is r * h_prev.
    const dim_t K_dh = is_gru() ? 2 * DHC : GD;
    KESTREL_CHECK(plan[p_dh].init(N, SIC, K_dh, false, !wi_t));
    if (is_gru()) KESTREL_CHECK(plan[p_drh].init(N, SIC, DHC, false, !wi_t));
    // LBR: the candidate gate's hidden part U_c h_prev, recomputed.
    if (is_lbr()) KESTREL_CHECK(plan[p_ghc].init(N, DHC, SIC, false, wi_t));
    if (with_projection()) {
        KESTREL_CHECK(plan[p_dproj].init(N, DHC, DIC, false, !wp_t));
        if (dwp_t) KESTREL_CHECK(plan[p_dwp].init(DIC, DHC, TN, true, false));
        else KESTREL_CHECK(plan[p_dwp].init(DHC, DIC, TN, true, false));
    }
    KESTREL_CHECK(plan[p_dx].init(TN, SLC, GD, false, !wl_t));
    if (dwl_t) KESTREL_CHECK(plan[p_dwl].init(GD, SLC, TN, true, false));
    else KESTREL_CHECK(plan[p_dwl].init(SLC, GD, TN, true, false));
    const dim_t ncols = is_gru() ? 2 * DHC : GD;
    if (dwi_t) KESTREL_CHECK(plan[p_dwi].init(ncols, SIC, TN, true, false));
    else KESTREL_CHECK(plan[p_dwi].init(SIC, ncols, TN, true, false));
    if (is_gru()) {
        if (dwi_t) KESTREL_CHECK(plan[p_dwi_c].init(DHC, SIC, TN, true, false));
        else KESTREL_CHECK(plan[p_dwi_c].init(SIC, DHC, TN, true, false));
    }
    const bool used[n_plans] = {true, is_gru(), is_lbr(), with_projection(), true, true, true, is_gru(),
            with_projection()};
    for (int i = 0; i < n_plans; ++i)
        if (used[i]) plan[i].book(reg, plan_key(i));
    for (int i = 0; i < n_step_plans; ++i)
        if (used[i]) reg.book(key_packed + i, plan[i].packed_b_bytes(), 64);
    return status::success;
}

namespace {

inline float sigmoid_d(float y) { return y * (1.f - y); }
inline float tanh_d(float y) { return 1.f - y * y; }

// The GRU's element-wise backward on one batch row of DHC, as separate
// functions vectorised with the cheap cost model (-O2 left the loops
// scalar; with the attention gradient's running sum inside, they could
// not vectorise at all): 6% of a GRU training step at N 32, C 256.
// Gates u and c~ (gx, dg: the row of G * DHC), dh_prev's direct share
// dhn, for u' = (1 - a) u, na = 1 - a.
KESTREL_VECTORIZE_CHEAP void gru_uc_row_bwd(const float *__restrict gx, const float *__restrict dh,
        const float *__restrict h0, float na, float *__restrict dgu, float *__restrict dgc,
        float *__restrict dhn, dim_t DHC) {
    const float *gc_row = gx + 2 * DHC;
    for (dim_t o = 0; o < DHC; ++o) {
        const float u = gx[o], gc = gc_row[o], ua = na * u;
        const float dua = dh[o] * (h0[o] - gc);
        dgu[o] = dua * na * sigmoid_d(u);
        dgc[o] = dh[o] * (1.f - ua) * tanh_d(gc);
        dhn[o] = dh[o] * ua;
    }
}

// acc[j] += x[j], j < n (diff_bias's column sums, a row at a time).
KESTREL_VECTORIZE_CHEAP void add_row(float *__restrict acc, const float *__restrict x, dim_t n) {
    for (dim_t j = 0; j < n; ++j) acc[j] += x[j];
}

// GRU, gate r from d(r h_prev) = drh: its gradient dgr, its share of
// dh_prev (added to dhn) and r * h_prev for the weights gradient.
KESTREL_VECTORIZE_CHEAP void gru_r_row_bwd(const float *__restrict gr, const float *__restrict drh,
        const float *__restrict h0, float *__restrict dgr, float *__restrict dhn,
        float *__restrict rhn, dim_t DHC) {
    for (dim_t o = 0; o < DHC; ++o) {
        const float r = gr[o];
        dgr[o] = drh[o] * h0[o] * sigmoid_d(r);
        dhn[o] += drh[o] * r;
        rhn[o] = r * h0[o];
    }
}

// One layer and direction of one execution.
struct bwd_ctx_t {
    const gemm_rnn_bwd_t::pd_t *pd;
    const scratchpad::grantor_t *g;
    dim_t T, N, G, DHC, DIC, GD, xs;
    dim_t SIC, HS; // width of the previous state (and of dh_prev); row stride of H and dhn
    bool r2l;
    const float *H, *C, *Gt; // workspace slices of (l, d)
    const float *wi, *wp; // weights_iter / projection of (l, d)
    const float *packed[gemm_rnn_bwd_t::pd_t::n_step_plans]; // their packed copies per step plan, or null
    const float *bias, *peep; // dense rows of (l, d), zero when absent
    const float *dout; // gradient of the layer output, row stride xs, this direction's columns
    float *dG, *dGi, *HP, *RH, *HV, *DHall;
    float *dh, *dhn, *dc, *dhv, *tmp; // dh: N x DIC, dhn: N x HS
    const void *att;
    const memory_desc_t *att_md;
    float *datt;
    const memory_desc_t *datt_md;

    // Pointer to gate block `gate` of weights_iter and its leading dim.
    const float *wi_gate(int gate) const { return wi + (pd->wi_t ? gate * DHC * SIC : gate * DHC); }
    dim_t wi_ld() const { return pd->wi_t ? SIC : GD; }
    dim_t step_of(dim_t t) const { return r2l ? T - t : t + 1; }
    // Without projection, step_prep_row runs inside the cell's row loop
    // (one parallel region a step fewer).
    bool fuse_prep = false;
};

// Row n of step s's start: dh = what step s + 1 sent back (dhn) plus the
// layer output's gradient at that time; h_prev kept time-ordered for the
// weights gradient; with projection, its input o * tanh(c) and dh.
void step_prep_row(const bwd_ctx_t &c, dim_t s, dim_t n) {
    const dim_t N = c.N, DIC = c.DIC, SIC = c.SIC, HS = c.HS, GD = c.GD, DHC = c.DHC;
    const dim_t t = c.r2l ? c.T - s : s - 1;
    const float *hp = c.H + (s - 1) * N * HS;
    const float *dy = c.dout + (t * N + n) * c.xs;
    float *dh = c.dh + n * DIC;
    const float *dn = c.dhn + n * HS;
    for (dim_t o = 0; o < DIC; ++o) dh[o] = dn[o] + dy[o];
    std::memcpy(c.HP + (t * N + n) * SIC, hp + n * HS, sizeof(float) * SIC);
    if (c.HV) {
        // o * tanh(c): the projection's input at this step.
        const float *gx = c.Gt + (t * N + n) * GD + 3 * DHC;
        const float *cs = c.C + (s * N + n) * DHC;
        float *hv = c.HV + (t * N + n) * DHC;
        for (dim_t k = 0; k < DHC; ++k) hv[k] = gx[k] * std::tanh(cs[k]);
        std::memcpy(c.DHall + (t * N + n) * DIC, dh, sizeof(float) * DIC);
    }
}

using K = gemm_rnn_bwd_t::pd_t;

status_t exec_plan(const bwd_ctx_t &c, int id, dim_t M, dim_t Nn, dim_t Kk, const float *A, dim_t lda,
        const float *B, dim_t ldb, float beta, float *Cm, dim_t ldc) {
    return c.pd->plan[id].execute(M, Nn, Kk, 1.f, A, lda, B, ldb, beta, Cm, ldc, *c.g, K::plan_key(id), nullptr,
            id < K::n_step_plans ? c.packed[id] : nullptr);
}

// Step s (1..T) backwards: dh (the hidden state's full gradient) is ready;
// fills dG / dGi at time t, updates dc and leaves dh_prev in dhn.
status_t cell_step_bwd(const bwd_ctx_t &c, dim_t s) {
    const auto *pd = c.pd;
    const dim_t t = c.r2l ? c.T - s : s - 1;
    const dim_t N = c.N, DHC = c.DHC, DIC = c.DIC, GD = c.GD, SIC = c.SIC, HS = c.HS;
    const float *hp = c.H + (s - 1) * N * HS;
    const float *gates = c.Gt + t * N * GD;
    float *dG = c.dG + t * N * GD;
    const dnnl_alg_kind_t cell = pd->desc().cell_kind;

    if (cell == dnnl_vanilla_rnn) {
        const dnnl_alg_kind_t act = pd->desc().activation;
        const float alpha = pd->desc().alpha;
        parallel_nd(N, [&](dim_t n) {
            if (c.fuse_prep) step_prep_row(c, s, n);
            const float *gx = gates + n * GD, *dh = c.dh + n * DIC;
            float *dg = dG + n * GD;
            if (act == dnnl_eltwise_relu)
                for (dim_t o = 0; o < DHC; ++o) dg[o] = dh[o] * (gx[o] > 0.f ? 1.f : alpha);
            else if (act == dnnl_eltwise_tanh)
                for (dim_t o = 0; o < DHC; ++o) dg[o] = dh[o] * tanh_d(gx[o]);
            else
                for (dim_t o = 0; o < DHC; ++o) dg[o] = dh[o] * sigmoid_d(gx[o]);
        });
        return exec_plan(c, K::p_dh, N, SIC, GD, dG, GD, c.wi, c.wi_ld(), 0.f, c.dhn, HS);
    }

    if (cell == dnnl_vanilla_lstm) {
        const float *cs = c.C + s * N * DHC, *cp = c.C + (s - 1) * N * DHC;
        const float *p = c.peep;
        const float *dhv_all = c.HV ? c.dhv : c.dh; // with projection dhv holds dh x P^T
        parallel_nd(N, [&](dim_t n) {
            if (c.fuse_prep) step_prep_row(c, s, n);
            const float *gx = gates + n * GD, *c1 = cs + n * DHC, *c0 = cp + n * DHC;
            const float *dh = dhv_all + n * DHC;
            float *dg = dG + n * GD, *dc = c.dc + n * DHC;
            for (dim_t o = 0; o < DHC; ++o) {
                const float gi = gx[o], gf = gx[DHC + o], gc = gx[2 * DHC + o], go = gx[3 * DHC + o];
                const float tc = std::tanh(c1[o]);
                const float d_o = dh[o] * tc * sigmoid_d(go);
                const float dct = dc[o] + dh[o] * go * tanh_d(tc) + d_o * p[2 * DHC + o];
                const float d_i = dct * gc * sigmoid_d(gi);
                const float d_f = dct * c0[o] * sigmoid_d(gf);
                dg[o] = d_i;
                dg[DHC + o] = d_f;
                dg[2 * DHC + o] = dct * gi * tanh_d(gc);
                dg[3 * DHC + o] = d_o;
                dc[o] = dct * gf + d_i * p[o] + d_f * p[DHC + o];
            }
        });
        return exec_plan(c, K::p_dh, N, SIC, GD, dG, GD, c.wi, c.wi_ld(), 0.f, c.dhn, HS);
    }

    // GRU family: h = u' h_prev + (1 - u') c~, u' = (1 - a) u.
    const bool lbr = pd->is_lbr();
    if (lbr) {
        // gh_c = U_c h_prev (+ b'_c below), which forward did not keep.
        KESTREL_CHECK(exec_plan(c, K::p_ghc, N, DHC, SIC, hp, HS, c.wi_gate(2), c.wi_ld(), 0.f, c.tmp, DHC));
    }
    float *dGi = lbr ? c.dGi + t * N * GD : nullptr;
    parallel_nd(N, [&](dim_t n) {
        if (c.fuse_prep) step_prep_row(c, s, n);
        const float *gx = gates + n * GD, *dh = c.dh + n * DIC, *h0 = hp + n * HS;
        float *dg = dG + n * GD, *dhn = c.dhn + n * HS;
        const float a = c.att ? load_f32(c.att_md->data_type, c.att, rnn_off(*c.att_md, t, n, 0)) : 0.f;
        gru_uc_row_bwd(gx, dh, h0, 1.f - a, dg, dg + 2 * DHC, dhn, DHC);
        if (lbr) {
            const float *ghc = c.tmp + n * DHC, *b2 = c.bias + 3 * DHC;
            float *dgi = dGi + n * GD;
            for (dim_t o = 0; o < DHC; ++o) {
                const float r = gx[DHC + o], dcc = dg[2 * DHC + o];
                dg[DHC + o] = dcc * (ghc[o] + b2[o]) * sigmoid_d(r);
                dgi[o] = dg[o];
                dgi[DHC + o] = dg[DHC + o];
                dgi[2 * DHC + o] = dcc * r;
            }
        }
        if (c.datt) {
            float da = 0.f;
            for (dim_t o = 0; o < DHC; ++o) da -= dh[o] * (h0[o] - gx[2 * DHC + o]) * gx[o];
            c.datt[rnn_off(*c.datt_md, t, n, 0)] += da;
        }
    });
    if (lbr) return exec_plan(c, K::p_dh, N, SIC, GD, dGi, GD, c.wi, c.wi_ld(), 1.f, c.dhn, HS);

    // GRU: d(r h_prev) = dc~ x U_c^T, then r's gradient and r's share of
    // dh_prev, then the u and r gates' share through U_{u,r}.
    KESTREL_CHECK(exec_plan(c, K::p_drh, N, SIC, DHC, dG + 2 * DHC, GD, c.wi_gate(2), c.wi_ld(), 0.f, c.tmp, SIC));
    float *rh = c.RH + t * N * SIC;
    parallel_nd(N, [&](dim_t n) {
        const float *gx = gates + n * GD, *drh = c.tmp + n * SIC, *h0 = hp + n * HS;
        gru_r_row_bwd(gx + DHC, drh, h0, dG + n * GD + DHC, c.dhn + n * HS, rh + n * SIC, DHC);
    });
    return exec_plan(c, K::p_dh, N, SIC, 2 * DHC, dG, GD, c.wi, c.wi_ld(), 1.f, c.dhn, HS);
}

} // namespace

status_t gemm_rnn_bwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const rnn_dims_t &r = pd->dims();
    const rnn_desc_t &desc = pd->desc();
    const auto &g = ctx.scratchpad();
    const char *states = ctx.input<char>(DNNL_ARG_WORKSPACE);
    float *xbuf = g.get<float>(pd_t::key_x), *dxbuf = g.get<float>(pd_t::key_dx);
    float *dGbuf = g.get<float>(pd_t::key_dg), *HPbuf = g.get<float>(pd_t::key_hp);
    float *stepbuf = g.get<float>(pd_t::key_step);
    float *dGibuf = pd->is_lbr() ? g.get<float>(pd_t::key_dgi) : nullptr;
    float *RHbuf = pd->is_gru() ? g.get<float>(pd_t::key_rh) : nullptr;
    float *projbuf = pd->with_projection() ? g.get<float>(pd_t::key_proj) : nullptr;
    float *wcvt = g.get<float>(pd_t::key_wcvt);
    if (!states || !xbuf || !dxbuf || !dGbuf || !HPbuf || !stepbuf || (pd->is_lbr() && !dGibuf)
            || (pd->is_bf16() && !wcvt)
            || (pd->is_gru() && !RHbuf) || (pd->with_projection() && !projbuf))
        return status::out_of_memory;
    const float *H = reinterpret_cast<const float *>(states + pd->ws.off_h);
    const float *C = reinterpret_cast<const float *>(states + pd->ws.off_c);
    const float *Gt = reinterpret_cast<const float *>(states + pd->ws.off_g);
    const dim_t T = r.T, N = r.N, L = r.L, D = r.D, G = r.G, DHC = r.DHC, DIC = r.DIC, SLC = r.SLC;
    const dim_t GD = G * DHC, TN = T * N, xs = pd->x_stride, NB = r.n_bias_gates();
    const dim_t SIC = r.SIC, HS = r.HS();
    const bool concat = desc.direction == dnnl_bidirectional_concat;
    const float beta_w = pd->diff_weights_overwrite() ? 0.f : 1.f;

    auto md = [&](int arg) -> const memory_desc_t & { return *pd->arg_md(arg); };
    auto in = [&](int arg) { return ctx.input<float>(arg); };
    auto out = [&](int arg) { return ctx.output<float>(arg); };
    const void *src = ctx.input(DNNL_ARG_SRC_LAYER);
    const float *wl = nullptr, *wi = nullptr;
    rnn_weights_f32(ctx, *pd, wcvt, wl, wi);
    const float *wp = pd->with_projection()
            ? in(DNNL_ARG_WEIGHTS_PROJECTION) + md(DNNL_ARG_WEIGHTS_PROJECTION).offset0
            : nullptr;
    const void *bias = pd->with_bias() ? ctx.input(DNNL_ARG_BIAS) : nullptr;
    const void *peep = pd->with_peephole() ? ctx.input(DNNL_ARG_WEIGHTS_PEEPHOLE) : nullptr;
    const void *att = pd->is_augru() ? ctx.input(DNNL_ARG_AUGRU_ATTENTION) : nullptr;
    const float *ddst = in(DNNL_ARG_DIFF_DST_LAYER);
    const float *ddi = pd->with_dst_iter() ? in(DNNL_ARG_DIFF_DST_ITER) : nullptr;
    const float *ddic = pd->with_dst_iter_c() ? in(DNNL_ARG_DIFF_DST_ITER_C) : nullptr;
    float *dsrc = out(DNNL_ARG_DIFF_SRC_LAYER);
    float *dsi = pd->with_src_iter() ? out(DNNL_ARG_DIFF_SRC_ITER) : nullptr;
    float *dsic = pd->with_src_iter_c() ? out(DNNL_ARG_DIFF_SRC_ITER_C) : nullptr;
    float *dwl = out(DNNL_ARG_DIFF_WEIGHTS_LAYER) + md(DNNL_ARG_DIFF_WEIGHTS_LAYER).offset0;
    float *dwi = out(DNNL_ARG_DIFF_WEIGHTS_ITER) + md(DNNL_ARG_DIFF_WEIGHTS_ITER).offset0;
    float *dwp = pd->with_projection()
            ? out(DNNL_ARG_DIFF_WEIGHTS_PROJECTION) + md(DNNL_ARG_DIFF_WEIGHTS_PROJECTION).offset0
            : nullptr;
    float *dbias = pd->with_bias() ? out(DNNL_ARG_DIFF_BIAS) : nullptr;
    float *dpeep = pd->with_peephole() ? out(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE) : nullptr;
    float *datt = pd->is_augru() ? out(DNNL_ARG_DIFF_AUGRU_ATTENTION) : nullptr;

    // Attention is shared by every layer and direction: its gradient sums
    // all of theirs.
    if (datt) {
        const memory_desc_t &m = md(DNNL_ARG_DIFF_AUGRU_ATTENTION);
        parallel_nd(T, N, [&](dim_t t, dim_t n) { datt[rnn_off(m, t, n, 0)] = 0.f; });
    }

    // The top layer's output gradient, dense T x N x DLC (row stride xs).
    float *dout = dxbuf, *din = dxbuf + TN * xs;
    {
        const memory_desc_t &m = md(DNNL_ARG_DIFF_DST_LAYER);
        parallel_nd(T, N, [&](dim_t t, dim_t n) {
            rnn_load_row(m, ddst, t, n, r.DLC, dout + (t * N + n) * xs);
        });
    }

    bwd_ctx_t c;
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
    c.xs = xs;
    float *bias_row = stepbuf, *peep_row = stepbuf + (G + 1) * DHC;
    c.bias = bias_row;
    c.peep = peep_row;
    c.dh = stepbuf + (G + 4) * DHC;
    c.dhn = c.dh + N * DIC;
    c.dc = c.dhn + N * HS;
    c.dhv = c.dc + N * DHC;
    c.tmp = c.dhv + N * DHC;
    c.dG = dGbuf;
    c.dGi = dGibuf;
    c.HP = HPbuf;
    c.RH = RHbuf;
    c.HV = projbuf;
    c.DHall = projbuf ? projbuf + TN * DHC : nullptr;
    c.att = att;
    c.att_md = pd->arg_md(DNNL_ARG_AUGRU_ATTENTION);
    c.datt = datt;
    c.datt_md = pd->arg_md(DNNL_ARG_DIFF_AUGRU_ATTENTION);
    const memory_desc_t &bmd = md(DNNL_ARG_BIAS), &pmd = md(DNNL_ARG_WEIGHTS_PEEPHOLE);
    const memory_desc_t &dbmd = md(DNNL_ARG_DIFF_BIAS), &dpmd = md(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE);

    auto is_r2l = [&](dim_t d) { return desc.direction == dnnl_unidirectional_right2left || d == 1; };
    for (dim_t l = L - 1; l >= 0; --l) {
        // Layer 0 reads src_layer (both directions).
        if (l == 0) {
            const memory_desc_t &m = md(DNNL_ARG_SRC_LAYER);
            parallel_nd(T, N, [&](dim_t t, dim_t n) {
                rnn_load_row(m, src, t, n, SLC, xbuf + (t * N + n) * SLC);
            });
        }

        for (dim_t d = 0; d < D; ++d) {
            const dim_t ld = l * D + d;
            c.r2l = is_r2l(d);
            // Above layer 0, direction d read the states of layer l - 1 of
            // direction d (SLC == DIC columns), rebuilt here in time order.
            if (l > 0)
                parallel_nd(T, N, [&](dim_t t, dim_t n) {
                    const dim_t s = c.r2l ? T - t : t + 1;
                    const float *h = H + (((l - 1) * D + d) * (T + 1) + s) * N * HS + n * HS;
                    std::memcpy(xbuf + (t * N + n) * SLC, h, sizeof(float) * SLC);
                });
            c.H = H + ld * (T + 1) * N * HS;
            c.C = C + ld * (T + 1) * N * DHC;
            c.Gt = Gt + ld * TN * GD;
            c.wi = wi + ld * SIC * GD;
            c.wp = wp ? wp + ld * DHC * DIC : nullptr;
            c.fuse_prep = !c.wp;
            // The top layer's output gradient is dst_layer's (concat: this
            // direction's columns; sum: all of it); below, each direction
            // has its own block, the input gradient of the layer above.
            c.dout = dout + (l < L - 1 || concat ? d * DIC : 0);
            // The per-step plans' weights, packed once for all T steps.
            for (int i = 0; i < pd_t::n_step_plans; ++i) {
                float *p = pd->plan[i].packs_b() ? g.get<float>(pd_t::key_packed + i) : nullptr;
                const float *b = i == pd_t::p_dh ? c.wi : i == pd_t::p_dproj ? c.wp : c.wi_gate(2);
                const dim_t ldb = i == pd_t::p_dproj ? (pd->wp_t ? DHC : DIC) : c.wi_ld();
                if (p && b) pd->plan[i].pack_b_all(b, ldb, p);
                c.packed[i] = p && b ? p : nullptr;
            }
            for (dim_t k = 0; k < NB; ++k)
                for (dim_t o = 0; o < DHC; ++o)
                    bias_row[k * DHC + o] = bias ? load_f32(bmd.data_type, bias, rnn_off(bmd, l, d, k, o)) : 0.f;
            for (dim_t k = 0; k < 3; ++k)
                for (dim_t o = 0; o < DHC; ++o)
                    peep_row[k * DHC + o] = peep ? load_f32(pmd.data_type, peep, rnn_off(pmd, l, d, k, o)) : 0.f;
            {
                const memory_desc_t &m = md(DNNL_ARG_DIFF_DST_ITER), &mc = md(DNNL_ARG_DIFF_DST_ITER_C);
                parallel_nd(N, [&](dim_t n) {
                    for (dim_t o = 0; o < DIC; ++o) c.dhn[n * HS + o] = ddi ? ddi[rnn_off(m, l, d, n, o)] : 0.f;
                    for (dim_t o = 0; o < DHC; ++o)
                        c.dc[n * DHC + o] = ddic ? ddic[rnn_off(mc, l, d, n, o)] : 0.f;
                });
            }

            for (dim_t s = T; s >= 1; --s) {
                if (!c.fuse_prep) parallel_nd(N, [&](dim_t n) { step_prep_row(c, s, n); });
                if (c.wp)
                    KESTREL_CHECK(exec_plan(c, pd_t::p_dproj, N, DHC, DIC, c.dh, DIC, c.wp, pd->wp_t ? DHC : DIC, 0.f,
                            c.dhv, DHC));
                KESTREL_CHECK(cell_step_bwd(c, s));
            }

            // diff_src_iter(_c): the gradient of the initial states.
            if (dsi || dsic) {
                const memory_desc_t &m = md(DNNL_ARG_DIFF_SRC_ITER), &mc = md(DNNL_ARG_DIFF_SRC_ITER_C);
                parallel_nd(N, [&](dim_t n) {
                    if (dsi)
                        for (dim_t o = 0; o < SIC; ++o) dsi[rnn_off(m, l, d, n, o)] = c.dhn[n * HS + o];
                    if (dsic)
                        for (dim_t o = 0; o < DHC; ++o) dsic[rnn_off(mc, l, d, n, o)] = c.dc[n * DHC + o];
                });
            }

            // Weight gradients over all steps at once.
            float *dwl_ld = dwl + ld * SLC * GD, *dwi_ld = dwi + ld * SIC * GD;
            auto run = [&](int id, dim_t M, dim_t Nn, const float *A, dim_t lda, const float *B, dim_t ldb,
                               float beta, float *Cm, dim_t ldc) {
                return pd->plan[id].execute(M, Nn, TN, 1.f, A, lda, B, ldb, beta, Cm, ldc, g, pd_t::plan_key(id));
            };
            if (pd->dwl_t) KESTREL_CHECK(run(pd_t::p_dwl, GD, SLC, c.dG, GD, xbuf, SLC, beta_w, dwl_ld, SLC));
            else KESTREL_CHECK(run(pd_t::p_dwl, SLC, GD, xbuf, SLC, c.dG, GD, beta_w, dwl_ld, GD));
            const float *dGi = pd->is_lbr() ? c.dGi : c.dG;
            const dim_t ncols = pd->is_gru() ? 2 * DHC : GD;
            if (pd->dwi_t) KESTREL_CHECK(run(pd_t::p_dwi, ncols, SIC, dGi, GD, c.HP, SIC, beta_w, dwi_ld, SIC));
            else KESTREL_CHECK(run(pd_t::p_dwi, SIC, ncols, c.HP, SIC, dGi, GD, beta_w, dwi_ld, GD));
            if (pd->is_gru()) {
                if (pd->dwi_t)
                    KESTREL_CHECK(run(pd_t::p_dwi_c, DHC, SIC, c.dG + 2 * DHC, GD, c.RH, SIC, beta_w,
                            dwi_ld + 2 * DHC * SIC, SIC));
                else
                    KESTREL_CHECK(run(pd_t::p_dwi_c, SIC, DHC, c.RH, SIC, c.dG + 2 * DHC, GD, beta_w,
                            dwi_ld + 2 * DHC, GD));
            }
            if (dwp) {
                float *dwp_ld = dwp + ld * DHC * DIC;
                if (pd->dwp_t) KESTREL_CHECK(run(pd_t::p_dwp, DIC, DHC, c.DHall, DIC, c.HV, DHC, beta_w, dwp_ld, DHC));
                else KESTREL_CHECK(run(pd_t::p_dwp, DHC, DIC, c.HV, DHC, c.DHall, DIC, beta_w, dwp_ld, DIC));
            }
            if (dbias) {
                // Column sums over the TN rows, walked row by row over
                // blocks of 64 columns (contiguous reads; each column still
                // adds its rows in order). Columns [0, G * DHC) are dG's;
                // the LBR extra row is the candidate's hidden-side bias,
                // dGi's columns [2 * DHC, 3 * DHC).
                constexpr dim_t CB = 64;
                const dim_t NC = NB * DHC, GC = G * DHC;
                parallel_nd((NC + CB - 1) / CB, [&](dim_t b) {
                    const dim_t j0 = b * CB, j1 = std::min(NC, j0 + CB);
                    const dim_t ja = std::min(j1, GC), jb = std::max(j0, GC);
                    float acc[CB] = {};
                    for (dim_t i = 0; i < TN; ++i) {
                        if (ja > j0) add_row(acc, c.dG + i * GD + j0, ja - j0);
                        if (jb < j1) add_row(acc + (jb - j0), c.dGi + i * GD + 2 * DHC - GC + jb, j1 - jb);
                    }
                    for (dim_t j = j0; j < j1; ++j) {
                        float &dst = dbias[rnn_off(dbmd, l, d, j / DHC, j % DHC)];
                        dst = beta_w != 0.f ? dst + acc[j - j0] : acc[j - j0];
                    }
                });
            }
            if (dpeep)
                parallel_nd(3, DHC, [&](dim_t k, dim_t o) {
                    // i and f see c_prev, o sees the new c.
                    const dim_t gate = k == 2 ? 3 : k;
                    float acc = 0.f;
                    for (dim_t t = 0; t < T; ++t) {
                        const dim_t s = c.r2l ? T - t : t + 1;
                        const float *cst = c.C + (k == 2 ? s : s - 1) * N * DHC;
                        for (dim_t n = 0; n < N; ++n)
                            acc += c.dG[(t * N + n) * GD + gate * DHC + o] * cst[n * DHC + o];
                    }
                    float &dst = dpeep[rnn_off(dpmd, l, d, k, o)];
                    dst = beta_w != 0.f ? dst + acc : acc;
                });

            // The layer input's gradient: for src_layer both directions
            // add; above layer 0 it is direction d's own block.
            KESTREL_CHECK(pd->plan[pd_t::p_dx].execute(TN, SLC, GD, 1.f, c.dG, GD, wl + ld * SLC * GD,
                    pd->wl_t ? SLC : GD, l == 0 && d > 0 ? 1.f : 0.f, din + (l > 0 ? d * SLC : 0), xs, g,
                    pd_t::plan_key(pd_t::p_dx)));
        }
        std::swap(dout, din);
    }

    // dout now holds layer 0's input gradient.
    const memory_desc_t &dsm = md(DNNL_ARG_DIFF_SRC_LAYER);
    parallel_nd(T, N, [&](dim_t t, dim_t n) {
        rnn_store_row(dsm, dsrc, t, n, 0, SLC, dout + (t * N + n) * xs);
    });
    return status::success;
}

} // namespace kestrel
