// Reorder against a naive element-by-element computation: every
// implementation (walked with next_impl) over layouts x shapes x data types
// x attributes, with 1 and 2 threads, plus bad input.
//
// Exactness: a reorder does one conversion per element, and the expected
// value is computed with the same f32 operations in the same order
// (zero point, scale, sum, dst scale, dst zero point), then rounded by the
// naive converters; so every result must match bit for bit (NaN = NaN).
#include <map>
#include <string>

#include "dm_naive.hpp"

using namespace dmt;

namespace {

kt::tally_t tally;
std::map<std::string, int> hits;

enum layout_kind_t { L_TAG, L_STRIDED, L_SUBMEM };
struct layout_t {
    const char *name;
    layout_kind_t kind;
    dnnl_format_tag_t tag;
};

const layout_t layouts[] = {
        {"abcd", L_TAG, dnnl_abcd}, {"acdb", L_TAG, dnnl_acdb}, {"bacd", L_TAG, dnnl_bacd},
        {"aBcd8b", L_TAG, dnnl_aBcd8b}, {"aBcd16b", L_TAG, dnnl_aBcd16b},
        {"OIhw16i16o", L_TAG, dnnl_ABcd16b16a}, {"Abcd16a", L_TAG, dnnl_Abcd16a},
        {"OIhw4i16o4i", L_TAG, dnnl_ABcd4b16a4b}, {"strided", L_STRIDED, dnnl_abcd},
        {"submem", L_SUBMEM, dnnl_acdb},
};

dnnl_memory_desc_t make(const layout_t &l, const int64_t *dims, dnnl_data_type_t dt) {
    dnnl_memory_desc_t md = nullptr;
    if (l.kind == L_TAG) {
        KT_OK(dnnl_memory_desc_create_with_tag(&md, 4, dims, dt, l.tag));
    } else if (l.kind == L_STRIDED) {
        // Gaps between rows, planes and images.
        dnnl_dims_t st;
        st[3] = 1;
        st[2] = dims[3] + 1;
        st[1] = st[2] * (dims[2] + 1);
        st[0] = st[1] * dims[1] + 3;
        KT_OK(dnnl_memory_desc_create_with_strides(&md, 4, dims, dt, st));
    } else {
        dnnl_dims_t pd = {dims[0] + 1, dims[1] + 2, dims[2] + 1, dims[3] + 2};
        dnnl_dims_t off = {1, 2, 1, 2};
        dnnl_memory_desc_t parent = nullptr;
        KT_OK(dnnl_memory_desc_create_with_tag(&parent, 4, pd, dt, l.tag));
        KT_OK(dnnl_memory_desc_create_submemory(&md, parent, dims, off));
        dnnl_memory_desc_destroy(parent);
    }
    return md;
}

std::vector<float> values(int64_t n, uint64_t seed) {
    static const float edge[] = {300.7f, -129.5f, 2.5f, NAN, -0.5f, 0.5f, 1.5f, 3.5f, -2.5f,
            127.5f, 255.5f, 65519.f, 1e10f, -1e10f, 0.1f, 1e-8f, 128.f, -128.f};
    kt::rng_t r(seed);
    std::vector<float> v((size_t)n);
    for (int64_t i = 0; i < n; ++i)
        v[(size_t)i] = (i % 5 == 2) ? edge[(i / 5) % (sizeof(edge) / sizeof(edge[0]))]
                                    : r.uniform(-150.f, 300.f);
    return v;
}

struct attr_cfg_t {
    const char *name;
    int src_scale_mask = -1, dst_scale_mask = -1, src_zp_mask = -1;
    bool dst_zp = false, sum = false;
};

int64_t mask_count(int mask, const dnnl_memory_desc &md) {
    int64_t n = 1;
    for (int d = 0; d < md.ndims; ++d)
        if (mask & (1 << d)) n *= md.dims[d];
    return n;
}

int64_t mask_idx(int mask, const dnnl_memory_desc &md, const int64_t *pos) {
    int64_t i = 0;
    for (int d = 0; d < md.ndims; ++d)
        if (mask & (1 << d)) i = i * md.dims[d] + pos[d];
    return i;
}

// Runs one problem through every implementation and compares each with the
// naive result. Returns false when the pd could not be created.
void run(const handles_t &h, const dnnl_memory_desc &smd, const dnnl_memory_desc &dmd,
        const attr_cfg_t *ac, const std::string &label) {
    dnnl_primitive_attr_t attr = nullptr;
    std::vector<float> ss, ds;
    std::vector<int32_t> szp;
    int32_t dzp = 7;
    const float beta = 0.5f;
    if (ac) {
        KT_OK(dnnl_primitive_attr_create(&attr));
        if (ac->src_scale_mask >= 0) {
            KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, ac->src_scale_mask));
            for (int64_t i = 0; i < mask_count(ac->src_scale_mask, smd); ++i) ss.push_back(0.25f * (float)(i % 7 + 1));
        }
        if (ac->dst_scale_mask >= 0) {
            KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, ac->dst_scale_mask));
            for (int64_t i = 0; i < mask_count(ac->dst_scale_mask, smd); ++i) ds.push_back(0.5f + 0.75f * (float)(i % 3));
        }
        if (ac->src_zp_mask >= 0) {
            KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, ac->src_zp_mask));
            for (int64_t i = 0; i < mask_count(ac->src_zp_mask, smd); ++i) szp.push_back((int32_t)(i % 5) - 2);
        }
        if (ac->dst_zp) KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, 0));
        if (ac->sum) {
            dnnl_post_ops_t po = nullptr;
            KT_OK(dnnl_post_ops_create(&po));
            KT_OK(dnnl_post_ops_append_sum(po, beta, 0, dnnl_data_type_undef));
            KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
            dnnl_post_ops_destroy(po);
        }
    }
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, &smd, h.eng, &dmd, h.eng, attr);
    tally.check(st == dnnl_success, (label + " create").c_str());
    if (st != dnnl_success) {
        dnnl_primitive_attr_destroy(attr);
        return;
    }
    const int64_t n = nelems(smd);
    const std::vector<float> sv = values(n, 1 + (uint64_t)n), dv = values(n, 99);
    const std::vector<char> sbuf = make_buf(smd, sv, 0x7b);
    const std::vector<char> dinit = make_buf(dmd, dv, 0x5a);

    // Expected dst values, logical order.
    std::vector<double> want((size_t)n);
    int64_t pos[DNNL_MAX_NDIMS];
    for (int64_t l = 0; l < n; ++l) {
        unravel(smd, l, pos);
        float s = (float)get(smd.data_type, sbuf.data(), naive_off(smd, pos));
        if (ac && ac->src_zp_mask >= 0) s -= (float)szp[(size_t)mask_idx(ac->src_zp_mask, smd, pos)];
        if (ac && ac->src_scale_mask >= 0) s *= ss[(size_t)mask_idx(ac->src_scale_mask, smd, pos)];
        if (ac && ac->sum) {
            float dold = (float)get(dmd.data_type, dinit.data(), naive_off(dmd, pos));
            s += beta * (dold - (float)(ac->dst_zp ? dzp : 0));
        }
        if (ac && ac->dst_scale_mask >= 0) s /= ds[(size_t)mask_idx(ac->dst_scale_mask, smd, pos)];
        if (ac && ac->dst_zp) s += (float)dzp;
        char tmp[8];
        put(dmd.data_type, tmp, 0, s);
        want[(size_t)l] = get(dmd.data_type, tmp, 0);
    }

    for_each_impl(pd, [&](const std::string &impl, dnnl_primitive_t prim) {
        hits[impl]++;
        std::vector<char> dbuf = dinit;
        dnnl_memory_t ms = mem(&smd, h.eng, (void *)sbuf.data()), md = mem(&dmd, h.eng, dbuf.data());
        std::vector<dnnl_memory_t> extra;
        std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}};
        auto add = [&](int arg, void *p, int64_t cnt, dnnl_data_type_t dt) {
            dnnl_memory_desc_t q = nullptr;
            dnnl_dims_t d1 = {cnt};
            KT_OK(dnnl_memory_desc_create_with_tag(&q, 1, d1, dt, dnnl_a));
            extra.push_back(mem(q, h.eng, p));
            dnnl_memory_desc_destroy(q);
            args.push_back({arg, extra.back()});
        };
        if (!ss.empty()) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ss.data(), (int64_t)ss.size(), dnnl_f32);
        if (!ds.empty()) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, ds.data(), (int64_t)ds.size(), dnnl_f32);
        if (!szp.empty()) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, szp.data(), (int64_t)szp.size(), dnnl_s32);
        if (ac && ac->dst_zp) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, &dzp, 1, dnnl_s32);
        KT_OK(dnnl_primitive_execute(prim, h.strm, (int)args.size(), args.data()));
        bool ok = true;
        for (int64_t l = 0; l < n && ok; ++l) {
            unravel(dmd, l, pos);
            ok = same(get(dmd.data_type, dbuf.data(), naive_off(dmd, pos)), want[(size_t)l]);
        }
        // Padding of a blocked dst must read as zeros.
        int64_t np = 1;
        for (int d = 0; d < dmd.ndims; ++d) np *= dmd.padded_dims[d];
        for (int64_t l = 0; l < np && ok; ++l) {
            unravel(dmd, l, pos, true);
            bool pad = false;
            for (int d = 0; d < dmd.ndims; ++d) pad = pad || pos[d] >= dmd.dims[d];
            if (pad) ok = get(dmd.data_type, dbuf.data(), naive_off(dmd, pos)) == 0;
        }
        tally.check(ok, (label + " " + impl).c_str());
        for (auto m : extra) dnnl_memory_destroy(m);
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(md);
    });
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
}

const char *dt_name(dnnl_data_type_t dt) {
    switch (dt) {
        case dnnl_f32: return "f32";
        case dnnl_bf16: return "bf16";
        case dnnl_f16: return "f16";
        case dnnl_s32: return "s32";
        case dnnl_s8: return "s8";
        case dnnl_u8: return "u8";
        default: return "?";
    }
}

// Spatial sizes 35 and 16 give the 16-wide tiles of the transposing
// reorder a full tile plus a tail, and exactly one tile.
const int64_t shapes[][4] = {{1, 3, 2, 5}, {2, 17, 3, 3}, {2, 33, 1, 4}, {1, 16, 2, 2}, {3, 1, 2, 3}, {17, 32, 1, 2},
        {2, 33, 5, 7}, {1, 16, 4, 4}};
const dnnl_data_type_t dts[] = {dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8};

void case_run(const handles_t &h, const layout_t &ls, const layout_t &ld, const int64_t *dims,
        dnnl_data_type_t sdt, dnnl_data_type_t ddt, const attr_cfg_t *ac) {
    dnnl_memory_desc_t s = make(ls, dims, sdt), d = make(ld, dims, ddt);
    char label[256];
    std::snprintf(label, sizeof(label), "%s:%s -> %s:%s %ldx%ldx%ldx%ld%s%s", ls.name, dt_name(sdt),
            ld.name, dt_name(ddt), (long)dims[0], (long)dims[1], (long)dims[2], (long)dims[3],
            ac ? " attr " : "", ac ? ac->name : "");
    run(h, *s, *d, ac, label);
    dnnl_memory_desc_destroy(s);
    dnnl_memory_desc_destroy(d);
}

void grid(const handles_t &h) {
    // Every pair of layouts on every shape, same type (f32, then 2- and
    // 1-byte types on two shapes).
    for (auto &sh : shapes)
        for (auto &ls : layouts)
            for (auto &ld : layouts) case_run(h, ls, ld, sh, dnnl_f32, dnnl_f32, nullptr);
    for (int s = 1; s <= 2; ++s)
        for (auto &ls : layouts)
            for (auto &ld : layouts) {
                case_run(h, ls, ld, shapes[s], dnnl_bf16, dnnl_bf16, nullptr);
                case_run(h, ls, ld, shapes[s], dnnl_s8, dnnl_s8, nullptr);
            }
    // Every pair of data types on a few layout pairs.
    const int lp[][2] = {{0, 0}, {0, 4}, {5, 1}, {8, 9}};
    for (auto sdt : dts)
        for (auto ddt : dts)
            for (auto &p : lp) case_run(h, layouts[p[0]], layouts[p[1]], shapes[1], sdt, ddt, nullptr);
    // Attributes.
    std::vector<attr_cfg_t> acs;
    {
        attr_cfg_t a;
        a.name = "src_scale0"; a.src_scale_mask = 0; acs.push_back(a);
        a = attr_cfg_t(); a.name = "src_scale_C"; a.src_scale_mask = 2; acs.push_back(a);
        a = attr_cfg_t(); a.name = "dst_scale_NC"; a.dst_scale_mask = 3; acs.push_back(a);
        a = attr_cfg_t(); a.name = "scales_both"; a.src_scale_mask = 8; a.dst_scale_mask = 0; acs.push_back(a);
        a = attr_cfg_t(); a.name = "sum"; a.sum = true; acs.push_back(a);
        a = attr_cfg_t(); a.name = "src_zp0"; a.src_zp_mask = 0; acs.push_back(a);
        a = attr_cfg_t(); a.name = "src_zp_C"; a.src_zp_mask = 2; acs.push_back(a);
        a = attr_cfg_t(); a.name = "dst_zp"; a.dst_zp = true; acs.push_back(a);
        a = attr_cfg_t(); a.name = "all"; a.src_scale_mask = 2; a.dst_scale_mask = 1; a.src_zp_mask = 2;
        a.dst_zp = true; a.sum = true; acs.push_back(a);
    }
    const dnnl_data_type_t ap[][2] = {{dnnl_f32, dnnl_s8}, {dnnl_s8, dnnl_f32}, {dnnl_u8, dnnl_s8},
            {dnnl_f32, dnnl_f32}, {dnnl_bf16, dnnl_u8}, {dnnl_s32, dnnl_f16}, {dnnl_s8, dnnl_s32}};
    const int alp[][2] = {{0, 4}, {1, 0}, {7, 9}};
    for (auto &ac : acs)
        for (auto &p : ap) {
            bool zp_src_ok = p[0] == dnnl_s32 || p[0] == dnnl_s8 || p[0] == dnnl_u8;
            bool zp_dst_ok = p[1] == dnnl_s32 || p[1] == dnnl_s8 || p[1] == dnnl_u8;
            if ((ac.src_zp_mask >= 0 && !zp_src_ok) || (ac.dst_zp && !zp_dst_ok)) continue;
            for (auto &l : alp) case_run(h, layouts[l[0]], layouts[l[1]], shapes[1], p[0], p[1], &ac);
        }
}

// Plain <-> 16c in 3 and 5 dims, 4-byte types, channel counts around the
// block and spatial sizes around the 16-wide tile.
void transpose_grid(const handles_t &h) {
    const int64_t chans[] = {1, 3, 15, 16, 17, 33};
    const int64_t sps[] = {1, 5, 16, 17, 40};
    for (auto dt : {dnnl_f32, dnnl_s32})
        for (int64_t c : chans)
            for (int64_t sp : sps)
                for (int nd : {3, 5}) {
                    dnnl_dims_t d = {2, c, sp, 1, 1};
                    if (nd == 5) { d[2] = 2; d[3] = sp; d[4] = 3; }
                    const dnnl_format_tag_t plain = nd == 3 ? dnnl_abc : dnnl_abcde;
                    const dnnl_format_tag_t blk = nd == 3 ? dnnl_aBc16b : dnnl_aBcde16b;
                    dnnl_memory_desc_t p = nullptr, b = nullptr;
                    KT_OK(dnnl_memory_desc_create_with_tag(&p, nd, d, dt, plain));
                    KT_OK(dnnl_memory_desc_create_with_tag(&b, nd, d, dt, blk));
                    char label[160];
                    std::snprintf(label, sizeof(label), "transpose %s nd=%d C=%ld sp=%ld", dt_name(dt), nd,
                            (long)c, (long)sp);
                    run(h, *p, *b, nullptr, std::string(label) + " to 16c");
                    run(h, *b, *p, nullptr, std::string(label) + " from 16c");
                    if (nd == 3) {
                        // Gaps between channels and images of the plain side.
                        dnnl_memory_desc_t g = nullptr;
                        dnnl_dims_t st = {c * (sp + 2) + 3, sp + 2, 1};
                        KT_OK(dnnl_memory_desc_create_with_strides(&g, nd, d, dt, st));
                        run(h, *g, *b, nullptr, std::string(label) + " strided to 16c");
                        run(h, *b, *g, nullptr, std::string(label) + " from 16c strided");
                        dnnl_memory_desc_destroy(g);
                    }
                    dnnl_memory_desc_destroy(p);
                    dnnl_memory_desc_destroy(b);
                }
}

void bad_input(const handles_t &h) {
    const int64_t dims[4] = {2, 3, 4, 5}, other[4] = {2, 3, 4, 6};
    kt::md_t s(make(layouts[0], dims, dnnl_f32)), d(make(layouts[4], dims, dnnl_f32));
    kt::md_t o(make(layouts[0], other, dnnl_f32));
    kt::md_t any(kt::make_md({2, 3, 4, 5}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t d3(kt::make_md({2, 3, 20}, dnnl_f32, dnnl_abc));
    dnnl_primitive_desc_t pd = nullptr;
    tally.check(dnnl_reorder_primitive_desc_create(nullptr, s, h.eng, d, h.eng, nullptr) == dnnl_invalid_arguments, "NULL pd");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, nullptr, h.eng, d, h.eng, nullptr) == dnnl_invalid_arguments, "NULL src");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, nullptr, h.eng, nullptr) == dnnl_invalid_arguments, "NULL dst");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, nullptr, d, h.eng, nullptr) == dnnl_invalid_arguments, "NULL src engine");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, d, nullptr, nullptr) == dnnl_invalid_arguments, "NULL dst engine");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, o, h.eng, nullptr) == dnnl_invalid_arguments, "dims differ");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, d3, h.eng, nullptr) == dnnl_invalid_arguments, "ndims differ");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, any, h.eng, d, h.eng, nullptr) == dnnl_invalid_arguments, "src any");
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, any, h.eng, nullptr) == dnnl_invalid_arguments, "dst any");
    dnnl_primitive_attr_t a = nullptr;
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 0));
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, d, h.eng, a) == dnnl_invalid_arguments, "zp on f32 src");
    dnnl_primitive_attr_destroy(a);
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_scales_mask(a, DNNL_ARG_WEIGHTS, 0));
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, d, h.eng, a) == dnnl_unimplemented, "scales on weights");
    dnnl_primitive_attr_destroy(a);
    KT_OK(dnnl_primitive_attr_create(&a));
    dnnl_post_ops_t po = nullptr;
    KT_OK(dnnl_post_ops_create(&po));
    KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(a, po));
    tally.check(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, d, h.eng, a) == dnnl_unimplemented, "eltwise post-op");
    dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(a);

    // Queries and a missing argument at execution.
    KT_OK(dnnl_reorder_primitive_desc_create(&pd, s, h.eng, d, h.eng, nullptr));
    tally.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), s) == 1, "query src md");
    tally.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), d) == 1, "query dst md");
    tally.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_TO), d) == 1, "query exec arg md");
    tally.check(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 1, "num inputs");
    dnnl_engine_t qe = nullptr;
    KT_OK(dnnl_primitive_desc_query(pd, dnnl_query_reorder_dst_engine, 0, &qe));
    tally.check(qe == h.eng, "query dst engine");
    dnnl_primitive_t prim = nullptr;
    KT_OK(dnnl_primitive_create(&prim, pd));
    std::vector<float> buf(2 * 3 * 4 * 5);
    dnnl_memory_t m = mem(s, h.eng, buf.data());
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, m}};
    tally.check(dnnl_primitive_execute(prim, h.strm, 1, args) == dnnl_invalid_arguments, "missing dst");
    dnnl_exec_arg_t args2[] = {{DNNL_ARG_FROM, m}, {DNNL_ARG_TO, m}};
    tally.check(dnnl_primitive_execute(prim, h.strm, 2, args2) == dnnl_invalid_arguments, "dst md mismatch");
    dnnl_memory_destroy(m);
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    handles_t h;
    kt::with_threads(1, [&] { grid(h); transpose_grid(h); });
    kt::with_threads(2, [&] { grid(h); transpose_grid(h); });
    bad_input(h);
    for (const char *impl : {"reorder:direct_copy", "reorder:blocked_simd", "reorder:generic", "reorder:ref"}) {
        std::string what = std::string("implementation reached: ") + impl;
        tally.check(hits[impl] > 0, what.c_str());
    }
    if (dnnl_get_effective_cpu_isa() >= dnnl_cpu_isa_avx512_core)
        tally.check(hits["reorder:transpose16_avx512"] > 0, "implementation reached: reorder:transpose16_avx512");
    return tally.finish();
}
