// Fuzz target: forward convolution and deconvolution, 1D to 3D, with
// groups, strides, dilation, asymmetric padding, bias, scales, zero points
// and post-ops; the destination shape is computed so the problem is valid
// unless a hostile field says otherwise.
#include "fuzz_common.hpp"

using namespace kfuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    hostility_t h(r);
    mds_t mds;

    const bool deconv = r.chance(25);
    const int sp = (int)r.range(1, 3); // spatial dimensions
    const int nd = sp + 2;
    const dnnl_dim_t mb = r.range(1, 3);
    const dnnl_dim_t g = r.chance(25) ? r.range(1, 4) : 1;
    const dnnl_dim_t ic = g * r.range(1, 8) * (r.chance(30) ? 8 : 1);
    const dnnl_dim_t oc = g * r.range(1, 8) * (r.chance(30) ? 8 : 1);
    dnnl_dims_t in_sp, k, s, dil, pl, pr, out_sp;
    for (int i = 0; i < sp; ++i) {
        in_sp[i] = r.range(1, sp == 3 ? 6 : 14);
        k[i] = r.range(1, 5);
        s[i] = r.range(1, 3);
        dil[i] = r.chance(20) ? r.range(1, 2) : 0;
        pl[i] = r.range(0, 2);
        pr[i] = r.range(0, 2);
    }
    // Output size from the input; for deconvolution the roles swap.
    for (int i = 0; i < sp; ++i) {
        dnnl_dim_t ek = (k[i] - 1) * (dil[i] + 1) + 1;
        if (deconv) {
            out_sp[i] = (in_sp[i] - 1) * s[i] - pl[i] - pr[i] + ek;
        } else {
            dnnl_dim_t span = in_sp[i] + pl[i] + pr[i] - ek;
            out_sp[i] = span >= 0 ? span / s[i] + 1 : 0;
        }
    }
    for (int i = 0; i < sp; ++i)
        if (out_sp[i] <= 0) {
            // Widen the padding until the output is not empty.
            pr[i] += 1 - out_sp[i] * (deconv ? 1 : s[i]);
            out_sp[i] = 1;
            if (deconv) {
                dnnl_dim_t ek = (k[i] - 1) * (dil[i] + 1) + 1;
                out_sp[i] = (in_sp[i] - 1) * s[i] - pl[i] - pr[i] + ek;
                if (out_sp[i] <= 0) return 0;
            }
        }
    dnnl_dims_t src_d = {mb, ic}, dst_d = {mb, oc};
    for (int i = 0; i < sp; ++i) src_d[2 + i] = in_sp[i], dst_d[2 + i] = out_sp[i];
    // Weights: [G,] OC/G, IC/G (deconvolution: still OC first), spatial.
    dnnl_dims_t wei_d;
    int wnd = nd + (g > 1 ? 1 : 0);
    int o = 0;
    if (g > 1) wei_d[o++] = g;
    wei_d[o++] = oc / g;
    wei_d[o++] = ic / g;
    for (int i = 0; i < sp; ++i) wei_d[o++] = k[i];
    if (h.is(0)) {
        // One hostile dimension somewhere.
        dnnl_dim_t *which[] = {src_d, dst_d, wei_d};
        int t = (int)r.range(0, 2);
        which[t][r.range(0, (t == 2 ? wnd : nd) - 1)] = r.chance(50) ? hostile_dim(r) : r.range(1, 20);
    }
    if (h.is(1)) s[r.range(0, sp - 1)] = r.chance(50) ? hostile_dim(r) : 0;
    if (h.is(2)) pl[r.range(0, sp - 1)] = r.chance(50) ? hostile_dim(r) : -1;
    if (h.is(3)) dil[r.range(0, sp - 1)] = hostile_dim(r);
    if (h.is(4)) wnd = (int)r.range(0, 8);
    // Cap the work of one execution.
    // In double: product() answers INT64_MAX for a hostile shape, and sums
    // or products of those would overflow int64_t (undefined behaviour).
    double work = (double)product(nd, src_d) + (double)product(nd, dst_d) + (double)product(wnd, wei_d)
            + (double)product(nd, dst_d) / (oc > 0 ? oc : 1) * (double)(ic / (g > 0 ? g : 1))
                    * (double)product(sp, k);
    if (!h.on && (work <= 0 || work > (1 << 18))) return 0;

    // Data types: f32 mostly; int8 with s32/f32/int8 dst; bf16/f16.
    dnnl_data_type_t sdt = dnnl_f32, wdt = dnnl_f32, ddt = dnnl_f32, bdt = dnnl_f32;
    const dnnl_data_type_t int8_dst[] = {dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8};
    switch (r.u8() % 8) {
        case 1:
            sdt = r.chance(50) ? dnnl_u8 : dnnl_s8, wdt = dnnl_s8;
            ddt = r.pick(int8_dst);
            break;
        case 2: sdt = wdt = dnnl_bf16, ddt = r.chance(50) ? dnnl_bf16 : dnnl_f32; break;
        case 3: sdt = wdt = dnnl_f16, ddt = r.chance(50) ? dnnl_f16 : dnnl_f32; break;
        default: break;
    }
    if (h.is(5)) {
        sdt = pick_dt(r, true);
        ddt = pick_dt(r, true);
    }
    dnnl_memory_desc_t src = mds.tag(nd, src_d, sdt, pick_tag(r, nd, true));
    dnnl_memory_desc_t wei = mds.tag(wnd, wei_d, wdt, pick_tag(r, wnd, true));
    dnnl_memory_desc_t dst = mds.tag(nd, dst_d, ddt, pick_tag(r, nd, true));
    dnnl_memory_desc_t bia = nullptr;
    if (r.chance(50)) {
        dnnl_dim_t bd = h.is(6) ? hostile_dim(r) : oc;
        bia = mds.tag(1, &bd, bdt, dnnl_a);
    }
    if (!src || !wei || !dst) {
        // Still let the library see null descriptors now and then.
        if (!h.on) return 0;
    }

    attr_t a;
    add_post_ops(r, a, mds, nd, dst_d, h.is(7));
    const int qargs[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
    add_scales(r, a, qargs, 3, h.is(7));
    add_zero_points(r, a, qargs, 3);
    if (r.chance(20)) dnnl_primitive_attr_set_scratchpad_mode(a.attr, dnnl_scratchpad_mode_user);

    const dnnl_prop_kind_t props[] = {dnnl_forward_inference, dnnl_forward_training};
    dnnl_prop_kind_t prop = h.is(6) && r.chance(50) ? (dnnl_prop_kind_t)r.u8() : r.pick(props);
    dnnl_alg_kind_t alg = deconv ? dnnl_deconvolution_direct
                                 : (r.chance(10) ? dnnl_convolution_auto : dnnl_convolution_direct);
    if (h.on && r.chance(20)) alg = (dnnl_alg_kind_t)r.u8();

    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = deconv
            ? dnnl_deconvolution_forward_primitive_desc_create(&pd, engine(), prop, alg, src, wei, bia,
                      dst, s, dil, pl, pr, a.attr)
            : dnnl_convolution_forward_primitive_desc_create(&pd, engine(), prop, alg, src, wei, bia,
                      dst, s, dil, pl, pr, a.attr);
    if (st != dnnl_success) return 0;
    run(pd, r);
    dnnl_primitive_desc_destroy(pd);
    return 0;
}
