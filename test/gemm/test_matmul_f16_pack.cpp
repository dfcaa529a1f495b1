// f16 / bf16 matmul through gemm:cvt's converting packs (plain operands
// converted straight into the f32 kernel's micro-panels): every panel tail
// (M, N, K not multiples of MR, NR or the K chunk; tiles beyond 480 x 512,
// chunks beyond 256), transposed A and B, padded leading dimensions,
// batches, mixed f16 / bf16 / f32 operands, beta (sum post-op), alpha
// (scales), the epilogue's coordinates (bias per N, ReLU), the skinny
// fallback (at most 8 rows), the f16-weights GEMV (at most 4 rows), f16
// inner product, with 1 and 2 threads. Run again with the ISA
// capped at AVX2 and SSE41 (test_matmul_f16_pack_isa.sh), where the AVX2
// F16C and the plain conversions serve, and bf16 x bf16 goes through the
// packs too instead of the AVX512-BF16 tiles.
//
// The reference is a double loop written here. Data are small integers
// (exact in f16 and bf16), scales powers of two: every product and partial
// sum is an integer below 2^24, so an f32 dst must match exactly, in any
// summation order; an f16 dst is that exact value rounded once to nearest
// (|error| <= 2^-11 of it, as the values stay far from f16's range limit).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../common/kt_test.hpp"

namespace {

kt::tally_t T;
dnnl_engine_t eng;
dnnl_stream_t strm;

uint16_t f16_of_int(int v) { // exact for |v| < 2048: written out by hand
    if (v == 0) return 0;
    const uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v);
    int e = 0;
    while ((a >> e) > 1) ++e; // a in [2^e, 2^(e+1))
    const unsigned mant = (a << (10 - e)) & 0x3ff;
    return (uint16_t)(sign | (unsigned)((e + 15) << 10) | mant);
}
float f32_of_f16(uint16_t h) { // normal numbers and zero only (what this test stores)
    const int e = (h >> 10) & 31;
    const float m = (float)(h & 0x3ff) / 1024.f;
    const float v = e == 0 ? 0.f : std::ldexp(1.f + m, e - 15);
    return (h & 0x8000) ? -v : v;
}
uint16_t bf16_of_int(int v) { // exact for |v| <= 256
    const float f = (float)v;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

size_t dt_size(dnnl_data_type_t dt) { return dt == dnnl_f32 ? 4 : 2; }

// Stores small integer v as element i of a buffer of type dt.
void put(std::vector<uint8_t> &b, dnnl_data_type_t dt, size_t i, int v) {
    if (dt == dnnl_f32) {
        const float f = (float)v;
        std::memcpy(b.data() + 4 * i, &f, 4);
    } else {
        const uint16_t h = dt == dnnl_f16 ? f16_of_int(v) : bf16_of_int(v);
        std::memcpy(b.data() + 2 * i, &h, 2);
    }
}
float get(const std::vector<uint8_t> &b, dnnl_data_type_t dt, size_t i) {
    if (dt == dnnl_f32) {
        float f;
        std::memcpy(&f, b.data() + 4 * i, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, b.data() + 2 * i, 2);
    if (dt == dnnl_f16) return f32_of_f16(h);
    const uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

struct shape_t {
    dnnl_dim_t M, N, K;
};

// One matmul: batch (1: 2D), src M x K (transposed storage when ta), weights
// K x N (when tb), row paddings pad elements, variant: 0 plain, 1 sum
// post-op with src scale 2 and weights scale 0.5, 2 bias per N and ReLU.
void one(const shape_t &s, dnnl_dim_t batch, dnnl_data_type_t sdt, dnnl_data_type_t wdt, dnnl_data_type_t ddt,
        bool ta, bool tb, dnnl_dim_t pad, int variant, int nthr) {
    const dnnl_dim_t M = s.M, N = s.N, K = s.K;
    char what[200];
    std::snprintf(what, sizeof(what), "matmul %d:%d:%d b=%ld M=%ld N=%ld K=%ld ta=%d tb=%d pad=%ld v=%d thr=%d",
            (int)sdt, (int)wdt, (int)ddt, (long)batch, (long)M, (long)N, (long)K, ta, tb, (long)pad, variant, nthr);
    const int nd = batch > 1 ? 3 : 2;
    // Strides in elements: element (b, r, c) of a logical R x C matrix.
    const dnnl_dim_t lda = (ta ? M : K) + pad, ldb = (tb ? K : N) + pad, ldc = N;
    const dnnl_dim_t a_sz = (ta ? K : M) * lda, b_sz = (tb ? N : K) * ldb, c_sz = M * ldc;
    dnnl_dims_t sd, wd, dd, ss, ws, ds;
    if (nd == 3) {
        sd[0] = wd[0] = dd[0] = batch;
        ss[0] = a_sz;
        ws[0] = b_sz;
        ds[0] = c_sz;
    }
    const int o = nd - 2;
    sd[o] = M, sd[o + 1] = K, wd[o] = K, wd[o + 1] = N, dd[o] = M, dd[o + 1] = N;
    ss[o] = ta ? 1 : lda, ss[o + 1] = ta ? lda : 1;
    ws[o] = tb ? 1 : ldb, ws[o + 1] = tb ? ldb : 1;
    ds[o] = ldc, ds[o + 1] = 1;
    dnnl_memory_desc_t smd, wmd, dmd, bmd = nullptr;
    KT_OK(dnnl_memory_desc_create_with_strides(&smd, nd, sd, sdt, ss));
    KT_OK(dnnl_memory_desc_create_with_strides(&wmd, nd, wd, wdt, ws));
    KT_OK(dnnl_memory_desc_create_with_strides(&dmd, nd, dd, ddt, ds));
    dnnl_dims_t bd;
    for (int i = 0; i < nd; ++i) bd[i] = i == nd - 1 ? N : 1;
    if (variant == 2) KT_OK(dnnl_memory_desc_create_with_tag(&bmd, nd, bd, dnnl_f32, nd == 3 ? dnnl_abc : dnnl_ab));

    std::vector<uint8_t> A((size_t)(batch * a_sz) * dt_size(sdt)), B((size_t)(batch * b_sz) * dt_size(wdt)),
            C((size_t)(batch * c_sz) * dt_size(ddt)), bias((size_t)N * 4);
    kt::rng_t r((uint64_t)(M * 131 + N * 17 + K * 7 + variant + 3 * ta + 5 * tb));
    // Padding elements hold a value the product must never read in: 64.
    for (size_t i = 0; i < (size_t)(batch * a_sz); ++i) put(A, sdt, i, 64);
    for (size_t i = 0; i < (size_t)(batch * b_sz); ++i) put(B, wdt, i, 64);
    auto a_at = [&](dnnl_dim_t b, dnnl_dim_t m, dnnl_dim_t k) { return (size_t)(b * a_sz + (ta ? k * lda + m : m * lda + k)); };
    auto b_at = [&](dnnl_dim_t b, dnnl_dim_t k, dnnl_dim_t n) { return (size_t)(b * b_sz + (tb ? n * ldb + k : k * ldb + n)); };
    std::vector<int> av((size_t)(batch * M * K)), bv((size_t)(batch * K * N)), c0((size_t)(batch * M * N));
    for (dnnl_dim_t b = 0; b < batch; ++b)
        for (dnnl_dim_t m = 0; m < M; ++m)
            for (dnnl_dim_t k = 0; k < K; ++k) {
                const int v = (int)(r.next() % 9) - 4;
                av[(size_t)((b * M + m) * K + k)] = v;
                put(A, sdt, a_at(b, m, k), v);
            }
    for (dnnl_dim_t b = 0; b < batch; ++b)
        for (dnnl_dim_t k = 0; k < K; ++k)
            for (dnnl_dim_t n = 0; n < N; ++n) {
                const int v = (int)(r.next() % 7) - 3;
                bv[(size_t)((b * K + k) * N + n)] = v;
                put(B, wdt, b_at(b, k, n), v);
            }
    for (size_t i = 0; i < c0.size(); ++i) {
        c0[i] = (int)(r.next() % 11) - 5;
        put(C, ddt, i, c0[i]);
    }
    for (dnnl_dim_t n = 0; n < N; ++n) {
        const float v = (float)((int)(n % 13) - 6);
        std::memcpy(bias.data() + 4 * n, &v, 4);
    }

    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    dnnl_post_ops_t po;
    KT_OK(dnnl_post_ops_create(&po));
    if (variant == 1) {
        KT_OK(dnnl_post_ops_append_sum(po, 1.f, 0, dnnl_data_type_undef));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_WEIGHTS, 0));
    }
    if (variant == 2) KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, 0.f, 0.f));
    KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
    dnnl_post_ops_destroy(po);
    const float s_sc = 2.f, w_sc = 0.5f;
    bool ok = true;
    kt::with_threads(nthr, [&] {
        dnnl_primitive_desc_t pd;
        if (dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, bmd, dmd, attr) != dnnl_success) {
            ok = false;
            std::fprintf(stderr, "%s: not created\n", what);
            return;
        }
        const std::string impl = kt::impl_name(pd);
        if (impl.rfind("gemm:cvt", 0) != 0) {
            ok = false;
            std::fprintf(stderr, "%s: implementation %s\n", what, impl.c_str());
        }
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        std::vector<dnnl_memory_t> mems;
        std::vector<dnnl_exec_arg_t> args;
        auto add = [&](int arg, const_dnnl_memory_desc_t md, void *h) {
            dnnl_memory_t mem;
            KT_OK(dnnl_memory_create(&mem, md, eng, h));
            mems.push_back(mem);
            args.push_back({arg, mem});
        };
        add(DNNL_ARG_SRC, smd, A.data());
        add(DNNL_ARG_WEIGHTS, wmd, B.data());
        add(DNNL_ARG_DST, dmd, C.data());
        if (bmd) add(DNNL_ARG_BIAS, bmd, bias.data());
        dnnl_memory_desc_t scmd;
        KT_OK(dnnl_memory_desc_create_with_tag(&scmd, 1, bd + nd - 1, dnnl_f32, dnnl_a));
        dnnl_dims_t one1 = {1};
        dnnl_memory_desc_t sc1;
        KT_OK(dnnl_memory_desc_create_with_tag(&sc1, 1, one1, dnnl_f32, dnnl_a));
        float s_sc_v = s_sc, w_sc_v = w_sc;
        if (variant == 1) {
            add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, sc1, &s_sc_v);
            add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, sc1, &w_sc_v);
        }
        KT_OK(dnnl_primitive_execute(p, strm, (int)args.size(), args.data()));
        KT_OK(dnnl_stream_wait(strm));
        for (auto m : mems) dnnl_memory_destroy(m);
        dnnl_memory_desc_destroy(scmd);
        dnnl_memory_desc_destroy(sc1);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    });
    dnnl_primitive_attr_destroy(attr);
    int bad = 0;
    for (dnnl_dim_t b = 0; ok && b < batch; ++b)
        for (dnnl_dim_t m = 0; m < M; ++m)
            for (dnnl_dim_t n = 0; n < N; ++n) {
                long acc = 0;
                for (dnnl_dim_t k = 0; k < K; ++k)
                    acc += (long)av[(size_t)((b * M + m) * K + k)] * bv[(size_t)((b * K + k) * N + n)];
                double want = (double)acc;
                const size_t ci = (size_t)((b * M + m) * N + n);
                if (variant == 1) want = want * s_sc * w_sc + c0[ci];
                if (variant == 2) want = std::fmax(want + (double)((int)(n % 13) - 6), 0.0);
                const double got = get(C, ddt, ci);
                const double tol = ddt == dnnl_f16 ? std::ldexp(std::fabs(want), -11) : 0.0;
                if (!(std::fabs(got - want) <= tol)) {
                    if (bad++ < 3)
                        std::fprintf(stderr, "%s: (%ld,%ld,%ld) got %g want %g\n", what, (long)b, (long)m, (long)n,
                                got, want);
                }
            }
    T.check(ok && bad == 0, what);
    dnnl_memory_desc_destroy(smd);
    dnnl_memory_desc_destroy(wmd);
    dnnl_memory_desc_destroy(dmd);
    if (bmd) dnnl_memory_desc_destroy(bmd);
}

// Inner product forward with f16 src and weights (weights OC x IC: a
// transposed B for the packs), MB over and under the skinny limit, f32 or
// f16 dst, 1 and 2 threads; the same exact-integer reference.
void ip_case(dnnl_dim_t MB, dnnl_dim_t IC, dnnl_dim_t OC, dnnl_data_type_t ddt, int nthr) {
    char what[120];
    std::snprintf(what, sizeof(what), "ip f16 MB=%ld IC=%ld OC=%ld dst=%d thr=%d", (long)MB, (long)IC, (long)OC,
            (int)ddt, nthr);
    dnnl_memory_desc_t smd, wmd, dmd;
    dnnl_dims_t sd = {MB, IC}, wd = {OC, IC}, dd = {MB, OC};
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, 2, sd, dnnl_f16, dnnl_ab));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd, 2, wd, dnnl_f16, dnnl_ab));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, 2, dd, ddt, dnnl_ab));
    std::vector<uint8_t> S((size_t)(MB * IC) * 2), W((size_t)(OC * IC) * 2), D((size_t)(MB * OC) * dt_size(ddt));
    std::vector<int> sv((size_t)(MB * IC)), wv((size_t)(OC * IC));
    kt::rng_t r((uint64_t)(MB * 7 + IC * 3 + OC));
    for (size_t i = 0; i < sv.size(); ++i) {
        sv[i] = (int)(r.next() % 9) - 4;
        put(S, dnnl_f16, i, sv[i]);
    }
    for (size_t i = 0; i < wv.size(); ++i) {
        wv[i] = (int)(r.next() % 7) - 3;
        put(W, dnnl_f16, i, wv[i]);
    }
    bool ok = true;
    kt::with_threads(nthr, [&] {
        dnnl_primitive_desc_t pd;
        if (dnnl_inner_product_forward_primitive_desc_create(
                    &pd, eng, dnnl_forward_inference, smd, wmd, nullptr, dmd, nullptr) != dnnl_success) {
            ok = false;
            return;
        }
        dnnl_primitive_t p;
        KT_OK(dnnl_primitive_create(&p, pd));
        dnnl_memory_t ms, mw, md;
        KT_OK(dnnl_memory_create(&ms, smd, eng, S.data()));
        KT_OK(dnnl_memory_create(&mw, wmd, eng, W.data()));
        KT_OK(dnnl_memory_create(&md, dmd, eng, D.data()));
        dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        KT_OK(dnnl_primitive_execute(p, strm, 3, args));
        KT_OK(dnnl_stream_wait(strm));
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mw);
        dnnl_memory_destroy(md);
        dnnl_primitive_destroy(p);
        dnnl_primitive_desc_destroy(pd);
    });
    int bad = 0;
    for (dnnl_dim_t m = 0; ok && m < MB; ++m)
        for (dnnl_dim_t n = 0; n < OC; ++n) {
            long acc = 0;
            for (dnnl_dim_t k = 0; k < IC; ++k) acc += (long)sv[(size_t)(m * IC + k)] * wv[(size_t)(n * IC + k)];
            const double want = (double)acc, got = get(D, ddt, (size_t)(m * OC + n));
            const double tol = ddt == dnnl_f16 ? std::ldexp(std::fabs(want), -11) : 0.0;
            if (!(std::fabs(got - want) <= tol) && bad++ < 3)
                std::fprintf(stderr, "%s: (%ld,%ld) got %g want %g\n", what, (long)m, (long)n, got, want);
        }
    T.check(ok && bad == 0, what);
    dnnl_memory_desc_destroy(smd);
    dnnl_memory_desc_destroy(wmd);
    dnnl_memory_desc_destroy(dmd);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    const dnnl_data_type_t combos[][3] = {{dnnl_f16, dnnl_f16, dnnl_f32}, {dnnl_f16, dnnl_f16, dnnl_f16},
            {dnnl_bf16, dnnl_bf16, dnnl_f32}, {dnnl_f16, dnnl_f32, dnnl_f32}, {dnnl_f32, dnnl_f16, dnnl_f32},
            {dnnl_bf16, dnnl_f32, dnnl_f32}};
    // Tails of every panel (MR 12 or 6, NR 32 or 16, K chunk 256, L1 chunk
    // 64), whole panels, the skinny fallback (5 rows).
    const shape_t shapes[] = {{9, 9, 1}, {13, 33, 7}, {37, 47, 64}, {25, 40, 65}, {100, 70, 257}, {12, 32, 300},
            {5, 50, 20}, {48, 17, 129}};
    int idx = 0;
    for (const auto &s : shapes)
        for (int lay = 0; lay < 4; ++lay) {
            const auto &c = combos[idx % 6];
            const bool ta = lay & 1, tb = lay & 2;
            one(s, idx % 5 == 0 ? 2 : 1, c[0], c[1], c[2], ta, tb, idx % 3 == 0 ? 3 : 0, idx % 3, 1 + idx % 2);
            ++idx;
        }
    // Every combination once on a mid shape, both thread counts.
    for (int ci = 0; ci < 6; ++ci)
        for (int nthr : {1, 2}) one({29, 45, 90}, 1, combos[ci][0], combos[ci][1], combos[ci][2], ci & 1, ci & 2, 1, ci % 3, nthr);
    // At most 4 rows with row-major f16 weights: the GEMV (AVX-512; the
    // packs' skinny fallback under the caps): column tails (not multiples
    // of 16 or 64), more than one 2048-column block, K not a multiple of 4.
    const dnnl_data_type_t gemv_types[][3] = {{dnnl_f16, dnnl_f16, dnnl_f32}, {dnnl_f16, dnnl_f16, dnnl_f16},
            {dnnl_f32, dnnl_f16, dnnl_f32}, {dnnl_bf16, dnnl_f16, dnnl_f32}};
    const shape_t gemv_shapes[] = {{1, 70, 33}, {2, 2100, 9}, {3, 64, 130}, {4, 17, 4}, {1, 4100, 7}};
    idx = 0;
    for (const auto &s : gemv_shapes)
        for (int t = 0; t < 4; ++t, ++idx)
            one(s, idx % 4 == 1 ? 2 : 1, gemv_types[t][0], gemv_types[t][1], gemv_types[t][2], idx % 3 == 0, false,
                    idx % 2 ? 5 : 0, idx % 3, 1 + idx % 2);
    for (int nthr : {1, 2}) {
        ip_case(37, 70, 45, dnnl_f32, nthr);
        ip_case(3, 300, 33, dnnl_f16, nthr);
        ip_case(64, 257, 100, nthr == 1 ? dnnl_f16 : dnnl_f32, nthr);
    }
    // Several tiles and K chunks (beyond 480 x 512 x 256), both thread counts.
    for (int nthr : {1, 2})
        one({485, 520, 260}, 1, dnnl_f16, dnnl_f16, nthr == 1 ? dnnl_f32 : dnnl_f16, nthr == 2, nthr == 1, 2, nthr, nthr);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return T.finish();
}
