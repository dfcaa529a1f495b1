// int8 matmul attributes: chains of post-ops, dst zero points and scales
// on s8/u8/s32/f32 dst, split from test_matmul_lowp (same helpers).
#include <memory>

#include "dnnl_debug.h"
#include "lowp_util.hpp"

using namespace lp;

namespace {

// int8 matmul with post-op chains, dst zero points and scales (powers of two
// or not) on every integer dst type and f32: first implementation and
// reference against the naive result. |acc| <= 24 * 16 = 384; the src scale
// keeps eltwise inputs within |x| <= 5 where transcendental ones are used.
struct int8_case_t {
    dnnl_data_type_t ddt;
    float s_src, s_dst;
    bool wei_pow2, zp_per_n;
    std::vector<na::post_op_t> ops; // binary src1: dims set, values filled here
};

void test_int8_attr() {
    const dnnl_dim_t M = 7, N = 19, K = 24;
    auto op_elt = [](dnnl_alg_kind_t a, float al, float be) { return na::eltwise_op(a, al, be); };
    auto op_bin = [](dnnl_alg_kind_t a, na::dims_t d) { return na::binary_op(a, {d, {}}); };
    const std::vector<int8_case_t> cases = {
            {dnnl_u8, 0.125f, 0.5f, true, true, {na::sum_op(0.5f, 3), op_elt(dnnl_eltwise_relu, 0.f, 0.f)}},
            {dnnl_s8, 0.25f, 1.f, true, false,
                    {op_bin(dnnl_binary_add, {1, N}), op_elt(dnnl_eltwise_clip, -20.f, 20.f)}},
            {dnnl_s8, 0.3f, 0.7f, false, true,
                    {op_elt(dnnl_eltwise_linear, 0.3f, 0.7f), op_bin(dnnl_binary_mul, {1, 1})}},
            {dnnl_u8, 1.f, 1.f, true, false, {op_elt(dnnl_eltwise_linear, 4.f, 100.f)}}, // saturates both ends
            {dnnl_s32, 1.f / 128, 1.f / 64, true, true, {op_elt(dnnl_eltwise_tanh, 0.f, 0.f)}},
            {dnnl_s8, 1.f / 256, 1.f / 32, false, false,
                    {op_elt(dnnl_eltwise_gelu_erf, 0.f, 0.f), op_bin(dnnl_binary_sub, {M, 1})}},
            {dnnl_f32, 1.f / 128, 1.f, true, true,
                    {op_elt(dnnl_eltwise_logistic, 0.f, 0.f), na::sum_op(2.f, -1), op_bin(dnnl_binary_max, {M, N})}},
            {dnnl_s32, 0.5f, 2.f, true, true, {na::sum_op(1.f, 5), op_bin(dnnl_binary_div, {1, N})}},
    };
    int idx = 0;
    for (const auto &c : cases) {
        ++idx;
        buf_t s, w, d, b, ss, ws, ds, dz;
        s.init({M, K}, dnnl_s8, dnnl_ab, 1, -4, 4);
        w.init({K, N}, dnnl_s8, idx % 2 ? dnnl_ab : dnnl_ba, 2, -4, 4);
        d.init({M, N}, c.ddt, dnnl_ab, 3, 0, 9);
        b.init({1, N}, dnnl_f32, dnnl_ab, 4);
        ss.init({1}, dnnl_f32, dnnl_a, 5);
        ss.set(0, c.s_src);
        ws.init({N}, dnnl_f32, dnnl_a, 6);
        for (dnnl_dim_t i = 0; i < N; ++i) ws.set(i, c.wei_pow2 ? (i % 2 ? 0.5f : 1.f) : 0.9f + 0.05f * (float)i);
        ds.init({1}, dnnl_f32, dnnl_a, 7);
        ds.set(0, c.s_dst);
        dz.init({c.zp_per_n ? N : 1}, dnnl_s32, dnnl_a, 8, -3, 6);
        na::attr_t na_attr;
        na_attr.post_ops = c.ops;
        dnnl_primitive_attr_t attr;
        KT_OK(dnnl_primitive_attr_create(&attr));
        dnnl_post_ops_t ops;
        KT_OK(dnnl_post_ops_create(&ops));
        std::vector<std::unique_ptr<buf_t>> src1;
        std::vector<arg_t> args = {{DNNL_ARG_DST, d.md, d.bytes.data()}, {DNNL_ARG_SRC, s.md, s.bytes.data()},
                {DNNL_ARG_WEIGHTS, w.md, w.bytes.data()}, {DNNL_ARG_BIAS, b.md, b.bytes.data()},
                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ss.md, ss.bytes.data()},
                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, ws.md, ws.bytes.data()},
                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, ds.md, ds.bytes.data()},
                {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, dz.md, dz.bytes.data()}};
        for (size_t i = 0; i < na_attr.post_ops.size(); ++i) {
            auto &o = na_attr.post_ops[i];
            if (o.kind == dnnl_eltwise) KT_OK(dnnl_post_ops_append_eltwise(ops, o.alg, o.alpha, o.beta));
            if (o.kind == dnnl_sum) KT_OK(dnnl_post_ops_append_sum(ops, o.scale, o.zero_point, dnnl_data_type_undef));
            if (o.kind != dnnl_binary) continue;
            src1.emplace_back(new buf_t);
            src1.back()->init({o.src1.dims[0], o.src1.dims[1]}, dnnl_f32, dnnl_ab, 10 + i, -3, 3);
            if (o.alg == dnnl_binary_div)
                for (dnnl_dim_t j = 0; j < o.src1.dims[1]; ++j) src1.back()->set(j, (float)(1 + j % 4));
            o.src1.v = logical(*src1.back());
            KT_OK(dnnl_post_ops_append_binary(ops, o.alg, src1.back()->md));
            args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP((int)i) | DNNL_ARG_SRC_1, src1.back()->md,
                    src1.back()->bytes.data()});
        }
        KT_OK(dnnl_primitive_attr_set_post_ops(attr, ops));
        dnnl_post_ops_destroy(ops);
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1 << 1));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
        KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, c.zp_per_n ? 1 << 1 : 0));
        na_attr.src_scale = na::scalar(2, c.s_src);
        na_attr.wei_scale = na::along(2, 1, logical(ws));
        na_attr.dst_scale = na::scalar(2, c.s_dst);
        na_attr.dst_zero_point = c.zp_per_n ? na::along(2, 1, logical(dz)) : na::scalar(2, dz.get(0));
        char what[120];
        std::snprintf(what, sizeof(what), "int8 matmul attr case %d dst %s", idx, dnnl_dt2str(c.ddt));
        dnnl_primitive_desc_t pd;
        dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, s.md, w.md, b.md, d.md, attr);
        dnnl_primitive_attr_destroy(attr);
        if (st != dnnl_success) {
            T.check(false, what);
            continue;
        }
        std::vector<double> acc, tol;
        na::matmul(logical(s), {M, K}, logical(w), {K, N}, {M, N}, acc);
        const auto want = na::apply(na_attr, {M, N}, acc, {{1, N}, logical(b)}, logical(d), c.ddt, nullptr, &tol);
        T.check(vs_naive(pd, args, d, want, tol, "", 1 + idx % 2, what), what);
        dnnl_primitive_desc_destroy(pd);
    }
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    test_int8_attr();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
