// Regression tests, through the C API only, for the conformance issue's
// items on queries (3), reshape (4), status codes (6) and attributes that
// must be refused rather than ignored (7). Expected values: oneDNN v3.9's
// documentation and C API reference.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

// Owns a descriptor made from dims and a tag.
struct md_t {
    dnnl_memory_desc_t h = nullptr;
    md_t(std::initializer_list<dnnl_dim_t> dims, dnnl_format_tag_t tag, dnnl_data_type_t dt = dnnl_f32) {
        dnnl_dims_t d = {};
        int n = 0;
        for (auto v : dims) d[n++] = v;
        if (dnnl_memory_desc_create_with_tag(&h, n, d, dt, tag) != dnnl_success) {
            std::fprintf(stderr, "cannot create a test descriptor\n");
            std::exit(1);
        }
    }
    explicit md_t(dnnl_memory_desc_t x) : h(x) {}
    md_t(const md_t &) = delete;
    ~md_t() { dnnl_memory_desc_destroy(h); }
    operator const_dnnl_memory_desc_t() const { return h; }
};

const_dnnl_memory_desc_t q_md(const_dnnl_primitive_desc_t pd, dnnl_query_t what, int idx) {
    const_dnnl_memory_desc_t m = nullptr;
    if (dnnl_primitive_desc_query(pd, what, idx, &m) != dnnl_success) return nullptr;
    return m;
}

bool is_zero_md(const_dnnl_memory_desc_t m) {
    int nd = -1;
    return m && dnnl_memory_desc_query(m, dnnl_query_ndims_s32, &nd) == dnnl_success && nd == 0;
}

// ------------------------------------------------------------------ item 3

void item3_shift_only() {
    {
        md_t src({2, 3, 2, 2}, dnnl_nchw), shift({3}, dnnl_a);
        dnnl_primitive_desc_t pd = nullptr;
        check(dnnl_batch_normalization_forward_primitive_desc_create(
                      &pd, eng, dnnl_forward_inference, src, src, 1e-5f, dnnl_use_shift, nullptr)
                        == dnnl_success,
                "bnorm shift only: created");
        check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SHIFT), shift),
                "bnorm shift only: exec_arg_md(SHIFT) is {C} f32");
        check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_weights_md, 0), shift),
                "bnorm shift only: weights_md(0) is the scale/shift descriptor");
        int ni = 0;
        dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &ni);
        check(ni == 2, "bnorm shift only: 2 inputs (src, shift)");
        dnnl_primitive_desc_destroy(pd);
    }
    {
        md_t src({2, 3, 4}, dnnl_abc), shift({4}, dnnl_a);
        dnnl_primitive_desc_t pd = nullptr;
        check(dnnl_layer_normalization_forward_primitive_desc_create(
                      &pd, eng, dnnl_forward_inference, src, src, nullptr, 1e-5f, dnnl_use_shift, nullptr)
                        == dnnl_success,
                "lnorm shift only: created");
        check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_SHIFT), shift),
                "lnorm shift only: exec_arg_md(SHIFT) is {C} f32");
        check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_weights_md, 0), shift),
                "lnorm shift only: weights_md(0) is the scale/shift descriptor");
        dnnl_primitive_desc_destroy(pd);
    }
}

void item3_lnorm_stats_layout() {
    // Source `bac`: dims (2, 3, 4), dim 1 outermost; statistics over (2, 3)
    // keep that order: `ba`.
    md_t src({2, 3, 4}, dnnl_bac), ba({2, 3}, dnnl_ba), ab({2, 3}, dnnl_ab);
    dnnl_primitive_desc_t pd = nullptr;
    check(dnnl_layer_normalization_forward_primitive_desc_create(
                  &pd, eng, dnnl_forward_training, src, src, nullptr, 1e-5f, 0, nullptr)
                    == dnnl_success,
            "lnorm bac: created");
    const_dnnl_memory_desc_t mean = q_md(pd, dnnl_query_dst_md, 1);
    check(dnnl_memory_desc_equal(mean, ba), "lnorm bac: mean is `ba`");
    check(!dnnl_memory_desc_equal(mean, ab), "lnorm bac: mean is not `ab`");
    check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_MEAN), mean),
            "lnorm bac: exec_arg_md(MEAN) equals the mean descriptor");
    check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_VARIANCE), ba),
            "lnorm bac: exec_arg_md(VARIANCE) is `ba`");
    dnnl_primitive_desc_destroy(pd);

    // Plain `abc`: statistics `ab`.
    md_t src2({2, 3, 4}, dnnl_abc);
    check(dnnl_layer_normalization_forward_primitive_desc_create(
                  &pd, eng, dnnl_forward_training, src2, src2, nullptr, 1e-5f, 0, nullptr)
                    == dnnl_success,
            "lnorm abc: created");
    check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_MEAN), ab), "lnorm abc: mean is `ab`");
    dnnl_primitive_desc_destroy(pd);

    // Global statistics, RMS: the mean query and exec_arg_md agree.
    check(dnnl_layer_normalization_forward_primitive_desc_create(&pd, eng, dnnl_forward_training, src, src,
                  nullptr, 1e-5f, dnnl_use_global_stats | dnnl_rms_norm, nullptr)
                    == dnnl_success,
            "lnorm rms global: created");
    check(dnnl_memory_desc_equal(q_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_MEAN), q_md(pd, dnnl_query_src_md, 1)),
            "lnorm rms global: exec_arg_md(MEAN) equals src_md(1)");
    dnnl_primitive_desc_destroy(pd);
}

// ------------------------------------------------------------------ item 4

// Reshapes `in` to `dims` and compares with `want` (nullptr: must fail and
// leave the output untouched).
void reshape_case(const char *what, const_dnnl_memory_desc_t in, std::initializer_list<dnnl_dim_t> dims,
        const_dnnl_memory_desc_t want) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    dnnl_memory_desc_t sentinel = reinterpret_cast<dnnl_memory_desc_t>(0x1);
    dnnl_memory_desc_t out = sentinel;
    const dnnl_status_t st = dnnl_memory_desc_reshape(&out, in, n, d);
    if (want) {
        check(st == dnnl_success && out != sentinel && dnnl_memory_desc_equal(out, want),
                std::string("reshape ") + what + ": accepted with the expected layout");
        if (st == dnnl_success) {
            check(dnnl_memory_desc_get_size(out) == dnnl_memory_desc_get_size(in),
                    std::string("reshape ") + what + ": same size in bytes");
            dnnl_memory_desc_destroy(out);
        }
    } else {
        check(st == dnnl_invalid_arguments && out == sentinel,
                std::string("reshape ") + what + ": invalid_arguments, output untouched");
    }
}

// Reshapes `in` to `dims` and checks the result's layout: outer strides,
// one inner block of 16 on dim `blk_dim`, and padded dims.
void reshape_layout(const char *what, const_dnnl_memory_desc_t in, std::initializer_list<dnnl_dim_t> dims,
        std::initializer_list<dnnl_dim_t> strides, int blk_dim, std::initializer_list<dnnl_dim_t> padded) {
    dnnl_dims_t d = {};
    int n = 0;
    for (auto v : dims) d[n++] = v;
    dnnl_memory_desc_t out = nullptr;
    const dnnl_status_t st = dnnl_memory_desc_reshape(&out, in, n, d);
    check(st == dnnl_success, std::string("reshape ") + what + ": accepted");
    if (st != dnnl_success) return;
    const dnnl_dims_t *qs = nullptr, *qp = nullptr, *qb = nullptr, *qi = nullptr;
    int nblks = -1;
    dnnl_memory_desc_query(out, dnnl_query_strides, &qs);
    dnnl_memory_desc_query(out, dnnl_query_padded_dims, &qp);
    dnnl_memory_desc_query(out, dnnl_query_inner_nblks_s32, &nblks);
    dnnl_memory_desc_query(out, dnnl_query_inner_blks, &qb);
    dnnl_memory_desc_query(out, dnnl_query_inner_idxs, &qi);
    bool ok = nblks == 1 && (*qb)[0] == 16 && (*qi)[0] == blk_dim;
    int i = 0;
    for (auto v : strides) ok = ok && (*qs)[i++] == v;
    i = 0;
    for (auto v : padded) ok = ok && (*qp)[i++] == v;
    check(ok, std::string("reshape ") + what + ": strides, block and padding as expected");
    check(dnnl_memory_desc_get_size(out) == dnnl_memory_desc_get_size(in),
            std::string("reshape ") + what + ": same size in bytes");
    dnnl_memory_desc_destroy(out);
}

void item4_reshape() {
    md_t blk({2, 32, 4, 4}, dnnl_nChw16c), blk_hw({2, 32, 16}, dnnl_nCw16c);
    reshape_case("nChw16c join h,w", blk, {2, 32, 16}, blk_hw);
    // No tag names the blocked layouts below: the expected strides, block
    // and padded dims are spelled out.
    reshape_layout("nChw16c insert leading 1", blk, {1, 2, 32, 4, 4}, {1024, 512, 256, 64, 16}, 2,
            {1, 2, 32, 4, 4});
    reshape_case("nChw16c split blocked C", blk, {2, 2, 16, 4, 4}, nullptr);
    reshape_case("nChw16c join C with n", blk, {64, 4, 4}, nullptr);

    md_t pad({2, 17, 3}, dnnl_aBc16b), pad_tail({2, 17, 3, 1}, dnnl_aBcd16b);
    reshape_case("padded aBc16b append 1", pad, {2, 17, 3, 1}, pad_tail);
    reshape_layout("padded aBc16b insert leading 1", pad, {1, 2, 17, 3}, {192, 96, 48, 16}, 2, {1, 2, 32, 3});
    reshape_case("padded aBc16b join padded C", pad, {2, 51}, nullptr);

    md_t unit({2, 1, 3}, dnnl_abc), unit_out({2, 3}, dnnl_ab);
    reshape_case("remove a unit dim", unit, {2, 3}, unit_out);
    md_t plain({2, 3, 4}, dnnl_abc), plain_split({2, 3, 2, 2}, dnnl_abcd), plain_join({6, 4}, dnnl_ab);
    reshape_case("split a dense dim", plain, {2, 3, 2, 2}, plain_split);
    reshape_case("join dense dims", plain, {6, 4}, plain_join);
    md_t tr({2, 3, 4}, dnnl_acb);
    reshape_case("join non-adjacent dims of acb", tr, {6, 4}, nullptr);

    md_t z({0, 4}, dnnl_ab), z_out({0, 2, 2}, dnnl_abc);
    reshape_case("zero-sized split", z, {0, 2, 2}, z_out);
    md_t z_add({0, 4, 1}, dnnl_abc);
    reshape_case("zero-sized append 1", z, {0, 4, 1}, z_add);
    reshape_case("volume changes", plain, {2, 3, 5}, nullptr);
}

// ------------------------------------------------------------------ item 6

void item6_status_codes() {
    // Runtime dims on a kind that does not support them.
    {
        dnnl_dims_t d = {DNNL_RUNTIME_DIM_VAL, 3}, s = {3, 1};
        dnnl_memory_desc_t rt = nullptr;
        dnnl_memory_desc_create_with_strides(&rt, 2, d, dnnl_f32, s);
        md_t fixed({2, 3}, dnnl_ab);
        dnnl_primitive_desc_t pd = nullptr;
        check(dnnl_eltwise_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_eltwise_relu,
                      rt, fixed, 0.f, 0.f, nullptr)
                        == dnnl_unimplemented
                        && pd == nullptr,
                "eltwise runtime dims: unimplemented");
        check(dnnl_softmax_forward_primitive_desc_create(
                      &pd, eng, dnnl_forward_inference, dnnl_softmax_accurate, rt, rt, 1, nullptr)
                        == dnnl_unimplemented,
                "softmax runtime dims: unimplemented");
        dnnl_memory_desc_destroy(rt);
    }
    // Binary: invalid broadcasts are invalid_arguments.
    {
        md_t s0({2, 3}, dnnl_ab), s1_bad({3, 3}, dnnl_ab), s1_nd({3}, dnnl_a), d({2, 3}, dnnl_ab),
                s0_b({1, 3}, dnnl_ab);
        dnnl_primitive_desc_t pd = nullptr;
        check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, s0, s1_bad, d, nullptr)
                        == dnnl_invalid_arguments,
                "binary src1 dim neither equal nor 1: invalid_arguments");
        check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, s0, s1_nd, d, nullptr)
                        == dnnl_invalid_arguments,
                "binary src1 of another rank: invalid_arguments");
        // oneDNN v3.9 accepts src0 broadcast when src1 is full there.
        check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, s0_b, s0, d, nullptr)
                        == dnnl_success,
                "binary src0 broadcast (src1 full there): accepted");
        dnnl_primitive_desc_destroy(pd);
        pd = nullptr;
        check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, s0_b, s0_b, d, nullptr)
                        == dnnl_invalid_arguments,
                "binary src0 and src1 both broadcast on one dim: invalid_arguments");
        md_t any0({2, 3}, dnnl_format_tag_any);
        check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, any0, s0, d, nullptr)
                        == dnnl_invalid_arguments,
                "binary src0 in format any: invalid_arguments");
        md_t c_u8({2, 3}, dnnl_ab, dnnl_u8);
        check(dnnl_binary_primitive_desc_create_v2(&pd, eng, dnnl_binary_select, s0, s0, c_u8, d, nullptr)
                        == dnnl_invalid_arguments,
                "binary select with a u8 condition: invalid_arguments");
        check(pd == nullptr, "binary: failed creations wrote nothing");
    }
    // next_impl on reorder reaches the end.
    {
        md_t a({4, 5}, dnnl_ab), b({4, 5}, dnnl_ba);
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_reorder_primitive_desc_create(&pd, a, eng, b, eng, nullptr);
        dnnl_status_t st = dnnl_success;
        int steps = 0;
        while (steps < 64 && (st = dnnl_primitive_desc_next_impl(pd)) == dnnl_success) ++steps;
        check(st == dnnl_last_impl_reached, "reorder next_impl: last_impl_reached");
        dnnl_primitive_desc_destroy(pd);
    }
    // Blob: size reported, round trip.
    {
        md_t m({2, 17, 3}, dnnl_aBc16b);
        size_t size = 12345;
        check(dnnl_memory_desc_get_blob(nullptr, &size, m) == dnnl_success && size != 12345 && size > 0,
                "get_blob(NULL) writes the size");
        unsigned char buf[4096];
        check(size <= sizeof(buf), "blob fits");
        check(dnnl_memory_desc_get_blob(buf, &size, m) == dnnl_success, "get_blob writes the blob");
        dnnl_memory_desc_t back = nullptr;
        check(dnnl_memory_desc_create_with_blob(&back, buf) == dnnl_success && dnnl_memory_desc_equal(back, m),
                "create_with_blob gives back the descriptor");
        dnnl_memory_desc_destroy(back);
        size_t wrong = size - 1;
        check(dnnl_memory_desc_get_blob(buf, &wrong, m) == dnnl_invalid_arguments, "get_blob: wrong size refused");
        unsigned char junk[4096] = {};
        back = nullptr;
        check(dnnl_memory_desc_create_with_blob(&back, junk) == dnnl_invalid_arguments && back == nullptr,
                "create_with_blob: not a blob -> invalid_arguments, nothing written");
    }
    // Getters whose setters are not implemented still write their outputs.
    {
        dnnl_primitive_attr_t a = nullptr;
        dnnl_primitive_attr_create(&a);
        const_dnnl_memory_desc_t dm = nullptr;
        check(dnnl_primitive_attr_get_dropout(a, &dm) == dnnl_success && is_zero_md(dm),
                "get_dropout: no dropout, a zero descriptor");
        float scale = -1.f, shift = -1.f;
        check(dnnl_primitive_attr_get_rnn_data_qparams(a, &scale, &shift) == dnnl_success && scale == 1.f
                        && shift == 0.f,
                "get_rnn_data_qparams: defaults 1 and 0");
        dnnl_dim_t count = -1;
        int mask = -1;
        const float *scales = nullptr;
        check(dnnl_primitive_attr_get_rnn_weights_qparams(a, &count, &mask, &scales) == dnnl_success && count == 1
                        && mask == 0 && scales && scales[0] == 1.f,
                "get_rnn_weights_qparams: one scale of 1");
        count = -1;
        scales = nullptr;
        check(dnnl_primitive_attr_get_rnn_weights_projection_qparams(a, &count, &mask, &scales) == dnnl_success
                        && count == 1 && scales && scales[0] == 1.f,
                "get_rnn_weights_projection_qparams: one scale of 1");
        dnnl_primitive_attr_destroy(a);

        dnnl_post_ops_t po = nullptr;
        dnnl_post_ops_create(&po);
        md_t s1({1, 3}, dnnl_ab);
        dnnl_post_ops_append_binary(po, dnnl_binary_mul, s1);
        dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
        const_dnnl_memory_desc_t m1 = nullptr, m2 = nullptr;
        check(dnnl_post_ops_get_params_binary_v2(po, 0, &alg, &m1, &m2) == dnnl_success && alg == dnnl_binary_mul
                        && dnnl_memory_desc_equal(m1, s1) && is_zero_md(m2),
                "get_params_binary_v2: alg, src1, and a zero src2");
        dnnl_data_type_t wdt = dnnl_data_type_undef;
        check(dnnl_post_ops_get_params_dw(po, 0, &wdt, nullptr, nullptr, nullptr, nullptr, nullptr)
                        == dnnl_invalid_arguments,
                "get_params_dw on a binary post-op: invalid_arguments");
        dnnl_post_ops_destroy(po);
    }
}

// ------------------------------------------------------------------ item 7

void item7_attrs() {
    md_t s({2, 3, 5, 5}, dnnl_nchw), w({4, 3, 3, 3}, dnnl_oihw), b({4}, dnnl_a), d({2, 4, 3, 3}, dnnl_nchw);
    const dnnl_dims_t st = {1, 1}, dl = {0, 0}, p = {0, 0};
    auto conv = [&](const_dnnl_primitive_attr_t a) {
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t r = dnnl_convolution_forward_primitive_desc_create(
                &pd, eng, dnnl_forward_inference, dnnl_convolution_direct, s, w, b, d, st, dl, p, p, a);
        if (r == dnnl_success) dnnl_primitive_desc_destroy(pd);
        return r;
    };
    for (int arg : {DNNL_ARG_BIAS, DNNL_ARG_MEAN, DNNL_ARG_WORKSPACE}) {
        dnnl_primitive_attr_t a = nullptr;
        dnnl_primitive_attr_create(&a);
        check(dnnl_primitive_attr_set_scales_mask(a, arg, 0) == dnnl_success, "set_scales_mask accepts any arg");
        check(conv(a) == dnnl_unimplemented, "conv with scales on arg " + std::to_string(arg) + ": unimplemented");
        dnnl_primitive_attr_destroy(a);
        dnnl_primitive_attr_create(&a);
        check(dnnl_primitive_attr_set_zero_points_mask(a, arg, 0) == dnnl_success,
                "set_zero_points_mask accepts any arg");
        check(conv(a) == dnnl_unimplemented, "conv with zero points on arg " + std::to_string(arg) + ": unimplemented");
        dnnl_primitive_attr_destroy(a);
    }
    // Post-op limit: 32 appends succeed, the 33rd is out_of_memory and
    // leaves the list as it was.
    {
        dnnl_post_ops_t po = nullptr;
        dnnl_post_ops_create(&po);
        bool all = true;
        for (int i = 0; i < 32; ++i) all = all && dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f) == dnnl_success;
        check(all && dnnl_post_ops_len(po) == 32, "32 post-ops appended");
        check(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f) == dnnl_out_of_memory,
                "33rd eltwise post-op: out_of_memory");
        check(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef) == dnnl_out_of_memory,
                "33rd sum post-op: out_of_memory");
        md_t s1({1, 4, 1, 1}, dnnl_nchw);
        check(dnnl_post_ops_append_binary(po, dnnl_binary_add, s1) == dnnl_out_of_memory,
                "33rd binary post-op: out_of_memory");
        check(dnnl_post_ops_append_prelu(po, 0) == dnnl_out_of_memory, "33rd prelu post-op: out_of_memory");
        check(dnnl_post_ops_len(po) == 32, "list unchanged after refused appends");
        dnnl_post_ops_destroy(po);
    }
    // Inner product with IC = 0 (empty weights): invalid_arguments.
    {
        md_t is({2, 0}, dnnl_ab), iw({4, 0}, dnnl_ab), id({2, 4}, dnnl_ab);
        dnnl_primitive_desc_t pd = nullptr;
        check(dnnl_inner_product_forward_primitive_desc_create(
                      &pd, eng, dnnl_forward_inference, is, iw, nullptr, id, nullptr)
                        == dnnl_invalid_arguments
                        && pd == nullptr,
                "inner product IC=0: invalid_arguments");
    }
    // Binary scales in a data type the kernel does not read: refused.
    {
        md_t x({2, 3}, dnnl_ab);
        dnnl_primitive_attr_t a = nullptr;
        dnnl_primitive_attr_create(&a);
        dnnl_primitive_attr_set_scales(a, DNNL_ARG_SRC_0, 0, 0, nullptr, dnnl_bf16);
        dnnl_primitive_desc_t pd = nullptr;
        check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, x, x, x, a) == dnnl_unimplemented,
                "binary bf16 scales: unimplemented");
        dnnl_primitive_attr_destroy(a);
    }
}

} // namespace

int main() {
    if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success) return 1;
    item3_shift_only();
    item3_lnorm_stats_layout();
    item4_reshape();
    item6_status_codes();
    item7_attrs();
    dnnl_engine_destroy(eng);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
