// The conformance issue's items 3, 4, 6, 7 and 8 (s32 pooling) through dnnl.hpp: the same
// expected values as test_items_c.cpp, seen as a C++ program sees them
// (descriptors, next_impl() returning false, dnnl::error carrying the
// status).
#include <cstdint>
#include <cstdio>
#include <string>

#include "dnnl.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

int passed = 0, failed = 0;

void check(bool ok, const std::string &what) {
    if (ok) {
        ++passed;
    } else {
        ++failed;
        std::fprintf(stderr, "FAIL: %s\n", what.c_str());
    }
}

// The status a call throws, or success.
template <typename F>
dnnl_status_t status_of(F f) {
    try {
        f();
        return dnnl_success;
    } catch (const error &e) {
        return e.status;
    }
}

void item3(const engine &eng) {
    memory::desc src({2, 3, 2, 2}, dt::f32, tag::nchw), shift({3}, dt::f32, tag::a);
    batch_normalization_forward::primitive_desc bn(
            eng, prop_kind::forward_inference, src, src, 1e-5f, normalization_flags::use_shift);
    check(bn.query_md(query::exec_arg_md, DNNL_ARG_SHIFT) == shift, "hpp bnorm shift only: exec_arg_md(SHIFT)");
    check(bn.weights_desc() == shift, "hpp bnorm shift only: weights_desc()");

    memory::desc lsrc({2, 3, 4}, dt::f32, tag::bac), ba({2, 3}, dt::f32, tag::ba), lshift({4}, dt::f32, tag::a);
    layer_normalization_forward::primitive_desc ln(
            eng, prop_kind::forward_training, lsrc, lsrc, 1e-5f, normalization_flags::use_shift);
    check(ln.mean_desc() == ba, "hpp lnorm bac: mean_desc() is ba");
    check(ln.query_md(query::exec_arg_md, DNNL_ARG_MEAN) == ln.mean_desc(), "hpp lnorm: exec_arg_md(MEAN) == mean_desc()");
    check(ln.query_md(query::exec_arg_md, DNNL_ARG_SHIFT) == lshift, "hpp lnorm shift only: exec_arg_md(SHIFT)");
}

void item4() {
    memory::desc blk({2, 32, 4, 4}, dt::f32, tag::nChw16c);
    check(status_of([&] { return blk.reshape({2, 32, 16}); }) == dnnl_success
                    && blk.reshape({2, 32, 16}) == memory::desc({2, 32, 16}, dt::f32, tag::nCw16c),
            "hpp reshape nChw16c join h,w");
    check(status_of([&] { blk.reshape({2, 2, 16, 4, 4}); }) == dnnl_invalid_arguments,
            "hpp reshape splitting blocked C throws invalid_arguments");
    memory::desc pad({2, 17, 3}, dt::f32, tag::aBc16b);
    const memory::desc lead = pad.reshape({1, 2, 17, 3});
    check(lead.get_strides() == memory::dims({192, 96, 48, 16}) && lead.get_padded_dims() == memory::dims({1, 2, 32, 3})
                    && lead.get_inner_idxs() == memory::dims({2}),
            "hpp reshape padded insert 1");
    memory::desc z({0, 4}, dt::f32, tag::ab);
    check(z.reshape({0, 2, 2}) == memory::desc({0, 2, 2}, dt::f32, tag::abc), "hpp reshape zero-sized");
    check(!blk.reshape({2, 2, 16, 4, 4}, true), "hpp reshape allow_empty gives an empty handle");
}

void item6(const engine &eng) {
    // reorder::primitive_desc has no next_impl() in dnnl.hpp (it derives
    // from primitive_desc_base); test_items_c checks reorder through C.
    memory::desc a({4, 5}, dt::f32, tag::ab);
    eltwise_forward::primitive_desc epd(eng, prop_kind::forward_inference, algorithm::eltwise_relu, a, a, 0.f);
    int steps = 0;
    while (steps < 64 && epd.next_impl()) ++steps;
    check(steps < 64 && !epd.next_impl() && epd.impl_info_str() != nullptr, "hpp next_impl() ends (returns false)");

    memory::desc rt({DNNL_RUNTIME_DIM_VAL, 3}, dt::f32, memory::dims {3, 1});
    memory::desc fixed({2, 3}, dt::f32, tag::ab);
    check(status_of([&] {
        eltwise_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::eltwise_relu, rt, fixed, 0.f);
    }) == dnnl_unimplemented,
            "hpp eltwise runtime dims: unimplemented");
    memory::desc s1_bad({3, 3}, dt::f32, tag::ab);
    check(status_of([&] { binary::primitive_desc(eng, algorithm::binary_add, fixed, s1_bad, fixed); })
                    == dnnl_invalid_arguments,
            "hpp binary bad broadcast: invalid_arguments");
    memory::desc any0({2, 3}, dt::f32, tag::any);
    check(status_of([&] { binary::primitive_desc(eng, algorithm::binary_add, any0, fixed, fixed); })
                    == dnnl_invalid_arguments,
            "hpp binary src0 any: invalid_arguments");

    memory::desc m({2, 17, 3}, dt::f32, tag::aBc16b);
    const auto blob = m.get_blob();
    check(!blob.empty() && memory::desc(blob) == m, "hpp get_blob round trip");
}

void item7(const engine &eng) {
    memory::desc s({2, 3, 5, 5}, dt::f32, tag::nchw), w({4, 3, 3, 3}, dt::f32, tag::oihw), bias({4}, dt::f32, tag::a),
            d({2, 4, 3, 3}, dt::f32, tag::nchw);
    primitive_attr attr;
    attr.set_scales_mask(DNNL_ARG_BIAS, 0);
    check(status_of([&] {
        convolution_forward::primitive_desc(eng, prop_kind::forward_inference, algorithm::convolution_direct, s, w,
                bias, d, {1, 1}, {0, 0}, {0, 0}, attr);
    }) == dnnl_unimplemented,
            "hpp conv scales on BIAS: unimplemented");
    post_ops po;
    for (int i = 0; i < 32; ++i) po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    check(status_of([&] { po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f); }) == dnnl_out_of_memory,
            "hpp 33rd post-op: out_of_memory");
    check(po.len() == 32, "hpp post-op list stays at 32");
    memory::desc is({2, 0}, dt::f32, tag::ab), iw({4, 0}, dt::f32, tag::ab), id({2, 4}, dt::f32, tag::ab);
    check(status_of([&] { inner_product_forward::primitive_desc(eng, prop_kind::forward_inference, is, iw, id); })
                    == dnnl_invalid_arguments,
            "hpp inner product IC=0: invalid_arguments");
}

// Item 8 through dnnl.hpp: s32 pooling, max and average, on values past
// f32's 24-bit mantissa (so a float path would be caught), against values
// worked out here: one 1x1x2x2 window, 2x2 kernel.
void item8(const engine &eng) {
    stream strm(eng);
    memory::desc sd({1, 1, 2, 2}, dt::s32, tag::nchw), dd({1, 1, 1, 1}, dt::s32, tag::nchw);
    const int32_t in[4] = {2147483647, 2147483645, -7, 16777217};
    for (auto alg : {algorithm::pooling_max, algorithm::pooling_avg_include_padding}) {
        pooling_forward::primitive_desc pd(eng, prop_kind::forward_inference, alg, sd, dd, {1, 1}, {2, 2}, {0, 0},
                {0, 0}, {0, 0});
        memory src(sd, eng), dst(dd, eng);
        for (int i = 0; i < 4; ++i) static_cast<int32_t *>(src.get_data_handle())[i] = in[i];
        pooling_forward(pd).execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        strm.wait();
        const int32_t got = *static_cast<int32_t *>(dst.get_data_handle());
        // (2147483647 + 2147483645 - 7 + 16777217) / 4 = 1077936125.5, to
        // nearest even: 1077936126.
        const int32_t want = alg == algorithm::pooling_max ? 2147483647 : 1077936126;
        check(got == want, std::string("hpp s32 pooling ") + (alg == algorithm::pooling_max ? "max" : "avg"));
    }
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    item3(eng);
    item4();
    item6(eng);
    item7(eng);
    item8(eng);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
