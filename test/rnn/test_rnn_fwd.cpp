// Recurrent forward (vanilla RNN, LSTM with and without peepholes and
// projection, GRU, LBR-GRU, AUGRU, LBR-AUGRU) against a naive reference
// written here, over directions, layer counts and sizes (1 step, batch 1,
// odd hidden sizes), with and without initial and final states, in
// training and inference (dst must be identical), plain and transposed
// layouts, 1 and 2 threads and the three scratchpad modes. Also the
// queries, the workspace check at execution and bad descriptors.
//
// Tolerance: the weights are scaled by 1 / K (K = SLC + DIC, the longest
// sum of one gate) so every gate's pre-activation is a sum of K products
// of magnitude <= 1/K and a bias, and every activation is 1-Lipschitz with
// |state| bounded by ~2: one step then adds at most ~(K + 8) f32 roundings
// of values <= 2 (the GEMM's sum, the bias, the activation's few ulps, the
// state update), and the scaled weights keep the recurrence from
// amplifying earlier errors. Over T steps and L layers the absolute error
// stays below 2 * (K + 8) * T * L * 2^-24 * 2, which the check uses.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/kt_test.hpp"
#include "core/primitive.hpp"
#include "rnn/rnn_ref.hpp"
#include "rnn/rnn_run.hpp"

namespace {

using namespace rnn_ref;

kt::tally_t tally;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

void make_mds(const prob_t &p, mds_t &m, bool any_format = false) {
    const int L = p.L, D = p.D(), G = p.G();
    auto tag = [&](dnnl_format_tag_t t) { return any_format ? dnnl_format_tag_any : t; };
    m.src.h = kt::make_md({p.T, p.N, p.SLC}, dnnl_f32, p.ntc ? dnnl_ntc : tag(dnnl_tnc));
    m.dst.h = kt::make_md({p.T, p.N, p.DLC()}, dnnl_f32, p.ntc ? dnnl_ntc : tag(dnnl_tnc));
    m.wl.h = kt::make_md({L, D, p.SLC, G, p.DHC}, dnnl_f32, p.goi ? dnnl_ldgoi : tag(dnnl_ldigo));
    m.wi.h = kt::make_md({L, D, p.sic(), G, p.DHC}, dnnl_f32, p.goi ? dnnl_ldgoi : tag(dnnl_ldigo));
    if (p.src_iter) m.si.h = kt::make_md({L, D, p.N, p.sic()}, dnnl_f32, tag(dnnl_ldnc));
    if (p.dst_iter) m.di.h = kt::make_md({L, D, p.N, p.dic()}, dnnl_f32, tag(dnnl_ldnc));
    if (p.cell == c_lstm && p.src_iter_c) m.sic.h = kt::make_md({L, D, p.N, p.DHC}, dnnl_f32, tag(dnnl_ldnc));
    if (p.cell == c_lstm && p.dst_iter_c) m.dic.h = kt::make_md({L, D, p.N, p.DHC}, dnnl_f32, tag(dnnl_ldnc));
    if (p.peephole) m.peep.h = kt::make_md({L, D, 3, p.DHC}, dnnl_f32, tag(dnnl_ldgo));
    if (p.proj()) m.proj.h = kt::make_md({L, D, p.DHC, p.dic()}, dnnl_f32, p.goi ? dnnl_ldoi : tag(dnnl_ldio));
    if (p.bias) m.bias.h = kt::make_md({L, D, p.GB(), p.DHC}, dnnl_f32, tag(dnnl_ldgo));
    if (p.augru()) m.att.h = kt::make_md({p.T, p.N, 1}, dnnl_f32, tag(dnnl_tnc));
}

dnnl_status_t create_pd(dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m, dnnl_prop_kind_t pk,
        const_dnnl_primitive_attr_t attr) {
    return fwd_pd(eng, pd, p, m, pk, attr);
}

// Runs one problem and returns dst_layer, dst_iter, dst_iter_c in the
// canonical layouts. mode: 0 global arena, 1 private, 2 user scratchpad.
bool run(const prob_t &p, const data_t &x, dnnl_prop_kind_t pk, int mode, std::vector<float> &dst,
        std::vector<float> &di, std::vector<float> &dic, const std::string &what) {
    using kestrel::scratchpad_policy_t;
    kestrel::set_library_scratchpad_policy(
            mode == 1 ? scratchpad_policy_t::private_buffer : scratchpad_policy_t::global_arena);
    mds_t m;
    make_mds(p, m);
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = create_pd(&pd, p, m, pk, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: pd status %d\n", what.c_str(), (int)st);
        return false;
    }
    std::vector<float> src = p.ntc ? to_ntc(x.src, p.T, p.N, p.SLC) : x.src;
    const int LD = p.L * p.D();
    std::vector<float> wl = p.goi ? to_goi(x.wl, LD, p.SLC, p.G(), p.DHC) : x.wl;
    std::vector<float> wi = p.goi ? to_goi(x.wi, LD, p.sic(), p.G(), p.DHC) : x.wi;
    std::vector<float> proj = p.goi ? to_goi(x.proj, LD, p.DHC, 1, p.dic()) : x.proj;
    std::vector<float> peep = x.peep, bias = x.bias, si = x.si, sic = x.sic, att = x.att;
    dst.assign((size_t)p.T * p.N * p.DLC(), NAN);
    di.assign((size_t)LD * p.N * p.dic(), NAN);
    dic.assign((size_t)LD * p.N * p.DHC, NAN);

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
    add(DNNL_ARG_SRC_ITER, m.si, si.data());
    add(DNNL_ARG_SRC_ITER_C, m.sic, sic.data());
    add(DNNL_ARG_AUGRU_ATTENTION, m.att, att.data());
    add(DNNL_ARG_WEIGHTS_LAYER, m.wl, wl.data());
    add(DNNL_ARG_WEIGHTS_ITER, m.wi, wi.data());
    add(DNNL_ARG_WEIGHTS_PEEPHOLE, m.peep, peep.data());
    add(DNNL_ARG_WEIGHTS_PROJECTION, m.proj, proj.data());
    add(DNNL_ARG_BIAS, m.bias, bias.data());
    std::vector<float> dst_user(dst.size(), NAN);
    add(DNNL_ARG_DST_LAYER, m.dst, dst_user.data());
    add(DNNL_ARG_DST_ITER, m.di, di.data());
    add(DNNL_ARG_DST_ITER_C, m.dic, dic.data());
    std::vector<char> ws;
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    const size_t ws_size = dnnl_memory_desc_get_size(wmd);
    if (pk == dnnl_forward_training) {
        bool ok = ws_size > 0;
        ws.resize(ws_size);
        if (ok) {
            KT_OK(dnnl_memory_create(&mems[k].h, wmd, eng, ws.data()));
            args.push_back({DNNL_ARG_WORKSPACE, mems[k].h});
            ++k;
        }
        tally.check(ok, (what + ": training has a workspace").c_str());
    } else {
        tally.check(ws_size == 0, (what + ": inference has no workspace").c_str());
    }
    std::vector<char> scratch;
    if (mode == 2) {
        const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        dnnl_dim_t cons = -1;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &cons));
        tally.check(cons == 0, (what + ": user scratchpad not in memory_consumption").c_str());
        const size_t ss = dnnl_memory_desc_get_size(smd);
        if (ss) {
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
    if (p.ntc) {
        for (int t = 0; t < p.T; ++t)
            for (int n = 0; n < p.N; ++n)
                for (int c = 0; c < p.DLC(); ++c)
                    dst[((size_t)t * p.N + n) * p.DLC() + c] = dst_user[((size_t)n * p.T + t) * p.DLC() + c];
    } else {
        dst = dst_user;
    }
    return true;
}

void check_prob(const prob_t &p, uint64_t seed, int nthr, int mode) {
    data_t x;
    make_data(p, x, seed);
    std::vector<double> rdst, rdi, rdic;
    reference(p, x, rdst, rdi, rdic);
    const double tol = tolerance(p);
    const std::string base = p.name() + " thr" + std::to_string(nthr) + " mode" + std::to_string(mode);
    std::vector<float> dst_inf, dst_tr, di, dic, di2, dic2;
    bool ok1 = false, ok2 = false;
    kt::with_threads(nthr, [&] {
        ok1 = run(p, x, dnnl_forward_inference, mode, dst_inf, di, dic, base + " inference");
        ok2 = run(p, x, dnnl_forward_training, mode, dst_tr, di2, dic2, base + " training");
    });
    tally.check(ok1 && ok2, (base + ": runs").c_str());
    if (!ok1 || !ok2) return;
    const double e = max_abs_diff(dst_inf, rdst);
    if (e > tol) std::fprintf(stderr, "%s: dst err %g tol %g\n", base.c_str(), e, tol);
    tally.check(e <= tol, (base + ": dst_layer vs reference").c_str());
    tally.check(dst_inf == dst_tr && (!p.dst_iter || di == di2), (base + ": training equals inference").c_str());
    if (p.dst_iter) {
        const double ei = max_abs_diff(di, rdi);
        tally.check(ei <= tol, (base + ": dst_iter vs reference").c_str());
    }
    if (p.cell == c_lstm && p.dst_iter_c) {
        std::vector<double> r(rdic);
        const double ec = max_abs_diff(dic, r);
        // The cell state sums T candidate values of magnitude <= 1.
        tally.check(ec <= tol * 2, (base + ": dst_iter_c vs reference").c_str());
    }
}

void sweep() {
    const cell_t cells[] = {c_rnn, c_lstm, c_gru, c_lbr_gru, c_augru, c_lbr_augru};
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right, dnnl_unidirectional_right2left,
            dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    struct size_t_ {
        int T, N, SLC, DHC;
    };
    const size_t_ sizes[] = {{1, 1, 1, 1}, {3, 2, 5, 7}, {4, 3, 2, 17}};
    uint64_t seed = 1;
    for (cell_t cell : cells)
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
                    p.SLC = L > 1 ? p.dic() : s.SLC;
                    // Vary the optional parts with the seed so each shows up with every cell.
                    p.src_iter = seed % 3 != 0;
                    p.src_iter_c = seed % 5 != 0;
                    p.dst_iter = seed % 4 != 1;
                    p.dst_iter_c = seed % 7 != 2;
                    p.bias = seed % 6 != 3;
                    p.ntc = seed % 5 == 2;
                    p.goi = seed % 3 == 1;
                    if (cell == c_rnn) {
                        const dnnl_alg_kind_t acts[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_logistic};
                        p.act = acts[seed % 3];
                        p.alpha = p.act == dnnl_eltwise_relu ? 0.25f : 0.f;
                    }
                    const int nthr = 1 + (int)(seed % 2);
                    const int mode = (int)(seed % 3);
                    check_prob(p, seed, nthr, mode);
                    ++seed;
                }
    // LSTM peepholes and projection, alone and together, both layouts.
    for (int variant = 0; variant < 6; ++variant) {
        prob_t p;
        p.cell = c_lstm;
        p.peephole = variant % 3 != 1;
        p.DIC = variant % 3 != 0 ? 3 : 0;
        p.goi = variant >= 3;
        p.dir = variant % 2 ? dnnl_bidirectional_concat : dnnl_unidirectional_right2left;
        p.L = 2;
        p.T = 3;
        p.N = 2;
        p.DHC = 5;
        p.SLC = p.dic();
        check_prob(p, 100 + variant, 1 + variant % 2, variant % 3);
    }
    // One step from an initial state of another width (SIC != DIC; oneDNN's
    // decoder example): vanilla RNN and LSTM (with projection, peepholes),
    // wider and narrower, 1-2 layers, every direction.
    for (int variant = 0; variant < 8; ++variant) {
        prob_t p;
        p.cell = variant < 4 ? c_rnn : c_lstm;
        p.act = dnnl_eltwise_tanh;
        p.dir = dirs[variant % 4];
        p.L = 1 + variant % 2;
        p.T = 1;
        p.N = 2;
        p.DHC = 5;
        p.DIC = variant == 6 ? 3 : 0;
        p.peephole = variant == 7;
        p.SIC = variant % 3 == 0 ? 2 : 9;
        p.SLC = p.L > 1 ? p.dic() : 4;
        p.goi = variant % 2 == 1;
        p.ntc = variant == 5;
        check_prob(p, 300 + variant, 1 + variant % 2, variant % 3);
    }
}

// Step GEMMs big enough that the engine packs the recurrent weights (and
// the projection) rather than reading them in place: 600 x 600 floats of
// one gate block exceed half of any L2 up to 2 MB, so the packed-once copy
// made per layer and direction serves every step. A batch of 10 is past the
// engine's few-row path. Every cell, 1 and 2 threads.
void packed_weights() {
    const cell_t cells[] = {c_rnn, c_lstm, c_gru, c_lbr_gru, c_augru, c_lbr_augru};
    uint64_t seed = 300;
    for (cell_t cell : cells) {
        prob_t p;
        p.cell = cell;
        p.dir = seed % 2 ? dnnl_unidirectional_right2left : dnnl_unidirectional_left2right;
        p.L = 1;
        p.T = 2;
        p.N = 10;
        p.SLC = 8;
        p.DHC = 600;
        p.src_iter = true;
        p.dst_iter = true;
        p.bias = true;
        p.goi = seed % 3 == 0;
        if (cell == c_rnn) p.act = dnnl_eltwise_tanh;
        check_prob(p, seed, 1 + (int)(seed % 2), 0);
        ++seed;
    }
    prob_t p; // LSTM with a projection big enough to be packed too
    p.cell = c_lstm;
    p.dir = dnnl_unidirectional_left2right;
    p.L = 1;
    p.T = 2;
    p.N = 10;
    p.SLC = 8;
    p.DHC = 600;
    p.DIC = 500;
    p.src_iter = p.src_iter_c = p.dst_iter = p.dst_iter_c = p.bias = true;
    check_prob(p, seed, 2, 1);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    sweep();
    packed_weights();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
