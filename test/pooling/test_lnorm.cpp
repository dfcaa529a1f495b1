// Layer normalization forward: the optimized implementation against the
// reference over ranks 2..5, layouts (dense last dim or not), tails of the
// normalized dim, every flag (incl. RMS), props, f32/bf16 data, f32/bf16
// scale and shift, post-ops and 1/2 threads; numerical stability; bad
// input; dnnl.hpp.
#include "dnnl.hpp"
#include "pooling/harness.hpp"

namespace {

struct shape_t {
    int nd;
    dnnl_dim_t lead[4]; // all dims but the last
    dnnl_format_tag_t tag, stat_tag;
    bool dense_last; // the fast implementation applies
};

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    const shape_t shapes[] = {
            {2, {3}, dnnl_ab, dnnl_a, true},
            {3, {2, 3}, dnnl_abc, dnnl_ab, true},
            {3, {2, 3}, dnnl_bac, dnnl_ba, true},
            {3, {2, 3}, dnnl_acb, dnnl_ab, false},
            {4, {2, 2, 3}, dnnl_abcd, dnnl_abc, true},
            {5, {1, 2, 2, 2}, dnnl_abcde, dnnl_abcd, true},
    };
    const int Cs[] = {1, 3, 15, 16, 17, 33, 100};
    const unsigned G = dnnl_use_global_stats, S = dnnl_use_scale, H = dnnl_use_shift, R = dnnl_rms_norm;
    const unsigned flag_sets[] = {0, S, H, S | H, G, G | S | H, R, R | S, R | G, R | G | S | H};
    int vec_cases = 0, idx = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (int C : Cs)
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (unsigned flags : flag_sets)
            for (auto prop : {dnnl_forward_training, dnnl_forward_inference}) {
                ++idx;
                const dnnl_data_type_t ss_dt = idx % 3 == 0 ? dnnl_bf16 : dnnl_f32;
                dnnl_dims_t dims = {};
                for (int i = 0; i < sh.nd - 1; ++i) dims[i] = sh.lead[i];
                dims[sh.nd - 1] = C;
                dnnl_memory_desc_t smd, dmd, stmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, sh.nd, dims, dt, sh.tag));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, sh.nd, dims, dt, dnnl_format_tag_any));
                KT_OK(dnnl_memory_desc_create_with_tag(&stmd, sh.nd - 1, dims, dnnl_f32, sh.stat_tag));
                kt::md_t hs(smd), hd(dmd), hst(stmd);
                // Post-ops on some cases: relu, then add a src1 broadcast
                // over the last dim, then sum onto the (zeroed) old dst.
                const bool with_po = idx % 4 == 1;
                dnnl_primitive_attr_t attr = nullptr;
                dnnl_post_ops_t po = nullptr;
                dnnl_dims_t bdims = {};
                for (int i = 0; i < sh.nd; ++i) bdims[i] = i == sh.nd - 1 ? 1 : dims[i];
                dnnl_memory_desc_t bmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&bmd, sh.nd, bdims, dnnl_f32, dnnl_format_tag_any));
                kt::md_t hb(bmd);
                if (with_po) {
                    KT_OK(dnnl_post_ops_create(&po));
                    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
                    KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
                    KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
                    KT_OK(dnnl_primitive_attr_create(&attr));
                    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
                }
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_layer_normalization_forward_primitive_desc_create_v2(
                            pd, env.eng, prop, smd, dmd, stmd, ss_dt, 1.f, flags, attr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 3 + idx);
                    if (flags & S) in[DNNL_ARG_SCALE] = kt::random_for(pd, DNNL_ARG_SCALE, 5, 0.5f, 2.f);
                    if (flags & H) in[DNNL_ARG_SHIFT] = kt::random_for(pd, DNNL_ARG_SHIFT, 6);
                    if (flags & G) {
                        if (!(flags & R)) in[DNNL_ARG_MEAN] = kt::random_for(pd, DNNL_ARG_MEAN, 8, -0.5f, 0.5f);
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
                    if (!(flags & R)) outs.push_back(DNNL_ARG_MEAN);
                    outs.push_back(DNNL_ARG_VARIANCE);
                }
                auto runs = kt::run_all(env, make, gen, outs);
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "lnorm nd=%d tag=%d C=%d dt=%d flags=%u prop=%d po=%d nthr=%d",
                        sh.nd, (int)sh.tag, C, (int)dt, flags, (int)prop, (int)with_po, nthr);
                t.check(ref.name == "ref:any", what);
                t.check(runs.size() == (sh.dense_last ? 2u : 1u), what);
                // Statistics over C values |x| <= 2 in different orders:
                // each sum is off by <= C*u*sum|x| (<= 2C), so the means
                // differ by <= 4(C+1)u; squared deviations are <= 16, so the
                // variances differ by <= 32(C+1)u. With eps = 1 the factor
                // a = scale/sqrt(var + 1) is <= 2 and moves by <= var's
                // change, so dst = (x - mean) * a + shift (|x - mean| <= 4)
                // moves by <= 2 dmean + 4 dvar, plus a few roundings of
                // |dst| <= 10 (and the post-ops add <= 2 more, exactly).
                // bf16 dst adds one possible rounding flip, 2^-7 relative.
                const double u = 0x1p-24, stat_tol = 32.0 * (C + 1) * u;
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

    // Hand-checked: rows [1, 2, 3, 6] -> mean 3, variance 3.5; RMS variance
    // (1 + 4 + 9 + 36) / 4 = 12.5.
    {
        kt::md_t md(kt::make_md({1, 4}, dnnl_f32, dnnl_ab));
        for (unsigned flags : {0u, (unsigned)dnnl_rms_norm}) {
            dnnl_primitive_desc_t pd;
            KT_OK(dnnl_layer_normalization_forward_primitive_desc_create(
                    &pd, env.eng, dnnl_forward_training, md, md, nullptr, 0.5f, flags, nullptr));
            do {
                std::vector<int> outs = {DNNL_ARG_DST, DNNL_ARG_VARIANCE};
                if (!flags) outs.push_back(DNNL_ARG_MEAN);
                auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, {1, 2, 3, 6}}}, outs);
                const float m = flags ? 0.f : 3.f, v = flags ? 12.5f : 3.5f;
                bool ok = r[DNNL_ARG_VARIANCE][0] == v && (flags || r[DNNL_ARG_MEAN][0] == m);
                for (int c = 0; c < 4; ++c) {
                    const float want = (float)(((double)"\1\2\3\6"[c] - m) / std::sqrt((double)v + 0.5));
                    ok = ok && std::fabs(r[DNNL_ARG_DST][(size_t)c] - want) <= 4e-7f * (1 + std::fabs(want));
                }
                t.check(ok, ("hand-checked lnorm, " + kt::impl_name(pd)).c_str());
            } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
            unsigned f = 99;
            float e = 0;
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_flags, 0, &f));
            KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_epsilon_f32, 0, &e));
            t.check(f == flags && e == 0.5f, "lnorm queries");
            // As oneDNN: exec_arg_md(MEAN) is the statistics descriptor (what
            // mean_desc() reports) with RMS too; the primitive never reads
            // or writes it then.
            t.check(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_MEAN))
                            == 4u,
                    "exec_arg_md(MEAN) is the statistics descriptor, RMS too");
            dnnl_primitive_desc_destroy(pd);
        }
    }

    // Stability: a constant row has variance exactly 0; a large offset
    // (1e4 + U[-1,1]) keeps the variance to 1e-3 relative (two-pass).
    {
        const dnnl_dim_t N = 5, C = 67;
        kt::md_t md(kt::make_md({N, C}, dnnl_f32, dnnl_ab));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_layer_normalization_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_training, md, md, nullptr, 0.f, 0, nullptr));
        do {
            kt::values_t in;
            in[DNNL_ARG_SRC] = std::vector<float>((size_t)(N * C), 5.f);
            auto r = kt::exec_pd(env, pd, in, {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            bool ok = true;
            for (int n = 0; n < N; ++n) ok = ok && r[DNNL_ARG_VARIANCE][n] == 0.f && r[DNNL_ARG_MEAN][n] == 5.f;
            t.check(ok, "lnorm constant input: variance 0");
            std::vector<float> x((size_t)(N * C));
            kt::fill(x, 42, -1.f, 1.f);
            for (auto &v : x) v += 1e4f;
            in[DNNL_ARG_SRC] = x;
            r = kt::exec_pd(env, pd, in, {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            for (int n = 0; n < N; ++n) {
                double m = 0, q = 0;
                for (int c = 0; c < C; ++c) m += x[(size_t)(n * C + c)];
                m /= C;
                for (int c = 0; c < C; ++c) q += (x[(size_t)(n * C + c)] - m) * (x[(size_t)(n * C + c)] - m);
                q /= C;
                ok = ok && std::fabs(r[DNNL_ARG_VARIANCE][n] - q) <= 1e-3 * q;
            }
            t.check(ok, ("lnorm large offset: accurate variance, " + kt::impl_name(pd)).c_str());
        } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        dnnl_primitive_desc_destroy(pd);
    }

    // Bad input.
    {
        kt::md_t smd(kt::make_md({2, 3, 4}, dnnl_f32, dnnl_abc));
        kt::md_t bad(kt::make_md({2, 3, 5}, dnnl_f32, dnnl_abc));
        kt::md_t st_bad(kt::make_md({2, 4}, dnnl_f32, dnnl_ab));
        kt::md_t s8(kt::make_md({2, 3, 4}, dnnl_s32, dnnl_abc)); // no s32 layer norm in oneDNN
        kt::md_t one(kt::make_md({4}, dnnl_f32, dnnl_a));
        dnnl_primitive_desc_t pd = nullptr;
        auto mk = [&](dnnl_primitive_desc_t *o, dnnl_prop_kind_t prop, const_dnnl_memory_desc_t s,
                          const_dnnl_memory_desc_t d, const_dnnl_memory_desc_t st, unsigned flags) {
            return dnnl_layer_normalization_forward_primitive_desc_create(o, env.eng, prop, s, d, st, 1e-5f,
                    flags, nullptr);
        };
        const auto fwd = dnnl_forward_training;
        t.check(mk(nullptr, fwd, smd, smd, nullptr, 0) == dnnl_invalid_arguments, "lnorm null pd");
        t.check(mk(&pd, fwd, smd, nullptr, nullptr, 0) == dnnl_invalid_arguments, "lnorm null dst");
        t.check(mk(&pd, fwd, smd, bad, nullptr, 0) == dnnl_invalid_arguments, "lnorm mismatched dims");
        t.check(mk(&pd, fwd, smd, smd, st_bad, 0) == dnnl_invalid_arguments, "lnorm bad stat dims");
        t.check(mk(&pd, dnnl_backward, smd, smd, nullptr, 0) == dnnl_invalid_arguments, "lnorm bad prop");
        t.check(mk(&pd, fwd, smd, smd, nullptr, dnnl_fuse_norm_relu) == dnnl_invalid_arguments, "lnorm bad flags");
        t.check(mk(&pd, fwd, one, one, nullptr, 0) == dnnl_invalid_arguments, "lnorm 1D");
        t.check(mk(&pd, fwd, s8, s8, nullptr, 0) == dnnl_unimplemented, "lnorm s32");
        KT_OK(mk(&pd, fwd, smd, smd, nullptr, 0));
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> buf(24);
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, smd, env.eng, buf.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}};
        t.check(dnnl_primitive_execute(p, env.strm, 2, args) == dnnl_invalid_arguments, "lnorm missing mean");
        dnnl_memory_destroy(m);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc md({2, 3, 8}, memory::data_type::f32, memory::format_tag::tnc);
        memory::desc stat({2, 3}, memory::data_type::f32, memory::format_tag::ab);
        auto pd = layer_normalization_forward::primitive_desc(eng, prop_kind::forward_training, md, md, stat,
                1e-5f, normalization_flags::use_scale | normalization_flags::use_shift);
        t.check(pd.mean_desc() == stat && pd.variance_desc() == stat, "hpp lnorm stat desc");
        t.check(pd.get_flags() == (normalization_flags::use_scale | normalization_flags::use_shift), "hpp flags");
        memory src(md, eng), dst(md, eng), mean(stat, eng), var(stat, eng);
        memory sc(pd.weights_desc(), eng), sh(pd.query_md(query::exec_arg_md, DNNL_ARG_SHIFT), eng);
        float *p = static_cast<float *>(src.get_data_handle());
        for (int i = 0; i < 48; ++i) p[i] = (float)(i % 2); // each row: 0,1,0,1,...
        for (int c = 0; c < 8; ++c) {
            static_cast<float *>(sc.get_data_handle())[c] = 2.f;
            static_cast<float *>(sh.get_data_handle())[c] = 1.f;
        }
        layer_normalization_forward(pd).execute(strm,
                {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var},
                        {DNNL_ARG_SCALE, sc}, {DNNL_ARG_SHIFT, sh}});
        strm.wait();
        const float *m = static_cast<const float *>(mean.get_data_handle());
        const float *v = static_cast<const float *>(var.get_data_handle());
        t.check(m[0] == 0.5f && v[5] == 0.25f, "hpp lnorm stats");
        const float *d = static_cast<const float *>(dst.get_data_handle());
        t.check(std::fabs(d[0] - (1.f - 2.f * 0.5f / std::sqrt(0.25f + 1e-5f))) < 1e-6f, "hpp lnorm dst");
        // bf16 scale/shift through the _v2 constructor.
        auto pd2 = layer_normalization_forward::primitive_desc(eng, prop_kind::forward_inference, md, md,
                memory::data_type::bf16, 1e-5f, normalization_flags::use_scale);
        t.check(pd2.weights_desc().get_data_type() == memory::data_type::bf16, "hpp lnorm bf16 scale");
    }
    return t.finish();
}
