// The int8 GEMM engine: exact s32 products of u8 or s8 A with s8 B.
//
//   acc(i, j) = sum_{p < K} op(A)(i, p) * op(B)(p, j)      (s32, wraps mod 2^32)
//
// op(A) is M x K: A[i * lda + p], or with transa A[p * lda + i] (u8 or s8).
// op(B) is K x N: B[p * ldb + j], or with transb B[j * ldb + p] (s8).
// The microkernels multiply u8 by s8 (vpdpbusd); an s8 A is packed shifted
// by +128 and the kernel starts each column from -128 * colsum(B), so the
// result is exact for s8 A too.
//
// The engine does not write C: it hands each finished tile of acc, with the
// row sums of op(A) and the column sums of op(B) when asked for, to an
// epilogue that produces the caller's output (zero points, scales, alpha,
// beta, post-ops, conversion) while the tile is in cache.
//
// Use: init() a plan when the primitive descriptor is created, book() its
// per-thread buffers into the pd's scratchpad registry under a key base,
// execute() with the grantor of the execution.
#ifndef KESTREL_CPU_GEMM_GEMM_S8_HPP
#define KESTREL_CPU_GEMM_GEMM_S8_HPP

#include <cstdint>

#include "core/common.hpp"
#include "cpu/gemm/gemm.hpp"
#include "scratchpad/registry.hpp"

namespace kestrel {
namespace gemm {

class s8_epilogue_t {
public:
    virtual ~s8_epilogue_t() = default;
    // Tile rows [m0, m0 + m) x columns [n0, n0 + n): acc[i * ld + j] is
    // acc(m0 + i, n0 + j). row_sum[i] = sum_p op(A)(m0 + i, p) and
    // col_sum[j] = sum_p op(B)(p, n0 + j) when the plan was asked for them,
    // else nullptr. Tiles never overlap; several threads call at once.
    virtual void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld,
            const int32_t *row_sum, const int32_t *col_sum) const = 0;
};

struct s8_ukernel_t;

// Keys the plan books, relative to the caller's base.
enum : scratchpad::key_t { s8_key_pack_a = 0, s8_key_pack_b = 1, s8_key_sums = 2, s8_key_count = 3 };

class s8_plan_t {
public:
    // Sizes must be known (no runtime dims). nthr 0 means max_threads().
    status_t init(dim_t M, dim_t N, dim_t K, bool transa, bool transb, bool a_signed,
            bool want_row_sum, bool want_col_sum, int nthr = 0);
    // packs_b false: every execute() will get packed_b (no B block booked).
    void book(scratchpad::registry_t &reg, scratchpad::key_t base, bool packs_b = true) const;
    // A is uint8_t or int8_t as the plan says. Returns out_of_memory when a
    // thread's buffers were not granted (its tiles are then not produced).
    // packed_b: optional, what pack_b_all() made of this same B (B is
    // then not read).
    // packed_csum: with packed_b, the column sums of B when they are not
    // stored after the panels (packed_col_sums() made them; needed only
    // when needs_col_sums()).
    status_t execute(const void *A, dim_t lda, const int8_t *B, dim_t ldb,
            const scratchpad::grantor_t &g, scratchpad::key_t base,
            const s8_epilogue_t &ep, const void *packed_b = nullptr,
            const int32_t *packed_csum = nullptr) const;

    // The first M rows (M <= the planned M) on the calling thread alone,
    // with the buffers of slot ithr: for callers that spread many small
    // GEMMs over the threads themselves (plan made with nthr 1).
    status_t execute_st(dim_t M, const void *A, dim_t lda, const int8_t *B, dim_t ldb,
            const scratchpad::grantor_t &g, scratchpad::key_t base, int ithr,
            const s8_epilogue_t &ep, const void *packed_b = nullptr) const;

    // B used by many products (an RNN's weights at every time step) is
    // packed once, with its column sums: packed_b_bytes() is the room it
    // takes (0 for an empty product), pack_b_all() fills it (in parallel).
    size_t packed_b_bytes() const;
    void pack_b_all(const int8_t *B, dim_t ldb, void *packed_b) const;

    // Panels laid out by someone else (weights reordered once into the
    // blocked layout the panels are, see ip_s8.cpp): their column sums
    // over the K real rows (bytes past K are not read), N values into out,
    // in parallel. needs_col_sums(): whether execute() reads them.
    void packed_col_sums(const void *panels, int32_t *out) const;
    bool needs_col_sums() const { return col_sum_ || a_signed_; }

    const char *kernel_name() const;
    int nr() const;
    int nthr() const { return nthr_; }
    dim_t mc() const { return mc_; }
    dim_t nc() const { return nc_; }

private:
    void run_block(const void *A, dim_t lda, const int8_t *B, dim_t ldb, dim_t m0, dim_t m1,
            dim_t n0, dim_t n1, uint8_t *pa, int8_t *pb, int32_t *sums,
            const s8_epilogue_t &ep, const void *packed_b, const int32_t *packed_csum) const;
    size_t packed_panels_bytes() const; // where the column sums start in packed_b

    dim_t M_ = 0, N_ = 0, K_ = 0;
    bool transa_ = false, transb_ = false, a_signed_ = false;
    bool row_sum_ = false, col_sum_ = false;
    int nthr_ = 1, nthr_m_ = 1, nthr_n_ = 1;
    dim_t mc_ = 0, nc_ = 0;
    const s8_ukernel_t *uk_ = nullptr;
};

// The panel width (NR) of the kernel plans created now would use: the
// column block of the packed B layout.
int s8_kernel_nr();

// Caps the int8 kernel chosen by plans created afterwards (testing only;
// not thread-safe against concurrent plan creation). Returns the previous cap.
kernel_level_t s8_set_kernel_level_for_testing(kernel_level_t l);

} // namespace gemm
} // namespace kestrel

#endif
