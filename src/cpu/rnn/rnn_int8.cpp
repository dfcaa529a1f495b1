// int8 recurrent inference: see rnn_int8.hpp.
//
// Quantisation (oneDNN's): with the data qparams (scale, shift), a value f
// is stored as u8 q = saturate(round_half_even(scale * f + shift)) and read
// back as (q - shift) / scale. A GEMM of u8 q by s8 weights w (quantised
// with scale ws per gate and channel) gives acc = sum_k q_k w_k, and
//   sum_k f_k w_k / ws = (acc - shift * sum_k w_k) / (scale * ws),
// so each column's compensation sum_k w_k (the GEMM's column sums of the
// weights, made at execution) removes the shift.
#include "cpu/rnn/rnn_int8.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/gemm/s8_out.hpp"
#include "cpu/prefetch.hpp"
#include "cpu/rnn/rnn_cell.hpp"
#include "cpu/rnn/rnn_int8_rows.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

bool finite_nonzero(float v) { return std::isfinite(v) && v != 0.f; }

// The scales of one weights tensor: nothing set (one scale of 1), mask 0
// (one scale), or the mask selecting the output dims (one scale per
// output column). Other masks are not offered by oneDNN's CPU.
status_t check_wscales(int mask, const std::vector<float> &scales, int per_col_mask, dim_t cols) {
    if (scales.empty()) return status::success;
    if (mask != 0 && mask != per_col_mask) return status::unimplemented;
    if ((dim_t)scales.size() != (mask ? cols : 1)) return status::invalid_arguments;
    for (float v : scales)
        if (!finite_nonzero(v)) return status::invalid_arguments;
    return status::success;
}

inline uint8_t quant_u8(float f, float scale, float shift) {
    const float v = std::nearbyint(f * scale + shift);
    if (!(v > 0.f)) return 0; // NaN too
    return v >= 255.f ? 255 : (uint8_t)v;
}

inline float dequant_u8(uint8_t q, float inv_scale, float shift) { return ((float)q - shift) * inv_scale; }

// Turns a tile of s32 sums into f32 gates (written or added), or, for the
// projection, into the u8 hidden state.
// One row of a tile: (acc - comp) * inv into (or onto) f32 output; asks
// for vector code (it runs once per gate element of every step).
template <bool accumulate>
KESTREL_VECTORIZE_CHEAP void deq_row(float *out, const int32_t *a, const double *comp, const float *inv, dim_t n) {
    for (dim_t j = 0; j < n; ++j) {
        const float f = (float)((double)a[j] - comp[j]) * inv[j];
        out[j] = accumulate ? out[j] + f : f;
    }
}

struct deq_out_t : gemm::s8_epilogue_t {
    float dscale = 1.f, dshift = 0.f;
    const float *inv = nullptr; // per output column: 1 / (dscale * weights scale)
    // dshift an integer small enough that shift * col_sum and acc minus it
    // stay in int32 (then the s32 subtraction is exact and the float is
    // the same as the double path's).
    bool int_shift = false;
    float *out = nullptr;
    uint8_t *qout = nullptr;
    dim_t ldo = 0;
    dim_t nrows = 0; // the GEMM's M: the rows of out / qout this epilogue writes
    bool accumulate = false;
    const rnn_int8::rows_t *rows = nullptr; // vector rows (nullptr: the scalar loops)

    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld, const int32_t *,
            const int32_t *col_sum) const override {
        // Compensation once per tile (n <= the kernel's NR), then the tile
        // row by row along contiguous rows of the output.
        const float *iv = inv + n0;
        double comp[gemm::s8_max_nr];
        int32_t comp_i[gemm::s8_max_nr];
        if (rows && int_shift) {
            const int32_t sh = (int32_t)dshift;
            for (dim_t j = 0; j < n; ++j) comp_i[j] = sh * col_sum[j];
        } else
            for (dim_t j = 0; j < n; ++j) comp[j] = (double)dshift * col_sum[j];
        for (dim_t i = 0; i < m; ++i) {
            const int32_t *a = acc + i * ld;
            const dim_t o = (m0 + i) * ldo + n0;
            if (rows) {
                float t[gemm::s8_max_nr];
                float *dst = qout ? t : out + o;
                if (int_shift) rows->deq_int(dst, a, comp_i, iv, n, accumulate && !qout);
                else rows->deq(dst, a, comp, iv, n, accumulate && !qout);
                if (qout) rows->quant(qout + o, t, n, dscale, dshift);
            } else if (qout)
                for (dim_t j = 0; j < n; ++j)
                    qout[o + j] = quant_u8((float)((double)a[j] - comp[j]) * iv[j], dscale, dshift);
            else if (accumulate)
                deq_row<true>(out + o, a, comp, iv, n);
            else
                deq_row<false>(out + o, a, comp, iv, n);
        }
        // The GEMM runs an N panel down all its rows before the next: the
        // next tile's output rows (a row stride apart, which the hardware
        // prefetchers do not follow) are fetched now so that their read
        // (accumulate) or first write does not wait on L3 or memory.
        // int8 LSTM 2 x 1024 mb64, Zen 4: 1.04x (7 rounds).
        const dim_t m_end = m0 + 2 * m < nrows ? m0 + 2 * m : nrows;
        for (dim_t i = m0 + m; i < m_end; ++i) {
            const dim_t o = i * ldo + n0;
            if (qout) pf_write(qout + o, n);
            else pf_write(out + o, n * (dim_t)sizeof(float));
        }
    }
};

} // namespace

status_t rnn_fwd_pd_t::int8_types_ok() const {
    if (desc_.prop_kind != dnnl_forward_inference) return status::unimplemented;
    if (!one_of(desc_.cell_kind, dnnl_vanilla_lstm, dnnl_vanilla_gru) || with_peephole())
        return status::unimplemented;
    auto is = [](const memory_desc_t &md, dnnl_data_type_t a, dnnl_data_type_t b) {
        return md.ndims == 0 || md.data_type == a || md.data_type == b;
    };
    // s8 activations need AMX in oneDNN's CPU; u8 only here.
    if (src_layer_.data_type != dnnl_u8 || weights_layer_.data_type != dnnl_s8
            || weights_iter_.data_type != dnnl_s8 || !is(weights_projection_, dnnl_s8, dnnl_s8)
            || !is(bias_, dnnl_f32, dnnl_f32) || !is(src_iter_, dnnl_u8, dnnl_f32)
            || !is(dst_iter_, dnnl_u8, dnnl_f32) || !is(dst_layer_, dnnl_u8, dnnl_f32)
            || !is(src_iter_c_, dnnl_f32, dnnl_f32) || !is(dst_iter_c_, dnnl_f32, dnnl_f32))
        return status::unimplemented;
    const attr_t &a = attr_;
    if (!std::isfinite(a.rnn_data_shift) || !finite_nonzero(a.rnn_data_scale)) return status::invalid_arguments;
    // ldigo: g is dim 3, o dim 4; ldio: o is dim 3.
    KESTREL_CHECK(check_wscales(a.rnn_weights_mask, a.rnn_weights_scales, (1 << 3) | (1 << 4), dims_.G * dims_.DHC));
    if (with_projection())
        KESTREL_CHECK(check_wscales(a.rnn_weights_proj_mask, a.rnn_weights_proj_scales, 1 << 3, dims_.DIC));
    return status::success;
}

status_t gemm_rnn_int8_fwd_t::pd_t::init(dnnl_engine *) {
    // Weights given packed (a descriptor this implementation offered) pass
    // init_common as `any` and are checked against the plans below; weights
    // given as `any` are offered packed.
    const memory_desc_t wl_user = weights_layer_, wi_user = weights_iter_;
    auto as_any = [](memory_desc_t &md) {
        if (!md_is_rnn_packed(md)) return;
        md.format_kind = dnnl_format_kind_any;
        md.rnn_packed = {};
    };
    as_any(weights_layer_);
    as_any(weights_iter_);
    const status_t st = init_common(true);
    if (st == status::unimplemented)
        return decline(name(), "int8 inference: LSTM (no peephole) or GRU, u8 data, s8 weights, plain layouts");
    KESTREL_CHECK(st);
    const rnn_dims_t &r = dims_;
    if (!rnn_weights_order(weights_layer_, dnnl_ldigo, dnnl_ldgoi, wl_t)
            || !rnn_weights_order(weights_iter_, dnnl_ldigo, dnnl_ldgoi, wi_t))
        return decline(name(), "weights must be ldigo or ldgoi");
    if (with_projection() && !rnn_weights_order(weights_projection_, dnnl_ldio, dnnl_ldoi, wp_t))
        return decline(name(), "projection weights must be ldio or ldoi");

    const size_t f = sizeof(float);
    const dim_t GD = r.G * r.DHC;
    auto &reg = scratchpad_registry();
    reg.book(key_h, (size_t)(r.L * r.D * (r.T + 1) * r.N * r.HS()));
    if (is_lstm()) reg.book(key_c, 2 * (size_t)(r.N * r.DHC) * f);
    // Chunks of about 256 GEMM rows: a full-height GEMM, and gates of a few
    // MB at the sizes where the whole T x N x G * DHC would spill to memory.
    t_chunk = std::max<dim_t>(1, std::min(r.T, (256 + r.N - 1) / std::max<dim_t>(r.N, 1)));
    reg.book(key_gates, (size_t)(t_chunk * r.N * GD) * f);
    // Layer 0 reads src_layer, layer l > 0 of direction d the states of
    // layer l - 1 of direction d (DIC == SLC columns), both copied here.
    x_stride = r.SLC;
    reg.book(key_x, (size_t)(r.T * r.N * x_stride));
    reg.book(key_hf, 2 * (size_t)(r.N * std::max(r.DHC, r.HS())) * f);
    if (with_projection() || is_gru()) reg.book(key_q, (size_t)(r.N * std::max(r.DHC, r.SIC)));
    reg.book(key_params, (size_t)((r.G + 4) * r.DHC + GD + r.DIC) * f);

    KESTREL_CHECK(plan_layer.init(t_chunk * r.N, GD, r.SLC, false, wl_t, false, false, true));
    if (r.T % t_chunk) {
        KESTREL_CHECK(plan_layer_tail.init(r.T % t_chunk * r.N, GD, r.SLC, false, wl_t, false, false, true));
        plan_layer_tail.book(reg, key_plan_layer_tail, false);
    }
    KESTREL_CHECK(plan_iter.init(r.N, is_gru() ? 2 * r.DHC : GD, r.SIC, false, wi_t, false, false, true));
    plan_iter.book(reg, key_plan_iter);
    if (is_gru()) {
        KESTREL_CHECK(plan_iter_o.init(r.N, r.DHC, r.SIC, false, wi_t, false, false, true));
        plan_iter_o.book(reg, key_plan_iter_o);
    }
    if (with_projection()) {
        KESTREL_CHECK(plan_proj.init(r.N, r.DIC, r.DHC, false, wp_t, false, false, true));
        plan_proj.book(reg, key_plan_proj);
    }
    // Packed weights: the layer and iteration weights (GRU's iteration
    // weights in two parts, for plan_iter and plan_iter_o).
    auto offer = [&](const memory_desc_t &user, memory_desc_t &md, const gemm::s8_plan_t &plan,
                         const gemm::s8_plan_t *second, dim_t k, bool &packed) {
        const bool want = mdw_t(user).is_any() || md_is_rnn_packed(user);
        if (!want) return status::success;
        const size_t bytes = rnd_up(plan.packed_b_bytes(), (size_t)64)
                + (second ? rnd_up(second->packed_b_bytes(), (size_t)64) : 0);
        memory_desc_t p;
        KESTREL_CHECK(md_init_rnn_packed(p, md, plan.nr(), k, GD, second ? 2 * r.DHC : GD, (dim_t)bytes));
        if (md_is_rnn_packed(user) && !md_equal(user, p)) return status::unimplemented;
        md = p;
        packed = true;
        return status::success;
    };
    KESTREL_CHECK(offer(wl_user, weights_layer_, plan_layer, nullptr, r.SLC, wl_packed));
    KESTREL_CHECK(offer(wi_user, weights_iter_, plan_iter, is_gru() ? &plan_iter_o : nullptr, r.SIC, wi_packed));
    // Its own B blocks only when it has no packed copy of the weights.
    plan_layer.book(reg, key_plan_layer, !wl_packed && packed_bytes(3) == 0);
    reg.book(key_packed, packed_bytes(0) + packed_bytes(1) + packed_bytes(2) + packed_bytes(3), 64);
    return status::success;
}

status_t gemm_rnn_int8_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const rnn_dims_t &r = pd->dims();
    const rnn_desc_t &desc = pd->desc();
    const attr_t &attr = *pd->attr();
    const auto &g = ctx.scratchpad();
    uint8_t *H = g.get<uint8_t>(pd_t::key_h);
    float *C = pd->is_lstm() ? g.get<float>(pd_t::key_c) : nullptr;
    float *gates = g.get<float>(pd_t::key_gates);
    uint8_t *xbuf = g.get<uint8_t>(pd_t::key_x);
    float *hf = g.get<float>(pd_t::key_hf);
    uint8_t *q = pd->with_projection() || pd->is_gru() ? g.get<uint8_t>(pd_t::key_q) : nullptr;
    float *params = g.get<float>(pd_t::key_params);
    char *packed = g.get<char>(pd_t::key_packed);
    if (!H || (pd->is_lstm() && !C) || !gates || !xbuf || !hf || ((pd->with_projection() || pd->is_gru()) && !q)
            || !params
            || (!packed && pd->packed_bytes(0) + pd->packed_bytes(1) + pd->packed_bytes(2) + pd->packed_bytes(3) > 0))
        return status::out_of_memory;
    // Packed copies of the step GEMMs' weights (null: the plan packs them itself).
    void *pk_iter = pd->packed_bytes(0) ? packed : nullptr;
    void *pk_iter_o = pd->packed_bytes(1) ? packed + pd->packed_bytes(0) : nullptr;
    void *pk_proj = pd->packed_bytes(2) ? packed + pd->packed_bytes(0) + pd->packed_bytes(1) : nullptr;
    void *pk_layer = pd->packed_bytes(3) ? packed + pd->packed_bytes(0) + pd->packed_bytes(1) + pd->packed_bytes(2)
                                         : nullptr;

    const dim_t T = r.T, N = r.N, L = r.L, D = r.D, G = r.G, DHC = r.DHC, DIC = r.DIC, SLC = r.SLC;
    // The previous state is SIC wide (SIC == DHC for GRU), the new one
    // DIC; rows of both are HS apart in H.
    const dim_t SIC = r.SIC, HS = r.HS();
    const dim_t GD = G * DHC, xs = pd->x_stride, HW = DHC > HS ? DHC : HS;
    const float dscale = attr.rnn_data_scale, dshift = attr.rnn_data_shift, inv_dscale = 1.f / dscale;
    auto quant = [&](float v) { return quant_u8(v, dscale, dshift); };
    auto deq = [&](uint8_t v) { return dequant_u8(v, inv_dscale, dshift); };

    const memory_desc_t &src_md = *pd->arg_md(DNNL_ARG_SRC_LAYER), &dst_md = *pd->arg_md(DNNL_ARG_DST_LAYER);
    const memory_desc_t &si_md = *pd->arg_md(DNNL_ARG_SRC_ITER), &sic_md = *pd->arg_md(DNNL_ARG_SRC_ITER_C);
    const memory_desc_t &di_md = *pd->arg_md(DNNL_ARG_DST_ITER), &dic_md = *pd->arg_md(DNNL_ARG_DST_ITER_C);
    const memory_desc_t &bmd = *pd->arg_md(DNNL_ARG_BIAS);
    const uint8_t *src = ctx.input<uint8_t>(DNNL_ARG_SRC_LAYER);
    // Plain weights (offset0 applies) or packed slices (offset0 is 0).
    const int8_t *wl = ctx.input<int8_t>(DNNL_ARG_WEIGHTS_LAYER) + pd->arg_md(DNNL_ARG_WEIGHTS_LAYER)->offset0;
    const int8_t *wi = ctx.input<int8_t>(DNNL_ARG_WEIGHTS_ITER) + pd->arg_md(DNNL_ARG_WEIGHTS_ITER)->offset0;
    const dim_t wl_slice = pd->wl_packed ? pd->arg_md(DNNL_ARG_WEIGHTS_LAYER)->rnn_packed.slice_bytes : 0;
    const dim_t wi_slice = pd->wi_packed ? pd->arg_md(DNNL_ARG_WEIGHTS_ITER)->rnn_packed.slice_bytes : 0;
    const int8_t *wp = pd->with_projection()
            ? ctx.input<int8_t>(DNNL_ARG_WEIGHTS_PROJECTION) + pd->arg_md(DNNL_ARG_WEIGHTS_PROJECTION)->offset0
            : nullptr;
    const float *bias = pd->with_bias() ? ctx.input<float>(DNNL_ARG_BIAS) : nullptr;
    const char *si = pd->with_src_iter() ? ctx.input<char>(DNNL_ARG_SRC_ITER) : nullptr;
    const float *sic = pd->with_src_iter_c() ? ctx.input<float>(DNNL_ARG_SRC_ITER_C) : nullptr;
    char *dst = ctx.output<char>(DNNL_ARG_DST_LAYER);
    char *di = pd->with_dst_iter() ? ctx.output<char>(DNNL_ARG_DST_ITER) : nullptr;
    float *dic = pd->with_dst_iter_c() ? ctx.output<float>(DNNL_ARG_DST_ITER_C) : nullptr;
    const bool si_u8 = si_md.data_type == dnnl_u8, di_u8 = di_md.data_type == dnnl_u8;
    const bool dst_u8 = dst_md.data_type == dnnl_u8;

    const rnn_int8::rows_t *rows = rnn_int8::best_rows();
    const int *wmask = &attr.rnn_weights_mask;
    const float *wsc = attr.rnn_weights_scales.empty() ? nullptr : attr.rnn_weights_scales.data();
    const float *wpsc = attr.rnn_weights_proj_scales.empty() ? nullptr : attr.rnn_weights_proj_scales.data();
    // 1 / (dscale * weights scale) per gate column and per projection column.
    float *inv_w = params + (G + 4) * DHC, *inv_p = inv_w + GD;
    for (dim_t j = 0; j < GD; ++j) inv_w[j] = 1.f / (dscale * (wsc ? wsc[*wmask ? j : 0] : 1.f));
    for (dim_t j = 0; j < DIC; ++j)
        inv_p[j] = 1.f / (dscale * (wpsc ? wpsc[attr.rnn_weights_proj_mask ? j : 0] : 1.f));
    // |col_sum| <= 128 K and |acc| <= 255 * 128 K.
    const double k_max = (double)std::max(SLC, std::max(SIC, DHC));
    const bool int_shift = dshift == std::floor(dshift)
            && (std::fabs(dshift) + 255.0) * 128.0 * k_max < 2147483647.0;
    auto make_ep = [&](const float *inv, float *out, dim_t ldo, dim_t nrows, bool accumulate) {
        deq_out_t ep;
        ep.nrows = nrows;
        ep.dscale = dscale;
        ep.dshift = dshift;
        ep.inv = inv;
        ep.int_shift = int_shift;
        ep.out = out;
        ep.ldo = ldo;
        ep.accumulate = accumulate;
        ep.rows = rows;
        return ep;
    };
    const elt::kernels_t *kern = elt::best_kernels();

    // Layer 0's input, dense T x N x SLC.
    parallel_nd(T, N, [&](dim_t t, dim_t n) {
        uint8_t *x = xbuf + (t * N + n) * xs;
        const uint8_t *sr = src + rnn_off(src_md, t, n, 0);
        const dim_t cs = src_md.blocking.strides[2];
        if (cs == 1) std::memcpy(x, sr, (size_t)SLC);
        else
            for (dim_t c = 0; c < SLC; ++c) x[c] = sr[c * cs];
    });

    float *bias_row = params, *peep_row = params + (G + 1) * DHC;
    std::fill(peep_row, peep_row + 3 * DHC, 0.f);
    const dim_t wi_ld = pd->wi_t ? SIC : GD, wl_ld = pd->wl_t ? SLC : GD, wp_ld = pd->wp_t ? DHC : DIC;
    auto is_r2l = [&](dim_t d) { return desc.direction == dnnl_unidirectional_right2left || d == 1; };
    // u8 hidden state of (l, d) at time t, batch row n.
    auto h_at = [&](dim_t l, dim_t d, dim_t t, dim_t n) {
        const dim_t s = is_r2l(d) ? T - t : t + 1;
        return H + ((l * D + d) * (T + 1) + s) * N * HS + n * HS;
    };
    for (dim_t l = 0; l < L; ++l) {
        for (dim_t d = 0; d < D; ++d) {
            const dim_t ld = l * D + d;
            const bool r2l = is_r2l(d);
            uint8_t *Hld = H + ld * (T + 1) * N * HS;
            for (dim_t k = 0; k < r.n_bias_gates(); ++k)
                for (dim_t o = 0; o < DHC; ++o)
                    bias_row[k * DHC + o] = bias ? bias[rnn_off(bmd, l, d, k, o)] : 0.f;
            parallel_nd(N, [&](dim_t n) {
                for (dim_t o = 0; o < SIC; ++o) {
                    const dim_t off = si ? rnn_off(si_md, l, d, n, o) : 0;
                    Hld[n * HS + o] = !si ? quant(0.f)
                            : si_u8        ? reinterpret_cast<const uint8_t *>(si)[off]
                                           : quant(reinterpret_cast<const float *>(si)[off]);
                }
                if (C)
                    for (dim_t o = 0; o < DHC; ++o) C[n * DHC + o] = sic ? sic[rnn_off(sic_md, l, d, n, o)] : 0.f;
            });
            const int8_t *wl_p = pd->wl_packed ? nullptr : wl + ld * SLC * GD;
            const int8_t *wi_p = pd->wi_packed ? nullptr : wi + ld * SIC * GD;
            const int8_t *wi_o = wi_p ? wi_p + (pd->wi_t ? 2 * DHC * SIC : 2 * DHC) : nullptr;
            if (pd->wl_packed) pk_layer = const_cast<int8_t *>(wl) + ld * wl_slice;
            if (pd->wi_packed) {
                pk_iter = const_cast<int8_t *>(wi) + ld * wi_slice;
                if (pd->is_gru()) // the second part, after the first 64-byte aligned
                    pk_iter_o = static_cast<char *>(pk_iter) + rnd_up(pd->plan_iter.packed_b_bytes(), (size_t)64);
            }
            const int8_t *wp_ld_p = wp ? wp + ld * DHC * DIC : nullptr;
            // The step GEMMs' weights, packed once for all T steps.
            if (pk_iter && wi_p) pd->plan_iter.pack_b_all(wi_p, wi_ld, pk_iter);
            if (pk_iter_o && wi_o) pd->plan_iter_o.pack_b_all(wi_o, wi_ld, pk_iter_o);
            if (pk_proj && wp_ld_p) pd->plan_proj.pack_b_all(wp_ld_p, wp_ld, pk_proj);
            if (pk_layer && wl_p) pd->plan_layer.pack_b_all(wl_p, wl_ld, pk_layer);
            // Above the first layer, the input is this direction's u8
            // output of the layer below, in time order.
            if (l > 0)
                parallel_nd(T, N, [&](dim_t t, dim_t n) {
                    const uint8_t *h = h_at(l - 1, d, t, n);
                    uint8_t *x = xbuf + (t * N + n) * xs;
                    std::memcpy(x, h, (size_t)SLC);
                });
            const deq_out_t ep_layer = make_ep(inv_w, gates, GD, pd->t_chunk * N, false);
            dim_t t_lo = 0; // first time step of the chunk in gates
            for (dim_t s = 0; s < T; ++s) {
                const dim_t t = r2l ? T - 1 - s : s;
                if (s % pd->t_chunk == 0) {
                    // Steps s .. s + tc - 1 are times [t_lo, t_lo + tc).
                    const dim_t tc = std::min(pd->t_chunk, T - s);
                    t_lo = r2l ? T - s - tc : s;
                    const bool tail = tc < pd->t_chunk;
                    const gemm::s8_plan_t &pl = tail ? pd->plan_layer_tail : pd->plan_layer;
                    KESTREL_CHECK(pl.execute(xbuf + t_lo * N * xs, xs, wl_p, wl_ld, g,
                            tail ? pd_t::key_plan_layer_tail : pd_t::key_plan_layer, ep_layer, pk_layer));
                }
                const uint8_t *hp = Hld + s * N * HS;
                uint8_t *hn = Hld + (s + 1) * N * HS;
                float *gt = gates + (t - t_lo) * N * GD;
                if (pd->is_gru()) {
                    float *h0f = hf + N * HW;
                    const deq_out_t ep1 = make_ep(inv_w, gt, GD, N, true);
                    KESTREL_CHECK(pd->plan_iter.execute(hp, HS, wi_p, wi_ld, g, pd_t::key_plan_iter, ep1, pk_iter));
                    parallel_nd(N, [&](dim_t n) {
                        float *gx = gt + n * GD, *h0 = h0f + n * SIC;
                        for (dim_t o = 0; o < SIC; ++o) h0[o] = deq(hp[n * HS + o]);
                        rnn_cell::gru_part1_row(kern, gx, bias_row, DHC);
                        if (rows) {
                            // r * h over the reset gate, which is not read again.
                            for (dim_t o = 0; o < DHC; ++o) gx[DHC + o] *= h0[o];
                            rows->quant(q + n * SIC, gx + DHC, DHC, dscale, dshift);
                        } else
                            for (dim_t o = 0; o < DHC; ++o) q[n * SIC + o] = quant(gx[DHC + o] * h0[o]);
                    });
                    const deq_out_t ep2 = make_ep(inv_w + 2 * DHC, gt + 2 * DHC, GD, N, true);
                    KESTREL_CHECK(
                            pd->plan_iter_o.execute(q, SIC, wi_o, wi_ld, g, pd_t::key_plan_iter_o, ep2, pk_iter_o));
                    parallel_nd(N, [&](dim_t n) {
                        float *h1 = hf + n * DHC;
                        rnn_cell::gru_part2_row(kern, gt + n * GD, bias_row, 0.f, h0f + n * SIC, h1, DHC);
                        if (rows) rows->quant(hn + n * HS, h1, DHC, dscale, dshift);
                        else
                            for (dim_t o = 0; o < DHC; ++o) hn[n * HS + o] = quant(h1[o]);
                    });
                    continue;
                }
                const deq_out_t ep1 = make_ep(inv_w, gt, GD, N, true);
                KESTREL_CHECK(pd->plan_iter.execute(hp, HS, wi_p, wi_ld, g, pd_t::key_plan_iter, ep1, pk_iter));
                const float *cp = C + (s & 1) * N * DHC;
                float *cn = C + ((s + 1) & 1) * N * DHC;
                uint8_t *hq = wp ? q : hn; // LSTMP: the projection's input
                const dim_t hq_ld = wp ? DHC : HS;
                parallel_nd(N, [&](dim_t n) {
                    // int8 LSTMs have no peepholes: the fused row skips them.
                    if (rows) {
                        rows->lstm(gt + n * GD, bias_row, cp + n * DHC, cn + n * DHC, hq + n * hq_ld, DHC, dscale,
                                dshift);
                        return;
                    }
                    float *h1 = hf + n * DHC;
                    rnn_cell::lstm_row(kern, gt + n * GD, bias_row, peep_row, cp + n * DHC, cn + n * DHC, h1, DHC);
                    for (dim_t o = 0; o < DHC; ++o) hq[n * hq_ld + o] = quant(h1[o]);
                });
                if (wp) {
                    deq_out_t ep = make_ep(inv_p, nullptr, HS, N, false);
                    ep.qout = hn;
                    KESTREL_CHECK(pd->plan_proj.execute(q, DHC, wp_ld_p, wp_ld, g, pd_t::key_plan_proj, ep, pk_proj));
                }
            }
            // Final states of this layer and direction.
            if (di || dic)
                parallel_nd(N, [&](dim_t n) {
                    const uint8_t *h = Hld + T * N * HS + n * HS;
                    if (di)
                        for (dim_t o = 0; o < DIC; ++o) {
                            const dim_t off = rnn_off(di_md, l, d, n, o);
                            if (di_u8) reinterpret_cast<uint8_t *>(di)[off] = h[o];
                            else reinterpret_cast<float *>(di)[off] = deq(h[o]);
                        }
                    if (dic) {
                        const float *cs = C + (T & 1) * N * DHC + n * DHC;
                        for (dim_t o = 0; o < DHC; ++o) dic[rnn_off(dic_md, l, d, n, o)] = cs[o];
                    }
                });
        }

    }

    // dst_layer: the last layer's directions, concatenated or summed.
    const bool concat = desc.direction == dnnl_bidirectional_concat;
    const bool sum = desc.direction == dnnl_bidirectional_sum;
    parallel_nd(T, N, [&](dim_t t, dim_t n) {
        for (dim_t d = 0; d < (sum ? 1 : D); ++d) {
            const uint8_t *h = h_at(L - 1, d, t, n), *h2 = sum ? h_at(L - 1, 1, t, n) : nullptr;
            const dim_t c0 = concat ? d * DIC : 0;
            const dim_t off0 = rnn_off(dst_md, t, n, c0);
            if (!sum && dst_md.blocking.strides[2] == 1) {
                // Channels dense: the u8 row as it is, or dequantised.
                if (dst_u8) std::memcpy(reinterpret_cast<uint8_t *>(dst) + off0, h, (size_t)DIC);
                else {
                    float *df = reinterpret_cast<float *>(dst) + off0;
                    for (dim_t o = 0; o < DIC; ++o) df[o] = deq(h[o]);
                }
                continue;
            }
            for (dim_t o = 0; o < DIC; ++o) {
                // Sum: the two directions' values add, as real numbers.
                const float v = sum ? deq(h[o]) + deq(h2[o]) : deq(h[o]);
                const dim_t off = rnn_off(dst_md, t, n, c0 + o);
                if (dst_u8) reinterpret_cast<uint8_t *>(dst)[off] = sum ? quant(v) : h[o];
                else reinterpret_cast<float *>(dst)[off] = v;
            }
        }
    });
    return status::success;
}

} // namespace kestrel
