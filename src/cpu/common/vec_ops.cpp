// The vec_ops_t tables: one body (vec_ops_body.inc) instantiated for
// AVX-512, AVX2+FMA and plain scalar code; the ISA regions are compiled with
// target attributes (via push_options) so the library stays baseline x86-64.
// No contraction of a separate multiply and add into an FMA: acc_sq and
// lrn_out promise the bits of the scalar formula (FMA is asked for
// explicitly through V::fmadd where it is wanted).
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#else
#pragma GCC optimize("fp-contract=off")
#endif
#include <immintrin.h>

#include "cpu/isa.hpp"
#include "cpu/common/common.hpp"

namespace kestrel {
namespace pool {

namespace scalar_impl {
struct V {
    static constexpr int W = 1;
    using vec = float;
    static vec load(const void *p, data_type_t dt) { return load_f32(dt, p, 0); }
    static vec loadf(const float *p) { return *p; }
    static void store(void *p, data_type_t dt, vec v) { store_f32(dt, p, 0, v); }
    static void storef(float *p, vec v) { *p = v; }
    static vec set1(float v) { return v; }
    static vec add(vec a, vec b) { return a + b; }
    static vec sub(vec a, vec b) { return a - b; }
    static vec mul(vec a, vec b) { return a * b; }
    static vec fmadd(vec a, vec b, vec c) { return a * b + c; }
    static vec max(vec a, vec b) { return b > a ? b : a; }
    static vec min(vec a, vec b) { return b < a ? b : a; }
    static vec abs(vec a) { return std::fabs(a); }
    static vec div(vec a, vec b) { return a / b; }
    static vec sqrt(vec a) { return std::sqrt(a); }
    static float lane(vec v, int) { return v; }
    static float hsum(vec v) { return v; }
    static void max_idx(float *acc, int32_t *idx, vec x, int32_t k) {
        if (x > *acc) {
            *acc = x;
            *idx = k;
        }
    }
};
static const char *const isa_name = "scalar";
#include "cpu/common/vec_ops_body.inc"
} // namespace scalar_impl

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace avx2_impl {
struct V {
    static constexpr int W = 8;
    using vec = __m256;
    static vec load(const void *p, data_type_t dt) {
        if (dt == dnnl_f32) return _mm256_loadu_ps(static_cast<const float *>(p));
        __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(static_cast<const __m128i *>(p)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
    }
    static vec loadf(const float *p) { return _mm256_loadu_ps(p); }
    static void store(void *p, data_type_t dt, vec v) {
        if (dt == dnnl_f32) {
            _mm256_storeu_ps(static_cast<float *>(p), v);
            return;
        }
        // Round to nearest even; NaN stays a quiet NaN.
        __m256i b = _mm256_castps_si256(v);
        __m256i hi = _mm256_srli_epi32(b, 16);
        __m256i lsb = _mm256_and_si256(hi, _mm256_set1_epi32(1));
        __m256i r = _mm256_srli_epi32(
                _mm256_add_epi32(b, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
        __m256i qnan = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
        __m256 isnan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
        r = _mm256_castps_si256(
                _mm256_blendv_ps(_mm256_castsi256_ps(r), _mm256_castsi256_ps(qnan), isnan));
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
        _mm_storeu_si128(static_cast<__m128i *>(p), _mm256_castsi256_si128(packed));
    }
    static void storef(float *p, vec v) { _mm256_storeu_ps(p, v); }
    static vec set1(float v) { return _mm256_set1_ps(v); }
    static vec add(vec a, vec b) { return _mm256_add_ps(a, b); }
    static vec sub(vec a, vec b) { return _mm256_sub_ps(a, b); }
    static vec mul(vec a, vec b) { return _mm256_mul_ps(a, b); }
    static vec fmadd(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
    // b > a ? b : a, so a NaN in b never replaces a (matches the scalar rule).
    static vec max(vec a, vec b) { return _mm256_blendv_ps(a, b, _mm256_cmp_ps(b, a, _CMP_GT_OQ)); }
    static vec min(vec a, vec b) { return _mm256_blendv_ps(a, b, _mm256_cmp_ps(b, a, _CMP_LT_OQ)); }
    static vec abs(vec a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.f), a); }
    static vec div(vec a, vec b) { return _mm256_div_ps(a, b); }
    static vec sqrt(vec a) { return _mm256_sqrt_ps(a); }
    static float lane(vec v, int i) {
        alignas(32) float t[8];
        _mm256_store_ps(t, v);
        return t[i];
    }
    static float hsum(vec v) {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    static void max_idx(float *acc, int32_t *idx, vec x, int32_t k) {
        __m256 a = _mm256_loadu_ps(acc);
        __m256 gt = _mm256_cmp_ps(x, a, _CMP_GT_OQ);
        _mm256_storeu_ps(acc, _mm256_blendv_ps(a, x, gt));
        __m256 i = _mm256_loadu_ps(reinterpret_cast<const float *>(idx));
        __m256 kk = _mm256_castsi256_ps(_mm256_set1_epi32(k));
        _mm256_storeu_ps(reinterpret_cast<float *>(idx), _mm256_blendv_ps(i, kk, gt));
    }
};
static const char *const isa_name = "avx2";
#include "cpu/common/vec_ops_body.inc"
} // namespace avx2_impl
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq")
#endif
namespace avx512_impl {
struct V {
    static constexpr int W = 16;
    using vec = __m512;
    static vec load(const void *p, data_type_t dt) {
        if (dt == dnnl_f32) return _mm512_loadu_ps(p);
        __m512i h = _mm512_cvtepu16_epi32(_mm256_loadu_si256(static_cast<const __m256i *>(p)));
        return _mm512_castsi512_ps(_mm512_slli_epi32(h, 16));
    }
    static vec loadf(const float *p) { return _mm512_loadu_ps(p); }
    static void store(void *p, data_type_t dt, vec v) {
        if (dt == dnnl_f32) {
            _mm512_storeu_ps(p, v);
            return;
        }
        __m512i b = _mm512_castps_si512(v);
        __m512i hi = _mm512_srli_epi32(b, 16);
        __m512i lsb = _mm512_and_si512(hi, _mm512_set1_epi32(1));
        __m512i r = _mm512_srli_epi32(
                _mm512_add_epi32(b, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
        __mmask16 isnan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        r = _mm512_mask_mov_epi32(r, isnan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
        _mm256_storeu_si256(static_cast<__m256i *>(p), _mm512_cvtepi32_epi16(r));
    }
    static void storef(float *p, vec v) { _mm512_storeu_ps(p, v); }
    static vec set1(float v) { return _mm512_set1_ps(v); }
    static vec add(vec a, vec b) { return _mm512_add_ps(a, b); }
    static vec sub(vec a, vec b) { return _mm512_sub_ps(a, b); }
    static vec mul(vec a, vec b) { return _mm512_mul_ps(a, b); }
    static vec fmadd(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }
    static vec max(vec a, vec b) {
        return _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(b, a, _CMP_GT_OQ), b);
    }
    static vec min(vec a, vec b) {
        return _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(b, a, _CMP_LT_OQ), b);
    }
    static vec abs(vec a) {
        return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7fffffff)));
    }
    static vec div(vec a, vec b) { return _mm512_div_ps(a, b); }
    static vec sqrt(vec a) { return _mm512_sqrt_ps(a); }
    static float lane(vec v, int i) {
        alignas(64) float t[16];
        _mm512_store_ps(t, v);
        return t[i];
    }
    static float hsum(vec v) {
        __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
                _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }
    static void max_idx(float *acc, int32_t *idx, vec x, int32_t k) {
        __m512 a = _mm512_loadu_ps(acc);
        __mmask16 gt = _mm512_cmp_ps_mask(x, a, _CMP_GT_OQ);
        _mm512_storeu_ps(acc, _mm512_mask_mov_ps(a, gt, x));
        __m512i i = _mm512_loadu_si512(idx);
        _mm512_storeu_si512(idx, _mm512_mask_mov_epi32(i, gt, _mm512_set1_epi32(k)));
    }
};
static const char *const isa_name = "avx512";
#include "cpu/common/vec_ops_body.inc"
} // namespace avx512_impl
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

const vec_ops_t &vec_ops() {
    if (isa::has(isa::avx512)) return avx512_impl::table;
    if (isa::has(isa::avx2)) return avx2_impl::table;
    return scalar_impl::table;
}

} // namespace pool
} // namespace kestrel
