// Conformance by API behaviour, over every forward primitive kind Kestrel
// implements, through the C API only:
//   - queries on the primitive descriptor: primitive kind, prop kind,
//     number of inputs and outputs, implementation name, and exec_arg_md
//     for every argument (the ones the primitive takes and the ones it
//     does not: those answer a zero descriptor);
//   - dnnl_primitive_desc_next_impl walked to the end answers
//     dnnl_last_impl_reached and leaves a usable descriptor;
//   - runtime dims on a kind that does not support them: dnnl_unimplemented;
//   - attributes the kind cannot honour: dnnl_unimplemented at creation.
// Expected values come from oneDNN v3.9's documentation (the execution
// argument table of each primitive's developer guide, the C API reference
// for the statuses). Where the documentation is silent, the check says so.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "dnnl.h"

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

dnnl_engine_t eng = nullptr;

// Descriptors live until the end of the program (the table keeps them).
std::vector<dnnl_memory_desc_t> all_mds;

const_dnnl_memory_desc_t md(std::initializer_list<dnnl_dim_t> dims, dnnl_format_tag_t tag,
        dnnl_data_type_t dt = dnnl_f32) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    dnnl_memory_desc_t m = nullptr;
    if (dnnl_memory_desc_create_with_tag(&m, n, d, dt, tag) != dnnl_success) {
        std::fprintf(stderr, "cannot create a test descriptor\n");
        std::exit(1);
    }
    all_mds.push_back(m);
    return m;
}

// The same dims with the first one a runtime dim (plain strides, which a
// runtime dim in the first position does not change).
const_dnnl_memory_desc_t rt_md(const_dnnl_memory_desc_t like) {
    int nd = 0;
    const dnnl_dims_t *dims = nullptr;
    dnnl_data_type_t dt;
    dnnl_memory_desc_query(like, dnnl_query_ndims_s32, &nd);
    dnnl_memory_desc_query(like, dnnl_query_dims, &dims);
    dnnl_memory_desc_query(like, dnnl_query_data_type, &dt);
    dnnl_dims_t d;
    std::memcpy(d, *dims, sizeof(d));
    d[0] = DNNL_RUNTIME_DIM_VAL;
    dnnl_dims_t strides = {};
    dnnl_dim_t s = 1;
    for (int i = nd - 1; i >= 1; --i) {
        strides[i] = s;
        s *= d[i];
    }
    strides[0] = s;
    dnnl_memory_desc_t m = nullptr;
    if (dnnl_memory_desc_create_with_strides(&m, nd, d, dt, strides) != dnnl_success) {
        std::fprintf(stderr, "cannot create a runtime descriptor\n");
        std::exit(1);
    }
    all_mds.push_back(m);
    return m;
}

// One argument of a primitive and the descriptor exec_arg_md must give.
struct arg_t {
    int arg;
    const_dnnl_memory_desc_t md;
};

// How to create a kind's descriptor: `rt` makes the source a runtime-dim
// descriptor.
using create_fn_t = std::function<dnnl_status_t(dnnl_primitive_desc_t *, const_dnnl_primitive_attr_t, bool rt)>;

struct kind_case_t {
    const char *name;
    dnnl_primitive_kind_t kind;
    // The prop kind passed at creation, or undef when the kind takes none
    // (the documentation does not say what such a descriptor reports, so
    // that query is not checked for them).
    dnnl_prop_kind_t prop;
    int n_inputs, n_outputs;
    std::vector<arg_t> args;
    create_fn_t create;
    bool supports_runtime_dims = false;
    // Post-op kinds the documentation lists as not supported by this kind.
    bool refuses_eltwise_post_op = false;
    bool refuses_prelu_post_op = true;
    // Max pooling for training: exec_arg_md(WORKSPACE) is the (non-zero)
    // workspace_md; its layout is the implementation's own.
    bool has_workspace = false;
};

// Arguments no forward primitive of these kinds takes unless listed.
const int probe_args[] = {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_DST,
        DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE,
        DNNL_ARG_SHIFT, DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_DST,
        DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_MULTIPLE_SRC, DNNL_ARG_MULTIPLE_SRC + 1};

const_dnnl_memory_desc_t q_md(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int idx) {
    const_dnnl_memory_desc_t m = nullptr;
    if (dnnl_primitive_desc_query(pd, what, idx, &m) != dnnl_success) return nullptr;
    return m;
}

int ndims_of(const_dnnl_memory_desc_t m) {
    int nd = -1;
    dnnl_memory_desc_query(m, dnnl_query_ndims_s32, &nd);
    return nd;
}

void check_queries(const kind_case_t &k, const_dnnl_primitive_desc_t pd) {
    const std::string n = k.name;
    dnnl_primitive_kind_t pk = dnnl_undefined_primitive;
    check(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &pk) == dnnl_success
                    && pk == k.kind,
            n + ": primitive_kind");
    if (k.prop != dnnl_prop_kind_undef) {
        dnnl_prop_kind_t p = dnnl_prop_kind_undef;
        check(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &p) == dnnl_success && p == k.prop,
                n + ": prop_kind is the one passed");
    }
    int ni = -1, no = -1;
    check(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &ni) == dnnl_success
                    && ni == k.n_inputs,
            n + ": num_of_inputs = " + std::to_string(k.n_inputs) + " (got " + std::to_string(ni) + ")");
    check(dnnl_primitive_desc_query(pd, dnnl_query_num_of_outputs_s32, 0, &no) == dnnl_success
                    && no == k.n_outputs,
            n + ": num_of_outputs = " + std::to_string(k.n_outputs) + " (got " + std::to_string(no) + ")");
    const char *info = nullptr;
    check(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &info) == dnnl_success && info
                    && info[0] != '\0',
            n + ": impl_info_str non-empty");
    for (const auto &a : k.args) {
        const_dnnl_memory_desc_t got = nullptr;
        const dnnl_status_t st = dnnl_primitive_desc_query(pd, dnnl_query_exec_arg_md, a.arg, &got);
        check(st == dnnl_success && got && dnnl_memory_desc_equal(got, a.md),
                n + ": exec_arg_md(" + std::to_string(a.arg) + ") is the argument's descriptor");
    }
    if (k.has_workspace) {
        const_dnnl_memory_desc_t ws = q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_WORKSPACE);
        check(ws && ndims_of(ws) > 0 && dnnl_memory_desc_equal(ws, q_md(pd, dnnl_query_workspace_md, 0)),
                n + ": exec_arg_md(WORKSPACE) is the non-zero workspace_md");
    }
    for (int arg : probe_args) {
        if (k.has_workspace && arg == DNNL_ARG_WORKSPACE) continue;
        bool listed = false;
        for (const auto &a : k.args) listed = listed || a.arg == arg;
        if (listed) continue;
        const_dnnl_memory_desc_t got = nullptr;
        const dnnl_status_t st = dnnl_primitive_desc_query(pd, dnnl_query_exec_arg_md, arg, &got);
        check(st == dnnl_success && got && ndims_of(got) == 0,
                n + ": exec_arg_md(" + std::to_string(arg) + ") of an argument not taken is a zero descriptor");
    }
    // Library scratchpad mode (the default): no scratchpad argument.
    const_dnnl_memory_desc_t sp = nullptr;
    check(dnnl_primitive_desc_query(pd, dnnl_query_exec_arg_md, DNNL_ARG_SCRATCHPAD, &sp) == dnnl_success
                    && sp && ndims_of(sp) == 0,
            n + ": exec_arg_md(SCRATCHPAD) is zero in library scratchpad mode");
}

void check_user_scratchpad(const kind_case_t &k) {
    dnnl_primitive_attr_t attr = nullptr;
    dnnl_primitive_attr_create(&attr);
    dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = k.create(&pd, attr, false);
    check(st == dnnl_success, std::string(k.name) + ": created with user scratchpad");
    if (st == dnnl_success) {
        const_dnnl_memory_desc_t a = nullptr, b = nullptr;
        dnnl_primitive_desc_query(pd, dnnl_query_exec_arg_md, DNNL_ARG_SCRATCHPAD, &a);
        dnnl_primitive_desc_query(pd, dnnl_query_scratchpad_md, 0, &b);
        check(a && b && dnnl_memory_desc_equal(a, b),
                std::string(k.name) + ": exec_arg_md(SCRATCHPAD) equals scratchpad_md in user mode");
        dnnl_primitive_desc_destroy(pd);
    }
    dnnl_primitive_attr_destroy(attr);
}

void check_next_impl(const kind_case_t &k) {
    const std::string n = k.name;
    dnnl_primitive_desc_t pd = nullptr;
    if (k.create(&pd, nullptr, false) != dnnl_success) return;
    dnnl_status_t st = dnnl_success;
    int steps = 0;
    while (steps < 64 && (st = dnnl_primitive_desc_next_impl(pd)) == dnnl_success) ++steps;
    check(st == dnnl_last_impl_reached, n + ": next_impl ends with dnnl_last_impl_reached (after "
                    + std::to_string(steps) + " more implementations)");
    // Once more: still the end, and the descriptor still answers.
    check(dnnl_primitive_desc_next_impl(pd) == dnnl_last_impl_reached, n + ": next_impl stays at the end");
    const char *info = nullptr;
    check(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &info) == dnnl_success && info
                    && info[0] != '\0',
            n + ": descriptor usable after last_impl_reached");
    dnnl_primitive_desc_destroy(pd);
}

void check_runtime(const kind_case_t &k) {
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = k.create(&pd, nullptr, true);
    if (k.supports_runtime_dims) {
        // matmul: runtime dims are documented as supported.
        check(st == dnnl_success, std::string(k.name) + ": runtime dims accepted (documented)");
    } else {
        check(st == dnnl_unimplemented, std::string(k.name) + ": runtime dims -> dnnl_unimplemented (got "
                        + std::to_string(st) + ")");
        check(pd == nullptr, std::string(k.name) + ": failed creation writes no descriptor");
    }
    if (st == dnnl_success) dnnl_primitive_desc_destroy(pd);
}

// Creation with `attr` must answer unimplemented.
void expect_refused(const kind_case_t &k, dnnl_primitive_attr_t attr, const std::string &what) {
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = k.create(&pd, attr, false);
    check(st == dnnl_unimplemented && pd == nullptr,
            std::string(k.name) + ": " + what + " -> dnnl_unimplemented (got " + std::to_string(st) + ")");
    if (st == dnnl_success) dnnl_primitive_desc_destroy(pd);
}

void check_attrs(const kind_case_t &k) {
    // Scales and zero points on arguments no primitive of these kinds
    // quantizes: oneDNN's setters accept any argument, creation refuses.
    for (int arg : {DNNL_ARG_BIAS, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_WORKSPACE, DNNL_ARG_SHIFT}) {
        dnnl_primitive_attr_t a = nullptr;
        dnnl_primitive_attr_create(&a);
        check(dnnl_primitive_attr_set_scales_mask(a, arg, 0) == dnnl_success, "set_scales_mask accepts any arg");
        expect_refused(k, a, "scales on arg " + std::to_string(arg));
        dnnl_primitive_attr_destroy(a);
        dnnl_primitive_attr_create(&a);
        check(dnnl_primitive_attr_set_zero_points_mask(a, arg, 0) == dnnl_success,
                "set_zero_points_mask accepts any arg");
        expect_refused(k, a, "zero points on arg " + std::to_string(arg));
        dnnl_primitive_attr_destroy(a);
    }
    // Stochastic rounding: documented for f8/f16/bf16 destinations only;
    // every destination here is f32.
    {
        dnnl_primitive_attr_t a = nullptr;
        dnnl_primitive_attr_create(&a);
        dnnl_primitive_attr_set_rounding(a, DNNL_ARG_DST, dnnl_rounding_mode_stochastic);
        expect_refused(k, a, "stochastic rounding of an f32 dst");
        dnnl_primitive_attr_destroy(a);
    }
    if (k.refuses_prelu_post_op) {
        dnnl_primitive_attr_t a = nullptr;
        dnnl_post_ops_t po = nullptr;
        dnnl_primitive_attr_create(&a);
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_prelu(po, 0);
        dnnl_primitive_attr_set_post_ops(a, po);
        expect_refused(k, a, "prelu post-op");
        dnnl_post_ops_destroy(po);
        dnnl_primitive_attr_destroy(a);
    }
    if (k.refuses_eltwise_post_op) {
        dnnl_primitive_attr_t a = nullptr;
        dnnl_post_ops_t po = nullptr;
        dnnl_primitive_attr_create(&a);
        dnnl_post_ops_create(&po);
        dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f);
        dnnl_primitive_attr_set_post_ops(a, po);
        expect_refused(k, a, "eltwise post-op");
        dnnl_post_ops_destroy(po);
        dnnl_primitive_attr_destroy(a);
    }
}

std::vector<kind_case_t> make_cases() {
    std::vector<kind_case_t> v;
    const auto fi = dnnl_forward_inference, ft = dnnl_forward_training;

    { // convolution
        auto s = md({2, 3, 5, 5}, dnnl_nchw), w = md({4, 3, 3, 3}, dnnl_oihw), b = md({4}, dnnl_a),
             d = md({2, 4, 3, 3}, dnnl_nchw);
        kind_case_t k {"convolution", dnnl_convolution, fi, 3, 1,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    const dnnl_dims_t st = {1, 1}, dl = {0, 0}, p = {0, 0};
                    return dnnl_convolution_forward_primitive_desc_create(pd, eng, fi,
                            dnnl_convolution_direct, rt ? rt_md(s) : s, w, b, d, st, dl, p, p, a);
                }};
        k.refuses_prelu_post_op = false; // documented as supported
        v.push_back(k);
    }
    { // deconvolution
        auto s = md({2, 3, 3, 3}, dnnl_nchw), w = md({4, 3, 3, 3}, dnnl_oihw), b = md({4}, dnnl_a),
             d = md({2, 4, 5, 5}, dnnl_nchw);
        kind_case_t k {"deconvolution", dnnl_deconvolution, fi, 3, 1,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    const dnnl_dims_t st = {1, 1}, dl = {0, 0}, p = {0, 0};
                    return dnnl_deconvolution_forward_primitive_desc_create(pd, eng, fi,
                            dnnl_deconvolution_direct, rt ? rt_md(s) : s, w, b, d, st, dl, p, p, a);
                }};
        k.refuses_prelu_post_op = false;
        v.push_back(k);
    }
    { // inner product
        auto s = md({2, 3}, dnnl_ab), w = md({4, 3}, dnnl_ab), b = md({4}, dnnl_a), d = md({2, 4}, dnnl_ab);
        kind_case_t k {"inner_product", dnnl_inner_product, fi, 3, 1,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_inner_product_forward_primitive_desc_create(
                            pd, eng, fi, rt ? rt_md(s) : s, w, b, d, a);
                }};
        k.refuses_prelu_post_op = false;
        v.push_back(k);
    }
    { // matmul
        auto s = md({2, 3}, dnnl_ab), w = md({3, 4}, dnnl_ab), b = md({1, 4}, dnnl_ab), d = md({2, 4}, dnnl_ab);
        kind_case_t k {"matmul", dnnl_matmul, dnnl_prop_kind_undef, 3, 1,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_matmul_primitive_desc_create(
                            pd, eng, rt ? rt_md(s) : s, w, b, rt ? rt_md(d) : d, a);
                }};
        k.supports_runtime_dims = true;
        k.refuses_prelu_post_op = false;
        v.push_back(k);
    }
    { // pooling, max, training: a workspace output
        auto s = md({1, 2, 4, 4}, dnnl_nchw), d = md({1, 2, 2, 2}, dnnl_nchw);
        kind_case_t k {"pooling", dnnl_pooling, ft, 1, 2, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    const dnnl_dims_t st = {2, 2}, ker = {2, 2}, dl = {0, 0}, p = {0, 0};
                    return dnnl_pooling_forward_primitive_desc_create(pd, eng, ft, dnnl_pooling_max,
                            rt ? rt_md(s) : s, d, st, ker, dl, p, p, a);
                }};
        k.has_workspace = true;
        v.push_back(k);
    }
    { // eltwise
        auto s = md({2, 3}, dnnl_ab), d = md({2, 3}, dnnl_ab);
        v.push_back({"eltwise", dnnl_eltwise, fi, 1, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_eltwise_forward_primitive_desc_create(
                            pd, eng, fi, dnnl_eltwise_relu, rt ? rt_md(s) : s, d, 0.f, 0.f, a);
                }});
    }
    { // binary
        auto s0 = md({2, 3}, dnnl_ab), s1 = md({2, 3}, dnnl_ab), d = md({2, 3}, dnnl_ab);
        v.push_back({"binary", dnnl_binary, dnnl_prop_kind_undef, 2, 1,
                {{DNNL_ARG_SRC_0, s0}, {DNNL_ARG_SRC_1, s1}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_binary_primitive_desc_create(
                            pd, eng, dnnl_binary_add, rt ? rt_md(s0) : s0, s1, d, a);
                }});
    }
    { // softmax
        auto s = md({2, 3}, dnnl_ab), d = md({2, 3}, dnnl_ab);
        v.push_back({"softmax", dnnl_softmax, fi, 1, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_softmax_forward_primitive_desc_create(
                            pd, eng, fi, dnnl_softmax_accurate, rt ? rt_md(s) : s, d, 1, a);
                }});
    }
    { // batch normalization, training, scale and shift
        auto s = md({2, 3, 2, 2}, dnnl_nchw), d = md({2, 3, 2, 2}, dnnl_nchw), st = md({3}, dnnl_a);
        kind_case_t k {"batch_normalization", dnnl_batch_normalization, ft, 3, 3,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}, {DNNL_ARG_MEAN, st}, {DNNL_ARG_VARIANCE, st},
                        {DNNL_ARG_SCALE, st}, {DNNL_ARG_SHIFT, st}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_batch_normalization_forward_primitive_desc_create(pd, eng, ft,
                            rt ? rt_md(s) : s, d, 1e-5f, dnnl_use_scale | dnnl_use_shift, a);
                }};
        // oneDNN documents one eltwise relu post-op for batch normalization
        v.push_back(k);
    }
    { // layer normalization, training, scale and shift
        auto s = md({2, 3, 4}, dnnl_abc), d = md({2, 3, 4}, dnnl_abc), st = md({2, 3}, dnnl_ab),
             ss = md({4}, dnnl_a);
        v.push_back({"layer_normalization", dnnl_layer_normalization, ft, 3, 3,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}, {DNNL_ARG_MEAN, st}, {DNNL_ARG_VARIANCE, st},
                        {DNNL_ARG_SCALE, ss}, {DNNL_ARG_SHIFT, ss}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_layer_normalization_forward_primitive_desc_create(pd, eng, ft,
                            rt ? rt_md(s) : s, d, nullptr, 1e-5f, dnnl_use_scale | dnnl_use_shift, a);
                }});
    }
    { // group normalization, training, scale and shift
        auto s = md({2, 4, 3}, dnnl_abc), d = md({2, 4, 3}, dnnl_abc), st = md({2, 2}, dnnl_ab),
             ss = md({4}, dnnl_a);
        v.push_back({"group_normalization", dnnl_group_normalization, ft, 3, 3,
                {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}, {DNNL_ARG_MEAN, st}, {DNNL_ARG_VARIANCE, st},
                        {DNNL_ARG_SCALE, ss}, {DNNL_ARG_SHIFT, ss}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_group_normalization_forward_primitive_desc_create(pd, eng, ft,
                            rt ? rt_md(s) : s, d, 2, 1e-5f, dnnl_use_scale | dnnl_use_shift, a);
                }});
    }
    { // LRN, inference
        auto s = md({1, 4, 3, 3}, dnnl_nchw), d = md({1, 4, 3, 3}, dnnl_nchw);
        kind_case_t k {"lrn", dnnl_lrn, fi, 1, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_lrn_forward_primitive_desc_create(pd, eng, fi, dnnl_lrn_across_channels,
                            rt ? rt_md(s) : s, d, 3, 1e-4f, 0.75f, 1.f, a);
                }};
        k.refuses_eltwise_post_op = true;
        v.push_back(k);
    }
    { // PReLU
        auto s = md({2, 3}, dnnl_ab), w = md({1, 3}, dnnl_ab), d = md({2, 3}, dnnl_ab);
        kind_case_t k {"prelu", dnnl_prelu, fi, 2, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_prelu_forward_primitive_desc_create(pd, eng, fi, rt ? rt_md(s) : s, w, d, a);
                }};
        k.refuses_eltwise_post_op = true;
        v.push_back(k);
    }
    { // reduction
        auto s = md({2, 3}, dnnl_ab), d = md({1, 3}, dnnl_ab);
        v.push_back({"reduction", dnnl_reduction, dnnl_prop_kind_undef, 1, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_reduction_primitive_desc_create(
                            pd, eng, dnnl_reduction_sum, rt ? rt_md(s) : s, d, 0.f, 0.f, a);
                }});
    }
    { // resampling
        auto s = md({1, 2, 2}, dnnl_abc), d = md({1, 2, 4}, dnnl_abc);
        v.push_back({"resampling", dnnl_resampling, fi, 1, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_resampling_forward_primitive_desc_create(
                            pd, eng, fi, dnnl_resampling_nearest, nullptr, rt ? rt_md(s) : s, d, a);
                }});
    }
    { // shuffle
        auto s = md({2, 4}, dnnl_ab), d = md({2, 4}, dnnl_ab);
        kind_case_t k {"shuffle", dnnl_shuffle, fi, 1, 1, {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_shuffle_forward_primitive_desc_create(pd, eng, fi, rt ? rt_md(s) : s, d, 1, 2, a);
                }};
        k.refuses_eltwise_post_op = true;
        v.push_back(k);
    }
    { // reorder
        auto s = md({2, 3}, dnnl_ab), d = md({2, 3}, dnnl_ba);
        kind_case_t k {"reorder", dnnl_reorder, dnnl_prop_kind_undef, 1, 1, {{DNNL_ARG_FROM, s}, {DNNL_ARG_TO, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    return dnnl_reorder_primitive_desc_create(pd, rt ? rt_md(s) : s, eng, d, eng, a);
                }};
        k.refuses_eltwise_post_op = true; // only sum is documented for reorder
        v.push_back(k);
    }
    { // sum
        auto s0 = md({2, 3}, dnnl_ab), s1 = md({2, 3}, dnnl_ab), d = md({2, 3}, dnnl_ab);
        kind_case_t k {"sum", dnnl_sum, dnnl_prop_kind_undef, 2, 1,
                {{DNNL_ARG_MULTIPLE_SRC, s0}, {DNNL_ARG_MULTIPLE_SRC + 1, s1}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    const float sc[2] = {1.f, 1.f};
                    const_dnnl_memory_desc_t srcs[2] = {rt ? rt_md(s0) : s0, s1};
                    return dnnl_sum_primitive_desc_create(pd, eng, d, 2, sc, srcs, a);
                }};
        k.refuses_eltwise_post_op = true;
        v.push_back(k);
    }
    { // concat
        auto s0 = md({2, 3}, dnnl_ab), s1 = md({2, 3}, dnnl_ab), d = md({4, 3}, dnnl_ab);
        kind_case_t k {"concat", dnnl_concat, dnnl_prop_kind_undef, 2, 1,
                {{DNNL_ARG_MULTIPLE_SRC, s0}, {DNNL_ARG_MULTIPLE_SRC + 1, s1}, {DNNL_ARG_DST, d}},
                [=](dnnl_primitive_desc_t *pd, const_dnnl_primitive_attr_t a, bool rt) {
                    const_dnnl_memory_desc_t srcs[2] = {rt ? rt_md(s0) : s0, s1};
                    return dnnl_concat_primitive_desc_create(pd, eng, d, 2, 0, srcs, a);
                }};
        k.refuses_eltwise_post_op = true;
        v.push_back(k);
    }
    return v;
}

} // namespace

int main() {
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) {
        std::fprintf(stderr, "no CPU engine\n");
        return 1;
    }
    const auto cases = make_cases();
    for (const auto &k : cases) {
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t st = k.create(&pd, nullptr, false);
        check(st == dnnl_success, std::string(k.name) + ": created");
        if (st != dnnl_success) continue;
        check_queries(k, pd);
        dnnl_primitive_desc_destroy(pd);
        check_user_scratchpad(k);
        check_next_impl(k);
        check_runtime(k);
        check_attrs(k);
    }
    for (auto m : all_mds) dnnl_memory_desc_destroy(m);
    dnnl_engine_destroy(eng);
    std::printf("%d primitive kinds checked\n%d passed, %d failed\n", (int)cases.size(), passed, failed);
    return failed ? 1 : 0;
}
