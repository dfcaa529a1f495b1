// Recurrent backward (vanilla RNN with its three activations, LSTM with and
// without peepholes and projection, GRU, LBR-GRU, AUGRU, LBR-AUGRU) over
// the four directions and 1-2 layers on tiny odd shapes, with and without
// initial states / final-state gradients:
//  - against the naive BPTT reference of rnn_bptt_ref.hpp (double);
//  - against central finite differences of the library's forward;
//  - diff weights accumulate, or are overwritten with the flag;
//  - weights ldigo (format any: the forward's layout) and ldgoi, diff
//    weights ldigo and ldgoi;
//  - 1 and 2 threads, the three scratchpad modes, the C and C++ APIs;
//  - bad input: hint missing or of another problem, wrong prop kind,
//    mismatched diff descriptors, missing or wrong workspace at execution
//    (invalid_arguments and nothing written).
//
// Tolerance against the reference: the weights are scaled by 1/K (K = SLC
// + max(SIC, DIC)), |diff_dst| <= 1, so every state gradient stays O(T)
// and every value the backward forms is an f32 sum of at most S = T*N +
// K + G*DHC terms (weight gradients sum T*N products, state gradients
// G*DHC, the forward states they use K), each carrying a few ulps of the
// activations (derivatives come from the stored activated gates). Over T
// steps and L layers the error is below 8 * (S + 8) * T * L * 2^-24 of
// max(1, |value|).
//
// Finite differences: loss(x) = sum(diff_dst * dst) (+ the final states'
// terms) from the f32 forward; central differences with step h have a
// truncation error h^2/6 * |loss'''| <= n_out * h^2 (each output's third
// derivative is below 6: tanh''' and sigmoid''' are below 2, the scaled
// weights keep the chain factors <= 1) and a rounding error
// 2 * n_out * e_fwd / (2h), e_fwd the forward's per-output bound of
// test_rnn_fwd.cpp. ReLU has kinks where differences are meaningless, so
// the ReLU cells are checked against the reference only.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/kt_test.hpp"
#include "core/primitive.hpp"
#include "dnnl.hpp"
#include "rnn/rnn_bptt_ref.hpp"
#include "rnn/rnn_ref.hpp"
#include "rnn/rnn_run.hpp"

namespace {

using namespace rnn_ref;

kt::tally_t tally;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

// Canonical layouts; weights ldgoi when goi, and every md `any` when any.
void make_mds(const prob_t &p, mds_t &m, bool goi, bool any = false) {
    const int L = p.L, D = p.D(), G = p.G();
    auto tag = [&](dnnl_format_tag_t t) { return any ? dnnl_format_tag_any : t; };
    m.src.h = kt::make_md({p.T, p.N, p.SLC}, dnnl_f32, tag(dnnl_tnc));
    m.dst.h = kt::make_md({p.T, p.N, p.DLC()}, dnnl_f32, tag(dnnl_tnc));
    m.wl.h = kt::make_md({L, D, p.SLC, G, p.DHC}, dnnl_f32, tag(goi ? dnnl_ldgoi : dnnl_ldigo));
    m.wi.h = kt::make_md({L, D, p.sic(), G, p.DHC}, dnnl_f32, tag(goi ? dnnl_ldgoi : dnnl_ldigo));
    if (p.src_iter) m.si.h = kt::make_md({L, D, p.N, p.sic()}, dnnl_f32, tag(dnnl_ldnc));
    if (p.dst_iter) m.di.h = kt::make_md({L, D, p.N, p.dic()}, dnnl_f32, tag(dnnl_ldnc));
    if (p.cell == c_lstm && p.src_iter_c) m.sic.h = kt::make_md({L, D, p.N, p.DHC}, dnnl_f32, tag(dnnl_ldnc));
    if (p.cell == c_lstm && p.dst_iter_c) m.dic.h = kt::make_md({L, D, p.N, p.DHC}, dnnl_f32, tag(dnnl_ldnc));
    if (p.peephole) m.peep.h = kt::make_md({L, D, 3, p.DHC}, dnnl_f32, tag(dnnl_ldgo));
    if (p.proj()) m.proj.h = kt::make_md({L, D, p.DHC, p.dic()}, dnnl_f32, tag(goi ? dnnl_ldoi : dnnl_ldio));
    if (p.bias) m.bias.h = kt::make_md({L, D, p.GB(), p.DHC}, dnnl_f32, tag(dnnl_ldgo));
    if (p.augru()) m.att.h = kt::make_md({p.T, p.N, 1}, dnnl_f32, tag(dnnl_tnc));
}

dnnl_status_t create_fwd(dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m, dnnl_prop_kind_t pk) {
    return fwd_pd(eng, pd, p, m, pk, nullptr);
}

dnnl_status_t create_bwd(dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m, const mds_t &g,
        unsigned flags, const_dnnl_primitive_desc_t hint, const_dnnl_primitive_attr_t attr,
        dnnl_prop_kind_t pk = dnnl_backward) {
    return bwd_pd(eng, pd, p, m, g, flags, hint, attr, pk);
}

dnnl_status_t exec(const_dnnl_primitive_desc_t pd, const args_t &a) {
    return rnn_ref::exec(strm, pd, a);
}

// Data in the layouts the run uses (weights permuted when goi).
struct user_data_t {
    std::vector<float> src, si, sic, att, wl, wi, peep, proj, bias;
};
user_data_t layout(const prob_t &p, const data_t &x, bool goi) {
    const int LD = p.L * p.D();
    user_data_t u{x.src, x.si, x.sic, x.att, x.wl, x.wi, x.peep, x.proj, x.bias};
    if (goi) {
        u.wl = to_goi(x.wl, LD, p.SLC, p.G(), p.DHC);
        u.wi = to_goi(x.wi, LD, p.sic(), p.G(), p.DHC);
        u.proj = to_goi(x.proj, LD, p.DHC, 1, p.dic());
    }
    return u;
}

void add_data(args_t &a, const mds_t &m, user_data_t &u) {
    a.add(DNNL_ARG_SRC_LAYER, m.src, u.src.data());
    a.add(DNNL_ARG_SRC_ITER, m.si, u.si.data());
    a.add(DNNL_ARG_SRC_ITER_C, m.sic, u.sic.data());
    a.add(DNNL_ARG_AUGRU_ATTENTION, m.att, u.att.data());
    a.add(DNNL_ARG_WEIGHTS_LAYER, m.wl, u.wl.data());
    a.add(DNNL_ARG_WEIGHTS_ITER, m.wi, u.wi.data());
    a.add(DNNL_ARG_WEIGHTS_PEEPHOLE, m.peep, u.peep.data());
    a.add(DNNL_ARG_WEIGHTS_PROJECTION, m.proj, u.proj.data());
    a.add(DNNL_ARG_BIAS, m.bias, u.bias.data());
}

// Forward: dst_layer, dst_iter, dst_iter_c and (training) the workspace.
struct fwd_out_t {
    std::vector<float> dst, di, dic;
    std::vector<char> ws;
};

bool run_fwd(const prob_t &p, const data_t &x, dnnl_prop_kind_t pk, fwd_out_t &o, dnnl_primitive_desc_t *keep_pd) {
    mds_t m;
    make_mds(p, m, false);
    dnnl_primitive_desc_t pd = nullptr;
    if (create_fwd(&pd, p, m, pk) != dnnl_success) return false;
    user_data_t u = layout(p, x, false);
    args_t a(eng);
    add_data(a, m, u);
    const int LD = p.L * p.D();
    o.dst.assign((size_t)p.T * p.N * p.DLC(), NAN);
    o.di.assign((size_t)LD * p.N * p.dic(), NAN);
    o.dic.assign((size_t)LD * p.N * p.DHC, NAN);
    a.add(DNNL_ARG_DST_LAYER, m.dst, o.dst.data());
    a.add(DNNL_ARG_DST_ITER, m.di, o.di.data());
    a.add(DNNL_ARG_DST_ITER_C, m.dic, o.dic.data());
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    o.ws.assign(dnnl_memory_desc_get_size(wmd), 0);
    if (!o.ws.empty()) a.add(DNNL_ARG_WORKSPACE, wmd, o.ws.data());
    const dnnl_status_t st = exec(pd, a);
    if (keep_pd) *keep_pd = pd;
    else dnnl_primitive_desc_destroy(pd);
    return st == dnnl_success;
}

// The gradients the backward reads (diff_dst_*) and writes, canonical.
struct diffs_t {
    std::vector<float> ddst, ddi, ddic;
    std::vector<float> src, si, sic, att, wl, wi, peep, proj, bias;
};

struct cfg_t {
    bool wgoi = true; // weights ldgoi (else ldigo)
    bool dwgoi = false; // diff weights ldgoi (else ldigo)
    bool any = false; // create with format any and check what it resolves to
    bool overwrite = false; // dnnl_rnn_flags_diff_weights_overwrite
    int mode = 0; // 0 global arena, 1 private, 2 user scratchpad
};

constexpr float prefill = 0.25f; // what the diff weights hold before an accumulating run

bool run_bwd(const prob_t &p, const data_t &x, const cfg_t &cfg_in, diffs_t &g, const std::string &what) {
    using kestrel::scratchpad_policy_t;
    // `any` must resolve to weights and diff weights ldigo (projection
    // ldio): the forward's weights memory serves the backward too.
    cfg_t cfg = cfg_in;
    if (cfg.any) {
        cfg.wgoi = false;
        cfg.dwgoi = false;
    }
    kestrel::set_library_scratchpad_policy(
            cfg.mode == 1 ? scratchpad_policy_t::private_buffer : scratchpad_policy_t::global_arena);
    fwd_out_t f;
    dnnl_primitive_desc_t fpd = nullptr;
    if (!run_fwd(p, x, dnnl_forward_training, f, &fpd)) return false;
    mds_t m, dm, mc, dmc;
    make_mds(p, m, cfg.wgoi, cfg.any);
    make_mds(p, dm, cfg.dwgoi, cfg.any);
    make_mds(p, mc, cfg.wgoi);
    make_mds(p, dmc, cfg.dwgoi);
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(
            attr, cfg.mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
    dnnl_primitive_desc_t pd = nullptr;
    const unsigned flags = cfg.overwrite ? (unsigned)dnnl_rnn_flags_diff_weights_overwrite : 0u;
    dnnl_status_t st = create_bwd(&pd, p, cfg.any ? m : mc, cfg.any ? dm : dmc, flags, fpd, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: bwd pd status %d\n", what.c_str(), (int)st);
        dnnl_primitive_desc_destroy(fpd);
        return false;
    }
    // What `any` resolves to: weights and diff weights ldigo (projection
    // ldio), everything else as forward; the workspace is forward's.
    auto same = [&](dnnl_query_t q, int idx, const_dnnl_memory_desc_t want) {
        return dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, q, idx), want) != 0;
    };
    auto arg_same = [&](int arg, const_dnnl_memory_desc_t want) {
        return dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg), want) != 0;
    };
    bool mds_ok = same(dnnl_query_weights_md, 0, mc.wl) && same(dnnl_query_weights_md, 1, mc.wi)
            && same(dnnl_query_diff_weights_md, 0, dmc.wl) && same(dnnl_query_diff_weights_md, 1, dmc.wi)
            && arg_same(DNNL_ARG_DIFF_SRC_LAYER, dmc.src) && arg_same(DNNL_ARG_DIFF_DST_LAYER, dmc.dst)
            && same(dnnl_query_workspace_md, 0, dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0));
    if (p.proj()) mds_ok = mds_ok && arg_same(DNNL_ARG_DIFF_WEIGHTS_PROJECTION, dmc.proj);
    if (p.src_iter) mds_ok = mds_ok && arg_same(DNNL_ARG_DIFF_SRC_ITER, dmc.si);
    if (p.augru()) mds_ok = mds_ok && arg_same(DNNL_ARG_DIFF_AUGRU_ATTENTION, dmc.att);
    if (p.bias) mds_ok = mds_ok && arg_same(DNNL_ARG_DIFF_BIAS, dmc.bias);
    tally.check(mds_ok, (what + ": descriptors (any resolves to the forward's layouts; workspace is forward's)").c_str());
    dnnl_primitive_desc_destroy(fpd);

    user_data_t u = layout(p, x, cfg.wgoi);
    args_t a(eng);
    add_data(a, mc, u);
    a.add(DNNL_ARG_DST_LAYER, mc.dst, f.dst.data());
    a.add(DNNL_ARG_DST_ITER, mc.di, f.di.data());
    a.add(DNNL_ARG_DST_ITER_C, mc.dic, f.dic.data());
    a.add(DNNL_ARG_WORKSPACE, dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0), f.ws.data());
    a.add(DNNL_ARG_DIFF_DST_LAYER, dmc.dst, g.ddst.data());
    a.add(DNNL_ARG_DIFF_DST_ITER, dmc.di, g.ddi.data());
    a.add(DNNL_ARG_DIFF_DST_ITER_C, dmc.dic, g.ddic.data());
    const int LD = p.L * p.D();
    const float wfill = cfg.overwrite ? NAN : prefill;
    std::vector<float> dsrc(x.src.size(), NAN), dsi(x.si.size(), NAN), dsic(x.sic.size(), NAN),
            datt(x.att.size(), NAN), dwl(x.wl.size(), wfill), dwi(x.wi.size(), wfill), dpeep(x.peep.size(), wfill),
            dproj(x.proj.size(), wfill), dbias(x.bias.size(), wfill);
    a.add(DNNL_ARG_DIFF_SRC_LAYER, dmc.src, dsrc.data());
    a.add(DNNL_ARG_DIFF_SRC_ITER, dmc.si, dsi.data());
    a.add(DNNL_ARG_DIFF_SRC_ITER_C, dmc.sic, dsic.data());
    a.add(DNNL_ARG_DIFF_AUGRU_ATTENTION, dmc.att, datt.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_LAYER, dmc.wl, dwl.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_ITER, dmc.wi, dwi.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, dmc.peep, dpeep.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_PROJECTION, dmc.proj, dproj.data());
    a.add(DNNL_ARG_DIFF_BIAS, dmc.bias, dbias.data());
    if (cfg.mode == 2) {
        const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        dnnl_dim_t cons = -1;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &cons));
        tally.check(cons == 0, (what + ": user scratchpad not in memory_consumption").c_str());
        if (dnnl_memory_desc_get_size(smd)) a.add(DNNL_ARG_SCRATCHPAD, smd, DNNL_MEMORY_ALLOCATE);
    }
    st = exec(pd, a);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: bwd execute status %d\n", what.c_str(), (int)st);
        return false;
    }
    // Back to the canonical layouts, the prefill taken out.
    auto from_goi = [&](const std::vector<float> &v, int I, int G, int O) {
        std::vector<float> r(v.size());
        for (int ld = 0; ld < LD; ++ld)
            for (int i = 0; i < I; ++i)
                for (int gg = 0; gg < G; ++gg)
                    for (int o = 0; o < O; ++o)
                        r[(((size_t)ld * I + i) * G + gg) * O + o] = v[(((size_t)ld * G + gg) * O + o) * I + i];
        return r;
    };
    if (cfg.dwgoi) {
        dwl = from_goi(dwl, p.SLC, p.G(), p.DHC);
        dwi = from_goi(dwi, p.sic(), p.G(), p.DHC);
        dproj = from_goi(dproj, p.DHC, 1, p.dic());
    }
    const float base = cfg.overwrite ? 0.f : prefill;
    for (auto *v : {&dwl, &dwi, &dpeep, &dproj, &dbias})
        for (float &e : *v) e -= base;
    g.src = dsrc;
    g.si = dsi;
    g.sic = dsic;
    g.att = datt;
    g.wl = dwl;
    g.wi = dwi;
    g.peep = dpeep;
    g.proj = dproj;
    g.bias = dbias;
    return true;
}

void make_diffs(const prob_t &p, diffs_t &g, uint64_t seed) {
    const int LD = p.L * p.D();
    g.ddst.resize((size_t)p.T * p.N * p.DLC());
    kt::fill(g.ddst, seed + 11);
    g.ddi.assign((size_t)LD * p.N * p.dic(), 0.f);
    g.ddic.assign((size_t)LD * p.N * p.DHC, 0.f);
    if (p.dst_iter) kt::fill(g.ddi, seed + 12);
    if (p.cell == c_lstm && p.dst_iter_c) kt::fill(g.ddic, seed + 13);
}

double tol_ref(const prob_t &p) {
    const double S = p.T * p.N + p.SLC + p.hs() + p.G() * p.DHC;
    return 8.0 * (S + 8) * p.T * p.L * std::ldexp(1.0, -24);
}

double rel_err(const std::vector<float> &a, const std::vector<double> &b) {
    double w = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(a[i] - b[i]) / std::fmax(1.0, std::fabs(b[i]));
        if (!(d <= w)) w = std::isnan(d) ? INFINITY : d;
    }
    return w;
}

void compare(const prob_t &p, const diffs_t &g, const grads_t &r, const std::string &what) {
    const double tol = tol_ref(p);
    struct item_t {
        const char *name;
        const std::vector<float> *got;
        const std::vector<double> *want;
        bool on;
    };
    const item_t items[] = {{"diff_src_layer", &g.src, &r.src, true}, {"diff_src_iter", &g.si, &r.si, p.src_iter},
            {"diff_src_iter_c", &g.sic, &r.sic, p.cell == c_lstm && p.src_iter_c},
            {"diff_attention", &g.att, &r.att, p.augru()}, {"diff_weights_layer", &g.wl, &r.wl, true},
            {"diff_weights_iter", &g.wi, &r.wi, true}, {"diff_weights_peephole", &g.peep, &r.peep, p.peephole},
            {"diff_weights_projection", &g.proj, &r.proj, p.proj()}, {"diff_bias", &g.bias, &r.bias, p.bias}};
    for (const item_t &it : items) {
        if (!it.on) continue;
        const double e = rel_err(*it.got, *it.want);
        if (!(e <= tol)) std::fprintf(stderr, "%s: %s err %g tol %g\n", what.c_str(), it.name, e, tol);
        tally.check(e <= tol, (what + ": " + it.name + " vs BPTT reference").c_str());
    }
}

// loss = sum(ddst * dst) + sum(ddi * di) + sum(ddic * dic) through the
// library's forward (inference).
double loss(const prob_t &p, const data_t &x, const diffs_t &g) {
    fwd_out_t f;
    KT_EXPECT(run_fwd(p, x, dnnl_forward_inference, f, nullptr));
    double s = 0;
    for (size_t i = 0; i < f.dst.size(); ++i) s += (double)g.ddst[i] * f.dst[i];
    if (p.dst_iter)
        for (size_t i = 0; i < f.di.size(); ++i) s += (double)g.ddi[i] * f.di[i];
    if (p.cell == c_lstm && p.dst_iter_c)
        for (size_t i = 0; i < f.dic.size(); ++i) s += (double)g.ddic[i] * f.dic[i];
    return s;
}

// Central differences of the forward on a few entries of every input.
void fd_check(const prob_t &p, const data_t &x0, const diffs_t &g, const std::string &what) {
    const double h = 1e-2;
    const double n_out = (double)g.ddst.size() + (p.dst_iter ? g.ddi.size() : 0)
            + (p.cell == c_lstm && p.dst_iter_c ? g.ddic.size() : 0);
    const double tol = n_out * tolerance(p) / h + n_out * h * h;
    data_t x = x0;
    struct item_t {
        const char *name;
        std::vector<float> data_t::*field;
        const std::vector<float> *grad;
        bool on;
    };
    const item_t items[] = {{"src_layer", &data_t::src, &g.src, true}, {"src_iter", &data_t::si, &g.si, p.src_iter},
            {"src_iter_c", &data_t::sic, &g.sic, p.cell == c_lstm && p.src_iter_c},
            {"attention", &data_t::att, &g.att, p.augru()}, {"weights_layer", &data_t::wl, &g.wl, true},
            {"weights_iter", &data_t::wi, &g.wi, true}, {"peephole", &data_t::peep, &g.peep, p.peephole},
            {"projection", &data_t::proj, &g.proj, p.proj()}, {"bias", &data_t::bias, &g.bias, p.bias}};
    kt::rng_t rng(7);
    for (const item_t &it : items) {
        if (!it.on) continue;
        std::vector<float> &v = x.*(it.field);
        double worst = 0;
        for (int k = 0; k < 3; ++k) {
            const size_t i = rng.next() % v.size();
            const float keep = v[i];
            v[i] = keep + (float)h;
            const double fp = loss(p, x, g);
            const float xp = v[i];
            v[i] = keep - (float)h;
            const double fm = loss(p, x, g);
            const float xm = v[i];
            v[i] = keep;
            const double fd = (fp - fm) / ((double)xp - (double)xm);
            worst = std::fmax(worst, std::fabs(fd - (*it.grad)[i]));
        }
        if (!(worst <= tol)) std::fprintf(stderr, "%s: fd %s err %g tol %g\n", what.c_str(), it.name, worst, tol);
        tally.check(worst <= tol, (what + ": " + it.name + " vs finite differences").c_str());
    }
}

void check_prob(const prob_t &p, uint64_t seed, int nthr, const cfg_t &cfg, bool fd) {
    data_t x;
    make_data(p, x, seed);
    diffs_t g;
    make_diffs(p, g, seed);
    grads_t r;
    bptt(p, x, g.ddst, p.dst_iter ? g.ddi : std::vector<float>(),
            p.cell == c_lstm && p.dst_iter_c ? g.ddic : std::vector<float>(), r);
    char tag[96];
    std::snprintf(tag, sizeof tag, " thr%d mode%d%s%s", nthr, cfg.mode,
            cfg.any ? " any" : cfg.wgoi ? (cfg.dwgoi ? " w:goi dw:goi" : " w:goi dw:igo")
                                        : (cfg.dwgoi ? " w:igo dw:goi" : " w:igo dw:igo"),
            cfg.overwrite ? " overwrite" : "");
    const std::string what = p.name() + tag;
    bool ok = false;
    kt::with_threads(nthr, [&] { ok = run_bwd(p, x, cfg, g, what); });
    tally.check(ok, (what + ": runs").c_str());
    if (!ok) return;
    compare(p, g, r, what);
    if (fd && !(p.cell == c_rnn && p.act == dnnl_eltwise_relu)) fd_check(p, x, g, what);
}

void sweep() {
    const cell_t cells[] = {c_rnn, c_lstm, c_gru, c_lbr_gru, c_augru, c_lbr_augru};
    const dnnl_rnn_direction_t dirs[] = {dnnl_unidirectional_left2right, dnnl_unidirectional_right2left,
            dnnl_bidirectional_concat, dnnl_bidirectional_sum};
    uint64_t seed = 1;
    for (cell_t cell : cells)
        for (auto dir : dirs)
            for (int L : {1, 2}) {
                prob_t p;
                p.cell = cell;
                p.dir = dir;
                p.L = L;
                p.T = 2 + (int)(seed % 2);
                p.N = 2;
                p.DHC = 3 + (int)(seed % 3);
                p.SLC = L > 1 ? p.dic() : 5;
                p.src_iter = seed % 3 != 0;
                p.src_iter_c = seed % 4 != 0;
                p.dst_iter = seed % 4 != 1;
                p.dst_iter_c = seed % 5 != 2;
                p.bias = seed % 6 != 3;
                if (cell == c_rnn) {
                    const dnnl_alg_kind_t acts[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_logistic};
                    p.act = acts[seed % 3];
                    p.alpha = p.act == dnnl_eltwise_relu ? 0.25f : 0.f;
                }
                cfg_t cfg;
                cfg.wgoi = seed % 2 == 0;
                cfg.dwgoi = seed % 3 == 1;
                cfg.any = seed % 5 == 0;
                cfg.overwrite = seed % 4 == 3;
                cfg.mode = (int)(seed % 3);
                check_prob(p, seed, 1 + (int)(seed % 2), cfg, L == 1 || seed % 3 == 0);
                ++seed;
            }
    // LSTM peepholes and projection, alone and together, every layout.
    for (int variant = 0; variant < 6; ++variant) {
        prob_t p;
        p.cell = c_lstm;
        p.peephole = variant % 3 != 1;
        p.DIC = variant % 3 != 0 ? 3 : 0;
        p.dir = variant % 2 ? dnnl_bidirectional_concat : dnnl_unidirectional_right2left;
        p.L = 1 + variant % 2;
        p.T = 3;
        p.N = 2;
        p.DHC = 5;
        p.SLC = p.L > 1 ? p.dic() : 4;
        cfg_t cfg;
        cfg.wgoi = variant < 3;
        cfg.dwgoi = variant >= 3;
        cfg.any = variant == 0;
        cfg.overwrite = variant == 4;
        cfg.mode = variant % 3;
        check_prob(p, 100 + variant, 1 + variant % 2, cfg, true);
    }
    // One step from an initial state of another width (SIC != DIC):
    // vanilla RNN and LSTM (projection, peepholes), 1-2 layers.
    for (int variant = 0; variant < 6; ++variant) {
        prob_t p;
        p.cell = variant < 2 ? c_rnn : c_lstm;
        p.act = dnnl_eltwise_tanh;
        p.dir = dirs[variant % 4];
        p.L = 1 + variant % 2;
        p.T = 1;
        p.N = 2;
        p.DHC = 4;
        p.DIC = variant >= 4 ? 3 : 0;
        p.peephole = variant == 3;
        p.SIC = variant % 2 ? 7 : 2;
        p.SLC = p.L > 1 ? p.dic() : 5;
        cfg_t cfg;
        cfg.wgoi = variant % 2 == 0;
        cfg.dwgoi = variant % 3 == 1;
        cfg.any = variant == 5;
        cfg.mode = variant % 3;
        check_prob(p, 400 + variant, 1 + variant % 2, cfg, true);
    }
    // 1 and 2 threads and every scratchpad mode on one problem per cell.
    for (cell_t cell : cells)
        for (int nthr : {1, 2})
            for (int mode = 0; mode < 3; ++mode) {
                prob_t p;
                p.cell = cell;
                p.dir = dnnl_bidirectional_concat;
                p.L = 2;
                p.T = 3;
                p.N = 2;
                p.DHC = 3;
                p.SLC = p.dic();
                p.act = dnnl_eltwise_logistic;
                cfg_t cfg;
                cfg.mode = mode;
                check_prob(p, 200 + (uint64_t)cell, nthr, cfg, false);
            }
}

// Per-step GEMMs big enough that the engine packs the recurrent weights
// once per layer and direction (a 600 x 600 gate block exceeds half of any
// L2 up to 2 MB; a batch of 10 is past the few-row path): every cell,
// and an LSTM with a projection, 1 and 2 threads.
void packed_weights() {
    const cell_t cells[] = {c_rnn, c_lstm, c_gru, c_lbr_gru, c_augru, c_lbr_augru};
    uint64_t seed = 300;
    for (int i = 0; i < 7; ++i) {
        prob_t p;
        p.cell = i < 6 ? cells[i] : c_lstm;
        p.dir = seed % 2 ? dnnl_unidirectional_right2left : dnnl_unidirectional_left2right;
        p.L = 1;
        p.T = 2;
        p.N = 10;
        p.SLC = 8;
        p.DHC = 600;
        if (i == 6) p.DIC = 500;
        p.src_iter = p.src_iter_c = p.dst_iter = p.dst_iter_c = p.bias = true;
        if (p.cell == c_rnn) p.act = dnnl_eltwise_tanh;
        cfg_t cfg;
        cfg.wgoi = seed % 2 == 0;
        cfg.mode = (int)(seed % 3);
        check_prob(p, seed, 1 + (int)(seed % 2), cfg, false);
        ++seed;
    }
}

// Bad input: each call must fail with the given status.
void bad_input() {
    prob_t p;
    p.cell = c_lstm;
    p.L = 1;
    p.T = 2;
    p.N = 2;
    p.SLC = 3;
    p.DHC = 4;
    mds_t m, dm;
    make_mds(p, m, true);
    make_mds(p, dm, false);
    data_t x;
    make_data(p, x, 5);
    dnnl_primitive_desc_t train = nullptr, infer = nullptr, bwd = nullptr;
    {
        mds_t fm;
        make_mds(p, fm, false);
        KT_OK(create_fwd(&train, p, fm, dnnl_forward_training));
        KT_OK(create_fwd(&infer, p, fm, dnnl_forward_inference));
    }
    tally.check(create_bwd(&bwd, p, m, dm, 0, nullptr, nullptr) == dnnl_invalid_arguments, "bwd without hint");
    tally.check(create_bwd(&bwd, p, m, dm, 0, infer, nullptr) == dnnl_invalid_arguments, "bwd with inference hint");
    tally.check(create_bwd(&bwd, p, m, dm, 0, train, nullptr, dnnl_forward_training) == dnnl_invalid_arguments,
            "bwd with forward prop kind");
    tally.check(create_bwd(&bwd, p, m, dm, 0x10, train, nullptr) == dnnl_invalid_arguments, "bwd with bad flags");
    {
        // Hint of another shape and of another cell.
        prob_t q = p;
        q.T = 3;
        mds_t qm;
        make_mds(q, qm, false);
        dnnl_primitive_desc_t other = nullptr;
        KT_OK(create_fwd(&other, q, qm, dnnl_forward_training));
        tally.check(create_bwd(&bwd, p, m, dm, 0, other, nullptr) == dnnl_invalid_arguments, "hint of another shape");
        dnnl_primitive_desc_destroy(other);
        prob_t gq = p;
        gq.cell = c_gru;
        mds_t gm, gdm;
        make_mds(gq, gm, true);
        make_mds(gq, gdm, false);
        tally.check(create_bwd(&bwd, gq, gm, gdm, 0, train, nullptr) == dnnl_invalid_arguments,
                "hint of another cell");
    }
    {
        // diff_src_iter missing while src_iter is there; diff dims wrong.
        mds_t d2;
        make_mds(p, d2, false);
        dnnl_memory_desc_destroy(d2.si.h);
        d2.si.h = nullptr;
        tally.check(create_bwd(&bwd, p, m, d2, 0, train, nullptr) == dnnl_invalid_arguments,
                "diff_src_iter missing");
        mds_t d3;
        make_mds(p, d3, false);
        dnnl_memory_desc_destroy(d3.src.h);
        d3.src.h = kt::make_md({p.T, p.N, p.SLC + 1}, dnnl_f32, dnnl_tnc);
        tally.check(create_bwd(&bwd, p, m, d3, 0, train, nullptr) == dnnl_invalid_arguments,
                "diff_src_layer of other dims");
    }

    // Execution: missing workspace, workspace of the wrong descriptor.
    KT_OK(create_bwd(&bwd, p, m, dm, 0, train, nullptr));
    fwd_out_t f;
    KT_EXPECT(run_fwd(p, x, dnnl_forward_training, f, nullptr));
    user_data_t u = layout(p, x, true);
    diffs_t g;
    make_diffs(p, g, 5);
    std::vector<float> dsrc(x.src.size(), 7.f), dsi(x.si.size(), 7.f), dsic(x.sic.size(), 7.f),
            dwl(x.wl.size(), 7.f), dwi(x.wi.size(), 7.f), db(x.bias.size(), 7.f);
    for (int variant = 0; variant < 2; ++variant) {
        args_t a(eng);
        add_data(a, m, u);
        a.add(DNNL_ARG_DST_LAYER, m.dst, f.dst.data());
        a.add(DNNL_ARG_DST_ITER, m.di, f.di.data());
        a.add(DNNL_ARG_DST_ITER_C, m.dic, f.dic.data());
        a.add(DNNL_ARG_DIFF_DST_LAYER, dm.dst, g.ddst.data());
        a.add(DNNL_ARG_DIFF_DST_ITER, dm.di, g.ddi.data());
        a.add(DNNL_ARG_DIFF_DST_ITER_C, dm.dic, g.ddic.data());
        a.add(DNNL_ARG_DIFF_SRC_LAYER, dm.src, dsrc.data());
        a.add(DNNL_ARG_DIFF_SRC_ITER, dm.si, dsi.data());
        a.add(DNNL_ARG_DIFF_SRC_ITER_C, dm.sic, dsic.data());
        a.add(DNNL_ARG_DIFF_WEIGHTS_LAYER, dm.wl, dwl.data());
        a.add(DNNL_ARG_DIFF_WEIGHTS_ITER, dm.wi, dwi.data());
        a.add(DNNL_ARG_DIFF_BIAS, dm.bias, db.data());
        kt::md_t small;
        if (variant == 1) {
            const dnnl_dim_t n = (dnnl_dim_t)f.ws.size() - 64;
            KT_OK(dnnl_memory_desc_create_with_tag(&small.h, 1, &n, dnnl_u8, dnnl_a));
            a.add(DNNL_ARG_WORKSPACE, small.h, f.ws.data());
        }
        const dnnl_status_t st = exec(bwd, a);
        bool untouched = true;
        for (auto *v : {&dsrc, &dsi, &dsic, &dwl, &dwi, &db})
            for (float e : *v) untouched = untouched && e == 7.f;
        tally.check(st == dnnl_invalid_arguments && untouched,
                variant == 0 ? "missing workspace: invalid_arguments, nothing written"
                             : "wrong workspace md: invalid_arguments, nothing written");
    }
    // The argument table oneDNN documents.
    int n_in = -1, n_out = -1;
    KT_OK(dnnl_primitive_desc_query(bwd, dnnl_query_num_of_inputs_s32, 0, &n_in));
    KT_OK(dnnl_primitive_desc_query(bwd, dnnl_query_num_of_outputs_s32, 0, &n_out));
    // 6 + src_iter + src_iter_c + 2 * (dst_iter + dst_iter_c) + bias; 3 + 2 + bias.
    tally.check(n_in == 6 + 2 + 4 + 1 && n_out == 3 + 2 + 1, "num of inputs and outputs");
    dnnl_prop_kind_t pk = dnnl_prop_kind_undef;
    KT_OK(dnnl_primitive_desc_query(bwd, dnnl_query_prop_kind, 0, &pk));
    tally.check(pk == dnnl_backward, "prop kind query");
    dnnl_primitive_desc_destroy(bwd);
    dnnl_primitive_desc_destroy(train);
    dnnl_primitive_desc_destroy(infer);
}

// The C++ API: a GRU training step with format any through dnnl.hpp,
// checked against the reference.
void cpp_api() {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    prob_t p;
    p.cell = c_gru;
    p.dir = dnnl_unidirectional_right2left;
    p.L = 1;
    p.T = 3;
    p.N = 2;
    p.SLC = 5;
    p.DHC = 4;
    data_t x;
    make_data(p, x, 31);
    diffs_t g;
    make_diffs(p, g, 31);
    grads_t r;
    bptt(p, x, g.ddst, g.ddi, std::vector<float>(), r);
    engine e(engine::kind::cpu, 0);
    stream s(e);
    const memory::dim T = p.T, N = p.N, SLC = p.SLC, DHC = p.DHC;
    memory::desc src({T, N, SLC}, dt::f32, tag::tnc), dst({T, N, DHC}, dt::f32, tag::tnc);
    memory::desc st({1, 1, N, DHC}, dt::f32, tag::ldnc), b({1, 1, 3, DHC}, dt::f32, tag::ldgo);
    memory::desc wl({1, 1, SLC, 3, DHC}, dt::f32, tag::ldigo), wi({1, 1, DHC, 3, DHC}, dt::f32, tag::ldigo);
    memory::desc wl_any({1, 1, SLC, 3, DHC}, dt::f32, tag::any), wi_any({1, 1, DHC, 3, DHC}, dt::f32, tag::any);
    gru_forward::primitive_desc fpd(
            e, prop_kind::forward_training, rnn_direction::unidirectional_right2left, src, st, wl, wi, b, dst, st);
    gru_backward::primitive_desc bpd(e, prop_kind::backward, rnn_direction::unidirectional_right2left, src, st,
            wl_any, wi_any, b, dst, st, src, st, wl_any, wi_any, b, dst, st, fpd);
    memory m_src(src, e, x.src.data()), m_si(st, e, x.si.data()), m_wl(wl, e, x.wl.data()),
            m_wi(wi, e, x.wi.data()), m_b(b, e, x.bias.data());
    memory m_dst(dst, e), m_di(st, e), m_ws(fpd.workspace_desc(), e);
    gru_forward(fpd).execute(s, {{DNNL_ARG_SRC_LAYER, m_src}, {DNNL_ARG_SRC_ITER, m_si},
            {DNNL_ARG_WEIGHTS_LAYER, m_wl}, {DNNL_ARG_WEIGHTS_ITER, m_wi}, {DNNL_ARG_BIAS, m_b},
            {DNNL_ARG_DST_LAYER, m_dst}, {DNNL_ARG_DST_ITER, m_di}, {DNNL_ARG_WORKSPACE, m_ws}});
    // `any` weights resolve to the forward's ldigo, so the forward's
    // weights memory serves backward as is (oneDNN's vanilla_rnn example
    // relies on that).
    memory m_ddst(dst, e, g.ddst.data()), m_ddi(st, e, g.ddi.data());
    memory m_dsrc(src, e), m_dsi(st, e), m_db(b, e);
    memory m_dwl(bpd.diff_weights_layer_desc(), e), m_dwi(bpd.diff_weights_iter_desc(), e);
    // The weight gradients accumulate: start them at zero.
    for (memory *m : {&m_dwl, &m_dwi, &m_db})
        std::memset(m->get_data_handle(), 0, m->get_desc().get_size());
    const bool layouts = bpd.weights_layer_desc() == wl && bpd.weights_iter_desc() == wi
            && bpd.diff_weights_layer_desc() == wl && bpd.workspace_desc() == fpd.workspace_desc();
    tally.check(layouts, "C++: backward layouts and workspace");
    gru_backward(bpd).execute(s, {{DNNL_ARG_SRC_LAYER, m_src}, {DNNL_ARG_SRC_ITER, m_si},
            {DNNL_ARG_WEIGHTS_LAYER, m_wl}, {DNNL_ARG_WEIGHTS_ITER, m_wi}, {DNNL_ARG_BIAS, m_b},
            {DNNL_ARG_DST_LAYER, m_dst}, {DNNL_ARG_DST_ITER, m_di}, {DNNL_ARG_WORKSPACE, m_ws},
            {DNNL_ARG_DIFF_DST_LAYER, m_ddst}, {DNNL_ARG_DIFF_DST_ITER, m_ddi}, {DNNL_ARG_DIFF_SRC_LAYER, m_dsrc},
            {DNNL_ARG_DIFF_SRC_ITER, m_dsi}, {DNNL_ARG_DIFF_WEIGHTS_LAYER, m_dwl},
            {DNNL_ARG_DIFF_WEIGHTS_ITER, m_dwi}, {DNNL_ARG_DIFF_BIAS, m_db}});
    s.wait();
    auto vec = [](memory &m, size_t n) {
        const float *q = static_cast<const float *>(m.get_data_handle());
        return std::vector<float>(q, q + n);
    };
    const double tol = tol_ref(p);
    tally.check(rel_err(vec(m_dsrc, x.src.size()), r.src) <= tol, "C++: diff_src_layer vs reference");
    tally.check(rel_err(vec(m_dsi, x.si.size()), r.si) <= tol, "C++: diff_src_iter vs reference");
    tally.check(rel_err(vec(m_dwl, x.wl.size()), r.wl) <= tol, "C++: diff_weights_layer vs reference");
    tally.check(rel_err(vec(m_dwi, x.wi.size()), r.wi) <= tol, "C++: diff_weights_iter vs reference");
    tally.check(rel_err(vec(m_db, x.bias.size()), r.bias) <= tol, "C++: diff_bias vs reference");
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    sweep();
    packed_weights();
    bad_input();
    cpp_api();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
