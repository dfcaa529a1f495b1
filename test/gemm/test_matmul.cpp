// Matmul through the C API: the GEMM-based implementation and the
// reference one (reached with dnnl_primitive_desc_next_impl), each against
// a naive matmul plus the naive attribute math of test/common (written from
// oneDNN's documentation, no library code), over 2D and batched shapes with
// broadcast, transposed operands, bias, scales, post-ops and runtime dims;
// bad input. The attribute sweep is test_matmul_attr.
//
// Data are small integers, so every product, sum, bias, power-of-two scale
// and the exact post-ops (relu, linear, add/mul of small integers, sum by
// 0.5...) are exact in f32 whatever the summation order: the results must be
// bit-identical to the naive ones. Elsewhere na::apply derives the bound.
#include <cstring>
#include <string>
#include <vector>

#include "matmul_util.hpp"

using namespace mm;

namespace {

struct case_t {
    int nd;
    dnnl_dim_t sdims[5], wdims[5], ddims[5], bdims[5];
    bool ta, tb, bias;
    int po; // 0 none, 1 sum+relu, 2 binary add per-N + linear, 3 binary mul full
    int scales; // 0 none, 1 src 2 + per-N wei + dst 0.5
};

// Strides of a transposed (last two dims swapped) plain layout.
void trans_strides(int nd, const dnnl_dim_t *d, dnnl_dim_t *s) {
    dnnl_dim_t acc = d[nd - 2] * d[nd - 1];
    s[nd - 2] = 1;
    s[nd - 1] = d[nd - 2];
    for (int i = nd - 3; i >= 0; --i) {
        s[i] = acc;
        acc *= d[i];
    }
}

// ref_too: the reference implementation is checked as well (too slow for
// the big cases).
void run_case(const case_t &c, int nthr, bool expect_gemm, bool ref_too = true) {
    tensor_t src, wei, dst, bias, bin;
    dnnl_dim_t ss[5], ws[5];
    trans_strides(c.nd, c.sdims, ss);
    trans_strides(c.nd, c.wdims, ws);
    src.init(c.nd, c.sdims, c.ta ? ss : nullptr, 1);
    wei.init(c.nd, c.wdims, c.tb ? ws : nullptr, 2);
    dst.init(c.nd, c.ddims, nullptr, 3);
    if (c.bias) bias.init(c.nd, c.bdims, nullptr, 4);
    dnnl_dim_t bin_dims[5];
    for (int i = 0; i < c.nd; ++i) bin_dims[i] = c.po == 2 && i != c.nd - 1 ? 1 : c.ddims[i];
    if (c.po >= 2) bin.init(c.nd, bin_dims, nullptr, 5);

    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    if (c.po == 1) {
        KT_OK(dnnl_post_ops_append_sum(po, 0.5f, 0, dnnl_data_type_undef));
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    } else if (c.po == 2) {
        KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_add, bin.md));
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_linear, 0.5f, 1.f));
    } else if (c.po == 3) {
        KT_OK(dnnl_post_ops_append_binary(po, dnnl_binary_mul, bin.md));
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    float s_src = 2.f, s_dst = 0.5f;
    std::vector<float> s_wei(c.ddims[c.nd - 1]);
    for (size_t i = 0; i < s_wei.size(); ++i) s_wei[i] = (i % 3 == 0) ? 0.5f : (i % 3 == 1 ? 1.f : 2.f);
    if (c.scales) {
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1 << (c.nd - 1)));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    }
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, src.md, wei.md,
            c.bias ? bias.md : nullptr, dst.md, attr);
    dnnl_primitive_attr_destroy(attr);
    char what[200];
    std::snprintf(what, sizeof(what), "matmul nd=%d M=%ld N=%ld K=%ld ta=%d tb=%d bias=%d po=%d sc=%d thr=%d",
            c.nd, (long)c.ddims[c.nd - 2], (long)c.ddims[c.nd - 1], (long)c.sdims[c.nd - 1], c.ta,
            c.tb, c.bias, c.po, c.scales, nthr);
    if (st != dnnl_success) {
        T.check(false, what);
        return;
    }
    dnnl_memory_desc_t smd1 = nullptr;
    dnnl_dim_t one = 1, nn = (dnnl_dim_t)s_wei.size();
    KT_OK(dnnl_memory_desc_create_with_tag(&smd1, 1, &one, dnnl_f32, dnnl_a));
    dnnl_memory_desc_t wsmd = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&wsmd, 1, &nn, dnnl_f32, dnnl_a));
    std::vector<arg_t> args = {{DNNL_ARG_DST, dst.md, dst.data.data()},
            {DNNL_ARG_SRC, src.md, src.data.data()}, {DNNL_ARG_WEIGHTS, wei.md, wei.data.data()}};
    if (c.bias) args.push_back({DNNL_ARG_BIAS, bias.md, bias.data.data()});
    if (c.po >= 2) args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bin.md, bin.data.data()});
    if (c.scales) {
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, smd1, &s_src});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, wsmd, s_wei.data()});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, smd1, &s_dst});
    }
    // The expected dst from the naive matmul and attribute math.
    na::attr_t na_attr;
    const size_t nd = (size_t)c.nd;
    if (c.scales) {
        na_attr.src_scale = na::scalar(nd, s_src);
        na_attr.wei_scale = na::along(nd, c.nd - 1, s_wei);
        na_attr.dst_scale = na::scalar(nd, s_dst);
    }
    const na::dims_t dd = dims_of(c.nd, c.ddims);
    if (c.po == 1) {
        na_attr.post_ops = {na::sum_op(0.5f), na::eltwise_op(dnnl_eltwise_relu, 0.f, 0.f)};
    } else if (c.po == 2) {
        na_attr.post_ops = {na::binary_op(dnnl_binary_add, {dims_of(c.nd, bin_dims), logical(bin)}),
                na::eltwise_op(dnnl_eltwise_linear, 0.5f, 1.f)};
    } else if (c.po == 3) {
        na_attr.post_ops = {na::binary_op(dnnl_binary_mul, {dims_of(c.nd, bin_dims), logical(bin)})};
    }
    std::vector<double> acc;
    na::matmul(logical(src), dims_of(c.nd, c.sdims), logical(wei), dims_of(c.nd, c.wdims), dd, acc);
    na::bcast_t nb;
    if (c.bias) nb = {dims_of(c.nd, c.bdims), logical(bias)};
    std::vector<double> tol;
    const std::vector<float> want = na::apply(na_attr, dd, acc, nb, logical(dst), dnnl_f32, nullptr, &tol);
    bool ok = false;
    std::string first;
    kt::with_threads(nthr, [&] {
        ok = check_impls(pd, args, 0, dst.data.size() - 1, want, tol, first, what, ref_too ? 2 : 1);
    });
    if (expect_gemm) ok = ok && first.rfind("gemm", 0) == 0;
    T.check(ok, what);
    dnnl_memory_desc_destroy(smd1);
    dnnl_memory_desc_destroy(wsmd);
    dnnl_primitive_desc_destroy(pd);
}

void test_2d_grid() {
    const dnnl_dim_t sizes[] = {1, 3, 17, 33, 64};
    int idx = 0, nfail0 = T.failed;
    for (dnnl_dim_t M : sizes)
        for (dnnl_dim_t N : sizes)
            for (dnnl_dim_t K : sizes) {
                ++idx;
                case_t c {};
                c.nd = 2;
                c.sdims[0] = M, c.sdims[1] = K;
                c.wdims[0] = K, c.wdims[1] = N;
                c.ddims[0] = M, c.ddims[1] = N;
                c.bdims[0] = idx % 2 ? 1 : M, c.bdims[1] = N;
                c.ta = idx % 3 == 1;
                c.tb = idx % 5 >= 3;
                c.bias = idx % 4 != 0;
                c.po = idx % 4;
                c.scales = (idx % 7 == 0 && c.po != 1) ? 1 : 0;
                run_case(c, 1 + idx % 2, true);
            }
    T.check(T.failed == nfail0, "2D grid: gemm matmul equals reference");
}

void test_batched() {
    // Broadcast on both sides: src (2,1,M,K) x wei (1,3,K,N) -> (2,3,M,N).
    for (int v = 0; v < 4; ++v) {
        case_t c {};
        c.nd = 4;
        dnnl_dim_t M = 5 + v * 7, N = 17 + v, K = 33 - v;
        const dnnl_dim_t s[] = {2, 1, M, K}, w[] = {1, 3, K, N}, d[] = {2, 3, M, N}, b[] = {1, 3, 1, N};
        std::memcpy(c.sdims, s, sizeof(s));
        std::memcpy(c.wdims, w, sizeof(w));
        std::memcpy(c.ddims, d, sizeof(d));
        std::memcpy(c.bdims, b, sizeof(b));
        c.ta = v & 1;
        c.tb = (v >> 1) & 1;
        c.bias = true;
        c.po = v;
        for (int nthr : {1, 2}) run_case(c, nthr, true);
    }
    // Batch-parallel GEMMs (one per thread slot) on odd sizes: direct tiles
    // (not transposed B, lda > M through transposed src) and skinny ones.
    for (int v = 0; v < 3; ++v) {
        case_t c {};
        c.nd = 3;
        const dnnl_dim_t M = v == 0 ? 33 : v == 1 ? 1 : 65, N = v == 1 ? 65 : 17, K = v == 2 ? 7 : 65;
        const dnnl_dim_t s[] = {9, M, K}, w[] = {9, K, N}, d[] = {9, M, N}, b[] = {1, 1, N};
        std::memcpy(c.sdims, s, sizeof(s));
        std::memcpy(c.wdims, w, sizeof(w));
        std::memcpy(c.ddims, d, sizeof(d));
        std::memcpy(c.bdims, b, sizeof(b));
        c.ta = v != 1;
        c.bias = v != 0;
        c.po = v;
        for (int nthr : {1, 2}) run_case(c, nthr, true);
    }
    // A big 3D batch (GEMM per batch in parallel mode) and a small one.
    for (dnnl_dim_t M : {4, 200}) {
        case_t c {};
        c.nd = 3;
        const dnnl_dim_t s[] = {7, M, 40}, w[] = {7, 40, 48}, d[] = {7, M, 48}, b[] = {1, 1, 48};
        std::memcpy(c.sdims, s, sizeof(s));
        std::memcpy(c.wdims, w, sizeof(w));
        std::memcpy(c.ddims, d, sizeof(d));
        std::memcpy(c.bdims, b, sizeof(b));
        c.bias = true;
        c.po = 1;
        for (int nthr : {1, 2}) run_case(c, nthr, true);
    }
}

// Batches of products above the small-product rule (M*N*K >= 4e6) still
// run one whole GEMM per thread, packed, when the batch splits evenly over
// the threads (2 with 2 threads; 3 does not) and the operands are
// beyond the direct tiles (half of L2): tails of the 12x32 and
// 6x16 tiles in M and N, K over two cache blocks, weights broadcast over
// the batch or not, transposed src.
void test_batched_packed() {
    for (int v = 0; v < 3; ++v) {
        case_t c {};
        c.nd = 3;
        const dnnl_dim_t B = v == 2 ? 3 : 2, M = 31 + v * 12, N = 190 + v, K = 700 - v;
        const dnnl_dim_t s[] = {B, M, K}, w[] = {v == 1 ? 1 : B, K, N}, d[] = {B, M, N}, b[] = {1, 1, N};
        std::memcpy(c.sdims, s, sizeof(s));
        std::memcpy(c.wdims, w, sizeof(w));
        std::memcpy(c.ddims, d, sizeof(d));
        std::memcpy(c.bdims, b, sizeof(b));
        c.ta = v == 2;
        c.bias = v != 0;
        c.po = v == 1 ? 2 : 1;
        for (int nthr : {1, 2}) run_case(c, nthr, true, false);
    }
}

void test_runtime_dims() {
    const dnnl_dim_t R = DNNL_RUNTIME_DIM_VAL;
    dnnl_dim_t sd[2] = {R, R}, wd[2] = {R, R}, dd[2] = {R, R};
    kt::md_t s(kt::make_md({R, R}, dnnl_f32, dnnl_ab)), w(kt::make_md({R, R}, dnnl_f32, dnnl_ab)),
            d(kt::make_md({R, R}, dnnl_f32, dnnl_ab)), b(kt::make_md({1, R}, dnnl_f32, dnnl_ab));
    (void)sd, (void)wd, (void)dd;
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, s, w, b, d, nullptr);
    T.check(st == dnnl_success, "matmul pd with runtime M, N, K");
    if (st != dnnl_success) return;
    const std::string name = kt::impl_name(pd);
    bool ok = true;
    for (dnnl_dim_t n : {1, 19, 70}) {
        tensor_t src, wei, dst, bias, dst_ref;
        dnnl_dim_t M = n, K = n + 3, N = 2 * n + 1;
        dnnl_dim_t a[2] = {M, K}, bb[2] = {K, N}, c[2] = {M, N}, bi[2] = {1, N};
        src.init(2, a, nullptr, n);
        wei.init(2, bb, nullptr, n + 1);
        dst.init(2, c, nullptr, n + 2);
        bias.init(2, bi, nullptr, n + 3);
        ok = ok && execute(pd, {{DNNL_ARG_SRC, src.md, src.data.data()}, {DNNL_ARG_WEIGHTS, wei.md, wei.data.data()},
                                   {DNNL_ARG_BIAS, bias.md, bias.data.data()}, {DNNL_ARG_DST, dst.md, dst.data.data()}})
                        == dnnl_success;
        for (dnnl_dim_t i = 0; i < M && ok; ++i)
            for (dnnl_dim_t j = 0; j < N; ++j) {
                float acc = bias.data[j];
                for (dnnl_dim_t k = 0; k < K; ++k) acc += src.data[i * K + k] * wei.data[k * N + j];
                ok = ok && acc == dst.data[i * N + j];
            }
        // A memory whose dims contradict the known part is refused.
    }
    T.check(ok, ("runtime-dims matmul (" + name + ") computes 3 sizes exactly").c_str());
    // Walk to the reference and run one size there too.
    while (kt::impl_name(pd).rfind("ref", 0) != 0 && dnnl_primitive_desc_next_impl(pd) == dnnl_success) {}
    {
        tensor_t src, wei, dst, bias;
        dnnl_dim_t a[2] = {4, 5}, bb[2] = {5, 6}, c[2] = {4, 6}, bi[2] = {1, 6};
        src.init(2, a, nullptr, 1);
        wei.init(2, bb, nullptr, 2);
        dst.init(2, c, nullptr, 3);
        bias.init(2, bi, nullptr, 4);
        bool rok = execute(pd, {{DNNL_ARG_SRC, src.md, src.data.data()}, {DNNL_ARG_WEIGHTS, wei.md, wei.data.data()},
                                       {DNNL_ARG_BIAS, bias.md, bias.data.data()}, {DNNL_ARG_DST, dst.md, dst.data.data()}})
                == dnnl_success;
        float acc = bias.data[5];
        for (int k = 0; k < 5; ++k) acc += src.data[3 * 5 + k] * wei.data[k * 6 + 5];
        T.check(rok && acc == dst.data[3 * 6 + 5], "runtime-dims matmul on the reference");
    }
    dnnl_primitive_desc_destroy(pd);
}

void test_bad_input() {
    kt::md_t s(kt::make_md({4, 5}, dnnl_f32, dnnl_ab)), w(kt::make_md({5, 6}, dnnl_f32, dnnl_ab)),
            d(kt::make_md({4, 6}, dnnl_f32, dnnl_ab)), wbad(kt::make_md({7, 6}, dnnl_f32, dnnl_ab)),
            d3(kt::make_md({1, 4, 6}, dnnl_f32, dnnl_abc)), bbad(kt::make_md({2, 6}, dnnl_f32, dnnl_ab)),
            s8(kt::make_md({4, 5}, dnnl_s8, dnnl_ab)), sb(kt::make_md({3, 4, 5}, dnnl_f32, dnnl_abc)),
            wb(kt::make_md({2, 5, 6}, dnnl_f32, dnnl_abc)), db(kt::make_md({3, 4, 6}, dnnl_f32, dnnl_abc));
    dnnl_primitive_desc_t pd = nullptr;
    T.check(dnnl_matmul_primitive_desc_create(nullptr, eng, s, w, nullptr, d, nullptr) == dnnl_invalid_arguments,
            "NULL pd out");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, nullptr, w, nullptr, d, nullptr) == dnnl_invalid_arguments,
            "NULL src");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s, wbad, nullptr, d, nullptr) == dnnl_invalid_arguments,
            "K mismatch");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d3, nullptr) == dnnl_invalid_arguments,
            "ndims mismatch");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s, w, bbad, d, nullptr) == dnnl_invalid_arguments,
            "bias dims neither 1 nor dst's");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, sb, wb, nullptr, db, nullptr) == dnnl_invalid_arguments,
            "batch dims 3 vs 2");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s8, w, nullptr, d, nullptr) == dnnl_unimplemented,
            "s8 src unimplemented");
    // Execution with a mismatched memory is refused, not computed.
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, nullptr));
    std::vector<float> buf(64, 1.f);
    T.check(execute(pd, {{DNNL_ARG_SRC, s, buf.data()}, {DNNL_ARG_WEIGHTS, wbad, buf.data()},
                                {DNNL_ARG_DST, d, buf.data()}})
                    == dnnl_invalid_arguments,
            "execute with wrong weights md");
    T.check(execute(pd, {{DNNL_ARG_SRC, s, buf.data()}, {DNNL_ARG_DST, d, buf.data()}}) == dnnl_invalid_arguments,
            "execute without weights");
    // Queries: weights_md(1) is the (absent) bias, dst is plain.
    const_dnnl_memory_desc_t q = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
    int nd = -1;
    if (q) dnnl_memory_desc_query(q, dnnl_query_ndims_s32, &nd);
    T.check(q && nd == 0, "weights_md(1) is empty without bias");
    T.check(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 2, "2 inputs");
    dnnl_primitive_desc_destroy(pd);
    // Format any resolves to row-major.
    kt::md_t sa(kt::make_md({4, 5}, dnnl_f32, dnnl_format_tag_any)), wa(kt::make_md({5, 6}, dnnl_f32, dnnl_format_tag_any)),
            da(kt::make_md({4, 6}, dnnl_f32, dnnl_format_tag_any)), bia(kt::make_md({1, 6}, dnnl_f32, dnnl_ab));
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, sa, wa, bia, da, nullptr));
    T.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), d) == 1
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), w) == 1
                    && dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), bia) == 1
                    && dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 3,
            "format any -> ab; weights_md(1) is the bias");
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    test_2d_grid();
    test_batched();
    test_batched_packed();
    test_runtime_dims();
    test_bad_input();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
