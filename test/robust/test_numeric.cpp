// Numerical edges. Expected values come from the formulas oneDNN documents,
// evaluated here in double with IEEE rules (NaN-aware comparison); where the
// documentation is silent the choice is stated beside the check.
//   - NaN and infinities through eltwise, pooling, softmax, batch norm,
//     reduction and GEMM;
//   - denormal inputs give correct results (nothing is flushed to zero);
//   - the caller's MXCSR (rounding mode, FTZ, DAZ) is the same after every
//     call as before;
//   - integer reorders round to nearest even and saturate.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <fcntl.h>
#include <immintrin.h>
#include <unistd.h>

#include "dnnl.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t t;
const float qnan = std::numeric_limits<float>::quiet_NaN();
const float inf = std::numeric_limits<float>::infinity();

bool same(double want, float got, double tol = 0) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= tol * std::fmax(1.0, std::fabs(want));
}

std::vector<float> run_eltwise(engine &eng, stream &s, algorithm alg, float alpha, float beta,
        const std::vector<float> &in) {
    memory::desc md({1, (memory::dim)in.size()}, dt::f32, tag::ab);
    std::vector<float> src = in, dst(in.size(), -7.f);
    eltwise_forward::primitive_desc pd(eng, prop_kind::forward_inference, alg, md, md, alpha, beta);
    memory sm(md, eng, src.data()), dm(md, eng, dst.data());
    eltwise_forward(pd).execute(s, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}});
    s.wait();
    return dst;
}

// Inputs repeated to 37 elements so that vector bodies and tails both see them.
std::vector<float> edge_inputs(const std::vector<float> &base) {
    std::vector<float> v;
    while (v.size() < 37) v.insert(v.end(), base.begin(), base.end());
    v.resize(37);
    return v;
}

void eltwise_edges(engine &eng, stream &s) {
    const std::vector<float> in = edge_inputs({qnan, inf, -inf, -0.f, 1e-40f, -2.5f, 3.f});
    struct alg_t {
        const char *name;
        algorithm alg;
        float alpha, beta;
        double (*f)(double, double, double);
        double tol;
    };
    // Documented formulas; relu is "s if s > 0 else alpha * s", so relu of
    // -inf with alpha 0 is 0 * -inf = NaN, as oneDNN computes it.
    const alg_t algs[] = {
            {"relu", algorithm::eltwise_relu, 0.f, 0.f, [](double x, double a, double) { return x > 0 ? x : a * x; },
                    0},
            {"leaky relu", algorithm::eltwise_relu, 0.5f, 0.f,
                    [](double x, double a, double) { return x > 0 ? x : a * x; }, 0},
            {"linear", algorithm::eltwise_linear, 2.f, 1.f, [](double x, double a, double b) { return a * x + b; },
                    1e-7},
            {"abs", algorithm::eltwise_abs, 0.f, 0.f, [](double x, double, double) { return std::fabs(x); }, 0},
            {"square", algorithm::eltwise_square, 0.f, 0.f, [](double x, double, double) { return x * x; }, 1e-7},
            {"exp", algorithm::eltwise_exp, 0.f, 0.f, [](double x, double, double) { return std::exp(x); }, 1e-6},
            {"tanh", algorithm::eltwise_tanh, 0.f, 0.f, [](double x, double, double) { return std::tanh(x); }, 1e-6},
            {"logistic", algorithm::eltwise_logistic, 0.f, 0.f,
                    [](double x, double, double) { return 1 / (1 + std::exp(-x)); }, 1e-6},
    };
    for (const auto &a : algs) {
        auto got = run_eltwise(eng, s, a.alg, a.alpha, a.beta, in);
        bool ok = true;
        for (size_t i = 0; i < in.size(); ++i) {
            // Denormals keep their value in double; the f32 result of a
            // denormal input may itself be denormal, so compare absolutely.
            double want = a.f(in[i], a.alpha, a.beta);
            bool good = same(want, got[i], a.tol) || (std::fabs(want) < 1e-37 && std::fabs(got[i] - want) < 1e-44);
            if (!good) {
                std::fprintf(stderr, "eltwise %s(%g) = %g, want %g\n", a.name, in[i], got[i], want);
                ok = false;
            }
        }
        t.check(ok, a.name);
    }
    // NaN in, NaN out for the smooth algorithms whose formula propagates it.
    const algorithm smooth[] = {algorithm::eltwise_elu, algorithm::eltwise_gelu_erf, algorithm::eltwise_gelu_tanh,
            algorithm::eltwise_sqrt, algorithm::eltwise_log, algorithm::eltwise_swish,
            algorithm::eltwise_soft_relu, algorithm::eltwise_mish};
    for (algorithm alg : smooth) {
        auto got = run_eltwise(eng, s, alg, 1.f, 0.f, edge_inputs({qnan}));
        bool ok = true;
        for (float g : got) ok = ok && std::isnan(g);
        t.check(ok, "eltwise: NaN in, NaN out");
    }
}

void pooling_edges(engine &eng, stream &s) {
    // 1x16x4x4, 2x2 windows; window (0,0) of channel c holds a NaN when c is
    // even, +inf when c % 4 == 1. oneDNN's documentation does not say what
    // max pooling does with NaN; Kestrel keeps the rule of oneDNN's
    // reference implementation in every kernel: a value replaces the
    // running maximum only when it is greater, so a NaN never does (and the
    // result does not depend on where in the window the NaN is, as it does
    // with a bare vmaxps). Average pooling follows its formula: NaN.
    for (tag tg : {tag::nchw, tag::nhwc, tag::nChw16c})
        for (algorithm alg : {algorithm::pooling_max, algorithm::pooling_avg_include_padding}) {
            memory::desc sd({1, 16, 4, 4}, dt::f32, tg), dd({1, 16, 2, 2}, dt::f32, tg);
            memory sm(sd, eng), dm(dd, eng);
            // Write logical values through a plain buffer and a reorder.
            std::vector<float> plain(16 * 16), out(16 * 4);
            for (int c = 0; c < 16; ++c)
                for (int i = 0; i < 16; ++i) plain[c * 16 + i] = (float)(i % 5);
            for (int c = 0; c < 16; ++c) {
                if (c % 2 == 0) plain[c * 16 + 1] = qnan; // (h0, w1): window (0,0)
                if (c % 4 == 1) plain[c * 16 + 4] = inf;  // (h1, w0): window (0,0)
            }
            memory::desc pd_plain({1, 16, 4, 4}, dt::f32, tag::nchw), dd_plain({1, 16, 2, 2}, dt::f32, tag::nchw);
            memory pm(pd_plain, eng, plain.data()), om(dd_plain, eng, out.data());
            reorder(pm, sm).execute(s, pm, sm);
            pooling_forward::primitive_desc pd(
                    eng, prop_kind::forward_inference, alg, sd, dd, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0});
            pooling_forward(pd).execute(s, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}});
            reorder(dm, om).execute(s, dm, om);
            s.wait();
            bool ok = true;
            for (int c = 0; c < 16; ++c)
                for (int oh = 0; oh < 2; ++oh)
                    for (int ow = 0; ow < 2; ++ow) {
                        double m = -INFINITY, sum = 0;
                        bool has_nan = false;
                        for (int kh = 0; kh < 2; ++kh)
                            for (int kw = 0; kw < 2; ++kw) {
                                float v = plain[c * 16 + (oh * 2 + kh) * 4 + ow * 2 + kw];
                                has_nan = has_nan || std::isnan(v);
                                m = std::fmax(m, v);
                                sum += v;
                            }
                        (void)has_nan; // fmax above already skips NaN
                        double want = alg == algorithm::pooling_max ? m : sum / 4;
                        ok = ok && same(want, out[c * 4 + oh * 2 + ow], 1e-7);
                    }
            t.check(ok, alg == algorithm::pooling_max ? "max pooling: NaN and inf windows" : "avg pooling: NaN and inf");
        }
}

void softmax_edges(engine &eng, stream &s) {
    // Rows of 19: row 0 has -inf entries (they get exactly 0; logsoftmax
    // gives -inf there), row 1 has a NaN (the whole row is NaN), row 2 is
    // all -inf: the formula exp(x - max) gives exp(NaN), so NaN (the
    // documentation does not single this case out).
    const int W = 19;
    std::vector<float> src(3 * W), dst(3 * W);
    for (int i = 0; i < 3 * W; ++i) src[i] = (float)(i % 7) * 0.5f;
    src[3] = src[10] = -inf;
    src[W + 5] = qnan;
    for (int i = 0; i < W; ++i) src[2 * W + i] = -inf;
    memory::desc md({3, W}, dt::f32, tag::ab);
    for (algorithm alg : {algorithm::softmax_accurate, algorithm::softmax_log}) {
        softmax_forward::primitive_desc pd(eng, prop_kind::forward_inference, alg, md, md, 1);
        memory sm(md, eng, src.data()), dm(md, eng, dst.data());
        softmax_forward(pd).execute(s, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}});
        s.wait();
        bool ok = true;
        double mx = -INFINITY, sum = 0;
        for (int i = 0; i < W; ++i) mx = std::fmax(mx, src[i]);
        for (int i = 0; i < W; ++i) sum += std::exp((double)src[i] - mx);
        for (int i = 0; i < W; ++i) {
            double e = (double)src[i] - mx;
            double want = alg == algorithm::softmax_log ? e - std::log(sum) : std::exp(e) / sum;
            ok = ok && same(want, dst[i], 1e-6);
        }
        for (int i = W; i < 3 * W; ++i) ok = ok && std::isnan(dst[i]);
        t.check(ok, alg == algorithm::softmax_log ? "logsoftmax: -inf, NaN and all -inf rows"
                                                  : "softmax: -inf, NaN and all -inf rows");
    }
}

void bnorm_reduction_edges(engine &eng, stream &s) {
    // A NaN in channel 3 poisons channel 3 only.
    memory::desc md({2, 17, 3, 3}, dt::f32, tag::nchw);
    std::vector<float> src(2 * 17 * 9), dst(src.size());
    for (size_t i = 0; i < src.size(); ++i) src[i] = (float)(i % 11) - 5.f;
    src[3 * 9 + 4] = qnan;
    batch_normalization_forward::primitive_desc pd(
            eng, prop_kind::forward_inference, md, md, 1e-5f, normalization_flags::none);
    memory sm(md, eng, src.data()), dm(md, eng, dst.data());
    memory mean(pd.mean_desc(), eng), var(pd.variance_desc(), eng);
    batch_normalization_forward(pd).execute(s,
            {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, dm}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}});
    s.wait();
    bool ok = true;
    for (int n = 0; n < 2; ++n)
        for (int c = 0; c < 17; ++c)
            for (int i = 0; i < 9; ++i) ok = ok && (std::isnan(dst[(n * 17 + c) * 9 + i]) == (c == 3));
    t.check(ok, "batch norm: NaN stays in its channel");

    memory::desc rd({2, 17, 1, 1}, dt::f32, tag::nchw);
    for (algorithm alg : {algorithm::reduction_sum, algorithm::reduction_max}) {
        std::vector<float> r(34);
        src[5 * 9 + 2] = inf; // channel 5: sum and max are +inf
        reduction::primitive_desc rpd(eng, alg, md, rd, 0.f, 0.f);
        memory rm(rd, eng, r.data());
        reduction(rpd).execute(s, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_DST, rm}});
        s.wait();
        bool rok = true;
        for (int n = 0; n < 2; ++n)
            for (int c = 0; c < 17; ++c) {
                float v = r[n * 17 + c];
                // Sum propagates NaN; max skips it as max pooling does.
                if (n == 0 && c == 3) rok = rok && (alg == algorithm::reduction_sum ? std::isnan(v) : std::isfinite(v));
                else if (n == 0 && c == 5) rok = rok && v == inf;
                else rok = rok && std::isfinite(v);
            }
        t.check(rok, alg == algorithm::reduction_sum ? "reduction sum: NaN and inf" : "reduction max: NaN and inf");
    }
}

void gemm_edges() {
    // C = A * B with a NaN in row 2 of A and an inf in column 5 of B: only
    // row 2 and column 5 are affected (inf * 0 = NaN where B's inf meets a
    // zero of A). beta = 0 must ignore C's old contents, even NaN.
    const int M = 23, N = 37, K = 19;
    std::vector<float> A(M * K), B(K * N), C(M * N, qnan);
    for (int i = 0; i < M * K; ++i) A[i] = (float)(i % 5) - 2.f;
    for (int i = 0; i < K * N; ++i) B[i] = (float)(i % 3) - 1.f;
    A[2 * K + 7] = qnan;
    B[4 * N + 5] = inf;
    KT_OK(dnnl_sgemm('N', 'N', M, N, K, 1.f, A.data(), K, B.data(), N, 0.f, C.data(), N));
    bool ok = true;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double acc = 0;
            for (int k = 0; k < K; ++k) acc += (double)A[i * K + k] * B[k * N + j];
            ok = ok && same(acc, C[i * N + j], 0);
        }
    t.check(ok, "sgemm: NaN and inf stay in their row and column; beta 0 ignores old NaN");

    // Denormals are not flushed: 1e-39 * 1 summed K times.
    std::vector<float> a(4 * K, 1e-39f), b(K * 3, 1.f), c(4 * 3, 0.f);
    KT_OK(dnnl_sgemm('N', 'N', 4, 3, K, 1.f, a.data(), K, b.data(), 3, 0.f, c.data(), 3));
    bool dok = true;
    for (float v : c) dok = dok && std::fabs(v - K * 1e-39) <= 1e-44 * K;
    t.check(dok, "sgemm: denormal inputs are not flushed to zero");
}

void reorder_saturation(engine &eng, stream &s) {
    // Round to nearest even, then saturate, as oneDNN documents for
    // conversions to integer types.
    const std::vector<float> in = {300.f, -300.f, 127.5f, -128.5f, 2.5f, -2.5f, 1e10f, -1e10f, 0.49f};
    auto conv = [&](dt to, std::vector<double> want) {
        const memory::dim n = (memory::dim)in.size();
        memory::desc sd({n}, dt::f32, tag::a), dd({n}, to, tag::a);
        std::vector<float> src = in;
        std::vector<int32_t> raw(in.size(), 0);
        memory sm(sd, eng, src.data()), dm(dd, eng, raw.data());
        reorder(sm, dm).execute(s, sm, dm);
        s.wait();
        bool ok = true;
        for (size_t i = 0; i < in.size(); ++i) {
            double got;
            if (to == dt::s8) got = ((const int8_t *)raw.data())[i];
            else if (to == dt::u8) got = ((const uint8_t *)raw.data())[i];
            else got = raw[i];
            ok = ok && got == want[i];
        }
        return ok;
    };
    t.check(conv(dt::s8, {127, -128, 127, -128, 2, -2, 127, -128, 0}), "reorder f32->s8 saturates, rounds even");
    t.check(conv(dt::u8, {255, 0, 128, 0, 2, 0, 255, 0, 0}), "reorder f32->u8 saturates, rounds even");
    t.check(conv(dt::s32, {300, -300, 128, -128, 2, -2, 2147483647., -2147483648., 0}),
            "reorder f32->s32 saturates, rounds even");
}

// Every call returns with the caller's control state: rounding mode, FTZ
// and DAZ (the exception flags are status, which computation may set).
void mxcsr_preserved(engine &eng, stream &s) {
    const unsigned control = 0xffc0;
    const unsigned saved = _mm_getcsr();
    // The value checks inside do not hold under every control state (DAZ
    // reads denormals as zero): only the MXCSR check counts here.
    const kt::tally_t before = t;
    const unsigned states[] = {saved, (saved & ~0x6000u) | 0x6000u /* toward zero */,
            saved | 0x8040u /* FTZ and DAZ */};
    bool ok = true;
    for (unsigned st : states) {
        _mm_setcsr(st);
        auto check = [&](const char *what) {
            if ((_mm_getcsr() & control) != (st & control)) {
                std::fprintf(stderr, "MXCSR changed by %s: %#x -> %#x\n", what, st, _mm_getcsr());
                ok = false;
                _mm_setcsr(st);
            }
        };
        // The inner checks' messages are noise here: stderr is muted.
        auto quietly = [](auto f) {
            std::fflush(stderr);
            int saved = dup(2), null = open("/dev/null", O_WRONLY);
            dup2(null, 2);
            close(null);
            f();
            std::fflush(stderr);
            dup2(saved, 2);
            close(saved);
        };
        quietly([&] { run_eltwise(eng, s, algorithm::eltwise_gelu_erf, 0.f, 0.f, edge_inputs({1.f, -2.f, 3.f})); });
        check("eltwise");
        quietly([&] { softmax_edges(eng, s); });
        check("softmax");
        quietly([&] { pooling_edges(eng, s); });
        check("pooling and reorder");
        quietly([&] { bnorm_reduction_edges(eng, s); });
        check("batch norm and reduction");
        quietly([&] { gemm_edges(); });
        check("sgemm");
    }
    _mm_setcsr(saved);
    t = before;
    t.check(ok, "MXCSR control bits are the caller's after every call");
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            eltwise_edges(eng, s);
            pooling_edges(eng, s);
            softmax_edges(eng, s);
            bnorm_reduction_edges(eng, s);
            gemm_edges();
            reorder_saturation(eng, s);
        });
    mxcsr_preserved(eng, s);
    return t.finish();
}
