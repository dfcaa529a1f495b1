// dnnl_sgemm: row-major C = alpha * op(A) * op(B) + beta * C on the GEMM
// engine; dnnl_gemm_u8s8s32 / dnnl_gemm_s8s8s32:
//   C = alpha * (op(A) - ao) * (op(B) - bo) + beta * C + co
// on the int8 engine. They have no primitive descriptor, so each call plans (on the stack),
// books (into a registry kept per thread) and leases its packing buffers
// from the global scratchpad arena (skinny shapes need none); after a
// thread's first call none of this allocates.
#include "api/api.hpp"
#include <cmath>
#include <cstdint>

#include "cpu/gemm/gemm.hpp"
#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/isa.hpp"
#include "scratchpad/arena.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace kestrel;

namespace {

bool trans_flag(char t, bool &trans) {
    if (t == 'N' || t == 'n') {
        trans = false;
        return true;
    }
    if (t == 'T' || t == 't') {
        trans = true;
        return true;
    }
    return false;
}

dim_t at_least_1(dim_t v) { return v > 1 ? v : 1; }

// A thread that calls dnnl_sgemm counts as one user of the arena from its
// first call until it exits. Attaching per call instead made every call
// made while no primitive exists return the packing blocks to the system
// on the way out and allocate (and page-fault) them again on the next one.
// The arena still goes back to the system once the last primitive is
// destroyed and every thread that called dnnl_sgemm has ended.
struct arena_user_t {
    arena_user_t() { scratchpad::arena_t::global().attach(); }
    ~arena_user_t() { scratchpad::arena_t::global().detach(); }
    arena_user_t(const arena_user_t &) = delete;
    arena_user_t &operator=(const arena_user_t &) = delete;
};

void hold_arena_for_this_thread() {
    thread_local arena_user_t user;
    (void)user;
}

// The booking of the current call. It lives per thread (calls on other
// threads book their own) and keeps its storage between calls, so that
// only a thread's first call allocates for it. A call can start on a thread
// while another is under way there (a TBB thread waiting for its share of
// a parallel loop may run a task of the caller's that calls dnnl_sgemm):
// that inner call books into a registry of its own.
class registry_lease_t {
public:
    registry_lease_t() : slot_(this_thread_slot()), mine_(!slot_.busy) {
        if (mine_) {
            slot_.busy = true;
            // Copy-assigning an empty registry forgets the last booking but
            // keeps the entries' storage (a vector copy-assigned from a
            // shorter one reuses its capacity); moving would free it.
            const scratchpad::registry_t empty;
            slot_.reg = empty;
        }
    }
    ~registry_lease_t() {
        if (mine_) slot_.busy = false;
    }
    registry_lease_t(const registry_lease_t &) = delete;
    registry_lease_t &operator=(const registry_lease_t &) = delete;
    scratchpad::registry_t &get() { return mine_ ? slot_.reg : own_; }

private:
    struct slot_t {
        scratchpad::registry_t reg;
        bool busy = false;
    };
    static slot_t &this_thread_slot() {
        thread_local slot_t slot;
        return slot;
    }
    slot_t &slot_;
    bool mine_;
    scratchpad::registry_t own_;
};

// Books a plan's buffers, leases them from the global arena and runs
// `run(grantor)` (shared by every BLAS-like entry point).
template <typename Plan, typename Run>
dnnl_status_t run_with_arena(const Plan &plan, const Run &run) {
    registry_lease_t booking;
    scratchpad::registry_t &reg = booking.get();
    plan.book(reg, 0);
    hold_arena_for_this_thread();
    scratchpad::exec_lease_t lease;
    if (!lease.acquire(scratchpad::arena_t::global(), reg)) return dnnl_out_of_memory;
    scratchpad::grantor_t g(&reg, lease.base(), lease.split_slabs() ? &lease : nullptr);
    status_t st = run(g);
    if (st == status::success && lease.failed()) st = status::out_of_memory;
    return st;
}

// C rows [0, m) = acc rows + o, n columns (the plain fast path of the
// epilogue below, which was a scalar loop worth ~7% of a large GEMM):
// 16 lanes at a time, the tail under a mask.
#if defined(__x86_64__)
__attribute__((target("avx512f"))) void add_const_rows_avx512(
        int32_t *C, dim_t ldc, const int32_t *acc, dim_t ld, dim_t m, dim_t n, int32_t o) {
    const __m512i ov = _mm512_set1_epi32(o);
    const __mmask16 tail = (__mmask16)((1u << (n % 16)) - 1);
    for (dim_t i = 0; i < m; ++i) {
        int32_t *c = C + i * ldc;
        const int32_t *a = acc + i * ld;
        dim_t j = 0;
        for (; j + 16 <= n; j += 16)
            _mm512_storeu_si512(c + j, _mm512_add_epi32(_mm512_loadu_si512(a + j), ov));
        if (tail)
            _mm512_mask_storeu_epi32(
                    c + j, tail, _mm512_add_epi32(_mm512_maskz_loadu_epi32(tail, a + j), ov));
    }
}
#endif

// C = alpha * (acc - ao * colsum(B) - bo * rowsum(A) + K * ao * bo)
//     + beta * C + co, in double, then saturated to s32 and rounded to
// nearest even. The integer part wraps modulo 2^32 like s32 accumulation.
class int8_blas_epilogue_t : public gemm::s8_epilogue_t {
public:
    int32_t ao = 0, bo = 0;
    dim_t K = 0;
    float alpha = 1.f, beta = 0.f;
    int32_t *C = nullptr;
    dim_t ldc = 0;
    char offsetc = 'F';
    const int32_t *co = nullptr;
    bool no_overflow_fixed = false; // K * 255 * 128 + |co[0]| < 2^31

    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld,
            const int32_t *row_sum, const int32_t *col_sum) const override {
        const uint32_t kab = (uint32_t)K * (uint32_t)ao * (uint32_t)bo;
        if (alpha == 1.f && beta == 0.f && !ao && !bo && offsetc == 'F' && no_overflow_fixed) {
            // |acc| <= K * 255 * 128 and co[0] keep the sum inside s32 (checked
            // once per call): a plain copy with one add.
            const int32_t o = co[0];
#if defined(__x86_64__)
            if (isa::has(isa::avx512)) {
                add_const_rows_avx512(C + m0 * ldc + n0, ldc, acc, ld, m, n, o);
                return;
            }
#endif
            for (dim_t i = 0; i < m; ++i) {
                int32_t *c = C + (m0 + i) * ldc + n0;
                const int32_t *a = acc + i * ld;
                for (dim_t j = 0; j < n; ++j) c[j] = a[j] + o;
            }
            return;
        }
        if (alpha == 1.f && (beta == 0.f || beta == 1.f) && !ao && !bo) {
            // Integer fast path, equal to the double one: every sum below is
            // an exact integer under 2^34, so rounding does nothing.
            for (dim_t i = 0; i < m; ++i) {
                int32_t *c = C + (m0 + i) * ldc + n0;
                const int32_t *a = acc + i * ld;
                for (dim_t j = 0; j < n; ++j) {
                    int64_t r = (int64_t)a[j]
                            + (offsetc == 'F' ? co[0] : offsetc == 'C' ? co[m0 + i] : co[n0 + j]);
                    if (beta != 0.f) r += c[j];
                    c[j] = (int32_t)(r < INT32_MIN ? INT32_MIN : r > INT32_MAX ? INT32_MAX : r);
                }
            }
            return;
        }
        for (dim_t i = 0; i < m; ++i) {
            int32_t *c = C + (m0 + i) * ldc + n0;
            const uint32_t rs = bo ? (uint32_t)bo * (uint32_t)row_sum[i] : 0u;
            for (dim_t j = 0; j < n; ++j) {
                uint32_t v = (uint32_t)acc[i * ld + j] - rs + kab;
                if (ao) v -= (uint32_t)ao * (uint32_t)col_sum[j];
                double r = (double)alpha * (double)(int32_t)v;
                if (beta != 0.f) r += (double)beta * (double)c[j];
                r += (double)(offsetc == 'F' ? co[0] : offsetc == 'C' ? co[m0 + i] : co[n0 + j]);
                c[j] = to_s32(r);
            }
        }
    }

private:
    static int32_t to_s32(double r) {
        if (std::isnan(r)) return 0;
        if (r <= (double)INT32_MIN) return INT32_MIN;
        if (r >= (double)INT32_MAX) return INT32_MAX;
        return (int32_t)std::nearbyint(r);
    }
};

bool offsetc_flag(char o, char &mode) {
    switch (o) {
        case 'F': case 'f': mode = 'F'; return true;
        case 'C': case 'c': mode = 'C'; return true;
        case 'R': case 'r': mode = 'R'; return true;
        default: return false;
    }
}

dnnl_status_t gemm_x8s8s32(bool a_signed, char transa, char transb, char offsetc, dim_t M,
        dim_t N, dim_t K, float alpha, const void *A, dim_t lda, int32_t ao, const int8_t *B,
        dim_t ldb, int32_t bo, float beta, int32_t *C, dim_t ldc, const int32_t *co) {
    bool ta = false, tb = false;
    char oc = 'F';
    if (!trans_flag(transa, ta) || !trans_flag(transb, tb) || !offsetc_flag(offsetc, oc))
        return dnnl_invalid_arguments;
    if (M < 0 || N < 0 || K < 0) return dnnl_invalid_arguments;
    if (lda < at_least_1(ta ? M : K) || ldb < at_least_1(tb ? K : N) || ldc < at_least_1(N))
        return dnnl_invalid_arguments;
    if (M == 0 || N == 0) return dnnl_success;
    if (!C || !co || (K > 0 && (!A || !B))) return dnnl_invalid_arguments;
    return guard([&]() -> dnnl_status_t {
        gemm::s8_plan_t plan;
        KESTREL_CHECK(plan.init(M, N, K, ta, tb, a_signed, bo != 0, ao != 0));
        int8_blas_epilogue_t ep;
        ep.ao = ao;
        ep.bo = bo;
        ep.K = K;
        ep.alpha = alpha;
        ep.beta = beta;
        ep.C = C;
        ep.ldc = ldc;
        ep.offsetc = oc;
        ep.co = co;
        ep.no_overflow_fixed = oc == 'F'
                && (double)K * 255.0 * 128.0 + std::fabs((double)co[0]) < 2147483647.0;
        return run_with_arena(plan, [&](const scratchpad::grantor_t &g) {
            return plan.execute(A, lda, B, ldb, g, 0, ep);
        });
    });
}

} // namespace

extern "C" {

dnnl_status_t dnnl_sgemm(char transa, char transb, dnnl_dim_t M, dnnl_dim_t N, dnnl_dim_t K,
        float alpha, const float *A, dnnl_dim_t lda, const float *B, dnnl_dim_t ldb, float beta,
        float *C, dnnl_dim_t ldc) {
    bool ta = false, tb = false;
    if (!trans_flag(transa, ta) || !trans_flag(transb, tb)) return dnnl_invalid_arguments;
    if (M < 0 || N < 0 || K < 0) return dnnl_invalid_arguments;
    if (lda < at_least_1(ta ? M : K) || ldb < at_least_1(tb ? K : N) || ldc < at_least_1(N))
        return dnnl_invalid_arguments;
    if (M == 0 || N == 0) return dnnl_success;
    if (!C || (K > 0 && (!A || !B))) return dnnl_invalid_arguments;
    return guard([&]() -> dnnl_status_t {
        gemm::plan_t plan;
        KESTREL_CHECK(plan.init(M, N, K, ta, tb));
        return run_with_arena(plan, [&](const scratchpad::grantor_t &g) {
            return plan.execute(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, g, 0);
        });
    });
}

dnnl_status_t dnnl_gemm_u8s8s32(char transa, char transb, char offsetc, dnnl_dim_t M,
        dnnl_dim_t N, dnnl_dim_t K, float alpha, const uint8_t *A, dnnl_dim_t lda, uint8_t ao,
        const int8_t *B, dnnl_dim_t ldb, int8_t bo, float beta, int32_t *C, dnnl_dim_t ldc,
        const int32_t *co) {
    return gemm_x8s8s32(false, transa, transb, offsetc, M, N, K, alpha, A, lda, ao, B, ldb, bo,
            beta, C, ldc, co);
}

dnnl_status_t dnnl_gemm_s8s8s32(char transa, char transb, char offsetc, dnnl_dim_t M,
        dnnl_dim_t N, dnnl_dim_t K, float alpha, const int8_t *A, dnnl_dim_t lda, int8_t ao,
        const int8_t *B, dnnl_dim_t ldb, int8_t bo, float beta, int32_t *C, dnnl_dim_t ldc,
        const int32_t *co) {
    return gemm_x8s8s32(true, transa, transb, offsetc, M, N, K, alpha, A, lda, ao, B, ldb, bo,
            beta, C, ldc, co);
}

} // extern "C"
