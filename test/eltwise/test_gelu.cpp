// GELU (erf and tanh), forward and backward: the vector kernels of every
// ISA table the CPU allows against formulas evaluated in double in this
// file (a dense sweep with both tails, subnormals, zeros, inf and NaN),
// then the primitives through the C and C++ APIs on every layout the
// vector path takes (nchw, nhwc, nChw16c with padded channels) with odd
// sizes, 1 and 2 threads, and the backward against central finite
// differences of the forward primitive. Layout offsets are computed here;
// nothing of the library but the code under test is used.
#include <cfloat>
#include <cmath>

#include "../common/kt_test.hpp"
#include "cpu/eltwise/kernels.hpp"
#include "dnnl.hpp"

using namespace kestrel;

namespace {

// Naive references in double.
double gelu_erf_d(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double gelu_erf_grad_d(double x) {
    return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
}
double gelu_tanh_d(double x) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double gelu_tanh_grad_d(double x) {
    const double k = std::sqrt(2.0 / M_PI), t = std::tanh(k * (x + 0.044715 * x * x * x));
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x * x);
}

// Spacing of f32 values at |v| (the subnormal spacing below FLT_MIN).
double ulp_at(double v) {
    v = std::fabs(v);
    if (v < FLT_MIN) return std::ldexp(1.0, -149);
    int e;
    std::frexp(v, &e);
    return std::ldexp(1.0, e - 24);
}

bool same_special(float got, double want) {
    if (std::isnan(want)) return std::isnan(got);
    if (std::isinf(want)) return got == (float)want;
    return false;
}

std::vector<float> sweep() {
    std::vector<float> x;
    for (double v = -16; v <= 16; v += 1.0 / 4096) x.push_back((float)v); // 131k points
    for (double v = -1e-3; v <= 1e-3; v += 1e-7) x.push_back((float)v);
    const float specials[] = {0.f, -0.f, 1e-40f, -1e-40f, FLT_MIN, -FLT_MIN, 1e-30f, -1e-30f,
            -10.f, 10.f, -13.9f, -14.2f, -14.5f, -14.6f, -20.f, 1e3f, -1e3f, 3e19f, -3e19f,
            FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN};
    for (float v : specials) x.push_back(v);
    return x;
}

// The forward kernels. Error budget of GELU (erf) in ulps of the result:
// h = erfc(|x|/sqrt2)/2 within 6 (math.inc: fit and Horner 1.7, the
// corrected u 1.2, exp 2, two products 1); 1 - h (h <= 1/2) passes at
// most h's error and rounds once: 0.5 more; x * cdf half an ulp: 7.
// Where h is subnormal (x < -13) its absolute error is counted in
// subnormal steps: 5 steps, times |x| (the product with x keeps h's
// absolute error scaled by |x|).
// GELU (tanh) keeps test_eltwise's bound of 6 against its own f32
// formula; against the exact double formula 1 + tanh cancels for
// negative x (relative error up to ~|x|^2 * ulp near -6), so it is
// checked over [-5, 16] with 6 + 2 x^2 ulps.
void check_fwd_kernels(kt::tally_t &t, const elt::kernels_t *k) {
    const std::vector<float> x = sweep();
    const dim_t n = (dim_t)x.size();
    std::vector<float> y(x.size());
    for (dnnl_alg_kind_t alg : {dnnl_eltwise_gelu_erf, dnnl_eltwise_gelu_tanh}) {
        const bool erf = alg == dnnl_eltwise_gelu_erf;
        t.check(k->eltwise_has(alg), "kernel table has GELU");
        k->eltwise(alg, 0.f, 0.f, dnnl_f32, x.data(), y.data(), n - 1); // odd tail, last untouched
        y[n - 1] = 12345.f;
        double worst = 0;
        bool specials_ok = true;
        for (dim_t i = 0; i + 1 < n; ++i) {
            const double xi = x[i];
            if (!erf && !(xi >= -5 && xi <= 16)) continue;
            const double want = erf ? gelu_erf_d(xi) : gelu_tanh_d(xi);
            if (!std::isfinite(want) || !std::isfinite(y[i])) {
                if (!same_special(y[i], want)) {
                    specials_ok = false;
                    std::fprintf(stderr, "%s gelu x=%g got %g want %g\n", k->isa, xi, y[i], want);
                }
                continue;
            }
            // Beyond the ulps, h's own subnormal steps scaled by |x|.
            const double bound = erf ? 7 : 6 + 2 * xi * xi;
            const double slack = 5 * std::ldexp(1.0, -149) * std::fmax(1.0, std::fabs(xi));
            const double d = std::fmax(0.0, std::fabs(y[i] - want) - slack) / ulp_at(want);
            if (d / bound > worst) worst = d / bound;
            if (d > bound) {
                std::fprintf(stderr, "%s %s x=%.9g got %.9g want %.9g (%.2f ulp)\n", k->isa,
                        erf ? "gelu_erf" : "gelu_tanh", xi, y[i], want, d);
                break;
            }
        }
        char what[96];
        std::snprintf(what, sizeof(what), "%s %s forward kernel within its ulp bound (worst %.2f of it)",
                k->isa, erf ? "gelu_erf" : "gelu_tanh", worst);
        std::printf("%s\n", what);
        t.check(worst <= 1.0, what);
        t.check(specials_ok, "GELU kernel: inf and NaN as the formula");
        t.check(y[n - 1] == 12345.f, "GELU kernel writes nothing past n");
    }
}

// The backward kernels: f'(x) = cdf + x pdf cancels near x = -0.75, so
// the bound is relative to the terms, |cdf| + |x pdf|: cdf within 6.5
// ulps, the pdf's exp 2 and x * pdf * (1/sqrt(2 pi)) 1.5, the fma and the
// product with dd 1: 11 ulps of (|cdf| + |x pdf|) |dd|. For tanh the
// terms carry the logistic's 5 ulps and ~6 roundings, and its
// cancellation of 1 + tanh as in the forward: 16 + 2 x^2.
void check_bwd_kernels(kt::tally_t &t, const elt::kernels_t *k) {
    const std::vector<float> x = sweep();
    const dim_t n = (dim_t)x.size();
    std::vector<float> dd(x.size()), ds(x.size());
    kt::rng_t r(7);
    for (auto &v : dd) v = r.uniform(-2.f, 2.f);
    for (dnnl_alg_kind_t alg : {dnnl_eltwise_gelu_erf, dnnl_eltwise_gelu_tanh}) {
        const bool erf = alg == dnnl_eltwise_gelu_erf;
        t.check(k->eltwise_bwd_has(alg), "kernel table has GELU backward");
        k->eltwise_bwd(alg, 0.f, 0.f, dnnl_f32, x.data(), dd.data(), ds.data(), n);
        double worst = 0;
        for (dim_t i = 0; i < n; ++i) {
            const double xi = x[i];
            if (!std::isfinite(xi) || std::fabs(xi) > 16 || (!erf && xi < -5)) continue;
            const double want = dd[i] * (erf ? gelu_erf_grad_d(xi) : gelu_tanh_grad_d(xi));
            const double cdf = erf ? 0.5 * std::erfc(-xi / std::sqrt(2.0)) : 1.0;
            const double xpdf = erf ? std::fabs(xi) * std::exp(-0.5 * xi * xi) / std::sqrt(2 * M_PI)
                                    : std::fabs(xi) * 1.2;
            const double scale = (std::fabs(cdf) + xpdf) * std::fabs(dd[i]);
            const double bound = (erf ? 11 : 16 + 2 * xi * xi) * ulp_at(scale)
                    + 4 * std::ldexp(1.0, -149) * (1 + std::fabs(xi));
            const double d = std::fabs(ds[i] - want) / bound;
            if (d > worst) worst = d;
            if (d > 1) {
                std::fprintf(stderr, "%s bwd alg %#x x=%.9g dd=%g got %.9g want %.9g\n", k->isa,
                        (int)alg, xi, dd[i], ds[i], want);
                break;
            }
        }
        char what[96];
        std::snprintf(what, sizeof(what), "%s %s backward kernel within its bound (worst %.2f of it)",
                k->isa, erf ? "gelu_erf" : "gelu_tanh", worst);
        std::printf("%s\n", what);
        t.check(worst <= 1.0, what);
    }
    // NaN in, NaN out; both tails finite.
    const float xs[] = {NAN, 30.f, -30.f, 1e-40f};
    const float g1[] = {1.f, 1.f, 1.f, 1.f};
    float out[4];
    k->eltwise_bwd(dnnl_eltwise_gelu_erf, 0.f, 0.f, dnnl_f32, xs, g1, out, 4);
    t.check(std::isnan(out[0]) && out[1] == 1.f && out[2] == 0.f && out[3] == 0.5f,
            "gelu_erf backward: NaN, +30 -> 1, -30 -> 0, subnormal -> 1/2");
}

// ---------------------------------------------------------------- primitives

enum class lay_t { nchw, nhwc, nChw16c };

// Offset of logical (n, c, h, w) in a dense 4D f32 tensor of this layout.
struct shape_t {
    long N, C, H, W;
    lay_t lay;
    long cp() const { return lay == lay_t::nChw16c ? (C + 15) / 16 * 16 : C; }
    long size() const { return N * cp() * H * W; }
    long off(long n, long c, long h, long w) const {
        switch (lay) {
            case lay_t::nchw: return ((n * C + c) * H + h) * W + w;
            case lay_t::nhwc: return ((n * H + h) * W + w) * C + c;
            default: return (((n * (cp() / 16) + c / 16) * H + h) * W + w) * 16 + c % 16;
        }
    }
    dnnl_format_tag_t tag() const {
        return lay == lay_t::nchw ? dnnl_nchw : lay == lay_t::nhwc ? dnnl_nhwc : dnnl_nChw16c;
    }
    template <typename F>
    void each(F f) const {
        for (long n = 0; n < N; ++n)
            for (long c = 0; c < C; ++c)
                for (long h = 0; h < H; ++h)
                    for (long w = 0; w < W; ++w) f(off(n, c, h, w));
    }
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

dnnl_memory_desc_t md_of(const shape_t &s) {
    dnnl_dims_t d = {s.N, s.C, s.H, s.W};
    dnnl_memory_desc_t m = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, 4, d, dnnl_f32, s.tag()));
    return m;
}

void exec(env_t &e, const_dnnl_primitive_desc_t pd, std::vector<dnnl_exec_arg_t> args) {
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    KT_OK(dnnl_primitive_execute(p, e.strm, (int)args.size(), args.data()));
    KT_OK(dnnl_stream_wait(e.strm));
    dnnl_primitive_destroy(p);
}

dnnl_memory_t wrap(env_t &e, const_dnnl_memory_desc_t md, std::vector<float> &buf) {
    dnnl_memory_t m = nullptr;
    KT_OK(dnnl_memory_create(&m, md, e.eng, buf.data()));
    return m;
}

// Forward y = f(x) with the forward primitive `pd` (src and dst of s).
void run_fwd(env_t &e, const_dnnl_primitive_desc_t pd, const dnnl_memory_desc_t md,
        std::vector<float> &x, std::vector<float> &y) {
    dnnl_memory_t ms = wrap(e, md, x), md_ = wrap(e, md, y);
    exec(e, pd, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md_}});
    dnnl_memory_destroy(ms);
    dnnl_memory_destroy(md_);
}

// One shape and algorithm: forward and backward primitives against the
// double formulas (same bounds as the kernels), padding left zero, and
// the backward against central differences of the forward primitive.
void check_primitives(kt::tally_t &t, env_t &e, const shape_t &s, dnnl_alg_kind_t alg, int threads) {
    const bool erf = alg == dnnl_eltwise_gelu_erf;
    const dnnl_memory_desc_t md = md_of(s);
    dnnl_primitive_desc_t fpd = nullptr, bpd = nullptr;
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, alg, md, md,
            0.f, 0.f, nullptr));
    KT_OK(dnnl_eltwise_backward_primitive_desc_create(&bpd, e.eng, alg, md, md, md, 0.f, 0.f, fpd, nullptr));
    const long sz = s.size();
    std::vector<float> x(sz, 0.f), y(sz, 7.f), dd(sz, 0.f), ds(sz, 7.f);
    // Padded lanes of the sources stay 0; those of the outputs must be 0.
    std::vector<char> real(sz, 0);
    kt::rng_t r(s.N * 1000 + s.C * 10 + (int)s.lay);
    s.each([&](long o) {
        real[o] = 1;
        x[o] = r.uniform(erf ? -6.f : -4.f, 4.f);
        dd[o] = r.uniform(-1.f, 1.f);
    });
    run_fwd(e, fpd, md, x, y);
    dnnl_memory_t mx = wrap(e, md, x), mdd = wrap(e, md, dd), mds = wrap(e, md, ds);
    exec(e, bpd, {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DIFF_DST, mdd}, {DNNL_ARG_DIFF_SRC, mds}});
    bool fwd_ok = true, bwd_ok = true, pad_ok = true;
    for (long o = 0; o < sz; ++o) {
        if (!real[o]) {
            pad_ok = pad_ok && y[o] == 0.f && ds[o] == 0.f;
            continue;
        }
        const double xi = x[o];
        const double want = erf ? gelu_erf_d(xi) : gelu_tanh_d(xi);
        const double fb = (erf ? 7 : 6 + 2 * xi * xi) * ulp_at(want) + 5 * std::ldexp(1.0, -149) * 6;
        if (std::fabs(y[o] - want) > fb) {
            fwd_ok = false;
            std::fprintf(stderr, "x=%.9g got %.9g want %.9g\n", xi, y[o], want);
        }
        const double gw = dd[o] * (erf ? gelu_erf_grad_d(xi) : gelu_tanh_grad_d(xi));
        const double terms = (erf ? 0.5 * std::erfc(-xi / std::sqrt(2.0)) + std::fabs(xi) * 0.4 : 1 + std::fabs(xi) * 1.2)
                * std::fabs(dd[o]);
        bwd_ok = bwd_ok && std::fabs(ds[o] - gw) <= (erf ? 11 : 16 + 2 * xi * xi) * ulp_at(terms) + 1e-44;
    }
    char what[160];
    const char *ln = s.lay == lay_t::nchw ? "nchw" : s.lay == lay_t::nhwc ? "nhwc" : "nChw16c";
    std::snprintf(what, sizeof(what), "%s %ldx%ldx%ldx%ld %s %d thr (%s): forward vs double formula",
            erf ? "gelu_erf" : "gelu_tanh", s.N, s.C, s.H, s.W, ln, threads, kt::impl_name(fpd).c_str());
    t.check(fwd_ok, what);
    std::snprintf(what, sizeof(what), "%s %ldx%ldx%ldx%ld %s %d thr (%s): backward vs double derivative",
            erf ? "gelu_erf" : "gelu_tanh", s.N, s.C, s.H, s.W, ln, threads, kt::impl_name(bpd).c_str());
    t.check(bwd_ok, what);
    t.check(pad_ok, "GELU forward and backward leave padding zero");

    // Central differences of the forward primitive at x +- h, h = 2^-7
    // (exact steps for |x| < 4): truncation h^2/6 * max|f'''| (<= 0.5 for
    // erf, ~0.8 for tanh) = 1.4e-5, plus the forward's error (<= 6 + 2x^2
    // <= 40 ulps of |f| <= 4, i.e. 9.5e-6) twice over 2h: 2.5e-3; with dd
    // in [-1, 1]: 3e-3 absolute covers both.
    const float h = 1.f / 128;
    std::vector<float> xp(x), xm(x), yp(sz), ym(sz);
    s.each([&](long o) {
        xp[o] = x[o] + h;
        xm[o] = x[o] - h;
    });
    run_fwd(e, fpd, md, xp, yp);
    run_fwd(e, fpd, md, xm, ym);
    double worst = 0;
    s.each([&](long o) {
        const double fd = dd[o] * ((double)yp[o] - ym[o]) / (2.0 * h);
        worst = std::fmax(worst, std::fabs(fd - ds[o]));
    });
    std::snprintf(what, sizeof(what), "%s %s: backward matches central differences of forward (%.2g)",
            erf ? "gelu_erf" : "gelu_tanh", ln, worst);
    t.check(worst <= 3e-3, what);

    // Missing diff_dst: invalid_arguments, diff_src untouched.
    std::vector<float> guard(sz, 9.f);
    dnnl_memory_t mg = wrap(e, md, guard);
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, bpd));
    dnnl_exec_arg_t bad[] = {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DIFF_SRC, mg}};
    t.check(dnnl_primitive_execute(p, e.strm, 2, bad) == dnnl_invalid_arguments,
            "GELU backward without diff_dst -> invalid_arguments");
    bool untouched = true;
    for (float v : guard) untouched = untouched && v == 9.f;
    t.check(untouched, "refused GELU backward writes nothing");
    dnnl_primitive_destroy(p);
    dnnl_memory_destroy(mg);
    dnnl_memory_destroy(mx);
    dnnl_memory_destroy(mdd);
    dnnl_memory_destroy(mds);
    dnnl_primitive_desc_destroy(bpd);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_memory_desc_destroy(md);
}

// The C++ API: forward and backward of GELU (erf) on an nChw16c tensor.
void check_cpp(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const memory::desc md({2, 19, 3, 5}, memory::data_type::f32, memory::format_tag::nhwc);
    eltwise_forward::primitive_desc fpd(eng, prop_kind::forward_training, algorithm::eltwise_gelu_erf, md, md, 0.f, 0.f);
    eltwise_backward::primitive_desc bpd(eng, algorithm::eltwise_gelu_erf, md, md, md, 0.f, 0.f, fpd);
    const size_t n = 2 * 19 * 3 * 5;
    std::vector<float> x(n), y(n), dd(n), ds(n);
    kt::rng_t r(99);
    for (size_t i = 0; i < n; ++i) {
        x[i] = r.uniform(-8.f, 5.f);
        dd[i] = r.uniform(-1.f, 1.f);
    }
    memory mx(md, eng, x.data()), my(md, eng, y.data()), mdd(md, eng, dd.data()), mds(md, eng, ds.data());
    eltwise_forward(fpd).execute(strm, {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DST, my}});
    eltwise_backward(bpd).execute(strm, {{DNNL_ARG_SRC, mx}, {DNNL_ARG_DIFF_DST, mdd}, {DNNL_ARG_DIFF_SRC, mds}});
    strm.wait();
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
        const double f = gelu_erf_d(x[i]), g = dd[i] * gelu_erf_grad_d(x[i]);
        const double terms = (0.5 * std::erfc(-x[i] / std::sqrt(2.0)) + std::fabs(x[i]) * 0.4) * std::fabs(dd[i]);
        ok = ok && std::fabs(y[i] - f) <= 7 * ulp_at(f) + 1e-43 && std::fabs(ds[i] - g) <= 11 * ulp_at(terms) + 1e-44;
    }
    t.check(ok, "C++ API: gelu_erf forward and backward vs double formulas");
}

} // namespace

int main() {
    kt::tally_t t;
    std::vector<const elt::kernels_t *> tables;
    if (isa::has(isa::avx512)) tables.push_back(elt::kernels_avx512());
    if (isa::has(isa::avx2)) tables.push_back(elt::kernels_avx2());
    for (const auto *k : tables) {
        check_fwd_kernels(t, k);
        check_bwd_kernels(t, k);
    }
    env_t e;
    const shape_t shapes[] = {
            {2, 3, 5, 7, lay_t::nchw}, // 210 elements: a vector tail on either ISA
            {1, 1, 1, 1, lay_t::nchw},
            {3, 19, 4, 5, lay_t::nhwc},
            {2, 19, 3, 5, lay_t::nChw16c}, // 13 padded channels per block of 16
            {2, 33, 2, 3, lay_t::nChw16c},
    };
    for (int threads : {1, 2})
        kt::with_threads(threads, [&] {
            for (const auto &s : shapes)
                for (dnnl_alg_kind_t alg : {dnnl_eltwise_gelu_erf, dnnl_eltwise_gelu_tanh})
                    check_primitives(t, e, s, alg, threads);
        });
    check_cpp(t);
    return t.finish();
}
