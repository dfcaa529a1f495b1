// Fuzz target: eltwise (every algorithm, alpha and beta, in place or not)
// and binary (every algorithm, broadcast of either source, select with a
// third source), both with post-ops, scales and every layout.
#include "fuzz_common.hpp"

using namespace kfuzz;

namespace {

const dnnl_alg_kind_t eltwise_algs[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_elu,
        dnnl_eltwise_square, dnnl_eltwise_abs, dnnl_eltwise_sqrt, dnnl_eltwise_linear,
        dnnl_eltwise_soft_relu, dnnl_eltwise_hardsigmoid, dnnl_eltwise_logistic, dnnl_eltwise_exp,
        dnnl_eltwise_gelu_tanh, dnnl_eltwise_swish, dnnl_eltwise_log, dnnl_eltwise_clip,
        dnnl_eltwise_clip_v2, dnnl_eltwise_pow, dnnl_eltwise_gelu_erf, dnnl_eltwise_round,
        dnnl_eltwise_mish, dnnl_eltwise_hardswish, dnnl_eltwise_relu_use_dst_for_bwd,
        dnnl_eltwise_tanh_use_dst_for_bwd, dnnl_eltwise_elu_use_dst_for_bwd,
        dnnl_eltwise_sqrt_use_dst_for_bwd, dnnl_eltwise_logistic_use_dst_for_bwd,
        dnnl_eltwise_exp_use_dst_for_bwd, dnnl_eltwise_clip_v2_use_dst_for_bwd};

const dnnl_alg_kind_t binary_algs[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max,
        dnnl_binary_min, dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt,
        dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne, dnnl_binary_select};

const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8, dnnl_u8, dnnl_s32};

void eltwise(reader_t &r, hostility_t &h, mds_t &mds, int nd, const dnnl_dims_t d) {
    dnnl_data_type_t dt = h.is(2) ? pick_dt(r, true) : r.pick(dts);
    dnnl_memory_desc_t src = mds.tag(nd, d, dt, pick_tag(r, nd, false));
    dnnl_memory_desc_t dst = r.chance(30) ? mds.tag(nd, d, dt, pick_tag(r, nd, true)) : src;
    if (!src || !dst) return;
    attr_t a;
    add_post_ops(r, a, mds, nd, d, h.is(3), false);
    if (r.chance(20)) dnnl_primitive_attr_set_scratchpad_mode(a.attr, dnnl_scratchpad_mode_user);
    dnnl_alg_kind_t alg = h.is(4) ? (dnnl_alg_kind_t)(r.u32() & 0x3ffff) : r.pick(eltwise_algs);
    // Alpha and beta: small, sometimes not finite or extreme.
    float ab[2];
    for (float &x : ab) {
        uint8_t b = r.u8();
        x = b < 240 ? (float)((int)(b % 17) - 8) * 0.25f
                    : (b % 4 == 0 ? INFINITY : b % 4 == 1 ? NAN : b % 4 == 2 ? 1e30f : -1e30f);
    }
    const dnnl_prop_kind_t props[] = {dnnl_forward_inference, dnnl_forward_training};
    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_eltwise_forward_primitive_desc_create(&pd, engine(), r.pick(props), alg, src, dst, ab[0], ab[1], a.attr)
            != dnnl_success)
        return;
    run(pd, r);
    dnnl_primitive_desc_destroy(pd);
}

void binary(reader_t &r, hostility_t &h, mds_t &mds, int nd, const dnnl_dims_t d) {
    dnnl_dims_t d0, d1, d2;
    uint8_t m0 = r.chance(20) ? r.u8() : 0, m1 = r.u8(), m2 = r.chance(30) ? r.u8() : 0;
    for (int i = 0; i < nd; ++i) {
        d0[i] = (m0 >> i) & 1 ? 1 : d[i];
        d1[i] = (m1 >> i) & 1 ? 1 : d[i];
        d2[i] = (m2 >> i) & 1 ? 1 : d[i];
    }
    // dst has the full shape when src0 is broadcast (as the library allows).
    int nd1 = nd;
    if (h.is(2)) d1[r.range(0, nd - 1)] = r.chance(50) ? hostile_dim(r) : r.range(0, 30);
    if (h.is(3)) nd1 = (int)r.range(0, 7);
    dnnl_data_type_t t0 = r.pick(dts), t1 = r.chance(70) ? t0 : r.pick(dts), td = r.chance(70) ? t0 : r.pick(dts);
    if (h.is(4)) t1 = pick_dt(r, true);
    dnnl_memory_desc_t s0 = mds.tag(nd, d0, t0, pick_tag(r, nd, false));
    dnnl_memory_desc_t s1 = mds.tag(nd1, d1, t1, pick_tag(r, nd1, false));
    dnnl_memory_desc_t dst = mds.tag(nd, d, td, pick_tag(r, nd, true));
    dnnl_alg_kind_t alg = h.is(5) ? (dnnl_alg_kind_t)(r.u32() & 0x3ffff) : r.pick(binary_algs);
    dnnl_memory_desc_t s2 = nullptr;
    if (alg == dnnl_binary_select || r.chance(3)) s2 = mds.tag(nd, d2, r.chance(80) ? dnnl_s8 : r.pick(dts), pick_tag(r, nd, false));
    if ((!s0 || !s1 || !dst) && !h.on) return;

    attr_t a;
    add_post_ops(r, a, mds, nd, d, h.is(6));
    const int qargs[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1};
    add_scales(r, a, qargs, 2, h.is(7));
    if (r.chance(20)) dnnl_primitive_attr_set_scratchpad_mode(a.attr, dnnl_scratchpad_mode_user);

    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = s2 || r.chance(30)
            ? dnnl_binary_primitive_desc_create_v2(&pd, engine(), alg, s0, s1, s2, dst, a.attr)
            : dnnl_binary_primitive_desc_create(&pd, engine(), alg, s0, s1, dst, a.attr);
    if (st != dnnl_success) return;
    run(pd, r);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    hostility_t h(r);
    mds_t mds;

    const int nd = (int)r.range(1, 5);
    dnnl_dims_t d;
    for (int i = 0; i < nd; ++i) d[i] = r.range(1, nd <= 2 ? 70 : (nd <= 3 ? 20 : 8));
    if (r.chance(3)) d[r.range(0, nd - 1)] = 0;
    if (h.is(0)) d[r.range(0, nd - 1)] = hostile_dim(r);
    if (!h.on && product(nd, d) > (1 << 16)) return 0;
    if (r.chance(50) && !h.is(1)) eltwise(r, h, mds, nd, d);
    else binary(r, h, mds, nd, d);
    return 0;
}
