// AVX512-VNNI 8x48 int8 microkernel: 24 zmm accumulators; per group of 4 k,
// three B vectors (16 columns x 4 bytes each) and one 4-byte broadcast of A
// per row, vpdpbusd (u8 x s8, four products summed into s32).
// Contract: kernels_s8.hpp.
#include "cpu/gemm/kernels_s8.hpp"

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

KESTREL_VNNI void kernel(
        dim_t k4, const uint8_t *a, const int8_t *b, const int32_t *init, int32_t *acc) {
    __m512i c[MR][3];
    const __m512i z = _mm512_setzero_si512();
    const __m512i i0 = init ? _mm512_loadu_si512(init) : z;
    const __m512i i1 = init ? _mm512_loadu_si512(init + 16) : z;
    const __m512i i2 = init ? _mm512_loadu_si512(init + 32) : z;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
        c[i][0] = i0;
        c[i][1] = i1;
        c[i][2] = i2;
    }
#pragma GCC unroll 2
    for (dim_t g = 0; g < k4; ++g) {
        const int8_t *bg = b + g * NR * 4;
        const __m512i b0 = _mm512_load_si512(bg);
        const __m512i b1 = _mm512_load_si512(bg + 64);
        const __m512i b2 = _mm512_load_si512(bg + 128);
        const uint8_t *ag = a + g * MR * 4;
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
            int32_t a4;
            std::memcpy(&a4, ag + i * 4, 4);
            const __m512i av = _mm512_set1_epi32(a4);
            c[i][0] = _mm512_dpbusd_epi32(c[i][0], av, b0);
            c[i][1] = _mm512_dpbusd_epi32(c[i][1], av, b1);
            c[i][2] = _mm512_dpbusd_epi32(c[i][2], av, b2);
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
        _mm512_store_si512(acc + i * NR, c[i][0]);
        _mm512_store_si512(acc + i * NR + 16, c[i][1]);
        _mm512_store_si512(acc + i * NR + 32, c[i][2]);
    }
}

const s8_ukernel_t table = {"u8s8s32_gemm_8x48__avx512vnni", MR, NR, kernel};

} // namespace

const s8_ukernel_t *u8s8s32_gemm_8x48__avx512vnni() { return &table; }
#else
const s8_ukernel_t *u8s8s32_gemm_8x48__avx512vnni() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
