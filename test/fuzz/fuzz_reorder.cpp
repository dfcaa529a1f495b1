// Fuzz target: reorder between any two layouts of the same dims (tags,
// blocked, strided with gaps, submemories of a larger tensor) and any two
// data types, with scales, zero points and a sum post-op.
#include "fuzz_common.hpp"

using namespace kfuzz;

namespace {

// A layout for dims: a tag, or strides in a random order with gaps, or a
// window of a larger plain tensor.
dnnl_memory_desc_t make(mds_t &mds, reader_t &r, int nd, const dnnl_dims_t d, dnnl_data_type_t dt) {
    switch (r.u8() % 4) {
        case 0:
        case 1: return mds.tag(nd, d, dt, pick_tag(r, nd, false));
        case 2: {
            int order[DNNL_MAX_NDIMS];
            for (int i = 0; i < nd; ++i) order[i] = i;
            for (int i = nd - 1; i > 0; --i) {
                int j = (int)r.range(0, i);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            dnnl_dims_t st;
            dnnl_dim_t s = 1;
            for (int i = nd - 1; i >= 0; --i) {
                st[order[i]] = s;
                // Hostile dims stay out of the stride (no overflow here).
                dnnl_dim_t e = d[order[i]] > 0 && d[order[i]] < (1 << 20) ? d[order[i]] : 1;
                s *= e + (r.chance(15) ? 1 : 0);
            }
            dnnl_memory_desc_t m = nullptr;
            if (dnnl_memory_desc_create_with_strides(&m, nd, d, dt, st) != dnnl_success) return nullptr;
            mds.keep(m);
            return m;
        }
        default: {
            dnnl_dims_t big, off;
            for (int i = 0; i < nd; ++i) {
                dnnl_dim_t extra = r.range(0, 2);
                big[i] = d[i] > 0 ? d[i] : 1;
                // A hostile dim near INT64_MAX gets no margin (the sum
                // overflowed here: found by make fuzz-smoke).
                if (big[i] > INT64_MAX - extra) extra = 0;
                big[i] += extra;
                off[i] = r.range(0, extra);
            }
            dnnl_memory_desc_t parent = mds.tag(nd, big, dt, pick_tag(r, nd, false));
            if (!parent) return nullptr;
            dnnl_memory_desc_t m = nullptr;
            if (dnnl_memory_desc_create_submemory(&m, parent, d, off) != dnnl_success) return nullptr;
            mds.keep(m);
            return m;
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader_t r(data, size);
    hostility_t h(r);
    mds_t mds;

    const int nd = (int)r.range(1, 6);
    dnnl_dims_t d;
    for (int i = 0; i < nd; ++i) d[i] = r.range(1, nd <= 2 ? 40 : (nd <= 4 ? 12 : 5));
    if (r.chance(5)) d[r.range(0, nd - 1)] = 0;
    dnnl_dims_t dd;
    std::memcpy(dd, d, sizeof(dd));
    if (h.is(0)) dd[r.range(0, nd - 1)] = r.chance(50) ? hostile_dim(r) : r.range(0, 50);
    if (!h.on && product(nd, d) > (1 << 16)) return 0;

    const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s8, dnnl_u8, dnnl_s32};
    dnnl_data_type_t sdt = h.is(1) ? pick_dt(r, true) : r.pick(dts);
    dnnl_data_type_t ddt = h.is(2) ? pick_dt(r, true) : r.pick(dts);
    int dnd = h.is(3) ? (int)r.range(0, 13) : nd;
    dnnl_memory_desc_t src = make(mds, r, nd, d, sdt);
    dnnl_memory_desc_t dst = make(mds, r, dnd > DNNL_MAX_NDIMS ? nd : dnd, dd, ddt);
    if ((!src || !dst) && !h.on) return 0;

    attr_t a;
    const int qargs[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    add_scales(r, a, qargs, 2, h.is(4));
    add_zero_points(r, a, qargs, 2);
    if (r.chance(15)) {
        dnnl_post_ops_create(&a.po);
        dnnl_post_ops_append_sum(a.po, r.small_float(), 0, dnnl_data_type_undef);
        if (h.is(5)) dnnl_post_ops_append_eltwise(a.po, dnnl_eltwise_relu, 0.f, 0.f);
        dnnl_primitive_attr_set_post_ops(a.attr, a.po);
    }
    if (r.chance(20)) dnnl_primitive_attr_set_scratchpad_mode(a.attr, dnnl_scratchpad_mode_user);

    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_reorder_primitive_desc_create(&pd, src, engine(), dst, engine(), a.attr) != dnnl_success)
        return 0;
    run(pd, r);
    dnnl_primitive_desc_destroy(pd);
    return 0;
}
