// Scalar element-wise functions, shared by the eltwise primitive and by
// eltwise post-ops of every other primitive. The formulas are oneDNN's
// documented definitions; alpha and beta are the user's parameters.
#ifndef KESTREL_CPU_MATH_ELTWISE_MATH_HPP
#define KESTREL_CPU_MATH_ELTWISE_MATH_HPP

#include <cmath>

#include "core/common.hpp"

namespace kestrel {
namespace math {

inline float logistic(float x) {
    // Stable on both tails.
    if (x >= 0) return 1.f / (1.f + std::exp(-x));
    float e = std::exp(x);
    return e / (1.f + e);
}

inline float soft_relu(float x, float alpha) {
    // (1/alpha) * log(1 + exp(alpha * x)), without overflow for large inputs.
    float z = alpha * x;
    float r = z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
    return r / alpha;
}

// True when `alg` is an eltwise algorithm this file computes.
bool eltwise_supported(dnnl_alg_kind_t alg);

// Forward value of `alg` at x.
inline float eltwise_fwd(dnnl_alg_kind_t alg, float x, float alpha, float beta) {
    switch (alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd: return x > 0 ? x : alpha * x;
        case dnnl_eltwise_tanh:
        case dnnl_eltwise_tanh_use_dst_for_bwd: return std::tanh(x);
        case dnnl_eltwise_elu:
        case dnnl_eltwise_elu_use_dst_for_bwd: return x > 0 ? x : alpha * std::expm1(x);
        case dnnl_eltwise_square: return x * x;
        case dnnl_eltwise_abs: return std::fabs(x);
        case dnnl_eltwise_sqrt:
        case dnnl_eltwise_sqrt_use_dst_for_bwd: return std::sqrt(x);
        case dnnl_eltwise_linear: return alpha * x + beta;
        case dnnl_eltwise_soft_relu: return soft_relu(x, alpha);
        case dnnl_eltwise_hardsigmoid: return std::fmax(0.f, std::fmin(1.f, alpha * x + beta));
        case dnnl_eltwise_logistic:
        case dnnl_eltwise_logistic_use_dst_for_bwd: return logistic(x);
        case dnnl_eltwise_exp:
        case dnnl_eltwise_exp_use_dst_for_bwd: return std::exp(x);
        case dnnl_eltwise_gelu_tanh: {
            // 0.5 * x * (1 + tanh(z)) == x * logistic(2z); the second form
            // does not cancel for large negative x.
            const float k = 0.7978845608028654f; // sqrt(2 / pi)
            return x * logistic(2.f * k * (x + 0.044715f * x * x * x));
        }
        case dnnl_eltwise_swish: return x * logistic(alpha * x);
        case dnnl_eltwise_log: return std::log(x);
        case dnnl_eltwise_clip: return std::fmin(beta, std::fmax(alpha, x));
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: return std::fmin(beta, std::fmax(alpha, x));
        case dnnl_eltwise_pow: return alpha * std::pow(x, beta);
        case dnnl_eltwise_gelu_erf:
            // 1 + erf(t) == erfc(-t), exact for large negative x too; in
            // double, so that neither the scaling of x nor erfc's f32 error
            // (hundreds of ulps near x = -14) reaches the result.
            return (float)(0.5 * (double)x * std::erfc(-(double)x * 0.70710678118654752));
        case dnnl_eltwise_round: return std::nearbyint(x);
        case dnnl_eltwise_mish: return x * std::tanh(soft_relu(x, 1.f));
        case dnnl_eltwise_hardswish: return x * std::fmax(0.f, std::fmin(1.f, alpha * x + beta));
        default: return NAN;
    }
}

inline bool eltwise_supported(dnnl_alg_kind_t alg) {
    return !std::isnan(eltwise_fwd(alg, 0.5f, 1.f, 1.f)) || alg == dnnl_eltwise_log;
}

// True when oneDNN defines a backward for `alg` (every forward one but round).
inline bool eltwise_bwd_supported(dnnl_alg_kind_t alg) {
    return eltwise_supported(alg) && alg != dnnl_eltwise_round;
}

// True for the algorithms whose backward reads dst instead of src.
inline bool eltwise_uses_dst(dnnl_alg_kind_t alg) {
    return one_of(alg, dnnl_eltwise_relu_use_dst_for_bwd, dnnl_eltwise_tanh_use_dst_for_bwd,
            dnnl_eltwise_elu_use_dst_for_bwd, dnnl_eltwise_sqrt_use_dst_for_bwd,
            dnnl_eltwise_logistic_use_dst_for_bwd, dnnl_eltwise_exp_use_dst_for_bwd,
            dnnl_eltwise_clip_v2_use_dst_for_bwd);
}

// Backward value: dd times the derivative of `alg`, taken at x (src), or
// expressed through y = f(src) for the _use_dst_for_bwd algorithms. At a
// kink the one-sided derivative oneDNN documents is used (relu: the left
// one at 0; clip: the right end included, the left one excluded).
inline float eltwise_bwd(dnnl_alg_kind_t alg, float dd, float x, float alpha, float beta) {
    switch (alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd: return x > 0 ? dd : alpha * dd;
        case dnnl_eltwise_tanh: {
            const float t = std::tanh(x);
            return dd * (1.f - t * t);
        }
        case dnnl_eltwise_tanh_use_dst_for_bwd: return dd * (1.f - x * x);
        case dnnl_eltwise_elu: return x > 0 ? dd : dd * alpha * std::exp(x);
        case dnnl_eltwise_elu_use_dst_for_bwd: return x > 0 ? dd : dd * (x + alpha);
        case dnnl_eltwise_square: return dd * 2.f * x;
        case dnnl_eltwise_abs: return x > 0 ? dd : x < 0 ? -dd : 0.f;
        case dnnl_eltwise_sqrt: return dd / (2.f * std::sqrt(x));
        case dnnl_eltwise_sqrt_use_dst_for_bwd: return dd / (2.f * x);
        case dnnl_eltwise_linear: return dd * alpha;
        case dnnl_eltwise_soft_relu: return dd * logistic(alpha * x);
        case dnnl_eltwise_hardsigmoid: {
            const float v = alpha * x + beta;
            return v > 0.f && v < 1.f ? dd * alpha : 0.f;
        }
        case dnnl_eltwise_logistic: {
            const float s = logistic(x);
            return dd * s * (1.f - s);
        }
        case dnnl_eltwise_logistic_use_dst_for_bwd: return dd * x * (1.f - x);
        case dnnl_eltwise_exp: return dd * std::exp(x);
        case dnnl_eltwise_exp_use_dst_for_bwd: return dd * x;
        case dnnl_eltwise_gelu_tanh: {
            // d/dx [x * s(2z)], s the logistic, z = k (x + c x^3):
            // s(2z) + x * 2 z' * s(2z) (1 - s(2z)).
            const float k = 0.7978845608028654f, c = 0.044715f;
            const float s = logistic(2.f * k * (x + c * x * x * x));
            const float dz = k * (1.f + 3.f * c * x * x);
            return dd * (s + x * 2.f * dz * s * (1.f - s));
        }
        case dnnl_eltwise_swish: {
            const float s = logistic(alpha * x);
            return dd * (s + alpha * x * s * (1.f - s));
        }
        case dnnl_eltwise_log: return dd / x;
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2: return x > alpha && x <= beta ? dd : 0.f;
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: return x > alpha && x < beta ? dd : 0.f;
        case dnnl_eltwise_pow:
            return beta == 0.f ? 0.f : dd * alpha * beta * std::pow(x, beta - 1.f);
        case dnnl_eltwise_gelu_erf: { // in double, as the forward
            const double xd = x;
            const double cdf = 0.5 * std::erfc(-xd * 0.70710678118654752);
            const double pdf = 0.3989422804014327 * std::exp(-0.5 * xd * xd); // 1/sqrt(2 pi)
            return dd * (float)(cdf + xd * pdf);
        }
        case dnnl_eltwise_mish: {
            // tanh(sp) + x * (1 - tanh(sp)^2) * logistic(x), sp = soft_relu(x).
            const float t = std::tanh(soft_relu(x, 1.f));
            return dd * (t + x * (1.f - t * t) * logistic(x));
        }
        case dnnl_eltwise_hardswish: {
            const float v = alpha * x + beta;
            return v <= 0.f ? 0.f : v >= 1.f ? dd : dd * (2.f * alpha * x + beta);
        }
        default: return NAN;
    }
}

// Binary algorithms (comparisons give 1 or 0).
inline float binary_fwd(dnnl_alg_kind_t alg, float a, float b) {
    switch (alg) {
        case dnnl_binary_add: return a + b;
        case dnnl_binary_mul: return a * b;
        case dnnl_binary_max: return std::fmax(a, b);
        case dnnl_binary_min: return std::fmin(a, b);
        case dnnl_binary_div: return a / b;
        case dnnl_binary_sub: return a - b;
        case dnnl_binary_ge: return a >= b ? 1.f : 0.f;
        case dnnl_binary_gt: return a > b ? 1.f : 0.f;
        case dnnl_binary_le: return a <= b ? 1.f : 0.f;
        case dnnl_binary_lt: return a < b ? 1.f : 0.f;
        case dnnl_binary_eq: return a == b ? 1.f : 0.f;
        case dnnl_binary_ne: return a != b ? 1.f : 0.f;
        default: return NAN;
    }
}

inline bool binary_supported(dnnl_alg_kind_t alg) {
    return one_of(alg, dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min,
            dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt, dnnl_binary_le,
            dnnl_binary_lt, dnnl_binary_eq, dnnl_binary_ne);
}

} // namespace math
} // namespace kestrel

#endif
