// Convolution / deconvolution forward through the API: bad arguments give
// the right status, queries answer, format `any` is resolved by the
// implementation that accepts, the implementation walk ends, and the dnnl.hpp
// classes work end to end (with reorders into the chosen layouts).
#include <cstdio>

#include "dnnl.hpp"

#include "conv/conv_harness.hpp"
#include "cpu/isa.hpp"

namespace {

using dim = dnnl_dim_t;

struct args_t {
    dnnl_engine_t eng;
    dnnl_prop_kind_t prop = dnnl_forward_inference;
    dnnl_alg_kind_t alg = dnnl_convolution_direct;
    const_dnnl_memory_desc_t src, wei, bias, dst;
    const dim *strides, *dil, *pl, *pr;
    const_dnnl_primitive_attr_t attr = nullptr;
};

dnnl_status_t conv(dnnl_primitive_desc_t *pd, const args_t &a, bool deconv = false) {
    auto fn = deconv ? dnnl_deconvolution_forward_primitive_desc_create
                     : dnnl_convolution_forward_primitive_desc_create;
    dnnl_primitive_desc_t local = nullptr;
    dnnl_status_t st = fn(pd ? pd : &local, a.eng, a.prop, a.alg, a.src, a.wei, a.bias, a.dst,
            a.strides, a.dil, a.pl, a.pr, a.attr);
    if (!pd) dnnl_primitive_desc_destroy(local);
    return st;
}

void bad_inputs(ktc::env_t &env, kt::tally_t &t) {
    const dim s1[] = {1, 1}, d0[] = {0, 0}, p1[] = {1, 1}, pneg[] = {-1, 1}, s0[] = {0, 1};
    kt::md_t src(kt::make_md({2, 8, 7, 7}, dnnl_f32, dnnl_nchw));
    kt::md_t wei(kt::make_md({16, 8, 3, 3}, dnnl_f32, dnnl_oihw));
    kt::md_t dst(kt::make_md({2, 16, 7, 7}, dnnl_f32, dnnl_nchw));
    kt::md_t bias(kt::make_md({16}, dnnl_f32, dnnl_a));
    kt::md_t bias_bad(kt::make_md({15}, dnnl_f32, dnnl_a));
    kt::md_t bias_2d(kt::make_md({1, 16}, dnnl_f32, dnnl_ab));
    kt::md_t wei_ic(kt::make_md({16, 7, 3, 3}, dnnl_f32, dnnl_oihw));
    kt::md_t dst_oc(kt::make_md({2, 15, 7, 7}, dnnl_f32, dnnl_nchw));
    kt::md_t dst_mb(kt::make_md({3, 16, 7, 7}, dnnl_f32, dnnl_nchw));
    kt::md_t dst_sp(kt::make_md({2, 16, 6, 7}, dnnl_f32, dnnl_nchw));
    kt::md_t src_2d(kt::make_md({2, 8}, dnnl_f32, dnnl_ab));
    kt::md_t wei_5d(kt::make_md({16, 8, 3, 3, 3}, dnnl_f32, dnnl_oidhw));
    kt::md_t src_6d(kt::make_md({2, 8, 7, 7, 7, 7}, dnnl_f32, dnnl_abcdef));
    kt::md_t src_s8(kt::make_md({2, 8, 7, 7}, dnnl_s8, dnnl_nchw));

    args_t ok {env.eng, dnnl_forward_inference, dnnl_convolution_direct, src, wei, bias, dst, s1, d0, p1, p1};
    dnnl_primitive_desc_t pd = nullptr;
    t.check(conv(&pd, ok) == dnnl_success, "valid problem accepted");
    dnnl_primitive_desc_destroy(pd);
    pd = nullptr;

    struct case_t {
        const char *what;
        args_t a;
        dnnl_status_t want;
    };
    std::vector<case_t> cases;
    auto with = [&](const char *what, dnnl_status_t want, auto mod) {
        args_t a = ok;
        mod(a);
        cases.push_back({what, a, want});
    };
    const dnnl_status_t inv = dnnl_invalid_arguments, unimpl = dnnl_unimplemented;
    with("NULL src", inv, [&](args_t &a) { a.src = nullptr; });
    with("NULL weights", inv, [&](args_t &a) { a.wei = nullptr; });
    with("NULL dst", inv, [&](args_t &a) { a.dst = nullptr; });
    with("NULL strides", inv, [&](args_t &a) { a.strides = nullptr; });
    with("NULL padding_l", inv, [&](args_t &a) { a.pl = nullptr; });
    with("NULL engine", inv, [&](args_t &a) { a.eng = nullptr; });
    with("mismatched input channels", inv, [&](args_t &a) { a.wei = wei_ic; });
    with("mismatched output channels", inv, [&](args_t &a) { a.dst = dst_oc; });
    with("mismatched batch", inv, [&](args_t &a) { a.dst = dst_mb; });
    with("inconsistent dst spatial", inv, [&](args_t &a) { a.dst = dst_sp; });
    with("negative left padding", inv, [&](args_t &a) { a.pl = pneg; });
    with("zero stride", inv, [&](args_t &a) { a.strides = s0; });
    with("wrong ndims (2D src)", inv, [&](args_t &a) { a.src = src_2d; });
    with("weights rank off by 1 the wrong way", inv, [&](args_t &a) { a.wei = wei_5d; });
    with("6D src", inv, [&](args_t &a) { a.src = src_6d; });
    with("bias of wrong size", inv, [&](args_t &a) { a.bias = bias_bad; });
    with("bias of wrong rank", inv, [&](args_t &a) { a.bias = bias_2d; });
    with("bad alg", inv, [&](args_t &a) { a.alg = dnnl_eltwise_relu; });
    with("backward prop kind", inv, [&](args_t &a) { a.prop = dnnl_backward_data; });
    with("winograd", unimpl, [&](args_t &a) { a.alg = dnnl_convolution_winograd; });
    with("int8 src with f32 weights", unimpl, [&](args_t &a) { a.src = src_s8; });
    for (auto &c : cases) {
        dnnl_primitive_desc_t h = nullptr;
        dnnl_status_t st = conv(&h, c.a);
        t.check(st == c.want, c.what);
        t.check(st != dnnl_success || h != nullptr, c.what);
        dnnl_primitive_desc_destroy(h);
    }
    t.check(dnnl_convolution_forward_primitive_desc_create(nullptr, env.eng, dnnl_forward_inference,
                    dnnl_convolution_direct, src, wei, bias, dst, s1, d0, p1, p1, nullptr)
                    == inv,
            "NULL output pd");

    // Attributes: zero points are not supported (f32); a malformed binary
    // src1 is invalid; a weights scale mask over input channels is not.
    {
        dnnl_primitive_attr_t at = nullptr;
        KT_OK(dnnl_primitive_attr_create(&at));
        KT_OK(dnnl_primitive_attr_set_zero_points_mask(at, DNNL_ARG_SRC, 0));
        args_t a = ok;
        a.attr = at;
        t.check(conv(nullptr, a) == unimpl, "zero points -> unimplemented");
        dnnl_primitive_attr_destroy(at);

        KT_OK(dnnl_primitive_attr_create(&at));
        KT_OK(dnnl_primitive_attr_set_scales_mask(at, DNNL_ARG_WEIGHTS, 2));
        a.attr = at;
        t.check(conv(nullptr, a) == unimpl, "weights scale mask over IC -> unimplemented");
        dnnl_primitive_attr_destroy(at);

        KT_OK(dnnl_primitive_attr_create(&at));
        dnnl_post_ops_t po = nullptr;
        KT_OK(dnnl_post_ops_create(&po));
        kt::md_t s1bad(kt::make_md({2, 3, 7, 7}, dnnl_f32, dnnl_nchw));
        KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, s1bad));
        KT_OK(dnnl_primitive_attr_set_post_ops(at, po));
        dnnl_post_ops_destroy(po);
        a.attr = at;
        t.check(conv(nullptr, a) == inv, "binary src1 not broadcastable -> invalid_arguments");
        dnnl_primitive_attr_destroy(at);
    }

    // Deconvolution: src is the small side.
    {
        kt::md_t dsrc(kt::make_md({1, 8, 4, 4}, dnnl_f32, dnnl_nchw));
        kt::md_t dwei(kt::make_md({4, 8, 3, 3}, dnnl_f32, dnnl_oihw));
        kt::md_t ddst(kt::make_md({1, 4, 9, 9}, dnnl_f32, dnnl_nchw)); // (4-1)*2 - 0 + 3
        kt::md_t ddst_bad(kt::make_md({1, 4, 8, 9}, dnnl_f32, dnnl_nchw));
        kt::md_t dbias(kt::make_md({4}, dnnl_f32, dnnl_a));
        kt::md_t dbias_bad(kt::make_md({8}, dnnl_f32, dnnl_a));
        const dim s2[] = {2, 2}, p0[] = {0, 0};
        args_t d {env.eng, dnnl_forward_training, dnnl_deconvolution_direct, dsrc, dwei, dbias, ddst, s2, nullptr, p0, nullptr};
        t.check(conv(nullptr, d, true) == dnnl_success, "deconv valid problem accepted");
        args_t x = d;
        x.dst = ddst_bad;
        t.check(conv(nullptr, x, true) == inv, "deconv inconsistent dst spatial");
        x = d, x.bias = dbias_bad;
        t.check(conv(nullptr, x, true) == inv, "deconv bias of wrong size");
        x = d, x.alg = dnnl_convolution_direct;
        t.check(conv(nullptr, x, true) == inv, "deconv with a convolution alg");
        x = d, x.alg = dnnl_deconvolution_winograd;
        t.check(conv(nullptr, x, true) == unimpl, "deconv winograd");
        x = d, x.pl = pneg;
        t.check(conv(nullptr, x, true) == inv, "deconv negative padding");
        x = d, x.prop = dnnl_backward_weights;
        t.check(conv(nullptr, x, true) == inv, "deconv backward prop kind");
        x = d, x.wei = wei; // channels do not match
        t.check(conv(nullptr, x, true) == inv, "deconv mismatched channels");
    }
}

void queries(ktc::env_t &env, kt::tally_t &t) {
    const dim s[] = {2, 3}, d[] = {1, 0}, pl[] = {1, 2}, pr[] = {0, 1};
    // oh = (9 - 5 + 1 + 0) / 2 + 1 = 3, ow = (11 - 3 + 2 + 1) / 3 + 1 = 4
    kt::md_t src(kt::make_md({1, 6, 9, 11}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t wei(kt::make_md({2, 5, 3, 3, 3}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t dst(kt::make_md({1, 10, 3, 4}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t bias(kt::make_md({10}, dnnl_f32, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_training,
            dnnl_convolution_auto, src, wei, bias, dst, s, d, pl, pr, nullptr));
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_alg_kind, 0, &alg));
    t.check(alg == dnnl_convolution_direct, "convolution_auto resolves to direct");
    struct {
        dnnl_query_t q;
        const dim *want;
        const char *what;
    } qs[] = {{dnnl_query_strides, s, "strides"}, {dnnl_query_dilations, d, "dilations"},
            {dnnl_query_padding_l, pl, "padding_l"}, {dnnl_query_padding_r, pr, "padding_r"}};
    for (auto &q : qs) {
        const dnnl_dims_t *v = nullptr;
        KT_OK(dnnl_primitive_desc_query(pd, q.q, 0, &v));
        t.check(v && (*v)[0] == q.want[0] && (*v)[1] == q.want[1], q.what);
    }
    const_dnnl_memory_desc_t b = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
    t.check(b && kestrel::mdw_t(b).ndims() == 1 && kestrel::mdw_t(b).dims()[0] == 10
                    && kestrel::mdw_t(b).is_blocked(),
            "weights_md(1) is the bias, resolved");
    const_dnnl_memory_desc_t sm = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    t.check(sm && kestrel::mdw_t(sm).is_blocked(), "src any resolved");
    t.check(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 3, "3 inputs with bias");
    // Groups of 3/5 channels: not for the 16c kernel; the reference takes it
    // and chooses plain layouts.
    t.check(kestrel::mdw_t(sm).matches_tag(dnnl_nchw), "plain src for the reference");
    dnnl_status_t st;
    while ((st = dnnl_primitive_desc_next_impl(pd)) == dnnl_success) {}
    t.check(st == dnnl_last_impl_reached, "implementation walk ends with last_impl_reached");
    dnnl_primitive_desc_destroy(pd);

    // A blocked-friendly problem with `any` picks the direct kernel and
    // nChw16c / OIhw16i16o when AVX-512 is there.
    kt::md_t src2(kt::make_md({2, 32, 8, 8}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t wei2(kt::make_md({48, 32, 3, 3}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t dst2(kt::make_md({2, 48, 8, 8}, dnnl_f32, dnnl_format_tag_any));
    const dim one[] = {1, 1};
    KT_OK(dnnl_convolution_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_inference,
            dnnl_convolution_direct, src2, wei2, nullptr, dst2, one, nullptr, one, one, nullptr));
    if (kestrel::isa::has(kestrel::isa::avx512)) {
        t.check(kt::impl_name(pd) == "direct:avx512:nCx16c", "any -> direct kernel");
        t.check(kestrel::mdw_t(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0)).matches_tag(dnnl_nChw16c),
                "any -> nChw16c src");
        t.check(kestrel::mdw_t(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0))
                        .matches_tag(dnnl_OIhw16i16o),
                "any -> OIhw16i16o weights");
        t.check(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 2, "2 inputs without bias");
    } else if (kestrel::isa::has(kestrel::isa::avx2)) { // ISA capped at AVX2
        t.check(kt::impl_name(pd) == "direct:avx2:nCx8c", "any -> direct 8c kernel under AVX2");
        t.check(kestrel::mdw_t(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0)).matches_tag(dnnl_nChw8c),
                "any -> nChw8c src under AVX2");
        t.check(kestrel::mdw_t(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0))
                        .matches_tag(dnnl_OIhw8i8o),
                "any -> OIhw8i8o weights under AVX2");
    }
    // Executing without weights is refused by the executor, without a crash.
    {
        ktc::values_t in;
        std::vector<float> s2v(2 * 32 * 64, 1.f);
        in[DNNL_ARG_SRC] = s2v;
        dnnl_status_t xst = dnnl_success;
        ktc::exec_pd(env, pd, in, std::vector<float>(2 * 48 * 64, 0.f), &xst);
        t.check(xst == dnnl_invalid_arguments, "missing weights at execution -> invalid_arguments");
    }
    dnnl_primitive_desc_destroy(pd);

    // Zero batch: accepted, executes as a no-op.
    kt::md_t src0(kt::make_md({0, 4, 5, 5}, dnnl_f32, dnnl_nchw));
    kt::md_t wei0(kt::make_md({4, 4, 3, 3}, dnnl_f32, dnnl_oihw));
    kt::md_t dst0(kt::make_md({0, 4, 5, 5}, dnnl_f32, dnnl_nchw));
    dnnl_status_t z = dnnl_convolution_forward_primitive_desc_create(&pd, env.eng, dnnl_forward_inference,
            dnnl_convolution_direct, src0, wei0, nullptr, dst0, one, nullptr, one, one, nullptr);
    t.check(z == dnnl_success, "zero batch accepted");
    if (z == dnnl_success) {
        dnnl_primitive_t p = nullptr;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<float> w(4 * 4 * 9, 1.f);
        dnnl_memory_t ms = nullptr, mw = nullptr, md = nullptr;
        KT_OK(dnnl_memory_create(&ms, src0, env.eng, nullptr));
        KT_OK(dnnl_memory_create(&mw, wei0, env.eng, w.data()));
        KT_OK(dnnl_memory_create(&md, dst0, env.eng, nullptr));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        t.check(dnnl_primitive_execute(p, env.strm, 3, args) == dnnl_success, "zero batch executes");
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mw);
        dnnl_memory_destroy(md);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    }
}

// dnnl.hpp: convolution_forward / deconvolution_forward with format any,
// reorders from plain user data into the chosen layouts and back, compared
// with the reference run on the plain layouts through the C API.
void cpp_api(kt::tally_t &t) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    for (bool deconv : {false, true}) {
        const memory::dims src_d = {2, 17, 6, 9}, wei_d = {33, 17, 3, 3}, bias_d = {33};
        const memory::dims dst_d = deconv ? memory::dims {2, 33, 6, 9} : memory::dims {2, 33, 6, 9};
        const memory::dims strides = {1, 1}, pad = {1, 1};
        std::vector<float> s(2 * 17 * 54), w(33 * 17 * 9), b(33);
        kt::rng_t r(7);
        for (auto &x : s) x = r.small_int(-2, 2);
        for (auto &x : w) x = r.small_int(-2, 2);
        for (auto &x : b) x = r.small_int(-3, 3);

        memory::desc any_src(src_d, dt::f32, tag::any), any_wei(wei_d, dt::f32, tag::any),
                any_dst(dst_d, dt::f32, tag::any), bias_md(bias_d, dt::f32, tag::a);
        post_ops po;
        po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        primitive_attr attr;
        attr.set_post_ops(po);

        memory::desc got_src, got_wei, got_dst;
        primitive prim;
        if (!deconv) {
            convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference,
                    algorithm::convolution_direct, any_src, any_wei, bias_md, any_dst, strides, pad, pad, attr);
            t.check(pd.get_strides() == strides && pd.get_padding_l() == pad, "hpp conv: strides, padding");
            t.check(pd.get_algorithm() == algorithm::convolution_direct, "hpp conv: algorithm");
            t.check(pd.bias_desc() == bias_md, "hpp conv: bias_desc");
            got_src = pd.src_desc(), got_wei = pd.weights_desc(), got_dst = pd.dst_desc();
            prim = convolution_forward(pd);
        } else {
            deconvolution_forward::primitive_desc pd(eng, prop_kind::forward_inference,
                    algorithm::deconvolution_direct, any_src, any_wei, bias_md, any_dst, strides, pad, pad, attr);
            t.check(pd.get_strides() == strides && pd.get_padding_r() == pad, "hpp deconv: strides, padding");
            t.check(pd.get_algorithm() == algorithm::deconvolution_direct, "hpp deconv: algorithm");
            got_src = pd.src_desc(), got_wei = pd.weights_desc(), got_dst = pd.dst_desc();
            prim = deconvolution_forward(pd);
        }

        memory user_src({src_d, dt::f32, tag::nchw}, eng, s.data());
        memory user_wei({wei_d, dt::f32, tag::oihw}, eng, w.data());
        memory user_bias(bias_md, eng, b.data());
        memory user_dst({dst_d, dt::f32, tag::nchw}, eng);
        memory m_src(got_src, eng), m_wei(got_wei, eng), m_dst(got_dst, eng);
        // Reorder is part of the library: if it throws, this case fails.
        bool reordered = true;
        try {
            reorder(user_src, m_src).execute(strm, user_src, m_src);
            reorder(user_wei, m_wei).execute(strm, user_wei, m_wei);
        } catch (const dnnl::error &e) {
            reordered = false;
        }
        t.check(reordered, deconv ? "hpp deconv: reorder into the chosen layouts" : "hpp conv: reorder into the chosen layouts");
        if (!reordered) continue;
        prim.execute(strm, {{DNNL_ARG_SRC, m_src}, {DNNL_ARG_WEIGHTS, m_wei}, {DNNL_ARG_BIAS, user_bias},
                {DNNL_ARG_DST, m_dst}});
        reorder(m_dst, user_dst).execute(strm, m_dst, user_dst);
        strm.wait();

        // The same problem on plain layouts through the C API reference.
        ktc::env_t env;
        kt::md_t cs(kt::make_md({2, 17, 6, 9}, dnnl_f32, dnnl_nchw)), cw(kt::make_md({33, 17, 3, 3}, dnnl_f32, dnnl_oihw)),
                cb(kt::make_md({33}, dnnl_f32, dnnl_a)), cd(kt::make_md({2, 33, 6, 9}, dnnl_f32, dnnl_nchw));
        const dim one[] = {1, 1};
        dnnl_primitive_desc_t cpd = nullptr;
        auto fn = deconv ? dnnl_deconvolution_forward_primitive_desc_create
                         : dnnl_convolution_forward_primitive_desc_create;
        KT_OK(fn(&cpd, env.eng, dnnl_forward_inference, deconv ? dnnl_deconvolution_direct : dnnl_convolution_direct,
                cs, cw, cb, cd, one, nullptr, one, one, attr.get()));
        while (kt::impl_name(cpd).rfind("ref:", 0) != 0) KT_OK(dnnl_primitive_desc_next_impl(cpd));
        ktc::values_t in;
        in[DNNL_ARG_SRC] = s;
        in[DNNL_ARG_WEIGHTS] = w;
        in[DNNL_ARG_BIAS] = b;
        auto want = ktc::exec_pd(env, cpd, in, std::vector<float>(2 * 33 * 54, 0.f));
        dnnl_primitive_desc_destroy(cpd);
        const float *got = static_cast<const float *>(user_dst.get_data_handle());
        bool same = true;
        for (size_t i = 0; i < want.size(); ++i) same = same && got[i] == want[i];
        t.check(same, deconv ? "hpp deconv with any + reorders == reference" : "hpp conv with any + reorders == reference");
    }
    // Errors surface as dnnl::error with the status.
    try {
        memory::desc a({1, 4, 5, 5}, dt::f32, tag::nchw), w({8, 3, 3, 3}, dt::f32, tag::oihw),
                d({1, 8, 5, 5}, dt::f32, tag::nchw);
        convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct,
                a, w, d, {1, 1}, {1, 1}, {1, 1});
        t.check(false, "hpp: mismatched channels throws");
    } catch (const dnnl::error &e) {
        t.check(e.status == dnnl_invalid_arguments, "hpp: mismatched channels throws invalid_arguments");
    }
}

} // namespace

int main() {
    kt::tally_t t;
    ktc::env_t env;
    bad_inputs(env, t);
    queries(env, t);
    cpp_api(t);
    return t.finish();
}
