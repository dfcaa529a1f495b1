// Batch normalization forward: optimized implementations against the
// reference over layouts, channel tails, flags, props, f32/bf16 and 1/2
// threads; numerical stability; workspace; bad input; dnnl.hpp.
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

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    struct shape_t {
        int nd;
        dnnl_dim_t mb, sp[3];
    };
    const shape_t shapes[] = {{4, 2, {5, 3}}, {3, 1, {7}}, {5, 2, {2, 3, 3}}, {2, 3, {}}};
    const int Cs[] = {1, 3, 15, 16, 17, 33};
    const unsigned G = dnnl_use_global_stats, S = dnnl_use_scale, H = dnnl_use_shift;
    const unsigned flag_sets[] = {0, S, H, S | H, G, G | S | H, dnnl_fuse_norm_relu,
            S | H | dnnl_fuse_norm_relu, G | dnnl_fuse_norm_relu, dnnl_fuse_norm_add_relu, S | dnnl_fuse_norm_add_relu};
    int vec_cases = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (int C : Cs)
            for (int layout = 0; layout < 4; ++layout)
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (unsigned flags : flag_sets)
            for (auto prop : {dnnl_forward_training, dnnl_forward_inference}) {
                if (sh.nd == 2 && layout != 0) continue;
                dnnl_dims_t dims = {sh.mb, C};
                dnnl_dim_t per_c = sh.mb;
                for (int i = 0; i < sh.nd - 2; ++i) {
                    dims[2 + i] = sh.sp[i];
                    per_c *= sh.sp[i];
                }
                dnnl_memory_desc_t smd, dmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, sh.nd, dims, dt, tag_for(sh.nd, layout)));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, sh.nd, dims, dt, dnnl_format_tag_any));
                kt::md_t hs(smd), hd(dmd);
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_batch_normalization_forward_primitive_desc_create(
                            pd, env.eng, prop, smd, dmd, 1e-3f, flags, nullptr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 3 + C);
                    if (flags & S) in[DNNL_ARG_SCALE] = kt::random_for(pd, DNNL_ARG_SCALE, 5, 0.5f, 2.f);
                    if (flags & H) in[DNNL_ARG_SHIFT] = kt::random_for(pd, DNNL_ARG_SHIFT, 6);
                    if (flags & G) {
                        in[DNNL_ARG_MEAN] = kt::random_for(pd, DNNL_ARG_MEAN, 8, -0.5f, 0.5f);
                        in[DNNL_ARG_VARIANCE] = kt::random_for(pd, DNNL_ARG_VARIANCE, 9, 0.5f, 2.f);
                    }
                    if (flags & dnnl_fuse_norm_add_relu) in[DNNL_ARG_SRC_1] = kt::random_for(pd, DNNL_ARG_SRC_1, 10);
                    return in;
                };
                const bool stats_out = prop == dnnl_forward_training && !(flags & G);
                const bool ws = prop == dnnl_forward_training
                        && (flags & (dnnl_fuse_norm_relu | dnnl_fuse_norm_add_relu));
                std::vector<int> outs = {DNNL_ARG_DST};
                if (stats_out) {
                    outs.push_back(DNNL_ARG_MEAN);
                    outs.push_back(DNNL_ARG_VARIANCE);
                }
                if (ws) outs.push_back(DNNL_ARG_WORKSPACE);
                auto runs = kt::run_all(env, make, gen, outs);
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "bnorm nd=%d C=%d layout=%d dt=%d flags=%u prop=%d nthr=%d", sh.nd,
                        C, layout, (int)dt, flags, (int)prop, nthr);
                t.check(ref.name == "ref:any", what);
                if (!ws && !(flags & dnnl_fuse_norm_add_relu)) t.check(runs.size() >= 2, what);
                // Both compute the statistics in f32 over n = per_c values
                // (|x| <= 2) in different orders: each sum is off by at most
                // n*u*sum|x|, so mean and variance (deviations <= 4, squares
                // <= 16) differ by <= 32*n*u; dst = (x - mean) * a + b with
                // a <= 1/sqrt(eps) carries that through. bf16 dst adds one
                // possible rounding flip, 2^-7 relative.
                const double u = 0x1p-24, stat_tol = 32.0 * (double)per_c * u;
                const double dst_tol = stat_tol * 32 + 8 * u;
                for (size_t i = 0; i + 1 < runs.size(); ++i) {
                    ++vec_cases;
                    double rt = dt == dnnl_bf16 ? 0x1p-7 + dst_tol : dst_tol;
                    t.check(kt::close(runs[i].outs[DNNL_ARG_DST], ref.outs.at(DNNL_ARG_DST), rt, dst_tol, what), what);
                    if (stats_out) {
                        t.check(kt::close(runs[i].outs[DNNL_ARG_MEAN], ref.outs.at(DNNL_ARG_MEAN), 0, stat_tol, what), what);
                        t.check(kt::close(runs[i].outs[DNNL_ARG_VARIANCE], ref.outs.at(DNNL_ARG_VARIANCE), 0, stat_tol,
                                        what),
                                what);
                    }
                }
                if (ws) {
                    // Workspace: 1 exactly where the pre-ReLU result is > 0,
                    // i.e. (without fused add) where the dst is positive.
                    const auto &w = ref.outs.at(DNNL_ARG_WORKSPACE);
                    t.check(w.size() >= (size_t)(per_c * C), what);
                    if (!(flags & dnnl_fuse_norm_add_relu) && layout == 0 && dt == dnnl_f32) {
                        const auto &d = ref.outs.at(DNNL_ARG_DST);
                        bool ok = true;
                        for (size_t l = 0; l < d.size(); ++l) ok = ok && (w[l] == 1.f) == (d[l] > 0.f);
                        t.check(ok, "bnorm ws mask matches dst > 0");
                    }
                }
            }
        });
    t.check(vec_cases > 500, "optimized implementations were exercised");

    // Stability: constant input has variance exactly 0; a large offset
    // (1e4 + U[-1,1]) keeps the variance to 1e-3 relative (two-pass: the
    // error of the mean enters the variance only squared).
    for (int layout = 0; layout < 3; ++layout) {
        const dnnl_dim_t N = 2, C = 17, H = 8, W = 8;
        kt::md_t smd(kt::make_md({N, C, H, W}, dnnl_f32, tag_for(4, layout)));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_batch_normalization_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_training, smd, smd, 0.f, 0, nullptr));
        do {
            kt::values_t in;
            in[DNNL_ARG_SRC] = std::vector<float>((size_t)(N * C * H * W), 5.f);
            auto r = kt::exec_pd(env, pd, in, {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            bool ok = true;
            for (int c = 0; c < C; ++c) ok = ok && r[DNNL_ARG_VARIANCE][c] == 0.f && r[DNNL_ARG_MEAN][c] == 5.f;
            t.check(ok, "constant input: variance 0");
            std::vector<float> x((size_t)(N * C * H * W));
            kt::fill(x, 42, -1.f, 1.f);
            for (auto &v : x) v += 1e4f;
            in[DNNL_ARG_SRC] = x;
            r = kt::exec_pd(env, pd, in, {DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
            for (int c = 0; c < C; ++c) {
                double m = 0, q = 0;
                for (dnnl_dim_t n = 0; n < N; ++n)
                    for (dnnl_dim_t s = 0; s < H * W; ++s) m += x[(size_t)((n * C + c) * H * W + s)];
                m /= (double)(N * H * W);
                for (dnnl_dim_t n = 0; n < N; ++n)
                    for (dnnl_dim_t s = 0; s < H * W; ++s) {
                        double d = x[(size_t)((n * C + c) * H * W + s)] - m;
                        q += d * d;
                    }
                q /= (double)(N * H * W);
                ok = ok && std::fabs(r[DNNL_ARG_VARIANCE][c] - q) <= 1e-3 * q;
            }
            t.check(ok, ("large offset: accurate variance, " + kt::impl_name(pd)).c_str());
        } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        dnnl_primitive_desc_destroy(pd);
    }

    // Bad input.
    {
        kt::md_t smd(kt::make_md({2, 3, 4, 4}, dnnl_f32, dnnl_nchw));
        kt::md_t bad(kt::make_md({2, 4, 4, 4}, dnnl_f32, dnnl_nchw));
        kt::md_t s8(kt::make_md({2, 3, 4, 4}, dnnl_s8, dnnl_nchw));
        dnnl_primitive_desc_t pd = nullptr;
        t.check(dnnl_batch_normalization_forward_primitive_desc_create(nullptr, env.eng, dnnl_forward_training,
                        smd, smd, 1e-5f, 0, nullptr) == dnnl_invalid_arguments, "null pd");
        t.check(dnnl_batch_normalization_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        smd, bad, 1e-5f, 0, nullptr) == dnnl_invalid_arguments, "mismatched dims");
        t.check(dnnl_batch_normalization_forward_primitive_desc_create(&pd, env.eng, dnnl_backward,
                        smd, smd, 1e-5f, 0, nullptr) == dnnl_invalid_arguments, "bad prop");
        t.check(dnnl_batch_normalization_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        smd, smd, 1e-5f, 0x100, nullptr) == dnnl_invalid_arguments, "bad flags");
        t.check(dnnl_batch_normalization_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        s8, s8, 1e-5f, 0, nullptr) == dnnl_unimplemented, "s8");
        // A missing mean output at execution is refused, not a crash.
        KT_OK(dnnl_batch_normalization_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                smd, smd, 1e-5f, 0, nullptr));
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> buf(96);
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, smd, env.eng, buf.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}};
        t.check(dnnl_primitive_execute(p, env.strm, 2, args) == dnnl_invalid_arguments, "missing mean");
        dnnl_memory_destroy(m);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc md({2, 16, 3, 3}, memory::data_type::f32, memory::format_tag::nhwc);
        auto pd = batch_normalization_forward::primitive_desc(eng, prop_kind::forward_training, md, md, 1e-5f,
                normalization_flags::use_scale | normalization_flags::use_shift);
        t.check(pd.mean_desc().get_dims() == memory::dims({16}), "hpp mean desc");
        t.check(pd.get_epsilon() == 1e-5f, "hpp epsilon");
        memory src(md, eng), dst(md, eng), mean(pd.mean_desc(), eng), var(pd.variance_desc(), eng);
        memory sc(pd.weights_desc(), eng), sh(pd.weights_desc(), eng);
        float *p = static_cast<float *>(src.get_data_handle());
        for (int i = 0; i < 2 * 16 * 9; ++i) p[i] = (float)(i / 16 % 2); // channel values 0,1 alternating
        for (int c = 0; c < 16; ++c) {
            static_cast<float *>(sc.get_data_handle())[c] = 2.f;
            static_cast<float *>(sh.get_data_handle())[c] = 1.f;
        }
        batch_normalization_forward(pd).execute(strm,
                {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var},
                        {DNNL_ARG_SCALE, sc}, {DNNL_ARG_SHIFT, sh}});
        strm.wait();
        const float *m = static_cast<const float *>(mean.get_data_handle());
        const float *v = static_cast<const float *>(var.get_data_handle());
        // 18 points per channel: 9 zeros and 9 ones -> mean 0.5, variance 0.25.
        t.check(m[0] == 0.5f && v[5] == 0.25f, "hpp stats");
        const float *d = static_cast<const float *>(dst.get_data_handle());
        t.check(std::fabs(d[0] - (1.f - 2.f * 0.5f / std::sqrt(0.25f + 1e-5f))) < 1e-6f, "hpp dst");
    }
    return t.finish();
}
