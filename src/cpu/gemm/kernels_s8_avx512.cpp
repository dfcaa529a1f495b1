// AVX512-VNNI 8x48 int8 microkernel: 24 zmm accumulators; per group of 4 k,
// three B vectors (16 columns x 4 bytes each) and one 4-byte broadcast of A
// per row, vpdpbusd (u8 x s8, four products summed into s32). Variants for
// 1..7 rows serve short panels (M = 1 matmul, a batch-1 RNN step); the
// direct variant reads A's eight rows in place instead of a packed panel.
// Contracts: kernels_s8.hpp, kernels_s8_direct.hpp.
#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/gemm/kernels_s8_direct.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define KESTREL_HAVE_VNNI_S8_KERNEL 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_VNNI_S8_KERNEL
namespace {

constexpr int MR = 8, NR = 48;

#define KESTREL_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

// One group of 4 k into rows [0, R) of one accumulator set.
template <int R>
KESTREL_VNNI KESTREL_TILE_STEP void step(
        const uint8_t *a, const int8_t *b, dim_t g, __m512i (&c)[R][3]) {
    const int8_t *bg = b + g * NR * 4;
    const __m512i b0 = _mm512_loadu_si512(bg);
    const __m512i b1 = _mm512_loadu_si512(bg + 64);
    const __m512i b2 = _mm512_loadu_si512(bg + 128);
    const uint8_t *ag = a + g * MR * 4;
KESTREL_UNROLL(8)
    for (int i = 0; i < R; ++i) {
        int32_t a4;
        std::memcpy(&a4, ag + i * 4, 4);
        const __m512i av = _mm512_set1_epi32(a4);
        c[i][0] = _mm512_dpbusd_epi32(c[i][0], av, b0);
        c[i][1] = _mm512_dpbusd_epi32(c[i][1], av, b1);
        c[i][2] = _mm512_dpbusd_epi32(c[i][2], av, b2);
    }
}

// Rows [0, R) of the 8-row panel. Few rows give few accumulator chains,
// so R <= 2 keeps U independent sets over alternating k groups (summed at
// the end) to cover the latency of vpdpbusd.
template <int R>
KESTREL_VNNI void kernel_rows(
        dim_t k4, const uint8_t *a, const int8_t *b, const int32_t *init, int32_t *acc) {
    constexpr int U = R == 1 ? 4 : R == 2 ? 2 : 1;
    __m512i c[U][R][3];
    const __m512i z = _mm512_setzero_si512();
    const __m512i i0 = init ? _mm512_loadu_si512(init) : z;
    const __m512i i1 = init ? _mm512_loadu_si512(init + 16) : z;
    const __m512i i2 = init ? _mm512_loadu_si512(init + 32) : z;
KESTREL_UNROLL(8)
    for (int i = 0; i < R; ++i) {
        c[0][i][0] = i0;
        c[0][i][1] = i1;
        c[0][i][2] = i2;
KESTREL_UNROLL(4)
        for (int u = 1; u < U; ++u) c[u][i][0] = c[u][i][1] = c[u][i][2] = z;
    }
    dim_t g = 0;
    if (U > 1) {
        for (; g + U <= k4; g += U) {
KESTREL_UNROLL(4)
            for (int u = 0; u < U; ++u) step<R>(a, b, g + u, c[u]);
        }
    }
KESTREL_UNROLL(2)
    for (; g < k4; ++g) step<R>(a, b, g, c[0]);
KESTREL_UNROLL(8)
    for (int i = 0; i < R; ++i) {
KESTREL_UNROLL(4)
        for (int u = 1; u < U; ++u)
            for (int v = 0; v < 3; ++v) c[0][i][v] = _mm512_add_epi32(c[0][i][v], c[u][i][v]);
        _mm512_store_si512(acc + i * NR, c[0][i][0]);
        _mm512_store_si512(acc + i * NR + 16, c[0][i][1]);
        _mm512_store_si512(acc + i * NR + 32, c[0][i][2]);
    }
}

// One group of 4 k of the eight rows read in place (row i at r[i]).
KESTREL_VNNI KESTREL_TILE_STEP void step_direct(
        const uint8_t *const (&r)[MR], const int8_t *b, dim_t g, __m512i (&c)[MR][3]) {
    const int8_t *bg = b + g * NR * 4;
    const __m512i b0 = _mm512_loadu_si512(bg);
    const __m512i b1 = _mm512_loadu_si512(bg + 64);
    const __m512i b2 = _mm512_loadu_si512(bg + 128);
    KESTREL_UNROLL(8)
    for (int i = 0; i < MR; ++i) {
        int32_t a4;
        std::memcpy(&a4, r[i] + 4 * g, 4);
        const __m512i av = _mm512_set1_epi32(a4);
        c[i][0] = _mm512_dpbusd_epi32(c[i][0], av, b0);
        c[i][1] = _mm512_dpbusd_epi32(c[i][1], av, b1);
        c[i][2] = _mm512_dpbusd_epi32(c[i][2], av, b2);
    }
}

KESTREL_VNNI void kernel_direct(dim_t k4, const uint8_t *a, dim_t lda, const int8_t *b,
        const int32_t *init, int32_t *acc) {
    const uint8_t *r[MR];
    KESTREL_UNROLL(8)
    for (int i = 0; i < MR; ++i) r[i] = a + i * lda;
    __m512i c[MR][3];
    const __m512i z = _mm512_setzero_si512();
    const __m512i i0 = init ? _mm512_loadu_si512(init) : z;
    const __m512i i1 = init ? _mm512_loadu_si512(init + 16) : z;
    const __m512i i2 = init ? _mm512_loadu_si512(init + 32) : z;
    KESTREL_UNROLL(8)
    for (int i = 0; i < MR; ++i) {
        c[i][0] = i0;
        c[i][1] = i1;
        c[i][2] = i2;
    }
    KESTREL_UNROLL(2)
    for (dim_t g = 0; g < k4; ++g) step_direct(r, b, g, c);
    KESTREL_UNROLL(8)
    for (int i = 0; i < MR; ++i) {
        _mm512_store_si512(acc + i * NR, c[i][0]);
        _mm512_store_si512(acc + i * NR + 16, c[i][1]);
        _mm512_store_si512(acc + i * NR + 32, c[i][2]);
    }
}

const s8_ukernel_fn_t rows_table[MR + 1] = {nullptr, kernel_rows<1>, kernel_rows<2>, kernel_rows<3>,
        kernel_rows<4>, kernel_rows<5>, kernel_rows<6>, kernel_rows<7>, kernel_rows<8>};

const s8_ukernel_t table = {"u8s8s32_gemm_8x48__avx512vnni", MR, NR, kernel_rows<MR>, rows_table};

} // namespace

const s8_ukernel_t *u8s8s32_gemm_8x48__avx512vnni() { return &table; }
s8_direct_fn_t u8s8s32_gemm_8x48__avx512vnni_direct() { return kernel_direct; }
#else
const s8_ukernel_t *u8s8s32_gemm_8x48__avx512vnni() { return nullptr; }
s8_direct_fn_t u8s8s32_gemm_8x48__avx512vnni_direct() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
