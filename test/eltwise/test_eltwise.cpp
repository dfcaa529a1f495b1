// Eltwise forward: the vectorised kernels against the scalar formulas, the
// optimized implementation against the reference over shapes, layouts,
// types and thread counts, in-place runs, queries and bad input.
#include <cfloat>

#include "cpu/eltwise/kernels.hpp"
#include "cpu/math/eltwise_math.hpp"
#include "elt_test.hpp"

using namespace kestrel;

namespace {

struct alg_t {
    dnnl_alg_kind_t alg;
    float alpha, beta, lo, hi;
    // Error bound of the vector kernel against the scalar formula, in f32
    // ulps of the result (0: same operations in the same order, so exact).
    // exp/expm1 are within 2 ulp (Taylor remainder < 0.1 ulp after the
    // ln2 reduction, plus the rounding of each Horner step); logistic adds a
    // division and the propagated exp error (< 2 ulp since e/(1+e) < 1):
    // 5; tanh = -t/(t+2) amplifies t's error by 2/(t+2) <= 2: 6; swish and
    // gelu_tanh add one multiplication to logistic: 6. gelu_erf: within 7
    // of the exact value (budget in math.inc and test_gelu), the reference
    // within half an ulp (double, rounded once): 7 apart.
    int ulps;
};

const alg_t algs[] = {
        {dnnl_eltwise_relu, 0.f, 0.f, -5, 5, 0},
        {dnnl_eltwise_relu, 0.25f, 0.f, -5, 5, 0},
        {dnnl_eltwise_relu_use_dst_for_bwd, 0.f, 0.f, -5, 5, 0},
        {dnnl_eltwise_tanh, 0.f, 0.f, -6, 6, 6},
        {dnnl_eltwise_tanh_use_dst_for_bwd, 0.f, 0.f, -6, 6, 6},
        {dnnl_eltwise_elu, 0.7f, 0.f, -6, 6, 4},
        {dnnl_eltwise_elu_use_dst_for_bwd, 1.f, 0.f, -6, 6, 4},
        {dnnl_eltwise_square, 0.f, 0.f, -5, 5, 0},
        {dnnl_eltwise_abs, 0.f, 0.f, -5, 5, 0},
        {dnnl_eltwise_sqrt, 0.f, 0.f, 0, 9, 0},
        {dnnl_eltwise_sqrt_use_dst_for_bwd, 0.f, 0.f, 0, 9, 0},
        {dnnl_eltwise_linear, 1.5f, -0.5f, -5, 5, 0},
        {dnnl_eltwise_soft_relu, 1.f, 0.f, -8, 8, 0},
        {dnnl_eltwise_soft_relu, 2.f, 0.f, -8, 8, 0},
        {dnnl_eltwise_hardsigmoid, 0.2f, 0.5f, -5, 5, 0},
        {dnnl_eltwise_logistic, 0.f, 0.f, -20, 20, 5},
        {dnnl_eltwise_logistic_use_dst_for_bwd, 0.f, 0.f, -20, 20, 5},
        {dnnl_eltwise_exp, 0.f, 0.f, -20, 20, 2},
        {dnnl_eltwise_exp_use_dst_for_bwd, 0.f, 0.f, -20, 20, 2},
        {dnnl_eltwise_gelu_tanh, 0.f, 0.f, -6, 6, 6},
        {dnnl_eltwise_swish, 1.f, 0.f, -8, 8, 6},
        {dnnl_eltwise_log, 0.f, 0.f, 0.01f, 9, 0},
        {dnnl_eltwise_clip, -0.5f, 0.7f, -2, 2, 0},
        {dnnl_eltwise_clip_v2, -0.5f, 0.7f, -2, 2, 0},
        {dnnl_eltwise_clip_v2_use_dst_for_bwd, -0.5f, 0.7f, -2, 2, 0},
        {dnnl_eltwise_pow, 1.5f, 0.5f, 0.01f, 9, 0},
        {dnnl_eltwise_gelu_erf, 0.f, 0.f, -6, 6, 7},
        {dnnl_eltwise_round, 0.f, 0.f, -5, 5, 0},
        {dnnl_eltwise_mish, 0.f, 0.f, -6, 6, 0},
        {dnnl_eltwise_hardswish, 0.2f, 0.5f, -5, 5, 0},
};

// Distance in ulps between two floats of the same sign region.
double ulp_diff(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : 1e30;
    if (a == b) return 0;
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    return std::fabs((double)ia - (double)ib);
}

// Every vectorised algorithm of an ISA table over a sweep of inputs that
// covers both tails, the reduction boundaries, subnormals and specials.
void check_kernels(kt::tally_t &t, const elt::kernels_t *k) {
    std::vector<float> x;
    for (float v = -110.f; v <= 110.f; v += 0.0137f) x.push_back(v);
    for (float v = -1.f; v <= 1.f; v += 1.1e-4f) x.push_back(v);
    const float specials[] = {0.f, -0.f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, FLT_MIN, 88.7f, 88.75f,
            -87.3f, -103.f, -104.5f, INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX};
    for (float v : specials) x.push_back(v);
    const dim_t n = (dim_t)x.size() - 3; // odd length: exercises the tail
    std::vector<float> y(x.size());
    for (const auto &a : algs) {
        if (!k->eltwise_has(a.alg)) continue;
        k->eltwise(a.alg, a.alpha, a.beta, dnnl_f32, x.data(), y.data(), n);
        double worst = 0;
        for (dim_t i = 0; i < n; ++i) {
            float want = math::eltwise_fwd(a.alg, x[i], a.alpha, a.beta);
            double d = ulp_diff(y[i], want);
            // Subnormal intermediates carry fewer bits: their error is
            // counted in units of the smallest subnormal (1.4e-45), scaled by
            // |x| where the result is x times a subnormal (swish, gelu).
            const double sub_ulp = 1.5e-45 * std::fmax(1.0, std::fabs((double)x[i]));
            if (std::fabs((double)y[i] - want) <= a.ulps * sub_ulp) d = 0;
            if (d > worst) worst = d;
            if (d > a.ulps) {
                std::fprintf(stderr, "%s alg %#x x=%.9g got %.9g want %.9g (%g ulp)\n", k->isa,
                        (int)a.alg, x[i], y[i], want, d);
                break;
            }
        }
        char what[96];
        std::snprintf(what, sizeof(what), "%s kernel alg %#x within %d ulp", k->isa, (int)a.alg,
                a.ulps);
        t.check(worst <= a.ulps, what);
    }
    // bf16 storage: same f32 compute, rounding to nearest even on store.
    std::vector<uint16_t> xb(x.size()), yb(x.size());
    for (size_t i = 0; i < x.size(); ++i) xb[i] = f32_to_bf16(x[i]);
    k->eltwise(dnnl_eltwise_relu, 0.1f, 0.f, dnnl_bf16, xb.data(), yb.data(), n);
    bool ok = true;
    for (dim_t i = 0; i < n && ok; ++i) {
        float xf = bf16_to_f32(xb[i]);
        uint16_t want = f32_to_bf16(xf > 0 ? xf : 0.1f * xf);
        ok = yb[i] == want || (std::isnan(xf) && std::isnan(bf16_to_f32(yb[i])));
    }
    t.check(ok, "bf16 relu kernel rounds like f32_to_bf16");
}

// Optimized (first) implementation against the reference.
void check_vs_ref(kt::tally_t &t, et::env_t &e, const alg_t &a, const std::vector<dim_t> &dims,
        dnnl_format_tag_t tag, dnnl_data_type_t dt, bool in_place) {
    kt::md_t smd(et::md(dims, dt, tag)), dmd(et::md(dims, dt, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = nullptr, rpd = nullptr;
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a.alg,
            smd, dmd, a.alpha, a.beta, nullptr));
    KT_OK(dnnl_primitive_desc_clone(&rpd, pd));
    t.check(et::to_reference(rpd), "eltwise reference reachable");
    const_dnnl_memory_desc_t qdst = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    t.check(md_equal(*qdst, *static_cast<const_dnnl_memory_desc_t>(smd)), "dst any -> src layout");

    et::mem_t src(smd, e.eng), dst(qdst, e.eng), rdst(qdst, e.eng);
    src.fill(dims.size() * 131 + (size_t)a.alg, a.lo, a.hi);
    if (in_place) {
        et::mem_t io(smd, e.eng);
        io.buf = src.buf;
        et::run(pd, e.strm, {{DNNL_ARG_SRC, io.m}, {DNNL_ARG_DST, io.m}});
        dst.buf = io.buf;
    } else {
        et::run(pd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_DST, dst.m}});
    }
    et::run(rpd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_DST, rdst.m}});
    const bool vec = kt::impl_name(pd).rfind("vec", 0) == 0;
    // Exact algorithms match bit for bit in any type; approximated ones are
    // a few f32 ulps apart before rounding, so at most one bf16 ulp after.
    double rel = a.ulps == 0 || !vec ? 0 : dt == dnnl_bf16 ? et::bf16_eps : a.ulps * et::f32_eps;
    char what[160];
    std::snprintf(what, sizeof(what), "eltwise alg %#x a=%g %s tag %d dt %d C=%ld%s vs ref",
            (int)a.alg, a.alpha, kt::impl_name(pd).c_str(), (int)tag, (int)dt, (long)(dims.size() > 1 ? dims[1] : dims[0]),
            in_place ? " in place" : "");
    t.check(et::close(dst.values(), rdst.values(), rel, 1e-37, what), what);
    t.check(dst.padding_zero() && rdst.padding_zero(), "eltwise keeps dst padding zero");
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_desc_destroy(rpd);
}

void check_bad_input(kt::tally_t &t, et::env_t &e) {
    kt::md_t a(et::md({2, 3, 4}, dnnl_f32, dnnl_abc)), b(et::md({2, 3, 5}, dnnl_f32, dnnl_abc));
    kt::md_t i8(et::md({2, 3, 4}, dnnl_s8, dnnl_abc));
    dnnl_primitive_desc_t pd = nullptr;
    // One row per bad argument; everything else is valid.
    const struct {
        const char *what;
        bool null_pd;
        dnnl_prop_kind_t prop;
        dnnl_alg_kind_t alg;
        const_dnnl_memory_desc_t src, dst;
        dnnl_status_t want;
    } cases[] = {
            {"eltwise NULL pd -> invalid_arguments", true, dnnl_forward_inference,
                    dnnl_eltwise_relu, a, a, dnnl_invalid_arguments},
            {"eltwise NULL src -> invalid_arguments", false, dnnl_forward_inference,
                    dnnl_eltwise_relu, nullptr, a, dnnl_invalid_arguments},
            {"eltwise dims mismatch -> invalid_arguments", false, dnnl_forward_inference,
                    dnnl_eltwise_relu, a, b, dnnl_invalid_arguments},
            {"eltwise bad alg -> invalid_arguments", false, dnnl_forward_inference,
                    dnnl_binary_add, a, a, dnnl_invalid_arguments},
            {"eltwise backward prop -> invalid_arguments", false, dnnl_backward_data,
                    dnnl_eltwise_relu, a, a, dnnl_invalid_arguments},
            {"eltwise s8 -> unimplemented", false, dnnl_forward_inference, dnnl_eltwise_relu,
                    i8, i8, dnnl_unimplemented},
    };
    for (const auto &c : cases)
        t.check(dnnl_eltwise_forward_primitive_desc_create(c.null_pd ? nullptr : &pd, e.eng,
                        c.prop, c.alg, c.src, c.dst, 0, 0, nullptr)
                        == c.want,
                c.what);
    // Queries.
    KT_OK(dnnl_eltwise_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_training,
            dnnl_eltwise_clip, a, a, -1.5f, 2.5f, nullptr));
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    float alpha = 0, beta = 0;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &alg));
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alpha_f32, 0, &alpha));
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_beta_f32, 0, &beta));
    t.check(alg == dnnl_eltwise_clip && alpha == -1.5f && beta == 2.5f, "eltwise queries");
    // Missing dst at execution.
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd));
    et::mem_t m(a, e.eng);
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m.m}};
    t.check(dnnl_primitive_execute(p, e.strm, 1, args) == dnnl_invalid_arguments,
            "eltwise missing dst -> invalid_arguments");
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    kt::tally_t t;
    et::env_t e;
    if (isa::has(isa::avx512)) check_kernels(t, elt::kernels_avx512());
    if (isa::has(isa::avx2)) check_kernels(t, elt::kernels_avx2());

    const dim_t chans[] = {1, 3, 15, 16, 17, 33};
    const dnnl_format_tag_t tags[] = {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c, dnnl_nChw8c};
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &a : algs)
                for (dim_t c : chans)
                    for (auto tag : tags)
                        for (auto dt : {dnnl_f32, dnnl_bf16}) {
                            const dim_t n = c == 3 ? 1 : 2;
                            check_vs_ref(t, e, a, {n, c, 3, 5}, tag, dt, false);
                        }
            // Larger flat problems split over threads, 1D..6D, in place.
            for (const auto &a : algs) {
                check_vs_ref(t, e, a, {4, 37, 17, 19}, dnnl_nchw, dnnl_f32, true);
                check_vs_ref(t, e, a, {1001}, dnnl_a, dnnl_f32, false);
                check_vs_ref(t, e, a, {2, 3, 2, 3, 2, 5}, dnnl_abcdef, dnnl_bf16, true);
            }
        });
    check_bad_input(t, e);
    return t.finish();
}
