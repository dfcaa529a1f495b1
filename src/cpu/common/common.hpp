// Shared helpers of the pooling-family kinds (pooling, normalizations, LRN,
// resampling, reduction): layout classification and the vectorised channel
// run operations that the fast implementations are built from.
#ifndef KESTREL_CPU_POOLING_COMMON_HPP
#define KESTREL_CPU_POOLING_COMMON_HPP

#include <cmath>

#include "core/memory_desc.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace pool {

// How a 3D..5D (N, C, spatial...) tensor is laid out, as far as the fast
// kernels care.
enum class layout_t { other, ncsp, nspc, blocked8, blocked16 };

// Plain channel-first (abc, abcd, abcde), channel-last (acb, acdb, acdeb) or
// channel-blocked by 8 / 16 (aBc8b, aBcd16b, ...).
layout_t classify(const memory_desc_t &md);
// The format tag of layout l for ndims (undef for other).
format_tag_t tag_of(layout_t l, int ndims);

// Resolves format `any` of `md` to the layout of `like` when `like` is one of
// the known layouts, else to the plain channel-first tag.
status_t set_like(memory_desc_t &md, const memory_desc_t &like);

// Plain tag (abc..) for ndims.
format_tag_t plain_tag(int ndims);

// True for the storage types these kinds compute on (f32 and bf16).
inline bool is_fp(data_type_t dt) { return dt == dnnl_f32 || dt == dnnl_bf16; }
// The 8-bit integer types (computed on through f32, rounded to nearest even
// and saturated when stored).
inline bool is_int8(data_type_t dt) { return dt == dnnl_s8 || dt == dnnl_u8; }

// What a reduction accumulates: the element itself (sum, max, min, mul) or
// an Lp term |x|^p, with p = 1 and p = 2 told apart so they vectorise.
enum class red_op_t { sum, max, min, mul, abs_sum, sq_sum, pow_sum };

// The term one element contributes, and how two partial results combine.
// The reference and the fast reductions both use these, so they differ
// only in the order of combination.
inline float red_term(red_op_t op, float x, float p) {
    switch (op) {
        case red_op_t::abs_sum: return std::fabs(x);
        case red_op_t::sq_sum: return x * x;
        case red_op_t::pow_sum: return std::pow(std::fabs(x), p);
        default: return x;
    }
}
inline float red_combine(red_op_t op, float a, float b) {
    switch (op) {
        case red_op_t::max: return b > a ? b : a;
        case red_op_t::min: return b < a ? b : a;
        case red_op_t::mul: return a * b;
        default: return a + b;
    }
}
inline float red_identity(red_op_t op) {
    switch (op) {
        case red_op_t::max: return -INFINITY;
        case red_op_t::min: return INFINITY;
        case red_op_t::mul: return 1.f;
        default: return 0.f;
    }
}

// Operations on runs of n consecutive elements (f32 or bf16 storage,
// computed in f32). One table per ISA; pick it once with vec_ops().
struct vec_ops_t {
    const char *isa;
    // acc[i] = max(acc[i], x[i])
    void (*acc_max)(float *acc, const void *x, data_type_t dt, dim_t n);
    // acc[i] = max(...) and idx[i] = k where x[i] > acc[i] (strictly).
    void (*acc_max_idx)(float *acc, int32_t *idx, const void *x, data_type_t dt, dim_t n, int32_t k);
    // acc[i] += x[i]
    void (*acc_add)(float *acc, const void *x, data_type_t dt, dim_t n);
    // acc[i] += (x[i] - mean[i])^2
    void (*acc_sq_dev)(float *acc, const void *x, data_type_t dt, const float *mean, dim_t n);
    // y[i] = v[i] * scale
    void (*store_scaled)(void *y, data_type_t dt, const float *v, float scale, dim_t n);
    // y[i] = (x[i] - m[i]) * a[i] + b[i] (per-element arrays), then
    // max(0, .) if relu. Subtracting first keeps large offsets exact.
    void (*affine)(void *y, data_type_t ydt, const void *x, data_type_t xdt, const float *m,
            const float *a, const float *b, dim_t n, bool relu);
    // The same with scalars m, a, b.
    void (*affine_s)(void *y, data_type_t ydt, const void *x, data_type_t xdt, float m, float a,
            float b, dim_t n, bool relu);
    // sum of x[i]; sum of (x[i] - mean)^2
    float (*sum)(const void *x, data_type_t dt, dim_t n);
    float (*sq_dev_sum)(const void *x, data_type_t dt, float mean, dim_t n);
    // red_combine of acc with the terms of x[0..n) (p for pow_sum).
    float (*red_run)(red_op_t op, float acc, const void *x, data_type_t dt, dim_t n, float p);
    // acc[i] = red_combine(acc[i], term(x[i])) for i < n.
    void (*red_acc)(red_op_t op, float *acc, const void *x, data_type_t dt, dim_t n, float p);
    // y[i] = (x[i] - mean) * (sc[i] * rstd) + sh[i]; sc, sh may be nullptr
    // (1 and 0).
    void (*norm_row)(void *y, data_type_t ydt, const void *x, data_type_t xdt, float mean, float rstd,
            const float *sc, const float *sh, dim_t n);
    // acc[i] += x[i] * x[i], the product rounded before the sum (no FMA),
    // so the result equals the scalar loop bit for bit.
    void (*acc_sq)(float *acc, const void *x, data_type_t dt, dim_t n);
    // acc[i] += w * x[i] (FMA where the ISA has it).
    void (*axpy)(float *acc, const void *x, data_type_t dt, float w, dim_t n);
    // LRN output: y[i] = x[i] * lrn_factor(k + alpha * s[i] / summands, beta),
    // bit for bit the scalar formula below (vectorised when beta is 0.75).
    void (*lrn_out)(void *y, data_type_t ydt, const void *x, data_type_t xdt, const float *s,
            float k, float alpha, float summands, float beta, dim_t n, float *ws);
};

// LRN: omega^-beta; the common beta = 3/4 through two square roots, which
// vectorise and are correctly rounded, so every ISA gives the same bits.
inline float lrn_factor(float omega, float beta) {
    if (beta == 0.75f) return std::sqrt(1.f / (std::sqrt(omega) * omega));
    return 1.f / std::pow(omega, beta);
}
inline float lrn_omega(float sum, float k, float alpha, float summands) {
    return k + alpha * sum / summands;
}

// The table for the best ISA allowed now (AVX-512, AVX2, or scalar).
const vec_ops_t &vec_ops();

} // namespace pool
} // namespace kestrel

#endif
