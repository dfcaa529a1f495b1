// dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32 and the int8 GEMM engine under them,
// against a naive int64 triple loop written here: every microkernel the CPU
// runs (portable, AVX2, AVX-VNNI, AVX512-VNNI) selected through the engine's test cap,
// shapes hitting every M/N/K tail (1, 3, 15, 16, 17, 63, 64, 65, 100, K = 0
// and K not a multiple of 4), all transposes, padded leading dims, every
// offsetc mode, zero points ao/bo, alpha/beta, saturation, 1 and 2 threads,
// the engine on B packed once beforehand (pack_b_all), every row count of a
// short last panel, B wider than a packing strip, A read in place by the
// direct kernel, the C++ wrapper,
// argument errors (C untouched), and, when run under
// ONEDNN_MAX_CPU_ISA (test_gemm_s8_isa.sh), that the cap picks the kernel.
//
// Tolerance: none. The integer part (op(A) - ao)(op(B) - bo) is exact in
// both (values chosen so it fits s32); the library specifies the rest as
// alpha * acc + beta * C + co in double, rounded to nearest even after
// saturation, and the reference does the same operations in the same
// order, so results must be equal bit for bit.
#include <cpuid.h>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <string>
#include <vector>

#include "../common/kt_test.hpp"
#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/isa.hpp"
#include "dnnl.hpp"

using namespace kestrel;

namespace {

kt::tally_t T;

struct case_t {
    bool a_signed;
    bool ta, tb;
    char offsetc;
    dim_t M, N, K;
    float alpha, beta;
    int ao, bo;
};

constexpr int32_t sentinel = 0x5a5a5a5a;

int32_t ref_round(double r) {
    if (std::isnan(r)) return 0;
    if (r <= (double)INT32_MIN) return INT32_MIN;
    if (r >= (double)INT32_MAX) return INT32_MAX;
    return (int32_t)std::nearbyint(r);
}

// Runs one case through the C API (or the C++ wrapper) and compares every
// element of C, including the padding columns that must keep the sentinel.
// lda_pad: bytes past each row of A (0: A's last row ends the buffer).
bool run_case(const case_t &c, uint64_t seed, bool cpp = false, dim_t lda_pad = 3) {
    const dim_t ar = c.ta ? c.K : c.M, ac = c.ta ? c.M : c.K;
    const dim_t br = c.tb ? c.N : c.K, bc = c.tb ? c.K : c.N;
    const dim_t lda = ac + lda_pad, ldb = bc + 1, ldc = c.N + 2;
    std::vector<uint8_t> A((size_t)(ar > 0 ? ar : 1) * lda);
    std::vector<int8_t> B((size_t)(br > 0 ? br : 1) * ldb);
    std::vector<int32_t> C((size_t)c.M * ldc), C0;
    kt::rng_t r(seed);
    for (auto &v : A) v = (uint8_t)r.next();
    for (auto &v : B) v = (int8_t)r.next();
    for (auto &v : C) v = (int32_t)(r.next() % 20001) - 10000;
    for (dim_t i = 0; i < c.M; ++i)
        for (dim_t j = c.N; j < ldc; ++j) C[i * ldc + j] = sentinel;
    if (c.beta == 0.f) // must not be read
        for (dim_t i = 0; i < c.M; ++i)
            for (dim_t j = 0; j < c.N; ++j) C[i * ldc + j] = INT32_MIN;
    C0 = C;
    const dim_t nco = c.offsetc == 'C' || c.offsetc == 'c' ? c.M
            : c.offsetc == 'R' || c.offsetc == 'r'         ? c.N
                                                           : 1;
    std::vector<int32_t> co((size_t)(nco > 0 ? nco : 1));
    for (auto &v : co) v = (int32_t)(r.next() % 2001) - 1000;

    // Reference.
    auto a_at = [&](dim_t i, dim_t p) -> int64_t {
        const uint8_t v = c.ta ? A[p * lda + i] : A[i * lda + p];
        return c.a_signed ? (int64_t)(int8_t)v : (int64_t)v;
    };
    auto b_at = [&](dim_t p, dim_t j) -> int64_t {
        return c.tb ? B[j * ldb + p] : B[p * ldb + j];
    };
    std::vector<int32_t> R = C;
    for (dim_t i = 0; i < c.M; ++i)
        for (dim_t j = 0; j < c.N; ++j) {
            int64_t acc = 0;
            for (dim_t p = 0; p < c.K; ++p) acc += (a_at(i, p) - c.ao) * (b_at(p, j) - c.bo);
            if (acc < INT32_MIN || acc > INT32_MAX) return false; // case outside the test's range
            double v = (double)c.alpha * (double)acc;
            if (c.beta != 0.f) v += (double)c.beta * (double)C0[i * ldc + j];
            const char o = c.offsetc;
            v += (double)(o == 'F' || o == 'f' ? co[0] : o == 'C' || o == 'c' ? co[i] : co[j]);
            R[i * ldc + j] = ref_round(v);
        }

    dnnl_status_t st;
    const char ta = c.ta ? 'T' : 'N', tb = c.tb ? 'T' : 'n';
    if (c.a_signed) {
        const int8_t *As = reinterpret_cast<const int8_t *>(A.data());
        st = cpp ? (dnnl_status_t)dnnl::gemm_s8s8s32(ta, tb, c.offsetc, c.M, c.N, c.K, c.alpha, As,
                           lda, (int8_t)c.ao, B.data(), ldb, (int8_t)c.bo, c.beta, C.data(), ldc,
                           co.data())
                 : dnnl_gemm_s8s8s32(ta, tb, c.offsetc, c.M, c.N, c.K, c.alpha, As, lda,
                           (int8_t)c.ao, B.data(), ldb, (int8_t)c.bo, c.beta, C.data(), ldc,
                           co.data());
    } else {
        st = cpp ? (dnnl_status_t)dnnl::gemm_u8s8s32(ta, tb, c.offsetc, c.M, c.N, c.K, c.alpha,
                           A.data(), lda, (uint8_t)c.ao, B.data(), ldb, (int8_t)c.bo, c.beta,
                           C.data(), ldc, co.data())
                 : dnnl_gemm_u8s8s32(ta, tb, c.offsetc, c.M, c.N, c.K, c.alpha, A.data(), lda,
                           (uint8_t)c.ao, B.data(), ldb, (int8_t)c.bo, c.beta, C.data(), ldc,
                           co.data());
    }
    if (st != dnnl_success) {
        std::fprintf(stderr, "status %d\n", (int)st);
        return false;
    }
    for (size_t k = 0; k < C.size(); ++k)
        if (C[k] != R[k]) {
            std::fprintf(stderr, "  %s %c%c %c M=%ld N=%ld K=%ld alpha=%g beta=%g ao=%d bo=%d: "
                                 "at %zu got %d want %d\n",
                    c.a_signed ? "s8s8" : "u8s8", ta, tb, c.offsetc, (long)c.M, (long)c.N,
                    (long)c.K, c.alpha, c.beta, c.ao, c.bo, k, C[k], R[k]);
            return false;
        }
    return true;
}

const dim_t sizes[] = {1, 3, 15, 16, 17, 63, 64, 65, 100};
const dim_t ksizes[] = {0, 1, 3, 4, 15, 16, 17, 63, 64, 65, 100};
const char offs[] = {'F', 'C', 'R', 'f', 'c', 'r'};
struct ab_t {
    float alpha, beta;
};
const ab_t abs_[] = {{1.f, 0.f}, {1.f, 1.f}, {0.5f, -2.f}, {-1.25f, 0.75f}, {3.f, 0.f}};

// The tails sweep for one kernel and thread count: every M with every K,
// N cycling through the sizes, the other parameters cycling independently.
void sweep(const char *label) {
    int n = 0, bad = 0;
    for (dim_t M : sizes)
        for (dim_t K : ksizes) {
            for (int sgn = 0; sgn < 2; ++sgn) {
                case_t c;
                c.a_signed = sgn;
                c.M = M;
                c.K = K;
                c.N = sizes[(n * 5 + 2) % 9];
                c.ta = n & 1;
                c.tb = (n >> 1) & 1;
                c.offsetc = offs[n % 6];
                c.alpha = abs_[n % 5].alpha;
                c.beta = abs_[n % 5].beta;
                c.ao = n % 3 == 0 ? 0 : (sgn ? (n % 7) - 3 : n % 11);
                c.bo = n % 4 == 0 ? 0 : (n % 5) - 2;
                if (!run_case(c, 1000 + n)) ++bad;
                ++n;
            }
        }
    std::string what = std::string(label) + ": " + std::to_string(n) + " cases, "
            + std::to_string(bad) + " wrong";
    T.check(bad == 0, what.c_str());
}

// Bigger products that cross the cache blocks (several MC/NC blocks and
// threads), and results past s32 that must saturate.
void big_and_saturating(const char *label) {
    bool ok = true;
    ok &= run_case({false, false, false, 'F', 300, 200, 517, 1.f, 0.f, 0, 0}, 7);
    ok &= run_case({true, false, true, 'R', 257, 350, 131, 1.f, 1.f, 3, -2}, 8);
    ok &= run_case({false, true, false, 'C', 129, 97, 1031, 2.f, -1.f, 200, 5}, 9);
    ok &= run_case({true, true, true, 'F', 64, 3100, 20, 1.f, 0.f, 0, 0}, 10);
    // The 8-row AVX-512 transposes of the packing: A panels of 8 rows and
    // a transposed B panel of 15 columns (8 by it, 7 left) over three
    // 64-byte steps of K plus a tail of 8; the plain epilogue's masked tail
    // (N = 111: 48, 48, 15 columns). u8 and s8 A.
    ok &= run_case({false, false, true, 'F', 37, 111, 200, 1.f, 0.f, 0, 0}, 13);
    ok &= run_case({true, false, true, 'F', 37, 111, 200, 1.f, 0.f, 0, 0}, 14);
    ok &= run_case({false, false, false, 'F', 45, 111, 259, 1.f, 0.f, 0, 0}, 15);
    // |alpha * acc| far past 2^31: both signs saturate.
    ok &= run_case({false, false, false, 'F', 17, 33, 65, 1e6f, 0.f, 0, 0}, 11);
    ok &= run_case({true, false, false, 'R', 9, 50, 40, -3e5f, 0.f, -5, 7}, 12);
    T.check(ok, (std::string(label) + ": blocked shapes and saturation").c_str());
}

// A read in place by the AVX512-VNNI direct kernel (u8, untransposed, no
// row sums: bo = 0, K a multiple of 4): full 8-row panels direct, a short
// last panel packed, in one block and over two MC blocks (K = 1028: blocks
// of 192 rows, then 5), a 1 x 2 thread grid (M 40 and 45, N 500: column
// chunks taken from a shared counter, the last one 20 wide), column sums
// for ao, every offsetc mode, beta, N tails, A's last row ending the
// buffer (lda = K), and the neighbours that must not take it (bo != 0,
// K % 4 != 0, s8 A, transposed A). Under other kernels: plain cases.
void direct_a(const char *label) {
    bool ok = true;
    ok &= run_case({false, false, false, 'F', 8, 48, 4, 1.f, 0.f, 0, 0}, 21);
    ok &= run_case({false, false, false, 'F', 29, 111, 256, 1.f, 0.f, 0, 0}, 22);
    ok &= run_case({false, false, true, 'R', 67, 100, 516, 1.f, 1.f, 7, 0}, 23);
    ok &= run_case({false, false, false, 'C', 24, 49, 68, -1.25f, 0.75f, 250, 0}, 24);
    ok &= run_case({false, false, false, 'F', 197, 60, 1028, 1.f, 0.f, 0, 0}, 25);
    ok &= run_case({false, false, true, 'r', 40, 500, 256, 1.f, 0.f, 3, 0}, 26);
    ok &= run_case({false, false, false, 'C', 45, 500, 128, 1.f, 1.f, 0, 0}, 33);
    ok &= run_case({false, false, false, 'F', 17, 50, 64, 1.f, 0.f, 0, 0}, 27, false, 0);
    ok &= run_case({false, false, false, 'F', 16, 50, 64, 1.f, 0.f, 0, 0}, 28, false, 0);
    ok &= run_case({false, false, false, 'F', 24, 50, 64, 1.f, 0.f, 0, -3}, 29);
    ok &= run_case({false, false, false, 'F', 24, 50, 66, 1.f, 0.f, 5, 0}, 30);
    ok &= run_case({true, false, false, 'F', 24, 50, 64, 1.f, 0.f, 0, 0}, 31);
    ok &= run_case({false, true, false, 'F', 24, 50, 64, 1.f, 0.f, 0, 0}, 32);
    T.check(ok, (std::string(label) + ": A read in place (direct kernel) and its neighbours").c_str());
}

// The engine with B packed once beforehand (an RNN's weights at every
// step): its accumulators, row sums and column sums against int64 sums
// written here, over M/N/K tails, both layouts of B, u8 and s8 A, with B
// itself passed as null so only the packed copy can be read.
struct capture_t : gemm::s8_epilogue_t {
    std::vector<int32_t> *acc, *rs, *cs;
    dim_t N;
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *a, dim_t ld, const int32_t *row_sum,
            const int32_t *col_sum) const override {
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) (*acc)[(m0 + i) * N + n0 + j] = a[i * ld + j];
        if (row_sum)
            for (dim_t i = 0; i < m; ++i) (*rs)[m0 + i] = row_sum[i];
        if (col_sum)
            for (dim_t j = 0; j < n; ++j) (*cs)[n0 + j] = col_sum[j];
    }
};

void packed_b(const char *label) {
    int n = 0, bad = 0;
    for (dim_t M : {1, 5, 33})
        for (dim_t N : {1, 17, 100, 1100})
            for (dim_t K : {1, 7, 64, 130})
                for (int v = 0; v < 4; ++v) {
                    const bool tb = v & 1, as = (v >> 1) & 1;
                    const dim_t lda = K + 1, ldb = (tb ? K : N) + 2;
                    kt::rng_t r((uint64_t)(++n * 31 + v));
                    std::vector<uint8_t> A((size_t)(M * lda));
                    std::vector<int8_t> B((size_t)((tb ? N : K) * ldb));
                    for (auto &x : A) x = (uint8_t)r.next();
                    for (auto &x : B) x = (int8_t)r.next();
                    gemm::s8_plan_t plan;
                    bool ok = plan.init(M, N, K, false, tb, as, true, true) == status::success;
                    scratchpad::registry_t reg;
                    plan.book(reg, 0);
                    std::vector<char> buf(reg.size() + 64), pk(plan.packed_b_bytes() + 64);
                    char *pb = buf.data() + (64 - (uintptr_t)buf.data() % 64) % 64;
                    char *pp = pk.data() + (64 - (uintptr_t)pk.data() % 64) % 64;
                    plan.pack_b_all(B.data(), ldb, pp);
                    std::vector<int32_t> acc((size_t)(M * N), sentinel), rs((size_t)M, sentinel),
                            cs((size_t)N, sentinel);
                    capture_t ep;
                    ep.acc = &acc;
                    ep.rs = &rs;
                    ep.cs = &cs;
                    ep.N = N;
                    ok = ok
                            && plan.execute(A.data(), lda, nullptr, ldb, scratchpad::grantor_t(&reg, pb), 0, ep, pp)
                                    == status::success;
                    auto a_at = [&](dim_t i, dim_t p) -> int64_t {
                        const uint8_t x = A[(size_t)(i * lda + p)];
                        return as ? (int64_t)(int8_t)x : (int64_t)x;
                    };
                    auto b_at = [&](dim_t p, dim_t j) -> int64_t {
                        return B[(size_t)(tb ? j * ldb + p : p * ldb + j)];
                    };
                    for (dim_t i = 0; ok && i < M; ++i) {
                        int64_t s = 0;
                        for (dim_t p = 0; p < K; ++p) s += a_at(i, p);
                        ok = rs[(size_t)i] == (int32_t)s;
                        for (dim_t j = 0; ok && j < N; ++j) {
                            int64_t d = 0;
                            for (dim_t p = 0; p < K; ++p) d += a_at(i, p) * b_at(p, j);
                            ok = acc[(size_t)(i * N + j)] == (int32_t)d;
                        }
                    }
                    for (dim_t j = 0; ok && j < N; ++j) {
                        int64_t s = 0;
                        for (dim_t p = 0; p < K; ++p) s += b_at(p, j);
                        ok = cs[(size_t)j] == (int32_t)s;
                    }
                    bad += !ok;
                }
    const std::string what = std::string(label) + ": " + std::to_string(n) + " products on B packed once, "
            + std::to_string(bad) + " wrong";
    T.check(bad == 0 && n > 0, what.c_str());
}

void bad_arguments() {
    uint8_t A[16] = {};
    int8_t B[16] = {};
    int32_t C[16], co[4] = {};
    for (auto &v : C) v = sentinel;
    auto untouched = [&] {
        for (auto v : C)
            if (v != sentinel) return false;
        return true;
    };
    auto u = [&](char ta, char tb, char oc, dim_t M, dim_t N, dim_t K, dim_t lda, dim_t ldb,
                     dim_t ldc, const uint8_t *a, const int8_t *b, int32_t *c, const int32_t *o) {
        return dnnl_gemm_u8s8s32(ta, tb, oc, M, N, K, 1.f, a, lda, 0, b, ldb, 0, 0.f, c, ldc, o);
    };
    auto s = [&](char ta, char tb, char oc, dim_t M, dim_t N, dim_t K, dim_t lda, dim_t ldb,
                     dim_t ldc, const int32_t *o) {
        return dnnl_gemm_s8s8s32(ta, tb, oc, M, N, K, 1.f, reinterpret_cast<const int8_t *>(A),
                lda, 0, B, ldb, 0, 0.f, C, ldc, o);
    };
    const dnnl_status_t inv = dnnl_invalid_arguments;
    bool ok = true;
    ok &= u('X', 'N', 'F', 2, 2, 2, 2, 2, 2, A, B, C, co) == inv;
    ok &= u('N', 'x', 'F', 2, 2, 2, 2, 2, 2, A, B, C, co) == inv;
    ok &= u('N', 'N', 'Z', 2, 2, 2, 2, 2, 2, A, B, C, co) == inv;
    ok &= u('N', 'N', 'F', -1, 2, 2, 2, 2, 2, A, B, C, co) == inv;
    ok &= u('N', 'N', 'F', 2, 2, -3, 2, 2, 2, A, B, C, co) == inv;
    ok &= u('N', 'N', 'F', 2, 2, 3, 2, 2, 2, A, B, C, co) == inv; // lda < K
    ok &= u('T', 'N', 'F', 3, 2, 2, 2, 2, 2, A, B, C, co) == inv; // lda < M
    ok &= u('N', 'N', 'F', 2, 3, 2, 2, 2, 3, A, B, C, co) == inv; // ldb < N
    ok &= u('N', 'T', 'F', 2, 2, 3, 3, 2, 2, A, B, C, co) == inv; // ldb < K
    ok &= u('N', 'N', 'F', 2, 3, 2, 2, 3, 2, A, B, C, co) == inv; // ldc < N
    ok &= u('N', 'N', 'F', 2, 2, 2, 2, 2, 2, nullptr, B, C, co) == inv;
    ok &= u('N', 'N', 'F', 2, 2, 2, 2, 2, 2, A, nullptr, C, co) == inv;
    ok &= u('N', 'N', 'F', 2, 2, 2, 2, 2, 2, A, B, nullptr, co) == inv;
    ok &= u('N', 'N', 'R', 2, 2, 2, 2, 2, 2, A, B, C, nullptr) == inv;
    ok &= s('N', 'N', 'q', 2, 2, 2, 2, 2, 2, co) == inv;
    ok &= s('N', 'N', 'F', 2, 2, 2, 1, 2, 2, co) == inv;
    ok &= s('N', 'N', 'C', 2, 2, 2, 2, 2, 2, nullptr) == inv;
    T.check(ok && untouched(), "bad arguments: invalid_arguments, C untouched");
    // Empty products succeed without touching anything (A, B may be null
    // when K == 0).
    ok = u('N', 'N', 'F', 0, 2, 2, 2, 2, 2, nullptr, nullptr, nullptr, nullptr) == dnnl_success;
    ok &= u('N', 'N', 'F', 2, 0, 2, 2, 1, 1, A, B, C, co) == dnnl_success;
    ok &= untouched();
    // K == 0: C = beta * C + co only.
    C[0] = 10;
    C[1] = -7;
    co[0] = 5;
    ok &= dnnl_gemm_u8s8s32('N', 'N', 'F', 1, 2, 0, 1.f, nullptr, 1, 3, nullptr, 2, 4, 2.f, C, 2,
                  co) == dnnl_success;
    ok &= C[0] == 25 && C[1] == -9 && C[2] == sentinel;
    T.check(ok, "empty products and K == 0");

    // alpha 1, beta 1, no offsets (the integer fast path): sums past s32
    // saturate both ways. 4 * 255 * 127 = 129540 added to C near the ends.
    uint8_t Au[8];
    int8_t Bp[8], Bn[8];
    for (int k = 0; k < 8; ++k) {
        Au[k] = 255;
        Bp[k] = 127;
        Bn[k] = -127;
    }
    int32_t Cs[2] = {INT32_MAX - 100, INT32_MIN + 100}, z = 0;
    ok = dnnl_gemm_u8s8s32('N', 'N', 'F', 1, 1, 4, 1.f, Au, 4, 0, Bp, 1, 0, 1.f, Cs, 1, &z)
            == dnnl_success;
    ok &= dnnl_gemm_u8s8s32('N', 'N', 'F', 1, 1, 4, 1.f, Au, 4, 0, Bn, 1, 0, 1.f, Cs + 1, 1, &z)
            == dnnl_success;
    T.check(ok && Cs[0] == INT32_MAX && Cs[1] == INT32_MIN, "beta 1 saturates");
}

// Every row count of a short last panel (M = 1..17: the AVX512-VNNI kernel
// has a variant per row count, the fewest rows with split k chains, so K
// runs through counts of 4-groups that are not multiples of 2 or 4 and K
// not a multiple of 4), and row-major B wider than one packing strip (~512
// columns) with a partial last panel.
void short_panels_and_wide_b(const char *label) {
    int n = 0, bad = 0;
    const dim_t ks[] = {1, 6, 9, 13, 31, 64, 259};
    for (dim_t M = 1; M <= 17; ++M)
        for (dim_t K : ks) {
            case_t c;
            c.a_signed = (n & 1) != 0;
            c.ta = (n >> 1) & 1;
            c.tb = (n >> 2) & 1;
            c.offsetc = offs[n % 6];
            c.M = M;
            c.N = n % 3 == 0 ? 47 : n % 3 == 1 ? 49 : 97;
            c.K = K;
            c.alpha = 1.f;
            c.beta = n % 4 == 0 ? 1.f : 0.f;
            c.ao = n % 5 == 0 ? 3 : 0;
            c.bo = n % 7 == 0 ? -2 : 0;
            bad += !run_case(c, 5000 + n);
            ++n;
        }
    for (bool tb : {false, true})
        for (dim_t N : {1100, 1537}) {
            bad += !run_case({false, false, tb, 'F', 9, N, 37, 1.f, 0.f, 0, 0}, 6000 + n);
            bad += !run_case({true, true, tb, 'C', 2, N, 70, 1.f, 1.f, 0, 1}, 6100 + n);
            n += 2;
        }
    const std::string what = std::string(label) + ": " + std::to_string(n) + " short-panel and wide-B cases, "
            + std::to_string(bad) + " wrong";
    T.check(bad == 0 && n > 0, what.c_str());
}

// Under ONEDNN_MAX_CPU_ISA the engine must pick the kernel the cap allows.
void isa_cap() {
    const char *cap = std::getenv("ONEDNN_MAX_CPU_ISA");
    gemm::s8_plan_t p;
    KT_OK((dnnl_status_t)p.init(64, 64, 64, false, false, false, false, false));
    const std::string k = p.kernel_name();
    __builtin_cpu_init();
    const bool hw_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    const bool hw_vnni = __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    // AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4, read here independently.
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_max(0, nullptr) >= 7) __cpuid_count(7, 1, a, b, c, d);
    const bool hw_avxvnni = hw_avx2 && ((a >> 4) & 1u);
    const char *plain = hw_avx2 ? "__avx2" : "__portable";
    std::string want;
    if (!cap)
        want = hw_vnni ? "__avx512vnni" : hw_avxvnni ? "__avxvnni" : plain;
    else if (!strcasecmp(cap, "SSE41"))
        want = "__portable";
    else if (!strcasecmp(cap, "AVX2") || !strcasecmp(cap, "AVX512_CORE"))
        want = plain; // neither cap includes a VNNI bit
    else if (!strcasecmp(cap, "AVX2_VNNI"))
        want = hw_avxvnni ? "__avxvnni" : plain;
    else
        want = k; // a cap this test does not know: nothing to assert
    std::printf("int8 kernel under cap %s: %s\n", cap ? cap : "(none)", k.c_str());
    T.check(k.size() >= want.size() && k.compare(k.size() - want.size(), want.size(), want) == 0,
            ("the ISA cap picks " + want).c_str());
}

} // namespace

int main() {
    isa_cap();
    bad_arguments();
    __builtin_cpu_init();
    struct level_t {
        gemm::kernel_level_t l;
        const char *name;
        bool runs;
    } levels[] = {
            {gemm::kernel_level_t::portable, "portable", true},
            {gemm::kernel_level_t::avx2, "avx2", isa::has(isa::avx2)},
            {gemm::kernel_level_t::avx2_vnni, "avxvnni", isa::has_avx2_vnni()},
            {gemm::kernel_level_t::avx512, "avx512vnni", isa::has_avx512_vnni()},
    };
    for (const auto &lv : levels) {
        if (!lv.runs) {
            std::printf("%s kernel: not run (CPU or ISA cap lacks it)\n", lv.name);
            continue;
        }
        gemm::s8_set_kernel_level_for_testing(lv.l);
        for (int nthr : {1, 2})
            kt::with_threads(nthr, [&] {
                const std::string label = std::string(lv.name) + ", " + std::to_string(nthr) + " thr";
                sweep(label.c_str());
                big_and_saturating(label.c_str());
                direct_a(label.c_str());
                packed_b(label.c_str());
                short_panels_and_wide_b(label.c_str());
            });
    }
    gemm::s8_set_kernel_level_for_testing(gemm::kernel_level_t::best);
    T.check(run_case({false, true, false, 'R', 33, 47, 70, 1.f, 1.f, 4, -3}, 77, true)
                    && run_case({true, false, true, 'C', 20, 65, 9, 0.5f, 0.f, -6, 2}, 78, true),
            "C++ wrapper dnnl::gemm_u8s8s32 / gemm_s8s8s32");
    return T.finish();
}
