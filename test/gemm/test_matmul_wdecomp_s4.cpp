// s4/u4 data: memory sizes (two elements per byte, the lower offset in the
// low nibble), reorders f32 <-> s4/u4 and s4/u4 <-> s4/u4 across layouts
// (exact: rounding to nearest even and saturation written out here), matmul
// weights decompression with s4/u4 weights and s4/u4/s8/u8/s32 zero points
// and f32/bf16/f16 scales grouped along K (against a naive loop in double,
// C and C++ API, 1 and 2 threads), and the refusals: every other primitive
// declines s4/u4 data, and a missing zero point leaves dst untouched.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gemm/wdecomp_tables.hpp"
#include "common/kt_test.hpp"
#include "dnnl.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng;
dnnl_stream_t strm;

// Packing written independently of the library: element i in byte i / 2,
// low nibble first.
void put_nib(std::vector<uint8_t> &b, size_t i, int v) {
    uint8_t &x = b[i / 2];
    const uint8_t n = (uint8_t)(v & 0xf);
    x = (i % 2) ? (uint8_t)((x & 0x0f) | (n << 4)) : (uint8_t)((x & 0xf0) | n);
}
int get_nib(const uint8_t *b, size_t i, bool is_signed) {
    const int n = (i % 2) ? b[i / 2] >> 4 : b[i / 2] & 0xf;
    return is_signed && n >= 8 ? n - 16 : n;
}

dnnl_memory_t mem_of(const_dnnl_memory_desc_t md, const void *bytes, size_t n) {
    dnnl_memory_t m;
    KT_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    void *h;
    KT_OK(dnnl_memory_get_data_handle(m, &h));
    if (n) std::memcpy(h, bytes, n);
    return m;
}
void *handle(dnnl_memory_t m) {
    void *h;
    KT_OK(dnnl_memory_get_data_handle(m, &h));
    return h;
}

dnnl_status_t reorder(const_dnnl_memory_desc_t smd, dnnl_memory_t ms, const_dnnl_memory_desc_t dmd, dnnl_memory_t md,
        int nthr, std::string *impl = nullptr) {
    dnnl_primitive_desc_t pd;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, smd, eng, dmd, eng, nullptr);
    if (st != dnnl_success) return st;
    if (impl) *impl = kt::impl_name(pd);
    dnnl_primitive_t p;
    KT_OK(dnnl_primitive_create(&p, pd));
    dnnl_exec_arg_t a[] = {{DNNL_ARG_FROM, ms}, {DNNL_ARG_TO, md}};
    kt::with_threads(nthr, [&] {
        st = dnnl_primitive_execute(p, strm, 2, a);
        if (st == dnnl_success) st = dnnl_stream_wait(strm);
    });
    dnnl_primitive_destroy(p);
    dnnl_primitive_desc_destroy(pd);
    return st;
}

void check_sizes() {
    tally.check(dnnl_data_type_size(dnnl_s4) == 1 && dnnl_data_type_size(dnnl_u4) == 1,
            "dnnl_data_type_size of s4/u4 is 1, as oneDNN reports it");
    kt::md_t a(kt::make_md({5, 7}, dnnl_s4, dnnl_ab)), b(kt::make_md({4, 6}, dnnl_u4, dnnl_ba));
    tally.check(dnnl_memory_desc_get_size(a) == 18, "s4 5x7 ab: 35 elements in 18 bytes");
    tally.check(dnnl_memory_desc_get_size(b) == 12, "u4 4x6 ba: 24 elements in 12 bytes");
    dnnl_memory_desc_t c;
    const dnnl_dims_t d = {3, 5}, s = {8, 1};
    KT_OK(dnnl_memory_desc_create_with_strides(&c, 2, d, dnnl_s4, s));
    tally.check(dnnl_memory_desc_get_size(c) == 12, "s4 3x5 with row stride 8: 24 elements in 12 bytes");
    dnnl_memory_desc_destroy(c);
    const dnnl_dims_t one = {1};
    KT_OK(dnnl_memory_desc_create_with_tag(&c, 1, one, dnnl_u4, dnnl_a));
    tally.check(dnnl_memory_desc_get_size(c) == 1, "u4 of one element: 1 byte");
    dnnl_memory_desc_destroy(c);
}

// The library's rounding: nearest even, saturate, NaN to 0.
int expect_nib(float v, bool is_signed) {
    if (std::isnan(v)) return 0;
    double r = std::nearbyint((double)v);
    const double lo = is_signed ? -8 : 0, hi = is_signed ? 7 : 15;
    return (int)(r < lo ? lo : r > hi ? hi : r);
}

// f32 (ab) -> s4/u4 in `tag`, back to f32 (ab), and s4/u4 -> s4/u4 ba.
void check_reorders(dnnl_dim_t R, dnnl_dim_t C, dnnl_data_type_t dt, dnnl_format_tag_t tag, int nthr) {
    const bool sgn = dt == dnnl_s4;
    char what[160];
    std::snprintf(what, sizeof(what), "reorder %s %ldx%ld tag %d %dthr", sgn ? "s4" : "u4", (long)R, (long)C,
            (int)tag, nthr);
    const std::string w = what;
    const float special[] = {-9.5f, -8.5f, -8.f, -7.5f, -0.5f, 0.5f, 1.5f, 2.5f, 6.5f, 7.49f, 7.5f, 100.f,
            NAN, -0.f, 14.5f, 15.5f, 16.f, 3.2f, -1e9f, 1e9f};
    std::vector<float> src((size_t)(R * C));
    kt::rng_t r(R * 31 + C);
    for (size_t i = 0; i < src.size(); ++i)
        src[i] = i < sizeof(special) / sizeof(float) ? special[i] : r.uniform(sgn ? -9.f : -1.f, sgn ? 8.f : 16.f);
    kt::md_t fmd(kt::make_md({R, C}, dnnl_f32, dnnl_ab)), qmd(kt::make_md({R, C}, dt, tag)),
            tmd(kt::make_md({R, C}, dt, dnnl_ba));
    dnnl_memory_t mf = mem_of(fmd, src.data(), src.size() * 4), mq = mem_of(qmd, nullptr, 0);
    const size_t qbytes = dnnl_memory_desc_get_size(qmd);
    std::memset(handle(mq), 0xa5, qbytes);
    std::string impl;
    tally.check(reorder(fmd, mf, qmd, mq, nthr, &impl) == dnnl_success && impl == "reorder:sub_byte",
            (w + ": f32 -> 4-bit created and run by reorder:sub_byte").c_str());
    const uint8_t *q = static_cast<const uint8_t *>(handle(mq));
    int bad = 0;
    for (dnnl_dim_t i = 0; i < R; ++i)
        for (dnnl_dim_t j = 0; j < C; ++j) {
            const size_t at = tag == dnnl_ab ? (size_t)(i * C + j) : (size_t)(j * R + i);
            if (get_nib(q, at, sgn) != expect_nib(src[(size_t)(i * C + j)], sgn)) ++bad;
        }
    // An odd element count leaves the last high nibble to the caller.
    if ((R * C) % 2 && (q[qbytes - 1] >> 4) != 0xa) ++bad;
    tally.check(bad == 0, (w + ": packed nibbles exact (nearest even, saturated, NaN 0)").c_str());

    dnnl_memory_t mt = mem_of(tmd, nullptr, 0);
    KT_OK(reorder(qmd, mq, tmd, mt, nthr));
    dnnl_memory_t mb = mem_of(fmd, nullptr, 0);
    KT_OK(reorder(tmd, mt, fmd, mb, nthr));
    const float *back = static_cast<const float *>(handle(mb));
    bad = 0;
    for (size_t i = 0; i < src.size(); ++i)
        if (back[i] != (float)expect_nib(src[i], sgn)) ++bad;
    tally.check(bad == 0, (w + ": 4-bit -> 4-bit ba -> f32 gives the rounded values back").c_str());
    for (dnnl_memory_t m : {mf, mq, mt, mb}) dnnl_memory_destroy(m);
}

// ------------------------------------------------------------------ matmul

using wdt::table_t;

struct prob_t {
    dnnl_dim_t B, M, K, N; // B = 0: 2D
    dnnl_data_type_t wei_dt;
    int layout; // 0 row-major, 1 transposed, 2 any
    table_t sc, zp;
};


// Scale values k / 1024 (k in 1..64) are exact in f32, bf16 and f16;
// encoded by hand from the f32 bits.
uint16_t f16_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    const int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(((u >> 16) & 0x8000u) | ((uint32_t)e << 10) | ((u >> 13) & 0x3ffu));
}

// Values of type dt as bytes plus the floats they hold.
std::vector<uint8_t> encode(const std::vector<float> &v, dnnl_data_type_t dt) {
    std::vector<uint8_t> b;
    switch (dt) {
        case dnnl_s4:
        case dnnl_u4:
            b.assign((v.size() + 1) / 2, 0);
            for (size_t i = 0; i < v.size(); ++i) put_nib(b, i, (int)v[i]);
            break;
        case dnnl_s8:
        case dnnl_u8:
            for (float x : v) b.push_back((uint8_t)(int)x);
            break;
        case dnnl_s32:
            b.resize(v.size() * 4);
            for (size_t i = 0; i < v.size(); ++i) {
                const int32_t x = (int32_t)v[i];
                std::memcpy(&b[4 * i], &x, 4);
            }
            break;
        case dnnl_bf16:
        case dnnl_f16:
            b.resize(v.size() * 2);
            for (size_t i = 0; i < v.size(); ++i) {
                uint32_t u;
                std::memcpy(&u, &v[i], 4);
                const uint16_t h = dt == dnnl_bf16 ? (uint16_t)(u >> 16) : f16_bits(v[i]);
                std::memcpy(&b[2 * i], &h, 2);
            }
            break;
        default:
            b.resize(v.size() * 4);
            std::memcpy(b.data(), v.data(), b.size());
            break;
    }
    return b;
}

std::vector<float> ints(size_t n, dnnl_data_type_t dt, kt::rng_t &r) {
    std::vector<float> v(n);
    const int lo = dt == dnnl_s4 ? -8 : dt == dnnl_u4 || dt == dnnl_u8 ? 0 : -8;
    const int hi = dt == dnnl_s4 ? 7 : dt == dnnl_u4 ? 15 : dt == dnnl_u8 ? 16 : 8;
    for (auto &x : v) x = r.small_int(lo, hi);
    return v;
}

std::string name_of(const prob_t &p) {
    char s[200];
    std::snprintf(s, sizeof(s), "matmul B%ld M%ld K%ld N%ld wei%d layout%d sc(m%d g%ld dt%d) zp(%d m%d g%ld dt%d)",
            (long)p.B, (long)p.M, (long)p.K, (long)p.N, (int)p.wei_dt, p.layout, p.sc.on ? p.sc.mask : -1,
            (long)p.sc.group, (int)p.sc.dt, p.zp.on, p.zp.mask, (long)p.zp.group, (int)p.zp.dt);
    return s;
}

void run(const prob_t &p, int nthr, uint64_t seed) {
    const std::string what = name_of(p) + (nthr == 1 ? " 1thr" : " 2thr");
    const bool b3 = p.B != 0;
    const dnnl_dim_t Bn = b3 ? p.B : 1;
    const int nd = b3 ? 3 : 2;
    kt::rng_t r(seed);
    dnnl_dims_t sd, wd, dd;
    if (b3) {
        const dnnl_dims_t a = {p.B, p.M, p.K}, w = {p.B, p.K, p.N}, d = {p.B, p.M, p.N};
        std::memcpy(sd, a, sizeof(a));
        std::memcpy(wd, w, sizeof(w));
        std::memcpy(dd, d, sizeof(d));
    } else {
        const dnnl_dims_t a = {p.M, p.K}, w = {p.K, p.N}, d = {p.M, p.N};
        std::memcpy(sd, a, sizeof(a));
        std::memcpy(wd, w, sizeof(w));
        std::memcpy(dd, d, sizeof(d));
    }
    const dnnl_format_tag_t plain = b3 ? dnnl_abc : dnnl_ab, trans = b3 ? dnnl_acb : dnnl_ba;
    dnnl_memory_desc_t smd, wmd_user, wmd_req, dmd;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, nd, sd, dnnl_f32, plain));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd_user, nd, wd, p.wei_dt, p.layout == 1 ? trans : plain));
    KT_OK(dnnl_memory_desc_create_with_tag(
            &wmd_req, nd, wd, p.wei_dt, p.layout == 2 ? dnnl_format_tag_any : p.layout == 1 ? trans : plain));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, nd, dd, dnnl_f32, plain));
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_fpmath_mode_v2(attr, dnnl_fpmath_mode_strict, 1));
    const dnnl_dims_t sg = {p.sc.group, 1}, zg = {p.zp.group, 1};
    if (p.sc.on)
        KT_OK(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_WEIGHTS, p.sc.mask, p.sc.group > 1 ? 2 : 0,
                p.sc.group > 1 ? sg : nullptr, p.sc.dt));
    if (p.zp.on)
        KT_OK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_WEIGHTS, p.zp.mask, p.zp.group > 1 ? 2 : 0,
                p.zp.group > 1 ? zg : nullptr, p.zp.dt));
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd_req, nullptr, dmd, attr);
    tally.check(st == dnnl_success, (what + ": created").c_str());
    if (st != dnnl_success) return;
    tally.check(kt::impl_name(pd) == "gemm:cvt", (what + ": runs on gemm:cvt").c_str());
    const_dnnl_memory_desc_t wmd_pd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    tally.check(dnnl_memory_desc_get_size(wmd_pd) == (size_t)((Bn * p.K * p.N + 1) / 2),
            (what + ": weights size is half a byte per element").c_str());

    std::vector<float> src((size_t)(Bn * p.M * p.K));
    for (auto &x : src) x = r.uniform(-1.f, 1.f);
    std::vector<float> wei = ints((size_t)(Bn * p.K * p.N), p.wei_dt, r); // [b][k][n]
    std::vector<float> sc(p.sc.on ? (size_t)wdt::table_count(p, p.sc) : 0);
    for (auto &x : sc) x = r.small_int(1, 64) / 1024.f;
    std::vector<float> zp = p.zp.on ? ints((size_t)wdt::table_count(p, p.zp), p.zp.dt, r) : std::vector<float>();
    // Weights in the user layout.
    std::vector<float> wu(wei.size());
    for (dnnl_dim_t b = 0; b < Bn; ++b)
        for (dnnl_dim_t k = 0; k < p.K; ++k)
            for (dnnl_dim_t n = 0; n < p.N; ++n)
                wu[(size_t)(p.layout == 1 ? (b * p.N + n) * p.K + k : (b * p.K + k) * p.N + n)]
                        = wei[(size_t)((b * p.K + k) * p.N + n)];
    const std::vector<uint8_t> wb = encode(wu, p.wei_dt);
    dnnl_memory_t ms = mem_of(smd, src.data(), src.size() * 4), mwu = mem_of(wmd_user, wb.data(), wb.size());
    dnnl_memory_t mw = mem_of(wmd_pd, nullptr, 0);
    KT_OK(reorder(wmd_user, mwu, wmd_pd, mw, nthr)); // s4/u4 -> s4/u4
    dnnl_memory_t md = mem_of(dmd, nullptr, 0);
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    std::vector<dnnl_memory_t> extra;
    auto add_table = [&](int arg, const std::vector<float> &v, dnnl_data_type_t dt) {
        const std::vector<uint8_t> b = encode(v, dt);
        kt::md_t tmd(kt::make_md({(dnnl_dim_t)v.size()}, dt, dnnl_a));
        dnnl_memory_t m = mem_of(tmd, b.data(), b.size());
        args.push_back({arg, m});
        extra.push_back(m);
    };
    if (p.sc.on) add_table(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, sc, p.sc.dt);
    if (p.zp.on) add_table(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, zp, p.zp.dt);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    kt::with_threads(nthr, [&] {
        KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
        KT_OK(dnnl_stream_wait(strm));
    });
    // Bound: the decompressed weight (w - z) * s is one f32 rounding
    // (relative 2^-24), each product another, and the f32 sum of K terms
    // adds at most K * 2^-24 of the sum of |terms|: (K + 8) * 2^-24 * sum|t|.
    const float *got = static_cast<const float *>(handle(md));
    int bad = 0;
    for (dnnl_dim_t b = 0; b < Bn; ++b)
        for (dnnl_dim_t m = 0; m < p.M; ++m)
            for (dnnl_dim_t n = 0; n < p.N; ++n) {
                double acc = 0, mag = 0;
                for (dnnl_dim_t k = 0; k < p.K; ++k) {
                    const double w = wei[(size_t)((b * p.K + k) * p.N + n)];
                    const double z = p.zp.on ? zp[(size_t)wdt::table_index(p, p.zp, b, k, n)] : 0.0;
                    const double s = p.sc.on ? sc[(size_t)wdt::table_index(p, p.sc, b, k, n)] : 1.0;
                    const double t = src[(size_t)((b * p.M + m) * p.K + k)] * ((w - z) * s);
                    acc += t;
                    mag += std::fabs(t);
                }
                const double err = std::fabs(got[(size_t)((b * p.M + m) * p.N + n)] - acc);
                if (!(err <= (p.K + 8) * std::ldexp(1.0, -24) * mag + 1e-30)) ++bad;
            }
    if (bad) std::fprintf(stderr, "%s: %d elements out of bound\n", what.c_str(), bad);
    tally.check(bad == 0, (what + ": matches the naive loop").c_str());
    dnnl_primitive_destroy(prim);
    for (dnnl_memory_t m : extra) dnnl_memory_destroy(m);
    for (dnnl_memory_t m : {ms, mwu, mw, md}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    for (dnnl_memory_desc_t x : {smd, wmd_user, wmd_req, dmd}) dnnl_memory_desc_destroy(x);
}

// The C++ API: u4 weights with per-(K group, N) f16 scales and a u4 zero
// point per N, weights filled from f32 through a reorder.
void check_cpp(int nthr) {
    using namespace dnnl;
    using dt = memory::data_type;
    engine e(engine::kind::cpu, 0);
    stream s(e);
    const memory::dim M = 3, K = 64, N = 9, G = 32;
    memory::desc a_md({M, K}, dt::f32, memory::format_tag::ab), b_md({K, N}, dt::u4, memory::format_tag::any),
            c_md({M, N}, dt::f32, memory::format_tag::ab);
    primitive_attr attr;
    attr.set_scales(DNNL_ARG_WEIGHTS, (1 << 0) | (1 << 1), {G, 1}, dt::f16);
    attr.set_zero_points(DNNL_ARG_WEIGHTS, 1 << 1, {}, dt::u4);
    attr.set_fpmath_mode(fpmath_mode::strict, true);
    matmul::primitive_desc pd(e, a_md, b_md, c_md, attr);
    kt::rng_t r(77);
    std::vector<float> A((size_t)(M * K)), Bf((size_t)(K * N)), sc((size_t)(K / G * N)), zp((size_t)N);
    for (auto &x : A) x = r.uniform(-1.f, 1.f);
    for (auto &x : Bf) x = r.small_int(0, 15);
    for (auto &x : sc) x = r.small_int(1, 64) / 1024.f;
    for (auto &x : zp) x = r.small_int(0, 15);
    memory a(a_md, e), bq(pd.weights_desc(), e), c(c_md, e);
    memory bf({{K, N}, dt::f32, memory::format_tag::ab}, e);
    std::memcpy(a.get_data_handle(), A.data(), A.size() * 4);
    std::memcpy(bf.get_data_handle(), Bf.data(), Bf.size() * 4);
    const std::vector<uint8_t> scb = encode(sc, dnnl_f16), zpb = encode(zp, dnnl_u4);
    memory msc({{K / G * N}, dt::f16, memory::format_tag::a}, e), mzp({{N}, dt::u4, memory::format_tag::a}, e);
    std::memcpy(msc.get_data_handle(), scb.data(), scb.size());
    std::memcpy(mzp.get_data_handle(), zpb.data(), zpb.size());
    kt::with_threads(nthr, [&] {
        dnnl::reorder(bf, bq).execute(s, bf, bq);
        matmul(pd).execute(s, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, bq}, {DNNL_ARG_DST, c},
                                      {DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, msc},
                                      {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, mzp}});
        s.wait();
    });
    const float *got = static_cast<const float *>(c.get_data_handle());
    int bad = 0;
    for (memory::dim m = 0; m < M; ++m)
        for (memory::dim n = 0; n < N; ++n) {
            double acc = 0, mag = 0;
            for (memory::dim k = 0; k < K; ++k) {
                const double t = A[(size_t)(m * K + k)] * ((Bf[(size_t)(k * N + n)] - zp[(size_t)n])
                                                                 * sc[(size_t)(k / G * N + n)]);
                acc += t;
                mag += std::fabs(t);
            }
            if (!(std::fabs(got[m * N + n] - acc) <= (K + 8) * std::ldexp(1.0, -24) * mag + 1e-30)) ++bad;
        }
    tally.check(bad == 0, nthr == 1 ? "C++ API: u4 weights, f16 grouped scales, u4 zero points (1thr)"
                                    : "C++ API: u4 weights, f16 grouped scales, u4 zero points (2thr)");
}

// ---------------------------------------------------------------- refusals

void check_refusals() {
    kt::md_t f(kt::make_md({4, 64}, dnnl_f32, dnnl_ab)), s4(kt::make_md({4, 64}, dnnl_s4, dnnl_ab)),
            w(kt::make_md({64, 8}, dnnl_s4, dnnl_ab)), wf(kt::make_md({64, 8}, dnnl_f32, dnnl_ab)),
            d(kt::make_md({4, 8}, dnnl_f32, dnnl_ab)), d4(kt::make_md({4, 8}, dnnl_s4, dnnl_ab)),
            b4(kt::make_md({1, 8}, dnnl_s4, dnnl_ab));
    dnnl_primitive_attr_t a;
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_fpmath_mode_v2(a, dnnl_fpmath_mode_strict, 1));
    dnnl_primitive_desc_t pd = nullptr;
    tally.check(dnnl_matmul_primitive_desc_create(&pd, eng, f, w, nullptr, d, nullptr) == dnnl_unimplemented,
            "s4 weights without fpmath apply_to_int: unimplemented");
    tally.check(dnnl_matmul_primitive_desc_create(&pd, eng, s4, wf, nullptr, d, a) == dnnl_unimplemented,
            "matmul with s4 src: unimplemented");
    tally.check(dnnl_matmul_primitive_desc_create(&pd, eng, f, w, nullptr, d4, a) == dnnl_unimplemented,
            "matmul with s4 dst: unimplemented");
    tally.check(dnnl_matmul_primitive_desc_create(&pd, eng, f, w, b4, d, a) == dnnl_unimplemented,
            "matmul with s4 bias: unimplemented");
    {
        kt::md_t u8s(kt::make_md({4, 64}, dnnl_u8, dnnl_ab)), s8w(kt::make_md({64, 8}, dnnl_s8, dnnl_ab));
        dnnl_primitive_attr_t z;
        KT_OK(dnnl_primitive_attr_create(&z));
        KT_OK(dnnl_primitive_attr_set_zero_points(z, DNNL_ARG_SRC, 0, 0, nullptr, dnnl_s4));
        tally.check(dnnl_matmul_primitive_desc_create(&pd, eng, u8s, s8w, nullptr, d, z) == dnnl_unimplemented,
                "int8 matmul with an s4 src zero point: unimplemented");
        dnnl_primitive_attr_destroy(z);
    }
    tally.check(dnnl_eltwise_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference, dnnl_eltwise_relu, s4,
                        s4, 0.f, 0.f, nullptr)
                    == dnnl_unimplemented,
            "eltwise on s4: unimplemented");
    tally.check(dnnl_binary_primitive_desc_create(&pd, eng, dnnl_binary_add, f, s4, f, nullptr) == dnnl_unimplemented,
            "binary with an s4 operand: unimplemented");
    const_dnnl_memory_desc_t two[] = {s4, s4};
    const float scales[] = {1.f, 1.f};
    tally.check(dnnl_sum_primitive_desc_create(&pd, eng, s4, 2, scales, two, nullptr) == dnnl_unimplemented,
            "sum of s4: unimplemented");
    tally.check(dnnl_concat_primitive_desc_create(&pd, eng, nullptr, 2, 0, two, nullptr) == dnnl_unimplemented,
            "concat of s4: unimplemented");
    {
        kt::md_t nchw(kt::make_md({1, 3, 2, 2}, dnnl_f32, dnnl_abcd)),
                blk(kt::make_md({1, 3, 2, 2}, dnnl_s4, dnnl_aBcd16b));
        tally.check(dnnl_reorder_primitive_desc_create(&pd, nchw, eng, blk, eng, nullptr) == dnnl_unimplemented,
                "reorder to a padded s4 layout: unimplemented");
    }

    // A missing zero point at execution: invalid_arguments, dst untouched.
    KT_OK(dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_WEIGHTS, 0, 0, nullptr, dnnl_s4));
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, f, w, nullptr, d, a));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t ms = mem_of(f, nullptr, 0), mw = mem_of(w, nullptr, 0), md = mem_of(d, nullptr, 0);
    std::memset(handle(md), 0x5a, 4 * 8 * sizeof(float));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    tally.check(dnnl_primitive_execute(prim, strm, 3, args) == dnnl_invalid_arguments,
            "s4 weights, the zero point missing at execution: invalid_arguments");
    bool untouched = true;
    for (int i = 0; i < 4 * 8 * (int)sizeof(float); ++i)
        untouched = untouched && static_cast<unsigned char *>(handle(md))[i] == 0x5a;
    tally.check(untouched, "s4 weights, the zero point missing at execution: dst not written");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    for (dnnl_memory_t m : {ms, mw, md}) dnnl_memory_destroy(m);
    dnnl_primitive_attr_destroy(a);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    check_sizes();
    for (int nthr : {1, 2})
        for (dnnl_data_type_t dt : {dnnl_s4, dnnl_u4}) {
            check_reorders(5, 7, dt, dnnl_ab, nthr); // odd row stride: one thread writes
            check_reorders(6, 4, dt, dnnl_ab, nthr); // rows own whole bytes: split by rows
            check_reorders(4, 6, dt, dnnl_ba, nthr); // columns own whole bytes
            check_reorders(33, 65, dt, dnnl_ba, nthr);
        }
    const int KN = 1 << 1, KK = 1 << 0;
    const std::vector<prob_t> probs = {
            // oneDNN's tutorial shape with s4: (K group, N) scales and zero points.
            {0, 100, 64, 1000, dnnl_s4, 2, {true, KK | KN, 32, dnnl_f32}, {true, KK | KN, 32, dnnl_s4}},
            // M = 1, odd N (rows start mid-byte), u4, u4 zero points per N.
            {0, 1, 96, 37, dnnl_u4, 0, {true, KK | KN, 32, dnnl_f32}, {true, KN, 1, dnnl_u4}},
            // Transposed weights with odd K, bf16 scales, s32 zero point per tensor.
            {0, 7, 33, 19, dnnl_s4, 1, {true, KK | KN, 11, dnnl_bf16}, {true, 0, 1, dnnl_s32}},
            // f16 per-N scales, s8 zero points per (K group, N), odd N.
            {0, 5, 40, 71, dnnl_s4, 0, {true, KN, 1, dnnl_f16}, {true, KK | KN, 8, dnnl_s8}},
            // u8 zero points per K group, no scales; N over one tile, K over one chunk.
            {0, 4, 520, 530, dnnl_u4, 0, {}, {true, KK, 40, dnnl_u8}},
            // Batched, tables over the batch too, odd N.
            {3, 4, 32, 25, dnnl_s4, 0, {true, 1 | 2 | 4, 8, dnnl_f32}, {true, 1 | 2 | 4, 16, dnnl_s4}},
            // Batched and transposed, odd K: each batch starts mid-byte.
            {2, 3, 15, 13, dnnl_u4, 1, {true, 2 | 4, 5, dnnl_f32}, {true, 4, 1, dnnl_u4}},
            // At most 4 rows, row-major weights with an even N (rows start on a
            // byte): the GEMV that decompresses in registers (AVX-512). Over
            // one 2048-column block with a tail of 66, K not a multiple of 4,
            // scale and zero point groups ending on different rows.
            {0, 1, 70, 2114, dnnl_s4, 0, {true, KK | KN, 10, dnnl_f32}, {true, KK | KN, 14, dnnl_s4}},
            // Three rows, a 2-column tail, f16 per-N scales, u8 zero points per K group.
            {0, 3, 33, 66, dnnl_u4, 0, {true, KN, 1, dnnl_f16}, {true, KK, 11, dnnl_u8}},
            // Two rows, fewer columns than a vector, an s32 zero point per tensor, no scales.
            {0, 2, 8, 18, dnnl_s4, 0, {}, {true, 0, 1, dnnl_s32}},
            // Four rows, (K group, N) u4 tables, a column tail inside the 32-byte load.
            {0, 4, 40, 130, dnnl_u4, 0, {true, KK | KN, 8, dnnl_f32}, {true, KK | KN, 8, dnnl_u4}},
    };
    uint64_t seed = 1;
    for (const prob_t &p : probs)
        for (int nthr : {1, 2}) run(p, nthr, seed++);
    check_cpp(1);
    check_cpp(2);
    check_refusals();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
