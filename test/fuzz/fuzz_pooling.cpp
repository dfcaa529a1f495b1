// Fuzz target: forward pooling (max, average with and without padding),
// 1D to 3D, strides, dilation, asymmetric padding, training (workspace) and
// inference, every layout, post-ops.
#include "fuzz_common.hpp"

using namespace kfuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    hostility_t h(r);
    mds_t mds;

    const int sp = (int)r.range(1, 3);
    const int nd = sp + 2;
    const dnnl_dim_t mb = r.range(1, 3);
    const dnnl_dim_t c = r.range(1, 6) * (r.chance(40) ? 8 : 1);
    dnnl_dims_t in_sp, k, s, dil, pl, pr, out_sp;
    for (int i = 0; i < sp; ++i) {
        in_sp[i] = r.range(1, sp == 3 ? 7 : 16);
        k[i] = r.range(1, 4);
        s[i] = r.range(1, 3);
        dil[i] = r.chance(20) ? 1 : 0;
        dnnl_dim_t ek = (k[i] - 1) * (dil[i] + 1) + 1;
        // Padding smaller than the kernel, as the library requires.
        pl[i] = r.range(0, ek - 1);
        pr[i] = r.range(0, ek - 1);
        dnnl_dim_t span = in_sp[i] + pl[i] + pr[i] - ek;
        if (span < 0) {
            in_sp[i] += -span;
            span = 0;
        }
        out_sp[i] = span / s[i] + 1;
    }
    dnnl_dims_t src_d = {mb, c}, dst_d = {mb, c};
    for (int i = 0; i < sp; ++i) src_d[2 + i] = in_sp[i], dst_d[2 + i] = out_sp[i];
    int dnd = nd;
    if (h.is(0)) {
        dnnl_dim_t *which[] = {src_d, dst_d};
        which[r.range(0, 1)][r.range(0, nd - 1)] = r.chance(50) ? hostile_dim(r) : r.range(0, 30);
    }
    if (h.is(1)) s[r.range(0, sp - 1)] = r.chance(50) ? hostile_dim(r) : 0;
    if (h.is(2)) k[r.range(0, sp - 1)] = r.chance(50) ? hostile_dim(r) : r.range(0, 40);
    if (h.is(3)) {
        dnnl_dim_t *which[] = {pl, pr, dil};
        which[r.range(0, 2)][r.range(0, sp - 1)] = r.chance(50) ? hostile_dim(r) : r.range(-2, 40);
    }
    if (h.is(4)) dnd = (int)r.range(0, 8);

    const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8, dnnl_u8, dnnl_s32};
    dnnl_data_type_t sdt = r.pick(dts);
    dnnl_data_type_t ddt = r.chance(80) ? sdt : r.pick(dts);
    if (h.is(5)) sdt = pick_dt(r, true);
    dnnl_memory_desc_t src = mds.tag(nd, src_d, sdt, pick_tag(r, nd, false));
    dnnl_memory_desc_t dst = mds.tag(dnd, dst_d, ddt, pick_tag(r, dnd, true));
    if ((!src || !dst) && !h.on) return 0;

    attr_t a;
    add_post_ops(r, a, mds, nd, dst_d, h.is(6), false);
    if (r.chance(20)) dnnl_primitive_attr_set_scratchpad_mode(a.attr, dnnl_scratchpad_mode_user);

    const dnnl_alg_kind_t algs[] = {dnnl_pooling_max, dnnl_pooling_avg_include_padding,
            dnnl_pooling_avg_exclude_padding};
    dnnl_alg_kind_t alg = h.is(7) ? (dnnl_alg_kind_t)(r.u32() & 0x3ffff) : r.pick(algs);
    const dnnl_prop_kind_t props[] = {dnnl_forward_inference, dnnl_forward_training};
    dnnl_prop_kind_t prop = r.pick(props);

    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_pooling_forward_primitive_desc_create(&pd, engine(), prop, alg, src, dst, s, k, dil, pl, pr, a.attr)
            != dnnl_success)
        return 0;
    run(pd, r);
    dnnl_primitive_desc_destroy(pd);
    return 0;
}
