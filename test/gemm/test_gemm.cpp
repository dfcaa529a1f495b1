// The GEMM engine against a naive double-precision triple loop: every
// microkernel (portable, AVX2, AVX-512 where the CPU has them), every
// transpose combination, padded leading dims, alpha/beta (beta = 0 over a
// NaN-filled C), 1 and 2 threads, the epilogue hook, the single-threaded
// slot variant, B packed once beforehand (pack_b_all, as the RNN steps
// use it), the skinny (unpacked) path, the direct (unpacked small)
// path, the blocking derived from cache sizes (odd and injected ones, whose
// tiny blocks cut every dimension), and dnnl_sgemm's argument checks.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "../common/kt_test.hpp"
#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/kernels.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"

using namespace kestrel;

namespace {

kt::tally_t T;

struct shape_t {
    dim_t M, N, K;
    bool ta, tb;
    float alpha, beta;
};

struct data_t {
    dim_t lda, ldb, ldc;
    std::vector<float> A, B, C0;
    std::vector<double> ref, bound; // exact-ish result and its error bound
};

// Error bound of one element: a dot product of length K accumulated in f32
// (with or without FMA) errs by at most K * u * sum|a||b| (u = 2^-24, first
// order); scaling by alpha and adding beta * C cost two more roundings. We
// allow (K + 3) * u on the sum of magnitudes, plus one u on the result.
data_t make_data(const shape_t &s, uint64_t seed) {
    data_t d;
    const dim_t ar = s.ta ? s.K : s.M, ac = s.ta ? s.M : s.K;
    const dim_t br = s.tb ? s.N : s.K, bc = s.tb ? s.K : s.N;
    d.lda = ac + 3;
    d.ldb = bc + 1;
    d.ldc = s.N + 2;
    d.A.assign(ar * d.lda, 0.f);
    d.B.assign(br * d.ldb, 0.f);
    d.C0.assign(s.M * d.ldc, 0.f);
    kt::fill(d.A, seed);
    kt::fill(d.B, seed + 1);
    kt::fill(d.C0, seed + 2);
    if (s.beta == 0.f)
        for (auto &v : d.C0) v = NAN;
    d.ref.assign(s.M * s.N, 0.0);
    d.bound.assign(s.M * s.N, 0.0);
    const double u = std::ldexp(1.0, -24);
    for (dim_t i = 0; i < s.M; ++i)
        for (dim_t j = 0; j < s.N; ++j) {
            double acc = 0, mag = 0;
            for (dim_t k = 0; k < s.K; ++k) {
                double a = s.ta ? d.A[k * d.lda + i] : d.A[i * d.lda + k];
                double b = s.tb ? d.B[j * d.ldb + k] : d.B[k * d.ldb + j];
                acc += a * b;
                mag += std::fabs(a * b);
            }
            double c = s.beta == 0.f ? 0.0 : (double)d.C0[i * d.ldc + j];
            double r = s.alpha * acc + (s.beta == 0.f ? 0.0 : s.beta * c);
            d.ref[i * s.N + j] = r;
            d.bound[i * s.N + j] = (s.K + 3) * u * (std::fabs(s.alpha) * mag + std::fabs(s.beta * c))
                    + u * std::fabs(r) + 1e-30;
        }
    return d;
}

bool matches(const shape_t &s, const data_t &d, const std::vector<float> &C) {
    for (dim_t i = 0; i < s.M; ++i) {
        for (dim_t j = 0; j < s.N; ++j) {
            double got = C[i * d.ldc + j], want = d.ref[i * s.N + j];
            if (!(std::fabs(got - want) <= d.bound[i * s.N + j])) {
                std::fprintf(stderr, "  M=%ld N=%ld K=%ld ta=%d tb=%d at (%ld,%ld): %g vs %g\n",
                        (long)s.M, (long)s.N, (long)s.K, s.ta, s.tb, (long)i, (long)j, got, want);
                return false;
            }
        }
        // Padding columns of C are never touched.
        for (dim_t j = s.N; j < d.ldc; ++j) {
            float was = d.C0[i * d.ldc + j], now = C[i * d.ldc + j];
            if (!(was == now || (std::isnan(was) && std::isnan(now)))) return false;
        }
    }
    return true;
}

// Runs the plan through a private scratchpad buffer.
struct runner_t {
    gemm::plan_t plan;
    scratchpad::registry_t reg;
    std::vector<char> buf;
    status_t init(const shape_t &s, int nthr = 0, const gemm::cache_sizes_t *caches = nullptr) {
        KESTREL_CHECK(caches ? plan.init(*caches, s.M, s.N, s.K, s.ta, s.tb, nthr)
                             : plan.init(s.M, s.N, s.K, s.ta, s.tb, nthr));
        plan.book(reg, 10);
        buf.assign(reg.size() + 64, 0);
        return status::success;
    }
    scratchpad::grantor_t grantor() {
        char *p = buf.data();
        p += (64 - (uintptr_t)p % 64) % 64;
        return scratchpad::grantor_t(&reg, p);
    }
};

// Caches so small (clamped to 8 KB / 64 KB / 1 MB) that KC = 64, MC = 120
// (12-row kernel) and NC is a few hundred: every dimension of the grid's
// larger shapes crosses block edges, and only products of a few KB go direct.
const gemm::cache_sizes_t tiny_caches {8u << 10, 64u << 10, 1u << 20};

// caches: nullptr for the machine's own (small products go direct), else
// the plans' blocking comes from these.
void grid_for_kernel(gemm::kernel_level_t level, const char *label,
        const gemm::cache_sizes_t *caches = nullptr) {
    gemm::set_kernel_level_for_testing(level);
    int n_direct = 0, n_packed = 0;
    bool direct_ok = true;
    const dim_t sizes[] = {1, 2, 5, 16, 17, 31, 33, 64, 100, 257};
    const float ab[][2] = {{1.f, 0.f}, {0.5f, 0.f}, {1.f, 1.f}, {-1.5f, 0.25f}};
    int n_ok = 0, n_all = 0, idx = 0;
    std::string kname;
    for (dim_t M : sizes)
        for (dim_t N : sizes)
            for (dim_t K : sizes) {
                // All K for small M*N; a spread of K for the big ones keeps
                // the run short while still crossing every block edge.
                ++idx;
                if (M * N > 64 * 64 && K != 1 && K != 33 && K != 257) continue;
                const int tr = idx % 4;
                shape_t s {M, N, K, (tr & 1) != 0, (tr & 2) != 0, ab[idx % 4][0], ab[idx % 4][1]};
                data_t d = make_data(s, (uint64_t)idx);
                for (int nthr : {1, 2}) {
                    bool ok = true;
                    kt::with_threads(nthr, [&] {
                        runner_t r;
                        ok = r.init(s, 0, caches) == status::success;
                        kname = r.plan.kernel_name();
                        n_direct += r.plan.direct();
                        // Direct tiles never read a transposed B in place.
                        direct_ok = direct_ok && !(r.plan.direct() && s.tb);
                        std::vector<float> C = d.C0;
                        ok = ok
                                && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda,
                                           d.B.data(), d.ldb, s.beta, C.data(), d.ldc,
                                           r.grantor(), 10)
                                        == status::success;
                        ok = ok && matches(s, d, C);
                        // B packed once beforehand (RNN weights): the
                        // product reads only the packed copy (B is null).
                        if (ok && r.plan.packs_b()) {
                            // 64-byte aligned, as the scratchpad books it.
                            std::vector<float> room(r.plan.packed_b_bytes() / sizeof(float) + 16, NAN);
                            float *bp = room.data() + (64 - (uintptr_t)room.data() % 64) % 64 / sizeof(float);
                            r.plan.pack_b_all(d.B.data(), d.ldb, bp);
                            std::vector<float> C2 = d.C0;
                            ok = r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, nullptr,
                                         d.ldb, s.beta, C2.data(), d.ldc, r.grantor(), 10, nullptr, bp)
                                            == status::success
                                    && matches(s, d, C2);
                            ++n_packed;
                        }
                    });
                    n_ok += ok;
                    ++n_all;
                }
            }
    char what[256];
    std::snprintf(what, sizeof(what),
            "%s (%s, %s caches): %d/%d shapes match the naive product, %d direct, %d also with B packed once",
            label, kname.c_str(), caches ? "tiny" : "host", n_ok, n_all, n_direct, n_packed);
    T.check(n_ok == n_all && direct_ok, what);
    std::snprintf(what, sizeof(what), "%s (%s caches): some products run on B packed once", label,
            caches ? "tiny" : "host");
    T.check(n_packed > 0, what);
    // Kernels with direct tiles take them for the machine's caches (the
    // grid's small shapes fit any L2); the portable one has none.
    if (!caches) {
        std::snprintf(what, sizeof(what), "%s: direct path %s", label,
                level == gemm::kernel_level_t::portable ? "unused" : "used");
        T.check(level == gemm::kernel_level_t::portable ? n_direct == 0 : n_direct > 0, what);
    }
    if (caches) {
        gemm::set_kernel_level_for_testing(gemm::kernel_level_t::best);
        return;
    }
    // All four transpose combinations on one odd shape for this kernel.
    for (int tr = 0; tr < 4; ++tr) {
        shape_t s {37, 45, 300, (tr & 1) != 0, (tr & 2) != 0, 1.f, 0.5f};
        data_t d = make_data(s, 99 + tr);
        runner_t r;
        std::vector<float> C = d.C0;
        bool ok = r.init(s) == status::success
                && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(), d.ldb,
                           s.beta, C.data(), d.ldc, r.grantor(), 10)
                        == status::success
                && matches(s, d, C);
        std::snprintf(what, sizeof(what), "%s: transa=%d transb=%d, K crosses KC", label, tr & 1,
                tr >> 1);
        T.check(ok, what);
    }
    gemm::set_kernel_level_for_testing(gemm::kernel_level_t::best);
}

// The epilogue sees every element of C exactly once, after alpha/beta.
struct counting_epilogue_t : gemm::epilogue_t {
    std::vector<std::atomic<int>> *hits;
    dim_t N;
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const override {
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) {
                (*hits)[(m0 + i) * N + n0 + j]++;
                c[i * ldc + j] = 2.f * c[i * ldc + j] + 1.f;
            }
    }
};

void test_epilogue() {
    // transb: packed; not transb and K = 7: direct tiles.
    for (dim_t K : {0, 7, 600})
        for (int nthr : {1, 2})
            for (bool tb : {true, false}) {
            shape_t s {131, 77, K, false, tb, 1.f, K == 0 ? 0.5f : 0.f};
            data_t d = make_data(s, 7 + K);
            std::vector<std::atomic<int>> hits(s.M * s.N);
            for (auto &h : hits) h = 0;
            counting_epilogue_t ep;
            ep.hits = &hits;
            ep.N = s.N;
            bool ok = true;
            kt::with_threads(nthr, [&] {
                runner_t r;
                std::vector<float> C = d.C0;
                ok = r.init(s) == status::success
                        && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(),
                                   d.ldb, s.beta, C.data(), d.ldc, r.grantor(), 10, &ep)
                                == status::success;
                for (auto &h : hits) ok = ok && h == 1;
                // Undo the epilogue's affine map, then compare.
                for (dim_t i = 0; i < s.M; ++i)
                    for (dim_t j = 0; j < s.N; ++j) C[i * d.ldc + j] = (C[i * d.ldc + j] - 1.f) / 2.f;
                ok = ok && matches(s, d, C);
            });
            char what[120];
            std::snprintf(what, sizeof(what), "epilogue covers C once (K=%ld, transb=%d, %d threads)",
                    (long)K, tb, nthr);
            T.check(ok, what);
        }
}

// The blocking rule on odd, clamped and unknown cache sizes: every block a
// multiple of its unit and inside its range; and two cases worked out by
// hand from the rule stated in gemm.cpp (KC x NR x 4 bytes = 2/3 of L1,
// MC x KC x 4 = L2 / 2, nthr x KC x NC x 4 = L3 / 2, each rounded down;
// with long_kc KC x NR x 4 = L2 / 8 where that is more, MC unchanged).
void test_blocking() {
    const gemm::cache_sizes_t odd[] = {{0, 0, 0}, {7000, 77777, 1234567}, {48u << 10, 1u << 20, 32u << 20},
            {1, 1, 1}, {size_t(1) << 40, size_t(1) << 40, size_t(1) << 40}, {32u << 10, 256u << 10, 0},
            {12345, 3u << 20, 3u << 20}, gemm::host_caches()};
    const dim_t kernels[][2] = {{12, 32}, {6, 16}, {4, 16}};
    int bad = 0, n = 0;
    for (const auto &c : odd)
        for (const auto &k : kernels)
            for (int nthr : {1, 2, 3})
                for (bool long_kc : {false, true}) {
                    const gemm::blocking_t b = gemm::derive_blocking(c, k[0], k[1], nthr, long_kc);
                    ++n;
                    const bool ok = b.kc % 8 == 0 && b.kc >= 64 && b.kc <= (long_kc ? 1024 : 512)
                            && b.mc % k[0] == 0 && b.mc >= k[0] && b.mc <= 1020 && b.nc % k[1] == 0
                            && b.nc >= k[1] && b.nc <= 4096;
                    if (!ok)
                        std::fprintf(stderr,
                                "  caches %zu/%zu/%zu, %ldx%ld, %d thr, long %d: mc %ld nc %ld kc %ld\n",
                                c.l1, c.l2, c.l3, (long)k[0], (long)k[1], nthr, (int)long_kc, (long)b.mc,
                                (long)b.nc, (long)b.kc);
                    bad += !ok;
                }
    char what[120];
    std::snprintf(what, sizeof(what), "blocking from %d cache/kernel/thread combinations in range", n);
    T.check(bad == 0, what);
    // 48 KB / 1 MB / 32 MB, 12x32, 1 thread: KC = 32768 / 128 = 256,
    // MC = 524288 / 1024 = 512 -> 504, NC = 16 M / 1024 = 16384 -> cap 4096.
    gemm::blocking_t b = gemm::derive_blocking({48u << 10, 1u << 20, 32u << 20}, 12, 32, 1);
    T.check(b.kc == 256 && b.mc == 504 && b.nc == 4096, "blocking for Zen 5 caches, 12x32");
    // 32 KB / 256 KB / 8 MB, 6x16, 2 threads: KC = 21845 / 64 = 341 -> 336,
    // MC = 131072 / 1344 = 97 -> 96, NC = 4 M / 2688 = 1560 -> 1552.
    b = gemm::derive_blocking({32u << 10, 256u << 10, 8u << 20}, 6, 16, 2);
    T.check(b.kc == 336 && b.mc == 96 && b.nc == 1552, "blocking for 32K/256K/8M caches, 6x16, 2 threads");
    // long_kc, Zen 5 caches, 12x32: KC = 131072 / 128 = 1024, MC as above
    // (504), NC = 16 M / 4096 = 4096, two threads 2048. 32K/256K/8M, 6x16,
    // 2 threads: KC = 32768 / 64 = 512, MC 96, NC = 4 M / 4096 = 1024; 12x32
    // there: KC = 32768 / 128 = 256 against the L1 rule's 168, MC = 131072 /
    // (168 x 4) = 195 -> 192.
    b = gemm::derive_blocking({48u << 10, 1u << 20, 32u << 20}, 12, 32, 1, true);
    T.check(b.kc == 1024 && b.mc == 504 && b.nc == 4096, "long-K blocking for Zen 5 caches, 12x32");
    b = gemm::derive_blocking({48u << 10, 1u << 20, 32u << 20}, 12, 32, 2, true);
    T.check(b.kc == 1024 && b.mc == 504 && b.nc == 2048,
            "long-K blocking for Zen 5 caches, 12x32, 2 threads");
    b = gemm::derive_blocking({32u << 10, 256u << 10, 8u << 20}, 6, 16, 2, true);
    T.check(b.kc == 512 && b.mc == 96 && b.nc == 1024,
            "long-K blocking for 32K/256K/8M caches, 6x16, 2 threads");
    b = gemm::derive_blocking({32u << 10, 256u << 10, 8u << 20}, 12, 32, 1, true);
    T.check(b.kc == 256 && b.mc == 192, "long-K blocking for 32K/256K/8M caches, 12x32");
    // stream_b (AVX-512 on 256-bit units): KC x NR x 4 = L2 / 16 where that
    // is more than the L1 rule's, up to 512. Zen 4 (32 KB / 1 MB / 32 MB),
    // 12x32, 2 threads: KC = 65536 / 128 = 512 against 168, MC from the L1
    // rule's KC (524288 / 672 = 780), NC = 16 M / 4096 = 4096; long_kc
    // still takes L2 / 8 (1024). 32K/256K/8M: 16384 / 128 = 128 is less
    // than 168, so 168 stays.
    b = gemm::derive_blocking({32u << 10, 1u << 20, 32u << 20}, 12, 32, 2, false, true);
    T.check(b.kc == 512 && b.mc == 780 && b.nc == 4096, "stream-B blocking for Zen 4 caches, 12x32, 2 threads");
    b = gemm::derive_blocking({32u << 10, 1u << 20, 32u << 20}, 12, 32, 2, true, true);
    T.check(b.kc == 1024, "stream-B long-K blocking for Zen 4 caches");
    b = gemm::derive_blocking({32u << 10, 1u << 20, 32u << 20}, 12, 32, 2);
    T.check(b.kc == 168, "blocking for Zen 4 caches without stream-B: the L1 rule");
    b = gemm::derive_blocking({32u << 10, 256u << 10, 8u << 20}, 12, 32, 1, false, true);
    T.check(b.kc == 168, "stream-B blocking for 32K/256K/8M caches: the L1 rule's longer KC");
    // Few columns: KC grows while KC x N (N rounded up to NR) takes at most
    // a quarter of L2, up to 1024, and MC follows (MC x KC x 4 = L2 / 2).
    // 48 KB / 1 MB / 32 MB, 12x32 kernel, N = 64: KC <= 262144 / 256 = 1024;
    // K = 576 is one block, MC = 524288 / 2304 = 227 -> 216. K = 1500:
    // two blocks of 750, MC = 524288 / 3000 = 174 -> 168. N = 40 rounds to
    // 64 as well. N = 300 (KC <= 218): C (4096 x 300) outgrows L2, so the
    // long-K rule's 1024 applies, K = 1500 two blocks of 750 (MC 168).
    // C within L2 (128 x 2048) keeps KC = 256 (and M = 128 one block of
    // 132); C beyond it (128 x 4096) takes K = 2048 in two blocks of 1024,
    // MC = 524288 / 4096 = 128 -> 120, and M = 128 is still one row block
    // of 132, not 120 and 8; M = 300 is cut at 120.
    if (isa::has(isa::avx512)) {
        const gemm::cache_sizes_t zen5 {48u << 10, 1u << 20, 32u << 20};
        gemm::set_kernel_level_for_testing(gemm::kernel_level_t::avx512);
        struct {
            dim_t M, N, K, kc, mc;
        } fc[] = {{4096, 64, 576, 576, 216}, {4096, 40, 1500, 750, 168}, {4096, 300, 1500, 750, 168},
                {128, 2048, 2048, 256, 132}, {128, 4096, 2048, 1024, 132}, {300, 4096, 2048, 1024, 120}};
        for (const auto &f : fc) {
            gemm::plan_t q;
            // Transposed A: a row-major one with these few columns goes
            // direct (test_few_columns_direct).
            const bool okq = q.init(zen5, f.M, f.N, f.K, true, false, 1) == status::success && !q.direct()
                    && !q.skinny() && q.kc() == f.kc && q.mc() == f.mc;
            std::snprintf(what, sizeof(what), "plan blocking, M=%ld N=%ld K=%ld: KC %ld (%ld), MC %ld (%ld)",
                    (long)f.M, (long)f.N, (long)f.K, (long)q.kc(), (long)f.kc, (long)q.mc(), (long)f.mc);
            T.check(okq, what);
        }
        // The same caches on a core with AVX-512 on 256-bit units: the
        // plan streams B (KC 512: K = 2048 in four blocks of 512, MC =
        // 524288 / 2048 = 256 -> 252); with the AVX2 kernel it does not.
        gemm::cache_sizes_t zen4 {32u << 10, 1u << 20, 32u << 20};
        zen4.zmm_half = true;
        gemm::plan_t q;
        bool okz = q.init(zen4, 128, 2048, 2048, true, false, 1) == status::success && q.kc() == 512
                && q.mc() == 132;
        okz = okz && q.init(zen4, 512, 512, 512, true, false, 1) == status::success && q.kc() == 512
                && q.mc() == 252;
        std::snprintf(what, sizeof(what), "plan blocking with stream-B: KC %ld, MC %ld", (long)q.kc(), (long)q.mc());
        T.check(okz, what);
        gemm::set_kernel_level_for_testing(gemm::kernel_level_t::avx2);
        okz = q.init(zen4, 512, 512, 512, true, false, 1) == status::success && q.kc() != 512;
        T.check(okz, "plan blocking with stream-B: not for the AVX2 kernel");
        gemm::set_kernel_level_for_testing(gemm::kernel_level_t::best);
    }
    const gemm::cache_sizes_t &h = gemm::host_caches();
    std::printf("  host caches: L1 %zu, L2 %zu, L3 %zu bytes\n", h.l1, h.l2, h.l3);
    // Plans built on the tiny caches use the tiny blocks.
    gemm::plan_t p;
    bool ok = p.init(tiny_caches, 1000, 1000, 1000, false, false, 1) == status::success;
    // C (4 MB) is beyond the tiny L2: the long-K rule (KC 64 for 32-column
    // kernels, 128 for 16-column ones); K = 1000 cut into equal blocks no
    // larger than KC, the A block no taller than the rule's.
    b = gemm::derive_blocking(tiny_caches, p.mr(), p.nr(), 1, true);
    T.check(ok && b.kc <= 128 && p.kc() == div_up(1000, div_up(1000, b.kc)) && p.mc() <= b.mc
                    && p.mc() % p.mr() == 0 && p.nc() <= b.nc && !p.direct(),
            "plan on tiny caches: the tiny blocks, packed");
    // The B block of the product's own KC within a quarter of L3: Zen 5
    // caches, one thread, 2048 x 4096 x 2048 (long-K rule, KC 1024): NC =
    // 8 M / 4096 = 2048 where the blocking rule alone gives 4096; K = 64
    // (KC 64) keeps the rule's 4096.
    {
        const gemm::cache_sizes_t zen5 {48u << 10, 1u << 20, 32u << 20};
        gemm::plan_t q;
        const bool ok1 = q.init(zen5, 2048, 4096, 2048, false, false, 1) == status::success && q.kc() == 1024
                && q.nc() == 2048;
        std::snprintf(what, sizeof(what), "plan NC within a quarter of L3 at KC 1024: NC %ld", (long)q.nc());
        T.check(ok1, what);
        const bool ok2 = q.init(zen5, 2048, 4096, 64, false, false, 1) == status::success && q.kc() == 64
                && q.nc() == 4096;
        std::snprintf(what, sizeof(what), "plan NC of the blocking rule at K = 64: NC %ld", (long)q.nc());
        T.check(ok2, what);
    }
}

// Runs f(level) under each f32 kernel level this machine has, then
// restores the best.
template <typename F>
void for_each_level(F f) {
    const gemm::kernel_level_t levels[] = {gemm::kernel_level_t::portable, gemm::kernel_level_t::avx2,
            gemm::kernel_level_t::avx512};
    for (gemm::kernel_level_t level : levels) {
        if ((level == gemm::kernel_level_t::avx2 && !isa::has(isa::avx2))
                || (level == gemm::kernel_level_t::avx512 && !isa::has(isa::avx512)))
            continue;
        gemm::set_kernel_level_for_testing(level);
        f((int)level);
    }
    gemm::set_kernel_level_for_testing(gemm::kernel_level_t::best);
}

// Plans s on `caches` with nthr threads, runs it on d's operands and
// compares with the naive product; inspect(plan) sees the plan.
template <typename F>
bool run_on_caches(const shape_t &s, const data_t &d, const gemm::cache_sizes_t &caches, int nthr, F inspect) {
    bool ok = true;
    kt::with_threads(nthr, [&] {
        runner_t r;
        std::vector<float> C = d.C0;
        ok = r.init(s, 0, &caches) == status::success
                && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(), d.ldb, s.beta,
                           C.data(), d.ldc, r.grantor(), 10)
                        == status::success
                && matches(s, d, C);
        inspect(r.plan);
    });
    return ok;
}

// Few columns with K cut into long blocks (32 KB / 256 KB / 8 MB caches,
// N = 20: KC <= 65536 / (32 x 4) = 512 against the rule's 168 or 336, so
// K = 1100 runs as three blocks of 367, 367, 366): a row tail (301 is no
// multiple of 4, 6 or 12), a column tail, beta != 0, both orientations of
// A, each kernel, 1 and 2 threads, against the naive product.
void test_few_columns() {
    const gemm::cache_sizes_t small {32u << 10, 256u << 10, 8u << 20};
    for_each_level([&](int level) {
        for (bool ta : {false, true}) {
            shape_t s {301, 20, 1100, ta, false, 1.f, 0.5f};
            data_t d = make_data(s, 4242 + ta);
            for (int nthr : {1, 2}) {
                dim_t kc = 0;
                const bool ok = run_on_caches(s, d, small, nthr, [&](const gemm::plan_t &p) { kc = p.kc(); });
                char what[160];
                std::snprintf(what, sizeof(what), "few columns, level %d, ta=%d, %d thr: KC %ld, matches",
                        level, ta, nthr, (long)kc);
                T.check(ok && kc == 367, what);
            }
        }
    });
}

// The long-K rule against the naive product (8 KB / 256 KB / 1 MB caches:
// the L1 rule's KC is 64 or 80, an eighth of L2 is 256 for 32-column
// kernels and 512 for 16-column ones). C of 301 x 257 outgrows L2: K = 700
// runs in blocks of 234 or 350, the A block shortened to fit (132 rows for
// the 12-row kernel: 132 + 132 + 37) and the per-thread B blocks of the
// two-thread grid; C of 100 x 257 stays in L2 and keeps the L1 rule's KC.
// Every transpose combination, beta 0 and not, 1 and 2 threads.
void test_long_k() {
    const gemm::cache_sizes_t mid {8u << 10, 256u << 10, 1u << 20};
    for_each_level([&](int level) {
        for (dim_t M : {301, 100})
            for (int tr = 0; tr < 4; ++tr) {
                shape_t s {M, 257, 700, (tr & 1) != 0, (tr & 2) != 0, tr == 3 ? -0.5f : 1.f,
                        tr % 2 ? 0.75f : 0.f};
                data_t d = make_data(s, 5150 + 10 * (uint64_t)M + tr);
                for (int nthr : {1, 2}) {
                    dim_t kc = 0, want = 0;
                    bool packed = false;
                    const bool ok = run_on_caches(s, d, mid, nthr, [&](const gemm::plan_t &p) {
                        kc = p.kc();
                        packed = !p.direct() && !p.skinny();
                        // The rule worked out here: 256 KB / 8 / (NR x 4) for
                        // C beyond L2, else 2/3 of 8 KB / (NR x 4) rounded
                        // down to 8 and at least 64; K cut in equal blocks.
                        const dim_t nr = p.nr();
                        const bool beyond = M * 257 * 4 > (256 << 10);
                        const dim_t l1_kc = std::max<dim_t>(64, (8192 * 2 / 3) / (nr * 4) / 8 * 8);
                        const dim_t rule
                                = beyond ? std::max(l1_kc, (dim_t)(262144 / 8 / (nr * 4))) : l1_kc;
                        want = div_up(700, div_up(700, rule));
                    });
                    char what[160];
                    std::snprintf(what, sizeof(what),
                            "long K, level %d, %ld x 257 x 700, ta=%d tb=%d, %d thr: KC %ld (%ld), matches",
                            level, (long)M, s.ta, s.tb, nthr, (long)kc, (long)want);
                    T.check(ok && packed && kc == want, what);
                }
            }
    });
}

// Tiles walking C a row of tiles at a time (one K block, a thread's C
// beyond L2, the B block within it; 8 KB / 256 KB / 1 MB caches): 301 x
// 257 and 601 x 257 with K = 60 and 50 (under every kernel's KC of 64 or
// 80), against the naive product, each kernel, every transpose, 1 and 2
// threads; 100 x 257 (C within L2) and K = 700 (several K blocks) keep
// the column order.
void test_c_rows() {
    const gemm::cache_sizes_t mid {8u << 10, 256u << 10, 1u << 20};
    struct {
        dim_t M, K;
        bool rows; // expected with one thread
    } cases[] = {{301, 60, true}, {601, 50, true}, {100, 60, false}, {301, 700, false}};
    for_each_level([&](int level) {
        for (const auto &cs : cases)
            for (int tr = 0; tr < 4; ++tr) {
                shape_t s {cs.M, 257, cs.K, (tr & 1) != 0, (tr & 2) != 0, tr == 2 ? 2.f : 1.f,
                        tr % 2 ? -1.f : 0.f};
                data_t d = make_data(s, 7100 + 10 * (uint64_t)cs.M + cs.K + tr);
                for (int nthr : {1, 2}) {
                    bool rows = false;
                    const bool ok
                            = run_on_caches(s, d, mid, nthr, [&](const gemm::plan_t &p) { rows = p.c_rows(); });
                    char what[160];
                    std::snprintf(what, sizeof(what),
                            "C by rows, level %d, %ld x 257 x %ld, ta=%d tb=%d, %d thr: rows %d, matches",
                            level, (long)cs.M, (long)cs.K, s.ta, s.tb, nthr, (int)rows);
                    T.check(ok && (nthr > 1 || rows == cs.rows) && (cs.rows || !rows), what);
                }
            }
    });
}

// Packing tiles (ukernel_t::packing) on their own: every height, column
// tails, k from 0 to past the rows fetched ahead, alpha and beta (0 over
// NaN), B rows misaligned (ldb = NR + 5), a next panel to fetch or none,
// against a naive double tile;
// the packed panel holds B's columns and zeros past nr, and nothing of C
// outside the tile changes.
void test_packing_tile_kernel(gemm::kernel_level_t level, const char *label) {
    gemm::set_kernel_level_for_testing(level);
    const gemm::ukernel_t *uk = gemm::f32_kernel();
    gemm::set_kernel_level_for_testing(gemm::kernel_level_t::best);
    char what[160];
    std::snprintf(what, sizeof(what), "the %s kernel has packing tiles", label);
    T.check(uk && uk->packing[1], what);
    if (!uk || !uk->packing[1]) return;
    const int MR = uk->mr, NR = uk->nr;
    const dim_t ldb = NR + 5, ldc = NR + 3;
    const double u = std::ldexp(1.0, -24);
    int n_ok = 0, n_all = 0;
    uint64_t seed = 300;
    for (int mr = 1; mr <= MR; ++mr)
        for (int nr : {1, NR / 2 - 1, NR / 2, NR / 2 + 1, NR - 1, NR})
            for (dim_t k : {0, 1, 9, 40})
                for (int ab = 0; ab < 2; ++ab) {
                    const float alpha = ab ? -1.5f : 1.f, beta = ab ? 0.5f : 0.f;
                    std::vector<float> a(k * MR + 1), b(k * ldb + 1), pb(k * NR + 1, NAN), c(MR * ldc);
                    kt::fill(a, ++seed);
                    kt::fill(b, ++seed);
                    kt::fill(c, ++seed);
                    if (beta == 0.f)
                        for (int i = 0; i < mr; ++i)
                            for (int j = 0; j < nr; ++j) c[i * ldc + j] = NAN;
                    const std::vector<float> c0 = c;
                    // bnext: another buffer of the same rows, only fetched.
                    std::vector<float> nx(k * ldb + 1, 7.f);
                    uk->packing[mr](k, alpha, a.data(), b.data(), ldb, pb.data(), ab ? nx.data() : nullptr, beta,
                            c.data(), ldc, nr);
                    bool ok = true;
                    for (int i = 0; i < MR; ++i)
                        for (dim_t j = 0; j < ldc; ++j) {
                            const float got = c[i * ldc + j], was = c0[i * ldc + j];
                            if (i >= mr || j >= nr) { // outside the tile
                                ok = ok && (got == was || (std::isnan(got) && std::isnan(was)));
                                continue;
                            }
                            double acc = 0, mag = 0;
                            for (dim_t p = 0; p < k; ++p) {
                                acc += (double)a[p * MR + i] * b[p * ldb + j];
                                mag += std::fabs((double)a[p * MR + i] * b[p * ldb + j]);
                            }
                            const double cv = beta == 0.f ? 0.0 : (double)was;
                            const double want = alpha * acc + beta * cv;
                            const double bound = (k + 3) * u * (std::fabs(alpha) * mag + std::fabs(beta * cv))
                                    + u * std::fabs(want) + 1e-30;
                            ok = ok && std::fabs(got - want) <= bound;
                        }
                    for (dim_t p = 0; p < k; ++p)
                        for (int j = 0; j < NR; ++j)
                            ok = ok && pb[p * NR + j] == (j < nr ? b[p * ldb + j] : 0.f);
                    ok = ok && std::isnan(pb[k * NR]); // nothing past the panel
                    if (!ok)
                        std::fprintf(stderr, "  packing tile mr=%d nr=%d k=%ld alpha=%g beta=%g\n", mr, nr,
                                (long)k, alpha, beta);
                    n_ok += ok;
                    ++n_all;
                }
    std::snprintf(what, sizeof(what), "%s packing tiles: %d/%d (height, columns, k, alpha/beta) match", label,
            n_ok, n_all);
    T.check(n_ok == n_all, what);
}

// Packing tiles in the loop nest: row-major B (both orientations of A),
// rows 9 to 13 (the first tile's heights), 25, 100 and 301 (several A
// blocks under the tiny caches' MC, the later ones reading panels the
// first packed), columns with tails and across the tiny caches' NC, K
// across KC, 1 and 2 threads (K split at 9 x 33 x 513), host and tiny
// caches, each kernel, against the naive product. Plans pack in the tiles
// under the AVX2 and AVX-512 kernels (some do), never the portable one.
void test_packing_tiles() {
    const struct {
        dim_t M, N, K;
    } shapes[] = {{9, 33, 513}, {10, 31, 64}, {11, 700, 64}, {12, 33, 1}, {13, 700, 513}, {25, 31, 513},
            {100, 700, 513}, {301, 33, 513}, {301, 700, 64}};
    for_each_level([&](int level) {
        int n_ok = 0, n_all = 0, n_tiles = 0;
        for (const gemm::cache_sizes_t *caches : {(const gemm::cache_sizes_t *)nullptr, &tiny_caches})
            for (const auto &sh : shapes)
                for (bool ta : {false, true}) {
                    shape_t s {sh.M, sh.N, sh.K, ta, false, ta ? 0.5f : 1.f, ta ? 1.f : 0.f};
                    data_t d = make_data(s, 8800 + (uint64_t)(sh.M * 7 + sh.N * 3 + sh.K) + ta);
                    for (int nthr : {1, 2}) {
                        bool in_tiles = false;
                        const bool ok = run_on_caches(s, d, caches ? *caches : gemm::host_caches(), nthr,
                                [&](const gemm::plan_t &p) { in_tiles = p.packs_b_in_tiles(); });
                        n_ok += ok && (!in_tiles || level != (int)gemm::kernel_level_t::portable);
                        n_tiles += in_tiles;
                        ++n_all;
                    }
                }
        char what[160];
        std::snprintf(what, sizeof(what), "packing tiles in plans, level %d: %d/%d match, %d pack in the tiles",
                level, n_ok, n_all, n_tiles);
        T.check(n_ok == n_all && (level == (int)gemm::kernel_level_t::portable || n_tiles > 0), what);
    });
}

// Plans s on `caches` with nthr threads and runs it with the counting
// epilogue: true when every element of C saw the epilogue once and C (the
// epilogue's map undone) matches the naive product. inspect(plan) after.
template <typename F>
bool run_with_epilogue(const shape_t &s, const data_t &d, const gemm::cache_sizes_t &caches, int nthr, F inspect) {
    bool ok = true;
    std::vector<std::atomic<int>> hits(s.M * s.N);
    for (auto &h : hits) h = 0;
    counting_epilogue_t ep;
    ep.hits = &hits;
    ep.N = s.N;
    kt::with_threads(nthr, [&] {
        runner_t r;
        std::vector<float> C = d.C0;
        ok = r.init(s, 0, &caches) == status::success
                && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(), d.ldb, s.beta,
                           C.data(), d.ldc, r.grantor(), 10, &ep)
                        == status::success;
        for (auto &h : hits) ok = ok && h == 1;
        for (dim_t i = 0; i < s.M; ++i)
            for (dim_t j = 0; j < s.N; ++j) C[i * d.ldc + j] = (C[i * d.ldc + j] - 1.f) / 2.f;
        ok = ok && matches(s, d, C);
        inspect(r.plan);
    });
    return ok;
}

// Two threads splitting only the columns of C share op(A) when it takes
// 1-2 MB packed and op(B) is row-major: each packs an equal part of it (all
// of K) before the products, and the tiles read the parts. 13 x 50 x 17000
// shares it with every kernel (a 1 x 2 grid: 2, 3 or 4 row tiles against
// 2-4 column panels; parts of 12 + 1 or 8 + 5 rows; op(A) 1.1-1.6 MB
// packed); 150 x 100 x 700 (a 2 x 1 grid) and 60 x 250 x 1100 (1 x 2, op(A)
// under 1 MB) split the same way but pack per thread. K in several KC blocks
// (32 KB / 256 KB / 8 MB caches: KC <= 168 or 336, products of more than
// 128 KB packed), both orientations of B with each kernel, A transposed
// with the AVX2 one
// (a transposed B with few rows takes run_block's per-panel path), beta 0
// over NaN and beta != 0, each kernel, 1 and 2 threads, against the naive
// product.
void test_shared_operand() {
    // These shapes' K is deep enough for the K split (test_k_split).
    const bool was = gemm::set_k_split_for_testing(false);
    const gemm::cache_sizes_t small {32u << 10, 256u << 10, 8u << 20};
    const dim_t shapes[][3] = {{150, 100, 700}, {60, 250, 1100}, {13, 50, 17000}};
    int idx = 0;
    for_each_level([&](int level) {
        for (const auto &mn : shapes)
            // tb both ways; A transposed at the AVX2 level only (the row-major
            // A goes through each ISA's transposing pack).
            for (int tr = level == (int)gemm::kernel_level_t::avx2; tr < 4; tr += 2) {
                ++idx;
                shape_t s {mn[0], mn[1], mn[2], (tr & 1) != 0, (tr & 2) != 0, tr < 2 ? 1.f : -1.5f,
                        tr < 2 ? 0.f : 0.25f};
                data_t d = make_data(s, 7000 + (uint64_t)idx);
                for (int nthr : {1, 2}) {
                    bool ok = true;
                    int used = 0;
                    bool direct = true;
                    kt::with_threads(nthr, [&] {
                        runner_t r;
                        std::vector<float> C = d.C0;
                        ok = r.init(s, 0, &small) == status::success
                                && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(),
                                           d.ldb, s.beta, C.data(), d.ldc, r.grantor(), 10)
                                        == status::success
                                && matches(s, d, C);
                        used = r.plan.nthr();
                        direct = r.plan.direct() || r.plan.skinny();
                    });
                    char what[160];
                    std::snprintf(what, sizeof(what),
                            "shared operand, level %d, %ldx%ldx%ld ta=%d tb=%d, %d thr: packed, %d threads, matches",
                            level, (long)s.M, (long)s.N, (long)s.K, s.ta, s.tb, nthr, used);
                    T.check(ok && !direct && used == nthr, what);
                }
            }
    });
    gemm::set_k_split_for_testing(was);
}

// K much deeper than C is wide or tall (K >= 2 x threads x max(M, N)), C
// within L2: two threads split K, thread 0 into C, thread 1 into a partial
// C, then each adds the partial into half of C's rows and runs the
// epilogue there. Parts of K in several KC blocks and a K that is no
// multiple of 8 (2001: parts 1000 and 1001), M and N tails (150 = 12 x 12
// + 6, 100 = 3 x 32 + 4, 37, 45), both orientations of A and B, beta 0
// over NaN and beta != 0, each kernel, the epilogue once per element; with
// one thread the same plans do not split, with three the two deeper ones
// split in three parts. And on B packed beforehand.
void test_k_split() {
    const gemm::cache_sizes_t small {32u << 10, 256u << 10, 8u << 20};
    const dim_t shapes[][3] = {{150, 100, 700}, {13, 50, 17000}, {37, 45, 2001}};
    int idx = 0;
    for_each_level([&](int level) {
        for (const auto &mnk : shapes)
            for (int tr = 0; tr < 4; ++tr) {
                ++idx;
                shape_t s {mnk[0], mnk[1], mnk[2], (tr & 1) != 0, (tr & 2) != 0, tr < 2 ? 1.f : -1.5f,
                        tr % 2 ? 0.25f : 0.f};
                data_t d = make_data(s, 9000 + (uint64_t)idx);
                for (int nthr : {1, 2, 3}) {
                    bool split = false, ok = false;
                    int used = 0; // threads the plan runs
                    // An arena of nthr: 3 threads on a 2-core machine too.
                    tbb::task_arena arena(nthr);
                    arena.execute([&] {
                        ok = run_with_epilogue(s, d, small, nthr, [&](const gemm::plan_t &p) {
                            split = p.k_split();
                            used = p.nthr();
                        });
                    });
                    char what[200];
                    std::snprintf(what, sizeof(what),
                            "K split, level %d, %ldx%ldx%ld ta=%d tb=%d beta=%g, %d thr (%d used): %s, matches, "
                            "epilogue once",
                            level, (long)s.M, (long)s.N, (long)s.K, s.ta, s.tb, s.beta, nthr, used,
                            split ? "split" : "not split");
                    const bool want = used > 1 && s.K >= 2 * used * std::max(s.M, s.N);
                    T.check(ok && split == want, what);
                }
                // B packed beforehand (matmul weights in format `any`): a
                // plan for it books only the partial C, the split reads its
                // part of every panel in place.
                bool ok = true, split = false;
                kt::with_threads(2, [&] {
                    gemm::plan_t plan;
                    scratchpad::registry_t reg;
                    ok = plan.init_prepacked_b(s.M, s.N, s.K, s.ta, s.tb) == status::success;
                    plan.book(reg, 10, true);
                    std::vector<char> buf(reg.size() + 64, 0);
                    char *p = buf.data() + (64 - (uintptr_t)buf.data() % 64) % 64;
                    std::vector<float> room(plan.packed_b_bytes() / sizeof(float) + 16, NAN);
                    float *bp = room.data() + (64 - (uintptr_t)room.data() % 64) % 64 / sizeof(float);
                    plan.pack_b_all(d.B.data(), d.ldb, bp);
                    std::vector<float> C = d.C0;
                    ok = ok
                            && plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, nullptr, d.ldb, s.beta,
                                       C.data(), d.ldc, scratchpad::grantor_t(&reg, p), 10, nullptr, bp)
                                    == status::success
                            && matches(s, d, C);
                    split = plan.k_split();
                });
                char what[200];
                std::snprintf(what, sizeof(what),
                        "K split on B packed beforehand, level %d, %ldx%ldx%ld ta=%d tb=%d, 2 thr: split, matches",
                        level, (long)s.M, (long)s.N, (long)s.K, s.ta, s.tb);
                T.check(ok && split, what);
            }
    });
}

// Few columns, row-major A, any M: direct tiles (no packing) while B fits
// in half of L2, walking each row tile across the one or two panels. Given
// caches (L2 = 1 MB, so B up to 512 KB): M tails (1501 = 125 x 12 + 1,
// 997, 700), column tails (33, 17, 50), N = 2 x NR exactly, alpha/beta with
// beta 0 over NaN, 1 and 2 threads, the epilogue once per element. Shapes
// that stay packed: transposed A, B over half of L2, more than two panels,
// and the portable kernel (no direct tiles).
void test_few_columns_direct() {
    const gemm::cache_sizes_t zen5 {48u << 10, 1u << 20, 32u << 20};
    const shape_t shapes[] = {{700, 64, 300, false, false, 1.f, 0.f}, {1501, 33, 257, false, false, 0.5f, 0.25f},
            {997, 17, 100, false, false, -1.5f, 1.f}, {500, 50, 300, true, false, 1.f, 0.f},
            {100, 40, 4000, false, false, 1.f, 0.5f}, {700, 100, 200, false, false, 2.f, 0.f}};
    for_each_level([&](int level) {
        int n_direct = 0;
        for (const shape_t &s : shapes) {
            data_t d = make_data(s, 5000 + s.M);
            for (int nthr : {1, 2}) {
                bool direct = false, want = false;
                const bool ok = run_with_epilogue(s, d, zen5, nthr, [&](const gemm::plan_t &p) {
                    direct = p.direct();
                    want = level != (int)gemm::kernel_level_t::portable && !s.ta && s.N <= 2 * p.nr()
                            && s.K * s.N * (dim_t)sizeof(float) <= (512 << 10);
                });
                n_direct += direct;
                char what[200];
                std::snprintf(what, sizeof(what),
                        "few columns, level %d: M=%ld N=%ld K=%ld ta=%d, %d thr: %s as expected, matches, "
                        "epilogue once",
                        level, (long)s.M, (long)s.N, (long)s.K, s.ta, nthr, direct ? "direct" : "packed");
                T.check(ok && direct == want, what);
            }
        }
        if (level != (int)gemm::kernel_level_t::portable) {
            char what[80];
            std::snprintf(what, sizeof(what), "few columns, level %d: some shapes go direct", level);
            T.check(n_direct > 0, what);
        }
    });
}

// execute_st from inside a parallel region: each slot its own buffers.
void test_single_thread_slots() {
    const int batch = 6;
    shape_t s {45, 70, 90, false, false, 1.f, 0.f};
    std::vector<data_t> d;
    for (int b = 0; b < batch; ++b) d.push_back(make_data(s, 300 + b));
    bool ok = true;
    kt::with_threads(2, [&] {
        runner_t r;
        ok = r.init(s, 1) == status::success;
        auto g = r.grantor();
        std::vector<std::vector<float>> C(batch);
        for (int b = 0; b < batch; ++b) C[b] = d[b].C0;
        std::atomic<int> bad {0};
        parallel(g.nthr(), [&](int ithr, int nthr) {
            for (int b = ithr; b < batch; b += nthr)
                if (r.plan.execute_st(s.M, s.N, s.K, s.alpha, d[b].A.data(), d[b].lda,
                            d[b].B.data(), d[b].ldb, s.beta, C[b].data(), d[b].ldc, g, 10, ithr)
                        != status::success)
                    bad++;
        });
        ok = ok && bad == 0;
        for (int b = 0; b < batch; ++b) ok = ok && matches(s, d[b], C[b]);
    });
    T.check(ok, "execute_st per thread slot inside parallel()");
}

// Skinny shapes (at most 8 rows or 8 columns) skip packing; k longer than
// the dot kernel's 512-step block, column tails of the 16-wide vectors, of
// the 256-column chunk and of the dot kernel's groups (701 x 1: 4 columns
// a group, one left), every transpose, strided C (N small is solved
// transposed), and the epilogue over the skinny path.
void test_skinny(gemm::kernel_level_t level, const char *label) {
    gemm::set_kernel_level_for_testing(level);
    const dim_t shapes[][2] = {{1, 4096}, {1, 300}, {3, 47}, {8, 33}, {2, 1}, {700, 1},
            {701, 1}, {300, 5}, {64, 8}, {1, 1}, {9, 40}};
    int n_ok = 0, n_all = 0, n_skinny = 0, idx = 0;
    for (const auto &mn : shapes)
        for (dim_t K : {0, 1, 513, 1100})
            for (int tr = 0; tr < 4; ++tr) {
                ++idx;
                if (mn[0] * mn[1] * K > 2000000 && tr != 0) continue;
                shape_t s {mn[0], mn[1], K, (tr & 1) != 0, (tr & 2) != 0, idx % 2 ? 1.f : -0.5f,
                        idx % 3 ? 0.f : 0.75f};
                data_t d = make_data(s, 1000 + (uint64_t)idx);
                for (int nthr : {1, 2}) {
                    bool ok = true;
                    kt::with_threads(nthr, [&] {
                        runner_t r;
                        ok = r.init(s) == status::success;
                        const bool want = mn[0] <= 8 || mn[1] <= 8;
                        const bool is = std::strstr(r.plan.kernel_name(), "skinny") != nullptr;
                        n_skinny += is;
                        ok = ok && (is == want || level == gemm::kernel_level_t::avx2);
                        std::vector<float> C = d.C0;
                        ok = ok
                                && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda,
                                           d.B.data(), d.ldb, s.beta, C.data(), d.ldc,
                                           r.grantor(), 10)
                                        == status::success;
                        ok = ok && matches(s, d, C);
                    });
                    n_ok += ok;
                    ++n_all;
                }
            }
    char what[160];
    std::snprintf(what, sizeof(what), "%s skinny shapes: %d/%d match (%d via the skinny kernel)",
            label, n_ok, n_all, n_skinny);
    T.check(n_ok == n_all && (n_skinny > 0 || level == gemm::kernel_level_t::avx2), what);
    // The epilogue sees each element once on both orientations.
    for (const auto &mn : {std::pair<dim_t, dim_t> {5, 77}, {131, 3}}) {
        shape_t s {mn.first, mn.second, 600, false, false, 1.f, 0.f};
        data_t d = make_data(s, 77);
        std::vector<std::atomic<int>> hits(s.M * s.N);
        for (auto &h : hits) h = 0;
        counting_epilogue_t ep;
        ep.hits = &hits;
        ep.N = s.N;
        bool ok = true;
        kt::with_threads(2, [&] {
            runner_t r;
            std::vector<float> C = d.C0;
            ok = r.init(s) == status::success
                    && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(), d.ldb,
                               s.beta, C.data(), d.ldc, r.grantor(), 10, &ep)
                            == status::success;
            for (auto &h : hits) ok = ok && h == 1;
            for (dim_t i = 0; i < s.M; ++i)
                for (dim_t j = 0; j < s.N; ++j) C[i * d.ldc + j] = (C[i * d.ldc + j] - 1.f) / 2.f;
            ok = ok && matches(s, d, C);
        });
        std::snprintf(what, sizeof(what), "%s skinny epilogue covers C once (M=%ld N=%ld)", label,
                (long)s.M, (long)s.N);
        T.check(ok, what);
    }
    gemm::set_kernel_level_for_testing(gemm::kernel_level_t::best);
}

// One row (or, transposed, one column) of C over a B larger than a quarter
// of the last-level cache (34 MB here, beyond any L3 slice's quarter): the
// AVX-512 skinny kernel streams whole rows of B
// in 2048-column chunks. Chunk and vector tails (2100 columns), k not a
// multiple of the 4-row step, beta 0 over NaN and beta != 0, strided C (the
// transposed problem); 1 and 2 threads give the same bits.
void test_skinny_long_b() {
    const shape_t shapes[] = {{1, 2100, 4099, false, false, -0.5f, 0.75f},
            {1, 2100, 4099, true, false, 1.f, 0.f}, {2100, 1, 4099, true, false, 1.f, 0.5f}};
    for (const shape_t &s : shapes) {
        data_t d = make_data(s, 4099);
        std::vector<float> C1;
        for (int nthr : {1, 2}) {
            bool ok = true;
            std::vector<float> C = d.C0;
            kt::with_threads(nthr, [&] {
                runner_t r;
                ok = r.init(s) == status::success
                        && r.plan.execute(s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(), d.ldb,
                                   s.beta, C.data(), d.ldc, r.grantor(), 10)
                                == status::success;
            });
            ok = ok && matches(s, d, C);
            if (nthr == 1) C1 = C;
            else ok = ok && std::memcmp(C1.data(), C.data(), C.size() * sizeof(float)) == 0;
            char what[160];
            std::snprintf(what, sizeof(what), "skinny over a long B: M=%ld N=%ld K=%ld ta=%d, %d thr%s",
                    (long)s.M, (long)s.N, (long)s.K, s.ta, nthr, nthr == 2 ? ", same bits as 1" : "");
            T.check(ok, what);
        }
    }
}

void test_runtime_plan() {
    gemm::plan_t plan;
    T.check(plan.init(DNNL_RUNTIME_DIM_VAL, DNNL_RUNTIME_DIM_VAL, DNNL_RUNTIME_DIM_VAL, true, false)
                    == status::success,
            "plan with runtime M, N, K");
    scratchpad::registry_t reg;
    plan.book(reg, 0);
    std::vector<char> buf(reg.size() + 64);
    char *p = buf.data() + (64 - (uintptr_t)buf.data() % 64) % 64;
    scratchpad::grantor_t g(&reg, p);
    bool ok = true;
    for (dim_t n : {3, 200, 700}) {
        shape_t s {n, n / 2 + 1, 2 * n + 1, true, false, 1.f, 0.f};
        data_t d = make_data(s, n);
        std::vector<float> C = d.C0;
        ok = ok
                && plan.execute(s.M, s.N, s.K, 1.f, d.A.data(), d.lda, d.B.data(), d.ldb, 0.f,
                           C.data(), d.ldc, g, 0)
                        == status::success
                && matches(s, d, C);
    }
    T.check(ok, "runtime-dims plan computes several sizes");
    T.check(plan.init(-2, 1, 1, false, false) == status::invalid_arguments, "negative M rejected");
}

void test_sgemm_api() {
    shape_t s {23, 19, 41, true, false, 0.75f, 0.5f};
    data_t d = make_data(s, 5);
    std::vector<float> C = d.C0;
    bool ok = dnnl_sgemm('T', 'n', s.M, s.N, s.K, s.alpha, d.A.data(), d.lda, d.B.data(), d.ldb,
                      s.beta, C.data(), d.ldc)
            == dnnl_success;
    T.check(ok && matches(s, d, C), "dnnl_sgemm row-major with transa");
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {NAN, NAN, NAN, NAN};
    T.check(dnnl_sgemm('N', 'N', 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2) == dnnl_success
                    && c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4,
            "dnnl_sgemm 2x2 identity, beta=0 ignores NaN in C");
    T.check(dnnl_sgemm('X', 'N', 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2) == dnnl_invalid_arguments,
            "bad transa");
    T.check(dnnl_sgemm('N', 'N', 2, 2, 3, 1.f, a, 2, b, 2, 0.f, c, 2) == dnnl_invalid_arguments,
            "lda < K");
    T.check(dnnl_sgemm('N', 'T', 2, 2, 3, 1.f, a, 3, b, 2, 0.f, c, 2) == dnnl_invalid_arguments,
            "ldb < K with transb");
    T.check(dnnl_sgemm('N', 'N', 2, 3, 2, 1.f, a, 2, b, 3, 0.f, c, 2) == dnnl_invalid_arguments,
            "ldc < N");
    T.check(dnnl_sgemm('N', 'N', -1, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2) == dnnl_invalid_arguments,
            "negative M");
    T.check(dnnl_sgemm('N', 'N', 2, 2, 2, 1.f, nullptr, 2, b, 2, 0.f, c, 2) == dnnl_invalid_arguments,
            "NULL A");
    T.check(dnnl_sgemm('N', 'N', 0, 2, 2, 1.f, nullptr, 2, nullptr, 2, 0.f, nullptr, 2) == dnnl_success,
            "M = 0 is a no-op");
    float c2[4] = {1, 1, 1, 1};
    T.check(dnnl_sgemm('N', 'N', 2, 2, 0, 1.f, a, 1, b, 2, 3.f, c2, 2) == dnnl_success && c2[0] == 3.f
                    && c2[3] == 3.f,
            "K = 0 scales C by beta");
}

} // namespace

int main() {
    grid_for_kernel(gemm::kernel_level_t::portable, "portable");
    if (isa::has(isa::avx2)) grid_for_kernel(gemm::kernel_level_t::avx2, "avx2");
    if (isa::has(isa::avx512)) grid_for_kernel(gemm::kernel_level_t::avx512, "avx512");
    grid_for_kernel(gemm::kernel_level_t::portable, "portable", &tiny_caches);
    if (isa::has(isa::avx2)) grid_for_kernel(gemm::kernel_level_t::avx2, "avx2", &tiny_caches);
    if (isa::has(isa::avx512)) grid_for_kernel(gemm::kernel_level_t::avx512, "avx512", &tiny_caches);
    test_blocking();
    test_few_columns();
    test_long_k();
    test_c_rows();
    if (isa::has(isa::avx2)) test_packing_tile_kernel(gemm::kernel_level_t::avx2, "AVX2");
    if (isa::has(isa::avx512)) test_packing_tile_kernel(gemm::kernel_level_t::avx512, "AVX-512");
    test_packing_tiles();
    test_shared_operand();
    test_k_split();
    test_few_columns_direct();
    test_epilogue();
    test_skinny(gemm::kernel_level_t::portable, "portable");
    if (isa::has(isa::avx2)) test_skinny(gemm::kernel_level_t::avx2, "avx2 (packed path)");
    if (isa::has(isa::avx512)) test_skinny(gemm::kernel_level_t::avx512, "avx512");
    test_skinny_long_b();
    test_single_thread_slots();
    test_runtime_plan();
    test_sgemm_api();
    return T.finish();
}
