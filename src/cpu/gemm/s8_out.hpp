// The output side of the int8 GEMM shared by matmul and inner product:
// f32 rows into any dst type with rounding and saturation, and the
// epilogue that turns s32 tiles into dst through the float output stage.
#ifndef KESTREL_CPU_GEMM_S8_OUT_HPP
#define KESTREL_CPU_GEMM_S8_OUT_HPP

#include <cmath>

#include "cpu/gemm/gemm_s8.hpp"
#include "cpu/gemm/gemm_util.hpp"
#include "cpu/gemm/kernels_s8.hpp"
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
        float t[s8_max_mr * s8_max_nr];
        const uint32_t zp = (uint32_t)src_zp;
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
