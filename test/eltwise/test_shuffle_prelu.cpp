// Shuffle and PReLU forward against direct formulas (both are exact: data
// movement and one multiply), over layouts, types, broadcasts and threads;
// bad input; and the dnnl.hpp classes of the five element-wise primitives.
#include "cpu/isa.hpp"
#include "dnnl.hpp"
#include "elt_test.hpp"

using namespace kestrel;

namespace {

int n_fast_shuffle = 0, n_fast_prelu = 0; // cases the first impl was not the reference

void check_shuffle(kt::tally_t &t, et::env_t &e, const std::vector<dim_t> &dims, int axis,
        dim_t g, dnnl_format_tag_t tag, dnnl_data_type_t dt) {
    kt::md_t sm(et::md(dims, dt, tag)), dm(et::md(dims, dt, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_shuffle_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, sm, dm,
            axis, g, nullptr));
    if (kt::impl_name(pd).rfind("ref", 0) != 0) ++n_fast_shuffle;
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    et::mem_t src(sm, e.eng), dst(qd, e.eng);
    for (dim_t l = 0; l < src.nelems(); ++l) src.set(l, (float)(l % 251) - 100.f);
    et::run(pd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_DST, dst.m}});
    dim_t inner = 1;
    for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
    const dim_t C = dims[axis], cg = C / g;
    bool ok = true;
    for (dim_t l = 0; l < dst.nelems() && ok; ++l) {
        dim_t c = l / inner % C;
        dim_t cs = (c % cg) * g + c / cg;
        ok = dst.get(l) == src.get(l + (cs - c) * inner);
    }
    char what[128];
    std::snprintf(what, sizeof(what), "shuffle C=%ld g=%ld axis %d tag %d dt %d", (long)C,
            (long)g, axis, (int)tag, (int)dt);
    t.check(ok && dst.padding_zero(), what);
    dnnl_primitive_desc_destroy(pd);
}

void check_prelu(kt::tally_t &t, et::env_t &e, const std::vector<dim_t> &dims,
        const std::vector<dim_t> &wdims, dnnl_format_tag_t tag, dnnl_data_type_t dt) {
    kt::md_t sm(et::md(dims, dt, tag)), wm(et::md(wdims, dnnl_f32, dnnl_format_tag_any));
    kt::md_t dm(et::md(dims, dt, dnnl_format_tag_any));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_prelu_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_training, sm, wm, dm,
            nullptr));
    if (kt::impl_name(pd).rfind("ref", 0) != 0) ++n_fast_prelu;
    const_dnnl_memory_desc_t qw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const_dnnl_memory_desc_t qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    et::mem_t src(sm, e.eng), w(qw, e.eng), dst(qd, e.eng);
    src.fill(5, -4, 4);
    w.fill(6, -1, 1);
    et::run(pd, e.strm, {{DNNL_ARG_SRC, src.m}, {DNNL_ARG_WEIGHTS, w.m}, {DNNL_ARG_DST, dst.m}});
    bool ok = true;
    std::vector<dim_t> pos(dims.size());
    for (dim_t l = 0; l < dst.nelems() && ok; ++l) {
        dim_t rem = l, lw = 0, m = 1;
        for (int i = (int)dims.size() - 1; i >= 0; --i) {
            pos[i] = rem % dims[i];
            rem /= dims[i];
        }
        for (int i = (int)dims.size() - 1; i >= 0; --i) {
            lw += (wdims[i] == 1 ? 0 : pos[i]) * m;
            m *= wdims[i];
        }
        float x = src.get(l), want = x > 0 ? x : w.get(lw) * x;
        if (dt == dnnl_bf16) want = bf16_to_f32(f32_to_bf16(want));
        ok = dst.get(l) == want;
    }
    char what[128];
    std::snprintf(what, sizeof(what), "prelu C=%ld wC=%ld tag %d dt %d", (long)dims[1],
            (long)wdims[1], (int)tag, (int)dt);
    t.check(ok && dst.padding_zero(), what);
    dnnl_primitive_desc_destroy(pd);
}

void check_bad(kt::tally_t &t, et::env_t &e) {
    kt::md_t a(et::md({2, 6, 4}, dnnl_f32, dnnl_abc)), b(et::md({2, 5, 4}, dnnl_f32, dnnl_abc));
    dnnl_primitive_desc_t pd = nullptr;
    t.check(dnnl_shuffle_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a, a,
                    1, 4, nullptr) == dnnl_invalid_arguments,
            "shuffle group not dividing the axis -> invalid");
    t.check(dnnl_shuffle_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a, a,
                    3, 1, nullptr) == dnnl_invalid_arguments,
            "shuffle axis out of range -> invalid");
    t.check(dnnl_shuffle_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a, b,
                    1, 1, nullptr) == dnnl_invalid_arguments,
            "shuffle dims mismatch -> invalid");
    t.check(dnnl_prelu_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a, b, a,
                    nullptr) == dnnl_invalid_arguments,
            "prelu weights not broadcastable -> invalid");
    t.check(dnnl_prelu_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a,
                    nullptr, a, nullptr) == dnnl_invalid_arguments,
            "prelu NULL weights -> invalid");
    KT_OK(dnnl_shuffle_forward_primitive_desc_create(&pd, e.eng, dnnl_forward_inference, a, a, 1,
            3, nullptr));
    int axis = 0;
    dnnl_dim_t g = 0;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_axis_s32, 0, &axis));
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_group_size_s64, 0, &g));
    t.check(axis == 1 && g == 3, "shuffle queries");
    dnnl_primitive_desc_destroy(pd);
}

// The C++ classes end to end on one small tensor each.
void check_cpp(kt::tally_t &t) {
    using namespace dnnl;
    using tag = memory::format_tag;
    using dt = memory::data_type;
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    memory::desc md({2, 16, 3, 3}, dt::f32, tag::nChw16c), any({2, 16, 3, 3}, dt::f32, tag::any);
    memory src(md, eng), src1(md, eng), dst(md, eng);
    float *x = (float *)src.get_data_handle(), *y = (float *)src1.get_data_handle();
    const size_t n = md.get_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) {
        x[i] = (float)((int)(i % 7) - 3);
        y[i] = 2.f;
    }
    const float *d = (const float *)dst.get_data_handle();

    eltwise_forward::primitive_desc epd(eng, prop_kind::forward_inference, algorithm::eltwise_relu,
            md, any, 0.5f);
    t.check(epd.get_algorithm() == algorithm::eltwise_relu && epd.get_alpha() == 0.5f
                    && epd.dst_desc() == md,
            "C++ eltwise_forward pd queries");
    eltwise_forward(epd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    s.wait();
    t.check(d[0] == -1.5f && d[4] == 1.f, "C++ eltwise_forward computes relu");

    binary::primitive_desc bpd(eng, algorithm::binary_mul, md, md, any);
    binary(bpd).execute(s, {{DNNL_ARG_SRC_0, src}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}});
    s.wait();
    t.check(d[0] == -6.f && d[5] == 4.f, "C++ binary computes mul");

    softmax_forward::primitive_desc spd(eng, prop_kind::forward_inference,
            algorithm::softmax_accurate, md, any, 1);
    t.check(spd.get_axis() == 1, "C++ softmax_forward pd axis");
    softmax_forward(spd).execute(s, {{DNNL_ARG_SRC, src1}, {DNNL_ARG_DST, dst}});
    s.wait();
    t.check(std::fabs(d[0] - 1.f / 16) < 1e-7f, "C++ softmax_forward of equal inputs is 1/C");

    shuffle_forward::primitive_desc shpd(eng, prop_kind::forward_inference, md, any, 1, 4);
    shuffle_forward(shpd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    s.wait();
    // dst channel 1 reads src channel (1 % 4) * 4 + 1 / 4 = 4.
    t.check(d[1] == x[4], "C++ shuffle_forward moves channels");

    memory::desc wmd({1, 16, 1, 1}, dt::f32, tag::nchw);
    memory w(wmd, eng);
    for (int c = 0; c < 16; ++c) ((float *)w.get_data_handle())[c] = 0.25f;
    prelu_forward::primitive_desc ppd(eng, prop_kind::forward_training, md, wmd, any);
    prelu_forward(ppd).execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, dst}});
    s.wait();
    t.check(d[0] == -0.75f && d[4] == 1.f, "C++ prelu_forward computes x or w*x");

    bool threw = false;
    try {
        eltwise_forward::primitive_desc bad(eng, prop_kind::forward_inference,
                algorithm::eltwise_relu, md, memory::desc({2, 8}, dt::f32, tag::ab));
    } catch (const dnnl::error &err) {
        threw = err.status == dnnl_invalid_arguments;
    }
    t.check(threw, "C++ eltwise_forward bad dims throws invalid_arguments");
}

} // namespace

int main() {
    kt::tally_t t;
    et::env_t e;
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (auto tag : {dnnl_nchw, dnnl_nhwc, dnnl_nChw16c, dnnl_nChw8c})
                for (auto dt : {dnnl_f32, dnnl_bf16, dnnl_s8}) {
                    for (dim_t c : {1, 3, 15, 16, 17, 33})
                        for (dim_t g : {(dim_t)1, c % 3 == 0 ? (dim_t)3 : c})
                            check_shuffle(t, e, {2, c, 3, 5}, 1, g, tag, dt);
                    check_shuffle(t, e, {4, 6, 3, 5}, 0, 2, tag, dt);
                    check_shuffle(t, e, {2, 6, 4, 5}, 2, 2, tag, dt);
                    if (dt == dnnl_s8) continue;
                    for (dim_t c : {1, 3, 16, 17, 33}) {
                        check_prelu(t, e, {2, c, 3, 5}, {1, 1, 1, 1}, tag, dt);
                        check_prelu(t, e, {2, c, 3, 5}, {1, c, 1, 1}, tag, dt);
                        check_prelu(t, e, {2, c, 3, 5}, {2, c, 3, 5}, tag, dt);
                        check_prelu(t, e, {2, c, 3, 5}, {2, 1, 3, 1}, tag, dt);
                    }
                }
        });
    // Plain layouts take the copy shuffle; scalar, per-channel and full
    // weights take the vectorised PReLU (where the CPU has AVX2).
    t.check(n_fast_shuffle >= 100, "the copy shuffle served the plain layouts");
    t.check(n_fast_prelu >= 150 || !isa::has(isa::avx2), "the vectorised prelu served most cases");
    check_bad(t, e);
    check_cpp(t);
    return t.finish();
}
