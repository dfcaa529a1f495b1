// Direct int8 convolution register tiles, AVX-VNNI (VEX vpdpbusd on ymm;
// contract in conv_s8_direct.hpp). The weights are the same
// [g]OI..4i16o4i: a quad of 16 output channels x 4 input channels is two
// ymm (channels 0-7 and 8-15). One block of 16 oc per tile (NOC 1) and up
// to 6 columns: 12 accumulators, 2 weight registers, the broadcast and the
// flip mask fill the 16 ymm. The sums always go to the tile buffer (the
// driver runs the output stage).
#include <cstring>

#include "cpu/conv/conv_s8_direct.hpp"

#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 11)
#include <immintrin.h>
#define KESTREL_HAVE_AVXVNNI_DIRECT 1
#endif

namespace kestrel {

#ifdef KESTREL_HAVE_AVXVNNI_DIRECT
namespace {

#define KESTREL_AVXVNNI_FN __attribute__((target("avx2,fma,avxvnni")))

// The quad's bytes at p as one dword in every lane; rem > 0: only the first
// rem bytes exist (the others read as 0).
KESTREL_AVXVNNI_FN __attribute__((always_inline)) inline __m256i bcast4(const uint8_t *p, int rem) {
    int32_t v = 0;
    std::memcpy(&v, p, rem ? (size_t)rem : 4);
    return _mm256_set1_epi32(v);
}

template <int URW, bool CHECK, bool SHIFT>
KESTREL_AVXVNNI_FN KESTREL_TILE_STEP void quad(__m256i (&acc)[2][URW], const uint8_t *s,
        const uint8_t *const *cols, dim_t s_col, const int8_t *w, dim_t q4, int rem, __m256i flip) {
    const __m256i w0 = _mm256_loadu_si256((const __m256i *)(w + q4 * 16));
    const __m256i w1 = _mm256_loadu_si256((const __m256i *)(w + q4 * 16 + 32));
    KESTREL_UNROLL(8)
    for (int j = 0; j < URW; ++j) {
        __m256i b = bcast4((CHECK ? cols[j] : s + j * s_col) + q4, rem);
        if (SHIFT) b = _mm256_xor_si256(b, flip);
        acc[0][j] = _mm256_dpbusd_avx_epi32(acc[0][j], b, w0);
        acc[1][j] = _mm256_dpbusd_avx_epi32(acc[1][j], b, w1);
    }
}

template <int NOC, int URW, bool CHECK, bool SHIFT>
KESTREL_AVXVNNI_FN void tile(const s8_direct_conf_t &c, const s8_direct_args_t &t) {
    static_assert(NOC == 1, "one oc block per AVX-VNNI tile");
    __m256i acc[2][URW];
    KESTREL_UNROLL(8)
    for (int j = 0; j < URW; ++j) acc[0][j] = acc[1][j] = _mm256_setzero_si256();
    const __m256i flip = _mm256_set1_epi32((int32_t)0x80808080u);
    const uint8_t *cols[URW];
    for (dim_t icb = 0; icb < c.nicb; ++icb) {
        const bool lastb = icb + 1 == c.nicb;
        const dim_t nq = lastb ? c.ic_tail / 4 : 4;
        const int rem = lastb ? (int)(c.ic_tail % 4) : 0;
        for (dim_t kd = 0; kd < t.nkd; ++kd)
            for (dim_t kh = 0; kh < t.nkh; ++kh) {
                const uint8_t *srow = t.src + icb * 16 + kd * c.tap_d + kh * c.tap_h;
                const int8_t *wrow = t.wei + icb * c.w_icb + kd * c.w_kd + kh * c.w_kh;
                for (dim_t kw = 0; kw < c.KW; ++kw) {
                    const uint8_t *s = srow + kw * c.tap_w;
                    const int8_t *w = wrow + kw * c.w_kw;
                    if (CHECK) {
                        const dim_t iw = t.iw0 + kw * c.DW1;
                        KESTREL_UNROLL(8)
                        for (int j = 0; j < URW; ++j) {
                            const bool in = iw + j * c.SW >= 0 && iw + j * c.SW < c.IW;
                            cols[j] = in ? s + j * c.s_col : t.pad;
                        }
                    }
                    for (dim_t q = 0; q < nq; ++q) quad<URW, CHECK, SHIFT>(acc, s, cols, c.s_col, w, q * 4, 0, flip);
                    if (rem) quad<URW, CHECK, SHIFT>(acc, s, cols, c.s_col, w, nq * 4, rem, flip);
                }
            }
    }
    KESTREL_UNROLL(8)
    for (int j = 0; j < URW; ++j) {
        _mm256_storeu_si256((__m256i *)(t.out + j * 16), acc[0][j]);
        _mm256_storeu_si256((__m256i *)(t.out + j * 16 + 8), acc[1][j]);
    }
}

template <int U>
void fill(s8_direct_kernels_t &k) {
    if constexpr (U > 0) {
        k.fn[1][U][0][0] = tile<1, U, false, false>;
        k.fn[1][U][1][0] = tile<1, U, true, false>;
        k.fn[1][U][0][1] = tile<1, U, false, true>;
        k.fn[1][U][1][1] = tile<1, U, true, true>;
        fill<U - 1>(k);
    }
}

} // namespace

bool s8_direct_avx2_vnni_kernels(s8_direct_kernels_t &k) {
    fill<6>(k);
    return true;
}
#else
bool s8_direct_avx2_vnni_kernels(s8_direct_kernels_t &) { return false; }
#endif

} // namespace kestrel
