// Eltwise backward: every algorithm with a backward, from src and (the
// _use_dst_for_bwd ones) from dst, in plain, channels-last and 16-channel
// blocked layouts, f32 and bf16, out of place and in place, 1 and 2
// threads, against (1) a naive derivative written here in double and
// (2) central finite differences of the forward primitive. Also: the C++
// API, queries, and bad input (nothing written).
#include <cmath>

#include "bwd_test.hpp"
#include "dnnl.hpp"

using bt::tensor_t;

namespace {

int n_vec = 0, n_ref = 0; // which implementation served the cases

struct alg_t {
    dnnl_alg_kind_t alg;
    float alpha, beta, lo, hi; // parameters and the input range
    std::vector<double> kinks; // points where f' jumps (kept away from by FD)
};

double sigm(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The derivative of each forward function, at the source value x.
double naive_deriv(const alg_t &a, double x) {
    const double al = a.alpha, be = a.beta;
    switch (a.alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd: return x > 0 ? 1 : al;
        case dnnl_eltwise_tanh:
        case dnnl_eltwise_tanh_use_dst_for_bwd: return 1 - std::tanh(x) * std::tanh(x);
        case dnnl_eltwise_elu:
        case dnnl_eltwise_elu_use_dst_for_bwd: return x > 0 ? 1 : al * std::exp(x);
        case dnnl_eltwise_square: return 2 * x;
        case dnnl_eltwise_abs: return x > 0 ? 1 : x < 0 ? -1 : 0;
        case dnnl_eltwise_sqrt:
        case dnnl_eltwise_sqrt_use_dst_for_bwd: return 0.5 / std::sqrt(x);
        case dnnl_eltwise_linear: return al;
        case dnnl_eltwise_soft_relu: return sigm(al * x);
        case dnnl_eltwise_hardsigmoid: return al * x + be > 0 && al * x + be < 1 ? al : 0;
        case dnnl_eltwise_logistic:
        case dnnl_eltwise_logistic_use_dst_for_bwd: return sigm(x) * (1 - sigm(x));
        case dnnl_eltwise_exp:
        case dnnl_eltwise_exp_use_dst_for_bwd: return std::exp(x);
        case dnnl_eltwise_gelu_tanh: {
            // 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3)
            const double k = std::sqrt(2 / M_PI), u = k * (x + 0.044715 * x * x * x);
            const double t = std::tanh(u);
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * 0.044715 * x * x);
        }
        case dnnl_eltwise_swish: return sigm(al * x) + al * x * sigm(al * x) * (1 - sigm(al * x));
        case dnnl_eltwise_log: return 1 / x;
        // oneDNN's convention at the ends: from src the upper end counts
        // as inside, from dst (where every clipped value sits on an end)
        // neither does.
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2: return x > al && x <= be ? 1 : 0;
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: return x > al && x < be ? 1 : 0;
        case dnnl_eltwise_pow: return al * be * std::pow(x, be - 1);
        case dnnl_eltwise_gelu_erf:
            return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) + x * std::exp(-x * x / 2) / std::sqrt(2 * M_PI);
        case dnnl_eltwise_mish: {
            const double sp = std::log1p(std::exp(x)), t = std::tanh(sp);
            return t + x * (1 - t * t) * sigm(x);
        }
        case dnnl_eltwise_hardswish: {
            const double v = al * x + be;
            return v <= 0 ? 0 : v >= 1 ? 1 : 2 * al * x + be;
        }
        default: return NAN;
    }
}

bool uses_dst(dnnl_alg_kind_t a) {
    return a == dnnl_eltwise_relu_use_dst_for_bwd || a == dnnl_eltwise_tanh_use_dst_for_bwd
            || a == dnnl_eltwise_elu_use_dst_for_bwd || a == dnnl_eltwise_sqrt_use_dst_for_bwd
            || a == dnnl_eltwise_logistic_use_dst_for_bwd || a == dnnl_eltwise_exp_use_dst_for_bwd
            || a == dnnl_eltwise_clip_v2_use_dst_for_bwd;
}

const std::vector<alg_t> &algs() {
    static const std::vector<alg_t> v = {
            {dnnl_eltwise_relu, 0.25f, 0, -2, 2, {0}},
            {dnnl_eltwise_relu_use_dst_for_bwd, 0.25f, 0, -2, 2, {0}},
            {dnnl_eltwise_tanh, 0, 0, -2, 2, {}},
            {dnnl_eltwise_tanh_use_dst_for_bwd, 0, 0, -2, 2, {}},
            {dnnl_eltwise_elu, 0.7f, 0, -2, 2, {0}},
            {dnnl_eltwise_elu_use_dst_for_bwd, 0.7f, 0, -2, 2, {0}},
            {dnnl_eltwise_square, 0, 0, -2, 2, {}},
            {dnnl_eltwise_abs, 0, 0, -2, 2, {0}},
            {dnnl_eltwise_sqrt, 0, 0, 0.5f, 3, {}},
            {dnnl_eltwise_sqrt_use_dst_for_bwd, 0, 0, 0.5f, 3, {}},
            {dnnl_eltwise_linear, 1.5f, -0.5f, -2, 2, {}},
            {dnnl_eltwise_soft_relu, 2.f, 0, -2, 2, {}},
            {dnnl_eltwise_hardsigmoid, 0.4f, 0.5f, -3, 3, {-1.25, 1.25}},
            {dnnl_eltwise_logistic, 0, 0, -3, 3, {}},
            {dnnl_eltwise_logistic_use_dst_for_bwd, 0, 0, -3, 3, {}},
            {dnnl_eltwise_exp, 0, 0, -2, 2, {}},
            {dnnl_eltwise_exp_use_dst_for_bwd, 0, 0, -2, 2, {}},
            {dnnl_eltwise_gelu_tanh, 0, 0, -2.5f, 2.5f, {}},
            {dnnl_eltwise_swish, 1.5f, 0, -2.5f, 2.5f, {}},
            {dnnl_eltwise_log, 0, 0, 0.5f, 3, {}},
            {dnnl_eltwise_clip, -0.5f, 0.75f, -2, 2, {-0.5, 0.75}},
            {dnnl_eltwise_clip_v2, -0.5f, 0.75f, -2, 2, {-0.5, 0.75}},
            {dnnl_eltwise_clip_v2_use_dst_for_bwd, -0.5f, 0.75f, -2, 2, {-0.5, 0.75}},
            {dnnl_eltwise_pow, 0.8f, 2.5f, 0.5f, 2, {}},
            {dnnl_eltwise_gelu_erf, 0, 0, -2.5f, 2.5f, {}},
            {dnnl_eltwise_mish, 0, 0, -2.5f, 2.5f, {}},
            {dnnl_eltwise_hardswish, 0.3f, 0.5f, -3, 3, {-5.0 / 3, 5.0 / 3}},
    };
    return v;
}

// Forward pass of `a` on x (fresh primitive), dst values back.
std::vector<float> forward(bt::env_t &e, const alg_t &a, tensor_t &x, tensor_t &y) {
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_training, a.alg, x.md, y.md,
            a.alpha, a.beta, nullptr));
    KT_OK(bt::run(pd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_DST, y.mem}}));
    dnnl_primitive_desc_destroy(pd);
    return y.values();
}

// Kinks: clip at alpha and beta; in the dst variants the kinks are in dst.
bool near_kink(const alg_t &a, double x, double h) {
    for (double k : a.kinks)
        if (std::fabs(x - k) < 3 * h) return true;
    return false;
}

void check(kt::tally_t &t, bt::env_t &e, const alg_t &a, const bt::dims_t &dims, bt::layout_t lay,
        dnnl_data_type_t dt, bool in_place) {
    char what[160];
    std::snprintf(what, sizeof(what), "eltwise bwd alg %#x %s %s%s", (unsigned)a.alg, bt::layout_name(lay),
            dt == dnnl_f32 ? "f32" : "bf16", in_place ? " in place" : "");
    tensor_t x(dims, lay, dt, e.eng), y(dims, lay, dt, e.eng), dd(dims, lay, dt, e.eng),
            ds(dims, lay, dt, e.eng);
    x.fill(11 + (uint64_t)a.alg, a.lo, a.hi);
    dd.fill(7, -1, 1);
    const std::vector<float> yv = forward(e, a, x, y);
    const bool dst = uses_dst(a.alg);
    tensor_t &data = dst ? y : x;

    dnnl_primitive_desc_t fpd = nullptr, pd = nullptr;
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(&fpd, e.eng, dnnl_forward_training, a.alg, x.md, y.md,
            a.alpha, a.beta, nullptr));
    KT_OK(dnnl_eltwise_backward_primitive_desc_create(&pd, e.eng, a.alg, ds.md, dd.md, data.md, a.alpha,
            a.beta, fpd, nullptr));
    const std::string impl = kt::impl_name(pd);
    (impl.rfind("vec", 0) == 0 ? n_vec : n_ref) += 1;
    // The data tensor answers as src or dst, by the algorithm.
    const_dnnl_memory_desc_t q_src = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const_dnnl_memory_desc_t q_dst = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    int other_nd = -1;
    KT_OK(dnnl_memory_desc_query(dst ? q_src : q_dst, dnnl_query_ndims_s32, &other_nd));
    t.check(dnnl_memory_desc_equal(dst ? q_dst : q_src, data.md) == 1 && other_nd == 0,
            "eltwise bwd answers the data md by its role");
    const std::vector<float> ddv = dd.values(), xv = x.values();
    ds.dirty_padding();
    tensor_t &out = in_place ? dd : ds;
    const int data_arg = dst ? DNNL_ARG_DST : DNNL_ARG_SRC;
    KT_OK(bt::run(pd, e.strm, {{data_arg, data.mem}, {DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, out.mem}}));
    const std::vector<float> got = out.values();

    // (1) Naive: dd * f'(x) in double. The library computes in f32: each
    // formula has at most ~12 roundings of half an ulp plus library
    // functions within 2 ulps, so 32 ulps of the largest term bounds it;
    // bf16 output adds one rounding (2^-8 relative) on top.
    std::vector<double> want(got.size());
    for (size_t i = 0; i < got.size(); ++i) want[i] = ddv[i] * naive_deriv(a, xv[i]);
    const double rel = dt == dnnl_f32 ? 32 * bt::f32_eps : bt::bf16_eps / 2 + 32 * bt::f32_eps;
    // Absolute slack: terms like 1 - t^2 cancel; their error is that of
    // the inputs (2 ulps of 1) times |dd| <= 1, times the largest factor
    // (|x| * |f''| <= 8 on the ranges used).
    const double abs = dt == dnnl_f32 ? 16 * 8 * bt::f32_eps : 8 * bt::bf16_eps;
    t.check(bt::close(got, want, rel, abs, what), what);
    t.check(out.padding_zero(), "eltwise bwd zeroes diff_src padding");

    // (2) Finite differences of the forward primitive, f32 only (bf16
    // inputs cannot carry a small step). (f(x+h) - f(x-h)) / 2h has error
    // <= ulp(f)/h from the two roundings of f plus h^2/6 * |f'''|; with
    // |f| <= 10, |f'''| <= 20 on these ranges and h = 1/64 (exact in
    // binary): 10 * 2^-23 * 64 + 20 / 64^2 / 6 ~ 9e-4.
    if (dt == dnnl_f32 && !in_place) {
        const float h = 1.f / 64;
        tensor_t xp(dims, lay, dt, e.eng), xm(dims, lay, dt, e.eng), yp(dims, lay, dt, e.eng),
                ym(dims, lay, dt, e.eng);
        std::vector<float> vp = xv, vm = xv;
        for (size_t i = 0; i < xv.size(); ++i) {
            vp[i] = xv[i] + h;
            vm[i] = xv[i] - h;
        }
        xp.set_values(vp);
        xm.set_values(vm);
        const std::vector<float> fp = forward(e, a, xp, yp), fm = forward(e, a, xm, ym);
        bool ok = true;
        for (size_t i = 0; i < xv.size() && ok; ++i) {
            if (near_kink(a, xv[i], h)) continue;
            const double fd = ddv[i] * ((double)fp[i] - fm[i]) / (2 * h);
            const double tol = 10 * bt::f32_eps * 64 + 20.0 / (64 * 64) / 6 + 32 * bt::f32_eps * std::fabs(fd);
            if (!(std::fabs(got[i] - fd) <= tol)) {
                std::fprintf(stderr, "%s: FD at %zu x=%g got %g fd %g\n", what, i, xv[i], got[i], fd);
                ok = false;
            }
        }
        char w2[200];
        std::snprintf(w2, sizeof(w2), "%s matches finite differences", what);
        t.check(ok, w2);
    }
    (void)yv;
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(fpd);
}

// Bad input: wrong or missing arguments give invalid_arguments and leave
// diff_src untouched; unsupported algorithms are refused at creation.
void bad_input(kt::tally_t &t, bt::env_t &e) {
    const bt::dims_t dims = {2, 5, 3};
    tensor_t x(dims, bt::plain, dnnl_f32, e.eng), dd(dims, bt::plain, dnnl_f32, e.eng),
            ds(dims, bt::plain, dnnl_f32, e.eng), other(dims, bt::chan_last, dnnl_f32, e.eng);
    dnnl_primitive_desc_t pd = nullptr;
    t.check(dnnl_eltwise_backward_primitive_desc_create(&pd, e.eng, dnnl_eltwise_round, ds.md, dd.md, x.md, 0,
                    0, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "round has no backward");
    tensor_t small({2, 5, 2}, bt::plain, dnnl_f32, e.eng);
    t.check(dnnl_eltwise_backward_primitive_desc_create(&pd, e.eng, dnnl_eltwise_relu, ds.md, small.md, x.md,
                    0, 0, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "eltwise bwd: dims mismatch refused");
    t.check(dnnl_eltwise_backward_primitive_desc_create(nullptr, e.eng, dnnl_eltwise_relu, ds.md, dd.md, x.md,
                    0, 0, nullptr, nullptr)
                    == dnnl_invalid_arguments,
            "eltwise bwd: null output refused");
    KT_OK(dnnl_eltwise_backward_primitive_desc_create(&pd, e.eng, dnnl_eltwise_relu, ds.md, dd.md, x.md, 0, 0,
            nullptr, nullptr));
    ds.fill(3, 5, 6);
    const std::vector<float> before = ds.values();
    t.check(bt::run(pd, e.strm, {{DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}})
                    == dnnl_invalid_arguments,
            "eltwise bwd: missing src refused");
    t.check(bt::run(pd, e.strm, {{DNNL_ARG_SRC, other.mem}, {DNNL_ARG_DIFF_DST, dd.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}})
                    == dnnl_invalid_arguments,
            "eltwise bwd: src of another layout refused");
    t.check(bt::run(pd, e.strm, {{DNNL_ARG_SRC, x.mem}, {DNNL_ARG_DIFF_SRC, ds.mem}}) == dnnl_invalid_arguments,
            "eltwise bwd: missing diff_dst refused");
    t.check(ds.values() == before, "eltwise bwd: refused runs wrote nothing");
    dnnl_primitive_desc_destroy(pd);
    // Attributes are refused (unimplemented), as oneDNN takes none here.
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    t.check(dnnl_eltwise_backward_primitive_desc_create(&pd, e.eng, dnnl_eltwise_relu, ds.md, dd.md, x.md, 0,
                    0, nullptr, attr)
                    == dnnl_success,
            "eltwise bwd: scratchpad mode accepted");
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
}

// The C++ API: format any resolved through the forward hint.
void cpp_api(kt::tally_t &t) {
    using namespace dnnl;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::desc src_md({2, 17, 3, 2}, memory::data_type::f32, memory::format_tag::nChw16c);
    auto fpd = eltwise_forward::primitive_desc(eng, prop_kind::forward_training, algorithm::eltwise_logistic_use_dst_for_bwd,
            src_md, src_md, 0.f, 0.f);
    memory::desc any_md({2, 17, 3, 2}, memory::data_type::f32, memory::format_tag::any);
    auto bpd = eltwise_backward::primitive_desc(eng, algorithm::eltwise_logistic_use_dst_for_bwd, any_md, any_md,
            fpd.dst_desc(), 0.f, 0.f, fpd);
    t.check(bpd.diff_src_desc() == src_md && bpd.diff_dst_desc() == src_md && bpd.dst_desc() == src_md,
            "C++ eltwise bwd: any takes the forward layout");
    memory x(src_md, eng), y(src_md, eng), dd(src_md, eng), ds(src_md, eng);
    float *xp = (float *)x.get_data_handle(), *dp = (float *)dd.get_data_handle();
    const size_t n = src_md.get_size() / 4;
    kt::rng_t r(5);
    for (size_t i = 0; i < n; ++i) {
        xp[i] = r.uniform(-3, 3);
        dp[i] = r.uniform(-1, 1);
    }
    eltwise_forward(fpd).execute(s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, y}});
    eltwise_backward(bpd).execute(s, {{DNNL_ARG_DST, y}, {DNNL_ARG_DIFF_DST, dd}, {DNNL_ARG_DIFF_SRC, ds}});
    s.wait();
    // Blocked padding of x is zero: logistic(0) = 0.5 lands in y's padding
    // only if the forward wrote it, which it must not; diff_src padding is 0.
    const float *yp = (const float *)y.get_data_handle(), *sp = (const float *)ds.get_data_handle();
    bool ok = true;
    for (size_t i = 0; i < n && ok; ++i) {
        const bool pad = (i % 16) >= 1 && ((i / 16) / 6) % 2 == 1; // channels 17..31 of block 1
        const double want = pad ? 0.0 : (double)dp[i] * yp[i] * (1.0 - yp[i]);
        ok = std::fabs(sp[i] - want) <= 8 * bt::f32_eps;
    }
    t.check(ok, "C++ eltwise bwd values (dd * y * (1 - y))");
}

} // namespace

int main() {
    kt::tally_t t;
    bt::env_t e;
    for (int nthr : {1, 2}) {
        kt::with_threads(nthr, [&] {
            for (const alg_t &a : algs()) {
                check(t, e, a, {2, 5, 3, 3}, bt::plain, dnnl_f32, false);
                check(t, e, a, {2, 5, 3, 3}, bt::chan_last, dnnl_f32, false);
                check(t, e, a, {2, 19, 3, 2}, bt::blk16, dnnl_f32, false);
                check(t, e, a, {2, 19, 3, 2}, bt::blk16, dnnl_f32, true);
                check(t, e, a, {3, 7, 5}, bt::plain, dnnl_bf16, false);
            }
            // A size past one thread's minimum share, odd.
            check(t, e, algs()[2], {3, 37, 11, 13}, bt::plain, dnnl_f32, false);
            check(t, e, algs()[0], {3, 37, 11, 13}, bt::blk16, dnnl_f32, true);
        });
    }
    bad_input(t, e);
    cpp_api(t);
    // With AVX2 or better the vectorised kernels serve all 5 (dense)
    // configurations of their 21 algorithms at both thread counts, and the
    // reference the rest; without AVX2 the reference serves everything.
    const bool simd = (dnnl_get_effective_cpu_isa() & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2;
    std::printf("vectorised: %d cases, reference: %d cases\n", n_vec, n_ref);
    t.check(simd ? n_vec >= 21 * 5 * 2 : n_vec == 0, "the vectorised eltwise backward served as expected");
    return t.finish();
}
