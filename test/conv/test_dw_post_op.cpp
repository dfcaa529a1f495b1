// The depthwise post-op (dnnl_post_ops_append_dw / get_params_dw): what is
// appended is reported back unchanged (C and C++ API), malformed parameters
// are refused with invalid_arguments and append nothing; a 1x1 convolution
// takes it (the fused computation itself is tested in test_conv_dw_fusion)
// and reports the depthwise output as dst, while every other primitive kind
// refuses it with unimplemented (never a primitive that ignores the post-op
// and computes a dst of the wrong shape).
#include "dnnl.hpp"
#include "common/kt_test.hpp"

namespace {

kt::tally_t t;

void test_params() {
    dnnl_post_ops_t po = nullptr;
    KT_OK(dnnl_post_ops_create(&po));
    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_post_ops_append_dw(po, dnnl_f32, dnnl_f32, dnnl_f32, 3, 2, 1));
    KT_OK(dnnl_post_ops_append_dw(po, dnnl_s8, dnnl_data_type_undef, dnnl_u8, 3, 1, 1));
    t.check(dnnl_post_ops_len(po) == 3 && dnnl_post_ops_get_kind(po, 1) == dnnl_convolution,
            "a depthwise post-op is of kind convolution");
    dnnl_data_type_t w, b, d;
    dnnl_dim_t k, s, p;
    KT_OK(dnnl_post_ops_get_params_dw(po, 1, &w, &b, &d, &k, &s, &p));
    t.check(w == dnnl_f32 && b == dnnl_f32 && d == dnnl_f32 && k == 3 && s == 2 && p == 1,
            "get_params_dw gives back what was appended (f32, stride 2)");
    KT_OK(dnnl_post_ops_get_params_dw(po, 2, &w, &b, &d, &k, &s, &p));
    t.check(w == dnnl_s8 && b == dnnl_data_type_undef && d == dnnl_u8 && k == 3 && s == 1 && p == 1,
            "get_params_dw gives back what was appended (int8, no bias)");
    t.check(dnnl_post_ops_get_params_dw(po, 1, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) == dnnl_success,
            "get_params_dw with every output NULL");
    t.check(dnnl_post_ops_get_params_dw(po, 0, &w, &b, &d, &k, &s, &p) == dnnl_invalid_arguments,
            "get_params_dw on an eltwise post-op: invalid_arguments");
    t.check(dnnl_post_ops_get_params_dw(po, 3, &w, &b, &d, &k, &s, &p) == dnnl_invalid_arguments,
            "get_params_dw past the end: invalid_arguments");
    struct bad_t {
        dnnl_data_type_t w, b, d;
        dnnl_dim_t k, s, p;
        const char *what;
    } bad[] = {
            {dnnl_data_type_undef, dnnl_f32, dnnl_f32, 3, 1, 1, "undef weights type"},
            {dnnl_f32, dnnl_f32, dnnl_data_type_undef, 3, 1, 1, "undef dst type"},
            {(dnnl_data_type_t)999, dnnl_f32, dnnl_f32, 3, 1, 1, "unknown weights type"},
            {dnnl_f32, (dnnl_data_type_t)-3, dnnl_f32, 3, 1, 1, "unknown bias type"},
            {dnnl_f32, dnnl_f32, dnnl_f32, 0, 1, 1, "kernel 0"},
            {dnnl_f32, dnnl_f32, dnnl_f32, 3, 0, 1, "stride 0"},
            {dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, -1, "negative padding"},
            {dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 3, "padding as large as the kernel"},
    };
    for (const auto &x : bad)
        t.check(dnnl_post_ops_append_dw(po, x.w, x.b, x.d, x.k, x.s, x.p) == dnnl_invalid_arguments
                        && dnnl_post_ops_len(po) == 3,
                x.what);
    t.check(dnnl_post_ops_append_dw(nullptr, dnnl_f32, dnnl_f32, dnnl_f32, 3, 1, 1) == dnnl_invalid_arguments,
            "NULL post-ops");
    dnnl_post_ops_destroy(po);

    dnnl::post_ops cpo;
    using dt = dnnl::memory::data_type;
    cpo.append_dw(dt::f32, dt::undef, dt::f32, 3, 2, 1);
    dt cw, cb, cd;
    dnnl::memory::dim ck, cs, cp;
    cpo.get_params_dw(0, cw, cb, cd, ck, cs, cp);
    t.check(cw == dt::f32 && cb == dt::undef && cd == dt::f32 && ck == 3 && cs == 2 && cp == 1,
            "C++ append_dw / get_params_dw");
    dnnl_status_t st = dnnl_success;
    try {
        cpo.append_dw(dt::f32, dt::f32, dt::f32, 3, 1, 5);
    } catch (const dnnl::error &e) {
        st = e.status;
    }
    t.check(st == dnnl_invalid_arguments, "C++ append_dw with bad padding throws invalid_arguments");
}

void test_creation() {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    using namespace dnnl;
    using dt = memory::data_type;
    using tag = memory::format_tag;
    post_ops po;
    po.append_dw(dt::f32, dt::f32, dt::f32, 3, 1, 1);
    primitive_attr a;
    a.set_post_ops(po);
    // A 1x1 convolution, the problem the post-op is meant for.
    dnnl_primitive_desc_t pd = nullptr;
    memory::desc s({1, 8, 6, 6}, dt::f32, tag::nchw), w({16, 8, 1, 1}, dt::f32, tag::oihw), d({1, 16, 6, 6}, dt::f32, tag::nchw);
    const dnnl_dims_t one = {1, 1}, zero = {0, 0};
    t.check(dnnl_convolution_forward_primitive_desc_create(&pd, eng.get(), dnnl_forward_inference,
                    dnnl_convolution_direct, s.get(), w.get(), nullptr, d.get(), one, zero, zero, zero, a.get())
                            == dnnl_success
                    && pd != nullptr,
            "1x1 convolution with a depthwise post-op: created");
    if (pd) {
        const_dnnl_memory_desc_t dmd = nullptr;
        dnnl_primitive_desc_query(pd, dnnl_query_dst_md, 0, &dmd);
        t.check(dnnl_memory_desc_equal(dmd, d.get()) == 1, "its dst is the depthwise output (stride 1: same shape)");
        dnnl_primitive_desc_destroy(pd);
        pd = nullptr;
    }
    memory::desc e({2, 5}, dt::f32, tag::ab);
    t.check(dnnl_eltwise_forward_primitive_desc_create(&pd, eng.get(), dnnl_forward_inference, dnnl_eltwise_relu,
                    e.get(), e.get(), 0.f, 0.f, a.get())
                            == dnnl_unimplemented
                    && pd == nullptr,
            "eltwise with a depthwise post-op: unimplemented");
    t.check(dnnl_matmul_primitive_desc_create(&pd, eng.get(), e.get(), memory::desc({5, 3}, dt::f32, tag::ab).get(),
                    nullptr, memory::desc({2, 3}, dt::f32, tag::ab).get(), a.get())
                            == dnnl_unimplemented
                    && pd == nullptr,
            "matmul with a depthwise post-op: unimplemented");
}

} // namespace

int main() {
    test_params();
    test_creation();
    return t.finish();
}
