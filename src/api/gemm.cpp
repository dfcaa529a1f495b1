// dnnl_sgemm: row-major C = alpha * op(A) * op(B) + beta * C on the GEMM
// engine. It has no primitive descriptor, so each call plans (on the stack),
// books (into a registry kept per thread) and leases its packing buffers
// from the global scratchpad arena (skinny shapes need none); after a
// thread's first call none of this allocates.
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
        registry_lease_t booking;
        scratchpad::registry_t &reg = booking.get();
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
