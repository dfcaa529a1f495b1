// The output side of the int8 GEMM shared by matmul and inner product:
// f32 rows into any dst type with rounding and saturation, and the
// epilogue that turns s32 tiles into dst through the float output stage.
#ifndef KESTREL_CPU_GEMM_S8_OUT_HPP
#define KESTREL_CPU_GEMM_S8_OUT_HPP

#include <cmath>

#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/isa.hpp"
#include "cpu/simd.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace gemm {

// f32 to an integer type as store_f32 does it (NaN to 0, round to nearest
// even, saturate), but without a libm call per element so that rows
// vectorize: below 2^23 adding and removing 1.5 * 2^23 rounds to nearest
// even in the default rounding mode; from 2^23 on every f32 is an integer.
template <typename T>
inline T round_sat(float f, float lo, float hi) {
    if (f != f) return 0;
    const float magic = 12582912.f;
    float r = std::fabs(f) < 8388608.f ? (f + magic) - magic : f;
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    return (T)r;
}

// The same for 8-bit types, without branches (NaN to 0 by a select, the
// clamp before the rounding: the bounds are integers), so the row loops
// below compile to straight-line code.
template <typename T>
inline T round_sat8(float f, float lo, float hi) {
    float r = f == f ? f : 0.f;
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    const float magic = 12582912.f;
    return (T)(int)((r + magic) - magic);
}

// n values into 8-bit dst. -O2 leaves loops of unknown length scalar; this
// one is worth the vector code (it runs once per output element of every
// int8 primitive), so it asks for the cheap cost model.
// (GCC's optimize attribute; clang has none and vectorises this loop anyway.)
#if defined(__GNUC__) && !defined(__clang__)
#define KESTREL_VECTORIZE_CHEAP __attribute__((optimize("tree-vectorize", "vect-cost-model=cheap")))
#else
#define KESTREL_VECTORIZE_CHEAP
#endif
template <typename T>
KESTREL_VECTORIZE_CHEAP inline void store_row8(
        T *d, const float *t, dim_t n, float lo, float hi) {
    for (dim_t j = 0; j < n; ++j) d[j] = round_sat8<T>(t[j], lo, hi);
}

// n exact s32 sums into s32 dst through f32, as the float output path
// rounds them; only the saturation at 2^31 is left to do (vectorised: it
// runs once per element of every plain s32 int8 GEMM).
KESTREL_VECTORIZE_CHEAP inline void store_s32_via_f32(int32_t *d, const int32_t *a, dim_t n) {
    for (dim_t j = 0; j < n; ++j) {
        const float f = (float)a[j];
        d[j] = f >= 2147483648.f ? INT32_MAX : (int32_t)f;
    }
}

// One row of f32 values into dst of type dt, from element `off`.
inline void store_row(data_type_t dt, void *dst, dim_t off, const float *t, dim_t n) {
    switch (dt) {
        case dnnl_f32: {
            float *d = static_cast<float *>(dst) + off;
            for (dim_t j = 0; j < n; ++j) d[j] = t[j];
            return;
        }
        case dnnl_s32: {
            // 2^31 and above saturate to INT32_MAX; 2147483520 is the
            // largest f32 below 2^31.
            int32_t *d = static_cast<int32_t *>(dst) + off;
            for (dim_t j = 0; j < n; ++j)
                d[j] = t[j] >= 2147483648.f ? INT32_MAX
                                            : round_sat<int32_t>(t[j], -2147483648.f, 2147483520.f);
            return;
        }
        case dnnl_s8: {
            int8_t *d = static_cast<int8_t *>(dst) + off;
            store_row8(d, t, n, -128.f, 127.f);
            return;
        }
        case dnnl_u8: {
            uint8_t *d = static_cast<uint8_t *>(dst) + off;
            store_row8(d, t, n, 0.f, 255.f);
            return;
        }
        default:
            for (dim_t j = 0; j < n; ++j) store_f32(dt, dst, off + j, t[j]);
    }
}

#if defined(__x86_64__)
// The tile without an output stage or a sum, into s8, u8 or f32 dst, 16
// values at a time: f = alpha * (float)(acc - zp * colsum) (s32 wrapping),
// then for 8-bit dst NaN to 0, the clamp to the type's range and the
// conversion in the current rounding mode (to nearest even, as
// round_sat8), for f32 the value itself. The scalar loops below compute
// the same; this is the common int8 output (a scale folded into alpha).
__attribute__((target("avx512f,avx512bw"))) inline void s8_tile_out_avx512(const int32_t *acc, dim_t ld, dim_t m,
        dim_t n, float alpha, uint32_t zp, const int32_t *col_sum, data_type_t ddt, char *dst, dim_t ldc) {
    const __m512 va = _mm512_set1_ps(alpha);
    const __m512 lo = _mm512_set1_ps(ddt == dnnl_s8 ? -128.f : 0.f), hi = _mm512_set1_ps(ddt == dnnl_s8 ? 127.f : 255.f);
    const __m512i vzp = _mm512_set1_epi32((int)zp);
    for (dim_t i = 0; i < m; ++i)
        for (dim_t j = 0; j < n; j += 16) {
            const __mmask16 k = n - j >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - j)) - 1u);
            __m512i a = _mm512_maskz_loadu_epi32(k, acc + i * ld + j);
            if (zp) a = _mm512_sub_epi32(a, _mm512_mullo_epi32(vzp, _mm512_maskz_loadu_epi32(k, col_sum + j)));
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(a), va);
            const dim_t o = i * ldc + j;
            if (ddt == dnnl_f32) {
                _mm512_mask_storeu_ps(reinterpret_cast<float *>(dst) + o, k, f);
                continue;
            }
            if (ddt == dnnl_u8) {
                // max(f, 0) returns its second operand for a NaN: 0; the
                // unsigned saturation of the store clamps at 255 (from 2^31
                // up the conversion gives 0x80000000, saturated as well).
                _mm512_mask_cvtusepi32_storeu_epi8(dst + o, k, _mm512_cvtps_epi32(_mm512_max_ps(f, lo)));
                continue;
            }
            // s8: the signed saturation of the store clamps below; above,
            // the clamp comes before the conversion (2^31 and up would
            // convert to INT32_MIN).
            f = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(f, f, _CMP_ORD_Q), f);
            _mm512_mask_cvtsepi32_storeu_epi8(dst + o, k, _mm512_cvtps_epi32(_mm512_min_ps(f, hi)));
        }
}
#endif

// One GEMM's tiles into dst: the exact s32 sum minus src_zp * colsum(B),
// then as the float GEMM path does it: alpha * acc (+ beta * old dst for a
// leading sum), the output stage, dst's rounding and saturation.
class s8_out_t : public s8_epilogue_t {
public:
    const out_stage_t *stage = nullptr; // nullptr: nothing to apply
    float alpha = 1.f, beta = 0.f;
    int32_t src_zp = 0;
    char *dst = nullptr; // element (0, 0) of this GEMM's C
    data_type_t ddt = dnnl_f32;
    dim_t ldc = 0;

    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld,
            const int32_t *, const int32_t *col_sum) const override {
        if (!stage && beta == 0.f && !src_zp && alpha == 1.f && ddt == dnnl_s32) {
            // Plain s32 out: the value goes through f32 as below (integral,
            // so only the saturation at 2^31 is left to do).
            for (dim_t i = 0; i < m; ++i)
                store_s32_via_f32(reinterpret_cast<int32_t *>(dst) + (m0 + i) * ldc + n0, acc + i * ld, n);
            return;
        }
        const uint32_t zp = (uint32_t)src_zp;
#if defined(__x86_64__)
        if (!stage && beta == 0.f && (ddt == dnnl_s8 || ddt == dnnl_u8 || ddt == dnnl_f32) && isa::has(isa::avx512)) {
            const size_t sz = ddt == dnnl_f32 ? 4 : 1;
            s8_tile_out_avx512(acc, ld, m, n, alpha, zp, col_sum, ddt, dst + (m0 * ldc + n0) * sz, ldc);
            return;
        }
#endif
        float t[s8_max_mr * s8_max_nr];
        for (dim_t i = 0; i < m; ++i) {
            const int32_t *a = acc + i * ld;
            float *ti = t + i * n;
            if (zp)
                for (dim_t j = 0; j < n; ++j)
                    ti[j] = alpha * (float)(int32_t)((uint32_t)a[j] - zp * (uint32_t)col_sum[j]);
            else
                for (dim_t j = 0; j < n; ++j) ti[j] = alpha * (float)a[j];
            if (beta != 0.f)
                for (dim_t j = 0; j < n; ++j)
                    ti[j] = std::fma(beta, load_f32(ddt, dst, (m0 + i) * ldc + n0 + j), ti[j]);
        }
        if (stage) stage->apply(m0, n0, m, n, t, n);
        for (dim_t i = 0; i < m; ++i) store_row(ddt, dst, (m0 + i) * ldc + n0, t + i * n, n);
    }
};

} // namespace gemm
} // namespace kestrel

#endif
