// Group normalization forward: the optimized implementation against the
// reference over ranks 3..5, layouts (ncsp, nspc, nCsp8c/16c, and one only
// the reference serves), channel tails and group counts, every flag, props,
// f32/bf16, post-ops and 1/2 threads; hand-checked values; numerical
// stability; bad input; dnnl.hpp.
#include "dnnl.hpp"
#include "core/primitive_cache.hpp"
#include "pooling/harness.hpp"

namespace {

struct shape_t {
    int nd;
    dnnl_dim_t n, sp[3];
    dnnl_format_tag_t tag;
    bool fast; // the optimized implementation applies
};

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    const shape_t shapes[] = {
            {2, 3, {}, dnnl_ab, true},
            {3, 2, {5}, dnnl_abc, true},
            {3, 1, {7}, dnnl_acb, true},
            {4, 2, {3, 5}, dnnl_abcd, true},
            {4, 1, {3, 3}, dnnl_acdb, true},
            {4, 2, {2, 3}, dnnl_aBcd16b, true},
            {4, 1, {3, 2}, dnnl_aBcd8b, true},
            {5, 1, {2, 3, 2}, dnnl_abcde, true},
            {5, 2, {2, 2, 3}, dnnl_acdeb, true},
            {4, 2, {3, 2}, dnnl_bacd, false},
    };
    // Channel counts with a few group counts that divide them.
    const struct {
        int c, groups[3];
    } cg[] = {{1, {1, 1, 1}}, {3, {1, 3, 3}}, {15, {1, 3, 5}}, {16, {1, 4, 16}}, {17, {1, 17, 17}},
            {33, {3, 11, 33}}};
    const unsigned G = dnnl_use_global_stats, S = dnnl_use_scale, H = dnnl_use_shift;
    const unsigned flag_sets[] = {0, S, H, S | H, G, G | S | H};
    int vec_cases = 0, idx = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (const auto &c : cg)
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (unsigned flags : flag_sets) {
                ++idx;
                const dnnl_dim_t groups = c.groups[idx % 3];
                const auto prop = idx % 2 ? dnnl_forward_training : dnnl_forward_inference;
                dnnl_dims_t dims = {sh.n, c.c};
                for (int i = 2; i < sh.nd; ++i) dims[i] = sh.sp[i - 2];
                dnnl_memory_desc_t smd, dmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, sh.nd, dims, dt, sh.tag));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, sh.nd, dims, dt, dnnl_format_tag_any));
                kt::md_t hs(smd), hd(dmd);
                // Post-ops on some cases: relu, then add a src1 broadcast over
                // the spatial dims (per (n, c) values).
                const bool with_po = idx % 3 == 1;
                dnnl_primitive_attr_t attr = nullptr;
                dnnl_post_ops_t po = nullptr;
                dnnl_dims_t bdims = {dims[0], dims[1], 1, 1, 1};
                dnnl_memory_desc_t bmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&bmd, sh.nd, bdims, dnnl_f32, dnnl_format_tag_any));
                kt::md_t hb(bmd);
                if (with_po) {
                    KT_OK(dnnl_post_ops_create(&po));
                    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
                    KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
                    KT_OK(dnnl_primitive_attr_create(&attr));
                    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
                }
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_group_normalization_forward_primitive_desc_create(
                            pd, env.eng, prop, smd, dmd, groups, 1.f, flags, attr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 3 + idx);
                    if (flags & S) in[DNNL_ARG_SCALE] = kt::random_for(pd, DNNL_ARG_SCALE, 5, 0.5f, 2.f);
                    if (flags & H) in[DNNL_ARG_SHIFT] = kt::random_for(pd, DNNL_ARG_SHIFT, 6);
                    if (flags & G) {
                        in[DNNL_ARG_MEAN] = kt::random_for(pd, DNNL_ARG_MEAN, 8, -0.5f, 0.5f);
                        in[DNNL_ARG_VARIANCE] = kt::random_for(pd, DNNL_ARG_VARIANCE, 9, 0.5f, 2.f);
                    }
                    if (with_po) {
                        const int a = DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1;
                        in[a] = kt::random_for(pd, a, 11);
                    }
                    return in;
                };
                const bool stats_out = prop == dnnl_forward_training && !(flags & G);
                std::vector<int> outs = {DNNL_ARG_DST};
                if (stats_out) {
                    outs.push_back(DNNL_ARG_MEAN);
                    outs.push_back(DNNL_ARG_VARIANCE);
                }
                auto runs = kt::run_all(env, make, gen, outs);
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "gnorm nd=%d tag=%d C=%d G=%d dt=%d flags=%u prop=%d po=%d nthr=%d",
                        sh.nd, (int)sh.tag, c.c, (int)groups, (int)dt, flags, (int)prop, (int)with_po, nthr);
                t.check(ref.name == "ref:any", what);
                // (With one channel the odd layout coincides with ncsp.)
                t.check(runs.size() == (sh.fast || c.c == 1 ? 2u : 1u), what);
                // Statistics over K = (C/G) * SP values |x| <= 2 summed in
                // different orders: each sum is off by <= K*u*sum|x| (<= 2K),
                // so the means differ by <= 4(K+1)u; squared deviations are
                // <= 16, so the variances differ by <= 32(K+1)u. With eps = 1
                // the factor a = scale/sqrt(var + 1) is <= 2 and moves by
                // <= var's change, so dst = (x - mean) * a + shift
                // (|x - mean| <= 4) moves by <= 2 dmean + 4 dvar, plus a few
                // roundings (FMA or not) of |dst| <= 10; relu and the exact
                // add of src1 (|src1| <= 2) keep the bound. bf16 dst adds one
                // possible rounding flip, 2^-7 relative.
                dnnl_dim_t K = c.c / groups;
                for (int i = 2; i < sh.nd; ++i) K *= dims[i];
                const double u = 0x1p-24, stat_tol = 32.0 * (double)(K + 1) * u;
                const double dst_tol = 6 * stat_tol + 120 * u;
                for (size_t i = 0; i + 1 < runs.size(); ++i) {
                    ++vec_cases;
                    const double rt = dt == dnnl_bf16 ? 0x1p-7 : 0;
                    t.check(kt::close(runs[i].outs[DNNL_ARG_DST], ref.outs.at(DNNL_ARG_DST), rt, dst_tol, what), what);
                    for (int a : outs)
                        if (a != DNNL_ARG_DST)
                            t.check(kt::close(runs[i].outs[a], ref.outs.at(a), 0, stat_tol, what), what);
                }
                if (attr) dnnl_primitive_attr_destroy(attr);
                if (po) dnnl_post_ops_destroy(po);
            }
        });
    t.check(vec_cases > 1000, "optimized implementation was exercised");

    // Hand-checked, N = 1, C = 4, G = 2, W = 2: group 0 holds 1, 2, 3, 6
    // (mean 3, variance (4 + 1 + 0 + 9) / 4 = 3.5); group 1 is constant 7
    // (variance 0, dst = shift).
    for (auto tag : {dnnl_abc, dnnl_acb, dnnl_aBc16b}) {
        kt::md_t md(kt::make_md({1, 4, 2}, dnnl_f32, tag));
        dnnl_primitive_desc_t pd;
        const unsigned flags = dnnl_use_scale | dnnl_use_shift;
        KT_OK(dnnl_group_normalization_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_training, md, md, 2, 0.5f, flags, nullptr));
        do {
            const std::vector<float> x = {1, 2, 3, 6, 7, 7, 7, 7}; // logical (c, w) order
            const std::vector<float> sc = {1, 2, 3, 4}, sf = {0, 1, 2, 3};
            auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, x}, {DNNL_ARG_SCALE, sc}, {DNNL_ARG_SHIFT, sf}},
                    {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            bool ok = r[DNNL_ARG_MEAN][0] == 3.f && r[DNNL_ARG_VARIANCE][0] == 3.5f && r[DNNL_ARG_MEAN][1] == 7.f
                    && r[DNNL_ARG_VARIANCE][1] == 0.f;
            for (int i = 0; i < 8; ++i) {
                const int c = i / 2;
                const double m = c < 2 ? 3 : 7, v = c < 2 ? 3.5 : 0;
                const double want = (x[(size_t)i] - m) * sc[(size_t)c] / std::sqrt(v + 0.5) + sf[(size_t)c];
                ok = ok && std::fabs(r[DNNL_ARG_DST][(size_t)i] - want) <= 4e-7 * (1 + std::fabs(want));
            }
            t.check(ok, ("hand-checked gnorm, " + kt::impl_name(pd)).c_str());
        } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        unsigned f = 99;
        float e = 0;
        dnnl_dim_t g = 0;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_flags, 0, &f));
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_epsilon_f32, 0, &e));
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_group_size_s64, 0, &g));
        t.check(f == flags && e == 0.5f && g == 2, "gnorm queries");
        dnnl_primitive_desc_destroy(pd);
    }

    // Stability: a constant group has variance exactly 0; a large offset
    // (1e4 + U[-1,1]) keeps the variance to 1e-3 relative (two-pass; a
    // one-pass E[x^2] - E[x]^2 would lose it all).
    for (auto tag : {dnnl_abcd, dnnl_acdb}) {
        const dnnl_dim_t N = 2, C = 6, Gs = 2, HW = 35;
        kt::md_t md(kt::make_md({N, C, 5, 7}, dnnl_f32, tag));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_group_normalization_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_training, md, md, Gs, 0.f, 0, nullptr));
        do {
            kt::values_t in;
            in[DNNL_ARG_SRC] = std::vector<float>((size_t)(N * C * HW), 5.f);
            auto r = kt::exec_pd(env, pd, in, {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            bool ok = true;
            for (int i = 0; i < N * Gs; ++i) ok = ok && r[DNNL_ARG_VARIANCE][i] == 0.f && r[DNNL_ARG_MEAN][i] == 5.f;
            t.check(ok, ("gnorm constant input: variance 0, " + kt::impl_name(pd)).c_str());
            std::vector<float> x((size_t)(N * C * HW));
            kt::fill(x, 42, -1.f, 1.f);
            for (auto &v : x) v += 1e4f;
            in[DNNL_ARG_SRC] = x;
            r = kt::exec_pd(env, pd, in, {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            const dnnl_dim_t K = C / Gs * HW;
            for (int i = 0; i < N * Gs; ++i) {
                double m = 0, q = 0;
                for (dnnl_dim_t k = 0; k < K; ++k) m += x[(size_t)(i * K + k)];
                m /= (double)K;
                for (dnnl_dim_t k = 0; k < K; ++k) q += (x[(size_t)(i * K + k)] - m) * (x[(size_t)(i * K + k)] - m);
                q /= (double)K;
                ok = ok && std::fabs(r[DNNL_ARG_VARIANCE][i] - q) <= 1e-3 * q;
            }
            t.check(ok, ("gnorm large offset: accurate variance, " + kt::impl_name(pd)).c_str());
        } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        dnnl_primitive_desc_destroy(pd);
    }

    // Bad input.
    {
        kt::md_t smd(kt::make_md({2, 6, 4}, dnnl_f32, dnnl_abc));
        kt::md_t bad(kt::make_md({2, 6, 5}, dnnl_f32, dnnl_abc));
        kt::md_t s8(kt::make_md({2, 6, 4}, dnnl_s8, dnnl_abc));
        kt::md_t one(kt::make_md({6}, dnnl_f32, dnnl_a));
        dnnl_primitive_desc_t pd = nullptr;
        auto mk = [&](dnnl_primitive_desc_t *o, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t s,
                          const_dnnl_memory_desc_t d, dnnl_dim_t groups, unsigned flags,
                          const_dnnl_primitive_attr_t attr = nullptr) {
            return dnnl_group_normalization_forward_primitive_desc_create(o, env.eng, prop, s, d, groups, 1e-5f,
                    flags, attr);
        };
        const auto fwd = dnnl_forward_training;
        t.check(mk(nullptr, fwd, smd, smd, 2, 0) == dnnl_invalid_arguments, "gnorm null pd");
        t.check(mk(&pd, fwd, smd, nullptr, 2, 0) == dnnl_invalid_arguments, "gnorm null dst");
        t.check(mk(&pd, fwd, nullptr, smd, 2, 0) == dnnl_invalid_arguments, "gnorm null src");
        t.check(mk(&pd, fwd, smd, bad, 2, 0) == dnnl_invalid_arguments, "gnorm mismatched dims");
        t.check(mk(&pd, fwd, smd, smd, 4, 0) == dnnl_invalid_arguments, "gnorm groups do not divide C");
        t.check(mk(&pd, fwd, smd, smd, 0, 0) == dnnl_invalid_arguments, "gnorm zero groups");
        t.check(mk(&pd, dnnl_backward, smd, smd, 2, 0) == dnnl_invalid_arguments, "gnorm bad prop");
        t.check(mk(&pd, fwd, smd, smd, 2, dnnl_fuse_norm_relu) == dnnl_invalid_arguments, "gnorm bad flags");
        t.check(mk(&pd, fwd, one, one, 2, 0) == dnnl_invalid_arguments, "gnorm 1D");
        t.check(mk(&pd, fwd, s8, s8, 2, 0) == dnnl_unimplemented, "gnorm s8");
        {
            dnnl_primitive_attr_t attr;
            dnnl_post_ops_t po;
            KT_OK(dnnl_post_ops_create(&po));
            KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
            KT_OK(dnnl_primitive_attr_create(&attr));
            KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
            t.check(mk(&pd, fwd, smd, smd, 2, 0, attr) == dnnl_unimplemented, "gnorm sum post-op");
            dnnl_post_ops_destroy(po);
            dnnl_primitive_attr_destroy(attr);
        }
        KT_OK(mk(&pd, fwd, smd, smd, 2, dnnl_use_global_stats));
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> buf(48);
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, smd, env.eng, buf.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}};
        t.check(dnnl_primitive_execute(p, env.strm, 2, args) == dnnl_invalid_arguments, "gnorm missing mean");
        dnnl_memory_destroy(m);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }

    // Primitive cache: the op desc is serialised, so an equal descriptor
    // shares the implementation (a hit) and another parameter misses.
    {
        kt::md_t md(kt::make_md({2, 4, 6}, dnnl_f32, dnnl_abc));
        auto hit = [&](float param) {
            const uint64_t hits = kestrel::primitive_cache_stats().hits;
            dnnl_primitive_desc_t pd;
            dnnl_primitive_t p;
            KT_OK(dnnl_group_normalization_forward_primitive_desc_create(
                    &pd, env.eng, dnnl_forward_inference, md, md, 2, param, 0, nullptr));
            KT_OK(dnnl_primitive_create(&p, pd));
            dnnl_primitive_destroy(p);
            dnnl_primitive_desc_destroy(pd);
            return kestrel::primitive_cache_stats().hits == hits + 1;
        };
        kestrel::primitive_cache_clear();
        const bool first = hit(2.f), second = hit(2.f), other = hit(3.f);
        t.check(!first && second && !other, "gnorm primitive cache");
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc md({2, 4, 3, 2}, memory::data_type::f32, memory::format_tag::nchw);
        auto pd = group_normalization_forward::primitive_desc(eng, prop_kind::forward_training, md, md, 2, 1e-5f,
                normalization_flags::use_scale | normalization_flags::use_shift);
        memory::desc stat({2, 2}, memory::data_type::f32, memory::format_tag::ab);
        t.check(pd.mean_desc() == stat && pd.variance_desc() == stat, "hpp gnorm stat desc");
        t.check(pd.get_group_size() == 2 && pd.get_epsilon() == 1e-5f, "hpp gnorm queries");
        t.check(pd.get_flags() == (normalization_flags::use_scale | normalization_flags::use_shift), "hpp flags");
        memory src(md, eng), dst(md, eng), mean(stat, eng), var(stat, eng);
        memory sc(pd.weights_desc(), eng), sh(pd.query_md(query::exec_arg_md, DNNL_ARG_SHIFT), eng);
        float *p = static_cast<float *>(src.get_data_handle());
        for (int i = 0; i < 48; ++i) p[i] = (float)(i % 2); // every group: half 0, half 1
        for (int c = 0; c < 4; ++c) {
            static_cast<float *>(sc.get_data_handle())[c] = 2.f;
            static_cast<float *>(sh.get_data_handle())[c] = 1.f;
        }
        group_normalization_forward(pd).execute(strm,
                {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var},
                        {DNNL_ARG_SCALE, sc}, {DNNL_ARG_SHIFT, sh}});
        strm.wait();
        const float *m = static_cast<const float *>(mean.get_data_handle());
        const float *v = static_cast<const float *>(var.get_data_handle());
        t.check(m[0] == 0.5f && v[3] == 0.25f, "hpp gnorm stats");
        const float *d = static_cast<const float *>(dst.get_data_handle());
        t.check(std::fabs(d[0] - (1.f - 2.f * 0.5f / std::sqrt(0.25f + 1e-5f))) < 1e-6f, "hpp gnorm dst");
    }
    return t.finish();
}
