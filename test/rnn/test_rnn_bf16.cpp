// bf16 recurrent primitives: every cell x 4 directions x 1-2 layers,
// src_iter / dst_iter in bf16 or f32, LSTM cell states in f32 or bf16,
// bias f32 or bf16, forward inference and training and backward (all
// gradients f32, as oneDNN v3.9 takes them), 1 and 2 threads, the three
// scratchpad modes, the C and the C++ API; the type combinations oneDNN
// refuses give dnnl_unimplemented; a missing or wrong workspace gives
// dnnl_invalid_arguments and writes nothing.
//
// References: the data are rounded to bf16 here (the test's own rounding,
// nearest even) and fed to the double references of rnn_ref.hpp /
// rnn_bptt_ref.hpp, which round nothing.
//
// Forward tolerance. The library computes in f32 on the same bf16 values
// (products of two 8-bit significands are exact in f32, so the f32 error
// is the tolerance(p) of the f32 test, ~1e-5) and rounds to bf16 at these
// points: every hidden state as it is made and the initial one (T + 1 per
// layer and direction), the LSTM cell states likewise when they are bf16,
// each layer's output feeding the next layer, and the final store. One
// rounding moves a value by at most half an ulp, 2^-9 |v|. With the
// weights scaled to 1 / (SLC + DIC) (make_data) a perturbation of a state
// moves a gate's pre-activation by at most its own size, the activations
// are 1-Lipschitz and the state updates are convex combinations (GRU) or
// products with factors in (0, 1) (LSTM), so it reaches an output at most
// doubled. Hence |lib - ref| <= n_r * 2 * 2^-9 * S + tolerance(p), with n_r
// the rounding points on the way and S = max(1, max |ref|).
//
// Backward. The backward reads the forward's f32 workspace (states already
// rounded) and the bf16 inputs widened exactly to f32, and runs the f32
// engine: so its gradients must equal, bit for bit, those of the f32
// backward primitive given the same workspace and the same (widened)
// values. The f32 backward itself is checked against BPTT and central
// finite differences in test_rnn_bwd. Against the BPTT reference here the
// gradients differ through the rounded forward states: each factor of a
// gradient term (gate, its derivative, the state) moves by the forward
// bound relative to its size, so a gradient moves by at most 3 times the
// forward bound times the sum of its terms' magnitudes, which the check
// computes from the reference run (sum_abs below).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
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

// The test's own bf16 conversion: round to nearest even on the bits.
uint16_t to_bf(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return (uint16_t)(u >> 16);
}
float from_bf(uint16_t b) {
    const uint32_t u = (uint32_t)b << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
float rbf(float f) { return from_bf(to_bf(f)); }
void round_all(std::vector<float> &v) {
    for (float &f : v) f = rbf(f);
}

// Element types of one run. f32 everywhere gives the f32 twin of a bf16
// problem (same values), used for the bit-exact backward comparison.
struct types_t {
    bool bf16 = true; // src/dst layer, weights, attention
    bool si = true, di = true; // src_iter / dst_iter bf16 (else f32)
    bool c = false; // LSTM cell states bf16 (else f32)
    bool bias = false; // bias bf16 (else f32)
    dnnl_data_type_t layer() const { return bf16 ? dnnl_bf16 : dnnl_f32; }
    dnnl_data_type_t of(bool b) const { return bf16 && b ? dnnl_bf16 : dnnl_f32; }
    std::string name() const {
        if (!bf16) return "f32";
        return std::string("bf16 si:") + (si ? "bf16" : "f32") + " di:" + (di ? "bf16" : "f32")
                + " c:" + (c ? "bf16" : "f32") + " bias:" + (bias ? "bf16" : "f32");
    }
};

void make_mds(const prob_t &p, const types_t &ty, mds_t &m, bool goi, bool diff = false) {
    const int L = p.L, D = p.D(), G = p.G();
    const auto f = dnnl_f32;
    auto dt = [&](dnnl_data_type_t t) { return diff ? f : t; };
    m.src.h = kt::make_md({p.T, p.N, p.SLC}, dt(ty.layer()), p.ntc ? dnnl_ntc : dnnl_tnc);
    m.dst.h = kt::make_md({p.T, p.N, p.DLC()}, dt(ty.layer()), p.ntc ? dnnl_ntc : dnnl_tnc);
    m.wl.h = kt::make_md({L, D, p.SLC, G, p.DHC}, dt(ty.layer()), goi ? dnnl_ldgoi : dnnl_ldigo);
    m.wi.h = kt::make_md({L, D, p.sic(), G, p.DHC}, dt(ty.layer()), goi ? dnnl_ldgoi : dnnl_ldigo);
    if (p.src_iter) m.si.h = kt::make_md({L, D, p.N, p.sic()}, dt(ty.of(ty.si)), dnnl_ldnc);
    if (p.dst_iter) m.di.h = kt::make_md({L, D, p.N, p.dic()}, dt(ty.of(ty.di)), dnnl_ldnc);
    if (p.cell == c_lstm && p.src_iter_c) m.sic.h = kt::make_md({L, D, p.N, p.DHC}, dt(ty.of(ty.c)), dnnl_ldnc);
    if (p.cell == c_lstm && p.dst_iter_c) m.dic.h = kt::make_md({L, D, p.N, p.DHC}, dt(ty.of(ty.c)), dnnl_ldnc);
    if (p.peephole) m.peep.h = kt::make_md({L, D, 3, p.DHC}, f, dnnl_ldgo);
    if (p.bias) m.bias.h = kt::make_md({L, D, p.GB(), p.DHC}, dt(ty.of(ty.bias)), dnnl_ldgo);
    if (p.augru()) m.att.h = kt::make_md({p.T, p.N, 1}, dt(ty.layer()), dnnl_tnc);
}

dnnl_status_t create_fwd(dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m, dnnl_prop_kind_t pk,
        const_dnnl_primitive_attr_t attr) {
    return fwd_pd(eng, pd, p, m, pk, attr);
}

dnnl_status_t create_bwd(dnnl_primitive_desc_t *pd, const prob_t &p, const mds_t &m, const mds_t &g,
        const_dnnl_primitive_desc_t hint, const_dnnl_primitive_attr_t attr) {
    return bwd_pd(eng, pd, p, m, g, 0, hint, attr);
}

// Bytes of one tensor as the library sees it (f32 or bf16).
struct bytes_t {
    std::vector<char> b;
    void set(const std::vector<float> &v, dnnl_data_type_t dt) {
        if (dt == dnnl_f32) {
            b.resize(v.size() * 4);
            std::memcpy(b.data(), v.data(), b.size());
        } else {
            b.resize(v.size() * 2);
            for (size_t i = 0; i < v.size(); ++i) {
                const uint16_t h = to_bf(v[i]);
                std::memcpy(b.data() + 2 * i, &h, 2);
            }
        }
    }
    void fill_nan(size_t n, dnnl_data_type_t dt) { set(std::vector<float>(n, NAN), dt); }
    std::vector<float> get(dnnl_data_type_t dt) const {
        std::vector<float> v(b.size() / (dt == dnnl_f32 ? 4 : 2));
        for (size_t i = 0; i < v.size(); ++i) {
            if (dt == dnnl_f32) {
                std::memcpy(&v[i], b.data() + 4 * i, 4);
            } else {
                uint16_t h;
                std::memcpy(&h, b.data() + 2 * i, 2);
                v[i] = from_bf(h);
            }
        }
        return v;
    }
};

dnnl_status_t exec(const_dnnl_primitive_desc_t pd, const args_t &a) {
    return rnn_ref::exec(strm, pd, a);
}

// Inputs of one run, in the element types and layouts the run uses.
struct inputs_t {
    bytes_t src, si, sic, att, wl, wi, peep, bias;
};

void make_inputs(const prob_t &p, const types_t &ty, const data_t &x, bool goi, inputs_t &in) {
    const int LD = p.L * p.D();
    in.src.set(p.ntc ? to_ntc(x.src, p.T, p.N, p.SLC) : x.src, ty.layer());
    in.wl.set(goi ? to_goi(x.wl, LD, p.SLC, p.G(), p.DHC) : x.wl, ty.layer());
    in.wi.set(goi ? to_goi(x.wi, LD, p.sic(), p.G(), p.DHC) : x.wi, ty.layer());
    in.si.set(x.si, ty.of(ty.si));
    in.sic.set(x.sic, ty.of(ty.c));
    in.att.set(x.att, ty.layer());
    in.peep.set(x.peep, dnnl_f32);
    in.bias.set(x.bias, ty.of(ty.bias));
}

void add_inputs(args_t &a, const mds_t &m, inputs_t &in) {
    a.add(DNNL_ARG_SRC_LAYER, m.src, in.src.b.data());
    a.add(DNNL_ARG_SRC_ITER, m.si, in.si.b.data());
    a.add(DNNL_ARG_SRC_ITER_C, m.sic, in.sic.b.data());
    a.add(DNNL_ARG_AUGRU_ATTENTION, m.att, in.att.b.data());
    a.add(DNNL_ARG_WEIGHTS_LAYER, m.wl, in.wl.b.data());
    a.add(DNNL_ARG_WEIGHTS_ITER, m.wi, in.wi.b.data());
    a.add(DNNL_ARG_WEIGHTS_PEEPHOLE, m.peep, in.peep.b.data());
    a.add(DNNL_ARG_BIAS, m.bias, in.bias.b.data());
}

void set_mode(int mode, dnnl_primitive_attr_t *attr) {
    using kestrel::scratchpad_policy_t;
    kestrel::set_library_scratchpad_policy(
            mode == 1 ? scratchpad_policy_t::private_buffer : scratchpad_policy_t::global_arena);
    KT_OK(dnnl_primitive_attr_create(attr));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(
            *attr, mode == 2 ? dnnl_scratchpad_mode_user : dnnl_scratchpad_mode_library));
}

// User mode: the scratchpad goes in as an argument, outside
// memory_consumption.
void add_scratchpad(args_t &a, const_dnnl_primitive_desc_t pd, int mode, const std::string &what) {
    if (mode != 2) return;
    const_dnnl_memory_desc_t smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    dnnl_dim_t cons = -1;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &cons));
    tally.check(cons == 0, (what + ": user scratchpad not in memory_consumption").c_str());
    if (dnnl_memory_desc_get_size(smd)) a.add(DNNL_ARG_SCRATCHPAD, smd, DNNL_MEMORY_ALLOCATE);
}

struct fwd_out_t {
    std::vector<float> dst, di, dic; // canonical layouts, as f32
    bytes_t dstb, dib, dicb; // as the library wrote them
    std::vector<char> ws;
};

bool run_fwd(const prob_t &p, const types_t &ty, const data_t &x, dnnl_prop_kind_t pk, int mode, bool goi,
        fwd_out_t &o, const std::string &what) {
    mds_t m;
    make_mds(p, ty, m, goi);
    dnnl_primitive_attr_t attr = nullptr;
    set_mode(mode, &attr);
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = create_fwd(&pd, p, m, pk, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: pd status %d\n", what.c_str(), (int)st);
        return false;
    }
    if (ty.bf16) tally.check(kt::impl_name(pd) == "gemm:bf16", (what + ": implementation gemm:bf16").c_str());
    inputs_t in;
    make_inputs(p, ty, x, goi, in);
    args_t a(eng);
    add_inputs(a, m, in);
    const int LD = p.L * p.D();
    o.dstb.fill_nan((size_t)p.T * p.N * p.DLC(), ty.layer());
    o.dib.fill_nan((size_t)LD * p.N * p.dic(), ty.of(ty.di));
    o.dicb.fill_nan((size_t)LD * p.N * p.DHC, ty.of(ty.c));
    a.add(DNNL_ARG_DST_LAYER, m.dst, o.dstb.b.data());
    a.add(DNNL_ARG_DST_ITER, m.di, o.dib.b.data());
    a.add(DNNL_ARG_DST_ITER_C, m.dic, o.dicb.b.data());
    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    o.ws.assign(dnnl_memory_desc_get_size(wmd), 0);
    tally.check((pk == dnnl_forward_training) == !o.ws.empty(), (what + ": workspace in training only").c_str());
    if (!o.ws.empty()) a.add(DNNL_ARG_WORKSPACE, wmd, o.ws.data());
    add_scratchpad(a, pd, mode, what);
    st = exec(pd, a);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: execute status %d\n", what.c_str(), (int)st);
        return false;
    }
    o.dst = o.dstb.get(ty.layer());
    if (p.ntc) {
        std::vector<float> r(o.dst.size());
        for (int t = 0; t < p.T; ++t)
            for (int n = 0; n < p.N; ++n)
                for (int c = 0; c < p.DLC(); ++c)
                    r[((size_t)t * p.N + n) * p.DLC() + c] = o.dst[((size_t)n * p.T + t) * p.DLC() + c];
        o.dst = r;
    }
    o.di = o.dib.get(ty.of(ty.di));
    o.dic = o.dicb.get(ty.of(ty.c));
    return true;
}

struct diffs_t {
    std::vector<float> ddst, ddi, ddic; // read by backward
    std::vector<float> src, si, sic, att, wl, wi, peep, bias; // written, canonical
};

// Backward of types `ty` fed the forward outputs and workspace `f` (from
// whatever forward made them); diff weights ldigo, weights ldgoi when goi.
bool run_bwd(const prob_t &p, const types_t &ty, const data_t &x, const fwd_out_t &f, int mode, bool goi,
        diffs_t &g, const std::string &what) {
    mds_t m, dm, mh;
    make_mds(p, ty, m, goi);
    make_mds(p, ty, dm, false, true);
    make_mds(p, ty, mh, false);
    dnnl_primitive_desc_t hint = nullptr;
    if (create_fwd(&hint, p, mh, dnnl_forward_training, nullptr) != dnnl_success) return false;
    dnnl_primitive_attr_t attr = nullptr;
    set_mode(mode, &attr);
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = create_bwd(&pd, p, m, dm, hint, attr);
    dnnl_primitive_attr_destroy(attr);
    dnnl_primitive_desc_destroy(hint);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: bwd pd status %d\n", what.c_str(), (int)st);
        return false;
    }
    inputs_t in;
    make_inputs(p, ty, x, goi, in);
    args_t a(eng);
    add_inputs(a, m, in);
    // dst_* in the run's types (values from the forward, whatever its types).
    bytes_t dst, di, dic;
    dst.set(p.ntc ? to_ntc(f.dst, p.T, p.N, p.DLC()) : f.dst, ty.layer());
    di.set(f.di, ty.of(ty.di));
    dic.set(f.dic, ty.of(ty.c));
    a.add(DNNL_ARG_DST_LAYER, m.dst, dst.b.data());
    a.add(DNNL_ARG_DST_ITER, m.di, di.b.data());
    a.add(DNNL_ARG_DST_ITER_C, m.dic, dic.b.data());
    std::vector<char> ws = f.ws;
    a.add(DNNL_ARG_WORKSPACE, dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0), ws.data());
    std::vector<float> ddst = p.ntc ? to_ntc(g.ddst, p.T, p.N, p.DLC()) : g.ddst, ddi = g.ddi, ddic = g.ddic;
    a.add(DNNL_ARG_DIFF_DST_LAYER, dm.dst, ddst.data());
    a.add(DNNL_ARG_DIFF_DST_ITER, dm.di, ddi.data());
    a.add(DNNL_ARG_DIFF_DST_ITER_C, dm.dic, ddic.data());
    g.src.assign(x.src.size(), NAN);
    g.si.assign(x.si.size(), NAN);
    g.sic.assign(x.sic.size(), NAN);
    g.att.assign(x.att.size(), NAN);
    // Diff weights accumulate: start them at zero.
    g.wl.assign(x.wl.size(), 0.f);
    g.wi.assign(x.wi.size(), 0.f);
    g.peep.assign(x.peep.size(), 0.f);
    g.bias.assign(x.bias.size(), 0.f);
    a.add(DNNL_ARG_DIFF_SRC_LAYER, dm.src, g.src.data());
    a.add(DNNL_ARG_DIFF_SRC_ITER, dm.si, g.si.data());
    a.add(DNNL_ARG_DIFF_SRC_ITER_C, dm.sic, g.sic.data());
    a.add(DNNL_ARG_DIFF_AUGRU_ATTENTION, dm.att, g.att.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_LAYER, dm.wl, g.wl.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_ITER, dm.wi, g.wi.data());
    a.add(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE, dm.peep, g.peep.data());
    a.add(DNNL_ARG_DIFF_BIAS, dm.bias, g.bias.data());
    add_scratchpad(a, pd, mode, what);
    st = exec(pd, a);
    if (ty.bf16 && st == dnnl_success) {
        // Without the workspace, or with one of another size: refused, and
        // nothing written.
        std::vector<float> keep = g.src;
        std::fill(g.src.begin(), g.src.end(), -7.f);
        a.drop(DNNL_ARG_WORKSPACE);
        const dnnl_status_t no_ws = exec(pd, a);
        kt::md_t small(kt::make_md({(dnnl_dim_t)ws.size() / 2}, dnnl_u8, dnnl_a));
        a.add(DNNL_ARG_WORKSPACE, small, ws.data());
        const dnnl_status_t bad_ws = exec(pd, a);
        bool untouched = true;
        for (float v : g.src) untouched = untouched && v == -7.f;
        tally.check(no_ws == dnnl_invalid_arguments && bad_ws == dnnl_invalid_arguments && untouched,
                (what + ": missing / wrong workspace refused, nothing written").c_str());
        g.src = keep;
    }
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        std::fprintf(stderr, "%s: bwd execute status %d\n", what.c_str(), (int)st);
        return false;
    }
    if (p.ntc) {
        std::vector<float> r(g.src.size());
        for (int t = 0; t < p.T; ++t)
            for (int n = 0; n < p.N; ++n)
                for (int c = 0; c < p.SLC; ++c)
                    r[((size_t)t * p.N + n) * p.SLC + c] = g.src[((size_t)n * p.T + t) * p.SLC + c];
        g.src = r;
    }
    return true;
}

// Rounds the data a bf16 run of types `ty` reads as bf16 (the reference then
// sees exactly the library's inputs).
void round_inputs(const types_t &ty, data_t &x) {
    round_all(x.src);
    round_all(x.wl);
    round_all(x.wi);
    round_all(x.att);
    if (ty.si) round_all(x.si);
    if (ty.c) round_all(x.sic);
    if (ty.bias) round_all(x.bias);
}

// How many terms one gradient element sums at most (a weight gradient sums
// over every step and batch row).
double bwd_terms(const prob_t &p) {
    return (double)p.T * p.N;
}

// Rounding points on the way to an output (see the top of the file).
int n_round(const prob_t &p, const types_t &ty) {
    const int per_ld = (p.T + 1) * (p.cell == c_lstm && ty.c ? 2 : 1);
    return p.L * per_ld + p.L + 1;
}

double scale(const std::vector<double> &v) {
    double s = 1.0;
    for (double d : v) s = std::fmax(s, std::fabs(d));
    return s;
}

double fwd_bound(const prob_t &p, const types_t &ty, const std::vector<double> &ref) {
    return n_round(p, ty) * 2.0 * std::ldexp(1.0, -9) * scale(ref) + tolerance(p);
}

void check_prob(const prob_t &p, const types_t &ty, uint64_t seed, int nthr, int mode, bool goi, bool bwd) {
    data_t x;
    make_data(p, x, seed);
    round_inputs(ty, x);
    std::vector<double> rdst, rdi, rdic;
    reference(p, x, rdst, rdi, rdic);
    const std::string what = p.name() + " " + ty.name() + " thr" + std::to_string(nthr) + " mode"
            + std::to_string(mode) + (goi ? " goi" : "");
    fwd_out_t inf, tr;
    bool ok = false;
    kt::with_threads(nthr, [&] {
        ok = run_fwd(p, ty, x, dnnl_forward_inference, mode, goi, inf, what + " inference")
                && run_fwd(p, ty, x, dnnl_forward_training, mode, goi, tr, what + " training");
    });
    tally.check(ok, (what + ": forward runs").c_str());
    if (!ok) return;
    const double tol = fwd_bound(p, ty, rdst);
    const double e = max_abs_diff(inf.dst, rdst);
    if (!(e <= tol)) std::fprintf(stderr, "%s: dst err %g tol %g\n", what.c_str(), e, tol);
    tally.check(e <= tol, (what + ": dst_layer vs reference").c_str());
    tally.check(inf.dstb.b == tr.dstb.b && inf.dib.b == tr.dib.b && inf.dicb.b == tr.dicb.b,
            (what + ": training equals inference").c_str());
    if (p.dst_iter) {
        const double ti = fwd_bound(p, ty, rdi), ei = max_abs_diff(inf.di, rdi);
        if (!(ei <= ti)) std::fprintf(stderr, "%s: dst_iter err %g tol %g\n", what.c_str(), ei, ti);
        tally.check(ei <= ti, (what + ": dst_iter vs reference").c_str());
    }
    if (p.cell == c_lstm && p.dst_iter_c) {
        const double tc = fwd_bound(p, ty, rdic), ec = max_abs_diff(inf.dic, rdic);
        if (!(ec <= tc)) std::fprintf(stderr, "%s: dst_iter_c err %g tol %g\n", what.c_str(), ec, tc);
        tally.check(ec <= tc, (what + ": dst_iter_c vs reference").c_str());
    }
    if (!bwd) return;

    diffs_t g, g32;
    const int LD = p.L * p.D();
    g.ddst.resize((size_t)p.T * p.N * p.DLC());
    kt::fill(g.ddst, seed + 11);
    g.ddi.assign((size_t)LD * p.N * p.dic(), 0.f);
    g.ddic.assign((size_t)LD * p.N * p.DHC, 0.f);
    if (p.dst_iter) kt::fill(g.ddi, seed + 12);
    if (p.cell == c_lstm && p.dst_iter_c) kt::fill(g.ddic, seed + 13);
    g32.ddst = g.ddst;
    g32.ddi = g.ddi;
    g32.ddic = g.ddic;
    types_t f32;
    f32.bf16 = false;
    kt::with_threads(nthr, [&] {
        ok = run_bwd(p, ty, x, tr, mode, goi, g, what + " backward")
                && run_bwd(p, f32, x, tr, mode, goi, g32, what + " f32 twin backward");
    });
    tally.check(ok, (what + ": backward runs").c_str());
    if (!ok) return;
    // Bitwise (the unused gradients stay NaN in both).
    auto same = [](const std::vector<float> &a, const std::vector<float> &b) {
        return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    tally.check(same(g.src, g32.src) && same(g.si, g32.si) && same(g.sic, g32.sic) && same(g.att, g32.att)
                    && same(g.wl, g32.wl) && same(g.wi, g32.wi) && same(g.peep, g32.peep) && same(g.bias, g32.bias),
            (what + ": backward equals the f32 backward on the same values and workspace").c_str());
    grads_t r;
    bptt(p, x, g.ddst, p.dst_iter ? g.ddi : std::vector<float>(),
            p.cell == c_lstm && p.dst_iter_c ? g.ddic : std::vector<float>(), r);
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
            {"diff_bias", &g.bias, &r.bias, p.bias}};
    for (const item_t &it : items) {
        if (!it.on) continue;
        const double tb = 3.0 * fwd_bound(p, ty, rdst) * bwd_terms(p) * scale(*it.want);
        const double eb = max_abs_diff(*it.got, *it.want);
        if (!(eb <= tb)) std::fprintf(stderr, "%s: %s err %g tol %g\n", what.c_str(), it.name, eb, tb);
        tally.check(eb <= tb, (what + ": " + it.name + " vs BPTT reference").c_str());
    }
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
                p.T = seed % 4 == 0 ? 1 : 3;
                p.N = 1 + (int)(seed % 2);
                p.DHC = seed % 3 == 0 ? 4 : 5;
                p.SLC = L > 1 ? p.dic() : 3;
                // One step may start from a state of another width (not GRU).
                if (p.T == 1 && (cell == c_rnn || cell == c_lstm)) p.SIC = 2 + (int)(seed % 2) * 5;
                p.src_iter = seed % 5 != 0;
                p.dst_iter = seed % 4 != 1;
                p.src_iter_c = p.dst_iter_c = seed % 7 != 2;
                p.bias = seed % 6 != 3;
                p.peephole = cell == c_lstm && seed % 2 == 0;
                p.ntc = seed % 5 == 2;
                if (cell == c_rnn) {
                    const dnnl_alg_kind_t acts[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_logistic};
                    p.act = acts[seed % 3];
                    p.alpha = p.act == dnnl_eltwise_relu ? 0.25f : 0.f;
                }
                types_t ty;
                ty.si = seed % 2 == 0;
                ty.di = seed % 3 != 0;
                // Cell states in bf16 need both (an absent one counts as f32).
                ty.c = p.src_iter_c && seed % 3 == 1;
                ty.bias = seed % 4 >= 2;
                check_prob(p, ty, seed, 1 + (int)(seed % 2), (int)(seed % 3), seed % 3 == 2, true);
                ++seed;
            }
}

// Scratchpad: a bf16 problem books exactly the f32 one plus the widened
// weights (each region 64-byte aligned, so up to two paddings).
void scratchpad_size() {
    prob_t p;
    p.cell = c_lstm;
    p.dir = dnnl_bidirectional_concat;
    p.L = 2;
    p.T = 3;
    p.N = 2;
    p.DHC = 5;
    p.SLC = p.dic();
    for (dnnl_prop_kind_t pk : {dnnl_forward_inference, dnnl_forward_training, dnnl_backward}) {
        size_t sz[2] = {0, 0};
        for (int b = 0; b < 2; ++b) {
            types_t ty;
            ty.bf16 = b == 1;
            mds_t m, dm;
            make_mds(p, ty, m, false);
            make_mds(p, ty, dm, false, true);
            dnnl_primitive_attr_t attr = nullptr;
            set_mode(2, &attr);
            dnnl_primitive_desc_t pd = nullptr, hint = nullptr;
            if (pk == dnnl_backward) {
                KT_OK(create_fwd(&hint, p, m, dnnl_forward_training, nullptr));
                KT_OK(create_bwd(&pd, p, m, dm, hint, attr));
            } else {
                KT_OK(create_fwd(&pd, p, m, pk, attr));
            }
            sz[b] = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0));
            dnnl_primitive_desc_destroy(pd);
            dnnl_primitive_desc_destroy(hint);
            dnnl_primitive_attr_destroy(attr);
            // Private mode: memory_consumption holds the scratchpad.
            kestrel::set_library_scratchpad_policy(kestrel::scratchpad_policy_t::private_buffer);
            KT_OK(dnnl_primitive_attr_create(&attr));
            if (pk == dnnl_backward) {
                KT_OK(create_fwd(&hint, p, m, dnnl_forward_training, nullptr));
                KT_OK(create_bwd(&pd, p, m, dm, hint, attr));
            } else {
                KT_OK(create_fwd(&pd, p, m, pk, attr));
            }
            dnnl_dim_t cons = -1;
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_memory_consumption_s64, 0, &cons));
            tally.check(cons >= (dnnl_dim_t)sz[b], "private scratchpad counted in memory_consumption");
            dnnl_primitive_desc_destroy(pd);
            dnnl_primitive_desc_destroy(hint);
            dnnl_primitive_attr_destroy(attr);
            kestrel::set_library_scratchpad_policy(kestrel::scratchpad_policy_t::global_arena);
        }
        const size_t w = (size_t)p.L * p.D() * (p.SLC + p.dic()) * p.G() * p.DHC * sizeof(float);
        const bool ok = sz[1] >= sz[0] + w && sz[1] <= sz[0] + w + 128;
        if (!ok) std::fprintf(stderr, "scratchpad f32 %zu bf16 %zu weights %zu\n", sz[0], sz[1], w);
        tally.check(ok, "bf16 scratchpad = f32 scratchpad + widened weights");
    }
}

// Type combinations oneDNN v3.9 refuses: dnnl_unimplemented.
void refused() {
    prob_t p;
    p.cell = c_lstm;
    p.T = 2;
    p.N = 2;
    p.SLC = 3;
    p.DHC = 4;
    const int L = 1, D = 1, G = 4;
    auto md = [](std::initializer_list<dnnl_dim_t> d, dnnl_data_type_t t, dnnl_format_tag_t tag) {
        return kt::make_md(d, t, tag);
    };
    const auto bf = dnnl_bf16, f = dnnl_f32;
    kt::md_t src(md({2, 2, 3}, bf, dnnl_tnc)), dst(md({2, 2, 4}, bf, dnnl_tnc)), dst_f(md({2, 2, 4}, f, dnnl_tnc)),
            wl(md({L, D, 3, G, 4}, bf, dnnl_ldigo)), wi(md({L, D, 4, G, 4}, bf, dnnl_ldigo)),
            wl_f(md({L, D, 3, G, 4}, f, dnnl_ldigo)), st_c_bf(md({L, D, 2, 4}, bf, dnnl_ldnc)),
            st_c_f(md({L, D, 2, 4}, f, dnnl_ldnc)), st_s8(md({L, D, 2, 4}, dnnl_s8, dnnl_ldnc)),
            bias_s8(md({L, D, G, 4}, dnnl_s8, dnnl_ldgo)), peep_bf(md({L, D, 3, 4}, bf, dnnl_ldgo)),
            proj(md({L, D, 4, 4}, bf, dnnl_ldio)), wi_p(md({L, D, 4, G, 4}, bf, dnnl_ldigo)),
            wl_f16(md({L, D, 3, G, 4}, dnnl_f16, dnnl_ldigo));
    const auto F = dnnl_forward_inference;
    const auto l2r = dnnl_unidirectional_left2right;
    struct case_t {
        const char *what;
        std::function<dnnl_status_t(dnnl_primitive_desc_t *)> make;
    };
    const case_t cases[] = {
            {"bf16 src with f32 weights",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr,
                                wl_f, wi, nullptr, nullptr, nullptr, dst, nullptr, nullptr, 0, nullptr);
                    }},
            {"bf16 with f32 dst_layer",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr, wl,
                                wi, nullptr, nullptr, nullptr, dst_f, nullptr, nullptr, 0, nullptr);
                    }},
            {"bf16 dst_iter_c without src_iter_c (f32 vs bf16 cell state)",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr, wl,
                                wi, nullptr, nullptr, nullptr, dst, nullptr, st_c_bf, 0, nullptr);
                    }},
            {"bf16 src_iter_c with f32 dst_iter_c",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, st_c_bf, wl,
                                wi, nullptr, nullptr, nullptr, dst, nullptr, st_c_f, 0, nullptr);
                    }},
            {"s8 src_iter with bf16",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, st_s8, nullptr, wl, wi,
                                nullptr, nullptr, nullptr, dst, nullptr, nullptr, 0, nullptr);
                    }},
            {"s8 bias with bf16",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr, wl,
                                wi, nullptr, nullptr, bias_s8, dst, nullptr, nullptr, 0, nullptr);
                    }},
            {"bf16 peepholes",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr, wl,
                                wi, peep_bf, nullptr, nullptr, dst, nullptr, nullptr, 0, nullptr);
                    }},
            {"bf16 projection LSTM",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr, wl,
                                wi_p, nullptr, proj, nullptr, dst, nullptr, nullptr, 0, nullptr);
                    }},
            {"f16 weights",
                    [&](dnnl_primitive_desc_t *pd) {
                        return dnnl_lstm_forward_primitive_desc_create(pd, eng, F, l2r, src, nullptr, nullptr,
                                wl_f16, wi, nullptr, nullptr, nullptr, dst, nullptr, nullptr, 0, nullptr);
                    }},
    };
    for (const case_t &c : cases) {
        dnnl_primitive_desc_t pd = reinterpret_cast<dnnl_primitive_desc_t>(&p); // a sentinel
        const dnnl_primitive_desc_t sentinel = pd;
        const dnnl_status_t st = c.make(&pd);
        if (st == dnnl_success) dnnl_primitive_desc_destroy(pd);
        tally.check(st == dnnl_unimplemented && pd == sentinel,
                (std::string(c.what) + ": unimplemented, handle untouched").c_str());
    }

    // Backward: bf16 data with a bf16 gradient is refused (gradients are f32).
    types_t ty;
    prob_t q;
    q.cell = c_gru;
    q.T = 2;
    q.N = 2;
    q.SLC = 3;
    q.DHC = 4;
    mds_t m, dm, dmb;
    make_mds(q, ty, m, false);
    make_mds(q, ty, dm, false, true);
    make_mds(q, ty, dmb, false);
    dnnl_primitive_desc_t hint = nullptr, pd = nullptr;
    KT_OK(create_fwd(&hint, q, m, dnnl_forward_training, nullptr));
    tally.check(create_bwd(&pd, q, m, dmb, hint, nullptr) == dnnl_unimplemented,
            "backward with bf16 gradients: unimplemented");
    tally.check(create_bwd(&pd, q, m, dm, hint, nullptr) == dnnl_success, "backward with f32 gradients: created");
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(hint);
}

// The C++ API: an LSTM trained in bf16 the way a oneDNN program does it,
// f32 user data reordered to bf16.
void cpp_api() {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    prob_t p;
    p.cell = c_lstm;
    p.dir = dnnl_unidirectional_left2right;
    p.T = 3;
    p.N = 2;
    p.SLC = 5;
    p.DHC = 4;
    types_t ty; // src_iter, dst_iter bf16, cell states f32, bias f32
    data_t x;
    make_data(p, x, 77);
    round_inputs(ty, x);
    std::vector<double> rdst, rdi, rdic;
    reference(p, x, rdst, rdi, rdic);
    engine e(engine::kind::cpu, 0);
    stream s(e);
    const memory::dim T = p.T, N = p.N, SLC = p.SLC, DHC = p.DHC;
    memory::desc src({T, N, SLC}, dt::bf16, tag::tnc), dst({T, N, DHC}, dt::bf16, tag::tnc);
    memory::desc st({1, 1, N, DHC}, dt::bf16, tag::ldnc), stc({1, 1, N, DHC}, dt::f32, tag::ldnc);
    memory::desc b({1, 1, 4, DHC}, dt::f32, tag::ldgo);
    memory::desc wl({1, 1, SLC, 4, DHC}, dt::bf16, tag::any), wi({1, 1, DHC, 4, DHC}, dt::bf16, tag::any);
    lstm_forward::primitive_desc fpd(
            e, prop_kind::forward_training, rnn_direction::unidirectional_left2right, src, st, stc, wl, wi, b, dst, st, stc);
    tally.check(fpd.weights_layer_desc() == memory::desc({1, 1, SLC, 4, DHC}, dt::bf16, tag::ldigo),
            "C++: bf16 weights any resolves to ldigo");
    auto f32_mem = [&](const memory::desc &d, std::vector<float> &v) { return memory(d, e, v.data()); };
    auto to = [&](memory &from, const memory::desc &d) {
        memory m(d, e);
        reorder(from, m).execute(s, from, m);
        return m;
    };
    memory u_src = f32_mem({{T, N, SLC}, dt::f32, tag::tnc}, x.src), u_si = f32_mem({{1, 1, N, DHC}, dt::f32, tag::ldnc}, x.si);
    memory u_wl = f32_mem({{1, 1, SLC, 4, DHC}, dt::f32, tag::ldigo}, x.wl);
    memory u_wi = f32_mem({{1, 1, DHC, 4, DHC}, dt::f32, tag::ldigo}, x.wi);
    memory m_src = to(u_src, src), m_si = to(u_si, st), m_wl = to(u_wl, fpd.weights_layer_desc()),
           m_wi = to(u_wi, fpd.weights_iter_desc());
    memory m_sic(stc, e, x.sic.data()), m_b(b, e, x.bias.data());
    memory m_dst(dst, e), m_di(st, e), m_dic(stc, e), m_ws(fpd.workspace_desc(), e);
    lstm_forward(fpd).execute(s, {{DNNL_ARG_SRC_LAYER, m_src}, {DNNL_ARG_SRC_ITER, m_si}, {DNNL_ARG_SRC_ITER_C, m_sic},
            {DNNL_ARG_WEIGHTS_LAYER, m_wl}, {DNNL_ARG_WEIGHTS_ITER, m_wi}, {DNNL_ARG_BIAS, m_b},
            {DNNL_ARG_DST_LAYER, m_dst}, {DNNL_ARG_DST_ITER, m_di}, {DNNL_ARG_DST_ITER_C, m_dic},
            {DNNL_ARG_WORKSPACE, m_ws}});
    s.wait();
    memory u_dst({{T, N, DHC}, dt::f32, tag::tnc}, e);
    reorder(m_dst, u_dst).execute(s, m_dst, u_dst);
    s.wait();
    const float *q = static_cast<const float *>(u_dst.get_data_handle());
    types_t ty_ref = ty;
    const double tol = fwd_bound(p, ty_ref, rdst);
    tally.check(max_abs_diff(std::vector<float>(q, q + rdst.size()), rdst) <= tol, "C++: bf16 LSTM dst_layer vs reference");

    memory::desc gsrc({T, N, SLC}, dt::f32, tag::tnc), gdst({T, N, DHC}, dt::f32, tag::tnc);
    memory::desc gst({1, 1, N, DHC}, dt::f32, tag::ldnc), gb({1, 1, 4, DHC}, dt::f32, tag::ldgo);
    memory::desc gwl({1, 1, SLC, 4, DHC}, dt::f32, tag::any), gwi({1, 1, DHC, 4, DHC}, dt::f32, tag::any);
    lstm_backward::primitive_desc bpd(e, prop_kind::backward, rnn_direction::unidirectional_left2right, src, st, stc,
            wl, wi, b, dst, st, stc, gsrc, gst, gst, gwl, gwi, gb, gdst, gst, gst, fpd);
    memory m_wl_b = to(u_wl, bpd.weights_layer_desc()), m_wi_b = to(u_wi, bpd.weights_iter_desc());
    std::vector<float> ddst((size_t)T * N * DHC), ddi((size_t)N * DHC), ddic((size_t)N * DHC, 0.f);
    kt::fill(ddst, 78);
    kt::fill(ddi, 79);
    memory m_ddst(gdst, e, ddst.data()), m_ddi(gst, e, ddi.data()), m_ddic(gst, e, ddic.data());
    memory m_dsrc(gsrc, e), m_dsi(gst, e), m_dsic(gst, e), m_db(gb, e);
    memory m_dwl(bpd.diff_weights_layer_desc(), e), m_dwi(bpd.diff_weights_iter_desc(), e);
    for (memory *m : {&m_dwl, &m_dwi, &m_db}) std::memset(m->get_data_handle(), 0, m->get_desc().get_size());
    lstm_backward(bpd).execute(s, {{DNNL_ARG_SRC_LAYER, m_src}, {DNNL_ARG_SRC_ITER, m_si},
            {DNNL_ARG_SRC_ITER_C, m_sic}, {DNNL_ARG_WEIGHTS_LAYER, m_wl_b}, {DNNL_ARG_WEIGHTS_ITER, m_wi_b},
            {DNNL_ARG_BIAS, m_b}, {DNNL_ARG_DST_LAYER, m_dst}, {DNNL_ARG_DST_ITER, m_di},
            {DNNL_ARG_DST_ITER_C, m_dic}, {DNNL_ARG_WORKSPACE, m_ws}, {DNNL_ARG_DIFF_DST_LAYER, m_ddst},
            {DNNL_ARG_DIFF_DST_ITER, m_ddi}, {DNNL_ARG_DIFF_DST_ITER_C, m_ddic}, {DNNL_ARG_DIFF_SRC_LAYER, m_dsrc},
            {DNNL_ARG_DIFF_SRC_ITER, m_dsi}, {DNNL_ARG_DIFF_SRC_ITER_C, m_dsic},
            {DNNL_ARG_DIFF_WEIGHTS_LAYER, m_dwl}, {DNNL_ARG_DIFF_WEIGHTS_ITER, m_dwi}, {DNNL_ARG_DIFF_BIAS, m_db}});
    s.wait();
    grads_t r;
    bptt(p, x, ddst, ddi, ddic, r);
    auto vec = [](memory &m, size_t n) {
        const float *v = static_cast<const float *>(m.get_data_handle());
        return std::vector<float>(v, v + n);
    };
    const double tb = 3.0 * tol * bwd_terms(p);
    tally.check(max_abs_diff(vec(m_dsrc, x.src.size()), r.src) <= tb * scale(r.src), "C++: diff_src_layer vs BPTT");
    tally.check(max_abs_diff(vec(m_dwl, x.wl.size()), r.wl) <= tb * scale(r.wl), "C++: diff_weights_layer vs BPTT");
    tally.check(max_abs_diff(vec(m_dwi, x.wi.size()), r.wi) <= tb * scale(r.wi), "C++: diff_weights_iter vs BPTT");
    tally.check(max_abs_diff(vec(m_db, x.bias.size()), r.bias) <= tb * scale(r.bias), "C++: diff_bias vs BPTT");
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    sweep();
    scratchpad_size();
    refused();
    cpp_api();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
