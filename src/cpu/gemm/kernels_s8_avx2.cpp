// AVX2 4x16 int8 microkernel. Exact without VNNI: the u8 and s8 bytes are
// widened to 16 bits (even and odd k apart) and multiplied with vpmaddwd,
// whose pair sums (at most 2 * 255 * 128) cannot saturate. vpmaddubsw is not
// used: its s16 pair sums saturate for u8 x s8 inputs.
// Contract: kernels_s8.hpp.
#include "cpu/gemm/kernels_s8.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define KESTREL_HAVE_AVX2_S8_KERNEL 1
#endif

namespace kestrel {
namespace gemm {

#ifdef KESTREL_HAVE_AVX2_S8_KERNEL
namespace {

constexpr int MR = 4, NR = 16;

#define KESTREL_AVX2 __attribute__((target("avx2,fma")))

KESTREL_AVX2 void kernel(
        dim_t k4, const uint8_t *a, const int8_t *b, const int32_t *init, int32_t *acc) {
    __m256i c[MR][2];
    const __m256i i0 = init ? _mm256_loadu_si256((const __m256i *)init) : _mm256_setzero_si256();
    const __m256i i1
            = init ? _mm256_loadu_si256((const __m256i *)(init + 8)) : _mm256_setzero_si256();
    for (int i = 0; i < MR; ++i) {
        c[i][0] = i0;
        c[i][1] = i1;
    }
    const __m256i lo_bytes = _mm256_set1_epi16(0x00ff);
    for (dim_t g = 0; g < k4; ++g) {
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)(b + g * NR * 4));
        const __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + g * NR * 4 + 32));
        // s8 bytes k0, k2 (even) and k1, k3 (odd) of each column, as s16.
        const __m256i b0e = _mm256_srai_epi16(_mm256_slli_epi16(b0, 8), 8);
        const __m256i b0o = _mm256_srai_epi16(b0, 8);
        const __m256i b1e = _mm256_srai_epi16(_mm256_slli_epi16(b1, 8), 8);
        const __m256i b1o = _mm256_srai_epi16(b1, 8);
#pragma GCC unroll 4
        for (int i = 0; i < MR; ++i) {
            int32_t a4;
            std::memcpy(&a4, a + (g * MR + i) * 4, 4);
            const __m256i av = _mm256_set1_epi32(a4);
            const __m256i ae = _mm256_and_si256(av, lo_bytes); // u8 k0, k2
            const __m256i ao = _mm256_srli_epi16(av, 8); // u8 k1, k3
            c[i][0] = _mm256_add_epi32(c[i][0],
                    _mm256_add_epi32(_mm256_madd_epi16(ae, b0e), _mm256_madd_epi16(ao, b0o)));
            c[i][1] = _mm256_add_epi32(c[i][1],
                    _mm256_add_epi32(_mm256_madd_epi16(ae, b1e), _mm256_madd_epi16(ao, b1o)));
        }
    }
    for (int i = 0; i < MR; ++i) {
        _mm256_store_si256((__m256i *)(acc + i * NR), c[i][0]);
        _mm256_store_si256((__m256i *)(acc + i * NR + 8), c[i][1]);
    }
}

const s8_ukernel_t table = {"u8s8s32_gemm_4x16__avx2", MR, NR, kernel, nullptr};

} // namespace

const s8_ukernel_t *u8s8s32_gemm_4x16__avx2() { return &table; }
#else
const s8_ukernel_t *u8s8s32_gemm_4x16__avx2() { return nullptr; }
#endif

} // namespace gemm
} // namespace kestrel
