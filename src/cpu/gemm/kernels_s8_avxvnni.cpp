// AVX-VNNI 6x16 int8 microkernel, for CPUs with the VEX-encoded vpdpbusd on
// 256-bit registers (oneDNN's avx2_vnni tier: Alder Lake and later client
// cores, Zen 5) and for AVX-512 machines capped at AVX2_VNNI. Each vpdpbusd
// adds four u8 x s8 products per lane to s32 without saturation, so the
// sums are exact (mod 2^32), as the contract in kernels_s8.hpp requires.
// 12 ymm accumulators, 2 for the B group and 1 for the A broadcast.
#include "cpu/gemm/kernels_s8.hpp"

#include <cstring>

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 11)
#include <immintrin.h>
#define KESTREL_HAVE_AVXVNNI_S8_KERNEL 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVXVNNI_S8_KERNEL
namespace {

constexpr int MR = 6, NR = 16;

#define KESTREL_AVXVNNI __attribute__((target("avx2,fma,avxvnni")))

KESTREL_AVXVNNI void kernel(
        dim_t k4, const uint8_t *a, const int8_t *b, const int32_t *init, int32_t *acc) {
    const __m256i z = _mm256_setzero_si256();
    const __m256i i0 = init ? _mm256_loadu_si256((const __m256i *)init) : z;
    const __m256i i1 = init ? _mm256_loadu_si256((const __m256i *)(init + 8)) : z;
    __m256i c[MR][2];
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
        c[i][0] = i0;
        c[i][1] = i1;
    }
#pragma GCC unroll 2
    for (dim_t g = 0; g < k4; ++g) {
        const int8_t *bg = b + g * NR * 4;
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)bg);
        const __m256i b1 = _mm256_loadu_si256((const __m256i *)(bg + 32));
        const uint8_t *ag = a + g * MR * 4;
#pragma GCC unroll 6
        for (int i = 0; i < MR; ++i) {
            int32_t a4;
            std::memcpy(&a4, ag + i * 4, 4);
            const __m256i av = _mm256_set1_epi32(a4);
            c[i][0] = _mm256_dpbusd_avx_epi32(c[i][0], av, b0);
            c[i][1] = _mm256_dpbusd_avx_epi32(c[i][1], av, b1);
        }
    }
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
        _mm256_store_si256((__m256i *)(acc + i * NR), c[i][0]);
        _mm256_store_si256((__m256i *)(acc + i * NR + 8), c[i][1]);
    }
}

const s8_ukernel_t table = {"u8s8s32_gemm_6x16__avxvnni", MR, NR, kernel, nullptr};

} // namespace

const s8_ukernel_t *u8s8s32_gemm_6x16__avxvnni() { return &table; }
#else
const s8_ukernel_t *u8s8s32_gemm_6x16__avxvnni() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
