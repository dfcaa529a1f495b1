// Convolution forward with one eltwise post-op (relu, linear, clip), which
// the direct kernels apply in registers at the store when it is the whole
// epilogue and OC fills the channel blocks, and through the epilogue pass
// otherwise (OC with a tail, or with a bias). Blocked nChw16c and nChw8c
// data with OIhw16i16o / OIhw8i8o weights, all offsets computed here,
// against a naive convolution in double written in this file; 1 and 2
// threads; test_conv_fused_eltwise_avx2.sh runs it again capped at AVX2.
#include <cmath>

#include "common/kt_test.hpp"
#include "dnnl.hpp"

namespace {

struct prob_t {
    long N, IC, OC, IH, IW, K, S, P;
    bool bias;
    long OH() const { return (IH + 2 * P - K) / S + 1; }
    long OW() const { return (IW + 2 * P - K) / S + 1; }
};

struct post_t {
    const char *name;
    dnnl_alg_kind_t alg;
    float alpha, beta;
};

double post(const post_t &e, double v) {
    switch (e.alg) {
        case dnnl_eltwise_relu: return v > 0 ? v : e.alpha * v;
        case dnnl_eltwise_linear: return e.alpha * v + e.beta;
        default: return std::fmin(e.beta, std::fmax(e.alpha, v));
    }
}

long rnd(long v, long b) { return (v + b - 1) / b * b; }

// Offsets in nChw<B>c and OIhw<B>i<B>o.
long data_off(long B, long C, long H, long W, long n, long c, long h, long w) {
    return (((n * (rnd(C, B) / B) + c / B) * H + h) * W + w) * B + c % B;
}
long wei_off(long B, long IC, long K, long oc, long ic, long kh, long kw) {
    return ((((oc / B) * (rnd(IC, B) / B) + ic / B) * K + kh) * K + kw) * B * B + (ic % B) * B + oc % B;
}

void check(kt::tally_t &t, dnnl_engine_t eng, dnnl_stream_t strm, const prob_t &p, const post_t &e, long B,
        int threads) {
    const long OH = p.OH(), OW = p.OW();
    const dnnl_format_tag_t dtag = B == 16 ? dnnl_nChw16c : dnnl_nChw8c;
    const dnnl_format_tag_t wtag = B == 16 ? dnnl_OIhw16i16o : dnnl_OIhw8i8o;
    dnnl_dims_t sd = {p.N, p.IC, p.IH, p.IW}, wd = {p.OC, p.IC, p.K, p.K}, dd = {p.N, p.OC, OH, OW},
                bd = {p.OC};
    dnnl_memory_desc_t smd, wmd, dmd, bmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 4, sd, dnnl_f32, dtag));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd, 4, wd, dnnl_f32, wtag));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 4, dd, dnnl_f32, dtag));
    KT_OK(dnnl_memory_desc_create_with_tag(&bmd, 1, bd, dnnl_f32, dnnl_a));
    dnnl_post_ops_t ops;
    KT_OK(dnnl_post_ops_create(&ops));
    KT_OK(dnnl_post_ops_append_eltwise(ops, e.alg, e.alpha, e.beta));
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, ops));
    dnnl_dims_t st = {p.S, p.S}, dil = {0, 0}, pad = {p.P, p.P};
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_convolution_direct, smd, wmd, p.bias ? bmd : nullptr, dmd, st, dil, pad, pad, attr));
    std::vector<float> x(dnnl_memory_desc_get_size(smd) / 4, 0.f), w(dnnl_memory_desc_get_size(wmd) / 4, 0.f),
            b(p.OC), y(dnnl_memory_desc_get_size(dmd) / 4, 9.f);
    kt::rng_t r(p.IC * 7 + p.OC + B);
    for (long n = 0; n < p.N; ++n)
        for (long c = 0; c < p.IC; ++c)
            for (long h = 0; h < p.IH; ++h)
                for (long q = 0; q < p.IW; ++q) x[data_off(B, p.IC, p.IH, p.IW, n, c, h, q)] = r.uniform(-1.f, 1.f);
    for (long oc = 0; oc < p.OC; ++oc)
        for (long ic = 0; ic < p.IC; ++ic)
            for (long kh = 0; kh < p.K; ++kh)
                for (long kw = 0; kw < p.K; ++kw) w[wei_off(B, p.IC, p.K, oc, ic, kh, kw)] = r.uniform(-1.f, 1.f);
    for (auto &v : b) v = r.uniform(-1.f, 1.f);
    dnnl_memory_t ms, mw, mb, md;
    KT_OK(dnnl_memory_create(&ms, smd, eng, x.data()));
    KT_OK(dnnl_memory_create(&mw, wmd, eng, w.data()));
    KT_OK(dnnl_memory_create(&mb, bmd, eng, b.data()));
    KT_OK(dnnl_memory_create(&md, dmd, eng, y.data()));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    if (p.bias) args.push_back({DNNL_ARG_BIAS, mb});
    KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(strm));

    // f32 accumulation of K = IC*K*K products (FMA or not) in any order is
    // within (K + 1) * 2^-24 * sum |x w| (+ |bias|) of the exact sum; relu
    // and clip are 1-Lipschitz and exact, linear scales the error by
    // |alpha| and rounds once more (half an ulp of the result).
    const double u = std::ldexp(1.0, -24);
    long bad = 0;
    for (long n = 0; n < p.N; ++n)
        for (long oc = 0; oc < p.OC; ++oc)
            for (long oh = 0; oh < OH; ++oh)
                for (long ow = 0; ow < OW; ++ow) {
                    double acc = p.bias ? b[oc] : 0.0, mag = p.bias ? std::fabs(b[oc]) : 0.0;
                    for (long ic = 0; ic < p.IC; ++ic)
                        for (long kh = 0; kh < p.K; ++kh)
                            for (long kw = 0; kw < p.K; ++kw) {
                                const long ih = oh * p.S - p.P + kh, iw = ow * p.S - p.P + kw;
                                if (ih < 0 || ih >= p.IH || iw < 0 || iw >= p.IW) continue;
                                const double pr = (double)x[data_off(B, p.IC, p.IH, p.IW, n, ic, ih, iw)]
                                        * w[wei_off(B, p.IC, p.K, oc, ic, kh, kw)];
                                acc += pr;
                                mag += std::fabs(pr);
                            }
                    const double want = post(e, acc);
                    const double k = (double)p.IC * p.K * p.K + 2;
                    double tol = k * u * mag;
                    if (e.alg == dnnl_eltwise_linear) tol = std::fabs(e.alpha) * tol + u * std::fabs(want) + 1e-30;
                    const float got = y[data_off(B, p.OC, OH, OW, n, oc, oh, ow)];
                    if (!(std::fabs(got - want) <= tol)) ++bad;
                }
    // Padded channels of the last block stay zero.
    bool pad_ok = true;
    for (long n = 0; n < p.N; ++n)
        for (long oc = p.OC; oc < rnd(p.OC, B); ++oc)
            for (long oh = 0; oh < OH; ++oh)
                for (long ow = 0; ow < OW; ++ow) pad_ok = pad_ok && y[data_off(B, p.OC, OH, OW, n, oc, oh, ow)] == 0.f;
    char what[200];
    std::snprintf(what, sizeof(what), "conv %ld->%ld %ldx%ld k%ld s%ld p%ld%s + %s, nChw%ldc, %d thr (%s): %ld off",
            p.IC, p.OC, p.IH, p.IW, p.K, p.S, p.P, p.bias ? " bias" : "", e.name, B, threads,
            kt::impl_name(pd).c_str(), bad);
    t.check(bad == 0, what);
    t.check(pad_ok, "conv with an eltwise post-op leaves padded channels zero");
    dnnl_primitive_destroy(prim);
    for (auto m : {ms, mw, mb, md}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    dnnl_post_ops_destroy(ops);
    for (auto m : {smd, wmd, dmd, bmd}) dnnl_memory_desc_destroy(m);
}

// The C++ API: relu fused into a 3x3 convolution, nChw16c.
void check_cpp(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const long N = 1, C = 16, H = 6, W = 19;
    const memory::desc sd({N, C, H, W}, memory::data_type::f32, memory::format_tag::nChw16c);
    const memory::desc wd({C, C, 3, 3}, memory::data_type::f32, memory::format_tag::OIhw16i16o);
    post_ops ops;
    ops.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    primitive_attr attr;
    attr.set_post_ops(ops);
    convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct, sd,
            wd, sd, {1, 1}, {1, 1}, {1, 1}, attr);
    std::vector<float> x(N * C * H * W), w(C * C * 9), y(x.size());
    kt::rng_t r(3);
    for (auto &v : x) v = r.uniform(-1.f, 1.f);
    for (auto &v : w) v = r.uniform(-1.f, 1.f);
    memory ms(sd, eng, x.data()), mw(wd, eng, w.data()), md(sd, eng, y.data());
    convolution_forward(pd).execute(strm, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}});
    strm.wait();
    bool ok = true;
    for (long oc = 0; oc < C; ++oc)
        for (long oh = 0; oh < H; ++oh)
            for (long ow = 0; ow < W; ++ow) {
                double acc = 0, mag = 0;
                for (long ic = 0; ic < C; ++ic)
                    for (long kh = 0; kh < 3; ++kh)
                        for (long kw = 0; kw < 3; ++kw) {
                            const long ih = oh - 1 + kh, iw = ow - 1 + kw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            const double pr = (double)x[data_off(16, C, H, W, 0, ic, ih, iw)]
                                    * w[wei_off(16, C, 3, oc, ic, kh, kw)];
                            acc += pr;
                            mag += std::fabs(pr);
                        }
                const double want = acc > 0 ? acc : 0.0;
                ok = ok && std::fabs(y[data_off(16, C, H, W, 0, oc, oh, ow)] - want) <= (C * 9 + 2) * mag * std::ldexp(1.0, -24);
            }
    t.check(ok, "C++ API: conv 3x3 nChw16c with fused relu vs naive reference");
}

} // namespace

int main() {
    kt::tally_t t;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    const prob_t probs[] = {
            {2, 16, 32, 9, 23, 3, 1, 1, false}, // OC fills the blocks: fused
            {1, 20, 48, 7, 30, 3, 2, 1, false}, // IC tail, stride 2, OW with a tile tail
            {1, 16, 24, 5, 11, 3, 1, 1, false}, // OC tail (16c): epilogue pass
            {1, 8, 16, 6, 13, 1, 1, 0, false}, // 1x1
            {1, 16, 32, 5, 9, 3, 1, 1, true}, // bias: epilogue pass
    };
    const post_t posts[] = {
            {"relu", dnnl_eltwise_relu, 0.f, 0.f},
            {"leaky relu", dnnl_eltwise_relu, 0.125f, 0.f},
            {"linear", dnnl_eltwise_linear, -1.5f, 0.25f},
            {"clip", dnnl_eltwise_clip, -0.3f, 0.4f},
    };
    for (int threads : {1, 2})
        kt::with_threads(threads, [&] {
            for (long B : {16L, 8L})
                for (const auto &p : probs)
                    for (const auto &e : posts) check(t, eng, strm, p, e, B, threads);
        });
    check_cpp(t);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return t.finish();
}
