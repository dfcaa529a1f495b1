// Pooling forward on plain channel-first tensors (nchw; the register path
// of pooling_ncsp.cpp for strides 1 and 2, the phase-split path for larger
// ones) against a naive reference written here: max, avg including and
// excluding padding, widths with vector tails, padding on every side,
// dilation, 1 and 2 threads. Max with a workspace is then run backward and
// the gradient checked to land on the reference's first maximum. Offsets
// are computed in this file; nothing of the library but the code under
// test is used.
#include <cfloat>
#include <cmath>
#include <cstring>

#include "common/kt_test.hpp"
#include "dnnl.hpp"

namespace {

struct prob_t {
    long N, C, IH, IW, KH, KW, SH, SW, DH, DW, pt, pl, pb, pr;
    long OH() const { return (IH + pt + pb - ((KH - 1) * (DH + 1) + 1)) / SH + 1; }
    long OW() const { return (IW + pl + pr - ((KW - 1) * (DW + 1) + 1)) / SW + 1; }
};

struct env_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    env_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~env_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

dnnl_memory_desc_t md4(long a, long b, long c, long d) {
    dnnl_dims_t dims = {a, b, c, d};
    dnnl_memory_desc_t m = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, 4, dims, dnnl_f32, dnnl_nchw));
    return m;
}

// The naive reference: taps in (kh, kw) order, sum in f32 in that order
// and one division (the library documents the same order, so avg is
// compared exactly); max keeps the first greatest and remembers where.
void reference(const prob_t &p, dnnl_alg_kind_t alg, const std::vector<float> &x, std::vector<float> &y,
        std::vector<long> &argmax) {
    const long OH = p.OH(), OW = p.OW();
    y.assign(p.N * p.C * OH * OW, 0.f);
    argmax.assign(y.size(), -1);
    for (long n = 0; n < p.N; ++n)
        for (long c = 0; c < p.C; ++c)
            for (long oh = 0; oh < OH; ++oh)
                for (long ow = 0; ow < OW; ++ow) {
                    float m = -FLT_MAX, sum = 0.f;
                    long cnt = 0, at = -1;
                    for (long kh = 0; kh < p.KH; ++kh)
                        for (long kw = 0; kw < p.KW; ++kw) {
                            const long ih = oh * p.SH - p.pt + kh * (p.DH + 1);
                            const long iw = ow * p.SW - p.pl + kw * (p.DW + 1);
                            if (ih < 0 || ih >= p.IH || iw < 0 || iw >= p.IW) continue;
                            const long o = ((n * p.C + c) * p.IH + ih) * p.IW + iw;
                            if (x[o] > m) {
                                m = x[o];
                                at = o;
                            }
                            sum += x[o];
                            ++cnt;
                        }
                    const long o = ((n * p.C + c) * OH + oh) * OW + ow;
                    if (alg == dnnl_pooling_max) {
                        y[o] = m;
                        argmax[o] = at;
                    } else {
                        const long div = alg == dnnl_pooling_avg_include_padding ? p.KH * p.KW : cnt;
                        // A window with no source point averages to 0
                        // (the library's documented choice, not 0 / 0).
                        y[o] = div ? sum / (float)div : 0.f;
                    }
                }
}

// train: max pooling with a workspace and its backward; max inference
// instead gets NaN, -0 and +0 among its inputs and is compared bit for bit
// (a NaN never wins the strict >, the first of -0 and +0 stays).
void check(kt::tally_t &t, env_t &e, const prob_t &p, dnnl_alg_kind_t alg, int threads, bool train) {
    const long OH = p.OH(), OW = p.OW();
    dnnl_memory_desc_t sd = md4(p.N, p.C, p.IH, p.IW), dd = md4(p.N, p.C, OH, OW);
    dnnl_dims_t st = {p.SH, p.SW}, k = {p.KH, p.KW}, dil = {p.DH, p.DW}, pl = {p.pt, p.pl},
                pr = {p.pb, p.pr};
    const bool max = alg == dnnl_pooling_max, specials = max && !train;
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_pooling_forward_primitive_desc_create(&pd, e.eng,
            train ? dnnl_forward_training : dnnl_forward_inference, alg, sd, dd, st, k, dil, pl, pr, nullptr));
    std::vector<float> x(p.N * p.C * p.IH * p.IW), y(p.N * p.C * OH * OW, 7.f), ry;
    std::vector<long> argmax;
    kt::rng_t r(p.IW * 131 + p.SW * 7 + p.KW);
    // Small integers make ties (the first one must win) and exact sums.
    for (auto &v : x) {
        v = r.small_int(-6, 6) * 0.25f;
        const int s = specials ? (int)r.small_int(0, 7) : 7;
        if (s == 0) v = std::nanf("");
        if (s == 1) v = -0.f;
        if (s == 2) v = 0.f;
    }
    reference(p, alg, x, ry, argmax);
    dnnl_memory_t ms, mdst, mws = nullptr;
    KT_OK(dnnl_memory_create(&ms, sd, e.eng, x.data()));
    KT_OK(dnnl_memory_create(&mdst, dd, e.eng, y.data()));
    std::vector<char> ws;
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}};
    if (train) {
        const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
        ws.assign(dnnl_memory_desc_get_size(wmd), 0);
        KT_OK(dnnl_memory_create(&mws, wmd, e.eng, ws.data()));
        args.push_back({DNNL_ARG_WORKSPACE, mws});
    }
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, e.strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(e.strm));
    long bad = 0;
    for (size_t i = 0; i < y.size(); ++i)
        if (std::memcmp(&y[i], &ry[i], sizeof(float)) != 0) ++bad;
    const char *an = max ? "max" : alg == dnnl_pooling_avg_include_padding ? "avg_incl" : "avg_excl";
    char what[200];
    std::snprintf(what, sizeof(what),
            "pooling %s%s nchw %ldx%ldx%ldx%ld k%ldx%ld s%ldx%ld d%ldx%ld pad %ld,%ld,%ld,%ld %d thr (%s): "
            "dst equals the reference (%ld off)",
            an, specials ? " (inference, NaN/-0/+0 inputs)" : "", p.N, p.C, p.IH, p.IW, p.KH, p.KW, p.SH, p.SW, p.DH, p.DW, p.pt, p.pl, p.pb, p.pr, threads,
            kt::impl_name(pd).c_str(), bad);
    t.check(bad == 0, what);

    if (train) {
        // Backward with the workspace: each diff_dst value goes to the
        // reference's first maximum of its window (sums of small
        // integers in any order are exact).
        dnnl_primitive_desc_t bpd = nullptr;
        KT_OK(dnnl_pooling_backward_primitive_desc_create(
                &bpd, e.eng, alg, sd, dd, st, k, dil, pl, pr, pd, nullptr));
        std::vector<float> dy(y.size()), dx(x.size(), 5.f), rdx(x.size(), 0.f);
        for (auto &v : dy) v = r.small_int(-8, 8);
        for (size_t i = 0; i < dy.size(); ++i)
            if (argmax[i] >= 0) rdx[argmax[i]] += dy[i];
        dnnl_memory_t mdy, mdx;
        KT_OK(dnnl_memory_create(&mdy, dd, e.eng, dy.data()));
        KT_OK(dnnl_memory_create(&mdx, sd, e.eng, dx.data()));
        dnnl_primitive_t bp = nullptr;
        KT_OK(dnnl_primitive_create(&bp, bpd));
        dnnl_exec_arg_t bargs[] = {{DNNL_ARG_DIFF_DST, mdy}, {DNNL_ARG_WORKSPACE, mws}, {DNNL_ARG_DIFF_SRC, mdx}};
        KT_OK(dnnl_primitive_execute(bp, e.strm, 3, bargs));
        KT_OK(dnnl_stream_wait(e.strm));
        t.check(dx == rdx, "max pooling backward with the forward's workspace routes to the first maximum");
        dnnl_primitive_destroy(bp);
        dnnl_memory_destroy(mdy);
        dnnl_memory_destroy(mdx);
        dnnl_primitive_desc_destroy(bpd);
    }
    dnnl_primitive_destroy(prim);
    if (mws) dnnl_memory_destroy(mws);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(sd);
    dnnl_memory_desc_destroy(dd);
}

// A relu post-op: dst rows then leave the registers unfinished for the
// post-op and store (not written straight to dst). Compared by value (the
// sign of a zero from relu is not specified).
void check_relu(kt::tally_t &t, env_t &e, const prob_t &p, dnnl_alg_kind_t alg, int threads) {
    const long OH = p.OH(), OW = p.OW();
    dnnl_memory_desc_t sd = md4(p.N, p.C, p.IH, p.IW), dd = md4(p.N, p.C, OH, OW);
    dnnl_dims_t st = {p.SH, p.SW}, k = {p.KH, p.KW}, dil = {p.DH, p.DW}, pl = {p.pt, p.pl},
                pr = {p.pb, p.pr};
    dnnl_post_ops_t po = nullptr;
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_post_ops_create(&po));
    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_pooling_forward_primitive_desc_create(
            &pd, e.eng, dnnl_forward_inference, alg, sd, dd, st, k, dil, pl, pr, attr));
    std::vector<float> x(p.N * p.C * p.IH * p.IW), y(p.N * p.C * OH * OW, 7.f), ry;
    std::vector<long> argmax;
    kt::rng_t r(p.IW * 17 + p.KH);
    for (auto &v : x) v = r.small_int(-6, 6) * 0.25f;
    reference(p, alg, x, ry, argmax);
    dnnl_memory_t ms, mdst;
    KT_OK(dnnl_memory_create(&ms, sd, e.eng, x.data()));
    KT_OK(dnnl_memory_create(&mdst, dd, e.eng, y.data()));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mdst}};
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    KT_OK(dnnl_primitive_execute(prim, e.strm, 2, args));
    KT_OK(dnnl_stream_wait(e.strm));
    long bad = 0;
    for (size_t i = 0; i < y.size(); ++i)
        if (!(y[i] == (ry[i] > 0.f ? ry[i] : 0.f))) ++bad;
    char what[200];
    std::snprintf(what, sizeof(what), "pooling alg %d + relu nchw %ldx%ld k%ldx%ld s%ldx%ld %d thr (%s): (%ld off)",
            (int)alg, p.IH, p.IW, p.KH, p.KW, p.SH, p.SW, threads, kt::impl_name(pd).c_str(), bad);
    t.check(bad == 0, what);
    dnnl_primitive_destroy(prim);
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(mdst);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(po);
    dnnl_memory_desc_destroy(sd);
    dnnl_memory_desc_destroy(dd);
}

// The C++ API on the benchmark's geometry (3x3 s2 pad 1), small.
void check_cpp(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const prob_t p = {2, 3, 37, 45, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1};
    const memory::desc sd({p.N, p.C, p.IH, p.IW}, memory::data_type::f32, memory::format_tag::nchw);
    const memory::desc dd({p.N, p.C, p.OH(), p.OW()}, memory::data_type::f32, memory::format_tag::nchw);
    pooling_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::pooling_max, sd, dd,
            {2, 2}, {3, 3}, {0, 0}, {1, 1}, {1, 1});
    std::vector<float> x(p.N * p.C * p.IH * p.IW), y(p.N * p.C * p.OH() * p.OW()), ry;
    std::vector<long> am;
    kt::rng_t r(5);
    for (auto &v : x) v = r.uniform(-3.f, 3.f);
    reference(p, dnnl_pooling_max, x, ry, am);
    memory ms(sd, eng, x.data()), md(dd, eng, y.data());
    pooling_forward(pd).execute(strm, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}});
    strm.wait();
    t.check(y == ry, "C++ API: max pooling 3x3 s2 nchw equals the reference");
}

} // namespace

int main() {
    kt::tally_t t;
    env_t e;
    const prob_t probs[] = {
            // N C IH IW KH KW SH SW DH DW pt pl pb pr
            {2, 3, 13, 29, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1}, // ResNet's 3x3 s2 p1, OW 15 (one masked vector)
            {1, 2, 9, 67, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1}, // OW 34: two full vectors and a tail
            {1, 2, 8, 64, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}, // 2x2 s2, no padding
            {2, 2, 7, 40, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1}, // stride 1
            {1, 3, 6, 35, 1, 5, 1, 1, 0, 1, 0, 4, 0, 4}, // dilated row taps reaching far outside
            {1, 2, 7, 50, 3, 4, 2, 2, 1, 0, 2, 3, 1, 0}, // asymmetric padding, dilated rows
            {1, 2, 5, 3, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1}, // a row narrower than the taps
            {1, 2, 9, 40, 3, 3, 3, 3, 0, 0, 1, 1, 1, 1}, // stride 3: the phase-split path
            // Padding beyond the kernel: output rows whose window has no
            // source row at all (avg gives 0, max the lowest value).
            {1, 2, 3, 20, 2, 3, 1, 2, 0, 0, 4, 1, 4, 1},
            // 17 kernel rows: the register path folds them in two calls
            // (16, then the last one, which divides and stores).
            {1, 2, 20, 40, 17, 3, 1, 2, 0, 0, 8, 1, 8, 1},
            {1, 1, 19, 33, 17, 2, 1, 1, 0, 0, 8, 0, 8, 1}, // the same, stride 1, 2-wide
            // 10 taps along the row: edge vectors past the 8 kw whose lane
            // masks are precomputed.
            {1, 2, 4, 40, 1, 10, 1, 2, 0, 0, 0, 5, 0, 5},
    };
    for (int threads : {1, 2})
        kt::with_threads(threads, [&] {
            for (const auto &p : probs)
                for (dnnl_alg_kind_t alg :
                        {dnnl_pooling_max, dnnl_pooling_avg_include_padding, dnnl_pooling_avg_exclude_padding})
                {
                    check(t, e, p, alg, threads, alg == dnnl_pooling_max);
                    if (alg == dnnl_pooling_max) check(t, e, p, alg, threads, false);
                    check_relu(t, e, p, alg, threads);
                }
        });
    check_cpp(t);
    return t.finish();
}
