// Weights decompression with a bf16 src under fpmath bf16 / any applied to
// integers: s8/u8/s4/u4 weights (row-major, transposed, rows and batches
// starting on an odd nibble), scales grouped along K (16, 32, 128, K past
// one 512-deep chunk and not a multiple of it) or per N or per tensor, zero
// points per tensor, per N and grouped, N tails, M 1..17, batches, bf16 and
// f32 dst; 1 and 2 threads. Checked against a naive loop written here.
//
// Semantics (oneDNN's fpmath_mode with apply_to_int): the weights are
// up-converted to the fpmath type, so with AVX512-BF16 each weight becomes
// wq = bf16((w - zp) * scale), the product (w - zp) * scale computed in
// f32 and rounded once to nearest even. bf16 src times a bf16 weight is
// exact in f32, so the reference is
//   dst[m][n] = sum_k src[m][k] * wq[k][n] (+ bias[n])
// in double, and the only error left is the f32 accumulation: at most
// (K + 8) 2^-24 sum_k |src * wq| (vdpbf16ps rounds each of its adds once),
// plus 2^-8 |dst| for a bf16 dst. The bound is far below the effect of not
// rounding the weights (2^-9 relative per weight), so the test tells the
// two apart.
// The library keeps f32 weights (wq = (w - zp) * scale in f32, the same
// bound) where the fpmath mode does not allow bf16 (strict, f16), where the
// CPU or the ISA cap lacks AVX512-BF16 (test_matmul_wdecomp_bf16_isa.sh:
// AVX512_CORE, AVX2, SSE41), and in its GEMV for at most 4 rows with
// row-major weights on AVX-512 (s4/u4: rows starting on whole bytes); the
// expectation below follows those rules, read apart from the library
// (/proc/cpuinfo, the cap variable).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gemm/wdecomp_tables.hpp"
#include "common/kt_test.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng;
dnnl_stream_t strm;
bool cpu_bf16 = false, cpu_avx512 = false; // as the CPU and the cap allow

uint16_t to_bf16(float f) { // round to nearest even (no NaN here)
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
bool sub_byte(dnnl_data_type_t dt) { return dt == dnnl_s4 || dt == dnnl_u4; }

// A buffer of n values of type dt (integers in [lo, hi] for integer types),
// returned as the floats they hold; s4/u4 two per byte, element i in byte
// i / 2, low nibble first.
std::vector<float> make(size_t n, dnnl_data_type_t dt, kt::rng_t &r, float lo, float hi, std::vector<uint8_t> &bytes) {
    std::vector<float> v(n);
    const size_t esz = dt == dnnl_f32 || dt == dnnl_s32 ? 4 : dt == dnnl_bf16 || dt == dnnl_f16 ? 2 : 1;
    bytes.assign(sub_byte(dt) ? (n + 1) / 2 : n * esz, 0);
    for (size_t i = 0; i < n; ++i) {
        switch (dt) {
            case dnnl_f32: v[i] = r.uniform(lo, hi); std::memcpy(&bytes[4 * i], &v[i], 4); break;
            case dnnl_bf16: {
                const uint16_t h = to_bf16(r.uniform(lo, hi));
                v[i] = from_bf16(h);
                std::memcpy(&bytes[2 * i], &h, 2);
                break;
            }
            case dnnl_f16: { // k * 2^-14, k in [16, 2047]: normal and exact in f16
                int k = (int)(r.uniform(lo, hi) * 16384.f);
                k = k < 16 ? 16 : k > 2047 ? 2047 : k;
                v[i] = std::ldexp((float)k, -14);
                uint32_t u;
                std::memcpy(&u, &v[i], 4);
                const uint16_t h = (uint16_t)((((u >> 23) & 0xff) - 127 + 15) << 10 | ((u >> 13) & 0x3ff));
                std::memcpy(&bytes[2 * i], &h, 2);
                break;
            }
            case dnnl_s32: {
                const int32_t x = (int32_t)r.small_int((int)lo, (int)hi);
                v[i] = (float)x;
                std::memcpy(&bytes[4 * i], &x, 4);
                break;
            }
            case dnnl_s4:
            case dnnl_u4: {
                const int x = (int)r.small_int((int)lo, (int)hi);
                v[i] = (float)x;
                const uint8_t nib = (uint8_t)(x & 0xf);
                bytes[i / 2] = (uint8_t)(i % 2 ? (bytes[i / 2] & 0x0f) | (nib << 4) : (bytes[i / 2] & 0xf0) | nib);
                break;
            }
            default: { // s8, u8
                const int x = (int)r.small_int((int)lo, (int)hi);
                v[i] = (float)x;
                bytes[i] = (uint8_t)(x & 0xff);
                break;
            }
        }
    }
    return v;
}
void int_range(dnnl_data_type_t dt, float &lo, float &hi) {
    switch (dt) {
        case dnnl_s8: lo = -128, hi = 127; break;
        case dnnl_u8: lo = 0, hi = 255; break;
        case dnnl_s4: lo = -8, hi = 7; break;
        case dnnl_u4: lo = 0, hi = 15; break;
        default: lo = -20, hi = 20; break; // s32
    }
}

using wdt::table_t;

struct prob_t {
    dnnl_dim_t B, M, K, N; // B = 0: 2D
    dnnl_data_type_t wei_dt, dst_dt;
    bool trans; // weights N-major (K contiguous)
    table_t sc, zp;
    bool bias;
    dnnl_fpmath_mode_t mode;
};


dnnl_memory_t mem_of(const_dnnl_memory_desc_t md, const std::vector<uint8_t> &bytes) {
    dnnl_memory_t m;
    KT_OK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    void *h;
    KT_OK(dnnl_memory_get_data_handle(m, &h));
    if (!bytes.empty()) std::memcpy(h, bytes.data(), bytes.size());
    return m;
}

// Whether the weights are expected rounded to bf16 (see the top comment).
bool expect_bf16(const prob_t &p) {
    if (p.mode != dnnl_fpmath_mode_bf16 && p.mode != dnnl_fpmath_mode_any) return false;
    if (!cpu_bf16) return false;
    const bool whole_bytes = !sub_byte(p.wei_dt) || (p.N % 2 == 0 && (p.K * p.N) % 2 == 0);
    const bool gemv = cpu_avx512 && p.M <= 4 && !p.trans && whole_bytes;
    return !gemv;
}

void run(const prob_t &p, int nthr, uint64_t seed) {
    char nm[200];
    std::snprintf(nm, sizeof(nm), "B%ld M%ld K%ld N%ld wei%d dst%d%s sc(m%d g%ld dt%d) zp(%d m%d g%ld dt%d)%s mode%d %dthr",
            (long)p.B, (long)p.M, (long)p.K, (long)p.N, (int)p.wei_dt, (int)p.dst_dt, p.trans ? " trans" : "",
            p.sc.on ? p.sc.mask : -1, (long)p.sc.group, (int)p.sc.dt, p.zp.on, p.zp.mask, (long)p.zp.group,
            (int)p.zp.dt, p.bias ? " bias" : "", (int)p.mode, nthr);
    const std::string what = nm;
    const bool b3 = p.B != 0;
    const dnnl_dim_t Bn = b3 ? p.B : 1;
    const int nd = b3 ? 3 : 2;
    kt::rng_t r(seed);
    dnnl_memory_desc_t smd, wmd, dmd, bmd = nullptr;
    const dnnl_format_tag_t plain = b3 ? dnnl_abc : dnnl_ab, tr = b3 ? dnnl_acb : dnnl_ba;
    dnnl_dims_t sd = {p.M, p.K}, wd = {p.K, p.N}, dd = {p.M, p.N};
    if (b3) {
        const dnnl_dims_t a = {p.B, p.M, p.K}, w = {p.B, p.K, p.N}, d = {p.B, p.M, p.N};
        std::memcpy(sd, a, sizeof(a[0]) * 3);
        std::memcpy(wd, w, sizeof(w[0]) * 3);
        std::memcpy(dd, d, sizeof(d[0]) * 3);
    }
    KT_OK(dnnl_memory_desc_create_with_tag(&smd, nd, sd, dnnl_bf16, plain));
    KT_OK(dnnl_memory_desc_create_with_tag(&wmd, nd, wd, p.wei_dt, p.trans ? tr : plain));
    KT_OK(dnnl_memory_desc_create_with_tag(&dmd, nd, dd, p.dst_dt, plain));
    if (p.bias) {
        dnnl_dims_t bd = {1, 1, 1};
        bd[nd - 1] = p.N;
        KT_OK(dnnl_memory_desc_create_with_tag(&bmd, nd, bd, dnnl_f32, plain));
    }
    dnnl_primitive_attr_t attr;
    KT_OK(dnnl_primitive_attr_create(&attr));
    KT_OK(dnnl_primitive_attr_set_fpmath_mode_v2(attr, p.mode, 1));
    const dnnl_dims_t sg = {p.sc.group, 1}, zg = {p.zp.group, 1};
    if (p.sc.on)
        KT_OK(dnnl_primitive_attr_set_scales(
                attr, DNNL_ARG_WEIGHTS, p.sc.mask, p.sc.group > 1 ? 2 : 0, p.sc.group > 1 ? sg : nullptr, p.sc.dt));
    if (p.zp.on)
        KT_OK(dnnl_primitive_attr_set_zero_points(
                attr, DNNL_ARG_WEIGHTS, p.zp.mask, p.zp.group > 1 ? 2 : 0, p.zp.group > 1 ? zg : nullptr, p.zp.dt));
    dnnl_primitive_desc_t pd = nullptr;
    const dnnl_status_t st = dnnl_matmul_primitive_desc_create(&pd, eng, smd, wmd, bmd, dmd, attr);
    tally.check(st == dnnl_success, (what + ": created").c_str());
    if (st != dnnl_success) return;

    // Values: weights generated [b][k][n] and stored in the chosen layout.
    std::vector<uint8_t> sb, wb, bb, scb, zpb, tmp;
    const std::vector<float> src = make((size_t)(Bn * p.M * p.K), dnnl_bf16, r, -1.f, 1.f, sb);
    float lo, hi;
    int_range(p.wei_dt, lo, hi);
    const std::vector<float> wei = make((size_t)(Bn * p.K * p.N), p.wei_dt, r, lo, hi, tmp);
    {
        std::vector<float> dummy;
        std::vector<uint8_t> wl;
        std::vector<float> wt(wei.size());
        for (dnnl_dim_t b = 0; b < Bn; ++b)
            for (dnnl_dim_t k = 0; k < p.K; ++k)
                for (dnnl_dim_t n = 0; n < p.N; ++n) {
                    const size_t from = (size_t)((b * p.K + k) * p.N + n);
                    wt[p.trans ? (size_t)((b * p.N + n) * p.K + k) : from] = wei[from];
                }
        // Store wt (already in memory order) as dt.
        wb.assign(sub_byte(p.wei_dt) ? (wt.size() + 1) / 2 : wt.size(), 0);
        for (size_t i = 0; i < wt.size(); ++i) {
            const int x = (int)wt[i];
            if (sub_byte(p.wei_dt))
                wb[i / 2] = (uint8_t)(i % 2 ? (wb[i / 2] & 0x0f) | ((x & 0xf) << 4) : (wb[i / 2] & 0xf0) | (x & 0xf));
            else
                wb[i] = (uint8_t)(x & 0xff);
        }
    }
    const std::vector<float> bias = p.bias ? make((size_t)p.N, dnnl_f32, r, -1.f, 1.f, bb) : std::vector<float>();
    const std::vector<float> sc
            = p.sc.on ? make((size_t)wdt::table_count(p, p.sc), p.sc.dt, r, 0.001f, 0.02f, scb) : std::vector<float>();
    float zlo, zhi;
    int_range(p.zp.dt, zlo, zhi);
    const std::vector<float> zp
            = p.zp.on ? make((size_t)wdt::table_count(p, p.zp), p.zp.dt, r, zlo, zhi, zpb) : std::vector<float>();

    dnnl_memory_t ms = mem_of(smd, sb), mw = mem_of(wmd, wb), md = mem_of(dmd, {});
    std::vector<dnnl_exec_arg_t> args = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
    std::vector<dnnl_memory_t> extra;
    auto add_1d = [&](int arg, dnnl_dim_t n, dnnl_data_type_t dt, const std::vector<uint8_t> &bytes) {
        kt::md_t m(kt::make_md({n}, dt, dnnl_a));
        dnnl_memory_t x = mem_of(m, bytes);
        args.push_back({arg, x});
        extra.push_back(x);
    };
    if (p.bias) {
        dnnl_memory_t x = mem_of(bmd, bb);
        args.push_back({DNNL_ARG_BIAS, x});
        extra.push_back(x);
    }
    if (p.sc.on) add_1d(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, wdt::table_count(p, p.sc), p.sc.dt, scb);
    if (p.zp.on) add_1d(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS, wdt::table_count(p, p.zp), p.zp.dt, zpb);
    dnnl_primitive_t prim;
    KT_OK(dnnl_primitive_create(&prim, pd));
    kt::with_threads(nthr, [&] {
        KT_OK(dnnl_primitive_execute(prim, strm, (int)args.size(), args.data()));
        KT_OK(dnnl_stream_wait(strm));
    });

    const bool rnd = expect_bf16(p);
    void *dh;
    KT_OK(dnnl_memory_get_data_handle(md, &dh));
    int bad = 0;
    double worst = 0;
    for (dnnl_dim_t b = 0; b < Bn; ++b)
        for (dnnl_dim_t m = 0; m < p.M; ++m)
            for (dnnl_dim_t n = 0; n < p.N; ++n) {
                double acc = 0, mag = 0;
                for (dnnl_dim_t k = 0; k < p.K; ++k) {
                    const float w = wei[(size_t)((b * p.K + k) * p.N + n)];
                    const float z = p.zp.on ? zp[(size_t)wdt::table_index(p, p.zp, b, k, n)] : 0.f;
                    const float s = p.sc.on ? sc[(size_t)wdt::table_index(p, p.sc, b, k, n)] : 1.f;
                    float wq = (w - z) * s; // f32, as the semantics say
                    if (rnd) wq = from_bf16(to_bf16(wq));
                    const double t = (double)src[(size_t)((b * p.M + m) * p.K + k)] * wq;
                    acc += t;
                    mag += std::fabs(t);
                }
                if (p.bias) {
                    acc += bias[(size_t)n];
                    mag += std::fabs(bias[(size_t)n]);
                }
                const size_t i = (size_t)((b * p.M + m) * p.N + n);
                const double got = p.dst_dt == dnnl_bf16 ? from_bf16(static_cast<const uint16_t *>(dh)[i])
                                                         : static_cast<const float *>(dh)[i];
                double tol = (p.K + 8) * std::ldexp(1.0, -24) * mag + 1e-30;
                if (p.dst_dt == dnnl_bf16) tol += std::ldexp(1.0, -8) * std::fabs(acc);
                const double err = std::fabs(got - acc);
                if (!(err <= tol)) ++bad;
                if (err / tol > worst) worst = err / tol;
            }
    if (bad)
        std::fprintf(stderr, "%s (%s weights): %d elements out of bound (worst error / bound %.3g)\n", what.c_str(),
                rnd ? "bf16" : "f32", bad, worst);
    tally.check(bad == 0, (what + (rnd ? ": matches the loop with bf16 weights" : ": matches the loop with f32 weights")).c_str());

    dnnl_primitive_destroy(prim);
    for (dnnl_memory_t x : extra) dnnl_memory_destroy(x);
    for (dnnl_memory_t x : {ms, mw, md}) dnnl_memory_destroy(x);
    dnnl_primitive_desc_destroy(pd);
    dnnl_primitive_attr_destroy(attr);
    for (dnnl_memory_desc_t x : {smd, wmd, dmd}) dnnl_memory_desc_destroy(x);
    if (bmd) dnnl_memory_desc_destroy(bmd);
}

bool cpu_flag(const char *flag) {
    bool found = false;
    if (FILE *f = std::fopen("/proc/cpuinfo", "r")) {
        char line[8192];
        const std::string want = std::string(" ") + flag;
        while (!found && std::fgets(line, sizeof(line), f)) {
            const char *at = std::strstr(line, want.c_str());
            found = at && (at[want.size()] == ' ' || at[want.size()] == '\n');
        }
        std::fclose(f);
    }
    return found;
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    // The caps the isa script sets: AVX512_CORE keeps AVX-512 without BF16.
    const char *cap_env = std::getenv("ONEDNN_MAX_CPU_ISA");
    const std::string cap = cap_env ? cap_env : "ALL";
    cpu_bf16 = cpu_flag("avx512_bf16") && cap == "ALL";
    cpu_avx512 = cpu_flag("avx512bw") && (cap == "ALL" || cap.rfind("AVX512", 0) == 0);
    const int KN = 2, KK = 1; // 2D masks
    const auto bf = dnnl_fpmath_mode_bf16;
    std::vector<prob_t> probs = {
            // s8, K over one 512-deep chunk and not a multiple of it, (128, N)
            // f32 scales, s8 zero points per N, N tail of 6, bf16 dst, bias.
            {0, 17, 640, 70, dnnl_s8, dnnl_bf16, false, {true, KK | KN, 128, dnnl_f32}, {true, KN, 1, dnnl_s8}, true, bf},
            // u8, (32, N) bf16 scales and u8 zero points, N = 37.
            {0, 12, 96, 37, dnnl_u8, dnnl_f32, false, {true, KK | KN, 32, dnnl_bf16}, {true, KK | KN, 32, dnnl_u8}, false,
                    bf},
            // s4 with odd N: every other row starts on a high nibble; (128, N)
            // scales, one s4 zero point for the tensor.
            {0, 5, 256, 33, dnnl_s4, dnnl_f32, false, {true, KK | KN, 128, dnnl_f32}, {true, 0, 1, dnnl_s4}, false, bf},
            // u4 over more than one 512-column tile, (32, N) u4 zero points,
            // f16 scales.
            {0, 13, 64, 530, dnnl_u4, dnnl_bf16, false, {true, KK | KN, 32, dnnl_f16}, {true, KK | KN, 32, dnnl_u4},
                    false, bf},
            // Odd K (a lone last row in the pair layout), per-N scales, u8
            // zero points per N for s8 weights.
            {0, 8, 77, 40, dnnl_s8, dnnl_f32, false, {true, KN, 1, dnnl_f32}, {true, KN, 1, dnnl_u8}, true, bf},
            // Transposed weights (the element-wise packing), s32 zero point.
            {0, 9, 70, 19, dnnl_s8, dnnl_f32, true, {true, KK | KN, 10, dnnl_f32}, {true, 0, 1, dnnl_s32}, false, bf},
            {0, 7, 33, 5, dnnl_s4, dnnl_f32, true, {true, KN, 1, dnnl_f32}, {true, KN, 1, dnnl_s4}, false, bf},
            // Batched s4 with K * N odd: the second batch starts on a high
            // nibble; tables over the batch dim.
            {3, 6, 32, 9, dnnl_s4, dnnl_f32, false, {true, 1 | 2 | 4, 16, dnnl_f32}, {true, 1 | 4, 1, dnnl_s8}, false,
                    bf},
            {2, 11, 33, 15, dnnl_u4, dnnl_f32, false, {true, 2 | 4, 11, dnnl_f32}, {true, 4, 1, dnnl_u4}, false, bf},
            // fpmath any also allows bf16; strict and f16 do not (f32 weights).
            {0, 10, 128, 64, dnnl_s8, dnnl_f32, false, {true, KK | KN, 32, dnnl_f32}, {true, KN, 1, dnnl_s8}, false,
                    dnnl_fpmath_mode_any},
            {0, 10, 128, 64, dnnl_s8, dnnl_f32, false, {true, KK | KN, 32, dnnl_f32}, {true, KN, 1, dnnl_s8}, false,
                    dnnl_fpmath_mode_strict},
            {0, 10, 128, 64, dnnl_u4, dnnl_f32, false, {true, KK | KN, 32, dnnl_f32}, {true, KN, 1, dnnl_u4}, false,
                    dnnl_fpmath_mode_f16},
            // No scales, no zero points.
            {0, 6, 40, 50, dnnl_s8, dnnl_f32, false, {}, {}, false, bf},
    };
    // M 1..17 (1..4: the GEMV with row-major weights on AVX-512), grouped
    // tables, a 4-column tail; odd N for s4 (rows on high nibbles: not the
    // GEMV).
    for (dnnl_dim_t m = 1; m <= 17; ++m) {
        probs.push_back({0, m, 64, 36, dnnl_u4, dnnl_f32, false, {true, KK | KN, 16, dnnl_f32},
                {true, KK | KN, 32, dnnl_u8}, false, bf});
        if (m <= 5)
            probs.push_back({0, m, 64, 35, dnnl_s4, dnnl_f32, false, {true, KK | KN, 32, dnnl_f32},
                    {true, KN, 1, dnnl_s4}, false, bf});
    }
    uint64_t seed = 7;
    for (const prob_t &p : probs)
        for (int nthr : {1, 2}) run(p, nthr, seed++);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
