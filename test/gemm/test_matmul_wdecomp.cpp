// Matmul with compressed weights (weights decompression): f32/bf16 src,
// s8/u8 weights, weights scales and zero points per tensor, per N, per K
// group, per (K group, N) and over a batch dim, weights row-major,
// transposed or `any`, bias, src/dst scales, bf16 dst; 1 and 2 threads and
// a user scratchpad. Checked against a naive loop written here:
//   dst[m][n] = src_scale * sum_k src[m][k] * (w[k][n] - zp(k, n)) * sc(k, n)
//               + bias[n], divided by the dst scale,
// computed in double. Also the statuses: no apply_to_int, a group that does
// not divide K, a group along N, a src zero point, a missing scales argument
// at execution (s4/u4 weights: test_matmul_wdecomp_s4).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gemm/wdecomp_tables.hpp"
#include "common/kt_test.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng;
dnnl_stream_t strm;

uint16_t to_bf16(float f) { // round to nearest even
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// One quantisation table: mask over the weights dims (batch, K, N) and the
// K group (1 = none); values indexed [batch][k / group][n] over the masked
// dims only.
using wdt::table_t;

struct prob_t {
    dnnl_dim_t B, M, K, N; // B = 0: 2D
    dnnl_data_type_t src_dt, wei_dt, dst_dt;
    int wei_layout; // 0 row-major, 1 transposed (N-major), 2 any
    table_t sc, zp;
    bool bias, src_scale, dst_scale;
};


// Values stored as dt, returned as the floats the library will read.
std::vector<float> make_values(size_t n, dnnl_data_type_t dt, kt::rng_t &r, float lo, float hi,
        std::vector<char> &bytes) {
    std::vector<float> v(n);
    bytes.assign(n * (dt == dnnl_f32 || dt == dnnl_s32 ? 4 : dt == dnnl_bf16 ? 2 : 1), 0);
    for (size_t i = 0; i < n; ++i) {
        switch (dt) {
            case dnnl_f32: {
                v[i] = r.uniform(lo, hi);
                std::memcpy(&bytes[4 * i], &v[i], 4);
                break;
            }
            case dnnl_bf16: {
                uint16_t h = to_bf16(r.uniform(lo, hi));
                v[i] = from_bf16(h);
                std::memcpy(&bytes[2 * i], &h, 2);
                break;
            }
            case dnnl_s32: {
                int32_t x = (int32_t)r.small_int((int)lo, (int)hi);
                v[i] = (float)x;
                std::memcpy(&bytes[4 * i], &x, 4);
                break;
            }
            case dnnl_s8: {
                int8_t x = (int8_t)r.small_int((int)lo, (int)hi);
                v[i] = (float)x;
                bytes[i] = (char)x;
                break;
            }
            default: { // u8
                uint8_t x = (uint8_t)r.small_int((int)lo, (int)hi);
                v[i] = (float)x;
                bytes[i] = (char)x;
                break;
            }
        }
    }
    return v;
}

dnnl_memory_t mem_with(const_dnnl_memory_desc_t md, const std::vector<char> &bytes) {
    dnnl_memory_t m;
    KT_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    void *h;
    KT_OK(dnnl_memory_get_data_handle(m, &h));
    std::memcpy(h, bytes.data(), bytes.size());
    return m;
}

dnnl_memory_t mem_1d(dnnl_dim_t n, dnnl_data_type_t dt, const std::vector<char> &bytes) {
    kt::md_t md(kt::make_md({n}, dt, dnnl_a));
    return mem_with(md, bytes);
}

std::string name_of(const prob_t &p) {
    char s[256];
    std::snprintf(s, sizeof(s), "B%ld M%ld K%ld N%ld src%d wei%d dst%d layout%d sc(m%d g%ld dt%d) zp(%d m%d g%ld dt%d)%s%s%s",
            (long)p.B, (long)p.M, (long)p.K, (long)p.N, (int)p.src_dt, (int)p.wei_dt, (int)p.dst_dt, p.wei_layout,
            p.sc.on ? p.sc.mask : -1, (long)p.sc.group, (int)p.sc.dt, p.zp.on, p.zp.mask, (long)p.zp.group,
            (int)p.zp.dt, p.bias ? " bias" : "", p.src_scale ? " src-scale" : "", p.dst_scale ? " dst-scale" : "");
    return s;
}

void run(const prob_t &p, int nthr, bool user_scratchpad, uint64_t seed) {
    const std::string what = name_of(p) + (nthr == 1 ? " 1thr" : " 2thr") + (user_scratchpad ? " user-sp" : "");
    const bool b3 = p.B != 0;
    const dnnl_dim_t Bn = b3 ? p.B : 1;
    const int nd = b3 ? 3 : 2;
    kt::rng_t r(seed);
    dnnl_dims_t sd = {}, wd = {}, dd = {};
    if (b3) {
        dnnl_dims_t a = {p.B, p.M, p.K}, w = {p.B, p.K, p.N}, d = {p.B, p.M, p.N};
        std::memcpy(sd, a, sizeof(a[0]) * 3);
        std::memcpy(wd, w, sizeof(w[0]) * 3);
        std::memcpy(dd, d, sizeof(d[0]) * 3);
    } else {
        dnnl_dims_t a = {p.M, p.K}, w = {p.K, p.N}, d = {p.M, p.N};
        std::memcpy(sd, a, sizeof(a[0]) * 2);
        std::memcpy(wd, w, sizeof(w[0]) * 2);
        std::memcpy(dd, d, sizeof(d[0]) * 2);
    }
    dnnl_memory_desc_t smd, wmd_user, wmd_any, dmd, bmd = nullptr;
    const dnnl_format_tag_t plain = b3 ? dnnl_abc : dnnl_ab, trans = b3 ? dnnl_acb : dnnl_ba;
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, nd, sd, p.src_dt, plain));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd_user, nd, wd, p.wei_dt, p.wei_layout == 1 ? trans : plain));
    KT_OK(dnnl_memory_desc_create_with_tag(
            &wmd_any, nd, wd, p.wei_dt, p.wei_layout == 2 ? dnnl_format_tag_any : p.wei_layout == 1 ? trans : plain));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, nd, dd, p.dst_dt, plain));
    if (p.bias) {
        dnnl_dims_t bd = {1, 1, 1};
        bd[nd - 1] = p.N;
        KT_OK(dnnl_memory_desc_create_with_tag(&bmd, nd, bd, dnnl_f32, plain));
    }
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_fpmath_mode_v2(attr, dnnl_fpmath_mode_strict, 1));
    if (user_scratchpad) KT_OK(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user));
    const dnnl_dims_t groups = {p.sc.group, 1}, zgroups = {p.zp.group, 1};
    if (p.sc.on)
        KT_OK(dnnl_primitive_attr_set_scales(attr, DNNL_ARG_WEIGHTS, p.sc.mask, p.sc.group > 1 ? 2 : 0,
                p.sc.group > 1 ? groups : nullptr, p.sc.dt));
    if (p.zp.on)
        KT_OK(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_WEIGHTS, p.zp.mask, p.zp.group > 1 ? 2 : 0,
                p.zp.group > 1 ? zgroups : nullptr, p.zp.dt));
    if (p.src_scale) KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
    if (p.dst_scale) KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_DST, 0));
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd_any, bmd, dmd, attr);
    tally.check(st == dnnl_success, (what + ": created").c_str());
    if (st != dnnl_success) return;
    tally.check(kt::impl_name(pd) == "gemm:cvt", (what + ": runs on gemm:cvt").c_str());
    const_dnnl_memory_desc_t wmd_pd = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);

    // Data. Weights: any's resolution must be one the test can fill, so it
    // is filled through a reorder from the user layout.
    std::vector<char> sb, wb, bb, scb, zpb, ssb, dsb;
    std::vector<float> src = make_values((size_t)(Bn * p.M * p.K), p.src_dt, r, -1.f, 1.f, sb);
    std::vector<float> wei = make_values((size_t)(Bn * p.K * p.N), p.wei_dt, r, p.wei_dt == dnnl_s8 ? -128.f : 0.f,
            p.wei_dt == dnnl_s8 ? 127.f : 255.f, wb);
    std::vector<float> bias = p.bias ? make_values((size_t)p.N, dnnl_f32, r, -1.f, 1.f, bb) : std::vector<float>();
    std::vector<float> sc = p.sc.on ? make_values((size_t)wdt::table_count(p, p.sc), p.sc.dt, r, 0.001f, 0.02f, scb)
                                    : std::vector<float>();
    const bool zs8 = p.zp.dt == dnnl_s8;
    std::vector<float> zp = p.zp.on ? make_values((size_t)wdt::table_count(p, p.zp), p.zp.dt, r, zs8 ? -8.f : 0.f,
                                              zs8 ? 8.f : 16.f, zpb)
                                    : std::vector<float>();
    std::vector<float> ss = make_values(1, dnnl_f32, r, 0.5f, 2.f, ssb), ds = make_values(1, dnnl_f32, r, 0.5f, 2.f, dsb);

    // Weights in the user layout: the values are generated [b][k][n].
    std::vector<char> wb_user(wb.size());
    const size_t wsz = wb.size() / wei.size();
    for (dnnl_dim_t b = 0; b < Bn; ++b)
        for (dnnl_dim_t k = 0; k < p.K; ++k)
            for (dnnl_dim_t n = 0; n < p.N; ++n) {
                const size_t from = (size_t)((b * p.K + k) * p.N + n);
                const size_t to = p.wei_layout == 1 ? (size_t)((b * p.N + n) * p.K + k) : from;
                std::memcpy(&wb_user[to * wsz], &wb[from * wsz], wsz);
            }
    dnnl_memory_t ms = mem_with(smd, sb), mw_user = mem_with(wmd_user, wb_user), mw;
    KT_OK(dnnl_memory_create(&mw, wmd_pd, eng, DNNL_MEMORY_ALLOCATE));
    {
        dnnl_primitive_desc_t rpd;
        KT_OK(dnnl_reorder_primitive_desc_create(&rpd, wmd_user, eng, wmd_pd, eng, nullptr));
        dnnl_primitive_t rp;
        KT_OK(dnnl_primitive_create(&rp, rpd));
        dnnl_exec_arg_t ra[] = {{DNNL_ARG_FROM, mw_user}, {DNNL_ARG_TO, mw}};
        KT_OK(dnnl_primitive_execute(rp, strm, 2, ra));
        KT_OK(dnnl_stream_wait(strm));
        dnnl_primitive_destroy(rp);
        dnnl_primitive_desc_destroy(rpd);
    }
    dnnl_memory_t md;
    KT_OK(dnnl_memory_create(&md, dmd, eng, DNNL_MEMORY_ALLOCATE));
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    std::vector<dnnl_memory_t> extra;
    auto add = [&](int arg, dnnl_memory_t m) {
        args.push_back({arg, m});
        extra.push_back(m);
    };
    if (p.bias) add(DNNL_ARG_BIAS, mem_with(bmd, bb));
    if (p.sc.on) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, mem_1d(wdt::table_count(p, p.sc), p.sc.dt, scb));
    if (p.zp.on) add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, mem_1d(wdt::table_count(p, p.zp), p.zp.dt, zpb));
    if (p.src_scale) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, mem_1d(1, dnnl_f32, ssb));
    if (p.dst_scale) add(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST, mem_1d(1, dnnl_f32, dsb));
    if (user_scratchpad) {
        const_dnnl_memory_desc_t spmd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
        dnnl_memory_t msp;
        KT_OK(dnnl_memory_create(&msp, spmd, eng, DNNL_MEMORY_ALLOCATE));
        add(DNNL_ARG_SCRATCHPAD, msp);
    }
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    kt::with_threads(nthr, [&] {
        KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
        KT_OK(dnnl_stream_wait(strm));
    });

    // The reference, in double, and the bound: each product is rounded
    // once in f32 (the decompressed weight (w - z) * s, a relative 2^-24),
    // and the K-term f32 sum adds at most K * 2^-24 of the sum of |terms|;
    // scales and bias add a few roundings more; a bf16 dst rounds the
    // result to 2^-8 relative.
    void *dh;
    KT_OK(dnnl_memory_get_data_handle(md, &dh));
    int bad = 0;
    double worst = 0;
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
                double want = acc * (p.src_scale ? ss[0] : 1.0);
                mag *= p.src_scale ? ss[0] : 1.0;
                if (p.bias) {
                    want += bias[(size_t)n];
                    mag += std::fabs(bias[(size_t)n]);
                }
                if (p.dst_scale) {
                    want /= ds[0];
                    mag /= ds[0];
                }
                const size_t i = (size_t)((b * p.M + m) * p.N + n);
                const double got = p.dst_dt == dnnl_bf16 ? from_bf16(static_cast<const uint16_t *>(dh)[i])
                                                         : static_cast<const float *>(dh)[i];
                double tol = (p.K + 8) * std::ldexp(1.0, -24) * mag + 1e-30;
                if (p.dst_dt == dnnl_bf16) tol += std::ldexp(1.0, -8) * std::fabs(want);
                const double err = std::fabs(got - want);
                if (!(err <= tol)) ++bad;
                if (err / (tol) > worst) worst = err / tol;
            }
    if (bad) std::fprintf(stderr, "%s: %d elements out of bound (worst error / bound %.3g)\n", what.c_str(), bad, worst);
    tally.check(bad == 0, (what + ": matches the naive loop").c_str());

    dnnl_primitive_destroy(prim);
    for (dnnl_memory_t m : extra) dnnl_memory_destroy(m);
    for (dnnl_memory_t m : {ms, mw_user, mw, md}) dnnl_memory_destroy(m);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    for (dnnl_memory_desc_t x : {smd, wmd_user, wmd_any, dmd}) dnnl_memory_desc_destroy(x);
    if (bmd) dnnl_memory_desc_destroy(bmd);
}

// Statuses: what oneDNN refuses is refused, and nothing is written when an
// execution argument is missing.
void check_refusals() {
    kt::md_t s(kt::make_md({4, 64}, dnnl_f32, dnnl_ab)), w(kt::make_md({64, 8}, dnnl_s8, dnnl_ab)),
            d(kt::make_md({4, 8}, dnnl_f32, dnnl_ab));
    auto create = [&](dnnl_primitive_attr_t a, const_dnnl_memory_desc_t wmd, dnnl_primitive_desc_t *pd) {
        return dnnl_matmul_primitive_desc_create(pd, eng, s, wmd, nullptr, d, a);
    };
    dnnl_primitive_desc_t pd = nullptr;
    tally.check(create(nullptr, w, &pd) == dnnl_unimplemented, "s8 weights without fpmath apply_to_int: unimplemented");
    dnnl_primitive_attr_t a;
    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_fpmath_mode_v2(a, dnnl_fpmath_mode_strict, 1));
    const dnnl_dims_t g5 = {5, 1}, gn = {16, 2};
    KT_OK(dnnl_primitive_attr_set_scales(a, DNNL_ARG_WEIGHTS, 3, 2, g5, dnnl_f32));
    tally.check(create(a, w, &pd) == dnnl_unimplemented, "a K group that does not divide K: unimplemented");
    KT_OK(dnnl_primitive_attr_set_scales(a, DNNL_ARG_WEIGHTS, 3, 2, gn, dnnl_f32));
    tally.check(create(a, w, &pd) == dnnl_unimplemented, "a group along N: unimplemented");
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(a, DNNL_ARG_SRC, 0));
    const dnnl_dims_t g16 = {16, 1};
    KT_OK(dnnl_primitive_attr_set_scales(a, DNNL_ARG_WEIGHTS, 3, 2, g16, dnnl_f32));
    tally.check(create(a, w, &pd) == dnnl_unimplemented, "a src zero point with float src: unimplemented");
    dnnl_primitive_attr_destroy(a);

    KT_OK(dnnl_primitive_attr_create(&a));
    KT_OK(dnnl_primitive_attr_set_fpmath_mode_v2(a, dnnl_fpmath_mode_bf16, 1));
    KT_OK(dnnl_primitive_attr_set_scales(a, DNNL_ARG_WEIGHTS, 3, 2, g16, dnnl_f32));
    KT_OK(create(a, w, &pd));
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    dnnl_memory_t ms, mw, md;
    KT_OK(dnnl_memory_create(&ms, s, eng, DNNL_MEMORY_ALLOCATE));
    KT_OK(dnnl_memory_create(&mw, w, eng, DNNL_MEMORY_ALLOCATE));
    KT_OK(dnnl_memory_create(&md, d, eng, DNNL_MEMORY_ALLOCATE));
    void *dh;
    KT_OK(dnnl_memory_get_data_handle(md, &dh));
    std::memset(dh, 0x5a, 4 * 8 * sizeof(float));
    dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    tally.check(dnnl_primitive_execute(prim, strm, 3, args) == dnnl_invalid_arguments,
            "the weights scales missing at execution: invalid_arguments");
    bool untouched = true;
    for (int i = 0; i < 4 * 8 * (int)sizeof(float); ++i) untouched = untouched && static_cast<unsigned char *>(dh)[i] == 0x5a;
    tally.check(untouched, "the weights scales missing at execution: dst not written");
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    for (dnnl_memory_t m : {ms, mw, md}) dnnl_memory_destroy(m);
    dnnl_primitive_attr_destroy(a);
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    const int KN = 1 << 1, KK = 1 << 0; // 2D masks: N is dim 1, K dim 0
    std::vector<prob_t> probs = {
            // oneDNN's tutorial shape: (K group, N) scales and zero points.
            {0, 100, 64, 1000, dnnl_f32, dnnl_s8, dnnl_f32, 2, {true, KK | KN, 32, dnnl_f32}, {true, KK | KN, 32, dnnl_s8},
                    false, false, false},
            // M = 1 (a decoder step), odd N, u8 weights, u8 zero points per N.
            {0, 1, 96, 37, dnnl_f32, dnnl_u8, dnnl_f32, 0, {true, KK | KN, 32, dnnl_f32}, {true, KN, 1, dnnl_u8}, false,
                    false, false},
            // Transposed weights, bf16 scales, s32 zero point per tensor, bias.
            {0, 7, 66, 19, dnnl_f32, dnnl_s8, dnnl_f32, 1, {true, KK | KN, 11, dnnl_bf16}, {true, 0, 1, dnnl_s32}, true,
                    false, false},
            // Per-N scales only, no zero point; src and dst scales.
            {0, 33, 257, 70, dnnl_f32, dnnl_s8, dnnl_f32, 0, {true, KN, 1, dnnl_f32}, {}, false, true, true},
            // K-only groups (one scale per K group for every column).
            {0, 5, 48, 600, dnnl_f32, dnnl_u8, dnnl_f32, 0, {true, KK, 16, dnnl_f32}, {true, KK, 8, dnnl_u8}, false,
                    false, false},
            // bf16 src and dst, K larger than one chunk (tile_k 256), N over one tile (512).
            {0, 20, 520, 530, dnnl_bf16, dnnl_s8, dnnl_bf16, 0, {true, KK | KN, 40, dnnl_f32},
                    {true, KK | KN, 40, dnnl_s8}, true, false, false},
            // No scales at all, a zero point per tensor.
            {0, 3, 10, 9, dnnl_f32, dnnl_s8, dnnl_f32, 0, {}, {true, 0, 1, dnnl_s8}, false, false, false},
            // Batched: tables over the batch dim too (mask bit 0 = batch).
            {3, 4, 32, 24, dnnl_f32, dnnl_s8, dnnl_f32, 0, {true, 1 | 2 | 4, 8, dnnl_f32}, {true, 4, 1, dnnl_s8}, false,
                    false, false},
            // Batched, tables shared by the batch, transposed weights.
            {2, 9, 24, 13, dnnl_f32, dnnl_u8, dnnl_f32, 1, {true, 2 | 4, 12, dnnl_f32}, {true, 2 | 4, 6, dnnl_u8}, false,
                    false, false},
            // At most 4 rows with row-major weights: the GEMV that decompresses
            // in registers (AVX-512). Over one 2048-column block with a tail
            // of 65, K not a multiple of 4, scale and zero point groups that
            // end on different rows, bias.
            {0, 1, 70, 2113, dnnl_bf16, dnnl_s8, dnnl_bf16, 0, {true, KK | KN, 10, dnnl_f32},
                    {true, KK | KN, 14, dnnl_s8}, true, false, false},
            // Two rows, a 2-column tail, per-N bf16 scales, u8 zero points per K group.
            {0, 2, 33, 130, dnnl_f32, dnnl_u8, dnnl_f32, 0, {true, KN, 1, dnnl_bf16}, {true, KK, 11, dnnl_u8}, false,
                    true, true},
            // Four rows, fewer columns than a vector, per-tensor scale, no zero point.
            {0, 4, 5, 17, dnnl_f32, dnnl_s8, dnnl_f32, 0, {true, 0, 1, dnnl_f32}, {}, false, false, false},
            // Three rows, (K group, N) u8 tables, K of one group.
            {0, 3, 64, 200, dnnl_bf16, dnnl_u8, dnnl_f32, 0, {true, KK | KN, 64, dnnl_f32},
                    {true, KK | KN, 32, dnnl_u8}, true, false, false},
    };
    uint64_t seed = 1;
    for (const prob_t &p : probs)
        for (int nthr : {1, 2})
            for (bool usp : {false, true}) run(p, nthr, usp, seed++);
    check_refusals();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
