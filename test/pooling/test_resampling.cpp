// Resampling forward: the optimized implementation against the reference
// over 1D/2D/3D spatial shapes (up, down, equal, odd sizes), layouts (ncsp,
// nspc, nCsp8c/16c, one only the reference serves), channel tails, both
// algorithms, f32/bf16, post-ops and 1/2 threads; hand-checked coordinates
// (half-pixel centres, halves rounded away from zero, clipping); factors;
// integer data through the reference; bad input; dnnl.hpp.
#include "dnnl.hpp"
#include "core/primitive_cache.hpp"
#include "pooling/harness.hpp"

namespace {

struct shape_t {
    int nd;
    dnnl_dim_t n, isp[3], osp[3];
    dnnl_format_tag_t tag;
    bool fast;
};

} // namespace

int main() {
    kt::tally_t t;
    kt::env_t env;
    const shape_t shapes[] = {
            {3, 2, {5}, {9}, dnnl_abc, true},
            {3, 1, {7}, {3}, dnnl_abc, true},
            {3, 2, {6}, {6}, dnnl_acb, true},
            {3, 1, {4}, {13}, dnnl_aBc16b, true},
            {4, 2, {3, 5}, {7, 2}, dnnl_abcd, true},
            {4, 1, {6, 4}, {3, 9}, dnnl_acdb, true},
            {4, 2, {3, 3}, {5, 4}, dnnl_aBcd16b, true},
            {4, 1, {5, 2}, {2, 5}, dnnl_aBcd8b, true},
            {5, 1, {2, 3, 4}, {3, 5, 2}, dnnl_abcde, true},
            {5, 2, {3, 2, 3}, {2, 4, 5}, dnnl_acdeb, true},
            {5, 1, {2, 2, 3}, {4, 3, 3}, dnnl_aBcde8b, true},
            {4, 2, {3, 4}, {5, 3}, dnnl_bacd, false},
    };
    const int Cs[] = {1, 3, 15, 16, 17, 33};
    int vec_cases = 0, idx = 0;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (const auto &sh : shapes)
            for (int C : Cs)
            for (auto alg : {dnnl_resampling_nearest, dnnl_resampling_linear})
            for (auto dt : {dnnl_f32, dnnl_bf16}) {
                ++idx;
                const auto prop = idx % 2 ? dnnl_forward_training : dnnl_forward_inference;
                dnnl_dims_t sdims = {sh.n, C}, ddims = {sh.n, C}, bdims = {1, C, 1, 1, 1};
                for (int i = 2; i < sh.nd; ++i) {
                    sdims[i] = sh.isp[i - 2];
                    ddims[i] = sh.osp[i - 2];
                }
                bdims[sh.nd - 1] = ddims[sh.nd - 1]; // src1 varies along W and C
                dnnl_memory_desc_t smd, dmd, bmd;
                KT_OK(dnnl_memory_desc_create_with_tag(&smd, sh.nd, sdims, dt, sh.tag));
                KT_OK(dnnl_memory_desc_create_with_tag(&dmd, sh.nd, ddims, dt, dnnl_format_tag_any));
                KT_OK(dnnl_memory_desc_create_with_tag(&bmd, sh.nd, bdims, dnnl_f32, dnnl_format_tag_any));
                kt::md_t hs(smd), hd(dmd), hb(bmd);
                // Post-ops on some cases: sum onto the (zeroed) old dst, relu,
                // add a src1 broadcast over n and the outer spatial dims.
                const bool with_po = idx % 3 == 1;
                dnnl_primitive_attr_t attr = nullptr;
                dnnl_post_ops_t po = nullptr;
                if (with_po) {
                    KT_OK(dnnl_post_ops_create(&po));
                    KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
                    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
                    KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bmd));
                    KT_OK(dnnl_primitive_attr_create(&attr));
                    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
                }
                auto make = [&](dnnl_primitive_desc_t *pd) {
                    return dnnl_resampling_forward_primitive_desc_create(
                            pd, env.eng, prop, alg, nullptr, smd, dmd, attr);
                };
                auto gen = [&](const_dnnl_primitive_desc_t pd) {
                    kt::values_t in;
                    in[DNNL_ARG_SRC] = kt::random_for(pd, DNNL_ARG_SRC, 3 + idx);
                    if (with_po) {
                        const int a = DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1;
                        in[a] = kt::random_for(pd, a, 11);
                    }
                    return in;
                };
                auto runs = kt::run_all(env, make, gen, {DNNL_ARG_DST});
                const auto &ref = runs.back();
                char what[256];
                std::snprintf(what, sizeof(what), "resampling nd=%d tag=%d C=%d alg=%d dt=%d po=%d nthr=%d", sh.nd,
                        (int)sh.tag, C, (int)alg, (int)dt, (int)with_po, nthr);
                t.check(ref.name == "ref:any", what);
                // (With one channel the odd layout coincides with ncsp.)
                t.check(runs.size() == (sh.fast || C == 1 ? 2u : 1u), what);
                // Nearest moves data and runs the same post-op code: exact.
                // Linear: |src| <= 2 and the weights of the <= 8 corners sum
                // to 1; the reference rounds each term (<= 3 products) and
                // each of <= 8 partial sums (|partial| <= 2), <= 22u; the
                // optimized one rounds the weight products, then one FMA per
                // corner (channel runs) or <= 4 row FMAs and a 2-point blend
                // (ncsp), <= 24u. Post-ops: relu is 1-Lipschitz, the sum adds
                // exact zeros, the add of |src1| <= 2 rounds once more per
                // side (<= 8u). 64u bounds it all; bf16 dst adds one possible
                // rounding flip, 2^-7 relative.
                const double u = 0x1p-24;
                const double atol = alg == dnnl_resampling_nearest ? 0 : 64 * u;
                const double rtol = alg == dnnl_resampling_nearest || dt == dnnl_f32 ? 0 : 0x1p-7;
                for (size_t i = 0; i + 1 < runs.size(); ++i) {
                    ++vec_cases;
                    t.check(kt::close(runs[i].outs[DNNL_ARG_DST], ref.outs.at(DNNL_ARG_DST), rtol, atol, what), what);
                }
                if (attr) dnnl_primitive_attr_destroy(attr);
                if (po) dnnl_post_ops_destroy(po);
            }
        });
    t.check(vec_cases > 300, "optimized implementation was exercised");

    // Hand-checked 1D coordinates, s = (o + 0.5) * I / O - 0.5:
    //   2 -> 4: s = -0.25, 0.25, 0.75, 1.25. Nearest 0, 0, 1, 1; linear of
    //           [1, 3]: 1 (clipped), 1.5, 2.5, 3 (clipped).
    //   4 -> 2: s = 0.5, 2.5. Nearest rounds halves away from zero: 1, 3;
    //           linear of [1, 2, 4, 8]: 1.5, 6.
    {
        struct {
            dnnl_dim_t I, O;
            dnnl_alg_kind_t alg;
            std::vector<float> x, want;
        } cases[] = {
                {2, 4, dnnl_resampling_nearest, {1, 3}, {1, 1, 3, 3}},
                {2, 4, dnnl_resampling_linear, {1, 3}, {1, 1.5f, 2.5f, 3}},
                {4, 2, dnnl_resampling_nearest, {1, 2, 4, 8}, {2, 8}},
                {4, 2, dnnl_resampling_linear, {1, 2, 4, 8}, {1.5f, 6}},
        };
        for (auto &c : cases)
            for (auto tag : {dnnl_abc, dnnl_acb}) {
                kt::md_t smd(kt::make_md({1, 1, c.I}, dnnl_f32, tag)), dmd(kt::make_md({1, 1, c.O}, dnnl_f32, tag));
                dnnl_primitive_desc_t pd;
                KT_OK(dnnl_resampling_forward_primitive_desc_create(
                        &pd, env.eng, dnnl_forward_inference, c.alg, nullptr, smd, dmd, nullptr));
                do {
                    auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, c.x}}, {DNNL_ARG_DST});
                    t.check(r[DNNL_ARG_DST] == c.want, ("hand-checked resampling, " + kt::impl_name(pd)).c_str());
                } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
                const float *f = nullptr;
                KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_factors, 0, &f));
                t.check(f && f[0] == (float)c.O / (float)c.I, "resampling factors derived from dims");
                dnnl_primitive_desc_destroy(pd);
            }
        // Bilinear 2x2 -> 3x3 of [[0, 4], [8, 12]]: s = -1/6, 1/2, 7/6 in
        // both dims, so the corners copy (clipped) and the centre is the
        // mean, 6 (its weights are exactly 1/2).
        kt::md_t smd(kt::make_md({1, 1, 2, 2}, dnnl_f32, dnnl_abcd)), dmd(kt::make_md({1, 1, 3, 3}, dnnl_f32, dnnl_abcd));
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_resampling_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_inference, dnnl_resampling_linear, nullptr, smd, dmd, nullptr));
        do {
            auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, {0, 4, 8, 12}}}, {DNNL_ARG_DST});
            // A clipped corner blends one value with w0 + w1 = 1 within an
            // ulp (w0 = 1 - w1 rounds), so 12 within 2 ulps of the products.
            t.check(r[DNNL_ARG_DST][4] == 6.f && r[DNNL_ARG_DST][0] == 0.f
                            && std::fabs(r[DNNL_ARG_DST][8] - 12.f) <= 12.f * 0x1p-22f,
                    ("hand-checked bilinear, " + kt::impl_name(pd)).c_str());
        } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        dnnl_primitive_desc_destroy(pd);
    }

    // Factors without dst: dst dims = floor(src * factor), format chosen by
    // the implementation, src's data type. Integer data (u8, s32) through
    // the reference: nearest copies exactly.
    {
        kt::md_t smd(kt::make_md({1, 2, 5, 4}, dnnl_u8, dnnl_acdb));
        const float f[2] = {1.5f, 0.5f};
        dnnl_primitive_desc_t pd;
        KT_OK(dnnl_resampling_forward_primitive_desc_create(
                &pd, env.eng, dnnl_forward_training, dnnl_resampling_nearest, f, smd, nullptr, nullptr));
        const_dnnl_memory_desc_t dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        const kestrel::mdw_t dw(dmd);
        t.check(dw.dims()[2] == 7 && dw.dims()[3] == 2 && dw.data_type() == dnnl_u8 && dw.matches_tag(dnnl_acdb),
                "resampling dst from factors");
        std::vector<float> x(40);
        for (size_t i = 0; i < x.size(); ++i) x[i] = (float)(i * 5 % 256);
        auto r = kt::exec_pd(env, pd, {{DNNL_ARG_SRC, x}}, {DNNL_ARG_DST});
        bool ok = true;
        for (int c = 0; c < 2; ++c)
            for (int oh = 0; oh < 7; ++oh)
                for (int ow = 0; ow < 2; ++ow) {
                    const int ih = (int)std::round((oh + 0.5f) * 5.f / 7.f - 0.5f);
                    const int iw = (int)std::round((ow + 0.5f) * 4.f / 2.f - 0.5f);
                    ok = ok && r[DNNL_ARG_DST][(size_t)((c * 7 + oh) * 2 + ow)] == x[(size_t)((c * 5 + ih) * 4 + iw)];
                }
        t.check(ok, "resampling u8 nearest");
        const float *q = nullptr;
        KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_factors, 0, &q));
        // The reported (and used) factors are O / I, not the ones passed.
        t.check(q[0] == (float)(7.0 / 5.0) && q[1] == 0.5f, "resampling factors are O / I");
        dnnl_primitive_desc_destroy(pd);
    }

    // Bad input.
    {
        kt::md_t smd(kt::make_md({2, 3, 4}, dnnl_f32, dnnl_abc));
        kt::md_t dmd(kt::make_md({2, 3, 8}, dnnl_f32, dnnl_abc));
        kt::md_t dbad(kt::make_md({2, 4, 8}, dnnl_f32, dnnl_abc));
        kt::md_t two(kt::make_md({2, 3}, dnnl_f32, dnnl_ab));
        kt::md_t empty(kt::make_md({2, 3, 0}, dnnl_f32, dnnl_abc));
        dnnl_primitive_desc_t pd = nullptr;
        const auto fwd = dnnl_forward_training;
        const auto lin = dnnl_resampling_linear;
        const float f2[1] = {2.f}, f0[1] = {0.f}, fneg[1] = {-1.f};
        auto mk = [&](dnnl_primitive_desc_t *o, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg, const float *f,
                          const_dnnl_memory_desc_t s, const_dnnl_memory_desc_t d,
                          const_dnnl_primitive_attr_t attr = nullptr) {
            return dnnl_resampling_forward_primitive_desc_create(o, env.eng, prop, alg, f, s, d, attr);
        };
        t.check(mk(nullptr, fwd, lin, nullptr, smd, dmd) == dnnl_invalid_arguments, "resampling null pd");
        t.check(mk(&pd, fwd, lin, nullptr, nullptr, dmd) == dnnl_invalid_arguments, "resampling null src");
        t.check(mk(&pd, fwd, lin, nullptr, smd, nullptr) == dnnl_invalid_arguments, "resampling no dst nor factors");
        t.check(mk(&pd, fwd, lin, nullptr, smd, dbad) == dnnl_invalid_arguments, "resampling C mismatch");
        t.check(mk(&pd, fwd, dnnl_pooling_max, nullptr, smd, dmd) == dnnl_invalid_arguments, "resampling bad alg");
        t.check(mk(&pd, dnnl_backward_data, lin, nullptr, smd, dmd) == dnnl_invalid_arguments, "resampling bad prop");
        t.check(mk(&pd, fwd, lin, nullptr, two, two) == dnnl_invalid_arguments, "resampling no spatial dims");
        t.check(mk(&pd, fwd, lin, fneg, smd, nullptr) == dnnl_invalid_arguments, "resampling negative factor");
        // A zero factor gives an empty dst, which is valid (nothing to do).
        t.check(mk(&pd, fwd, lin, f0, smd, nullptr) == dnnl_success
                        && dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)->dims[2] == 0,
                "resampling zero factor: empty dst");
        dnnl_primitive_desc_destroy(pd);
        t.check(mk(&pd, fwd, lin, nullptr, empty, dmd) == dnnl_invalid_arguments, "resampling from nothing");
        {
            dnnl_primitive_attr_t attr;
            dnnl_post_ops_t po;
            KT_OK(dnnl_post_ops_create(&po));
            KT_OK(dnnl_post_ops_append_prelu(po, 0));
            KT_OK(dnnl_primitive_attr_create(&attr));
            KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
            t.check(mk(&pd, fwd, lin, nullptr, smd, dmd, attr) == dnnl_unimplemented, "resampling prelu post-op");
            dnnl_post_ops_destroy(po);
            dnnl_primitive_attr_destroy(attr);
        }
        KT_OK(mk(&pd, fwd, lin, f2, smd, nullptr));
        t.check(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0)->dims[2] == 8, "resampling dst from factor 2");
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> buf(24);
        dnnl_memory_t m;
        KT_OK(dnnl_memory_create(&m, smd, env.eng, buf.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}};
        t.check(dnnl_primitive_execute(p, env.strm, 2, args) == dnnl_invalid_arguments, "resampling wrong dst");
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
            KT_OK(dnnl_resampling_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_inference,
                    dnnl_resampling_linear, &param, md, nullptr, nullptr));
            KT_OK(dnnl_primitive_create(&p, pd));
            dnnl_primitive_destroy(p);
            dnnl_primitive_desc_destroy(pd);
            return kestrel::primitive_cache_stats().hits == hits + 1;
        };
        kestrel::primitive_cache_clear();
        const bool first = hit(2.f), second = hit(2.f), other = hit(3.f);
        t.check(!first && second && !other, "resampling primitive cache");
    }

    // dnnl.hpp
    {
        using namespace dnnl;
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        memory::desc smd({1, 1, 2}, memory::data_type::f32, memory::format_tag::ncw);
        auto pd = resampling_forward::primitive_desc(
                eng, prop_kind::forward_inference, algorithm::resampling_linear, {2.f}, smd);
        t.check(pd.dst_desc().get_dims() == memory::dims({1, 1, 4}), "hpp resampling dst dims");
        t.check(pd.get_factors() == std::vector<float>({2.f}) && pd.get_algorithm() == algorithm::resampling_linear,
                "hpp resampling queries");
        memory src(smd, eng), dst(pd.dst_desc(), eng);
        float *p = static_cast<float *>(src.get_data_handle());
        p[0] = 1, p[1] = 3;
        resampling_forward(pd).execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        strm.wait();
        const float *d = static_cast<const float *>(dst.get_data_handle());
        t.check(d[0] == 1.f && d[1] == 1.5f && d[2] == 2.5f && d[3] == 3.f, "hpp resampling dst");
    }
    return t.finish();
}
