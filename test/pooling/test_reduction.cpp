// Reduction: the optimized implementation against the reference one over
// ranks 2..5, reduced-dim subsets, layouts (plain, channel-last, blocked by
// 16 and 8), channel tails, every algorithm, f32/bf16 and 1/2 threads,
// including the shapes that split the reduction over threads; hand-checked
// values, post-ops, queries, bad input and dnnl.hpp.
#include <cmath>

#include "dnnl.hpp"
#include "pooling/harness.hpp"

namespace {

dnnl_format_tag_t tag_for(int nd, int layout) {
    if (nd == 2) return dnnl_ab;
    const dnnl_format_tag_t t[3][4] = {{dnnl_abc, dnnl_acb, dnnl_aBc16b, dnnl_aBc8b},
            {dnnl_abcd, dnnl_acdb, dnnl_aBcd16b, dnnl_aBcd8b},
            {dnnl_abcde, dnnl_acdeb, dnnl_aBcde16b, dnnl_aBcde8b}};
    return t[nd - 3][layout];
}

const dnnl_alg_kind_t all_algs[] = {dnnl_reduction_max, dnnl_reduction_min, dnnl_reduction_sum,
        dnnl_reduction_mul, dnnl_reduction_mean, dnnl_reduction_norm_lp_max, dnnl_reduction_norm_lp_sum,
        dnnl_reduction_norm_lp_power_p_max, dnnl_reduction_norm_lp_power_p_sum};

// Inputs whose every partial result is exact in f32 in any order, so the
// implementations must agree bit for bit: small integers for sums (and
// |x|^p terms, integers too), powers of two for products (+-1 only when the
// reduction is long enough for a partial product to leave f32's range).
std::vector<float> exact_inputs(size_t n, uint64_t seed, dnnl_alg_kind_t alg, dnnl_dim_t R) {
    std::vector<float> v(n);
    kt::rng_t r(seed);
    const float pw[] = {-2.f, -1.f, -0.5f, 0.5f, 1.f, 2.f};
    for (auto &x : v) {
        if (alg != dnnl_reduction_mul)
            x = r.small_int(-3, 3);
        else
            x = R <= 100 ? pw[r.next() % 6] : (r.next() & 1 ? 1.f : -1.f);
    }
    return v;
}

struct case_t {
    int nd;
    dnnl_dim_t dims[5];
    unsigned mask; // reduced dims
    int layouts; // how many of tag_for's layouts to try
};

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    const int Cs[] = {1, 3, 15, 16, 17, 33};
    std::vector<case_t> cases;
    for (int C : Cs) {
        for (unsigned m : {1u, 2u, 3u}) cases.push_back({2, {2, C}, m, 1});
        for (unsigned m = 1; m < 8; ++m) cases.push_back({3, {2, C, 7}, m, 4});
        for (unsigned m : {1u, 2u, 12u, 13u, 15u, 8u, 10u, 3u}) cases.push_back({4, {2, C, 5, 3}, m, 4});
        for (unsigned m : {28u, 2u, 31u, 17u}) cases.push_back({5, {1, C, 3, 2, 3}, m, 4});
    }
    // Long reductions: everything to a scalar, and channels kept over many
    // points (both split the reduction over threads), and a kept run longer
    // than one 1024-element piece.
    cases.push_back({4, {2, 33, 40, 40}, 15, 3});
    cases.push_back({4, {8, 33, 16, 16}, 13, 3});
    cases.push_back({4, {8, 5, 16, 16}, 13, 3});
    cases.push_back({2, {4, 3000}, 1, 1});
    cases.push_back({3, {3, 2, 1500}, 2, 1});

    int vec_cases = 0, idx = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &cs : cases)
            for (int layout = 0; layout < cs.layouts; ++layout)
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (auto alg : all_algs) {
                ++idx;
                const float p = (float)(1 + idx % 3), eps = 2.5f;
                dnnl_dims_t sd, dd;
                dnnl_dim_t R = 1;
                for (int i = 0; i < cs.nd; ++i) {
                    sd[i] = cs.dims[i];
                    dd[i] = (cs.mask >> i) & 1 ? 1 : cs.dims[i];
                    if ((cs.mask >> i) & 1) R *= cs.dims[i];
                }
                bool same = true;
                for (int i = 0; i < cs.nd; ++i) same = same && sd[i] == dd[i];
                if (same) continue; // a dim of size 1 was the only one "reduced"
                dnnl_memory_desc_t smd, dmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, cs.nd, sd, dt, tag_for(cs.nd, layout)));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, cs.nd, dd, dt, dnnl_format_tag_any));
                kt::md_t hs(smd), hd(dmd);
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_reduction_primitive_desc_create(pd, env.eng, alg, smd, dmd, p, eps, nullptr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = exact_inputs(kt::nelems(smd), 7 + idx, alg, R);
                    return in;
                };
                auto runs = kt::run_all(env, make, gen, {DNNL_ARG_DST});
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "reduction nd=%d C=%d mask=%u layout=%d dt=%d alg=%d p=%g nthr=%d",
                        cs.nd, (int)cs.dims[1], cs.mask, layout, (int)dt, (int)alg, p, nthr);
                t.check(ref.name == "ref:any", what);
                // The fast one takes every plain layout, and blocked ones
                // unless channels are reduced.
                const bool blocked = cs.nd > 2 && layout >= 2;
                if (!blocked || !(cs.mask & 2)) t.check(runs.size() == 2, what);
                for (size_t i = 0; i + 1 < runs.size(); ++i) {
                    ++vec_cases;
                    t.check(kt::close(runs[i].outs[DNNL_ARG_DST], ref.outs.at(DNNL_ARG_DST), 0, 0, what), what);
                }
            }
        });
    t.check(vec_cases > 3000, "optimized implementation was exercised");

    // Random (inexact) inputs: the two differ only in summation order. A
    // sum of R terms in f32 is within (R-1)*u*sum|t| of the exact one, so
    // two orders are within 2*R*u*sum|t|; for sum/mean |x| <= 1 gives
    // sum|t| <= R; for the L2 norm all terms are positive, so the relative
    // error of the sum is <= 2*R*u and the square root halves it (plus its
    // own rounding and the dst rounding, a few u).
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (int layout = 0; layout < 3; ++layout)
            for (unsigned mask : {13u, 15u, 2u})
            for (auto alg : {dnnl_reduction_sum, dnnl_reduction_mean, dnnl_reduction_norm_lp_sum}) {
                const dnnl_dim_t dims[4] = {4, 33, 9, 7};
                dnnl_dims_t dd;
                dnnl_dim_t R = 1;
                for (int i = 0; i < 4; ++i) {
                    dd[i] = (mask >> i) & 1 ? 1 : dims[i];
                    if ((mask >> i) & 1) R *= dims[i];
                }
                kt::md_t smd(kt::make_md({4, 33, 9, 7}, dnnl_f32, tag_for(4, layout)));
                dnnl_memory_desc_t dmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 4, dd, dnnl_f32, dnnl_format_tag_any));
                kt::md_t hd(dmd);
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_reduction_primitive_desc_create(pd, env.eng, alg, smd, dmd, 2.f, 0.f, nullptr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 99, -1.f, 1.f);
                    return in;
                };
                auto runs = kt::run_all(env, make, gen, {DNNL_ARG_DST});
                const double u = 0x1p-24;
                double atol = 0, rtol = 0;
                if (alg == dnnl_reduction_sum) atol = 2.0 * R * u * R;
                if (alg == dnnl_reduction_mean) atol = 2.0 * R * u * R / R + 2 * u;
                if (alg == dnnl_reduction_norm_lp_sum) rtol = (R + 4) * u;
                char what[128];
                std::snprintf(what, sizeof(what), "reduction random layout=%d mask=%u alg=%d nthr=%d", layout, mask,
                        (int)alg, nthr);
                t.check(runs.size() == 2 || (layout == 2 && (mask & 2)), what);
                for (size_t i = 0; i + 1 < runs.size(); ++i)
                    t.check(kt::close(runs[i].outs[DNNL_ARG_DST], runs.back().outs.at(DNNL_ARG_DST), rtol, atol,
                                    what),
                            what);
            }
        });

    // Hand-checked values on [[1, -2, 3], [4, 5, -6]] reduced over dim 1.
    {
        const std::vector<float> x = {1, -2, 3, 4, 5, -6};
        struct {
            dnnl_alg_kind_t alg;
            float p, eps, r0, r1;
        } want[] = {
                {dnnl_reduction_max, 0, 0, 3, 5},
                {dnnl_reduction_min, 0, 0, -2, -6},
                {dnnl_reduction_sum, 0, 0, 2, 3},
                {dnnl_reduction_mul, 0, 0, -6, -120},
                {dnnl_reduction_mean, 0, 0, 2.f / 3, 1},
                {dnnl_reduction_norm_lp_max, 1, 10, 10, 15}, // max(6, 10), max(15, 10)
                {dnnl_reduction_norm_lp_sum, 2, 2, 4, std::sqrt(79.f)}, // sqrt(14 + 2), sqrt(77 + 2)
                {dnnl_reduction_norm_lp_power_p_max, 2, 20, 20, 77},
                {dnnl_reduction_norm_lp_power_p_sum, 1, 0.5f, 6.5f, 15.5f},
        };
        kt::md_t smd(kt::make_md({2, 3}, dnnl_f32, dnnl_ab));
        kt::md_t dmd(kt::make_md({2, 1}, dnnl_f32, dnnl_ab));
        for (const auto &w : want) {
            dnnl_primitive_desc_t pd;
            KT_OK(dnnl_reduction_primitive_desc_create(&pd, env.eng, w.alg, smd, dmd, w.p < 1 ? 1 : w.p, w.eps,
                    nullptr));
            do {
                auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, x}}, {DNNL_ARG_DST});
                const auto &d = r[DNNL_ARG_DST];
                const bool ok = std::fabs(d[0] - w.r0) <= 1e-6f * std::fabs(w.r0)
                        && std::fabs(d[1] - w.r1) <= 1e-6f * std::fabs(w.r1);
                char what[96];
                std::snprintf(what, sizeof(what), "hand-checked alg=%d impl=%s", (int)w.alg, kt::impl_name(pd).c_str());
                t.check(ok, what);
            } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
            dnnl_alg_kind_t alg;
            float p, eps;
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &alg));
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_p_f32, 0, &p));
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_epsilon_f32, 0, &eps));
            t.check(alg == w.alg && p == (w.p < 1 ? 1 : w.p) && eps == w.eps, "queries");
            dnnl_primitive_desc_destroy(pd);
        }
    }

    // Post-ops (reference implementation): relu(sum) + src1 broadcast over
    // dim 0, then a sum post-op with scale 2 onto the old dst.
    {
        kt::md_t smd(kt::make_md({3, 4, 5}, dnnl_f32, dnnl_abc));
        kt::md_t dmd(kt::make_md({3, 4, 1}, dnnl_f32, dnnl_abc));
        kt::md_t bmd(kt::make_md({1, 4, 1}, dnnl_f32, dnnl_abc));
        dnnl_post_ops_t po;
        KT_OK(dnnl_post_ops_create(&po));
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
        KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
        KT_OK(dnnl_post_ops_append_sum(po, 2.f, 0, dnnl_data_type_undef));
        dnnl_primitive_attr_t attr;
        KT_OK(dnnl_primitive_attr_create(&attr));
        KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_reduction_primitive_desc_create(&pd, env.eng, dnnl_reduction_sum, smd, dmd, 0.f, 0.f, attr));
        t.check(kt::impl_name(pd) == "ref:any", "post-ops go to the reference");
        std::vector<float> x(60), b = {10, 20, 30, 40}, d0(12, 1.f);
        kt::fill(x, 5, -1.f, 1.f);
        const int bin = DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1;
        // exec_pd zeroes outputs; the sum post-op then adds 2 * 0.
        auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, x}, {bin, b}}, {DNNL_ARG_DST});
        bool ok = true;
        for (int n = 0; n < 3; ++n)
            for (int c = 0; c < 4; ++c) {
                float s = 0;
                for (int w = 0; w < 5; ++w) s += x[(size_t)((n * 4 + c) * 5 + w)];
                const float want = std::fmax(s, 0.f) + b[(size_t)c];
                ok = ok && std::fabs(r[DNNL_ARG_DST][(size_t)(n * 4 + c)] - want) <= 1e-5f;
            }
        t.check(ok, "post-ops values");
        dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr);
        dnnl_post_ops_destroy(po);
    }

    // dst `any` follows the src layout.
    {
        kt::md_t smd(kt::make_md({2, 17, 4, 4}, dnnl_f32, dnnl_nhwc));
        kt::md_t dmd(kt::make_md({2, 17, 1, 1}, dnnl_bf16, dnnl_format_tag_any));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_reduction_primitive_desc_create(&pd, env.eng, dnnl_reduction_mean, smd, dmd, 0.f, 0.f, nullptr));
        kt::md_t want(kt::make_md({2, 17, 1, 1}, dnnl_bf16, dnnl_nhwc));
        t.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), want), "dst any");
        dnnl_primitive_desc_destroy(pd);
    }

    // Bad input.
    {
        kt::md_t smd(kt::make_md({2, 3, 4}, dnnl_f32, dnnl_abc));
        kt::md_t dmd(kt::make_md({2, 1, 4}, dnnl_f32, dnnl_abc));
        kt::md_t d2(kt::make_md({2, 1}, dnnl_f32, dnnl_ab));
        kt::md_t dbad(kt::make_md({2, 2, 4}, dnnl_f32, dnnl_abc));
        kt::md_t s8(kt::make_md({2, 3, 4}, dnnl_s8, dnnl_abc));
        kt::md_t s8d(kt::make_md({2, 1, 4}, dnnl_s8, dnnl_abc));
        kt::md_t sany(kt::make_md({2, 3, 4}, dnnl_f32, dnnl_format_tag_any));
        dnnl_primitive_desc_t pd = nullptr;
        auto mk = [&](dnnl_primitive_desc_t *o, dnnl_alg_kind_t alg, const_dnnl_memory_desc_t s,
                          const_dnnl_memory_desc_t d, float p) {
            return dnnl_reduction_primitive_desc_create(o, env.eng, alg, s, d, p, 0.f, nullptr);
        };
        t.check(mk(nullptr, dnnl_reduction_sum, smd, dmd, 0) == dnnl_invalid_arguments, "null pd");
        t.check(mk(&pd, dnnl_reduction_sum, nullptr, dmd, 0) == dnnl_invalid_arguments, "null src");
        t.check(mk(&pd, dnnl_reduction_sum, smd, d2, 0) == dnnl_invalid_arguments, "ndims mismatch");
        t.check(mk(&pd, dnnl_reduction_sum, smd, dbad, 0) == dnnl_invalid_arguments, "dst dim neither 1 nor src");
        t.check(mk(&pd, dnnl_reduction_sum, smd, smd, 0) == dnnl_invalid_arguments, "identity");
        t.check(mk(&pd, dnnl_eltwise_relu, smd, dmd, 0) == dnnl_invalid_arguments, "bad alg");
        t.check(mk(&pd, dnnl_reduction_norm_lp_sum, smd, dmd, 0.5f) == dnnl_invalid_arguments, "p < 1");
        t.check(mk(&pd, dnnl_reduction_norm_lp_sum, smd, dmd, INFINITY) == dnnl_invalid_arguments, "p inf");
        t.check(mk(&pd, dnnl_reduction_norm_lp_sum, s8, s8d, 2) == dnnl_invalid_arguments, "lp on s8");
        kt::md_t s32(kt::make_md({2, 3, 4}, dnnl_s32, dnnl_abc)); // src types: f32, bf16, f16, int8
        t.check(mk(&pd, dnnl_reduction_sum, s32, s8d, 0) == dnnl_unimplemented, "s32 src sum unimplemented");
        t.check(mk(&pd, dnnl_reduction_sum, sany, dmd, 0) == dnnl_invalid_arguments, "src any");
        // Wrong dst memory at execution.
        KT_OK(mk(&pd, dnnl_reduction_sum, smd, dmd, 0));
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> buf(24);
        dnnl_memory_t ms, md;
        KT_OK(dnnl_memory_create(&ms, smd, env.eng, buf.data()));
        KT_OK(dnnl_memory_create(&md, smd, env.eng, buf.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, md}};
        t.check(dnnl_primitive_execute(p, env.strm, 2, args) == dnnl_invalid_arguments, "dst md mismatch");
        t.check(dnnl_primitive_execute(p, env.strm, 1, args) == dnnl_invalid_arguments, "missing dst");
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(md);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc sd({2, 16, 3, 3}, memory::data_type::f32, memory::format_tag::nhwc);
        memory::desc dd({1, 16, 1, 1}, memory::data_type::f32, memory::format_tag::any);
        auto pd = reduction::primitive_desc(eng, algorithm::reduction_max, sd, dd, 0.f, 0.f);
        memory src(sd, eng), dst(pd.dst_desc(), eng);
        float *s = static_cast<float *>(src.get_data_handle());
        for (int i = 0; i < 2 * 16 * 9; ++i) s[i] = (float)(i % 97); // nhwc: channel = i % 16
        reduction(pd).execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        strm.wait();
        const float *d = static_cast<const float *>(dst.get_data_handle());
        bool ok = true;
        for (int c = 0; c < 16; ++c) {
            float m = -1;
            for (int i = c; i < 2 * 16 * 9; i += 16) m = std::fmax(m, (float)(i % 97));
            ok = ok && d[c] == m;
        }
        t.check(ok, "hpp reduction max");
        t.check(pd.dst_desc().get_dims() == memory::dims({1, 16, 1, 1}), "hpp dst desc");
        bool threw = false;
        try {
            reduction::primitive_desc(eng, algorithm::reduction_sum, sd, sd, 0.f, 0.f);
        } catch (const dnnl::error &e) {
            threw = e.status == dnnl_invalid_arguments;
        }
        t.check(threw, "hpp identity throws");
    }
    return t.finish();
}
