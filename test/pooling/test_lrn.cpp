// LRN forward: the optimized implementation against the reference over
// ranks 2..5, layouts (ncsp, nspc, nCsp8c/16c, one only the reference
// serves), channel tails, both algorithms, odd and even window sizes, the
// vectorised beta = 0.75 and a generic beta, f32/bf16, both props (with the
// workspace) and 1/2 threads; hand-checked values; bad input; dnnl.hpp.
#include "dnnl.hpp"
#include "core/primitive_cache.hpp"
#include "pooling/harness.hpp"

namespace {

struct shape_t {
    int nd;
    dnnl_dim_t n, sp[3];
    dnnl_format_tag_t tag;
    bool fast;
};

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    const shape_t shapes[] = {
            {2, 2, {}, dnnl_ab, true},
            {3, 2, {7}, dnnl_abc, true},
            {3, 1, {5}, dnnl_acb, true},
            {4, 2, {3, 5}, dnnl_abcd, true},
            {4, 1, {4, 3}, dnnl_acdb, true},
            {4, 2, {3, 2}, dnnl_aBcd16b, true},
            {4, 1, {2, 3}, dnnl_aBcd8b, true},
            {5, 1, {3, 2, 3}, dnnl_abcde, true},
            {5, 2, {2, 3, 2}, dnnl_acdeb, true},
            {5, 1, {2, 2, 3}, dnnl_aBcde16b, true},
            {4, 2, {3, 2}, dnnl_bacd, false},
    };
    const int Cs[] = {1, 3, 15, 16, 17, 33};
    const dnnl_dim_t sizes[] = {1, 2, 3, 5};
    int vec_cases = 0, idx = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (int C : Cs)
            for (auto alg : {dnnl_lrn_across_channels, dnnl_lrn_within_channel})
            for (dnnl_dim_t ls : sizes)
            for (auto dt : {dnnl_f32, dnnl_bf16}) {
                ++idx;
                const auto prop = idx % 2 ? dnnl_forward_training : dnnl_forward_inference;
                const float beta = idx % 3 ? 0.75f : 0.6f, alpha = 1e-1f * (float)(1 + idx % 4), k = 1.f + (idx % 2);
                dnnl_dims_t dims = {sh.n, C};
                for (int i = 2; i < sh.nd; ++i) dims[i] = sh.sp[i - 2];
                dnnl_memory_desc_t smd, dmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, sh.nd, dims, dt, sh.tag));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, sh.nd, dims, dt, dnnl_format_tag_any));
                kt::md_t hs(smd), hd(dmd);
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_lrn_forward_primitive_desc_create(
                            pd, env.eng, prop, alg, smd, dmd, ls, alpha, beta, k, nullptr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 3 + idx);
                    return in;
                };
                std::vector<int> outs = {DNNL_ARG_DST};
                if (prop == dnnl_forward_training) outs.push_back(DNNL_ARG_WORKSPACE);
                auto runs = kt::run_all(env, make, gen, outs);
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "lrn nd=%d tag=%d C=%d alg=%d size=%d beta=%g dt=%d prop=%d nthr=%d",
                        sh.nd, (int)sh.tag, C, (int)alg, (int)ls, beta, (int)dt, (int)prop, nthr);
                t.check(ref.name == "ref:any", what);
                // (With one channel the odd layout coincides with ncsp.)
                t.check(runs.size() == (sh.fast || C == 1 ? 2u : 1u), what);
                // Exact: both implementations add the same squares in the
                // same order (the optimized one adds exact zeros outside the
                // tensor), then apply the same correctly rounded operations
                // (mul, add, div, sqrt; pow through the same libm call).
                for (size_t i = 0; i + 1 < runs.size(); ++i) {
                    ++vec_cases;
                    for (int a : outs) t.check(kt::close(runs[i].outs[a], ref.outs.at(a), 0, 0, what), what);
                }
            }
        });
    t.check(vec_cases > 500, "optimized implementation was exercised");

    // Hand-checked: values 1, 2, 3 along channels (across) or along W
    // (within, 1D), size 3, alpha 3 (alpha / n = 1), k = 1:
    // window sums 5, 14, 13 -> bases 6, 15, 14.
    {
        const float x[3] = {1, 2, 3}, base[3] = {6, 15, 14};
        for (auto alg : {dnnl_lrn_across_channels, dnnl_lrn_within_channel})
            for (float beta : {1.f, 0.75f}) {
                const bool across = alg == dnnl_lrn_across_channels;
                kt::md_t md(across ? kt::make_md({1, 3, 1}, dnnl_f32, dnnl_abc)
                                   : kt::make_md({1, 1, 3}, dnnl_f32, dnnl_abc));
                dnnl_primitive_desc_t pd;
                KT_OK(dnnl_lrn_forward_primitive_desc_create(
                        &pd, env.eng, dnnl_forward_training, alg, md, md, 3, 3.f, beta, 1.f, nullptr));
                do {
                    auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, {1, 2, 3}}}, {DNNL_ARG_DST, DNNL_ARG_WORKSPACE});
                    bool ok = true;
                    for (int i = 0; i < 3; ++i) {
                        const double want = x[i] * std::pow((double)base[i], -(double)beta);
                        ok = ok && r[DNNL_ARG_WORKSPACE][(size_t)i] == base[i]
                                && std::fabs(r[DNNL_ARG_DST][(size_t)i] - want) <= 4e-7 * std::fabs(want);
                    }
                    t.check(ok, ("hand-checked lrn, " + kt::impl_name(pd)).c_str());
                } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
                dnnl_alg_kind_t a;
                float al, be, kk;
                dnnl_dim_t ls;
                KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &a));
                KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alpha_f32, 0, &al));
                KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_beta_f32, 0, &be));
                KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_k_f32, 0, &kk));
                KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_local_size_s64, 0, &ls));
                t.check(a == alg && al == 3.f && be == beta && kk == 1.f && ls == 3, "lrn queries");
                dnnl_primitive_desc_destroy(pd);
            }
        // Within channel in 2D divides alpha by size^2: a 3x3 plane of ones,
        // size 3, alpha 9, k 0: the centre's base is 9 * 9 / 9 = 9, a corner's
        // 9 * 4 / 9 = 4.
        kt::md_t md(kt::make_md({1, 1, 3, 3}, dnnl_f32, dnnl_abcd));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_lrn_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                dnnl_lrn_within_channel, md, md, 3, 9.f, 1.f, 0.f, nullptr));
        do {
            auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, std::vector<float>(9, 1.f)}}, {DNNL_ARG_DST, DNNL_ARG_WORKSPACE});
            t.check(r[DNNL_ARG_WORKSPACE][4] == 9.f && r[DNNL_ARG_WORKSPACE][0] == 4.f && r[DNNL_ARG_DST][0] == 0.25f,
                    ("lrn within 2D divides by size^2, " + kt::impl_name(pd)).c_str());
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
        const auto fwd = dnnl_forward_training;
        const auto acr = dnnl_lrn_across_channels;
        auto mk = [&](dnnl_primitive_desc_t *o, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
                          const_dnnl_memory_desc_t s, const_dnnl_memory_desc_t d, dnnl_dim_t ls,
                          const_dnnl_primitive_attr_t attr = nullptr) {
            return dnnl_lrn_forward_primitive_desc_create(o, env.eng, prop, alg, s, d, ls, 1e-4f, 0.75f, 1.f, attr);
        };
        t.check(mk(nullptr, fwd, acr, smd, smd, 5) == dnnl_invalid_arguments, "lrn null pd");
        t.check(mk(&pd, fwd, acr, nullptr, smd, 5) == dnnl_invalid_arguments, "lrn null src");
        t.check(mk(&pd, fwd, acr, smd, nullptr, 5) == dnnl_invalid_arguments, "lrn null dst");
        t.check(mk(&pd, fwd, acr, smd, bad, 5) == dnnl_invalid_arguments, "lrn mismatched dims");
        t.check(mk(&pd, fwd, acr, smd, smd, -1) == dnnl_invalid_arguments, "lrn negative local size");
        // oneDNN accepts local_size 0 (the window is the point itself and
        // alpha is divided by 0, as its formula says).
        t.check(mk(&pd, fwd, acr, smd, smd, 0) == dnnl_success, "lrn local size 0 accepted");
        dnnl_primitive_desc_destroy(pd);
        {
            kt::md_t six(kt::make_md({1, 2, 1, 1, 1, 2}, dnnl_f32, dnnl_abcdef));
            t.check(mk(&pd, fwd, acr, six, six, 3) == dnnl_unimplemented, "lrn 6D");
        }
        t.check(mk(&pd, fwd, dnnl_pooling_max, smd, smd, 5) == dnnl_invalid_arguments, "lrn bad alg");
        t.check(mk(&pd, dnnl_backward_data, acr, smd, smd, 5) == dnnl_invalid_arguments, "lrn bad prop");
        t.check(mk(&pd, fwd, acr, one, one, 5) == dnnl_invalid_arguments, "lrn 1D");
        t.check(mk(&pd, fwd, acr, s8, s8, 5) == dnnl_unimplemented, "lrn s8");
        {
            dnnl_primitive_attr_t attr;
            dnnl_post_ops_t po;
            KT_OK(dnnl_post_ops_create(&po));
            KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
            KT_OK(dnnl_primitive_attr_create(&attr));
            KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
            t.check(mk(&pd, fwd, acr, smd, smd, 5, attr) == dnnl_unimplemented, "lrn takes no post-ops");
            dnnl_post_ops_destroy(po);
            dnnl_primitive_attr_destroy(attr);
        }
        KT_OK(mk(&pd, dnnl_forward_inference, acr, smd, smd, 5));
        t.check(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0)) == 0,
                "lrn inference has no workspace");
        dnnl_primitive_desc_destroy(pd);
        KT_OK(mk(&pd, fwd, acr, smd, smd, 5));
        t.check(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0)) == 48 * 4,
                "lrn training workspace");
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> buf(48);
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, smd, env.eng, buf.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}};
        t.check(dnnl_primitive_execute(p, env.strm, 2, args) == dnnl_invalid_arguments, "lrn missing workspace");
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
            KT_OK(dnnl_lrn_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_inference,
                    dnnl_lrn_across_channels, md, md, 5, param, 0.75f, 1.f, nullptr));
            KT_OK(dnnl_primitive_create(&p, pd));
            dnnl_primitive_destroy(p);
            dnnl_primitive_desc_destroy(pd);
            return kestrel::primitive_cache_stats().hits == hits + 1;
        };
        kestrel::primitive_cache_clear();
        const bool first = hit(2.f), second = hit(2.f), other = hit(3.f);
        t.check(!first && second && !other, "lrn primitive cache");
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc md({1, 3, 1, 1}, memory::data_type::f32, memory::format_tag::nhwc);
        auto pd = lrn_forward::primitive_desc(
                eng, prop_kind::forward_training, algorithm::lrn_across_channels, md, md, 3, 3.f, 1.f, 1.f);
        t.check(pd.get_local_size() == 3 && pd.get_alpha() == 3.f && pd.get_beta() == 1.f && pd.get_k() == 1.f
                        && pd.get_algorithm() == algorithm::lrn_across_channels,
                "hpp lrn queries");
        memory src(md, eng), dst(md, eng), ws(pd.workspace_desc(), eng);
        float *p = static_cast<float *>(src.get_data_handle());
        p[0] = 1, p[1] = 2, p[2] = 3;
        lrn_forward(pd).execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
        strm.wait();
        const float *d = static_cast<const float *>(dst.get_data_handle());
        t.check(std::fabs(d[1] - 2.f / 15.f) < 1e-7f, "hpp lrn dst");
    }
    return t.finish();
}
