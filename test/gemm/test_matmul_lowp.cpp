// Matmul and inner product beyond f32: bf16/f16 storage through the GEMM
// path ("gemm:cvt"), int8 with scales and zero points, weights scales over
// batch dims, runtime batch dims; bad input. The first implementation and
// the reference each run against a naive matmul plus the naive attribute
// math of test/common (written from oneDNN's documentation, no library
// code).
//
// Data are small integers. bf16/f16 hold them exactly and every product
// and sum stays an integer below 2^24, so the exact f32 value is rounded
// once to the dst type: results must be bit-identical to the naive ones.
// int8: the accumulators are exact integers, scales are powers of two, so
// the f32 value before rounding to the integer type is exact too.
#include "dnnl_debug.h"
#include "lowp_util.hpp"

using namespace lp;

namespace {

// ------------------------------------------------------------ float types

void one_float(int nd, const dnnl_dim_t *sd, const dnnl_dim_t *wd, const dnnl_dim_t *dd, dnnl_data_type_t sdt,
        dnnl_data_type_t wdt, dnnl_data_type_t ddt, bool tb, bool bias, int po, bool scales, int nthr, int hi = 3) {
    const dnnl_format_tag_t tags[] = {dnnl_a, dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd};
    const dnnl_format_tag_t ttags[] = {dnnl_a, dnnl_a, dnnl_ba, dnnl_acb, dnnl_abdc};
    buf_t s, w, d, b, ss, ws, ds;
    dnnl_memory_desc_t m;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, nd, sd, sdt, tags[nd]));
    s.init_md(m, sdt, 1, -hi, hi);
    KT_OK(dnnl_memory_desc_create_with_tag(&m, nd, wd, wdt, tb ? ttags[nd] : tags[nd]));
    w.init_md(m, wdt, 2, -hi, hi);
    KT_OK(dnnl_memory_desc_create_with_tag(&m, nd, dd, ddt, tags[nd]));
    d.init_md(m, ddt, 3);
    dnnl_dims_t bd;
    for (int i = 0; i < nd; ++i) bd[i] = i == nd - 1 ? dd[i] : 1;
    const dnnl_data_type_t bdt = sdt == dnnl_f32 ? dnnl_f32 : dnnl_bf16;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, nd, bd, bdt, tags[nd]));
    b.init_md(m, bdt, 4);
    // Weights scales per N, and over the first batch dim when there is one.
    const int wmask = (1 << (nd - 1)) | (nd > 2 ? 1 : 0);
    dnnl_dim_t nws = dd[nd - 1] * (nd > 2 ? wd[0] : 1), one1 = 1;
    ss.init({one1}, dnnl_f32, dnnl_a, 5);
    ss.set(0, 2.f);
    ws.init({nws}, dnnl_f32, dnnl_a, 6);
    for (dnnl_dim_t i = 0; i < nws; ++i) ws.set(i, i % 3 == 0 ? 0.5f : (i % 3 == 1 ? 1.f : 2.f));
    ds.init({one1}, dnnl_f32, dnnl_a, 7);
    ds.set(0, 0.5f);
    dnnl_primitive_attr_t attr = make_attr(scales ? (po == 1 ? 2 : po) : po, scales, wmask);
    dnnl_primitive_desc_t pd;
    char what[220];
    std::snprintf(what, sizeof(what), "matmul %s:%s:%s nd=%d M=%ld N=%ld K=%ld tb=%d bias=%d po=%d sc=%d thr=%d",
            dnnl_dt2str(sdt), dnnl_dt2str(wdt), dnnl_dt2str(ddt), nd, (long)dd[nd - 2], (long)dd[nd - 1],
            (long)sd[nd - 1], tb, bias, po, scales, nthr);
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, s.md, w.md, bias ? b.md : nullptr, d.md, attr);
    dnnl_primitive_attr_destroy(attr);
    if (st != dnnl_success) {
        T.check(false, what);
        return;
    }
    std::vector<arg_t> args = {{DNNL_ARG_DST, d.md, d.bytes.data()}, {DNNL_ARG_SRC, s.md, s.bytes.data()},
            {DNNL_ARG_WEIGHTS, w.md, w.bytes.data()}};
    if (bias) args.push_back({DNNL_ARG_BIAS, b.md, b.bytes.data()});
    if (scales) {
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ss.md, ss.bytes.data()});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, ws.md, ws.bytes.data()});
        args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, ds.md, ds.bytes.data()});
    }
    const bool all_f32 = sdt == dnnl_f32 && wdt == dnnl_f32 && ddt == dnnl_f32;
    const na::dims_t sdv(sd, sd + nd), wdv(wd, wd + nd), ddv(dd, dd + nd);
    std::vector<double> acc, tol;
    na::matmul(logical(s), sdv, logical(w), wdv, ddv, acc);
    na::attr_t na_attr;
    na_attr.post_ops = naive_chain(scales ? (po == 1 ? 2 : po) : po);
    if (scales) {
        na::dims_t wsd((size_t)nd, 1);
        wsd[(size_t)nd - 1] = dd[nd - 1];
        if (nd > 2) wsd[0] = wd[0];
        na_attr.src_scale = na::scalar((size_t)nd, 2.f);
        na_attr.wei_scale = {wsd, logical(ws)};
        na_attr.dst_scale = na::scalar((size_t)nd, 0.5f);
    }
    na::bcast_t nb;
    if (bias) nb = {na::dims_t(bd, bd + nd), logical(b)};
    const auto want = na::apply(na_attr, ddv, acc, nb, logical(d), ddt, nullptr, &tol);
    T.check(vs_naive(pd, args, d, want, tol, all_f32 ? "gemm:f32" : "gemm:cvt", nthr, what), what);
    dnnl_primitive_desc_destroy(pd);
}

void test_float_grid() {
    const dnnl_data_type_t combos[][3] = {{dnnl_bf16, dnnl_bf16, dnnl_f32}, {dnnl_bf16, dnnl_bf16, dnnl_bf16},
            {dnnl_f16, dnnl_f16, dnnl_f32}, {dnnl_f32, dnnl_bf16, dnnl_f32}, {dnnl_bf16, dnnl_f32, dnnl_bf16}};
    int idx = 0;
    for (dnnl_dim_t M : {1, 17, 64})
        for (dnnl_dim_t N : {1, 33})
            for (dnnl_dim_t K : {3, 40}) {
                ++idx;
                const auto &c = combos[idx % 5];
                const dnnl_dim_t sd[] = {M, K}, wd[] = {K, N}, dd[] = {M, N};
                one_float(2, sd, wd, dd, c[0], c[1], c[2], idx % 2, idx % 3 != 0, idx % 3, false, 1 + idx % 2);
            }
    // Tiles and K chunks with tails: N > 512, K > 256.
    {
        const dnnl_dim_t sd[] = {150, 300}, wd[] = {300, 520}, dd[] = {150, 520};
        one_float(2, sd, wd, dd, dnnl_bf16, dnnl_bf16, dnnl_bf16, false, true, 1, false, 2);
    }
    // f16 throughout, M over one tile (480 rows), K over one chunk, values
    // up to 24 in magnitude: sums beyond 2048 (typically a few thousand,
    // far from 65504) round when stored as f16 (the AVX-512 store).
    for (int nthr : {1, 2}) {
        const dnnl_dim_t sd[] = {490, 300}, wd[] = {300, 40}, dd[] = {490, 40};
        one_float(2, sd, wd, dd, dnnl_f16, dnnl_f16, dnnl_f16, false, false, 0, false, nthr, 24);
    }
    // Batched with broadcast, per-batch-and-N weights scales.
    for (int v = 0; v < 4; ++v) {
        const dnnl_dim_t sd[] = {3, 1, 5 + v, 17}, wd[] = {3, 2, 17, 16 + v}, dd[] = {3, 2, 5 + v, 16 + v};
        const auto &c = combos[v + 1];
        one_float(4, sd, wd, dd, c[0], c[1], c[2], v & 1, true, v % 3, v != 3, 1 + v % 2);
    }
    // The f32 path with weights scales over a batch dim.
    {
        const dnnl_dim_t sd[] = {4, 6, 7}, wd[] = {4, 7, 9}, dd[] = {4, 6, 9};
        for (int nthr : {1, 2}) one_float(3, sd, wd, dd, dnnl_f32, dnnl_f32, dnnl_f32, false, true, 2, true, nthr);
    }
}

void test_ip_bf16() {
    for (int v = 0; v < 6; ++v) {
        const dnnl_dim_t MB = v % 2 ? 1 : 7, IC = v < 3 ? 3 : 17, OC = v % 3 == 0 ? 33 : 15;
        const dnnl_data_type_t ddt = v % 2 ? dnnl_bf16 : dnnl_f32;
        buf_t s, w, d, b;
        s.init({MB, IC, 3, 2}, dnnl_bf16, v < 3 ? dnnl_abcd : dnnl_acdb, 1);
        w.init({OC, IC, 3, 2}, dnnl_bf16, v < 3 ? dnnl_abcd : dnnl_acdb, 2);
        d.init({MB, OC}, ddt, dnnl_ab, 3);
        b.init({OC}, dnnl_bf16, dnnl_a, 4);
        dnnl_primitive_attr_t attr = make_attr(v % 3, false, 0);
        dnnl_primitive_desc_t pd;
        char what[120];
        std::snprintf(what, sizeof(what), "ip bf16 MB=%ld IC=%ld OC=%ld dst=%s po=%d", (long)MB, (long)IC, (long)OC,
                dnnl_dt2str(ddt), v % 3);
        dnnl_status_t st = dnnl_inner_product_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, s.md,
                w.md, b.md, d.md, attr);
        dnnl_primitive_attr_destroy(attr);
        if (st != dnnl_success) {
            T.check(false, what);
            continue;
        }
        std::vector<arg_t> args = {{DNNL_ARG_DST, d.md, d.bytes.data()}, {DNNL_ARG_SRC, s.md, s.bytes.data()},
                {DNNL_ARG_WEIGHTS, w.md, w.bytes.data()}, {DNNL_ARG_BIAS, b.md, b.bytes.data()}};
        // dst[mb][oc] = sum over ic, h, w of src * wei (both 4D, same layout).
        const std::vector<float> sv = logical(s), wv = logical(w);
        const int64_t K = IC * 3 * 2;
        std::vector<float> wt((size_t)(K * OC));
        for (int64_t o = 0; o < OC; ++o)
            for (int64_t k = 0; k < K; ++k) wt[(size_t)(k * OC + o)] = wv[(size_t)(o * K + k)];
        std::vector<double> acc, tol;
        na::matmul(sv, {MB, K}, wt, {K, OC}, {MB, OC}, acc);
        na::attr_t na_attr;
        na_attr.post_ops = naive_chain(v % 3);
        const auto want = na::apply(na_attr, {MB, OC}, acc, na::along(2, 1, logical(b)), logical(d), ddt, nullptr, &tol);
        T.check(vs_naive(pd, args, d, want, tol, "gemm:cvt", 1 + v % 2, what), what);
        dnnl_primitive_desc_destroy(pd);
    }
}

// ------------------------------------------------------------------- int8

// s8/u8 src x s8 weights, scales and a dst zero point: the int8 GEMM path
// ("gemm:s8") vs reference.
void test_int8_gemm() {
    const dnnl_data_type_t dsts[] = {dnnl_f32, dnnl_s8, dnnl_u8, dnnl_s32, dnnl_bf16};
    int idx = 0;
    for (dnnl_data_type_t sdt : {dnnl_s8, dnnl_u8})
        for (dnnl_data_type_t ddt : dsts)
            for (dnnl_dim_t M : {1, 19}) {
                ++idx;
                const dnnl_dim_t N = idx % 2 ? 33 : 16, K = idx % 3 ? 40 : 5;
                buf_t s, w, d, b, ss, ws, ds, dz;
                s.init({M, K}, sdt, dnnl_ab, 1, sdt == dnnl_u8 ? 0 : -4, 4);
                w.init({K, N}, dnnl_s8, idx % 2 ? dnnl_ab : dnnl_ba, 2, -4, 4);
                d.init({M, N}, ddt, dnnl_ab, 3, 0, 5);
                b.init({1, N}, idx % 2 ? dnnl_f32 : dnnl_s32, dnnl_ab, 4);
                ss.init({1}, dnnl_f32, dnnl_a, 5);
                ss.set(0, 0.5f);
                ws.init({N}, dnnl_f32, dnnl_a, 6);
                for (dnnl_dim_t i = 0; i < N; ++i) ws.set(i, i % 2 ? 0.25f : 1.f);
                ds.init({1}, dnnl_f32, dnnl_a, 7);
                ds.set(0, 2.f);
                dz.init({idx % 2 ? N : 1}, dnnl_s32, dnnl_a, 8, 0, 6);
                // A sum rides on the GEMM's beta only with per-tensor weights scales.
                const int po = idx % 3;
                dnnl_primitive_attr_t attr = make_attr(po, true, po == 1 ? 0 : 1 << 1);
                KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, idx % 2 ? 1 << 1 : 0));
                dnnl_primitive_desc_t pd;
                char what[160];
                std::snprintf(what, sizeof(what), "int8 matmul %s:s8:%s M=%ld N=%ld K=%ld po=%d", dnnl_dt2str(sdt),
                        dnnl_dt2str(ddt), (long)M, (long)N, (long)K, po);
                dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, s.md, w.md, b.md, d.md, attr);
                dnnl_primitive_attr_destroy(attr);
                if (st != dnnl_success) {
                    T.check(false, what);
                    continue;
                }
                std::vector<arg_t> args = {{DNNL_ARG_DST, d.md, d.bytes.data()}, {DNNL_ARG_SRC, s.md, s.bytes.data()},
                        {DNNL_ARG_WEIGHTS, w.md, w.bytes.data()}, {DNNL_ARG_BIAS, b.md, b.bytes.data()},
                        {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ss.md, ss.bytes.data()},
                        {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, ws.md, ws.bytes.data()},
                        {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, ds.md, ds.bytes.data()},
                        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, dz.md, dz.bytes.data()}};
                std::vector<double> acc, tol;
                na::matmul(logical(s), {M, K}, logical(w), {K, N}, {M, N}, acc);
                na::attr_t na_attr;
                na_attr.post_ops = naive_chain(po);
                na_attr.src_scale = na::scalar(2, 0.5f);
                na_attr.wei_scale = po == 1 ? na::scalar(2, ws.get(0)) : na::along(2, 1, logical(ws));
                na_attr.dst_scale = na::scalar(2, 2.f);
                na_attr.dst_zero_point = idx % 2 ? na::along(2, 1, logical(dz)) : na::scalar(2, dz.get(0));
                const auto want = na::apply(na_attr, {M, N}, acc, {{1, N}, logical(b)}, logical(d), ddt, nullptr, &tol);
                T.check(vs_naive(pd, args, d, want, tol, "gemm:s8", 1 + idx % 2, what), what);
                dnnl_primitive_desc_destroy(pd);
            }
}

// Src and per-N weights zero points (reference), checked against a direct
// computation: dst = sat(round((sum (s - zs)(w - zw[n])) * 0.5 / 2 + zd)).
void test_int8_zero_points() {
    const dnnl_dim_t M = 5, K = 7, N = 6;
    buf_t s, w, d, ss, ds, sz, wz, dz;
    s.init({M, K}, dnnl_u8, dnnl_ab, 1, 0, 9);
    w.init({K, N}, dnnl_s8, dnnl_ab, 2, -5, 5);
    d.init({M, N}, dnnl_u8, dnnl_ab, 3);
    ss.init({1}, dnnl_f32, dnnl_a, 4);
    ss.set(0, 0.5f);
    ds.init({1}, dnnl_f32, dnnl_a, 5);
    ds.set(0, 2.f);
    sz.init({1}, dnnl_s32, dnnl_a, 6);
    sz.set(0, 3.f);
    wz.init({N}, dnnl_s32, dnnl_a, 7, -2, 2);
    dz.init({1}, dnnl_s32, dnnl_a, 8);
    dz.set(0, 100.f);
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_WEIGHTS, 1 << 1));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, 0));
    dnnl_primitive_desc_t pd;
    bool ok = dnnl_matmul_primitive_desc_create(&pd, eng, s.md, w.md, nullptr, d.md, attr) == dnnl_success;
    dnnl_primitive_attr_destroy(attr);
    if (ok) {
        // (s - 3) * (w - zw[n]) summed exactly, * 0.5, / 2, + 100, to u8.
        std::vector<double> acc, tol;
        const std::vector<float> wzv = logical(wz);
        na::matmul(logical(s), {M, K}, logical(w), {K, N}, {M, N}, acc, nullptr, 3.f, &wzv);
        na::attr_t na_attr;
        na_attr.src_scale = na::scalar(2, 0.5f);
        na_attr.dst_scale = na::scalar(2, 2.f);
        na_attr.dst_zero_point = na::scalar(2, 100.f);
        const auto want = na::apply(na_attr, {M, N}, acc, {}, logical(d), dnnl_u8, nullptr, &tol);
        ok = vs_naive(pd,
                {{DNNL_ARG_DST, d.md, d.bytes.data()}, {DNNL_ARG_SRC, s.md, s.bytes.data()},
                        {DNNL_ARG_WEIGHTS, w.md, w.bytes.data()},
                        {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, ss.md, ss.bytes.data()},
                        {DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, ds.md, ds.bytes.data()},
                        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, sz.md, sz.bytes.data()},
                        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, wz.md, wz.bytes.data()},
                        {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, dz.md, dz.bytes.data()}},
                d, want, tol, "", 1, "int8 zero points");
        dnnl_primitive_desc_destroy(pd);
    }
    T.check(ok, "int8 matmul with src, per-N weights and dst zero points");
}

// ------------------------------------------------------ runtime batch dims

void test_runtime_batch() {
    kt::md_t s(kt::make_md({R, 4, 5}, dnnl_f32, dnnl_abc)), w(kt::make_md({R, 5, 6}, dnnl_f32, dnnl_abc)),
            d(kt::make_md({R, 4, 6}, dnnl_f32, dnnl_abc));
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, nullptr);
    T.check(st == dnnl_success, "matmul pd with a runtime batch dim");
    if (st != dnnl_success) return;
    for (int walk = 0; walk < 2; ++walk) {
        const std::string name = kt::impl_name(pd);
        bool ok = true;
        for (dnnl_dim_t B : {1, 3}) {
            buf_t sb, wb, db;
            sb.init({B, 4, 5}, dnnl_f32, dnnl_abc, 1 + B);
            wb.init({B, 5, 6}, dnnl_f32, dnnl_abc, 2 + B);
            db.init({B, 4, 6}, dnnl_f32, dnnl_abc, 3 + B);
            ok = ok && execute(pd, {{DNNL_ARG_SRC, sb.md, sb.bytes.data()}, {DNNL_ARG_WEIGHTS, wb.md, wb.bytes.data()},
                                           {DNNL_ARG_DST, db.md, db.bytes.data()}})
                            == dnnl_success;
            for (dnnl_dim_t b = 0; b < B && ok; ++b)
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 6; ++j) {
                        float acc = 0;
                        for (int k = 0; k < 5; ++k) acc += sb.get(b * 20 + i * 5 + k) * wb.get(b * 30 + k * 6 + j);
                        ok = ok && acc == db.get(b * 24 + i * 6 + j);
                    }
        }
        T.check(ok, ("runtime batch dim matmul (" + name + ") computes batches 1 and 3 exactly").c_str());
        while (kt::impl_name(pd).rfind("ref", 0) != 0 && dnnl_primitive_desc_next_impl(pd) == dnnl_success) {}
    }
    dnnl_primitive_desc_destroy(pd);
}

// -------------------------------------------------------------- bad input

void test_bad_input() {
    kt::md_t s(kt::make_md({4, 5}, dnnl_f32, dnnl_ab)), w(kt::make_md({5, 6}, dnnl_f32, dnnl_ab)),
            d(kt::make_md({4, 6}, dnnl_f32, dnnl_ab)), s3(kt::make_md({2, 4, 5}, dnnl_f32, dnnl_abc)),
            w3(kt::make_md({2, 5, 6}, dnnl_f32, dnnl_abc)), d3(kt::make_md({2, 4, 6}, dnnl_f32, dnnl_abc)),
            srt(kt::make_md({R, 4, 5}, dnnl_f32, dnnl_abc)), wrt(kt::make_md({R, 5, 6}, dnnl_f32, dnnl_abc)),
            drt(kt::make_md({R, 4, 6}, dnnl_f32, dnnl_abc)), brt(kt::make_md({2, 1, 6}, dnnl_f32, dnnl_abc)),
            s8(kt::make_md({4, 5}, dnnl_s8, dnnl_ab)), w8(kt::make_md({5, 6}, dnnl_s8, dnnl_ab)),
            d8(kt::make_md({2, 4, 6}, dnnl_s8, dnnl_abc)), s83(kt::make_md({2, 4, 5}, dnnl_s8, dnnl_abc)),
            w83(kt::make_md({2, 5, 6}, dnnl_s8, dnnl_abc)), wk(kt::make_md({R, 5, 6}, dnnl_f32, dnnl_abc));
    dnnl_primitive_desc_t pd = nullptr;
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, srt, w3, nullptr, drt, nullptr) == dnnl_invalid_arguments,
            "runtime batch dim in src and dst but not weights");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, srt, wrt, brt, drt, nullptr) == dnnl_invalid_arguments,
            "runtime batch dim with a known non-1 bias dim");
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s3, wk, nullptr, d3, nullptr) == dnnl_invalid_arguments,
            "runtime batch dim in weights only");
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, attr) == dnnl_unimplemented,
            "zero points on an f32 matmul");
    dnnl_primitive_attr_destroy(attr);
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 1 << 0));
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, attr) == dnnl_unimplemented,
            "weights scales over K");
    dnnl_primitive_attr_destroy(attr);
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 1 << 1));
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s, w, nullptr, d, attr) == dnnl_unimplemented,
            "per-N dst scales");
    dnnl_primitive_attr_destroy(attr);
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_DST, 1 << 2));
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s83, w83, nullptr, d8, attr) == dnnl_unimplemented,
            "per-N dst zero points on a 3D matmul");
    dnnl_primitive_attr_destroy(attr);
    T.check(dnnl_matmul_primitive_desc_create(&pd, eng, s8, w, nullptr, d, nullptr) == dnnl_unimplemented,
            "s8 src with f32 weights");
    // int8 without attributes works, and refuses a missing zero-point arg.
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(attr, DNNL_ARG_SRC, 0));
    kt::md_t d82(kt::make_md({4, 6}, dnnl_s32, dnnl_ab));
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, s8, w8, nullptr, d82, attr));
    dnnl_primitive_attr_destroy(attr);
    std::vector<int32_t> buf(64, 1);
    T.check(execute(pd, {{DNNL_ARG_SRC, s8, buf.data()}, {DNNL_ARG_WEIGHTS, w8, buf.data()},
                                {DNNL_ARG_DST, d82, buf.data()}})
                    == dnnl_invalid_arguments,
            "int8 execute without the src zero-point argument");
    dnnl_primitive_desc_destroy(pd);
}

// The C++ wrapper: a bf16 matmul built through dnnl.hpp picks the GEMM path.
} // namespace

#include "dnnl.hpp"

namespace {

void test_hpp() {
    bool ok = true;
    try {
        dnnl::engine e(dnnl::engine::kind::cpu, 0);
        dnnl::stream st(e);
        using dt = dnnl::memory::data_type;
        using tag = dnnl::memory::format_tag;
        dnnl::memory::desc smd({3, 4}, dt::bf16, tag::ab), wmd({4, 2}, dt::bf16, tag::any),
                dmd({3, 2}, dt::f32, tag::ab);
        dnnl::matmul::primitive_desc pd(e, smd, wmd, dmd);
        ok = std::string(pd.impl_info_str()).rfind("gemm:cvt", 0) == 0 && pd.weights_desc() == dnnl::memory::desc({4, 2}, dt::bf16, tag::ab);
        std::vector<uint16_t> s(12), w(8);
        std::vector<float> d(6, -1.f);
        for (int i = 0; i < 12; ++i) s[i] = to_bf16((float)(i % 5 - 2));
        for (int i = 0; i < 8; ++i) w[i] = to_bf16((float)(i % 3 - 1));
        dnnl::memory sm(smd, e, s.data()), wm(pd.weights_desc(), e, w.data()), dm(dmd, e, d.data());
        dnnl::matmul(pd).execute(st, {{DNNL_ARG_SRC, sm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, dm}});
        st.wait();
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j) {
                float acc = 0;
                for (int k = 0; k < 4; ++k) acc += (float)((i * 4 + k) % 5 - 2) * (float)((k * 2 + j) % 3 - 1);
                ok = ok && acc == d[i * 2 + j];
            }
    } catch (const dnnl::error &) {
        ok = false;
    }
    T.check(ok, "dnnl.hpp bf16 matmul");
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    test_float_grid();
    test_ip_bf16();
    test_int8_gemm();
    test_int8_zero_points();
    test_runtime_batch();
    test_bad_input();
    test_hpp();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
