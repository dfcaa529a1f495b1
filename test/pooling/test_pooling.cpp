// Pooling forward: every optimized implementation against the reference one
// over layouts, channel tails, padding, dilation, 1D/2D/3D, f32/bf16 and 1/2
// threads; workspace contents; hand-checked values; bad input; dnnl.hpp.
#include "dnnl.hpp"
#include "pooling/harness.hpp"

namespace {

struct shape_t {
    int ns; // spatial dims
    dnnl_dim_t mb, sp[3], k[3], s[3], d[3], pl[3], pr[3];
};

dnnl_dim_t out_dim(dnnl_dim_t i, dnnl_dim_t k, dnnl_dim_t s, dnnl_dim_t d, dnnl_dim_t pl, dnnl_dim_t pr) {
    return (i - ((k - 1) * (d + 1) + 1) + pl + pr) / s + 1;
}

dnnl_format_tag_t tag_for(int nd, int layout) {
    const dnnl_format_tag_t t[3][4] = {{dnnl_abc, dnnl_acb, dnnl_aBc16b, dnnl_aBc8b},
            {dnnl_abcd, dnnl_acdb, dnnl_aBcd16b, dnnl_aBcd8b},
            {dnnl_abcde, dnnl_acdeb, dnnl_aBcde16b, dnnl_aBcde8b}};
    return t[nd - 3][layout];
}

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    const shape_t shapes[] = {
            {2, 2, {7, 9}, {3, 3}, {2, 2}, {0, 0}, {1, 1}, {1, 1}}, // odd sizes, padding
            {2, 1, {5, 6}, {2, 3}, {1, 2}, {1, 0}, {0, 1}, {1, 2}}, // dilation
            {2, 1, {4, 4}, {2, 2}, {3, 3}, {0, 0}, {3, 3}, {3, 2}}, // padding > kernel
            {1, 2, {11}, {4}, {3}, {0}, {2}, {1}}, // 1D
            {3, 1, {4, 5, 3}, {2, 3, 2}, {2, 1, 1}, {0, 1, 0}, {1, 1, 0}, {0, 1, 1}}, // 3D
            {2, 1, {20, 20}, {16, 16}, {4, 4}, {0, 0}, {0, 0}, {0, 0}}, // 256-point window: s32 ws
            {2, 2, {6, 19}, {3, 3}, {1, 1}, {0, 0}, {1, 1}, {1, 1}}, // stride 1: contiguous runs
            {2, 1, {5, 9}, {2, 3}, {1, 1}, {0, 1}, {0, 2}, {1, 2}}, // stride 1, dilated W
            {1, 1, {40}, {5}, {3}, {1}, {4}, {3}}, // 1D, long row, stride 3, dilated
            // s32 workspace through the 4-column interior blocks; with 2
            // threads its single row (nhwc) is split into column blocks.
            {2, 1, {16, 24}, {16, 16}, {1, 1}, {0, 0}, {0, 0}, {0, 0}},
    };
    const int Cs[] = {1, 3, 15, 16, 17, 33};
    const dnnl_alg_kind_t algs[] = {dnnl_pooling_max, dnnl_pooling_avg_include_padding,
            dnnl_pooling_avg_exclude_padding};
    int vec_cases = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (int C : Cs)
            for (int layout = 0; layout < 4; ++layout)
            for (auto dt : {dnnl_f32, dnnl_bf16})
            for (auto alg : algs)
            for (auto prop : {dnnl_forward_training, dnnl_forward_inference}) {
                if (prop == dnnl_forward_inference && alg != dnnl_pooling_max) continue;
                if (sh.k[0] == 16 && (C > 17 || layout == 3)) continue; // keep the big window cheap
                const int nd = sh.ns + 2;
                dnnl_dims_t sd = {sh.mb, C}, dd = {sh.mb, C};
                for (int i = 0; i < sh.ns; ++i) {
                    sd[2 + i] = sh.sp[i];
                    dd[2 + i] = out_dim(sh.sp[i], sh.k[i], sh.s[i], sh.d[i], sh.pl[i], sh.pr[i]);
                }
                dnnl_memory_desc_t smd, dmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, nd, sd, dt, tag_for(nd, layout)));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, nd, dd, dt, dnnl_format_tag_any));
                kt::md_t hs(smd), hd(dmd);
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_pooling_forward_primitive_desc_create(pd, env.eng, prop, alg, smd, dmd,
                            sh.s, sh.k, sh.d, sh.pl, sh.pr, nullptr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 7 + C);
                    return in;
                };
                const bool ws = alg == dnnl_pooling_max && prop == dnnl_forward_training;
                std::vector<int> outs = {DNNL_ARG_DST};
                if (ws) outs.push_back(DNNL_ARG_WORKSPACE);
                auto runs = kt::run_all(env, make, gen, outs);
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "pool nd=%d C=%d layout=%d dt=%d alg=%d prop=%d nthr=%d",
                        nd, C, layout, (int)dt, (int)alg, (int)prop, nthr);
                t.check(ref.name == "ref:any", what);
                // Every layout of the grid has an optimized implementation.
                t.check(runs.size() >= 2, what);
                for (size_t i = 0; i + 1 < runs.size(); ++i) {
                    ++vec_cases;
                    // max: data movement, exact. avg: identical summation
                    // order; vec:ncsp divides like the reference (exact),
                    // vec:nspc/blocked multiply by the reciprocal: <= 1.5 ulp
                    // in f32, which can flip one bf16 rounding (2^-7).
                    const bool exact = alg == dnnl_pooling_max || runs[i].name == "vec:ncsp";
                    double rtol = exact ? 0 : (dt == dnnl_f32 ? 0x1p-22 : 0x1p-7);
                    t.check(kt::close(runs[i].outs[DNNL_ARG_DST], ref.outs.at(DNNL_ARG_DST), rtol, 0, what),
                            what);
                    if (ws)
                        t.check(runs[i].outs[DNNL_ARG_WORKSPACE] == ref.outs.at(DNNL_ARG_WORKSPACE), what);
                }
                if (ws) {
                    dnnl_primitive_desc_t pd;
                    KT_OK(make(&pd));
                    const_dnnl_memory_desc_t wmd = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
                    dnnl_data_type_t wdt;
                    KT_OK(dnnl_memory_desc_query(wmd, dnnl_query_data_type, &wdt));
                    dnnl_dim_t ksz = 1;
                    for (int i = 0; i < sh.ns; ++i) ksz *= sh.k[i];
                    t.check(wdt == (ksz <= 255 ? dnnl_u8 : dnnl_s32), "workspace data type");
                    t.check(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0) == 2,
                            "ws counts as output");
                    dnnl_primitive_desc_destroy(pd);
                }
            }
        });
    t.check(vec_cases > 500, "optimized implementations were exercised");

    // Hand-checked values: 1x1x4x4, 2x2 windows, stride 2.
    {
        const float src[16] = {1, 5, 2, 0, 3, 4, 8, 1, -1, -2, 6, 6, -4, -3, 7, 2};
        dnnl_dims_t sd = {1, 1, 4, 4}, dd = {1, 1, 2, 2}, k = {2, 2}, s = {2, 2}, z = {0, 0};
        for (auto alg : {dnnl_pooling_max, dnnl_pooling_avg_include_padding}) {
            kt::md_t smd(kt::make_md({1, 1, 4, 4}, dnnl_f32, dnnl_nchw));
            kt::md_t dmd(kt::make_md({1, 1, 2, 2}, dnnl_f32, dnnl_nchw));
            (void)sd;
            (void)dd;
            dnnl_primitive_desc_t pd;
            KT_OK(dnnl_pooling_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training, alg,
                    smd, dmd, s, k, z, z, z, nullptr));
            kt::values_t in;
            in[DNNL_ARG_SRC] = std::vector<float>(src, src + 16);
            std::vector<int> outs = {DNNL_ARG_DST};
            if (alg == dnnl_pooling_max) outs.push_back(DNNL_ARG_WORKSPACE);
            auto r = kt::exec_pd(env, pd, in, outs);
            if (alg == dnnl_pooling_max) {
                t.check(r[DNNL_ARG_DST] == std::vector<float>({5, 8, -1, 7}), "max values");
                t.check(r[DNNL_ARG_WORKSPACE] == std::vector<float>({1, 2, 0, 2}), "max indices");
            } else {
                t.check(r[DNNL_ARG_DST] == std::vector<float>({13 / 4.f, 11 / 4.f, -10 / 4.f, 21 / 4.f}),
                        "avg values");
            }
            dnnl_primitive_desc_destroy(pd);
        }
    }

    // Bad input.
    {
        kt::md_t smd(kt::make_md({2, 3, 8, 8}, dnnl_f32, dnnl_nchw));
        kt::md_t dmd(kt::make_md({2, 3, 4, 4}, dnnl_f32, dnnl_nchw));
        kt::md_t bad(kt::make_md({2, 3, 5, 4}, dnnl_f32, dnnl_nchw));
        kt::md_t s8(kt::make_md({2, 3, 8, 8}, dnnl_s8, dnnl_nchw));
        kt::md_t s8d(kt::make_md({2, 3, 4, 4}, dnnl_bf16, dnnl_nchw));
        dnnl_dims_t k = {2, 2}, s = {2, 2}, z = {0, 0}, zs = {0, 2};
        dnnl_primitive_desc_t pd = nullptr;
        t.check(dnnl_pooling_forward_primitive_desc_create(nullptr, env.eng, dnnl_forward_training,
                        dnnl_pooling_max, smd, dmd, s, k, z, z, z, nullptr) == dnnl_invalid_arguments, "null pd");
        t.check(dnnl_pooling_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        dnnl_pooling_max, smd, bad, s, k, z, z, z, nullptr) == dnnl_invalid_arguments, "bad dims");
        t.check(dnnl_pooling_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        dnnl_eltwise_relu, smd, dmd, s, k, z, z, z, nullptr) == dnnl_invalid_arguments, "bad alg");
        t.check(dnnl_pooling_forward_primitive_desc_create(&pd, env.eng, dnnl_backward_data,
                        dnnl_pooling_max, smd, dmd, s, k, z, z, z, nullptr) == dnnl_invalid_arguments, "bad prop");
        t.check(dnnl_pooling_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        dnnl_pooling_max, smd, dmd, zs, k, z, z, z, nullptr) == dnnl_invalid_arguments, "zero stride");
        t.check(dnnl_pooling_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
                        dnnl_pooling_max, s8, s8d, s, k, z, z, z, nullptr) == dnnl_unimplemented,
                "s8 -> bf16 (not in oneDNN's table)");
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc src_md({1, 16, 6, 6}, memory::data_type::f32, memory::format_tag::nChw16c);
        memory::desc dst_md({1, 16, 3, 3}, memory::data_type::f32, memory::format_tag::any);
        auto pd = pooling_forward::primitive_desc(eng, prop_kind::forward_training, algorithm::pooling_max,
                src_md, dst_md, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0});
        t.check(pd.dst_desc() == memory::desc({1, 16, 3, 3}, memory::data_type::f32, memory::format_tag::nChw16c),
                "hpp dst any -> src layout");
        t.check(pd.workspace_desc().get_data_type() == memory::data_type::u8, "hpp ws");
        memory src(src_md, eng), dst(pd.dst_desc(), eng), ws(pd.workspace_desc(), eng);
        float *p = static_cast<float *>(src.get_data_handle());
        for (int i = 0; i < 16 * 36; ++i) p[i] = (float)(i % 37);
        pooling_forward(pd).execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}});
        strm.wait();
        t.check(pd.get_kernel() == memory::dims({2, 2}) && pd.get_algorithm() == algorithm::pooling_max,
                "hpp queries");
        // Channel 0 of output (0,0): max of src (h,w) in {0,1}^2 = elements 0,16,96,112 mod 37.
        const float *q = static_cast<const float *>(dst.get_data_handle());
        float want = std::fmax(std::fmax(0, 16), std::fmax(96 % 37, 112 % 37));
        t.check(q[0] == want, "hpp values");
        bool threw = false;
        try {
            pooling_forward::primitive_desc(eng, prop_kind::forward_training, algorithm::pooling_max, src_md,
                    memory::desc({1, 16, 4, 3}, memory::data_type::f32, memory::format_tag::any), {2, 2}, {2, 2},
                    {0, 0}, {0, 0}, {0, 0});
        } catch (const dnnl::error &e) {
            threw = e.status == dnnl_invalid_arguments;
        }
        t.check(threw, "hpp throws on bad dims");
    }
    return t.finish();
}
