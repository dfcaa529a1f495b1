// The GEMM framework: cache blocking, packing and threads (BLIS loop order).
//
//   for jc in N by NC:            B block  KC x NC  (per thread, ~L3)
//     for pc in K by KC:          pack B block
//       for ic in M by MC:        A block  MC x KC  (per thread, ~L2)
//         pack A block
//         for jr in NC by NR:     one B micro-panel stays in L1
//           for ir in MC by MR:   microkernel on an MR x NR tile of C
//
// Threads split C into a 2D grid (split_2d) of MR/NR-aligned blocks; each
// thread packs what it uses into its own per-thread regions, so threads
// never wait on each other, except when only the columns are split and
// op(A), which every thread uses whole, is 1-2 MB packed: it is then packed
// once, in parts, before the blocks run (share_t).
#include "cpu/gemm/gemm.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define KESTREL_GEMM_CPUID 1
#endif

#include "cpu/gemm/kernels.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"

namespace kestrel {
namespace gemm {

namespace {

// Below this many multiply-adds a problem runs on one thread.
constexpr double min_flops_per_thread = 32.0 * 1024;

// ------------------------------------------------------------ cache sizes

#ifdef KESTREL_GEMM_CPUID
// Deterministic cache parameters (leaf 4 on Intel, 0x8000001D on AMD: the
// same layout): fills the data/unified levels 1-3 still unknown.
void caches_from_leaf(unsigned leaf, cache_sizes_t &c) {
    if ((unsigned)__get_cpuid_max(leaf & 0x80000000u, nullptr) < leaf) return;
    for (unsigned i = 0; i < 16; ++i) {
        unsigned a, b, cx, d;
        __cpuid_count(leaf, i, a, b, cx, d);
        const unsigned type = a & 31, level = (a >> 5) & 7;
        if (type == 0) break;
        if (type == 2) continue; // instruction cache
        const size_t size = (size_t)((b >> 22) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1)
                * ((size_t)cx + 1);
        size_t *dst = level == 1 ? &c.l1 : level == 2 ? &c.l2 : level == 3 ? &c.l3 : nullptr;
        if (dst && !*dst) *dst = size;
    }
}
#endif

// "48K", "1024K", "32M" (sysfs size files).
size_t parse_size(const char *s) {
    char *end = nullptr;
    const unsigned long long v = std::strtoull(s, &end, 10);
    if (end == s) return 0;
    if (*end == 'K' || *end == 'k') return (size_t)v << 10;
    if (*end == 'M' || *end == 'm') return (size_t)v << 20;
    if (*end == 'G' || *end == 'g') return (size_t)v << 30;
    return (size_t)v;
}

void caches_from_sysfs(cache_sizes_t &c) {
    for (int i = 0; i < 8; ++i) {
        char path[96], buf[32];
        auto read = [&](const char *what) {
            std::snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/%s", i, what);
            FILE *f = std::fopen(path, "r");
            if (!f) return false;
            const bool ok = std::fgets(buf, sizeof(buf), f) != nullptr;
            std::fclose(f);
            return ok;
        };
        if (!read("type")) break;
        if (!std::strncmp(buf, "Instruction", 11)) continue;
        if (!read("level")) continue;
        const int level = std::atoi(buf);
        if (!read("size")) continue;
        size_t *dst = level == 1 ? &c.l1 : level == 2 ? &c.l2 : level == 3 ? &c.l3 : nullptr;
        if (dst && !*dst) *dst = parse_size(buf);
    }
}

cache_sizes_t read_caches() {
    cache_sizes_t c;
#ifdef KESTREL_GEMM_CPUID
    caches_from_leaf(4, c);
    caches_from_leaf(0x8000001Du, c);
    // AMD's older report (Intel leaves these zero): L1d KB in 0x80000005
    // ECX[31:24], L2 KB in 0x80000006 ECX[31:16], L3 in 512 KB units in
    // EDX[31:18].
    unsigned a, b, cx, d;
    if ((unsigned)__get_cpuid_max(0x80000000u, nullptr) >= 0x80000006u) {
        __cpuid(0x80000005u, a, b, cx, d);
        if (!c.l1) c.l1 = (size_t)(cx >> 24) << 10;
        __cpuid(0x80000006u, a, b, cx, d);
        if (!c.l2) c.l2 = (size_t)(cx >> 16) << 10;
        if (!c.l3) c.l3 = (size_t)(d >> 18) << 19;
    }
#endif
    if (!c.l1 || !c.l2 || !c.l3) caches_from_sysfs(c);
    c.zmm_half = isa::avx512_half_width();
    return c;
}

size_t clamp_size(size_t v, size_t fallback, size_t lo, size_t hi) {
    if (v == 0) return fallback;
    return v < lo ? lo : v > hi ? hi : v;
}

dim_t floor_to(dim_t v, dim_t unit, dim_t lo, dim_t hi) {
    v = v / unit * unit;
    return v < lo ? lo : v > hi ? hi : v;
}

std::atomic<int> level_cap {(int)kernel_level_t::best};
std::atomic<bool> k_split_on {true};

bool is_runtime(dim_t v) { return v == DNNL_RUNTIME_DIM_VAL; }

const ukernel_t *pick_kernel() {
    const int cap = level_cap.load(std::memory_order_relaxed);
    const ukernel_t *k = f32_gemm_4x16__portable();
    if (cap >= (int)kernel_level_t::avx2 && isa::has(isa::avx2) && f32_gemm_6x16__avx2())
        k = f32_gemm_6x16__avx2();
    if (cap >= (int)kernel_level_t::avx512 && isa::has(isa::avx512) && f32_gemm_12x32__avx512())
        k = f32_gemm_12x32__avx512();
    return k;
}

// Copies a transposing panel: dst[p * W + j] = src[j * ld + p] for j < w,
// p < k, zeros for w <= j < W. Tiles of 16 steps of p keep both the 16 source
// rows' lines and the destination tile in L1 (one full line read per row,
// instead of W scattered streams or W-strided writes).
void pack_transposing(const float *src, dim_t ld, dim_t k, dim_t w, int W, float *dst) {
    constexpr dim_t T = 16;
    for (dim_t p0 = 0; p0 < k; p0 += T) {
        const dim_t pt = k - p0 < T ? k - p0 : T;
        for (dim_t j = 0; j < w; ++j) {
            const float *s = src + j * ld + p0;
            float *d = dst + p0 * W + j;
            for (dim_t p = 0; p < pt; ++p) d[p * W] = s[p];
        }
        for (dim_t j = w; j < W; ++j)
            for (dim_t p = 0; p < pt; ++p) dst[(p0 + p) * W + j] = 0.f;
    }
}

// Whole rows of a W-wide panel as one fixed-size copy, which the compiler
// turns into vector moves (an element loop stays scalar at the baseline
// ISA and made packing B a quarter of a 128-row product's time).
template <int W>
void copy_rows(const float *src, dim_t ld, dim_t k, float *dst) {
    for (dim_t p = 0; p < k; ++p) std::memcpy(dst + p * W, src + p * ld, W * sizeof(float));
}

// Copies a panel whose W values per step are contiguous in the source:
// dst[p * W + j] = src[p * ld + j] for j < w, zeros for w <= j < W.
void pack_straight(const float *src, dim_t ld, dim_t k, dim_t w, int W, float *dst) {
    if (w == W && (W == 32 || W == 16 || W == 12)) {
        if (W == 32) copy_rows<32>(src, ld, k, dst);
        else if (W == 16) copy_rows<16>(src, ld, k, dst);
        else copy_rows<12>(src, ld, k, dst);
        return;
    }
    for (dim_t p = 0; p < k; ++p) {
        const float *s = src + p * ld;
        float *d = dst + p * W;
        dim_t j = 0;
        for (; j < w; ++j) d[j] = s[j];
        for (; j < W; ++j) d[j] = 0.f;
    }
}

// Packs rows [0, m) x cols [0, k) of op(A) (origin already applied) into
// MR-row micro-panels, zero-padding the last panel's missing rows.
// pt: the ISA's transposing pack, or the portable one.
void pack_a(const float *A, dim_t lda, bool trans, dim_t m, dim_t k, int MR, float *pa, pack_fn_t pt) {
    for (dim_t i0 = 0; i0 < m; i0 += MR) {
        const dim_t mr = m - i0 < MR ? m - i0 : MR;
        if (trans) // op(A)(i, p) = A[p * lda + i]: rows of A are contiguous in i
            pack_straight(A + i0, lda, k, mr, MR, pa + i0 * k);
        else // op(A)(i, p) = A[i * lda + p]
            pt(A + i0 * lda, lda, k, mr, MR, pa + i0 * k);
    }
}

// Packs rows [0, k) x cols [0, n) of op(B) into NR-column micro-panels.
// Not transposed, op(B)(p, j) = B[p * ldb + j]: rows of B are read whole,
// one after the other (one sequential stream the prefetchers follow, where
// panel by panel would read NR floats per row from k rows ldb apart), each
// row's pieces going to every panel.
// A thread that packs a column slice of a wider B (two threads splitting
// N) reads short runs ldb apart, which the hardware prefetchers follow
// poorly: each run is fetched rows_ahead rows early (two threads on
// 128x768x3072: a quarter less time packing B). Whole rows are one stream
// and need no help (fetching there cost 10-20%).
constexpr dim_t rows_ahead = 4;

// The rows of a row-major B into NR-wide panels. With W (= NR) known at
// compile time each full panel's piece of a row is one fixed-size copy in
// line (a pack_straight call per 128-byte piece held packing to a fraction
// of the load bandwidth: 128x768x3072 on one Zen 4 core, 11% of the time
// in the pack against 9% now); W = 0 serves any other width.
template <int W>
void pack_b_rows(const float *B, dim_t ldb, dim_t k, dim_t n, int NR, float *pb) {
    const bool fetch = ldb - n >= 16 && n <= 1024;
    const dim_t w = W ? W : NR, full = W ? n / W * W : 0;
    for (dim_t p = 0; p < k; ++p) {
        const float *src = B + p * ldb;
        if (fetch && p + rows_ahead < k)
            for (dim_t j = 0; j < n; j += 16) __builtin_prefetch(src + rows_ahead * ldb + j);
        float *dst = pb + p * w;
        for (dim_t j0 = 0; j0 < full; j0 += W) std::memcpy(dst + j0 * k, src + j0, W * sizeof(float));
        for (dim_t j0 = full; j0 < n; j0 += w)
            pack_straight(src + j0, ldb, 1, n - j0 < w ? n - j0 : w, (int)w, dst + j0 * k);
    }
}

void pack_b(const float *B, dim_t ldb, bool trans, dim_t k, dim_t n, int NR, float *pb, pack_fn_t pt) {
    if (!trans) {
        if (NR == 32) return pack_b_rows<32>(B, ldb, k, n, NR, pb);
        if (NR == 16) return pack_b_rows<16>(B, ldb, k, n, NR, pb);
        return pack_b_rows<0>(B, ldb, k, n, NR, pb);
    }
    for (dim_t j0 = 0; j0 < n; j0 += NR) { // op(B)(p, j) = B[j * ldb + p]
        const dim_t nr = n - j0 < NR ? n - j0 : NR;
        pt(B + j0 * ldb, ldb, k, nr, NR, pb + j0 * k);
    }
}

struct args_t {
    dim_t M, N, K;
    float alpha;
    const float *A;
    dim_t lda;
    const float *B;
    dim_t ldb;
    float beta;
    float *C;
    dim_t ldc;
    bool transa, transb;
    const epilogue_t *ep;
};

// C = beta * C (no product) over a block, then the epilogue.
void scale_only(const args_t &a, dim_t m0, dim_t m1, dim_t n0, dim_t n1, int MR, int NR) {
    for (dim_t i = m0; i < m1; ++i) {
        float *c = a.C + i * a.ldc;
        for (dim_t j = n0; j < n1; ++j) c[j] = a.beta == 0.f ? 0.f : a.beta * c[j];
    }
    if (!a.ep) return;
    for (dim_t i = m0; i < m1; i += MR)
        for (dim_t j = n0; j < n1; j += NR) {
            dim_t mr = m1 - i < MR ? m1 - i : MR, nr = n1 - j < NR ? n1 - j : NR;
            a.ep->apply(i, j, mr, nr, a.C + i * a.ldc + j, a.ldc);
        }
}

// An operand packed whole (all of K) before the loop nest: micro-panels of
// W rows of op(A) or columns of op(B), the one holding row / column idx
// (a multiple of W) spanning all of K at at(idx), so the KC slice from pc
// starts pc * W further. Either one buffer (`whole`: what pack_b_all
// made), or parts of `part` rows / columns each in the per-thread regions
// of `key` (part t in thread slot t's region: share_t).
struct prepacked_t {
    const float *whole = nullptr;
    const scratchpad::grantor_t *g = nullptr;
    scratchpad::key_t key = 0;
    dim_t part = 0, K = 0;
    // The last part looked up (a grantor lookup per tile would be wasted).
    mutable dim_t last_t = -1;
    mutable const float *last_p = nullptr;

    explicit operator bool() const { return whole || g; }
    const float *at(dim_t idx) const {
        if (whole) return whole + idx * K;
        const dim_t t = idx / part;
        if (t != last_t) {
            last_p = g->get<float>(key, (int)t);
            last_t = t;
        }
        return last_p + (idx - t * part) * K;
    }
};

// The whole loop nest over C block [m0, m1) x [n0, n1) on one thread.
// With `bpre` (all of op(B) packed beforehand) B is not packed, with
// `apre` A is not. `c_rows`: within a block the tiles walk C a row of tiles
// at a time (plan_t::init says when).
void run_block(const args_t &a, const ukernel_t &uk, dim_t mc_max, dim_t nc_max, dim_t kc_max,
        dim_t m0, dim_t m1, dim_t n0, dim_t n1, float *pa, float *pb, const prepacked_t &bpre,
        const prepacked_t &apre = prepacked_t(), bool c_rows = false) {
    if (m0 >= m1 || n0 >= n1) return;
    const int MR = uk.mr, NR = uk.nr;
    const pack_fn_t pt = uk.pack_transposing ? uk.pack_transposing : pack_transposing;
    if (a.K == 0) {
        scale_only(a, m0, m1, n0, n1, MR, NR);
        return;
    }
    // One A block (few rows) and a transposed B, packed one micro-panel at
    // a time anyway: each micro-panel is packed just before the tiles use
    // it, into the first KC x NR of pb, and read back from L1, where a
    // whole B block (up to KC x NC: 1 MB for an inner product's 1000
    // outputs) went out to L2 or beyond first (64 x 1000 x 2048: 1.1x on one
    // Zen 5 core). A row-major B keeps the block: packed panel by panel it
    // is read in short runs ldb apart (128 x 768 x 3072 lost 5%).
    if (!bpre && a.transb && m1 - m0 <= mc_max) {
        const dim_t mc = m1 - m0;
        for (dim_t pc = 0; pc < a.K; pc += kc_max) {
            const dim_t kc = a.K - pc < kc_max ? a.K - pc : kc_max;
            const float beta = pc == 0 ? a.beta : 1.f;
            const bool last_k = pc + kc == a.K;
            const float *Ablk = a.transa ? a.A + pc * a.lda + m0 : a.A + m0 * a.lda + pc;
            if (!apre) pack_a(Ablk, a.lda, a.transa, mc, kc, MR, pa, pt);
            for (dim_t jr = n0; jr < n1; jr += NR) {
                const dim_t nr = n1 - jr < NR ? n1 - jr : NR;
                const float *Bblk = a.transb ? a.B + jr * a.ldb + pc : a.B + pc * a.ldb + jr;
                pack_b(Bblk, a.ldb, a.transb, kc, nr, NR, pb, pt);
                for (dim_t ir = 0; ir < mc; ir += MR) {
                    const dim_t mr = mc - ir < MR ? mc - ir : MR;
                    float *c = a.C + (m0 + ir) * a.ldc + jr;
                    const float *ap = apre ? apre.at(m0 + ir) + pc * MR : pa + ir * kc;
                    uk.fn[mr](kc, a.alpha, ap, pb, beta, c, a.ldc, nr);
                    if (last_k && a.ep) a.ep->apply(m0 + ir, jr, mr, nr, c, a.ldc);
                }
            }
        }
        return;
    }
    // A row-major B is packed by the first row of tiles of each block
    // (ukernel_t::packing) where the ISA has packing tiles, each fetching
    // the next panel as it goes. One AVX-512 Zen 4 core: 128 x 768 x 3072
    // 1.05-1.10x (the pack had been 9% of the time); two: sgemm and matmul
    // 128 x 768 x 3072 1.10x, a 1x1 convolution's backward data on nchw
    // (c_rows, B from memory) 1.07x.
    const bool packing = !bpre && !a.transb && uk.packing[1];
    for (dim_t jc = n0; jc < n1; jc += nc_max) {
        const dim_t nc = n1 - jc < nc_max ? n1 - jc : nc_max;
        for (dim_t pc = 0; pc < a.K; pc += kc_max) {
            const dim_t kc = a.K - pc < kc_max ? a.K - pc : kc_max;
            const float beta = pc == 0 ? a.beta : 1.f;
            const bool last_k = pc + kc == a.K;
            const float *Bblk = a.transb ? a.B + jc * a.ldb + pc : a.B + pc * a.ldb + jc;
            if (!bpre && !packing) pack_b(Bblk, a.ldb, a.transb, kc, nc, NR, pb, pt);
            for (dim_t ic = m0; ic < m1; ic += mc_max) {
                const dim_t mc = m1 - ic < mc_max ? m1 - ic : mc_max;
                const float *Ablk = a.transa ? a.A + pc * a.lda + ic : a.A + ic * a.lda + pc;
                if (!apre) pack_a(Ablk, a.lda, a.transa, mc, kc, MR, pa, pt);
                auto tile = [&](dim_t ir, dim_t jr) {
                    const dim_t mr = mc - ir < MR ? mc - ir : MR, nr = nc - jr < NR ? nc - jr : NR;
                    const float *bp = bpre ? bpre.at(jc + jr) + pc * NR : pb + jr * kc;
                    const float *ap = apre ? apre.at(ic + ir) + pc * MR : pa + ir * kc;
                    float *c = a.C + (ic + ir) * a.ldc + jc + jr;
                    if (packing && ic == m0 && ir == 0)
                        uk.packing[mr](kc, a.alpha, ap, Bblk + jr, a.ldb, pb + jr * kc,
                                jr + NR < nc ? Bblk + jr + NR : nullptr, beta, c, a.ldc, nr);
                    else
                        uk.fn[mr](kc, a.alpha, ap, bp, beta, c, a.ldc, nr);
                    if (last_k && a.ep) a.ep->apply(ic + ir, jc + jr, mr, nr, c, a.ldc);
                };
                if (c_rows) { // an A micro-panel in L1 against the B block in L2
                    for (dim_t ir = 0; ir < mc; ir += MR)
                        for (dim_t jr = 0; jr < nc; jr += NR) tile(ir, jr);
                } else { // a B micro-panel in L1 against the A block in L2
                    for (dim_t jr = 0; jr < nc; jr += NR)
                        for (dim_t ir = 0; ir < mc; ir += MR) tile(ir, jr);
                }
            }
        }
    }
}

// Skinny products (C with at most skinny_max_m rows or columns) skip
// packing. Seen through skinny_args_t, C always has the few rows: when the
// columns are the few, the problem is solved transposed,
// C^T = op(B)^T op(A)^T, by swapping the operands' strides.
bool is_skinny(const ukernel_t &uk, dim_t M, dim_t N) {
    return uk.skinny && (M <= skinny_max_m || N <= skinny_max_m);
}

// Columns of the skinny view: N, or M when transposed.
dim_t skinny_cols(const args_t &a) { return a.M <= skinny_max_m ? a.N : a.M; }

// Runs skinny-view columns [j0, j1) and the epilogue over them.
void run_skinny(const args_t &a, const ukernel_t &uk, dim_t j0, dim_t j1) {
    if (j0 >= j1) return;
    skinny_args_t s;
    s.k = a.K;
    s.alpha = a.alpha;
    s.beta = a.beta;
    s.n = j1 - j0;
    const dim_t a_rs = a.transa ? 1 : a.lda, a_cs = a.transa ? a.lda : 1; // op(A)(i, p)
    const dim_t b_rs = a.transb ? 1 : a.ldb, b_cs = a.transb ? a.ldb : 1; // op(B)(p, j)
    const bool flip = a.M > skinny_max_m;
    if (!flip) {
        s.m = a.M;
        s.a = a.A;
        s.ars = a_rs;
        s.acs = a_cs;
        s.b = a.B + j0 * b_cs;
        s.brs = b_rs;
        s.bcs = b_cs;
        s.c = a.C + j0;
        s.crs = a.ldc;
        s.ccs = 1;
    } else { // op(B)^T is the few-row left operand, op(A)^T the right one
        s.m = a.N;
        s.a = a.B;
        s.ars = b_cs;
        s.acs = b_rs;
        s.b = a.A + j0 * a_rs;
        s.brs = a_cs;
        s.bcs = a_rs;
        s.c = a.C + j0 * a.ldc;
        s.crs = 1;
        s.ccs = a.ldc;
    }
    uk.skinny(s);
    if (!a.ep) return;
    const dim_t m0 = flip ? j0 : 0, m1 = flip ? j1 : a.M;
    const dim_t n0 = flip ? 0 : j0, n1 = flip ? a.N : j1;
    for (dim_t i = m0; i < m1; i += uk.mr)
        for (dim_t j = n0; j < n1; j += uk.nr) {
            const dim_t mr = m1 - i < uk.mr ? m1 - i : uk.mr, nr = n1 - j < uk.nr ? n1 - j : uk.nr;
            a.ep->apply(i, j, mr, nr, a.C + i * a.ldc + j, a.ldc);
        }
}

// Small products skip packing: the direct tiles read A in place through
// its strides and B in place when its rows are contiguous (not transb; a
// transposed B would need gathers). Worth it while A and B together fit in
// half of L2, where the tiles' repeated reads of them hit; beyond, packing
// pays for itself.
// Few columns (at most two micro-panels, row-major A) go direct too, at
// any M, while B alone fits in half of L2: each A row tile is then read
// once from memory for both panels (run_direct walks rows outermost), where
// packing transposed all of A for one or two uses (4096 x 64 x 576: a third
// of the time in the pack; 1.15x on one Zen 5 core without it).
bool few_columns_direct(const ukernel_t &uk, dim_t N, bool transa) {
    return !transa && N <= 2 * (dim_t)uk.nr;
}

bool is_direct(const ukernel_t &uk, const cache_sizes_t &c, dim_t M, dim_t N, dim_t K, bool transa,
        bool transb) {
    if (!uk.direct[1] || transb || K == 0) return false;
    const double l2 = (double)clamp_size(c.l2, 512u << 10, 64u << 10, 16u << 20);
    if (few_columns_direct(uk, N, transa) && (double)K * N * sizeof(float) <= l2 / 2) return true;
    return ((double)M * K + (double)K * N) * sizeof(float) <= l2 / 2;
}

// C block [m0, m1) x [n0, n1) with direct tiles: the B panel of NR columns
// stays in L1 while the tiles walk down A; with at most two panels, the
// tiles walk across them for each row tile instead (the rows of A stay in
// L1 between the two, B in L2).
void run_direct(const args_t &a, const ukernel_t &uk, dim_t m0, dim_t m1, dim_t n0, dim_t n1) {
    const dim_t ars = a.transa ? 1 : a.lda, acs = a.transa ? a.lda : 1;
    auto one = [&](dim_t i, dim_t j) {
        const dim_t mr = m1 - i < uk.mr ? m1 - i : uk.mr, nr = n1 - j < uk.nr ? n1 - j : uk.nr;
        float *c = a.C + i * a.ldc + j;
        uk.direct[mr](a.K, a.alpha, a.A + i * ars, ars, acs, a.B + j, a.ldb, a.beta, c, a.ldc, nr);
        if (a.ep) a.ep->apply(i, j, mr, nr, c, a.ldc);
    };
    if (n1 - n0 <= 2 * (dim_t)uk.nr) {
        for (dim_t i = m0; i < m1; i += uk.mr)
            for (dim_t j = n0; j < n1; j += uk.nr) one(i, j);
        return;
    }
    for (dim_t j = n0; j < n1; j += uk.nr)
        for (dim_t i = m0; i < m1; i += uk.mr) one(i, j);
}

// Thread ithr's block of C, rows [ms, me) x columns [ns, ne), in an
// nthr_m x nthr_n grid of MR/NR-aligned blocks.
void thread_block(dim_t M, dim_t N, dim_t MR, dim_t NR, int nthr_m, int nthr_n, int ithr, dim_t &ms,
        dim_t &me, dim_t &ns, dim_t &ne) {
    balance211(div_up(M, MR), nthr_m, ithr / nthr_n, ms, me);
    balance211(div_up(N, NR), nthr_n, ithr % nthr_n, ns, ne);
    ms *= MR;
    me = me * MR < M ? me * MR : M;
    ns *= NR;
    ne = ne * NR < N ? ne * NR : N;
}

// Few columns (N within a few micro-panels): the whole packed B block is
// small, so K is cut into longer blocks, as long as KC x N takes at most a
// quarter of L2. C, here the large operand, is then read and written once
// per longer block, and packing A reads longer runs of each row (4096 x 64
// x 576: one block instead of three, 1.6x on one core with the pack's
// prefetch). The kernel then streams its B micro-panel from L2 instead of
// L1, which costs little: each pair of B vectors feeds 2 x MR FMAs.
// Returns the longer KC (multiple of 8, at most 1024), or 0 when the rule's
// KC is already as long.
dim_t few_columns_kc(const cache_sizes_t &c, dim_t N, dim_t NR, dim_t kc) {
    const dim_t l2 = (dim_t)clamp_size(c.l2, 512u << 10, 64u << 10, 16u << 20);
    const dim_t kw = l2 / 4 / (rnd_up(N, NR) * (dim_t)sizeof(float)) / 8 * 8;
    const dim_t k = kw < 1024 ? kw : 1024;
    return k > kc ? k : 0;
}

// Rows of the packed A block (MC x kc floats) in half of l2: a multiple of
// MR in [MR, 1020].
dim_t mc_for(dim_t l2, dim_t kc, dim_t MR) {
    return floor_to(l2 / 2 / (kc * (dim_t)sizeof(float)), MR, MR, 1020 / MR * MR);
}

// Skinny columns are handed to threads in units of one vector.
constexpr dim_t skinny_unit = 16;

// Threads that split only the columns of C (a 1 x nthr grid) all use the
// whole of op(A), and in run_block each would pack all of it. Instead, for
// an op(A) of 1 to 2 MB packed with a row-major op(B), each thread first
// packs an equal part of it (`part` rows, all of K, in MR micro-panels)
// into its own A packing region, and once every part is done each thread
// runs its block reading the parts (prepacked_t): op(A) is packed once
// instead of once per thread. Measured on two loaded Zen 5 threads
// (interleaved, medians): 128 x 768 x 3072 1.07-1.15x, matmul 1 x 128 x
// 768 x 3072 1.08-1.12x. Where it lost, it is off: a shared op(B) (rows
// split; 512^3 0.92x in the first trial), op(A) below 1 MB (inner product mb64 2048-1000:
// 0.92x, the half a thread saves is not worth the second fork and join),
// a transposed op(B) (inner product mb256 1024-1024, whose panel-by-panel
// path keeps its own A block in L2: 0.94x), above 2 MB (the parts no
// longer stay in the cores' L2; 1024^3 and up pack per thread, where the
// duplicate is a small share of the product).
constexpr double share_min_bytes = 1.0 * (1 << 20), share_max_bytes = 2.0 * (1 << 20);

struct share_t {
    bool a = false;
    dim_t part = 0; // rows of op(A) per thread, a multiple of MR
    dim_t kdim = 0;
    size_t bytes() const { return a ? (size_t)part * kdim * sizeof(float) : 0; }
};

share_t share_mode(dim_t MR, dim_t M, dim_t N, dim_t K, bool transb, int nthr, int nthr_m, int nthr_n) {
    share_t s;
    if (nthr < 2 || M <= 0 || N <= 0 || K <= 0 || is_runtime(M) || is_runtime(N) || is_runtime(K))
        return s;
    const double a_bytes = (double)rnd_up(M, MR) * K * sizeof(float);
    if (nthr_n > 1 && nthr_m == 1 && !transb && a_bytes >= share_min_bytes && a_bytes <= share_max_bytes) {
        s.a = true;
        s.part = div_up(div_up(M, MR), nthr) * MR;
        s.kdim = K;
    }
    return s;
}

// Thread t runs the loop nest over all of C for its part of K (8-aligned
// parts): thread 0 into C with the call's beta, the others into their
// partial C (M x N in their key_pack_b region, after the B block unless B
// was packed beforehand: bpre, whose panels' steps of the part are read in
// place) with beta 0; no epilogue yet. Then each thread adds the partials
// into a share of C's rows and runs the epilogue over them.
// (plan_t::init: k_split; mc, nc and kc_max the split's blocking.)
status_t run_k_split(const args_t &a, const ukernel_t &uk, int nthr, dim_t mc, dim_t nc, dim_t kc_max,
        bool c_rows, const scratchpad::grantor_t &g, scratchpad::key_t base, const float *bpre) {
    const dim_t MR = uk.mr, NR = uk.nr;
    std::atomic<bool> oom {false};
    auto partial = [&](int ithr) -> float * { // after the B block, if B is packed here
        float *pb = g.get<float>(base + key_pack_b, ithr);
        return pb ? pb + (bpre ? 0 : (size_t)nc * kc_max) : nullptr;
    };
    parallel(nthr, [&](int ithr, int) {
        dim_t s, e;
        balance211(div_up(a.K, 8), nthr, ithr, s, e);
        const dim_t k0 = s * 8, k1 = e * 8 < a.K ? e * 8 : a.K;
        float *pa = g.get<float>(base + key_pack_a, ithr), *pb = g.get<float>(base + key_pack_b, ithr);
        float *c = ithr == 0 ? a.C : partial(ithr);
        if (!pa || !pb || !c) {
            oom = true;
            return;
        }
        const dim_t kp = k1 - k0;
        if (kp <= 0) { // nothing of K here: the partial is zero (thread 0 always has a part)
            std::memset(c, 0, (size_t)a.M * a.N * sizeof(float));
            return;
        }
        args_t t = a;
        t.K = kp;
        t.A = a.transa ? a.A + k0 * a.lda : a.A + k0;
        t.B = a.transb ? a.B + k0 : a.B + k0 * a.ldb;
        if (ithr > 0) t.beta = 0.f, t.C = c, t.ldc = a.N;
        t.ep = nullptr;
        const dim_t kc = kp < kc_max ? kp : div_up(kp, div_up(kp, kc_max));
        prepacked_t bp; // B packed beforehand: this part's steps of every panel
        if (bpre) bp.whole = bpre + k0 * NR, bp.K = a.K;
        run_block(t, uk, mc, nc, kc, 0, a.M, 0, a.N, pa, pb, bp, prepacked_t(), c_rows);
    });
    if (oom) return status::out_of_memory;
    parallel(nthr, [&](int ithr, int) {
        dim_t s, e;
        balance211(div_up(a.M, MR), nthr, ithr, s, e);
        for (dim_t i0 = s * MR; i0 < e * MR && i0 < a.M; i0 += MR) {
            const dim_t mr = a.M - i0 < MR ? a.M - i0 : MR;
            for (dim_t i = i0; i < i0 + mr; ++i) {
                float *ci = a.C + i * a.ldc;
                for (int t = 1; t < nthr; ++t) {
                    const float *pi = partial(t) + i * a.N;
                    for (dim_t j = 0; j < a.N; ++j) ci[j] += pi[j];
                }
            }
            if (a.ep)
                for (dim_t j = 0; j < a.N; j += NR)
                    a.ep->apply(i0, j, mr, a.N - j < NR ? a.N - j : NR, a.C + i0 * a.ldc + j, a.ldc);
        }
    });
    return status::success;
}

} // namespace

const cache_sizes_t &host_caches() {
    static const cache_sizes_t c = read_caches();
    return c;
}

// The blocking rule. Sizes outside what CPUs have (virtual machines report
// anything) are clamped, unknown ones take typical values (32 KB / 512 KB /
// 8 MB). Then, with 4-byte floats:
//   KC: one packed B micro-panel (KC x NR), reused by every A micro-panel
//       of the block, takes 2/3 of L1; the streaming A micro-panel and C
//       tile share the rest. Multiple of 8, in [64, 512].
//       With `long_kc` (plan_t::init: C outgrows L2) it takes an eighth of
//       L2 instead where that is more, multiple of 8 up to 1024: C is read
//       and written once per KC block, and a pass over a C that has left
//       L2 costs more than the micro-panel streaming from L2 (each pair of
//       B vectors feeds 2 x MR FMAs). On one Zen 5 core 2048^3 ran at 193
//       GFLOP/s with KC = 256 and 233 with 1024 (2048 x 2048 x 256, one
//       pass: 242); where C stays in L2 the L1 rule measured better (GRU
//       training's 256 x 768 x 800 weight gradients: 0.93x with 800).
//       With `stream_b` (plan_t::init: the AVX-512 kernel on a core that
//       runs it on 256-bit units, one zmm FMA a cycle) it takes a
//       sixteenth of L2 where that is more, multiple of 8 up to 512: the
//       micro-panel then streams from L2, which keeps up with one FMA a
//       cycle, and C is read and written a third as often. Two Zen 4
//       threads (1 MB L2: 512 against 168): sgemm 512^3 1.05x, inner
//       product mb256 1024-1024 1.10x and mb64 2048-1000 1.11x, batched
//       matmul 8 x 128 x 768 x 768 1.08x; 768 and 1024 measured no better.
//   MC: the packed A block (MC x KC) takes half of L2, KC here being the L1
//       rule's; plan_t::init shortens MC for longer K blocks. Multiple of
//       MR, in [MR, 1020].
//   NC: the packed B blocks of all threads (nthr x KC x NC) take half of
//       L3. Multiple of NR, in [NR, 4096].
// Zen 5 (48 KB / 1 MB / 32 MB and more), 12x32 kernel: KC = 256, MC = 504,
// NC = 4096; with long_kc KC = 1024 (MC 120 once K is cut into blocks of
// 1024), NC = 2048 for two threads. plan_t::init lengthens KC for products
// with few columns as well: few_columns_kc.
blocking_t derive_blocking(const cache_sizes_t &c, dim_t mr, dim_t nr, int nthr, bool long_kc, bool stream_b) {
    const dim_t l1 = (dim_t)clamp_size(c.l1, 32u << 10, 8u << 10, 1u << 20);
    const dim_t l2 = (dim_t)clamp_size(c.l2, 512u << 10, 64u << 10, 16u << 20);
    const dim_t l3 = (dim_t)clamp_size(c.l3, 8u << 20, 1u << 20, 256u << 20);
    const dim_t f = (dim_t)sizeof(float);
    blocking_t b;
    const dim_t kc_l1 = floor_to(l1 * 2 / 3 / (nr * f), 8, 64, 512);
    const dim_t kc_l2 = floor_to(l2 / 8 / (nr * f), 8, 64, 1024);
    const dim_t kc_stream = floor_to(l2 / 16 / (nr * f), 8, 64, 512);
    const dim_t kc_short = stream_b && kc_stream > kc_l1 ? kc_stream : kc_l1;
    b.kc = long_kc && kc_l2 > kc_short ? kc_l2 : kc_short;
    b.mc = mc_for(l2, kc_l1, mr);
    b.nc = floor_to(l3 / 2 / ((nthr < 1 ? 1 : nthr) * b.kc * f), nr, nr, 4096 / nr * nr);
    return b;
}

kernel_level_t set_kernel_level_for_testing(kernel_level_t l) {
    return (kernel_level_t)level_cap.exchange((int)l);
}

bool set_k_split_for_testing(bool on) { return k_split_on.exchange(on); }

// The microkernel a plan made now would pick (gemm_cvt.cpp packs converted
// panels for it itself).
const ukernel_t *f32_kernel() { return pick_kernel(); }
int f32_kernel_nr() { return pick_kernel()->nr; }

dim_t plan_t::mr() const { return uk_ ? uk_->mr : 0; }
dim_t plan_t::nr() const { return uk_ ? uk_->nr : 0; }
const char *plan_t::kernel_name() const {
    if (!uk_) return "none";
    return skinny_ ? uk_->skinny_name : uk_->name;
}

status_t plan_t::init(dim_t M, dim_t N, dim_t K, bool transa, bool transb, int nthr) {
    return init(host_caches(), M, N, K, transa, transb, nthr);
}

status_t plan_t::init(const cache_sizes_t &caches, dim_t M, dim_t N, dim_t K, bool transa, bool transb,
        int nthr) {
    return init(caches, M, N, K, transa, transb, nthr, false);
}

status_t plan_t::init_prepacked_b(dim_t M, dim_t N, dim_t K, bool transa, bool transb, int nthr) {
    if (is_runtime(M) || is_runtime(N) || is_runtime(K)) return status::invalid_arguments;
    return init(host_caches(), M, N, K, transa, transb, nthr, true);
}

status_t plan_t::init(const cache_sizes_t &caches, dim_t M, dim_t N, dim_t K, bool transa, bool transb,
        int nthr, bool prepacked_b) {
    for (dim_t v : {M, N, K})
        if (v < 0 && !is_runtime(v)) return status::invalid_arguments;
    M_ = M;
    N_ = N;
    K_ = K;
    transa_ = transa;
    transb_ = transb;
    uk_ = pick_kernel();
    skinny_ = direct_ = c_rows_ = k_split_ = false;
    nthr_ = nthr > 0 ? nthr : max_threads();
    const dim_t MR = uk_->mr, NR = uk_->nr;
    // C beyond L2: the long-K rule (derive_blocking).
    const dim_t l2 = (dim_t)clamp_size(caches.l2, 512u << 10, 64u << 10, 16u << 20);
    const bool c_beyond_l2
            = !is_runtime(M) && !is_runtime(N) && (double)M * N * sizeof(float) > (double)l2;
    const bool stream_b = caches.zmm_half && uk_ == f32_gemm_12x32__avx512();
    blocking_t blk = derive_blocking(caches, MR, NR, nthr_, c_beyond_l2, stream_b);
    // Only when K is longer than the rule's KC (the blocking is otherwise unchanged).
    const dim_t kw = !is_runtime(N) && !is_runtime(K) && N > 0 && K > blk.kc
            ? few_columns_kc(caches, N, NR, blk.kc)
            : 0;
    if (kw) blk.kc = kw;
    // K is cut into equal blocks no larger than blk.kc (576 = 3 x 192,
    // not 256 + 256 + 64): fewer, fuller passes over C.
    kc_ = is_runtime(K) ? blk.kc : (K < blk.kc ? K : div_up(K, div_up(K, blk.kc)));
    // The threads' B blocks of this product's KC within a quarter of L3 (a
    // shared L3 is not ours alone): 2048^3 (KC 1024) ran 5-9% slower with
    // 8 MB blocks a thread than with 4 MB on two Zen 5 threads. A short K
    // keeps the rule's NC (K = 64: the blocks are small anyway).
    if (kc_ > 0) {
        const dim_t l3 = (dim_t)clamp_size(caches.l3, 8u << 20, 1u << 20, 256u << 20);
        const dim_t nc_l3 = floor_to(l3 / 4 / ((dim_t)nthr_ * kc_ * (dim_t)sizeof(float)), NR, NR, 4096 / NR * NR);
        if (nc_l3 < blk.nc) blk.nc = nc_l3;
    }
    if (kc_ > 0) { // the A block stays within half of L2 for a longer KC
        const dim_t mc = mc_for(l2, kc_, MR);
        if (mc < blk.mc) blk.mc = mc;
    }
    // Rows are not cut for a remainder shorter than a micro-panel (M = 128
    // against MC = 120: one block of 132 rows, not 120 and 8).
    mc_ = is_runtime(M) ? blk.mc : (rnd_up(M, MR) <= blk.mc + MR ? rnd_up(M, MR) : blk.mc);
    nc_ = is_runtime(N) ? blk.nc : (rnd_up(N, NR) < blk.nc ? rnd_up(N, NR) : blk.nc);
    if (!is_runtime(M) && !is_runtime(N) && !is_runtime(K)) {
        const double flops = (double)M * N * K;
        if (flops < min_flops_per_thread * nthr_) {
            int n = (int)(flops / min_flops_per_thread);
            nthr_ = n < 1 ? 1 : n;
        }
        skinny_ = !prepacked_b && is_skinny(*uk_, M, N);
        if (skinny_) {
            const dim_t units = div_up(M <= skinny_max_m ? N : M, skinny_unit);
            if (units < nthr_) nthr_ = units < 1 ? 1 : (int)units;
            nthr_m_ = 1;
            nthr_n_ = nthr_;
            return status::success;
        }
        grid(M, N, nthr_m_, nthr_n_);
        // The grid may leave threads idle (prime counts, tiny sides).
        nthr_ = nthr_m_ * nthr_n_;
        direct_ = !prepacked_b && is_direct(*uk_, caches, M, N, K, transa, transb);
        if (direct_) return status::success;
        // K much deeper than C is wide or tall, C within L2: the threads
        // split K instead of C, each running the whole loop nest over all of
        // C for its part of K (thread 0 into C, the others into partial C
        // buffers), and then add the parts. Each thread packs B in whole
        // rows (column slices of a shared B are short runs ldb apart) and
        // packs its own A, with no pass over A before the threads start.
        // Two Zen 4 threads: 128x768x3072 1.08x, 64x1024x4096 1.16x,
        // 128x1024x4096 1.10x, 512x512x2048 1.03x.
        k_split_ = k_split_on.load(std::memory_order_relaxed) && nthr_ > 1 && K >= 2 * nthr_ * (M > N ? M : N)
                && (double)M * N * sizeof(float) <= (double)l2;
        // The K split's threads each run all of C: the rule's blocks (the
        // grid and its blocks stay for execute_st and for executions that
        // cannot split, on B packed beforehand).
        ks_mc_ = mc_ < MR ? MR : mc_;
        ks_nc_ = nc_ < NR ? NR : nc_;
        // Each thread's block is smaller than the whole: shrink the buffers.
        dim_t m_per = rnd_up(div_up(div_up(M, MR), nthr_m_) * MR, MR);
        dim_t n_per = rnd_up(div_up(div_up(N, NR), nthr_n_) * NR, NR);
        if (m_per < mc_) mc_ = m_per;
        if (n_per < nc_) nc_ = n_per;
        // One K block over a thread's C beyond L2, with the B block within
        // L2: C is written once, straight to memory, and walking it a row
        // of tiles at a time (12 rows, each written front to back) rather
        // than a column of tiles (every row of the block, 32 columns each)
        // gives the memory a few long write streams instead of hundreds of
        // short ones; the B block is then reread from L2 per row of tiles.
        // A 1x1 convolution's backward data on nchw (256 x 3136 x 64 per
        // image, 16 images on two Zen 5 threads): 1.15x.
        c_rows_ = K <= kc_ && (double)m_per * n_per * sizeof(float) > (double)l2
                && (double)kc_ * nc_ * sizeof(float) <= (double)l2;
    }
    if (mc_ < MR) mc_ = MR;
    if (nc_ < NR) nc_ = NR;
    return status::success;
}

void plan_t::grid(dim_t M, dim_t N, int &nthr_m, int &nthr_n) const {
    const dim_t mb = div_up(M, uk_->mr), nb = div_up(N, uk_->nr);
    split_2d(mb < 1 ? 1 : mb, nb < 1 ? 1 : nb, nthr_, nthr_m, nthr_n);
}

// With a shared op(A) (share_t) a thread's A region holds its part when
// that is larger than a block.
size_t plan_t::pack_a_bytes() const {
    const size_t blk = (size_t)(k_split_ && ks_mc_ > mc_ ? ks_mc_ : mc_) * kc_ * sizeof(float);
    if (skinny_ || direct_) return blk;
    const share_t sh = share_mode(uk_->mr, M_, N_, K_, transb_, nthr_, nthr_m_, nthr_n_);
    return sh.a && sh.bytes() > blk ? sh.bytes() : blk;
}
bool plan_t::skinny_at(dim_t M, dim_t N) const {
    if (!is_runtime(M_) && !is_runtime(N_) && !is_runtime(K_)) return skinny_;
    return is_skinny(*uk_, M, N);
}

// With k_split the region also holds the thread's partial C (M x N) after
// a B block of the split's width (plan_t::book: only the partial when B
// is given packed).
size_t plan_t::pack_b_bytes() const {
    const size_t blk = (size_t)nc_ * kc_;
    if (!k_split_) return blk * sizeof(float);
    const size_t ks = (size_t)ks_nc_ * kc_ + (size_t)M_ * N_;
    return (ks > blk ? ks : blk) * sizeof(float);
}

void plan_t::book(scratchpad::registry_t &reg, scratchpad::key_t base, bool b_given) const {
    if (skinny_ || direct_) return; // no packing
    reg.book_per_thread(base + key_pack_a, pack_a_bytes(), 64);
    if (!b_given) reg.book_per_thread(base + key_pack_b, pack_b_bytes(), 64);
    else if (k_split_) reg.book_per_thread(base + key_pack_b, (size_t)M_ * N_ * sizeof(float), 64);
}

bool plan_t::packs_b_in_tiles() const {
    return packs_b() && !transb_ && uk_->packing[1];
}

size_t plan_t::packed_b_bytes() const {
    return packs_b() ? (size_t)rnd_up(N_, uk_->nr) * K_ * sizeof(float) : 0;
}

void plan_t::pack_b_all(const float *B, dim_t ldb, float *bp) const {
    if (!packs_b()) return;
    const ukernel_t &uk = *uk_;
    const pack_fn_t pt = uk.pack_transposing ? uk.pack_transposing : pack_transposing;
    const dim_t panels = div_up(N_, uk.nr);
    parallel(nthr_ < panels ? nthr_ : (int)panels, [&](int ithr, int nthr) {
        dim_t ps, pe;
        balance211(panels, nthr, ithr, ps, pe);
        const dim_t j0 = ps * uk.nr, j1 = pe * uk.nr < N_ ? pe * uk.nr : N_;
        if (j0 >= j1) return;
        pack_b(transb_ ? B + j0 * ldb : B + j0, ldb, transb_, K_, j1 - j0, uk.nr, bp + j0 * K_, pt);
    });
}

status_t plan_t::execute_st(dim_t M, dim_t N, dim_t K, float alpha, const float *A, dim_t lda,
        const float *B, dim_t ldb, float beta, float *C, dim_t ldc,
        const scratchpad::grantor_t &g, scratchpad::key_t base, int ithr,
        const epilogue_t *ep, const float *packed_b) const {
    if (M <= 0 || N <= 0) return status::success;
    const args_t a {M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, transa_, transb_, ep};
    if (skinny_at(M, N)) {
        run_skinny(a, *uk_, 0, skinny_cols(a));
        return status::success;
    }
    if (direct_) {
        run_direct(a, *uk_, 0, M, 0, N);
        return status::success;
    }
    prepacked_t bpre;
    bpre.whole = usable_packed_b(M, N, K, packed_b);
    float *pa = nullptr, *pb = nullptr;
    if (K > 0) {
        pa = g.get<float>(base + key_pack_a, ithr);
        if (!bpre.whole) pb = g.get<float>(base + key_pack_b, ithr);
        if (!pa || (!pb && !bpre.whole)) return status::out_of_memory;
    }
    bpre.K = K;
    run_block(a, *uk_, mc_, nc_, kc_, 0, M, 0, N, pa, pb, bpre, prepacked_t(), c_rows_);
    return status::success;
}

status_t plan_t::execute(dim_t M, dim_t N, dim_t K, float alpha, const float *A, dim_t lda,
        const float *B, dim_t ldb, float beta, float *C, dim_t ldc,
        const scratchpad::grantor_t &g, scratchpad::key_t base, const epilogue_t *ep,
        const float *packed_b) const {
    if (M <= 0 || N <= 0) return status::success;
    const args_t a {M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, transa_, transb_, ep};
    if (skinny_at(M, N)) {
        const dim_t cols = skinny_cols(a), units = div_up(cols, skinny_unit);
        int nthr = nthr_;
        if (!skinny_) { // runtime sizes: the same rule as init()
            const double flops = (double)M * N * (K > 0 ? K : 1);
            const int n = (int)(flops / min_flops_per_thread);
            if (n < nthr) nthr = n < 1 ? 1 : n;
        }
        if (units < nthr) nthr = (int)units;
        parallel(nthr, [&](int ithr, int nthr) {
            dim_t us, ue;
            balance211(units, nthr, ithr, us, ue);
            run_skinny(a, *uk_, us * skinny_unit, ue * skinny_unit < cols ? ue * skinny_unit : cols);
        });
        return status::success;
    }
    if (direct_) { // known sizes: the plan's grid
        parallel(nthr_, [&](int ithr, int) {
            dim_t ms, me, ns, ne;
            thread_block(M, N, uk_->mr, uk_->nr, nthr_m_, nthr_n_, ithr, ms, me, ns, ne);
            if (ms < me && ns < ne) run_direct(a, *uk_, ms, me, ns, ne);
        });
        return status::success;
    }
    int nthr = nthr_, nthr_m = nthr_m_, nthr_n = nthr_n_;
    if (is_runtime(M_) || is_runtime(N_) || is_runtime(K_)) {
        const double flops = (double)M * N * (K > 0 ? K : 1);
        int n = (int)(flops / min_flops_per_thread);
        if (n < nthr) nthr = n < 1 ? 1 : n;
        const dim_t mb = div_up(M, uk_->mr), nb = div_up(N, uk_->nr);
        split_2d(mb, nb, nthr, nthr_m, nthr_n);
        nthr = nthr_m * nthr_n;
    }
    if (nthr > g.nthr()) { // fewer slabs granted than planned: one thread
        nthr = 1;
        nthr_m = nthr_n = 1;
    }
    if (nthr == 1)
        return execute_st(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, g, base, 0, ep, packed_b);
    const float *bpre = usable_packed_b(M, N, K, packed_b);
    if (k_split_ && nthr == nthr_ && M == M_ && N == N_ && K == K_)
        return run_k_split(a, *uk_, nthr, ks_mc_, ks_nc_, kc_, c_rows_, g, base, bpre);
    const share_t sh = !bpre && nthr == nthr_ && M == M_ && N == N_ && K == K_
            ? share_mode(uk_->mr, M, N, K, transb_, nthr_, nthr_m_, nthr_n_)
            : share_t();

    std::atomic<bool> oom {false};
    if (sh.a) { // each thread packs its part of op(A)
        const pack_fn_t pt = uk_->pack_transposing ? uk_->pack_transposing : pack_transposing;
        parallel(nthr, [&](int ithr, int) {
            const dim_t lo = ithr * sh.part;
            if (lo >= M) return;
            const dim_t w = M - lo < sh.part ? M - lo : sh.part;
            float *dst = g.get<float>(base + key_pack_a, ithr);
            if (!dst) {
                oom = true;
                return;
            }
            pack_a(transa_ ? A + lo : A + lo * lda, lda, transa_, w, K, uk_->mr, dst, pt);
        });
        if (oom) return status::out_of_memory;
    }
    parallel(nthr, [&](int ithr, int) {
        dim_t ms, me, ns, ne;
        thread_block(M, N, uk_->mr, uk_->nr, nthr_m, nthr_n, ithr, ms, me, ns, ne);
        if (ms >= me || ns >= ne) return;
        float *pa = nullptr, *pb = nullptr;
        if (K > 0) {
            pa = g.get<float>(base + key_pack_a, ithr);
            if (!bpre) pb = g.get<float>(base + key_pack_b, ithr);
            if (!pa || (!pb && !bpre)) {
                oom = true;
                return;
            }
        }
        prepacked_t bp, ap;
        bp.K = ap.K = K;
        bp.whole = bpre;
        if (sh.a) {
            ap.g = &g;
            ap.key = base + key_pack_a;
            ap.part = sh.part;
        }
        run_block(a, *uk_, mc_, nc_, kc_, ms, me, ns, ne, pa, pb, bp, ap, c_rows_);
    });
    return oom ? status::out_of_memory : status::success;
}

} // namespace gemm
} // namespace kestrel
