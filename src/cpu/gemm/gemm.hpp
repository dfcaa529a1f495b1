// The f32 GEMM engine: the one internal interface every GEMM user goes
// through (matmul, inner product, 1x1 / im2col convolution, dnnl_sgemm).
//
//   C[M x N] = alpha * op(A) * op(B) + beta * C        (all row-major)
//
// op(A) is M x K: A[i * lda + k], or with transa A[k * lda + i].
// op(B) is K x N: B[k * ldb + j], or with transb B[j * ldb + k].
// beta == 0 means C is write-only (NaNs already in C are ignored).
//
// Use: build a plan_t when the primitive descriptor is created (blocking,
// thread grid and microkernel are chosen once), book its packing buffers
// into the pd's scratchpad registry under a key base, then call execute()
// (parallel) or execute_st() (one thread slot, from inside an existing
// parallel region) with the grantor of the execution.
#ifndef KESTREL_CPU_GEMM_GEMM_HPP
#define KESTREL_CPU_GEMM_GEMM_HPP

#include "core/common.hpp"
#include "scratchpad/registry.hpp"

namespace kestrel {
namespace gemm {

// Called once per finished C tile, after alpha/beta, while the tile is still
// in cache: rows [m0, m0 + m) and columns [n0, n0 + n) of C, `c` pointing at
// element (m0, n0). Post-ops (bias, eltwise, binary...) live here. Tiles of
// one call never overlap; several threads may call it at once.
class epilogue_t {
public:
    virtual ~epilogue_t() = default;
    virtual void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const = 0;
};

// One microkernel: see kernels.hpp for the contract.
struct ukernel_t;

// Keys the plan books, relative to the caller's key base. A caller reserves
// key_count keys starting at its base.
enum : scratchpad::key_t { key_pack_a = 0, key_pack_b = 1, key_count = 2 };

// Data cache sizes in bytes; 0 means unknown. With them the one trait of
// the core that the blocking rule asks about: AVX-512 on 256-bit units
// (isa::avx512_half_width; false in sizes made up by hand).
struct cache_sizes_t {
    size_t l1 = 0, l2 = 0, l3 = 0;
    bool zmm_half = false;
};

// This machine's data caches, read once (thread-safe) from CPUID (leaf 4 on
// Intel, 0x8000001D then 0x80000005/6 on AMD) or, when CPUID says nothing,
// /sys/devices/system/cpu/cpu0/cache.
const cache_sizes_t &host_caches();

// Cache blocks in elements, from cache sizes; the rule is in gemm.cpp.
struct blocking_t {
    dim_t mc = 0, nc = 0, kc = 0;
};
blocking_t derive_blocking(
        const cache_sizes_t &c, dim_t mr, dim_t nr, int nthr, bool long_kc = false, bool stream_b = false);

class plan_t {
public:
    // M, N, K may be DNNL_RUNTIME_DIM_VAL: the plan then books for the
    // largest blocks and picks the thread grid at execution. nthr 0 means
    // max_threads(). Fails with invalid_arguments on negative sizes.
    status_t init(dim_t M, dim_t N, dim_t K, bool transa, bool transb, int nthr = 0);
    // The same with the blocking derived from the given cache sizes instead
    // of the machine's (tests of odd cache sizes).
    status_t init(const cache_sizes_t &caches, dim_t M, dim_t N, dim_t K, bool transa, bool transb,
            int nthr = 0);

    // For a caller that hands all of op(B) over packed (pack_b_all()'s
    // layout, e.g. weights the user reordered into it) at every execute():
    // the same plan, but never skinny nor direct, so that packs_b() holds
    // for any known sizes. M, N and K must be known.
    status_t init_prepacked_b(dim_t M, dim_t N, dim_t K, bool transa, bool transb, int nthr = 0);

    // Books this plan's packing buffers (per-thread) under base + key_*;
    // with b_given (every execute() gets packed_b) no B block.
    void book(scratchpad::registry_t &reg, scratchpad::key_t base, bool b_given = false) const;

    // Parallel GEMM. M/N/K must equal the plan's unless those were runtime.
    // Returns out_of_memory when a thread's packing region was not granted
    // (its part of C is then left unwritten).
    // packed_b: optional, what pack_b_all() made of this same B (or the
    // same layout from elsewhere, any alignment); used when the plan packs
    // B and the sizes are the plan's, else B is read.
    status_t execute(dim_t M, dim_t N, dim_t K, float alpha, const float *A, dim_t lda,
            const float *B, dim_t ldb, float beta, float *C, dim_t ldc,
            const scratchpad::grantor_t &g, scratchpad::key_t base,
            const epilogue_t *ep = nullptr, const float *packed_b = nullptr) const;

    // Same product on the calling thread only, using thread slot ithr's
    // packing regions. Safe from inside parallel(): distinct ithr, distinct
    // buffers.
    status_t execute_st(dim_t M, dim_t N, dim_t K, float alpha, const float *A, dim_t lda,
            const float *B, dim_t ldb, float beta, float *C, dim_t ldc,
            const scratchpad::grantor_t &g, scratchpad::key_t base, int ithr,
            const epilogue_t *ep = nullptr, const float *packed_b = nullptr) const;

    // B used by many products (an RNN's weights at every time step) is
    // packed once: packs_b() says whether execute() would pack it at all
    // (known sizes, neither skinny nor direct), packed_b_bytes() how much
    // room the whole op(B) takes packed (0 when it does not), and
    // pack_b_all() fills that room (in parallel) for execute()'s packed_b.
    bool packs_b() const {
        return uk_ && !skinny_ && !direct_ && M_ > 0 && N_ > 0 && K_ > 0;
    }
    size_t packed_b_bytes() const;
    void pack_b_all(const float *B, dim_t ldb, float *bp) const;

    bool transa() const { return transa_; }
    // True when the known sizes go through the skinny (unpacked) kernel.
    bool skinny() const { return skinny_; }
    bool transb() const { return transb_; }
    // True when the known sizes are small enough to run the direct tiles,
    // reading A and B in place without packing.
    bool direct() const { return direct_; }
    // True when the known sizes' tiles walk C a row of tiles at a time
    // within a block (one K block, C beyond L2).
    bool c_rows() const { return c_rows_; }
    // True when the known sizes' threads split K (plan_t::init), each
    // computing all of C over its part, and then add the parts.
    bool k_split() const { return k_split_; }
    // True when executions with B not packed beforehand pack a row-major B
    // in the first row of tiles of each block (ukernel_t::packing) instead
    // of in a pass of its own (run_block says when).
    bool packs_b_in_tiles() const;
    int nthr() const { return nthr_; }
    const char *kernel_name() const;

    // Blocking of this plan (for tests and verbose).
    dim_t mr() const, nr() const;
    dim_t mc() const { return mc_; }
    dim_t nc() const { return nc_; }
    dim_t kc() const { return kc_; }

private:
    status_t init(const cache_sizes_t &caches, dim_t M, dim_t N, dim_t K, bool transa, bool transb,
            int nthr, bool prepacked_b);
    void grid(dim_t M, dim_t N, int &nthr_m, int &nthr_n) const;
    const float *usable_packed_b(dim_t M, dim_t N, dim_t K, const float *packed_b) const {
        return packed_b && packs_b() && M == M_ && N == N_ && K == K_ ? packed_b : nullptr;
    }
    // Whether an execution of these sizes takes the skinny kernel: the
    // plan's choice for its known sizes (init_prepacked_b declines it),
    // the rule for runtime ones.
    bool skinny_at(dim_t M, dim_t N) const;
    size_t pack_a_bytes() const;
    size_t pack_b_bytes() const;

    dim_t M_ = 0, N_ = 0, K_ = 0;
    bool transa_ = false, transb_ = false;
    int nthr_ = 1;
    int nthr_m_ = 1, nthr_n_ = 1; // valid when M and N are known
    dim_t mc_ = 0, nc_ = 0, kc_ = 0;
    const ukernel_t *uk_ = nullptr;
    bool skinny_ = false; // known sizes with few rows or columns: no packing
    bool direct_ = false; // known small sizes: direct tiles, no packing
    bool c_rows_ = false; // tiles walk C by rows of tiles (plan_t::init)
    bool k_split_ = false; // threads split K (plan_t::init)
    dim_t ks_mc_ = 0, ks_nc_ = 0; // the K split's blocks (all of C a thread)
};

// The column count of the micro-panels plan_t::init would pick now (the N
// block of pack_b_all()'s layout).
int f32_kernel_nr();

// Naming the kernel table level lets tests run every ISA's kernel on any
// machine that has it, without the process-wide ISA cap.
// avx2_vnni only matters to the int8 engine (the f32 one has no such kernel).
enum class kernel_level_t { portable = 0, avx2 = 1, avx2_vnni = 2, avx512 = 3, best = 4 };
// Forces plans created afterwards to use at most `l` (testing only; not
// thread-safe against concurrent plan creation). Returns the previous value.
kernel_level_t set_kernel_level_for_testing(kernel_level_t l);
// Allows or forbids plan_t::init's K split for plans created afterwards
// (testing only: keeps the split-C paths under test on the shapes it would
// take); returns the previous setting.
bool set_k_split_for_testing(bool on);

} // namespace gemm
} // namespace kestrel

#endif
