// Fuzz target: matmul, 2D to 4D with broadcast batch dimensions, transposed
// layouts, bias of every broadcast shape, int8 and low-precision types,
// runtime dimensions, scales, zero points and post-ops.
#include "fuzz_common.hpp"

using namespace kfuzz;

namespace {

// Concrete descriptors for a problem created with runtime dimensions.
struct concrete_t {
    const_dnnl_memory_desc_t src = nullptr, wei = nullptr, dst = nullptr, bia = nullptr;
};

const_dnnl_memory_desc_t concrete(void *ctx, int arg) {
    auto *c = static_cast<concrete_t *>(ctx);
    switch (arg) {
        case DNNL_ARG_SRC: return c->src;
        case DNNL_ARG_WEIGHTS: return c->wei;
        case DNNL_ARG_DST: return c->dst;
        case DNNL_ARG_BIAS: return c->bia;
        default: return nullptr;
    }
}

// Plain layout with the last two dimensions in either order.
dnnl_memory_desc_t make(mds_t &mds, reader_t &r, int nd, const dnnl_dims_t d, dnnl_data_type_t dt,
        bool allow_any) {
    uint8_t b = r.u8();
    if (allow_any && b % 5 == 4) return mds.tag(nd, d, dt, dnnl_format_tag_any);
    if (b % 5 == 3) return mds.tag(nd, d, dt, pick_tag(r, nd, false));
    dnnl_dims_t st;
    dnnl_dim_t s = 1;
    bool trans = b % 5 == 1;
    int a = nd - 1, c = nd - 2;
    if (trans) a = nd - 2, c = nd - 1;
    st[a] = 1;
    s = d[a] > 0 ? d[a] : 1;
    // A leading dimension sometimes longer than needed.
    if (b >= 200) s += (dnnl_dim_t)(b % 3);
    st[c] = s;
    s *= d[c] > 0 ? d[c] : 1;
    for (int i = nd - 3; i >= 0; --i) {
        st[i] = s;
        s *= d[i] > 0 ? d[i] : 1;
    }
    dnnl_memory_desc_t m = nullptr;
    if (dnnl_memory_desc_create_with_strides(&m, nd, d, dt, st) != dnnl_success) return nullptr;
    mds.keep(m);
    return m;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    hostility_t h(r);
    mds_t mds;

    const int nd = (int)r.range(2, 4);
    const dnnl_dim_t M = r.range(1, 40), K = r.range(1, 40), N = r.range(1, 40);
    dnnl_dims_t sd, wd, dd, bd;
    for (int i = 0; i < nd - 2; ++i) {
        dnnl_dim_t b = r.range(1, 3);
        // Batch broadcast: either side may hold 1.
        uint8_t bc = r.u8() % 4;
        sd[i] = bc == 1 ? 1 : b;
        wd[i] = bc == 2 ? 1 : b;
        dd[i] = b;
        bd[i] = r.chance(50) ? 1 : b;
    }
    sd[nd - 2] = M, sd[nd - 1] = K;
    wd[nd - 2] = K, wd[nd - 1] = N;
    dd[nd - 2] = M, dd[nd - 1] = N;
    bd[nd - 2] = r.chance(70) ? 1 : M;
    bd[nd - 1] = r.chance(20) ? 1 : N;
    if (h.is(0)) {
        dnnl_dim_t *which[] = {sd, wd, dd, bd};
        which[r.range(0, 3)][r.range(0, nd - 1)] = r.chance(50) ? hostile_dim(r) : r.range(0, 50);
    }
    if (!h.on && (double)product(nd, dd) * (double)K > (1 << 18)) return 0;

    dnnl_data_type_t sdt = dnnl_f32, wdt = dnnl_f32, ddt = dnnl_f32, bdt = dnnl_f32;
    const dnnl_data_type_t int8_dst[] = {dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8, dnnl_bf16};
    switch (r.u8() % 8) {
        case 1:
            sdt = r.chance(50) ? dnnl_u8 : dnnl_s8, wdt = dnnl_s8;
            ddt = r.pick(int8_dst);
            bdt = r.chance(50) ? dnnl_f32 : dnnl_s32;
            break;
        case 2: sdt = wdt = dnnl_bf16, ddt = r.chance(50) ? dnnl_bf16 : dnnl_f32; break;
        case 3: sdt = wdt = dnnl_f16, ddt = r.chance(50) ? dnnl_f16 : dnnl_f32; break;
        default: break;
    }
    if (h.is(1)) wdt = pick_dt(r, true), bdt = pick_dt(r, true);

    concrete_t c;
    c.src = make(mds, r, nd, sd, sdt, false);
    c.wei = make(mds, r, nd, wd, wdt, false);
    c.dst = make(mds, r, nd, dd, ddt, false);
    const bool with_bias = r.chance(40);
    c.bia = with_bias ? mds.tag(nd, bd, bdt, pick_tag(r, nd, false)) : nullptr;
    if (!c.src || !c.wei || !c.dst || (with_bias && !c.bia)) return 0;

    // The descriptors the primitive is created with: the concrete ones, or
    // copies with some dimensions (and so all strides) left to runtime, or
    // `any` layouts.
    const_dnnl_memory_desc_t src = c.src, wei = c.wei, dst = c.dst, bia = c.bia;
    uint8_t mode = r.u8() % 6;
    if (mode == 1 || h.is(2)) {
        dnnl_dims_t rs = {0}, rw = {0}, rd = {0};
        std::memcpy(rs, sd, sizeof(rs));
        std::memcpy(rw, wd, sizeof(rw));
        std::memcpy(rd, dd, sizeof(rd));
        if (r.chance(60)) rs[nd - 2] = rd[nd - 2] = DNNL_RUNTIME_DIM_VAL; // M
        if (r.chance(40)) rs[nd - 1] = rw[nd - 2] = DNNL_RUNTIME_DIM_VAL; // K
        if (r.chance(30)) rw[nd - 1] = rd[nd - 1] = DNNL_RUNTIME_DIM_VAL; // N
        if (h.is(2)) rd[r.range(0, nd - 1)] = DNNL_RUNTIME_DIM_VAL;
        dnnl_format_tag_t t = (dnnl_format_tag_t)(dnnl_a + nd - 1);
        src = mds.tag(nd, rs, sdt, t);
        const dnnl_format_tag_t wt = r.chance(50) ? t : pick_tag(r, nd, false);
        wei = mds.tag(nd, rw, wdt, wt);
        dst = mds.tag(nd, rd, ddt, t);
        if (!src || !wei || !dst) return 0;
        // The concrete ones have the same layouts, with every dim known.
        c.src = mds.tag(nd, sd, sdt, t);
        c.wei = mds.tag(nd, wd, wdt, wt);
        c.dst = mds.tag(nd, dd, ddt, t);
        if (!c.src || !c.wei || !c.dst) return 0;
    } else if (mode == 2) {
        wei = mds.tag(nd, wd, wdt, dnnl_format_tag_any);
        if (r.chance(50)) dst = mds.tag(nd, dd, ddt, dnnl_format_tag_any);
        if (!wei || !dst) return 0;
    }

    attr_t a;
    add_post_ops(r, a, mds, nd, dd, h.is(3));
    const int qargs[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    add_scales(r, a, qargs, 3, h.is(4));
    add_zero_points(r, a, qargs, 3);
    if (r.chance(20)) dnnl_primitive_attr_set_scratchpad_mode(a.attr, dnnl_scratchpad_mode_user);
    if (r.chance(10)) dnnl_primitive_attr_set_fpmath_mode(a.attr, h.is(5) ? (dnnl_fpmath_mode_t)(r.u8() % 8) : dnnl_fpmath_mode_bf16);

    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_matmul_primitive_desc_create(&pd, engine(), src, wei, bia, dst, a.attr) != dnnl_success) return 0;
    run(pd, r, concrete, &c);
    dnnl_primitive_desc_destroy(pd);
    return 0;
}
