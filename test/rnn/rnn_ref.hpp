// The naive recurrent reference shared by the RNN tests: problem
// description, deterministic data in the canonical dense layouts (tnc,
// ldigo, ldgo, ldio, ldnc), the reference computed in double, and the
// test's own layout permutations. Shares no code with the library.
#ifndef KESTREL_TEST_RNN_RNN_REF_HPP
#define KESTREL_TEST_RNN_RNN_REF_HPP

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/kt_test.hpp"

namespace rnn_ref {

enum cell_t { c_rnn, c_lstm, c_gru, c_lbr_gru, c_augru, c_lbr_augru };

struct prob_t {
    cell_t cell = c_rnn;
    dnnl_alg_kind_t act = dnnl_eltwise_tanh;
    float alpha = 0.f;
    dnnl_rnn_direction_t dir = dnnl_unidirectional_left2right;
    int L = 1, T = 1, N = 1, SLC = 1, DHC = 1, DIC = 0; // DIC 0: no projection
    int SIC = 0; // width of src_iter / rows of weights_iter; 0: DIC (may differ only for T == 1)
    bool peephole = false, bias = true, src_iter = true, src_iter_c = true, dst_iter = true,
         dst_iter_c = true;
    bool ntc = false, goi = false; // src/dst layer ntc; weights ldgoi (projection ldoi)

    int G() const { return cell == c_rnn ? 1 : cell == c_lstm ? 4 : 3; }
    bool lbr() const { return cell == c_lbr_gru || cell == c_lbr_augru; }
    bool augru() const { return cell == c_augru || cell == c_lbr_augru; }
    bool proj() const { return DIC != 0; }
    int dic() const { return DIC ? DIC : DHC; }
    int sic() const { return SIC ? SIC : dic(); }
    // Row stride of the references' hidden-state arrays: step 0 is SIC wide.
    int hs() const { return sic() > dic() ? sic() : dic(); }
    int D() const { return dir == dnnl_bidirectional_concat || dir == dnnl_bidirectional_sum ? 2 : 1; }
    int DLC() const { return dir == dnnl_bidirectional_concat ? 2 * dic() : dic(); }
    int GB() const { return G() + (lbr() ? 1 : 0); }
    std::string name() const {
        static const char *cells[] = {"rnn", "lstm", "gru", "lbr_gru", "augru", "lbr_augru"};
        static const char *dirs[] = {"", "l2r", "r2l", "concat", "sum"};
        char b[256];
        std::snprintf(b, sizeof b, "%s%s L%d T%d N%d SLC%d SIC%d DHC%d DIC%d%s%s%s%s%s%s", cells[cell],
                cell == c_rnn ? (act == dnnl_eltwise_relu ? "/relu" : act == dnnl_eltwise_tanh ? "/tanh" : "/logistic")
                              : "",
                L, T, N, SLC, sic(), DHC, dic(), peephole ? " peep" : "", bias ? "" : " nobias", src_iter ? "" : " noinit",
                dst_iter ? "" : " nofinal", ntc ? " ntc" : "", goi ? " goi" : "");
        return std::string(b) + " " + dirs[(int)dir];
    }
};

// All tensors in the canonical dense layouts (tnc, ldigo, ldgo, ldio, ldnc);
// wi is [L][D][SIC][G][DHC], si [L][D][N][SIC].
struct data_t {
    std::vector<float> src, wl, wi, peep, proj, bias, si, sic, att;
};

inline double sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

inline double act_ref(const prob_t &p, double x) {
    if (p.act == dnnl_eltwise_relu) return x > 0 ? x : p.alpha * x;
    if (p.act == dnnl_eltwise_tanh) return std::tanh(x);
    return sig(x);
}

// The naive reference: dst_layer [T][N][DLC], dst_iter [L][D][N][DIC],
// dst_iter_c [L][D][N][DHC]. Each direction is its own stack of layers:
// layer l > 0 of direction d reads layer l - 1 of direction d; only the
// last layer's directions are concatenated or summed into dst_layer.
inline void reference(const prob_t &p, const data_t &x, std::vector<double> &dst, std::vector<double> &di,
        std::vector<double> &dic) {
    const int L = p.L, D = p.D(), T = p.T, N = p.N, G = p.G(), DHC = p.DHC, DIC = p.dic(), SIC = p.sic();
    const int GB = p.GB(), SLC = p.SLC;
    di.assign((size_t)L * D * N * DIC, 0.0);
    dic.assign((size_t)L * D * N * DHC, 0.0);
    // out[d]: the output of direction d's latest layer, [T][N][DIC].
    std::vector<std::vector<double>> out(D);
    for (int l = 0; l < L; ++l) {
        for (int d = 0; d < D; ++d) {
            // The input: src_layer, or this direction's layer below (SLC == DIC).
            const std::vector<double> in = l == 0 ? std::vector<double>(x.src.begin(), x.src.end()) : out[d];
            std::vector<double> y((size_t)T * N * DIC, 0.0);
            const bool r2l = p.dir == dnnl_unidirectional_right2left || d == 1;
            const size_t ld = (size_t)l * D + d;
            auto WL = [&](int c, int g, int o) { return (double)x.wl[(((ld * SLC) + c) * G + g) * DHC + o]; };
            auto WI = [&](int c, int g, int o) { return (double)x.wi[(((ld * SIC) + c) * G + g) * DHC + o]; };
            auto B = [&](int g, int o) { return p.bias ? (double)x.bias[(ld * GB + g) * DHC + o] : 0.0; };
            auto P = [&](int g, int o) { return p.peephole ? (double)x.peep[(ld * 3 + g) * DHC + o] : 0.0; };
            // h: N rows of hw values (the initial state SIC, later DIC).
            int hw = SIC;
            std::vector<double> h((size_t)N * SIC, 0.0), c((size_t)N * DHC, 0.0);
            for (int n = 0; n < N; ++n) {
                for (int o = 0; o < SIC; ++o) h[n * SIC + o] = p.src_iter ? x.si[(ld * N + n) * SIC + o] : 0.0;
                for (int o = 0; o < DHC; ++o)
                    c[n * DHC + o] = p.src_iter_c && p.cell == c_lstm ? x.sic[(ld * N + n) * DHC + o] : 0.0;
            }
            for (int i = 0; i < T; ++i) {
                const int t = r2l ? T - 1 - i : i;
                std::vector<double> hn((size_t)N * DIC), cn((size_t)N * DHC);
                for (int n = 0; n < N; ++n) {
                    const double *xi = &in[((size_t)t * N + n) * SLC];
                    const double *hp = &h[(size_t)n * hw];
                    // wx[g][o], wh[g][o]: the input and hidden parts of each gate.
                    std::vector<double> wx((size_t)G * DHC, 0.0), wh((size_t)G * DHC, 0.0);
                    for (int g = 0; g < G; ++g)
                        for (int o = 0; o < DHC; ++o) {
                            for (int k = 0; k < SLC; ++k) wx[g * DHC + o] += xi[k] * WL(k, g, o);
                            for (int k = 0; k < hw; ++k) wh[g * DHC + o] += hp[k] * WI(k, g, o);
                        }
                    std::vector<double> hv(DHC);
                    const double a = p.augru() ? x.att[(size_t)t * N + n] : 0.0;
                    for (int o = 0; o < DHC; ++o) {
                        if (p.cell == c_rnn) {
                            hv[o] = act_ref(p, wx[o] + wh[o] + B(0, o));
                        } else if (p.cell == c_lstm) {
                            const double cp = c[(size_t)n * DHC + o];
                            const double gi = sig(wx[o] + wh[o] + B(0, o) + P(0, o) * cp);
                            const double gf = sig(wx[DHC + o] + wh[DHC + o] + B(1, o) + P(1, o) * cp);
                            const double gc = std::tanh(wx[2 * DHC + o] + wh[2 * DHC + o] + B(2, o));
                            const double cc = gf * cp + gi * gc;
                            const double go = sig(wx[3 * DHC + o] + wh[3 * DHC + o] + B(3, o) + P(2, o) * cc);
                            cn[(size_t)n * DHC + o] = cc;
                            hv[o] = go * std::tanh(cc);
                        } else if (p.lbr()) {
                            const double u = sig(wx[o] + wh[o] + B(0, o));
                            const double r = sig(wx[DHC + o] + wh[DHC + o] + B(1, o));
                            const double cand = std::tanh(wx[2 * DHC + o] + B(2, o) + r * (wh[2 * DHC + o] + B(3, o)));
                            const double ua = (1 - a) * u;
                            hv[o] = ua * hp[o] + (1 - ua) * cand;
                        } else {
                            const double u = sig(wx[o] + wh[o] + B(0, o));
                            double cand_in = wx[2 * DHC + o] + B(2, o);
                            for (int k = 0; k < hw; ++k) {
                                const double rk = sig(wx[DHC + k] + wh[DHC + k] + B(1, k));
                                cand_in += rk * hp[k] * WI(k, 2, o);
                            }
                            const double cand = std::tanh(cand_in);
                            const double ua = (1 - a) * u;
                            hv[o] = ua * hp[o] + (1 - ua) * cand;
                        }
                    }
                    for (int j = 0; j < DIC; ++j) {
                        double v = 0;
                        if (p.proj())
                            for (int o = 0; o < DHC; ++o) v += hv[o] * x.proj[((ld * DHC) + o) * DIC + j];
                        else
                            v = hv[j];
                        hn[(size_t)n * DIC + j] = v;
                    }
                }
                h = hn;
                hw = DIC;
                if (p.cell == c_lstm) c = cn;
                for (int n = 0; n < N; ++n)
                    for (int j = 0; j < DIC; ++j) y[((size_t)t * N + n) * DIC + j] = h[(size_t)n * DIC + j];
            }
            for (int n = 0; n < N; ++n) {
                for (int j = 0; j < DIC; ++j) di[(ld * N + n) * DIC + j] = h[(size_t)n * hw + j];
                for (int o = 0; o < DHC; ++o) dic[(ld * N + n) * DHC + o] = c[(size_t)n * DHC + o];
            }
            out[d] = y;
        }
    }
    const int DLC = p.DLC();
    dst.assign((size_t)T * N * DLC, 0.0);
    for (size_t tn = 0; tn < (size_t)T * N; ++tn)
        for (int j = 0; j < DIC; ++j) {
            if (p.dir == dnnl_bidirectional_sum) {
                dst[tn * DLC + j] = out[0][tn * DIC + j] + out[1][tn * DIC + j];
            } else {
                for (int d = 0; d < D; ++d) dst[tn * DLC + d * DIC + j] = out[d][tn * DIC + j];
            }
        }
}

inline void make_data(const prob_t &p, data_t &x, uint64_t seed) {
    const int L = p.L, D = p.D(), G = p.G(), DHC = p.DHC, DIC = p.dic(), SIC = p.sic();
    const float ws = 1.f / (float)(p.SLC + p.hs());
    x.src.resize((size_t)p.T * p.N * p.SLC);
    x.wl.resize((size_t)L * D * p.SLC * G * DHC);
    x.wi.resize((size_t)L * D * SIC * G * DHC);
    x.peep.resize((size_t)L * D * 3 * DHC);
    x.proj.resize((size_t)L * D * DHC * DIC);
    x.bias.resize((size_t)L * D * p.GB() * DHC);
    x.si.resize((size_t)L * D * p.N * SIC);
    x.sic.resize((size_t)L * D * p.N * DHC);
    x.att.resize((size_t)p.T * p.N);
    kt::fill(x.src, seed + 1);
    kt::fill(x.wl, seed + 2, -ws, ws);
    kt::fill(x.wi, seed + 3, -ws, ws);
    kt::fill(x.peep, seed + 4, -0.5f, 0.5f);
    kt::fill(x.proj, seed + 5, -1.f / DHC, 1.f / DHC);
    kt::fill(x.bias, seed + 6, -0.5f, 0.5f);
    kt::fill(x.si, seed + 7);
    kt::fill(x.sic, seed + 8);
    kt::fill(x.att, seed + 9, 0.f, 1.f);
}

// Rewrites 5D ldigo data as ldgoi, 4D ldio as ldoi, 3D tnc as ntc (the
// test's own permutation: the library's layout helpers are not used).
inline std::vector<float> to_goi(const std::vector<float> &v, int LD, int I, int G, int O) {
    std::vector<float> r(v.size());
    for (int a = 0; a < LD; ++a)
        for (int i = 0; i < I; ++i)
            for (int g = 0; g < G; ++g)
                for (int o = 0; o < O; ++o)
                    r[(((size_t)a * G + g) * O + o) * I + i] = v[(((size_t)a * I + i) * G + g) * O + o];
    return r;
}
inline std::vector<float> to_ntc(const std::vector<float> &v, int T, int N, int C) {
    std::vector<float> r(v.size());
    for (int t = 0; t < T; ++t)
        for (int n = 0; n < N; ++n)
            for (int c = 0; c < C; ++c) r[((size_t)n * T + t) * C + c] = v[((size_t)t * N + n) * C + c];
    return r;
}

inline double max_abs_diff(const std::vector<float> &a, const std::vector<double> &b) {
    double w = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(a[i] - b[i]);
        if (!(d <= w)) w = std::isnan(d) ? INFINITY : d;
    }
    return w;
}

// See test_rnn_fwd.cpp for the derivation.
inline double tolerance(const prob_t &p) {
    return 4.0 * (p.SLC + p.hs() + 8) * p.T * p.L * std::ldexp(1.0, -24);
}

} // namespace rnn_ref

#endif
