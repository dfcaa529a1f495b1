// int8 recurrent inference (LSTM, LSTM with projection, GRU) against an
// integer reference written here: u8 inputs and states, s8 weights, exact
// integer dot products, dequantisation with the weights' column sums
// removing the data shift, gate math in double, requantisation
// q = saturate(round_half_even(scale * f + shift)). Over directions, 1 and
// 2 layers, u8 and f32 iteration states and dst_layer, common and
// per-(gate, channel) weights scales, ldigo and ldgoi weights, odd sizes,
// 1 and 2 threads, the three scratchpad modes, through the C API and the
// C++ API (dnnl.hpp). Also the cells, types and qparams oneDNN's CPU
// refuses for int8 (clear status, no pd), an execution with a wrong
// argument (invalid_arguments, output untouched), and the quantising
// reorders the RNN qparams drive.
//
// Exactness. Everything before a requantisation is an exact integer or a
// short chain of f32 operations on values of magnitude <= 8: the library's
// dequantisation (one conversion and one product: 2 roundings of <= 4), two
// gate sums and a bias (3 roundings of <= 8, 2^-21 each at most), an
// activation (<= 1e-6 absolute for logistic and tanh on [-8, 8], derivative
// <= 1) give a hidden value within 6e-6 of the exact one per step; the LSTM
// cell state, kept in f32, carries its error into every later step (one
// more 6e-6 per step). So before rounding, scale * f + shift is within
//   delta = scale * 6e-6 * (T + 2) + 2^-15     (the last term: the f32
// product and sum at magnitude <= 256, a few ulps of 256 = 2^-15)
// of the reference's double value (GRU: scale * 6e-6 * 2 + 2^-15, its
// states being requantised from scratch every step; the r * h product and
// the update add the second 6e-6). Where the reference lands within delta
// of a .5 boundary the library may round the other way, and the difference
// would flow on through the recurrence; the reference counts such values,
// and the data are redrawn (next seed) until a problem has none, so every
// checked u8 output must match exactly. f32 outputs derived from u8 ones
// (dequantised states, sums of directions) are within 2 ulps relative; the
// f32 cell state within 6e-6 * (T + 2).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/kt_test.hpp"
#include "core/primitive.hpp"
#include "dnnl.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

enum cell_t { lstm, gru };

struct prob_t {
    cell_t cell = lstm;
    dnnl_rnn_direction_t dir = dnnl_unidirectional_left2right;
    int L = 1, T = 2, N = 2, SLC = 3, DHC = 5, DIC = 0; // DIC > 0: LSTM projection
    dnnl_data_type_t si = dnnl_u8, di = dnnl_u8, dst = dnnl_u8; // si/di dnnl_data_type_undef: absent
    bool sic = true, dic = true, bias = true, per_chan = true, goi = false;
    float scale = 64.f, shift = 128.f;
    int D() const { return dir == dnnl_bidirectional_concat || dir == dnnl_bidirectional_sum ? 2 : 1; }
    int G() const { return cell == lstm ? 4 : 3; }
    int dic_() const { return DIC ? DIC : DHC; }
    // How far the library's value before a rounding may be from the
    // reference's (see the top): GRU states restart from exact u8 values
    // every step, the LSTM cell state carries its error along.
    double delta() const { return scale * 6e-6 * (cell == lstm ? T + 2 : 2) + std::ldexp(1.0, -15); }
    int DLC() const { return dir == dnnl_bidirectional_concat ? 2 * dic_() : dic_(); }
    std::string name() const {
        char b[256];
        std::snprintf(b, sizeof b, "%s%s dir%d L%d T%d N%d SLC%d DHC%d si%d di%d dst%d%s%s%s%s", cell == lstm ? "lstm" : "gru",
                DIC ? "p" : "", (int)dir, L, T, N, SLC, DHC, (int)si, (int)di, (int)dst, sic ? " sic" : "",
                bias ? " bias" : "", per_chan ? " perchan" : " common", goi ? " goi" : "");
        return b;
    }
};

// Inputs in the canonical layouts (tnc, ldnc, ldigo, ldio, ldgo).
struct data_t {
    std::vector<uint8_t> src, si_u8;
    std::vector<float> si_f32, sic, bias, wsc, wpsc;
    std::vector<int8_t> wl, wi, wp;
};

void make_data(const prob_t &p, data_t &x, uint64_t seed) {
    kt::rng_t r(seed);
    const int LD = p.L * p.D(), G = p.G(), DIC = p.dic_(), GD = G * p.DHC;
    x.src.resize((size_t)p.T * p.N * p.SLC);
    for (auto &v : x.src) v = (uint8_t)(r.next() % 256);
    x.si_u8.resize((size_t)LD * p.N * DIC);
    for (auto &v : x.si_u8) v = (uint8_t)(r.next() % 256);
    x.si_f32.resize(x.si_u8.size());
    for (auto &v : x.si_f32) v = r.uniform(-1.f, 1.f);
    x.sic.resize((size_t)LD * p.N * p.DHC);
    for (auto &v : x.sic) v = r.uniform(-1.f, 1.f);
    x.bias.resize((size_t)LD * GD);
    for (auto &v : x.bias) v = r.uniform(-0.5f, 0.5f);
    x.wl.resize((size_t)LD * p.SLC * GD);
    x.wi.resize((size_t)LD * DIC * GD);
    for (auto &v : x.wl) v = (int8_t)((int)(r.next() % 255) - 127);
    for (auto &v : x.wi) v = (int8_t)((int)(r.next() % 255) - 127);
    // Real weights w / ws within +-2 / K, so a gate's pre-activation stays
    // within ~+-4 (inputs within +-2): the activations are not saturated.
    const float base = 127.f * (float)(p.SLC + DIC) / 2.f;
    x.wsc.assign(p.per_chan ? GD : 1, base);
    if (p.per_chan)
        for (auto &v : x.wsc) v = base * r.uniform(0.75f, 1.5f);
    if (p.DIC) {
        x.wp.resize((size_t)LD * p.DHC * DIC);
        for (auto &v : x.wp) v = (int8_t)((int)(r.next() % 255) - 127);
        const float pb = 127.f * (float)p.DHC / 1.5f;
        x.wpsc.assign(p.per_chan ? DIC : 1, pb);
        if (p.per_chan)
            for (auto &v : x.wpsc) v = pb * r.uniform(0.75f, 1.5f);
    }
}

struct ref_out_t {
    std::vector<uint8_t> dst_u8, di_u8;
    std::vector<double> dst_f, di_f, dic;
    int ambiguous = 0;
};

// The integer reference. Weights ldigo: w[((ld * K + k) * G + g) * DHC + o].
void reference(const prob_t &p, const data_t &x, ref_out_t &out) {
    const int L = p.L, D = p.D(), T = p.T, N = p.N, DHC = p.DHC, DIC = p.dic_(), G = p.G(), GD = G * DHC;
    const double sc = p.scale, sh = p.shift;
    const double delta = p.delta();
    auto quant = [&](double f, bool counts) {
        const double v = f * sc + sh;
        const double fr = v - std::floor(v);
        if (counts && std::fabs(fr - 0.5) < delta) ++out.ambiguous;
        const double q = std::nearbyint(v);
        return (int)(q < 0 ? 0 : q > 255 ? 255 : q);
    };
    auto deq = [&](int q) { return (q - sh) / sc; };
    auto sigm = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    // Dequantised u8 x s8 product of row a (length K) with column j of w.
    auto dot = [&](const std::vector<int> &a, const int8_t *w, int K, int ld, int j, double ws) {
        long long acc = 0, colsum = 0;
        for (int k = 0; k < K; ++k) {
            acc += (long long)a[k] * w[(size_t)k * ld + j];
            colsum += w[(size_t)k * ld + j];
        }
        return ((double)acc - sh * (double)colsum) / (sc * ws);
    };
    auto wscale = [&](int j) { return (double)x.wsc[p.per_chan ? j : 0]; };
    auto wpscale = [&](int j) { return (double)x.wpsc[p.per_chan ? j : 0]; };
    // x_in[t][n] -> vector<int> of the layer input.
    std::vector<std::vector<int>> xin((size_t)T * N);
    for (int t = 0; t < T; ++t)
        for (int n = 0; n < N; ++n)
            for (int c = 0; c < p.SLC; ++c) xin[t * N + n].push_back(x.src[((size_t)t * N + n) * p.SLC + c]);
    const int DLC = p.DLC();
    out.dst_u8.assign((size_t)T * N * DLC, 0);
    out.dst_f.assign((size_t)T * N * DLC, 0);
    out.di_u8.assign((size_t)L * D * N * DIC, 0);
    out.di_f.assign((size_t)L * D * N * DIC, 0);
    out.dic.assign((size_t)L * D * N * DHC, 0);
    // hs[d][t * N + n]: the u8 output of direction d's latest layer at
    // time t. Each direction is its own stack: layer l > 0 of direction d
    // reads hs[d] of layer l - 1 (SLC == DIC).
    std::vector<std::vector<std::vector<int>>> hs(D, std::vector<std::vector<int>>((size_t)T * N));
    const int K = p.SLC;
    for (int l = 0; l < L; ++l) {
        std::vector<std::vector<std::vector<int>>> cur(D, std::vector<std::vector<int>>((size_t)T * N));
        for (int d = 0; d < D; ++d) {
            const std::vector<std::vector<int>> &in = l == 0 ? xin : hs[d];
            const int ld = l * D + d;
            const bool r2l = p.dir == dnnl_unidirectional_right2left || d == 1;
            const int8_t *wl = x.wl.data() + (size_t)ld * K * GD, *wi = x.wi.data() + (size_t)ld * DIC * GD;
            std::vector<std::vector<int>> h(N, std::vector<int>(DIC));
            std::vector<std::vector<double>> c(N, std::vector<double>(DHC, 0.0));
            for (int n = 0; n < N; ++n) {
                for (int o = 0; o < DIC; ++o) {
                    const size_t i = ((size_t)ld * N + n) * DIC + o;
                    h[n][o] = p.si == dnnl_u8 ? x.si_u8[i] : p.si == dnnl_f32 ? quant(x.si_f32[i], true) : quant(0.0, true);
                }
                for (int o = 0; o < DHC; ++o)
                    c[n][o] = p.cell == lstm && p.sic ? x.sic[((size_t)ld * N + n) * DHC + o] : 0.0;
            }
            auto b = [&](int g, int o) { return p.bias ? (double)x.bias[((size_t)ld * G + g) * DHC + o] : 0.0; };
            for (int s = 0; s < T; ++s) {
                const int t = r2l ? T - 1 - s : s;
                for (int n = 0; n < N; ++n) {
                    const std::vector<int> &a = in[t * N + n];
                    std::vector<int> hn(DIC);
                    if (p.cell == lstm) {
                        std::vector<double> hh(DHC);
                        for (int o = 0; o < DHC; ++o) {
                            double z[4];
                            for (int g = 0; g < 4; ++g) {
                                const int j = g * DHC + o;
                                z[g] = dot(a, wl, K, GD, j, wscale(j)) + dot(h[n], wi, DIC, GD, j, wscale(j)) + b(g, o);
                            }
                            c[n][o] = sigm(z[1]) * c[n][o] + sigm(z[0]) * std::tanh(z[2]);
                            hh[o] = sigm(z[3]) * std::tanh(c[n][o]);
                        }
                        if (p.DIC) {
                            std::vector<int> hq(DHC);
                            for (int o = 0; o < DHC; ++o) hq[o] = quant(hh[o], true);
                            const int8_t *wp = x.wp.data() + (size_t)ld * DHC * DIC;
                            for (int o = 0; o < DIC; ++o) hn[o] = quant(dot(hq, wp, DHC, DIC, o, wpscale(o)), true);
                        } else {
                            for (int o = 0; o < DHC; ++o) hn[o] = quant(hh[o], true);
                        }
                    } else {
                        std::vector<double> u(DHC), rr(DHC);
                        std::vector<int> rh(DHC);
                        for (int o = 0; o < DHC; ++o) {
                            u[o] = sigm(dot(a, wl, K, GD, o, wscale(o)) + dot(h[n], wi, DIC, GD, o, wscale(o)) + b(0, o));
                            const int j = DHC + o;
                            rr[o] = sigm(dot(a, wl, K, GD, j, wscale(j)) + dot(h[n], wi, DIC, GD, j, wscale(j)) + b(1, o));
                            rh[o] = quant(rr[o] * deq(h[n][o]), true);
                        }
                        for (int o = 0; o < DHC; ++o) {
                            const int j = 2 * DHC + o;
                            const double cand = std::tanh(dot(a, wl, K, GD, j, wscale(j)) + dot(rh, wi, DIC, GD, j, wscale(j)) + b(2, o));
                            hn[o] = quant(u[o] * deq(h[n][o]) + (1 - u[o]) * cand, true);
                        }
                    }
                    h[n] = hn;
                    cur[d][t * N + n] = hn;
                }
            }
            for (int n = 0; n < N; ++n) {
                for (int o = 0; o < DIC; ++o) {
                    out.di_u8[((size_t)ld * N + n) * DIC + o] = (uint8_t)h[n][o];
                    out.di_f[((size_t)ld * N + n) * DIC + o] = deq(h[n][o]);
                }
                for (int o = 0; o < DHC; ++o) out.dic[((size_t)ld * N + n) * DHC + o] = c[n][o];
            }
        }
        hs.swap(cur);
    }
    // dst_layer: the last layer's directions, concatenated or summed.
    for (int t = 0; t < T; ++t)
        for (int n = 0; n < N; ++n)
            for (int cc = 0; cc < DLC; ++cc) {
                int q;
                double f;
                if (p.dir == dnnl_bidirectional_sum) {
                    f = deq(hs[0][t * N + n][cc]) + deq(hs[1][t * N + n][cc]);
                    // The u8 sum feeds nothing: its ties are allowed in compare().
                    q = quant(f, false);
                } else {
                    const int d = cc / DIC;
                    q = hs[d][t * N + n][cc % DIC];
                    f = deq(q);
                }
                out.dst_u8[((size_t)t * N + n) * DLC + cc] = (uint8_t)q;
                out.dst_f[((size_t)t * N + n) * DLC + cc] = f;
            }
}

// ldigo -> ldgoi (and ldio -> ldoi with G = 1).
std::vector<int8_t> to_goi(const std::vector<int8_t> &w, int LD, int K, int G, int O) {
    std::vector<int8_t> r(w.size());
    for (int ld = 0; ld < LD; ++ld)
        for (int k = 0; k < K; ++k)
            for (int g = 0; g < G; ++g)
                for (int o = 0; o < O; ++o)
                    r[(((size_t)ld * G + g) * O + o) * K + k] = w[(((size_t)ld * K + k) * G + g) * O + o];
    return r;
}

struct mem_t {
    dnnl_memory_t h = nullptr;
    mem_t() = default;
    mem_t(const mem_t &) = delete;
    ~mem_t() { dnnl_memory_destroy(h); }
};

struct attr_h {
    dnnl_primitive_attr_t h = nullptr;
    attr_h() { KT_OK(dnnl_primitive_attr_create(&h)); }
    ~attr_h() { dnnl_primitive_attr_destroy(h); }
};

void set_qparams(const prob_t &p, const data_t &x, dnnl_primitive_attr_t a) {
    KT_OK(dnnl_primitive_attr_set_rnn_data_qparams(a, p.scale, p.shift));
    KT_OK(dnnl_primitive_attr_set_rnn_weights_qparams(a, (dnnl_dim_t)x.wsc.size(), p.per_chan ? (1 << 3) | (1 << 4) : 0, x.wsc.data()));
    if (p.DIC)
        KT_OK(dnnl_primitive_attr_set_rnn_weights_projection_qparams(a, (dnnl_dim_t)x.wpsc.size(), p.per_chan ? 1 << 3 : 0, x.wpsc.data()));
}

struct mds_t {
    kt::md_t src, si, sic, wl, wi, proj, bias, dst, di, dic;
};

void make_mds(const prob_t &p, mds_t &m) {
    const int L = p.L, D = p.D(), G = p.G(), DIC = p.dic_();
    m.src.h = kt::make_md({p.T, p.N, p.SLC}, dnnl_u8, dnnl_tnc);
    m.dst.h = kt::make_md({p.T, p.N, p.DLC()}, p.dst, dnnl_tnc);
    m.wl.h = kt::make_md({L, D, p.SLC, G, p.DHC}, dnnl_s8, p.goi ? dnnl_ldgoi : dnnl_ldigo);
    m.wi.h = kt::make_md({L, D, DIC, G, p.DHC}, dnnl_s8, p.goi ? dnnl_ldgoi : dnnl_ldigo);
    if (p.si != dnnl_data_type_undef) m.si.h = kt::make_md({L, D, p.N, DIC}, p.si, dnnl_ldnc);
    if (p.di != dnnl_data_type_undef) m.di.h = kt::make_md({L, D, p.N, DIC}, p.di, dnnl_ldnc);
    if (p.cell == lstm && p.sic) m.sic.h = kt::make_md({L, D, p.N, p.DHC}, dnnl_f32, dnnl_ldnc);
    if (p.cell == lstm && p.dic) m.dic.h = kt::make_md({L, D, p.N, p.DHC}, dnnl_f32, dnnl_ldnc);
    if (p.DIC) m.proj.h = kt::make_md({L, D, p.DHC, DIC}, dnnl_s8, p.goi ? dnnl_ldoi : dnnl_ldio);
    if (p.bias) m.bias.h = kt::make_md({L, D, G, p.DHC}, dnnl_f32, dnnl_ldgo);
}

dnnl_status_t create_pd(dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m, const_dnnl_primitive_attr_t a) {
    if (p.cell == lstm)
        return dnnl_lstm_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, p.dir, m.src, m.si, m.sic,
                m.wl, m.wi, nullptr, m.proj, m.bias, m.dst, m.di, m.dic, 0, a);
    return dnnl_gru_forward_primitive_desc_create(pd, eng, dnnl_forward_inference, p.dir, m.src, m.si, m.wl, m.wi,
            m.bias, m.dst, m.di, 0, a);
}

struct outs_t {
    std::vector<uint8_t> dst_u8, di_u8;
    std::vector<float> dst_f, di_f, dic;
};

// The weights given to a primitive that asked for them as `any`: for
// packed (opaque) descriptors a new memory filled by a reorder from the
// user's plain s8 weights (from_f32: from f32 copies of them halved,
// quantised back by an rnn weights scale of 2), else the user's memory.
struct packed_w_t {
    mem_t user, packed;
    std::vector<float> f;
    bool ok = true;
};

void pack_weights(packed_w_t &w, const_dnnl_memory_desc_t want, const kt::md_t &user_md, std::vector<int8_t> &v,
        bool from_f32, const std::string &what) {
    KT_OK(dnnl_memory_create(&w.user.h, user_md.h, eng, v.data()));
    dnnl_format_kind_t fk = dnnl_format_kind_undef;
    KT_OK(dnnl_memory_desc_query(want, dnnl_query_format_kind, &fk));
    if (dnnl_memory_desc_equal(want, user_md.h)) return;
    if (fk != dnnl_format_kind_opaque) { // plain, in another order than the user's
        KT_OK(dnnl_memory_create(&w.packed.h, want, eng, DNNL_MEMORY_ALLOCATE));
        dnnl_primitive_desc_t rpd = nullptr;
        KT_OK(dnnl_reorder_primitive_desc_create(&rpd, user_md.h, eng, want, eng, nullptr));
        dnnl_primitive_t r = nullptr;
        KT_OK(dnnl_primitive_create(&r, rpd));
        dnnl_exec_arg_t ra_args[] = {{DNNL_ARG_FROM, w.user.h}, {DNNL_ARG_TO, w.packed.h}};
        KT_OK(dnnl_primitive_execute(r, strm, 2, ra_args));
        KT_OK(dnnl_stream_wait(strm));
        dnnl_primitive_destroy(r);
        dnnl_primitive_desc_destroy(rpd);
        return;
    }
    tally.check(dnnl_memory_desc_get_size(want) > v.size(), (what + ": packed weights size").c_str());
    KT_OK(dnnl_memory_create(&w.packed.h, want, eng, DNNL_MEMORY_ALLOCATE));
    kt::md_t fmd;
    mem_t fm;
    attr_h ra;
    dnnl_memory_t from = w.user.h;
    if (!from_f32) { // RNN qparams on an s8 source scale nothing
        const float ignored = 3.f;
        KT_OK(dnnl_primitive_attr_set_rnn_weights_qparams(ra.h, 1, 0, &ignored));
    } else {
        dnnl_dims_t dims;
        const dnnl_dims_t *pd_dims = nullptr;
        KT_OK(dnnl_memory_desc_query(user_md.h, dnnl_query_dims, &pd_dims));
        for (int k = 0; k < 5; ++k) dims[k] = (*pd_dims)[k];
        const dnnl_dims_t *st = nullptr;
        KT_OK(dnnl_memory_desc_query(user_md.h, dnnl_query_strides, &st));
        KT_OK(dnnl_memory_desc_create_with_strides(&fmd.h, 5, dims, dnnl_f32, *st));
        w.f.resize(v.size());
        for (size_t i = 0; i < v.size(); ++i) w.f[i] = v[i] * 0.5f;
        KT_OK(dnnl_memory_create(&fm.h, fmd.h, eng, w.f.data()));
        const float two = 2.f;
        KT_OK(dnnl_primitive_attr_set_rnn_weights_qparams(ra.h, 1, 0, &two));
        from = fm.h;
    }
    dnnl_primitive_desc_t rpd = nullptr;
    const_dnnl_memory_desc_t from_md = nullptr;
    KT_OK(dnnl_memory_get_memory_desc(from, &from_md));
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&rpd, from_md, eng, want, eng, ra.h);
    tally.check(st == dnnl_success && kt::impl_name(rpd) == "reorder:rnn_packed",
            (what + ": reorder into packed weights").c_str());
    if (st != dnnl_success) {
        w.ok = false;
        return;
    }
    dnnl_primitive_t r = nullptr;
    KT_OK(dnnl_primitive_create(&r, rpd));
    dnnl_exec_arg_t ra_args[] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, w.packed.h}};
    KT_OK(dnnl_primitive_execute(r, strm, 2, ra_args));
    KT_OK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(r);
    dnnl_primitive_desc_destroy(rpd);
    // Nothing reads packed weights back into a plain layout.
    dnnl_primitive_desc_t back = nullptr;
    tally.check(dnnl_reorder_primitive_desc_create(&back, want, eng, user_md.h, eng, nullptr) == dnnl_unimplemented
                    && !back,
            (what + ": no reorder out of packed weights").c_str());
    if (back) dnnl_primitive_desc_destroy(back);
}

// mode: 0 global arena, 1 private, 2 user scratchpad; 3 and 4 the global
// arena with weights `any` (packed: from s8, from f32).
bool run_c(const prob_t &p, const data_t &x, int mode, outs_t &o, const std::string &what) {
    using kestrel::scratchpad_policy_t;
    kestrel::set_library_scratchpad_policy(
            mode == 1 ? scratchpad_policy_t::private_buffer : scratchpad_policy_t::global_arena);
    mds_t m;
    make_mds(p, m);
    attr_h a;
    set_qparams(p, x, a.h);
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(a.h, mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
    const bool packed = mode >= 3;
    mds_t user;
    if (packed) {
        make_mds(p, user);
        const int L = p.L, D = p.D(), G = p.G();
        kt::md_t wl_any, wi_any; // take the plain ones away when they go
        wl_any.h = kt::make_md({L, D, p.SLC, G, p.DHC}, dnnl_s8, dnnl_format_tag_any);
        wi_any.h = kt::make_md({L, D, p.dic_(), G, p.DHC}, dnnl_s8, dnnl_format_tag_any);
        std::swap(m.wl.h, wl_any.h);
        std::swap(m.wi.h, wi_any.h);
    }
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = create_pd(&pd, p, m, a.h);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: pd status %d\n", what.c_str(), (int)st);
        return false;
    }
    tally.check(kt::impl_name(pd) == "gemm:int8", (what + ": int8 implementation").c_str());
    const_dnnl_memory_desc_t wl_want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_LAYER);
    const_dnnl_memory_desc_t wi_want = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_ITER);
    if (packed) {
        dnnl_format_kind_t fl = dnnl_format_kind_undef, fi = dnnl_format_kind_undef;
        KT_OK(dnnl_memory_desc_query(wl_want, dnnl_query_format_kind, &fl));
        KT_OK(dnnl_memory_desc_query(wi_want, dnnl_query_format_kind, &fi));
        tally.check(fl == dnnl_format_kind_opaque && fi == dnnl_format_kind_opaque,
                (what + ": any weights packed").c_str());
        // The packed descriptors given back explicitly: the same primitive.
        kt::md_t wl_c, wi_c;
        KT_OK(dnnl_memory_desc_clone(&wl_c.h, wl_want));
        KT_OK(dnnl_memory_desc_clone(&wi_c.h, wi_want));
        mds_t again;
        make_mds(p, again);
        std::swap(again.wl.h, wl_c.h);
        std::swap(again.wi.h, wi_c.h);
        dnnl_primitive_desc_t pd2 = nullptr;
        tally.check(create_pd(&pd2, p, again, a.h) == dnnl_success && kt::impl_name(pd2) == "gemm:int8"
                        && dnnl_memory_desc_equal(
                                dnnl_primitive_desc_query_md(pd2, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_LAYER),
                                wl_want),
                (what + ": packed weights descriptors accepted as given").c_str());
        if (pd2) dnnl_primitive_desc_destroy(pd2);
        // No views of packed weights: no permuted axes, no sub-memory, no reshape.
        kt::md_t view;
        const int perm[5] = {0, 1, 2, 4, 3};
        const dnnl_dims_t *wd = nullptr;
        KT_OK(dnnl_memory_desc_query(wl_want, dnnl_query_dims, &wd));
        dnnl_dims_t zero_off = {0, 0, 0, 0, 0};
        tally.check(dnnl_memory_desc_permute_axes(&view.h, wl_want, perm) == dnnl_invalid_arguments
                        && dnnl_memory_desc_create_submemory(&view.h, wl_want, *wd, zero_off) == dnnl_unimplemented
                        && dnnl_memory_desc_reshape(&view.h, wl_want, 5, *wd) == dnnl_invalid_arguments && !view.h,
                (what + ": no views of packed weights").c_str());
        // A blob of the packed descriptor gives it back.
        size_t bytes = 0;
        KT_OK(dnnl_memory_desc_get_blob(nullptr, &bytes, wl_want));
        std::vector<uint8_t> blob(bytes);
        KT_OK(dnnl_memory_desc_get_blob(blob.data(), &bytes, wl_want));
        kt::md_t back;
        tally.check(dnnl_memory_desc_create_with_blob(&back.h, blob.data()) == dnnl_success
                        && dnnl_memory_desc_equal(back.h, wl_want)
                        && dnnl_memory_desc_get_size(back.h) == dnnl_memory_desc_get_size(wl_want),
                (what + ": packed descriptor through a blob").c_str());
    }
    const int LD = p.L * p.D();
    std::vector<int8_t> wl = p.goi ? to_goi(x.wl, LD, p.SLC, p.G(), p.DHC) : x.wl;
    std::vector<int8_t> wi = p.goi ? to_goi(x.wi, LD, p.dic_(), p.G(), p.DHC) : x.wi;
    std::vector<int8_t> wp = p.goi && p.DIC ? to_goi(x.wp, LD, p.DHC, 1, p.dic_()) : x.wp;
    std::vector<uint8_t> src = x.src, si_u8 = x.si_u8;
    std::vector<float> si_f = x.si_f32, sic = x.sic, bias = x.bias;
    const size_t nd = (size_t)p.T * p.N * p.DLC(), ni = (size_t)LD * p.N * p.dic_();
    o.dst_u8.assign(nd, 0xA5);
    o.dst_f.assign(nd, NAN);
    o.di_u8.assign(ni, 0xA5);
    o.di_f.assign(ni, NAN);
    o.dic.assign((size_t)LD * p.N * p.DHC, NAN);
    std::vector<dnnl_exec_arg_t> args;
    std::vector<mem_t> mems(16);
    int k = 0;
    auto add = [&](int arg, const kt::md_t &md, void *data) {
        if (!md.h) return;
        KT_OK(dnnl_memory_create(&mems[k].h, md.h, eng, data));
        args.push_back({arg, mems[k].h});
        ++k;
    };
    add(DNNL_ARG_SRC_LAYER, m.src, src.data());
    add(DNNL_ARG_SRC_ITER, m.si, p.si == dnnl_u8 ? (void *)si_u8.data() : (void *)si_f.data());
    add(DNNL_ARG_SRC_ITER_C, m.sic, sic.data());
    packed_w_t pwl, pwi;
    if (packed) {
        pack_weights(pwl, wl_want, user.wl, wl, mode == 4, what + " weights_layer");
        pack_weights(pwi, wi_want, user.wi, wi, mode == 4, what + " weights_iter");
        if (!pwl.ok || !pwi.ok) {
            dnnl_primitive_desc_destroy(pd);
            return false;
        }
        args.push_back({DNNL_ARG_WEIGHTS_LAYER, pwl.packed.h ? pwl.packed.h : pwl.user.h});
        args.push_back({DNNL_ARG_WEIGHTS_ITER, pwi.packed.h ? pwi.packed.h : pwi.user.h});
    } else {
        add(DNNL_ARG_WEIGHTS_LAYER, m.wl, wl.data());
        add(DNNL_ARG_WEIGHTS_ITER, m.wi, wi.data());
    }
    add(DNNL_ARG_WEIGHTS_PROJECTION, m.proj, wp.data());
    add(DNNL_ARG_BIAS, m.bias, bias.data());
    add(DNNL_ARG_DST_LAYER, m.dst, p.dst == dnnl_u8 ? (void *)o.dst_u8.data() : (void *)o.dst_f.data());
    add(DNNL_ARG_DST_ITER, m.di, p.di == dnnl_u8 ? (void *)o.di_u8.data() : (void *)o.di_f.data());
    add(DNNL_ARG_DST_ITER_C, m.dic, o.dic.data());
    // Inference: no workspace; the scratchpad is reported exactly.
    tally.check(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0)) == 0,
            (what + ": no workspace").c_str());
    if (mode == 2) {
        const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        dnnl_dim_t cons = -1;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &cons));
        tally.check(cons == 0, (what + ": user scratchpad not in memory_consumption").c_str());
        if (dnnl_memory_desc_get_size(smd)) {
            KT_OK(dnnl_memory_create(&mems[k].h, smd, eng, DNNL_MEMORY_ALLOCATE));
            args.push_back({DNNL_ARG_SCRATCHPAD, mems[k].h});
            ++k;
        }
    }
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    st = dnnl_primitive_execute(prim, strm, (int)args.size(), args.data());
    if (st == dnnl_success) st = dnnl_stream_wait(strm);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: execute status %d\n", what.c_str(), (int)st);
        return false;
    }
    return true;
}

// The same problem through dnnl.hpp (lstm_forward / gru_forward).
bool run_cpp(const prob_t &p, const data_t &x, outs_t &o) {
    using namespace dnnl;
    using dt = memory::data_type;
    using tag = memory::format_tag;
    engine e(engine::kind::cpu, 0);
    stream s(e);
    const memory::dim L = p.L, D = p.D(), T = p.T, N = p.N, G = p.G(), DHC = p.DHC, DIC = p.dic_();
    memory::desc src({T, N, p.SLC}, dt::u8, tag::tnc), dst({T, N, p.DLC()}, (dt)p.dst, tag::tnc),
            wl({L, D, p.SLC, G, DHC}, dt::s8, tag::any), wi({L, D, DIC, G, DHC}, dt::s8, tag::any),
            bias({L, D, G, DHC}, dt::f32, tag::ldgo), si({L, D, N, DIC}, (dt)p.si, tag::ldnc),
            di({L, D, N, DIC}, (dt)p.di, tag::ldnc), sic({L, D, N, DHC}, dt::f32, tag::ldnc),
            dic({L, D, N, DHC}, dt::f32, tag::ldnc);
    primitive_attr a;
    a.set_rnn_data_qparams(p.scale, p.shift);
    a.set_rnn_weights_qparams(p.per_chan ? (1 << 3) | (1 << 4) : 0, x.wsc);
    const auto dir = (rnn_direction)p.dir;
    const auto fi = prop_kind::forward_inference;
    std::vector<uint8_t> src_v = x.src, si_v = x.si_u8;
    std::vector<float> sic_v = x.sic, bias_v = x.bias;
    std::vector<int8_t> wl_v = x.wl, wi_v = x.wi;
    const size_t nd = (size_t)T * N * p.DLC(), ni = (size_t)L * D * N * DIC;
    o.dst_u8.assign(nd, 0);
    o.dst_f.assign(nd, NAN);
    o.di_u8.assign(ni, 0);
    o.dic.assign((size_t)L * D * N * DHC, NAN);
    // `any` weights: packed (opaque) for the layer weights and LSTM's
    // iteration weights, filled by a reorder from the plain s8 ones.
    const memory::desc user_wl({L, D, p.SLC, G, DHC}, dt::s8, tag::ldigo),
            user_wi({L, D, DIC, G, DHC}, dt::s8, tag::ldigo);
    auto weights = [&](const memory::desc &want, const memory::desc &user, std::vector<int8_t> &v) {
        memory u(user, e, v.data());
        if (want == user) return u;
        memory m(want, e);
        reorder(u, m).execute(s, u, m);
        return m;
    };
    auto common_args = [&](const memory::desc &wl_q, const memory::desc &wi_q) {
        std::unordered_map<int, memory> args;
        args[DNNL_ARG_SRC_LAYER] = memory(src, e, src_v.data());
        args[DNNL_ARG_SRC_ITER] = memory(si, e, si_v.data());
        args[DNNL_ARG_WEIGHTS_LAYER] = weights(wl_q, user_wl, wl_v);
        args[DNNL_ARG_WEIGHTS_ITER] = weights(wi_q, user_wi, wi_v);
        args[DNNL_ARG_BIAS] = memory(bias, e, bias_v.data());
        args[DNNL_ARG_DST_LAYER]
                = memory(dst, e, p.dst == dnnl_u8 ? (void *)o.dst_u8.data() : (void *)o.dst_f.data());
        args[DNNL_ARG_DST_ITER] = memory(di, e, o.di_u8.data());
        return args;
    };
    if (p.cell == lstm) {
        lstm_forward::primitive_desc pd(e, fi, dir, src, si, sic, wl, wi, bias, dst, di, dic, a);
        if (pd.weights_layer_desc().get_format_kind() != memory::format_kind::opaque
                || pd.weights_iter_desc().get_format_kind() != memory::format_kind::opaque)
            return false;
        auto args = common_args(pd.weights_layer_desc(), pd.weights_iter_desc());
        args[DNNL_ARG_SRC_ITER_C] = memory(pd.src_iter_c_desc(), e, sic_v.data());
        args[DNNL_ARG_DST_ITER_C] = memory(pd.dst_iter_c_desc(), e, o.dic.data());
        lstm_forward(pd).execute(s, args);
    } else {
        gru_forward::primitive_desc pd(e, fi, dir, src, si, wl, wi, bias, dst, di, a);
        if (pd.weights_layer_desc().get_format_kind() != memory::format_kind::opaque
                || pd.weights_iter_desc().get_format_kind() != memory::format_kind::opaque)
            return false;
        gru_forward(pd).execute(s, common_args(pd.weights_layer_desc(), pd.weights_iter_desc()));
    }
    s.wait();
    return true;
}

// Compares the library's outputs with the reference (exact for u8).
void compare(const prob_t &p, const ref_out_t &r, const outs_t &o, const std::string &base) {
    const double f_rel = 2 * std::ldexp(1.0, -23);
    const double c_tol = 6e-6 * (p.T + 2);
    bool ok = true;
    int sum_close = 0;
    const double delta = p.delta();
    for (size_t i = 0; i < r.dst_u8.size(); ++i) {
        if (p.dst == dnnl_u8) {
            if (o.dst_u8[i] == r.dst_u8[i]) continue;
            // A last-layer sum of directions is requantised once and feeds
            // nothing: one step apart is right when the reference lies
            // within delta of a .5 boundary.
            const double v = r.dst_f[i] * p.scale + p.shift;
            const bool near = std::fabs(v - std::floor(v) - 0.5) < delta;
            if (p.dir == dnnl_bidirectional_sum && near && std::abs((int)o.dst_u8[i] - (int)r.dst_u8[i]) == 1) {
                ++sum_close;
                continue;
            }
            ok = false;
        } else if (!(std::fabs(o.dst_f[i] - r.dst_f[i]) <= f_rel * (1 + std::fabs(r.dst_f[i])))) {
            ok = false;
        }
    }
    if (!ok) std::fprintf(stderr, "%s: dst_layer differs\n", base.c_str());
    tally.check(ok, (base + ": dst_layer vs reference").c_str());
    if (p.di != dnnl_data_type_undef) {
        bool oki = true;
        for (size_t i = 0; i < r.di_u8.size(); ++i)
            oki = oki
                    && (p.di == dnnl_u8 ? o.di_u8[i] == r.di_u8[i]
                                        : std::fabs(o.di_f[i] - r.di_f[i]) <= f_rel * (1 + std::fabs(r.di_f[i])));
        tally.check(oki, (base + ": dst_iter vs reference").c_str());
    }
    if (p.cell == lstm && p.dic) {
        bool okc = true;
        for (size_t i = 0; i < r.dic.size(); ++i) okc = okc && std::fabs(o.dic[i] - r.dic[i]) <= c_tol;
        tally.check(okc, (base + ": dst_iter_c vs reference").c_str());
    }
}

// Draws data until the reference meets no rounding it cannot decide (see
// the top); fails (never skips) when 50 draws all do.
bool draw(const prob_t &p, uint64_t &seed, data_t &x, ref_out_t &r) {
    for (int i = 0; i < 50; ++i, seed += 1000) {
        x = data_t();
        r = ref_out_t();
        make_data(p, x, seed);
        reference(p, x, r);
        if (r.ambiguous == 0) return true;
    }
    return false;
}

void check_prob(const prob_t &p, uint64_t seed, int nthr, int mode) {
    const std::string base = p.name() + " thr" + std::to_string(nthr) + " mode" + std::to_string(mode);
    data_t x;
    ref_out_t r;
    const bool drawn = draw(p, seed, x, r);
    tally.check(drawn, (base + ": data without undecidable roundings").c_str());
    if (!drawn) return;
    outs_t o;
    bool ok = false;
    kt::with_threads(nthr, [&] { ok = run_c(p, x, mode, o, base); });
    tally.check(ok, (base + ": runs").c_str());
    if (ok) compare(p, r, o, base);
}

void sweep() {
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right, dnnl_unidirectional_right2left,
            dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    struct sz_t {
        int T, N, SLC, DHC;
    };
    const sz_t sizes[] = {{1, 1, 1, 1}, {3, 2, 5, 7}, {2, 3, 19, 17}};
    const dnnl_data_type_t iters[] = {dnnl_u8, dnnl_f32, dnnl_data_type_undef};
    uint64_t seed = 1;
    for (cell_t cell : {lstm, gru})
        for (auto dir : dirs)
            for (int L : {1, 2})
                for (const auto &s : sizes) {
                    prob_t p;
                    p.cell = cell;
                    p.dir = dir;
                    p.L = L;
                    p.T = s.T;
                    p.N = s.N;
                    p.DHC = s.DHC;
                    p.DIC = cell == lstm && seed % 4 == 1 ? 3 : 0;
                    p.SLC = L > 1 ? p.dic_() : s.SLC;
                    p.si = iters[seed % 3];
                    p.di = iters[(seed / 3) % 3];
                    p.dst = seed % 2 ? dnnl_u8 : dnnl_f32;
                    p.sic = seed % 5 != 0;
                    p.dic = seed % 7 != 2;
                    p.bias = seed % 6 != 3;
                    p.per_chan = seed % 3 != 2;
                    p.goi = seed % 4 == 2;
                    if (seed % 5 == 3) {
                        p.scale = 100.f;
                        p.shift = 120.25f; // a half-integer shift would make every sum of directions a tie
                    }
                    check_prob(p, seed, 1 + (int)(seed % 2), (int)(seed % 3));
                    check_prob(p, seed, 2 - (int)(seed % 2), 3 + (int)(seed % 2));
                    ++seed;
                }
}

// The input GEMM runs over chunks of about 256 rows (ceil(256 / N) steps):
// N = 86 makes chunks of 3 steps, so T = 4 is one chunk and a 1-step tail,
// in both time orders. One channel keeps the undecidable roundings rare
// enough to draw clean data (see the top).
void sweep_chunks() {
    uint64_t seed = 5000;
    for (cell_t cell : {lstm, gru})
        for (auto dir : {dnnl_unidirectional_left2right, dnnl_unidirectional_right2left}) {
            prob_t p;
            p.cell = cell;
            p.dir = dir;
            p.T = 4;
            p.N = 86;
            p.SLC = 3;
            p.DHC = 1;
            p.si = dnnl_u8;
            p.di = dnnl_u8;
            p.dst = dnnl_u8;
            if (dir == dnnl_unidirectional_right2left) p.shift = 120.25f; // the double compensation
            check_prob(p, seed, cell == lstm ? 1 : 2, 0);
            seed += 7;
        }
}

// The C++ API gives the same result as the reference (and format any
// resolves to ldigo for s8 weights).
void check_cpp() {
    for (cell_t cell : {lstm, gru}) {
        prob_t p;
        p.cell = cell;
        p.dir = dnnl_bidirectional_concat;
        p.L = 2;
        p.T = 3;
        p.N = 2;
        p.DHC = 6;
        p.SLC = p.dic_();
        p.dst = dnnl_f32;
        p.si = dnnl_u8;
        p.di = dnnl_u8;
        uint64_t seed = 77 + cell;
        data_t x;
        ref_out_t r;
        const std::string base = "C++ " + p.name();
        const bool drawn = draw(p, seed, x, r);
        tally.check(drawn, (base + ": data").c_str());
        if (!drawn) continue;
        outs_t o;
        bool ok = false;
        try {
            kt::with_threads(2, [&] { ok = run_cpp(p, x, o); });
        } catch (const dnnl::error &e) {
            std::fprintf(stderr, "%s: %s\n", base.c_str(), e.what());
        }
        tally.check(ok, (base + ": runs, weights any -> ldigo").c_str());
        if (ok) compare(p, r, o, base);
    }
}

// What oneDNN's CPU does not offer for int8 gives unimplemented, qparams
// that do not fit give invalid_arguments; no pd either way.
void check_refused() {
    struct case_t {
        const char *what;
        dnnl_status_t want;
        std::function<void(prob_t &, data_t &, dnnl_primitive_attr_t)> tweak;
        cell_t cell;
        int kind; // 0 LSTM/GRU as p says, 1 vanilla RNN, 2 LBR-GRU, 3 peephole LSTM, 4 training, 5 s8 src
    };
    const case_t cases[] = {
            {"int8 vanilla RNN", dnnl_unimplemented, nullptr, gru, 1},
            {"int8 LBR-GRU", dnnl_unimplemented, nullptr, gru, 2},
            {"int8 LSTM with peepholes", dnnl_unimplemented, nullptr, lstm, 3},
            {"int8 forward training", dnnl_unimplemented, nullptr, lstm, 4},
            {"s8 src_layer (needs AMX in oneDNN)", dnnl_unimplemented, nullptr, lstm, 5},
            {"weights scales count differs from G * DHC", dnnl_invalid_arguments,
                    [](prob_t &, data_t &x, dnnl_primitive_attr_t a) {
                        KT_OK(dnnl_primitive_attr_set_rnn_weights_qparams(a, 3, (1 << 3) | (1 << 4), x.wsc.data()));
                    },
                    lstm, 0},
            {"weights scales over the input channels", dnnl_unimplemented,
                    [](prob_t &, data_t &x, dnnl_primitive_attr_t a) {
                        KT_OK(dnnl_primitive_attr_set_rnn_weights_qparams(a, 3, 1 << 2, x.wsc.data()));
                    },
                    lstm, 0},
            {"data scale 0", dnnl_invalid_arguments,
                    [](prob_t &, data_t &, dnnl_primitive_attr_t a) {
                        KT_OK(dnnl_primitive_attr_set_rnn_data_qparams(a, 0.f, 128.f));
                    },
                    gru, 0},
            {"data shift NaN", dnnl_invalid_arguments,
                    [](prob_t &, data_t &, dnnl_primitive_attr_t a) {
                        KT_OK(dnnl_primitive_attr_set_rnn_data_qparams(a, 64.f, NAN));
                    },
                    gru, 0},
    };
    for (const auto &c : cases) {
        prob_t p;
        p.cell = c.cell;
        p.T = 2;
        p.N = 2;
        p.SLC = 4;
        p.DHC = 4;
        data_t x;
        make_data(p, x, 5);
        attr_h a;
        set_qparams(p, x, a.h);
        if (c.tweak) c.tweak(p, x, a.h);
        mds_t m;
        make_mds(p, m);
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_status_t st;
        const auto l2r = dnnl_unidirectional_left2right;
        if (c.kind == 1 || c.kind == 2) {
            kt::md_t wl1(kt::make_md({1, 1, 4, c.kind == 1 ? 1 : 3, 4}, dnnl_s8, dnnl_ldigo)),
                    wi1(kt::make_md({1, 1, 4, c.kind == 1 ? 1 : 3, 4}, dnnl_s8, dnnl_ldigo));
            st = c.kind == 1 ? dnnl_vanilla_rnn_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
                                       dnnl_eltwise_tanh, l2r, m.src, m.si, wl1, wi1, nullptr, m.dst, m.di, 0, 0.f,
                                       0.f, a.h)
                             : dnnl_lbr_gru_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, l2r,
                                       m.src, m.si, wl1, wi1, nullptr, m.dst, m.di, 0, a.h);
        } else if (c.kind == 3) {
            kt::md_t peep(kt::make_md({1, 1, 3, 4}, dnnl_f32, dnnl_ldgo));
            st = dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, l2r, m.src, m.si, m.sic,
                    m.wl, m.wi, peep, nullptr, m.bias, m.dst, m.di, m.dic, 0, a.h);
        } else if (c.kind == 4) {
            st = dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_training, l2r, m.src, m.si, m.sic,
                    m.wl, m.wi, nullptr, nullptr, m.bias, m.dst, m.di, m.dic, 0, a.h);
        } else if (c.kind == 5) {
            kt::md_t s8src(kt::make_md({2, 2, 4}, dnnl_s8, dnnl_tnc));
            st = dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, l2r, s8src, m.si, m.sic,
                    m.wl, m.wi, nullptr, nullptr, m.bias, m.dst, m.di, m.dic, 0, a.h);
        } else {
            st = create_pd(&pd, p, m, a.h);
        }
        if (st != c.want) std::fprintf(stderr, "%s: status %d\n", c.what, (int)st);
        tally.check(st == c.want && pd == nullptr, c.what);
        if (pd) dnnl_primitive_desc_destroy(pd);
    }
}

// An execution with a dst_iter of the wrong type is refused before
// anything is written.
void check_bad_exec() {
    prob_t p;
    p.T = 2;
    p.N = 2;
    p.SLC = 4;
    p.DHC = 4;
    data_t x;
    make_data(p, x, 9);
    mds_t m;
    make_mds(p, m);
    attr_h a;
    set_qparams(p, x, a.h);
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(create_pd(&pd, p, m, a.h));
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<uint8_t> dst(p.T * p.N * p.DHC, 0xA5);
    std::vector<float> wrong(64, 0.f);
    kt::md_t di_f32(kt::make_md({1, 1, p.N, p.DHC}, dnnl_f32, dnnl_ldnc));
    std::vector<mem_t> mems(10);
    std::vector<dnnl_exec_arg_t> args;
    int k = 0;
    auto add = [&](int arg, const_dnnl_memory_desc_t md, void *data) {
        KT_OK(dnnl_memory_create(&mems[k].h, md, eng, data));
        args.push_back({arg, mems[k].h});
        ++k;
    };
    std::vector<uint8_t> si(x.si_u8);
    std::vector<float> sic(x.sic), dic(64, 0.f);
    add(DNNL_ARG_SRC_LAYER, m.src, x.src.data());
    add(DNNL_ARG_SRC_ITER, m.si, si.data());
    add(DNNL_ARG_SRC_ITER_C, m.sic, sic.data());
    add(DNNL_ARG_WEIGHTS_LAYER, m.wl, x.wl.data());
    add(DNNL_ARG_WEIGHTS_ITER, m.wi, x.wi.data());
    add(DNNL_ARG_BIAS, m.bias, x.bias.data());
    add(DNNL_ARG_DST_LAYER, m.dst, dst.data());
    add(DNNL_ARG_DST_ITER, di_f32, wrong.data());
    add(DNNL_ARG_DST_ITER_C, m.dic, dic.data());
    const dnnl_status_t st = dnnl_primitive_execute(prim, strm, (int)args.size(), args.data());
    bool untouched = true;
    for (uint8_t v : dst) untouched = untouched && v == 0xA5;
    tally.check(st == dnnl_invalid_arguments && untouched, "f32 dst_iter for a u8 one: invalid_arguments, nothing written");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

// The quantising reorders the RNN qparams drive (C++ API, as oneDNN's int8
// RNN example uses them): f32 data to u8 with (scale, shift), f32 weights
// to s8 with per-(gate, channel) scales, f32 projection weights to s8 with
// per-channel projection scales; saturation included. The reference
// rounds in double; the library's f32 product can land on the other side
// of a .5 boundary only when the exact value is within a few ulps (of
// <= 512: 2^-14) of it, where one step apart is accepted.
void check_reorders() {
    using namespace dnnl;
    using dt = memory::data_type;
    using tag = memory::format_tag;
    engine e(engine::kind::cpu, 0);
    stream st(e);
    auto check = [&](const char *what, const memory::dims &dims, tag ut, dt qdt, const primitive_attr &a,
                         const std::function<double(size_t, float)> &want_real, float lo, float hi) {
        memory::desc fmd(dims, dt::f32, ut), qmd(dims, qdt, ut);
        memory fm(fmd, e), qm(qmd, e);
        const size_t n = fmd.get_size() / sizeof(float);
        std::vector<float> f(n);
        kt::fill(f, 31 + n, lo, hi);
        std::memcpy(fm.get_data_handle(), f.data(), n * sizeof(float));
        bool ok = true;
        try {
            reorder(fm, qm, a).execute(st, fm, qm);
            st.wait();
        } catch (const dnnl::error &err) {
            std::fprintf(stderr, "%s: %s\n", what, err.what());
            ok = false;
        }
        int edge = 0;
        for (size_t i = 0; ok && i < n; ++i) {
            const double v = want_real(i, f[i]);
            const double lim_lo = qdt == dt::u8 ? 0 : -128, lim_hi = qdt == dt::u8 ? 255 : 127;
            const double want = std::fmin(lim_hi, std::fmax(lim_lo, std::nearbyint(v)));
            const double got = qdt == dt::u8 ? (double)static_cast<uint8_t *>(qm.get_data_handle())[i]
                                             : (double)static_cast<int8_t *>(qm.get_data_handle())[i];
            if (got == want) continue;
            const bool near = std::fabs(v - std::floor(v) - 0.5) < std::ldexp(1.0, -14);
            if (near && std::fabs(got - want) == 1) {
                ++edge;
                continue;
            }
            ok = false;
        }
        tally.check(ok, what);
    };
    {
        primitive_attr a;
        a.set_rnn_data_qparams(63.f, 64.f);
        check("reorder f32 -> u8 with rnn data qparams (saturating)", {3, 4, 5}, tag::tnc, dt::u8, a,
                [](size_t, float f) { return (double)f * 63.0 + 64.0; }, -2.f, 4.f);
    }
    {
        const int L = 1, D = 2, I = 3, G = 4, O = 5;
        std::vector<float> sc(G * O);
        kt::fill(sc, 8, 80.f, 120.f);
        primitive_attr a;
        a.set_rnn_weights_qparams((1 << 3) | (1 << 4), sc);
        check("reorder f32 -> s8 ldigo with per-(gate, channel) rnn weights scales", {L, D, I, G, O}, tag::ldigo,
                dt::s8, a, [&](size_t i, float f) { return (double)f * sc[i % (G * O)]; }, -1.2f, 1.2f);
        primitive_attr a0;
        a0.set_rnn_weights_qparams(0, {100.f});
        check("reorder f32 -> s8 ldigo with one rnn weights scale", {L, D, I, G, O}, tag::ldigo, dt::s8, a0,
                [&](size_t, float f) { return (double)f * 100.0; }, -1.2f, 1.2f);
    }
    {
        const int DHC = 5, DIC = 3;
        std::vector<float> sc = {90.f, 110.f, 127.f};
        primitive_attr a;
        a.set_rnn_weights_projection_qparams(1 << 3, sc);
        check("reorder f32 -> s8 ldio with per-channel projection scales", {1, 1, DHC, DIC}, tag::ldio, dt::s8, a,
                [&](size_t i, float f) { return (double)f * sc[i % DIC]; }, -1.1f, 1.1f);
    }
    {
        // A scales count that does not match the mask: refused.
        memory::desc fmd({1, 1, 3, 4, 5}, dt::f32, tag::ldigo), qmd({1, 1, 3, 4, 5}, dt::s8, tag::ldigo);
        primitive_attr a;
        a.set_rnn_weights_qparams((1 << 3) | (1 << 4), {1.f, 2.f});
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t s = dnnl_reorder_primitive_desc_create(&pd, fmd.get(), e.get(), qmd.get(), e.get(), a.get());
        tally.check(s == dnnl_invalid_arguments && !pd, "reorder with a weights scales count not matching the mask: invalid_arguments");
        if (pd) dnnl_primitive_desc_destroy(pd);
    }
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    sweep();
    sweep_chunks();
    check_cpp();
    check_refused();
    check_bad_exec();
    check_reorders();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
