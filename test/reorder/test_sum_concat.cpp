// Sum and concat against naive computations, every implementation, 1 and 2
// threads, plus bad input.
//
// Sum: the library accumulates acc = s0*x0, then acc = fma(s_i, x_i, acc) in
// order of i; the naive loop below does exactly that, so results match bit
// for bit. Concat only moves (and converts once) data: exact too.
#include <map>
#include <string>

#include "dm_naive.hpp"

using namespace dmt;

namespace {

kt::tally_t tally;
std::map<std::string, int> hits;

dnnl_memory_desc_t tag_md(const int64_t *dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&md, 4, dims, dt, tag));
    return md;
}

std::vector<float> vals(int64_t n, uint64_t seed) {
    kt::rng_t r(seed);
    std::vector<float> v((size_t)n);
    for (auto &x : v) x = r.uniform(-100.f, 100.f);
    return v;
}

// ---------------------------------------------------------------- sum

void sum_case(const handles_t &h, const std::vector<dnnl_memory_desc_t> &srcs,
        const dnnl_memory_desc_t dst, const std::vector<float> &scales, bool in_place,
        const std::string &label) {
    const int n = (int)srcs.size();
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_sum_primitive_desc_create(&pd, h.eng, dst, n, scales.data(), srcs.data(), nullptr);
    tally.check(st == dnnl_success, (label + " create").c_str());
    if (st != dnnl_success) return;
    // A copy: next_impl replaces the descriptor the query points into.
    const dnnl_memory_desc dmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    if (!dst) tally.check(dnnl_memory_desc_equal(&dmd, srcs[0]) || srcs[0]->data_type != dmd.data_type, (label + " dst any = src0 layout").c_str());
    const int64_t ne = nelems(dmd);
    std::vector<std::vector<char>> bufs;
    for (int i = 0; i < n; ++i) bufs.push_back(make_buf(*srcs[i], vals(ne, 10 + i), 0));
    std::vector<double> want((size_t)ne);
    int64_t pos[DNNL_MAX_NDIMS];
    for (int64_t l = 0; l < ne; ++l) {
        unravel(dmd, l, pos);
        float acc = 0;
        for (int i = 0; i < n; ++i) {
            float x = (float)get(srcs[i]->data_type, bufs[i].data(), naive_off(*srcs[i], pos));
            acc = i == 0 ? scales[0] * x : std::fma(scales[i], x, acc);
        }
        char tmp[8];
        put(dmd.data_type, tmp, 0, acc);
        want[(size_t)l] = get(dmd.data_type, tmp, 0);
    }
    for_each_impl(pd, [&](const std::string &impl, dnnl_primitive_t prim) {
        hits[impl]++;
        std::vector<std::vector<char>> b = bufs;
        std::vector<char> dbuf(dnnl_memory_desc_get_size(&dmd) + 64, 0x5a);
        std::vector<dnnl_memory_t> ms;
        std::vector<dnnl_exec_arg_t> args;
        for (int i = 0; i < n; ++i) {
            ms.push_back(mem(srcs[i], h.eng, b[i].data()));
            args.push_back({DNNL_ARG_MULTIPLE_SRC + i, ms.back()});
        }
        char *dp = in_place ? b[0].data() : dbuf.data();
        ms.push_back(mem(&dmd, h.eng, dp));
        args.push_back({DNNL_ARG_DST, ms.back()});
        KT_OK(dnnl_primitive_execute(prim, h.strm, (int)args.size(), args.data()));
        bool ok = true;
        for (int64_t l = 0; l < ne && ok; ++l) {
            unravel(dmd, l, pos);
            ok = same(get(dmd.data_type, dp, naive_off(dmd, pos)), want[(size_t)l]);
        }
        tally.check(ok, (label + " " + impl).c_str());
        for (auto m : ms) dnnl_memory_destroy(m);
    });
    dnnl_primitive_desc_destroy(pd);
}

void sum_grid(const handles_t &h) {
    const int64_t shapes[][4] = {{2, 17, 3, 3}, {1, 16, 2, 5}, {3, 33, 1, 1}};
    const dnnl_format_tag_t tags[] = {dnnl_abcd, dnnl_acdb, dnnl_aBcd16b, dnnl_aBcd8b};
    const float sc[] = {1.f, 0.5f, -2.f, 0.3f};
    for (auto &sh : shapes)
        for (int n = 1; n <= 4; ++n)
            for (auto t0 : tags)
                for (auto t1 : tags) {
                    for (auto dt : {dnnl_f32, dnnl_bf16}) {
                        std::vector<dnnl_memory_desc_t> s;
                        for (int i = 0; i < n; ++i) s.push_back(tag_md(sh, i == 1 ? dnnl_f32 : dt, i % 2 ? t1 : t0));
                        std::vector<float> scales(sc, sc + n);
                        dnnl_memory_desc_t d = tag_md(sh, dt, t0);
                        char label[160];
                        std::snprintf(label, sizeof(label), "sum n=%d %s %d/%d C=%ld", n,
                                dt == dnnl_f32 ? "f32" : "bf16", (int)t0, (int)t1, (long)sh[1]);
                        sum_case(h, s, d, scales, false, label);
                        sum_case(h, s, nullptr, scales, false, std::string(label) + " dst=NULL");
                        if (n > 1 && s[0]->data_type == dt)
                            sum_case(h, s, d, scales, true, std::string(label) + " in-place");
                        for (auto m : s) dnnl_memory_desc_destroy(m);
                        dnnl_memory_desc_destroy(d);
                    }
                }
}

// ---------------------------------------------------------------- concat

// scales: per source, NAN for none (then no scale attribute on it).
void concat_case(const handles_t &h, const std::vector<dnnl_memory_desc_t> &srcs,
        const dnnl_memory_desc_t dst, int axis, const std::string &label,
        std::vector<float> scales = {}) {
    const int n = (int)srcs.size();
    scales.resize((size_t)n, NAN);
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    for (int i = 0; i < n; ++i)
        if (!std::isnan(scales[(size_t)i])) KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_MULTIPLE_SRC + i, 0));
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_concat_primitive_desc_create(&pd, h.eng, dst, n, axis, srcs.data(), attr);
    dnnl_primitive_attr_destroy(attr);
    tally.check(st == dnnl_success, (label + " create").c_str());
    if (st != dnnl_success) return;
    // A copy: next_impl replaces the descriptor the query points into.
    const dnnl_memory_desc dmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    std::vector<std::vector<char>> bufs;
    for (int i = 0; i < n; ++i) bufs.push_back(make_buf(*srcs[i], vals(nelems(*srcs[i]), 20 + i), 0x33));
    const int64_t ne = nelems(dmd);
    std::vector<double> want((size_t)ne);
    int64_t pos[DNNL_MAX_NDIMS];
    for (int64_t l = 0; l < ne; ++l) {
        unravel(dmd, l, pos);
        int i = 0;
        while (pos[axis] >= srcs[i]->dims[axis]) pos[axis] -= srcs[i++]->dims[axis];
        float x = (float)get(srcs[i]->data_type, bufs[i].data(), naive_off(*srcs[i], pos));
        if (!std::isnan(scales[(size_t)i])) x = scales[(size_t)i] * x;
        char tmp[8];
        put(dmd.data_type, tmp, 0, x);
        want[(size_t)l] = get(dmd.data_type, tmp, 0);
    }
    for_each_impl(pd, [&](const std::string &impl, dnnl_primitive_t prim) {
        hits[impl]++;
        std::vector<char> dbuf(dnnl_memory_desc_get_size(&dmd) + 64, 0x5a);
        std::vector<dnnl_memory_t> ms;
        std::vector<dnnl_exec_arg_t> args;
        for (int i = 0; i < n; ++i) {
            ms.push_back(mem(srcs[i], h.eng, bufs[i].data()));
            args.push_back({DNNL_ARG_MULTIPLE_SRC + i, ms.back()});
        }
        ms.push_back(mem(&dmd, h.eng, dbuf.data()));
        args.push_back({DNNL_ARG_DST, ms.back()});
        for (int i = 0; i < n; ++i) {
            if (std::isnan(scales[(size_t)i])) continue;
            kt::md_t q(kt::make_md({1}, dnnl_f32, dnnl_a));
            ms.push_back(mem(q, h.eng, &scales[(size_t)i]));
            args.push_back({DNNL_ARG_ATTR_SCALES | (DNNL_ARG_MULTIPLE_SRC + i), ms.back()});
        }
        KT_OK(dnnl_primitive_execute(prim, h.strm, (int)args.size(), args.data()));
        bool ok = true;
        for (int64_t l = 0; l < ne && ok; ++l) {
            unravel(dmd, l, pos);
            ok = same(get(dmd.data_type, dbuf.data(), naive_off(dmd, pos)), want[(size_t)l]);
        }
        int64_t np = 1;
        for (int d = 0; d < dmd.ndims; ++d) np *= dmd.padded_dims[d];
        for (int64_t l = 0; l < np && ok; ++l) {
            unravel(dmd, l, pos, true);
            bool pad = false;
            for (int d = 0; d < dmd.ndims; ++d) pad = pad || pos[d] >= dmd.dims[d];
            if (pad) ok = get(dmd.data_type, dbuf.data(), naive_off(dmd, pos)) == 0;
        }
        tally.check(ok, (label + " " + impl).c_str());
        for (auto m : ms) dnnl_memory_destroy(m);
    });
    dnnl_primitive_desc_destroy(pd);
}

void concat_grid(const handles_t &h) {
    const int64_t base[4] = {2, 5, 3, 4};
    const int64_t axis_sizes[][3] = {{1, 2, 3}, {3, 17, 16}, {16, 1, 5}};
    const dnnl_format_tag_t tags[] = {dnnl_abcd, dnnl_acdb, dnnl_aBcd16b, dnnl_bacd};
    for (int axis = 0; axis < 4; ++axis)
        for (auto &as : axis_sizes)
            for (int n = 2; n <= 3; ++n)
                for (auto ts : tags)
                    for (auto td : tags)
                        for (int mixed = 0; mixed < 2; ++mixed) {
                            std::vector<dnnl_memory_desc_t> s;
                            int64_t total = 0;
                            for (int i = 0; i < n; ++i) {
                                int64_t d[4] = {base[0], base[1], base[2], base[3]};
                                d[axis] = as[i];
                                total += as[i];
                                // mixed: sources in different layouts and types
                                dnnl_format_tag_t t = mixed && i == 1 ? dnnl_acdb : ts;
                                s.push_back(tag_md(d, mixed && i == 2 ? dnnl_bf16 : dnnl_f32, t));
                            }
                            int64_t dd[4] = {base[0], base[1], base[2], base[3]};
                            dd[axis] = total;
                            dnnl_memory_desc_t d = tag_md(dd, dnnl_f32, td);
                            char label[160];
                            std::snprintf(label, sizeof(label), "concat axis=%d n=%d sizes=%ld,%ld,%ld tags %d->%d mixed=%d",
                                    axis, n, (long)as[0], (long)as[1], (long)as[2], (int)ts, (int)td, mixed);
                            concat_case(h, s, d, axis, label);
                            if (td == ts) concat_case(h, s, nullptr, axis, std::string(label) + " dst=NULL");
                            for (auto m : s) dnnl_memory_desc_destroy(m);
                            dnnl_memory_desc_destroy(d);
                        }
}

// Per-source scales: some sources scaled, some not; f32 dst (the dense
// copy scales in place) and bf16 / s8 dst (rounding and saturation of the
// scaled value). One multiply and one conversion per element: exact.
void concat_scales_grid(const handles_t &h) {
    const dnnl_format_tag_t tags[] = {dnnl_abcd, dnnl_acdb, dnnl_aBcd16b};
    const int64_t sizes[3] = {3, 17, 16};
    const float sc[3] = {0.5f, NAN, -3.25f};
    for (int axis : {1, 3})
        for (auto t : tags)
            for (auto ddt : {dnnl_f32, dnnl_bf16, dnnl_s8})
                for (int variant = 0; variant < 2; ++variant) {
                    std::vector<dnnl_memory_desc_t> s;
                    int64_t dd[4] = {2, 5, 3, 4};
                    dd[axis] = 0;
                    for (int i = 0; i < 3; ++i) {
                        int64_t d[4] = {2, 5, 3, 4};
                        d[axis] = sizes[i];
                        dd[axis] += sizes[i];
                        s.push_back(tag_md(d, ddt, t));
                    }
                    dnnl_memory_desc_t d = tag_md(dd, ddt, t);
                    std::vector<float> scales(sc, sc + 3);
                    if (variant) scales = {NAN, NAN, 200.f}; // saturates s8
                    char label[160];
                    std::snprintf(label, sizeof(label), "concat scales axis=%d tag=%d dt=%d variant=%d", axis,
                            (int)t, (int)ddt, variant);
                    concat_case(h, s, d, axis, label, scales);
                    concat_case(h, s, nullptr, axis, std::string(label) + " dst=NULL", scales);
                    for (auto m : s) dnnl_memory_desc_destroy(m);
                    dnnl_memory_desc_destroy(d);
                }
}

void concat_scales_bad(const handles_t &h) {
    kt::md_t a(kt::make_md({2, 3, 4, 5}, dnnl_f32, dnnl_abcd));
    const_dnnl_memory_desc_t srcs[] = {a, a};
    auto status_with = [&](int arg, int mask) {
        dnnl_primitive_attr_t attr = nullptr;
        KT_OK(dnnl_primitive_attr_create(&attr));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, arg, mask));
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_status_t st = dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 1, srcs, attr);
        dnnl_primitive_desc_destroy(pd);
        dnnl_primitive_attr_destroy(attr);
        return st;
    };
    tally.check(status_with(DNNL_ARG_MULTIPLE_SRC + 1, 0) == dnnl_success, "concat scale src 1 accepted");
    tally.check(status_with(DNNL_ARG_MULTIPLE_SRC + 1, 2) == dnnl_unimplemented, "concat scale mask 2");
    tally.check(status_with(DNNL_ARG_MULTIPLE_SRC + 2, 0) == dnnl_unimplemented, "concat scale src out of range");
    tally.check(status_with(DNNL_ARG_DST, 0) == dnnl_unimplemented, "concat scale on dst");
    tally.check(status_with(DNNL_ARG_SRC, 0) == dnnl_unimplemented, "concat scale on DNNL_ARG_SRC");

    // The scale memory is required at execution.
    dnnl_primitive_attr_t attr = nullptr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_MULTIPLE_SRC, 0));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 1, srcs, attr));
    dnnl_primitive_attr_destroy(attr);
    do {
        dnnl_primitive_t prim = nullptr;
        KT_OK(dnnl_primitive_create(&prim, pd));
        std::vector<float> sb(120), db(240);
        const_dnnl_memory_desc_t dmd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        dnnl_memory_t m0 = mem(a, h.eng, sb.data()), md = mem(dmd, h.eng, db.data());
        dnnl_exec_arg_t args[] = {{DNNL_ARG_MULTIPLE_SRC, m0}, {DNNL_ARG_MULTIPLE_SRC + 1, m0}, {DNNL_ARG_DST, md}};
        tally.check(dnnl_primitive_execute(prim, h.strm, 3, args) == dnnl_invalid_arguments,
                ("concat missing scale memory " + kt::impl_name(pd)).c_str());
        dnnl_memory_destroy(m0);
        dnnl_memory_destroy(md);
        dnnl_primitive_destroy(prim);
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    dnnl_primitive_desc_destroy(pd);
}

void bad_input(const handles_t &h) {
    const int64_t a[4] = {2, 3, 4, 5}, b[4] = {2, 3, 4, 6};
    kt::md_t s0(tag_md(a, dnnl_f32, dnnl_abcd)), s1(tag_md(b, dnnl_f32, dnnl_abcd));
    kt::md_t any(kt::make_md({2, 3, 4, 5}, dnnl_f32, dnnl_format_tag_any));
    kt::md_t d3(kt::make_md({2, 3, 20}, dnnl_f32, dnnl_abc));
    const_dnnl_memory_desc_t same2[] = {s0, s0}, diff[] = {s0, s1}, anys[] = {any, s0}, nulls[] = {s0, nullptr};
    const float sc[] = {1.f, 1.f};
    dnnl_primitive_desc_t pd = nullptr;
    tally.check(dnnl_sum_primitive_desc_create(nullptr, h.eng, nullptr, 2, sc, same2, nullptr) == dnnl_invalid_arguments, "sum NULL pd");
    tally.check(dnnl_sum_primitive_desc_create(&pd, nullptr, nullptr, 2, sc, same2, nullptr) == dnnl_invalid_arguments, "sum NULL engine");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, 2, nullptr, same2, nullptr) == dnnl_invalid_arguments, "sum NULL scales");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, 2, sc, nullptr, nullptr) == dnnl_invalid_arguments, "sum NULL srcs");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, 2, sc, nulls, nullptr) == dnnl_invalid_arguments, "sum NULL src 1");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, 0, sc, same2, nullptr) == dnnl_invalid_arguments, "sum n=0");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, -1, sc, same2, nullptr) == dnnl_invalid_arguments, "sum n<0");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, 2, sc, diff, nullptr) == dnnl_invalid_arguments, "sum dims differ");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, s1, 2, sc, same2, nullptr) == dnnl_invalid_arguments, "sum dst dims");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, d3, 2, sc, same2, nullptr) == dnnl_invalid_arguments, "sum dst ndims");
    tally.check(dnnl_sum_primitive_desc_create(&pd, h.eng, nullptr, 2, sc, anys, nullptr) == dnnl_invalid_arguments, "sum src any");

    tally.check(dnnl_concat_primitive_desc_create(nullptr, h.eng, nullptr, 2, 3, diff, nullptr) == dnnl_invalid_arguments, "concat NULL pd");
    tally.check(dnnl_concat_primitive_desc_create(&pd, nullptr, nullptr, 2, 3, diff, nullptr) == dnnl_invalid_arguments, "concat NULL engine");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 3, nullptr, nullptr) == dnnl_invalid_arguments, "concat NULL srcs");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 3, nulls, nullptr) == dnnl_invalid_arguments, "concat NULL src 1");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 0, 3, diff, nullptr) == dnnl_invalid_arguments, "concat n=0");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 4, diff, nullptr) == dnnl_invalid_arguments, "concat dim too big");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, -1, diff, nullptr) == dnnl_invalid_arguments, "concat dim negative");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 2, diff, nullptr) == dnnl_invalid_arguments, "concat other dims differ");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, s0, 2, 3, diff, nullptr) == dnnl_invalid_arguments, "concat dst dims");
    tally.check(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 3, anys, nullptr) == dnnl_invalid_arguments, "concat src any");

    // Queries.
    KT_OK(dnnl_concat_primitive_desc_create(&pd, h.eng, nullptr, 2, 3, diff, nullptr));
    tally.check(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 2, "concat num inputs");
    tally.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 1), s1) == 1, "concat src md 1");
    tally.check(dnnl_memory_desc_equal(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_MULTIPLE_SRC + 1), s1) == 1, "concat exec arg md");
    const_dnnl_memory_desc_t dq = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    tally.check(dq && dq->dims[3] == 11 && dq->format_kind == dnnl_blocked, "concat dst any resolved");
    dnnl_primitive_desc_destroy(pd);
}

} // namespace

int main() {
    handles_t h;
    kt::with_threads(1, [&] { sum_grid(h); concat_grid(h); concat_scales_grid(h); });
    kt::with_threads(2, [&] { sum_grid(h); concat_grid(h); concat_scales_grid(h); });
    bad_input(h);
    concat_scales_bad(h);
    for (const char *impl : {"sum:dense_simd", "sum:ref", "concat:dense_copy", "concat:ref"}) {
        std::string what = std::string("implementation reached: ") + impl;
        tally.check(hits[impl] > 0, what.c_str());
    }
    return tally.finish();
}
