// A naive back-propagation-through-time reference for the RNN backward
// test, in double: it reruns the forward of rnn_ref.hpp keeping every
// intermediate, then walks layers top down and steps in reverse with plain
// loops. Each direction is its own stack of layers (layer l > 0 of
// direction d reads layer l - 1 of direction d), so the gradient of a
// layer's output comes from the same direction's layer above, or, for the
// last layer, from diff_dst_layer. Shares no code with the library.
#ifndef KESTREL_TEST_RNN_RNN_BPTT_REF_HPP
#define KESTREL_TEST_RNN_RNN_BPTT_REF_HPP

#include <cmath>
#include <vector>

#include "rnn/rnn_ref.hpp"

namespace rnn_ref {

// Gradients in the canonical layouts (tnc, ldnc, ldigo, ldgo, ldio).
struct grads_t {
    std::vector<double> src, si, sic, att, wl, wi, peep, proj, bias;
};

// ddst [T][N][DLC], ddi [L][D][N][DIC], ddic [L][D][N][DHC] (empty when
// the problem has no final state). Gradients: si [L][D][N][SIC], wi
// [L][D][SIC][G][DHC].
inline void bptt(const prob_t &p, const data_t &x, const std::vector<float> &ddst, const std::vector<float> &ddi,
        const std::vector<float> &ddic, grads_t &gr) {
    const int L = p.L, D = p.D(), T = p.T, N = p.N, G = p.G(), DHC = p.DHC, DIC = p.dic(), GB = p.GB();
    const int DLC = p.DLC(), SIC = p.sic(), HS = p.hs(), SLC = p.SLC;
    const bool lstm = p.cell == c_lstm, gru = p.cell == c_gru || p.cell == c_augru, lbr = p.lbr();
    // Forward, keeping per (l, d): its input and output in time order, the
    // states by step, activated gates, LBR's U_c h + b', LSTM's
    // o * tanh(c) by time.
    struct ld_t {
        std::vector<double> in, out; // [T][N][SLC], [T][N][DIC]
        std::vector<double> h, c, gates, ghc, hv; // h: [T + 1][N][HS], c: [T + 1][N][DHC]; the rest [T][N][*]
    };
    std::vector<ld_t> st((size_t)L * D);
    auto wl_at = [&](size_t ld, int c, int g, int o) { return (double)x.wl[(((ld * SLC) + c) * G + g) * DHC + o]; };
    auto wi_at = [&](size_t ld, int c, int g, int o) { return (double)x.wi[(((ld * SIC) + c) * G + g) * DHC + o]; };
    auto b_at = [&](size_t ld, int g, int o) { return p.bias ? (double)x.bias[(ld * GB + g) * DHC + o] : 0.0; };
    auto p_at = [&](size_t ld, int g, int o) { return p.peephole ? (double)x.peep[(ld * 3 + g) * DHC + o] : 0.0; };
    auto pr_at = [&](size_t ld, int o, int j) { return (double)x.proj[(ld * DHC + o) * DIC + j]; };
    auto att_at = [&](int t, int n) { return p.augru() ? (double)x.att[(size_t)t * N + n] : 0.0; };
    auto sg = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    auto act = [&](double v) {
        if (p.act == dnnl_eltwise_relu) return v > 0 ? v : p.alpha * v;
        if (p.act == dnnl_eltwise_tanh) return std::tanh(v);
        return sg(v);
    };
    for (int l = 0; l < L; ++l) {
        for (int d = 0; d < D; ++d) {
            const size_t ld = (size_t)l * D + d;
            const bool r2l = p.dir == dnnl_unidirectional_right2left || d == 1;
            ld_t &s = st[ld];
            if (l == 0) s.in.assign(x.src.begin(), x.src.end());
            else s.in = st[ld - D].out; // SLC == DIC
            const std::vector<double> &in = s.in;
            s.out.assign((size_t)T * N * DIC, 0.0);
            s.h.assign((size_t)(T + 1) * N * HS, 0.0);
            s.c.assign((size_t)(T + 1) * N * DHC, 0.0);
            s.gates.assign((size_t)T * N * G * DHC, 0.0);
            s.ghc.assign((size_t)T * N * DHC, 0.0);
            s.hv.assign((size_t)T * N * DHC, 0.0);
            for (int n = 0; n < N; ++n) {
                for (int j = 0; j < SIC; ++j) s.h[(size_t)n * HS + j] = p.src_iter ? x.si[(ld * N + n) * SIC + j] : 0.0;
                for (int o = 0; o < DHC; ++o)
                    s.c[(size_t)n * DHC + o] = lstm && p.src_iter_c ? x.sic[(ld * N + n) * DHC + o] : 0.0;
            }
            for (int k = 1; k <= T; ++k) {
                const int t = r2l ? T - k : k - 1;
                for (int n = 0; n < N; ++n) {
                    // The previous state: SIC wide at the first step, DIC
                    // later (T > 1 needs SIC == DIC).
                    const int hw = k == 1 ? SIC : DIC;
                    const double *xi = &in[((size_t)t * N + n) * SLC];
                    const double *hp = &s.h[((size_t)(k - 1) * N + n) * HS];
                    const double *cp = &s.c[((size_t)(k - 1) * N + n) * DHC];
                    double *hn = &s.h[((size_t)k * N + n) * HS];
                    double *cn = &s.c[((size_t)k * N + n) * DHC];
                    double *gt = &s.gates[((size_t)t * N + n) * G * DHC];
                    std::vector<double> zx((size_t)G * DHC, 0.0), zh((size_t)G * DHC, 0.0), hv(DHC);
                    for (int g = 0; g < G; ++g)
                        for (int o = 0; o < DHC; ++o) {
                            for (int c = 0; c < SLC; ++c) zx[g * DHC + o] += xi[c] * wl_at(ld, c, g, o);
                            for (int c = 0; c < hw; ++c) zh[g * DHC + o] += hp[c] * wi_at(ld, c, g, o);
                        }
                    const double a = att_at(t, n);
                    for (int o = 0; o < DHC; ++o) {
                        if (p.cell == c_rnn) {
                            gt[o] = act(zx[o] + zh[o] + b_at(ld, 0, o));
                            hv[o] = gt[o];
                        } else if (lstm) {
                            gt[o] = sg(zx[o] + zh[o] + b_at(ld, 0, o) + p_at(ld, 0, o) * cp[o]);
                            gt[DHC + o] = sg(zx[DHC + o] + zh[DHC + o] + b_at(ld, 1, o) + p_at(ld, 1, o) * cp[o]);
                            gt[2 * DHC + o] = std::tanh(zx[2 * DHC + o] + zh[2 * DHC + o] + b_at(ld, 2, o));
                            cn[o] = gt[DHC + o] * cp[o] + gt[o] * gt[2 * DHC + o];
                            gt[3 * DHC + o]
                                    = sg(zx[3 * DHC + o] + zh[3 * DHC + o] + b_at(ld, 3, o) + p_at(ld, 2, o) * cn[o]);
                            hv[o] = gt[3 * DHC + o] * std::tanh(cn[o]);
                        } else {
                            gt[o] = sg(zx[o] + zh[o] + b_at(ld, 0, o));
                            gt[DHC + o] = sg(zx[DHC + o] + zh[DHC + o] + b_at(ld, 1, o));
                        }
                    }
                    if (gru || lbr) {
                        for (int o = 0; o < DHC; ++o) {
                            double z = zx[2 * DHC + o] + b_at(ld, 2, o);
                            if (lbr) {
                                s.ghc[((size_t)t * N + n) * DHC + o] = zh[2 * DHC + o] + b_at(ld, 3, o);
                                z += gt[DHC + o] * (zh[2 * DHC + o] + b_at(ld, 3, o));
                            } else {
                                for (int c = 0; c < hw; ++c) z += gt[DHC + c] * hp[c] * wi_at(ld, c, 2, o);
                            }
                            gt[2 * DHC + o] = std::tanh(z);
                            const double ua = (1 - a) * gt[o];
                            hv[o] = ua * hp[o] + (1 - ua) * gt[2 * DHC + o];
                        }
                    }
                    for (int o = 0; o < DHC; ++o) s.hv[((size_t)t * N + n) * DHC + o] = hv[o];
                    for (int j = 0; j < DIC; ++j) {
                        double v = 0;
                        if (p.proj())
                            for (int o = 0; o < DHC; ++o) v += hv[o] * pr_at(ld, o, j);
                        else
                            v = hv[j];
                        hn[j] = v;
                        s.out[((size_t)t * N + n) * DIC + j] = v;
                    }
                }
            }
        }
    }

    // Backward.
    gr.src.assign(x.src.size(), 0.0);
    gr.si.assign(x.si.size(), 0.0);
    gr.sic.assign(x.sic.size(), 0.0);
    gr.att.assign(x.att.size(), 0.0);
    gr.wl.assign(x.wl.size(), 0.0);
    gr.wi.assign(x.wi.size(), 0.0);
    gr.peep.assign(x.peep.size(), 0.0);
    gr.proj.assign(x.proj.size(), 0.0);
    gr.bias.assign(x.bias.size(), 0.0);
    // dys[ld]: the gradient of (l, d)'s output, [T][N][DIC]: the last
    // layer's from diff_dst_layer, the others' from the layer above.
    std::vector<std::vector<double>> dys((size_t)L * D);
    for (int d = 0; d < D; ++d) {
        std::vector<double> &dy = dys[(size_t)(L - 1) * D + d];
        dy.assign((size_t)T * N * DIC, 0.0);
        for (size_t tn = 0; tn < (size_t)T * N; ++tn)
            for (int j = 0; j < DIC; ++j)
                dy[tn * DIC + j] = ddst[tn * DLC + (p.dir == dnnl_bidirectional_concat ? d * DIC : 0) + j];
    }
    for (int l = L - 1; l >= 0; --l) {
        for (int d = 0; d < D; ++d) {
            const size_t ld = (size_t)l * D + d;
            const bool r2l = p.dir == dnnl_unidirectional_right2left || d == 1;
            const ld_t &s = st[ld];
            const std::vector<double> &X = s.in, &dout = dys[ld];
            std::vector<double> din((size_t)T * N * SLC, 0.0);
            // dhn: the gradient of the state after the step being undone (HS per row).
            std::vector<double> dhn((size_t)N * HS, 0.0), dcn((size_t)N * DHC, 0.0);
            for (int n = 0; n < N; ++n) {
                for (int j = 0; j < DIC; ++j) dhn[(size_t)n * HS + j] = ddi.empty() ? 0.0 : ddi[(ld * N + n) * DIC + j];
                for (int o = 0; o < DHC; ++o) dcn[(size_t)n * DHC + o] = ddic.empty() ? 0.0 : ddic[(ld * N + n) * DHC + o];
            }
            for (int k = T; k >= 1; --k) {
                const int t = r2l ? T - k : k - 1;
                const int hw = k == 1 ? SIC : DIC;
                std::vector<double> dhp((size_t)N * HS, 0.0);
                for (int n = 0; n < N; ++n) {
                    const double *hp = &s.h[((size_t)(k - 1) * N + n) * HS];
                    const double *cp = &s.c[((size_t)(k - 1) * N + n) * DHC];
                    const double *cc = &s.c[((size_t)k * N + n) * DHC];
                    const double *gt = &s.gates[((size_t)t * N + n) * G * DHC];
                    const double *xi = &X[((size_t)t * N + n) * SLC];
                    std::vector<double> dh(DIC), dhv(DHC, 0.0);
                    for (int j = 0; j < DIC; ++j) dh[j] = dhn[(size_t)n * HS + j] + dout[((size_t)t * N + n) * DIC + j];
                    if (p.proj()) {
                        for (int o = 0; o < DHC; ++o)
                            for (int j = 0; j < DIC; ++j) {
                                dhv[o] += dh[j] * pr_at(ld, o, j);
                                gr.proj[(ld * DHC + o) * DIC + j] += s.hv[((size_t)t * N + n) * DHC + o] * dh[j];
                            }
                    } else {
                        for (int o = 0; o < DHC; ++o) dhv[o] = dh[o];
                    }
                    // dz: gradient of each gate's pre-activation as the
                    // input side sees it; dzh: as weights_iter sees it
                    // (differs for the GRU candidate gates).
                    std::vector<double> dz((size_t)G * DHC, 0.0), dzh((size_t)G * DHC, 0.0);
                    const double a = att_at(t, n);
                    if (p.cell == c_rnn) {
                        for (int o = 0; o < DHC; ++o) {
                            const double y = gt[o];
                            const double der = p.act == dnnl_eltwise_relu ? (y > 0 ? 1.0 : p.alpha)
                                    : p.act == dnnl_eltwise_tanh           ? 1 - y * y
                                                                           : y * (1 - y);
                            dz[o] = dhv[o] * der;
                        }
                        dzh = dz;
                    } else if (lstm) {
                        for (int o = 0; o < DHC; ++o) {
                            const double gi = gt[o], gf = gt[DHC + o], gc = gt[2 * DHC + o], go = gt[3 * DHC + o];
                            const double tc = std::tanh(cc[o]);
                            const double dgo = dhv[o] * tc * go * (1 - go);
                            const double dc = dcn[(size_t)n * DHC + o] + dhv[o] * go * (1 - tc * tc)
                                    + dgo * p_at(ld, 2, o);
                            const double dgi = dc * gc * gi * (1 - gi);
                            const double dgf = dc * cp[o] * gf * (1 - gf);
                            dz[o] = dgi;
                            dz[DHC + o] = dgf;
                            dz[2 * DHC + o] = dc * gi * (1 - gc * gc);
                            dz[3 * DHC + o] = dgo;
                            dcn[(size_t)n * DHC + o] = dc * gf + dgi * p_at(ld, 0, o) + dgf * p_at(ld, 1, o);
                            if (p.peephole) {
                                gr.peep[(ld * 3 + 0) * DHC + o] += dgi * cp[o];
                                gr.peep[(ld * 3 + 1) * DHC + o] += dgf * cp[o];
                                gr.peep[(ld * 3 + 2) * DHC + o] += dgo * cc[o];
                            }
                        }
                        dzh = dz;
                    } else {
                        double da = 0;
                        for (int o = 0; o < DHC; ++o) {
                            const double u = gt[o], cand = gt[2 * DHC + o], ua = (1 - a) * u;
                            da += -dhv[o] * (hp[o] - cand) * u;
                            dz[o] = dhv[o] * (hp[o] - cand) * (1 - a) * u * (1 - u);
                            dz[2 * DHC + o] = dhv[o] * (1 - ua) * (1 - cand * cand);
                            dhp[(size_t)n * HS + o] += dhv[o] * ua;
                        }
                        gr.att[(size_t)t * N + n] += da;
                        for (int o = 0; o < DHC; ++o) {
                            const double r = gt[DHC + o];
                            if (lbr) {
                                const double ghc = s.ghc[((size_t)t * N + n) * DHC + o];
                                dz[DHC + o] = dz[2 * DHC + o] * ghc * r * (1 - r);
                                dzh[2 * DHC + o] = dz[2 * DHC + o] * r;
                            } else {
                                // d(r_o h_o) through every candidate output.
                                double drh = 0;
                                for (int q = 0; q < DHC; ++q) drh += dz[2 * DHC + q] * wi_at(ld, o, 2, q);
                                dz[DHC + o] = drh * hp[o] * r * (1 - r);
                                dhp[(size_t)n * HS + o] += drh * r;
                            }
                        }
                        for (int o = 0; o < 2 * DHC; ++o) dzh[o] = dz[o];
                        if (lbr)
                            for (int o = 0; o < DHC; ++o) gr.bias[(ld * GB + 3) * DHC + o] += dzh[2 * DHC + o];
                    }
                    // Weights, biases, the input and the previous state.
                    for (int g = 0; g < G; ++g)
                        for (int o = 0; o < DHC; ++o) {
                            const double z = dz[g * DHC + o];
                            if (p.bias) gr.bias[(ld * GB + g) * DHC + o] += z;
                            for (int c = 0; c < SLC; ++c) {
                                gr.wl[((ld * SLC + c) * G + g) * DHC + o] += xi[c] * z;
                                din[((size_t)t * N + n) * SLC + c] += wl_at(ld, c, g, o) * z;
                            }
                            const bool rh_input = gru && g == 2; // GRU candidate: input is r * h_prev
                            const double zh = rh_input ? z : dzh[g * DHC + o];
                            for (int c = 0; c < hw; ++c) {
                                const double in_c = rh_input ? gt[DHC + c] * hp[c] : hp[c];
                                gr.wi[((ld * SIC + c) * G + g) * DHC + o] += in_c * zh;
                                if (!rh_input) dhp[(size_t)n * HS + c] += wi_at(ld, c, g, o) * zh;
                            }
                        }
                }
                dhn = dhp;
            }
            for (int n = 0; n < N; ++n) {
                for (int j = 0; j < SIC; ++j) gr.si[(ld * N + n) * SIC + j] = dhn[(size_t)n * HS + j];
                for (int o = 0; o < DHC; ++o) gr.sic[(ld * N + n) * DHC + o] = dcn[(size_t)n * DHC + o];
            }
            // Layer 0's directions share src_layer; above, the input was
            // this direction's layer below.
            if (l > 0) dys[ld - D] = din;
            else
                for (size_t i = 0; i < din.size(); ++i) gr.src[i] += din[i];
        }
    }
    if (!p.bias) gr.bias.assign(gr.bias.size(), 0.0);
}

} // namespace rnn_ref

#endif
