// bf16 x bf16 products on AVX512-BF16 (gemm_bf16.hpp): the tile routine
// itself over every panel tail, and bf16 matmul / inner product through the
// C++ API, against a naive double loop written here. Run as well under
// ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI (test_gemm_isa.sh), where the same
// primitives convert to f32 panels instead: the expectations are the same.
//
// Inputs are bf16 values of magnitude in [1/16, 1) with random signs, so no
// product or partial sum is subnormal (vdpbf16ps flushes those). Products of
// two bf16 values are exact in f32; each of the 2 * ceil(K / 2) additions of
// vdpbf16ps (or of the f32 path) rounds once, so with u = 2^-24
//   |C - C_exact| <= (K + 4) u (|alpha| sum_k |a_k b_k| + |beta C0|) (1 + small)
// (alpha, beta and the final add round 3 more times). A bf16 dst adds one
// rounding to nearest even: 2^-8 of the value.
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "../common/kt_test.hpp"
#include "cpu/gemm/gemm_bf16.hpp"
#include "dnnl.hpp"

using namespace kestrel;

namespace {

kt::tally_t T;

uint16_t bf16_of(float f) { // exact: callers pass values with 8 significant bits
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}
float f32_of(uint16_t h) {
    const uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
// A random bf16 value, |v| in [1/16, 1), 8 significant bits.
uint16_t rand_bf16(kt::rng_t &r) {
    const float m = (float)(128 + r.next() % 128) / 256.f; // [0.5, 1), 8 bits
    const float v = std::ldexp(m, -(int)(r.next() % 4));
    return bf16_of(r.next() & 1 ? -v : v);
}

bool within(double got, double want, double bound) { return std::fabs(got - want) <= bound; }

// ---------------------------------------------------------------- the tile

void tile_case(dim_t mb, dim_t nb, dim_t kb, bool ta, bool tb, float alpha, float beta, uint64_t seed) {
    kt::rng_t r(seed);
    // Origins inside bigger matrices (m0, k0, n0 offsets), padded ld.
    const dim_t m0 = 2, k0 = 3, n0 = 1, Mt = m0 + mb + 1, Kt = k0 + kb + 2, Nt = n0 + nb + 3;
    const dim_t lda = (ta ? Mt : Kt) + 5, ldb = (tb ? Kt : Nt) + 7, ldc = nb + 9;
    std::vector<uint16_t> A((size_t)((ta ? Kt : Mt) * lda)), B((size_t)((tb ? Nt : Kt) * ldb));
    for (auto &v : A) v = rand_bf16(r);
    for (auto &v : B) v = rand_bf16(r);
    std::vector<float> C((size_t)(mb * ldc)), C0;
    for (auto &v : C) v = r.uniform(-1.f, 1.f);
    C0 = C;
    auto a = [&](dim_t i, dim_t k) { return (double)f32_of(ta ? A[k * lda + i] : A[i * lda + k]); };
    auto b = [&](dim_t k, dim_t j) { return (double)f32_of(tb ? B[j * ldb + k] : B[k * ldb + j]); };
    const size_t pa_n = gemm::bf16_pack_a_bytes(mb, kb) / 4, pb_n = gemm::bf16_pack_b_bytes(kb, nb) / 4;
    std::vector<uint32_t> pa(pa_n + 16), pb(pb_n + 16);
    uint32_t *pa_al = pa.data() + (16 - ((uintptr_t)pa.data() / 4) % 16) % 16;
    uint32_t *pb_al = pb.data() + (16 - ((uintptr_t)pb.data() / 4) % 16) % 16;
    gemm::bf16_dot_tile(mb, nb, kb, alpha, {A.data(), lda, ta}, m0, k0, {B.data(), ldb, tb}, n0, beta, C.data(), ldc,
            pa_al, pb_al);
    bool ok = true;
    for (dim_t i = 0; i < mb && ok; ++i) {
        for (dim_t j = 0; j < ldc && ok; ++j) {
            const double got = C[(size_t)(i * ldc + j)];
            if (j >= nb) { // past the tile: untouched
                ok = got == C0[(size_t)(i * ldc + j)];
                continue;
            }
            double s = 0, sa = 0;
            for (dim_t k = 0; k < kb; ++k) {
                const double p = a(m0 + i, k0 + k) * b(k0 + k, n0 + j);
                s += p;
                sa += std::fabs(p);
            }
            const double c0 = C0[(size_t)(i * ldc + j)];
            const double want = alpha * s + (beta == 0.f ? 0.0 : beta * c0);
            const double bound = (kb + 4) * 0x1p-24 * (std::fabs(alpha) * sa + std::fabs(beta * c0)) * 1.01 + 1e-30;
            if (!within(got, want, bound)) {
                std::fprintf(stderr, "  tile %ldx%ldx%ld ta=%d tb=%d at (%ld,%ld): got %.9g want %.9g\n", (long)mb,
                        (long)nb, (long)kb, ta, tb, (long)i, (long)j, got, want);
                ok = false;
            }
        }
    }
    char what[120];
    std::snprintf(what, sizeof(what), "tile %ldx%ldx%ld ta=%d tb=%d alpha=%g beta=%g", (long)mb, (long)nb, (long)kb,
            ta, tb, alpha, beta);
    T.check(ok, what);
}

void test_tiles() {
    uint64_t seed = 1;
    for (dim_t mb : {1, 5, 12, 13, 25})
        for (dim_t nb : {1, 16, 31, 32, 33, 70})
            for (dim_t kb : {0, 1, 2, 3, 17, 64})
                for (int t = 0; t < 4; ++t) {
                    const float alpha = t == 2 ? 0.5f : 1.f, beta = t == 0 ? 0.f : t == 1 ? 1.f : -0.5f;
                    tile_case(mb, nb, kb, t & 1, (t >> 1) & 1, alpha, beta, seed++);
                }
    // K past one 512-k chunk of the tile routine (C then accumulates over
    // chunks with beta applied once), odd, with row and column tails.
    for (int t = 0; t < 4; ++t) tile_case(13, 33, 1025, t & 1, (t >> 1) & 1, t == 2 ? 0.5f : 1.f, t == 1 ? 0.f : -0.5f, seed++);
}

// ------------------------------------------------------ matmul and IP

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// dst = relu?(scale * src x wei + bias) (+ dst0 when sum), through dnnl.hpp.
void matmul_case(dim_t M, dim_t K, dim_t N, bool ts, bool tw, dt ddt, bool bias, bool sum, float scale,
        int nthr, uint64_t seed, bool relu = true) {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream str(eng);
    dnnl::memory::desc sd({M, K}, dt::bf16, ts ? tag::ba : tag::ab), wd({K, N}, dt::bf16, tw ? tag::ba : tag::ab),
            dd({M, N}, ddt, tag::ab), bd({1, N}, dt::f32, tag::ab);
    dnnl::post_ops po;
    if (sum) po.append_sum(1.f);
    if (relu) po.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    if (scale != 1.f) attr.set_scales_mask(DNNL_ARG_SRC, 0);
    char what[160];
    std::snprintf(what, sizeof(what), "matmul %ldx%ldx%ld ts=%d tw=%d dst=%s bias=%d sum=%d scale=%g relu=%d %d thr",
            (long)M, (long)K, (long)N, ts, tw, ddt == dt::f32 ? "f32" : "bf16", bias, sum, scale, relu, nthr);
    dnnl::matmul::primitive_desc pd = bias ? dnnl::matmul::primitive_desc(eng, sd, wd, bd, dd, attr)
                                           : dnnl::matmul::primitive_desc(eng, sd, wd, dd, attr);
    T.check(std::string(pd.impl_info_str()) == "gemm:cvt", (std::string(what) + ": gemm:cvt").c_str());
    kt::rng_t r(seed);
    dnnl::memory s(sd, eng), w(wd, eng), d(dd, eng), b(bd, eng), sc({{1}, dt::f32, tag::a}, eng);
    auto fill = [&](dnnl::memory &m, dim_t n) {
        auto *p = static_cast<uint16_t *>(m.get_data_handle());
        for (dim_t i = 0; i < n; ++i) p[i] = rand_bf16(r);
    };
    fill(s, M * K);
    fill(w, K * N);
    auto *bp = static_cast<float *>(b.get_data_handle());
    for (dim_t j = 0; j < N; ++j) bp[j] = r.uniform(-1.f, 1.f);
    *static_cast<float *>(sc.get_data_handle()) = scale;
    std::vector<double> d0((size_t)(M * N));
    for (dim_t i = 0; i < M * N; ++i) {
        const uint16_t h = rand_bf16(r);
        d0[(size_t)i] = f32_of(h);
        if (ddt == dt::f32)
            static_cast<float *>(d.get_data_handle())[i] = f32_of(h);
        else
            static_cast<uint16_t *>(d.get_data_handle())[i] = h;
    }
    const auto *sp = static_cast<const uint16_t *>(s.get_data_handle());
    const auto *wp = static_cast<const uint16_t *>(w.get_data_handle());
    auto sv = [&](dim_t i, dim_t k) { return (double)f32_of(ts ? sp[k * M + i] : sp[i * K + k]); };
    auto wv = [&](dim_t k, dim_t j) { return (double)f32_of(tw ? wp[j * K + k] : wp[k * N + j]); };
    std::unordered_map<int, dnnl::memory> args {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, d}};
    if (bias) args.insert({DNNL_ARG_BIAS, b});
    if (scale != 1.f) args.insert({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, sc});
    kt::with_threads(nthr, [&] {
        dnnl::matmul(pd).execute(str, args);
        str.wait();
    });
    bool ok = true;
    for (dim_t i = 0; i < M && ok; ++i)
        for (dim_t j = 0; j < N && ok; ++j) {
            double acc = 0, sa = 0;
            for (dim_t k = 0; k < K; ++k) {
                const double p = sv(i, k) * wv(k, j);
                acc += p;
                sa += std::fabs(p);
            }
            double pre = scale * acc + (bias ? bp[j] : 0.0) + (sum ? d0[(size_t)(i * N + j)] : 0.0);
            const double want = pre > 0 || !relu ? pre : 0.0;
            // Accumulation as in the header, then scale, bias and sum: 3
            // more roundings of values bounded by the magnitudes below.
            const double mag = std::fabs(scale) * sa + (bias ? std::fabs(bp[j]) : 0.0)
                    + (sum ? std::fabs(d0[(size_t)(i * N + j)]) : 0.0);
            double bound = (K + 8) * 0x1p-24 * mag * 1.01;
            if (ddt == dt::bf16) bound += 0x1p-8 * (std::fabs(want) + bound);
            const double got = ddt == dt::f32 ? static_cast<float *>(d.get_data_handle())[i * N + j]
                                              : f32_of(static_cast<uint16_t *>(d.get_data_handle())[i * N + j]);
            if (!within(got, want, bound + 1e-30)) {
                std::fprintf(stderr, "  %s at (%ld,%ld): got %.9g want %.9g bound %.3g\n", what, (long)i, (long)j, got,
                        want, bound);
                ok = false;
            }
        }
    T.check(ok, what);
}

void test_matmul() {
    uint64_t seed = 100;
    // Across cvt_plan_t's tiles and K chunks (480 x 512, 256; 1024 x 512
    // on the dot path, which takes K in chunks of 512) and the
    // microkernel's 12 x 32 panels.
    // {M, K, N}; 1030 rows: two tiles of rows on the dot path (1024 tall),
    // 530 k: two chunks of its tile routine.
    const dim_t shapes[][3] = {{1, 1, 1}, {1, 300, 40}, {13, 3, 33}, {12, 256, 32}, {25, 257, 70}, {150, 300, 520},
            {145, 513, 17}, {1030, 530, 33}};
    int v = 0;
    for (const auto &sh : shapes)
        for (int t = 0; t < 4; ++t, ++v)
            matmul_case(sh[0], sh[1], sh[2], t & 1, (t >> 1) & 1, v % 2 ? dt::bf16 : dt::f32, v % 3 != 0, v % 4 == 1,
                    v % 5 == 2 ? 0.75f : 1.f, 1 + v % 2, seed++);
    // No epilogue (no bias, no post-op but a leading sum, which is the
    // GEMM's beta): a bf16 dst takes the kernel's stores directly, from
    // one K chunk or after several.
    const dim_t plain[][3] = {{13, 70, 33}, {40, 600, 70}, {1, 1025, 17}};
    for (const auto &sh : plain)
        for (int t = 0; t < 4; ++t)
            matmul_case(sh[0], sh[1], sh[2], t & 1, false, dt::bf16, false, t >= 2, t == 1 ? 0.75f : 1.f, 1 + t % 2,
                    seed++, false);
}

// Inner product (the same engine under gemm:cvt): dst = src x wei^T + bias.
void test_ip() {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream str(eng);
    for (int v = 0; v < 4; ++v) {
        const dim_t MB = v % 2 ? 3 : 40, IC = v < 2 ? 70 : 300, OC = v % 3 ? 33 : 64;
        dnnl::memory::desc sd({MB, IC}, dt::bf16, tag::ab), wd({OC, IC}, dt::bf16, tag::ab),
                bd({OC}, dt::f32, tag::a), dd({MB, OC}, dt::f32, tag::ab);
        dnnl::inner_product_forward::primitive_desc pd(eng, dnnl::prop_kind::forward_inference, sd, wd, bd, dd);
        kt::rng_t r(500 + v);
        dnnl::memory s(sd, eng), w(wd, eng), b(bd, eng), d(dd, eng);
        auto *sp = static_cast<uint16_t *>(s.get_data_handle());
        auto *wp = static_cast<uint16_t *>(w.get_data_handle());
        auto *bp = static_cast<float *>(b.get_data_handle());
        for (dim_t i = 0; i < MB * IC; ++i) sp[i] = rand_bf16(r);
        for (dim_t i = 0; i < OC * IC; ++i) wp[i] = rand_bf16(r);
        for (dim_t i = 0; i < OC; ++i) bp[i] = r.uniform(-1.f, 1.f);
        kt::with_threads(1 + v % 2, [&] {
            dnnl::inner_product_forward(pd).execute(
                    str, {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, d}});
            str.wait();
        });
        bool ok = true;
        const auto *dp = static_cast<const float *>(d.get_data_handle());
        for (dim_t i = 0; i < MB && ok; ++i)
            for (dim_t o = 0; o < OC && ok; ++o) {
                double acc = bp[o], sa = std::fabs(bp[o]);
                for (dim_t k = 0; k < IC; ++k) {
                    const double p = (double)f32_of(sp[i * IC + k]) * f32_of(wp[o * IC + k]);
                    acc += p;
                    sa += std::fabs(p);
                }
                ok = within(dp[i * OC + o], acc, (IC + 8) * 0x1p-24 * sa * 1.01);
            }
        char what[100];
        std::snprintf(what, sizeof(what), "inner product bf16 %ldx%ld->%ld", (long)MB, (long)IC, (long)OC);
        T.check(ok, what);
    }
}

} // namespace

int main() {
    const bool dot = gemm::bf16_dot_available();
    std::printf("AVX512-BF16 products: %s\n", dot ? "used" : "not available (f32 panels)");
    // Whether the path is taken follows the CPU and the cap, read here apart
    // from the library: /proc/cpuinfo's avx512_bf16 flag, and the one cap
    // the isa script sets.
    bool hw = false;
    if (FILE *f = std::fopen("/proc/cpuinfo", "r")) {
        char line[4096];
        while (!hw && std::fgets(line, sizeof(line), f)) hw = std::strstr(line, " avx512_bf16") != nullptr;
        std::fclose(f);
    }
    const char *cap = std::getenv("ONEDNN_MAX_CPU_ISA");
    const bool capped = cap && std::string(cap) != "ALL";
    T.check(dot == (hw && !capped), "the bf16 dot path follows the CPU and the ISA cap");
    if (dot) test_tiles();
    test_matmul();
    test_ip();
    return T.finish();
}
