// Matmul attributes against the naive reference: every binary algorithm
// with every broadcast mask of a 3D dst, every eltwise algorithm (alone and
// followed by a sum and a binary, so an inexact value travels through the
// chain), sums with scale / zero point / data type in several positions,
// scales that are powers of two or not. The first implementation (GEMM)
// and the reference each run; results must match na::apply's bound (0 for
// exact chains: bit-identical).
#include <cstdio>
#include <memory>

#include "../common/attr_cases.hpp"
#include "matmul_util.hpp"

using namespace mm;

namespace {

// One 3D problem (2 x 5 x 8 times 2 x 8 x 7, bias per N) with the chain
// `ops` built both through the C API and for the naive reference. Data are
// integers in [-3, 3] and the src scale is 1/16, so every eltwise input is
// an exact multiple of 1/16 with |x| <= 8 * 9 / 16 = 4.5.
struct sweep_op_t {
    dnnl_primitive_kind_t kind;
    dnnl_alg_kind_t alg;
    float alpha, beta;
    int bcast_mask; // binary: bit d set -> src1 has dst's dim d, else 1
    int32_t zp; // sum
    dnnl_data_type_t sum_dt;
};

void run_sweep(const std::vector<sweep_op_t> &ops, float s_src, const std::vector<float> &s_wei, float s_dst,
        const char *what, int nthr) {
    const int nd = 3;
    const dnnl_dim_t sd[] = {2, 5, 8}, wd[] = {2, 8, 7}, dd[] = {2, 5, 7}, bd[] = {1, 1, 7};
    tensor_t src, wei, dst, bias;
    src.init(nd, sd, nullptr, 11);
    wei.init(nd, wd, nullptr, 12);
    dst.init(nd, dd, nullptr, 13);
    bias.init(nd, bd, nullptr, 14);
    std::vector<std::unique_ptr<tensor_t>> src1;
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    na::attr_t na_attr;
    std::vector<int> src1_at;
    for (const auto &o : ops) {
        if (o.kind == dnnl_eltwise) {
            KT_OK(dnnl_post_ops_append_eltwise(po, o.alg, o.alpha, o.beta));
            na_attr.post_ops.push_back(na::eltwise_op(o.alg, o.alpha, o.beta));
        } else if (o.kind == dnnl_sum) {
            KT_OK(dnnl_post_ops_append_sum(po, o.alpha, o.zp, o.sum_dt));
            na_attr.post_ops.push_back(na::sum_op(o.alpha, o.zp));
        } else {
            dnnl_dim_t d1[3];
            for (int d = 0; d < nd; ++d) d1[d] = (o.bcast_mask >> d) & 1 ? dd[d] : 1;
            src1.emplace_back(new tensor_t);
            src1.back()->init(nd, d1, nullptr, 20 + src1.size());
            // Divisors away from zero; comparison operands hit equality often.
            if (o.alg == dnnl_binary_div)
                for (auto &x : src1.back()->data) x = x >= 0 ? x + 1 : x;
            KT_OK(dnnl_post_ops_append_binary(po, o.alg, src1.back()->md));
            src1_at.push_back(dnnl_post_ops_len(po) - 1);
            na_attr.post_ops.push_back(na::binary_op(o.alg, {dims_of(nd, d1), logical(*src1.back())}));
        }
    }
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, s_wei.size() > 1 ? 1 << 2 : 0));
    if (s_dst != 1.f) KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    na_attr.src_scale = na::scalar(nd, s_src);
    na_attr.wei_scale = s_wei.size() > 1 ? na::along(nd, 2, s_wei) : na::scalar(nd, s_wei[0]);
    if (s_dst != 1.f) na_attr.dst_scale = na::scalar(nd, s_dst);
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, src.md, wei.md, bias.md, dst.md, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        T.check(false, (std::string("create: ") + what).c_str());
        return;
    }
    kt::md_t one(kt::make_md({1}, dnnl_f32, dnnl_a)), nmd(kt::make_md({(dnnl_dim_t)s_wei.size()}, dnnl_f32, dnnl_a));
    std::vector<float> wsv = s_wei;
    std::vector<arg_t> args = {{DNNL_ARG_DST, dst.md, dst.data.data()}, {DNNL_ARG_SRC, src.md, src.data.data()},
            {DNNL_ARG_WEIGHTS, wei.md, wei.data.data()}, {DNNL_ARG_BIAS, bias.md, bias.data.data()},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, one, &s_src},
            {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, nmd, wsv.data()}};
    if (s_dst != 1.f) args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, one, &s_dst});
    for (size_t i = 0; i < src1.size(); ++i)
        args.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(src1_at[i]) | DNNL_ARG_SRC_1, src1[i]->md, src1[i]->data.data()});
    const na::dims_t ddv = dims_of(nd, dd);
    std::vector<double> acc, tol;
    na::matmul(logical(src), dims_of(nd, sd), logical(wei), dims_of(nd, wd), ddv, acc);
    const auto want = na::apply(na_attr, ddv, acc, {dims_of(nd, bd), logical(bias)}, logical(dst), dnnl_f32,
            nullptr, &tol);
    bool ok = false;
    std::string first;
    kt::with_threads(nthr, [&] { ok = check_impls(pd, args, 0, dst.data.size() - 1, want, tol, first, what); });
    T.check(ok, what);
    dnnl_primitive_desc_destroy(pd);
}

void test_attr_sweep() {
    const int f0 = T.failed, n0 = T.passed;
    const std::vector<float> pow2_wei = {0.5f, 1.f, 2.f, 0.25f, 1.f, 4.f, 0.5f};
    char what[160];
    // Every binary algorithm with every broadcast of a 3D dst (8 masks:
    // per-tensor, per-N channel, per-row, per-batch ... full).
    int i = 0;
    for (auto alg : na::all_binary)
        for (int mask = 0; mask < 8; ++mask) {
            std::snprintf(what, sizeof what, "matmul binary alg %d mask %d", (int)alg, mask);
            run_sweep({{dnnl_binary, alg, 0.f, 0.f, mask, 0, dnnl_data_type_undef}}, 0.5f, pow2_wei, 1.f, what,
                    1 + i++ % 2);
        }
    // Every eltwise algorithm, alone and followed by a sum and a binary
    // (the error of an inexact function carried through the chain).
    for (const auto &e : na::all_eltwise) {
        std::snprintf(what, sizeof what, "matmul eltwise alg %d alpha %g beta %g", (int)e.alg, e.alpha, e.beta);
        run_sweep({{dnnl_eltwise, e.alg, e.alpha, e.beta, 0, 0, dnnl_data_type_undef}}, 1.f / 16, {1.f}, 1.f, what,
                1 + i++ % 2);
        std::snprintf(what, sizeof what, "matmul eltwise alg %d + sum + mul, dst scale", (int)e.alg);
        run_sweep({{dnnl_eltwise, e.alg, e.alpha, e.beta, 0, 0, dnnl_data_type_undef},
                          {dnnl_sum, dnnl_alg_kind_undef, 0.75f, 0.f, 0, 2, dnnl_data_type_undef},
                          {dnnl_binary, dnnl_binary_mul, 0.f, 0.f, 4, 0, dnnl_data_type_undef}},
                1.f / 16, {1.f}, 0.5f, what, 1 + i++ % 2);
    }
    // Sum: leading (on the GEMM's beta) or not, with zero point, explicit
    // data type, twice; scales that are not powers of two.
    const std::vector<std::vector<sweep_op_t>> sums = {
            {{dnnl_sum, dnnl_alg_kind_undef, 2.f, 0.f, 0, 0, dnnl_f32}},
            {{dnnl_sum, dnnl_alg_kind_undef, 0.5f, 0.f, 0, 3, dnnl_data_type_undef}},
            {{dnnl_sum, dnnl_alg_kind_undef, -1.f, 0.f, 0, -2, dnnl_f32},
                    {dnnl_eltwise, dnnl_eltwise_relu, 0.f, 0.f, 0, 0, dnnl_data_type_undef}},
            {{dnnl_eltwise, dnnl_eltwise_linear, 2.f, 1.f, 0, 0, dnnl_data_type_undef},
                    {dnnl_sum, dnnl_alg_kind_undef, 1.5f, 0.f, 0, 1, dnnl_data_type_undef}},
            {{dnnl_sum, dnnl_alg_kind_undef, 1.f, 0.f, 0, 0, dnnl_data_type_undef},
                    {dnnl_binary, dnnl_binary_sub, 0.f, 0.f, 2, 0, dnnl_data_type_undef},
                    {dnnl_sum, dnnl_alg_kind_undef, 0.25f, 0.f, 0, 0, dnnl_data_type_undef}},
    };
    int k = 0;
    for (const auto &ch : sums)
        for (int sc = 0; sc < 3; ++sc) {
            std::snprintf(what, sizeof what, "matmul sum chain %d scales %d", k, sc);
            if (sc == 0) run_sweep(ch, 0.5f, pow2_wei, 2.f, what, 1 + i++ % 2);
            if (sc == 1) run_sweep(ch, 0.5f, {4.f}, 0.25f, what, 1 + i++ % 2);
            if (sc == 2) run_sweep(ch, 0.3f, {0.7f, 1.3f, 0.1f, 3.f, 0.9f, 1.1f, 0.45f}, 1.7f, what, 1 + i++ % 2);
            k += sc == 2;
        }
    std::printf("attribute sweep: %d checks, %d failed\n", T.passed + T.failed - n0 - f0, T.failed - f0);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    test_attr_sweep();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
