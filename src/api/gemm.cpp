// dnnl_sgemm: row-major C = alpha * op(A) * op(B) + beta * C on the GEMM
// engine. It has no primitive descriptor, so each call plans, books and
// leases its packing buffers from the global scratchpad arena (skinny
// shapes need none).
#include "api/api.hpp"
#include "cpu/gemm/gemm.hpp"
#include "scratchpad/arena.hpp"

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
        scratchpad::registry_t reg;
        plan.book(reg, 0);
        hold_arena_for_this_thread();
        scratchpad::exec_lease_t lease;
        if (!lease.acquire(scratchpad::arena_t::global(), reg)) return dnnl_out_of_memory;
        scratchpad::grantor_t g(&reg, lease.base(), lease.split_slabs() ? &lease : nullptr);
        status_t st = plan.execute(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, g, 0);
        if (st == status::success && lease.failed()) st = status::out_of_memory;
        return st;
    });
}

} // extern "C"
