// A naive statement of oneDNN's attribute arithmetic for the tests of
// convolution, deconvolution, matmul and inner product, written from the
// oneDNN v3 documentation (quantization model, post-ops, eltwise and binary
// algorithm definitions). It shares no code with src/: every tensor is a
// plain row-major array of logical values, broadcast onto dst by index
// arithmetic over its own dims.
//
// For one dst element with exact accumulator `acc` (sum over the reduction
// of src * wei, in double), the order is:
//   v = (src_scale * wei_scale) * f32(acc)       f32 multiply
//   v = v + bias                                 f32 add
//   v = post-op 1, 2, ... in order, each in f32:
//         eltwise: v = f(v; alpha, beta)
//         sum:     v = v + scale * (dst_old - zero_point)   (dst_old as stored)
//         binary:  v = op(v, src1[broadcast index])
//   v = v / dst_scale                             (f32 divide)
//   v = v + dst_zero_point
//   stored: f32 as is; bf16 round to nearest even; s8/u8/s32: round half to
//   even, then saturate to the type's range.
#ifndef KESTREL_TEST_COMMON_NAIVE_ATTR_HPP
#define KESTREL_TEST_COMMON_NAIVE_ATTR_HPP

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "dnnl_types.h"

namespace na {

using dims_t = std::vector<int64_t>;

inline int64_t count(const dims_t &d) {
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    return n;
}

// A tensor of dst's rank whose dims are each 1 (broadcast) or dst's.
struct bcast_t {
    dims_t dims;
    std::vector<float> v; // row-major over dims; empty: not set
    bool set() const { return !v.empty(); }
    // Value for the dst element at row-major index l of dst_dims.
    float at(const dims_t &dst_dims, int64_t l) const {
        int64_t idx = 0, stride = 1;
        for (int d = (int)dst_dims.size() - 1; d >= 0; --d) {
            const int64_t coord = l % dst_dims[d];
            l /= dst_dims[d];
            if (dims[d] != 1) idx += coord * stride;
            stride *= dims[d];
        }
        return v[(size_t)idx];
    }
};

// One value for the whole tensor (mask 0).
inline bcast_t scalar(size_t ndims, float x) { return {dims_t(ndims, 1), {x}}; }

// Values along dst dim `axis` (a per-channel mask), n of them.
inline bcast_t along(size_t ndims, int axis, std::vector<float> x) {
    dims_t d(ndims, 1);
    d[(size_t)axis] = (int64_t)x.size();
    return {d, std::move(x)};
}

// ----------------------------------------------------------------- eltwise

inline double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// log(1 + exp(z)) without overflow for large z.
inline double softplus(double z) { return z > 30 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }

// True for the algorithms whose value is a rational expression of the
// input (no transcendental function): they are evaluated here in f32 in the
// documented order, so an implementation that follows it matches exactly.
inline bool eltwise_is_exact(dnnl_alg_kind_t alg) {
    switch (alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd:
        case dnnl_eltwise_square:
        case dnnl_eltwise_abs:
        case dnnl_eltwise_sqrt: // correctly rounded in IEEE arithmetic
        case dnnl_eltwise_sqrt_use_dst_for_bwd:
        case dnnl_eltwise_linear:
        case dnnl_eltwise_hardsigmoid:
        case dnnl_eltwise_hardswish:
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_clip_v2_use_dst_for_bwd:
        case dnnl_eltwise_round: return true;
        default: return false;
    }
}

// Forward value. Exact algorithms in f32; the others in double, rounded
// once to f32 (so within half an f32 ulp of the true value).
inline float eltwise(dnnl_alg_kind_t alg, float x, float alpha, float beta) {
    const double X = x, A = alpha, B = beta;
    switch (alg) {
        case dnnl_eltwise_relu:
        case dnnl_eltwise_relu_use_dst_for_bwd: return x > 0.f ? x : alpha * x;
        case dnnl_eltwise_square: return x * x;
        case dnnl_eltwise_abs: return x < 0.f ? -x : x;
        case dnnl_eltwise_sqrt:
        case dnnl_eltwise_sqrt_use_dst_for_bwd: return std::sqrt(x);
        case dnnl_eltwise_linear: return alpha * x + beta;
        case dnnl_eltwise_hardsigmoid: {
            const float t = alpha * x + beta;
            return t < 0.f ? 0.f : t > 1.f ? 1.f : t;
        }
        case dnnl_eltwise_hardswish: {
            const float t = alpha * x + beta;
            return x * (t < 0.f ? 0.f : t > 1.f ? 1.f : t);
        }
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
        case dnnl_eltwise_clip_v2_use_dst_for_bwd: {
            const float lo = x < alpha ? alpha : x; // alpha when x <= alpha
            return lo > beta ? beta : lo;
        }
        case dnnl_eltwise_round: return std::nearbyint(x); // ties to even (default mode)
        case dnnl_eltwise_tanh:
        case dnnl_eltwise_tanh_use_dst_for_bwd: return (float)std::tanh(X);
        case dnnl_eltwise_elu:
        case dnnl_eltwise_elu_use_dst_for_bwd: return x > 0.f ? x : (float)(A * std::expm1(X));
        case dnnl_eltwise_logistic:
        case dnnl_eltwise_logistic_use_dst_for_bwd: return (float)logistic(X);
        case dnnl_eltwise_exp:
        case dnnl_eltwise_exp_use_dst_for_bwd: return (float)std::exp(X);
        case dnnl_eltwise_log: return (float)std::log(X);
        case dnnl_eltwise_pow: return (float)(A * std::pow(X, B));
        case dnnl_eltwise_soft_relu: return (float)(softplus(A * X) / A);
        case dnnl_eltwise_swish: return (float)(X * logistic(A * X));
        case dnnl_eltwise_mish: return (float)(X * std::tanh(softplus(X)));
        case dnnl_eltwise_gelu_tanh: {
            // 0.5 x (1 + tanh(z)) with z = sqrt(2/pi) (x + 0.044715 x^3);
            // 1 + tanh(z) = 2 logistic(2z) keeps the negative tail exact.
            const double z = std::sqrt(2.0 / 3.14159265358979323846) * (X + 0.044715 * X * X * X);
            return (float)(X * logistic(2.0 * z));
        }
        case dnnl_eltwise_gelu_erf:
            // 0.5 x (1 + erf(x / sqrt 2)), with 1 + erf(t) = erfc(-t).
            return (float)(0.5 * X * std::erfc(-X / std::sqrt(2.0)));
        default: return NAN;
    }
}

// ------------------------------------------------------------------ binary

inline float binary(dnnl_alg_kind_t alg, float a, float b) {
    switch (alg) {
        case dnnl_binary_add: return a + b;
        case dnnl_binary_sub: return a - b;
        case dnnl_binary_mul: return a * b;
        case dnnl_binary_div: return a / b;
        case dnnl_binary_max: return a > b ? a : b;
        case dnnl_binary_min: return a < b ? a : b;
        case dnnl_binary_ge: return a >= b ? 1.f : 0.f;
        case dnnl_binary_gt: return a > b ? 1.f : 0.f;
        case dnnl_binary_le: return a <= b ? 1.f : 0.f;
        case dnnl_binary_lt: return a < b ? 1.f : 0.f;
        case dnnl_binary_eq: return a == b ? 1.f : 0.f;
        case dnnl_binary_ne: return a != b ? 1.f : 0.f;
        default: return NAN;
    }
}

// --------------------------------------------------------------- the chain

struct post_op_t {
    dnnl_primitive_kind_t kind = dnnl_eltwise;
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    float alpha = 0.f, beta = 0.f; // eltwise
    float scale = 1.f; // sum
    int32_t zero_point = 0; // sum
    bcast_t src1; // binary, logical values (already in f32)
};

inline post_op_t eltwise_op(dnnl_alg_kind_t alg, float alpha, float beta) {
    post_op_t p;
    p.kind = dnnl_eltwise, p.alg = alg, p.alpha = alpha, p.beta = beta;
    return p;
}
inline post_op_t sum_op(float scale, int32_t zero_point = 0) {
    post_op_t p;
    p.kind = dnnl_sum, p.scale = scale, p.zero_point = zero_point;
    return p;
}
inline post_op_t binary_op(dnnl_alg_kind_t alg, bcast_t src1) {
    post_op_t p;
    p.kind = dnnl_binary, p.alg = alg, p.src1 = std::move(src1);
    return p;
}

struct attr_t {
    bcast_t src_scale, wei_scale, dst_scale, dst_zero_point; // unset: empty
    std::vector<post_op_t> post_ops;
    // True when every step is exact f32 arithmetic (no transcendental
    // eltwise): an implementation following the documented order matches
    // bit for bit on exact inputs.
    bool exact() const {
        for (const auto &p : post_ops)
            if (p.kind == dnnl_eltwise && !eltwise_is_exact(p.alg)) return false;
        return true;
    }
};

inline float bf16_round(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    b += 0x7fffu + ((b >> 16) & 1u); // nearest, ties to even
    b &= 0xffff0000u;
    std::memcpy(&f, &b, 4);
    return f;
}

// Nearest f16 value (ties to even), as f32: 11 significant bits down to
// 2^-14, a fixed step of 2^-24 below; beyond 65504 (+ half a step) inf.
inline float f16_round(float f) {
    const double a = std::fabs((double)f);
    if (std::isnan(f) || a == 0) return f;
    int ex;
    std::frexp(a, &ex); // a in [2^(ex-1), 2^ex)
    const double step = std::ldexp(1.0, (ex - 1 < -14 ? -14 : ex - 1) - 10);
    const double r = std::nearbyint(a / step) * step;
    const double m = r > 65504.0 ? INFINITY : r;
    return (float)(f < 0 ? -m : m);
}

// The value dst of type dt holds after storing f32 v.
inline float store_as(dnnl_data_type_t dt, float v) {
    auto sat = [](double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; };
    switch (dt) {
        case dnnl_f32: return v;
        case dnnl_bf16: return bf16_round(v);
        case dnnl_f16: return f16_round(v);
        case dnnl_s8: return (float)sat(std::nearbyint(v), -128, 127);
        case dnnl_u8: return (float)sat(std::nearbyint(v), 0, 255);
        case dnnl_s32: return (float)sat(std::nearbyint((double)v), -2147483648.0, 2147483647.0);
        default: return NAN;
    }
}

// Budget, in f32 ulps of the result, for an f32 implementation of a
// transcendental algorithm given an exact f32 input with |x| <= 5 (the
// tests keep eltwise inputs there). A library call (expf, tanhf, erfcf,
// log1pf...) is within 2 ulp; each f32 operation before it perturbs its
// argument by one rounding (2^-24 relative), which the function amplifies
// by its condition number |t f'(t) / f(t)|: for logistic(2z) in gelu_tanh
// that is |2z| <= 17 at |x| <= 5 with about 4 roundings in z (34 ulps);
// for erfc(t) in gelu_erf 2t^2 + 1 <= 26 with one rounding (13 ulps);
// swish, mish and soft_relu have conditions below 6.
inline double eltwise_ulps(dnnl_alg_kind_t alg) {
    switch (alg) {
        case dnnl_eltwise_gelu_tanh: return 48;
        case dnnl_eltwise_gelu_erf: return 24;
        case dnnl_eltwise_swish:
        case dnnl_eltwise_mish:
        case dnnl_eltwise_soft_relu: return 8;
        case dnnl_eltwise_exp:
        case dnnl_eltwise_exp_use_dst_for_bwd:
        case dnnl_eltwise_log: return 2;
        default: return eltwise_is_exact(alg) ? 0 : 4;
    }
}

// True when x is a power of two (or 1): scaling by it is exact.
inline bool pow2(float x) {
    int ex;
    return std::fabs(std::frexp(x, &ex)) == 0.5f;
}

constexpr double f32_eps = 1.0 / (1 << 23); // ulp(x) <= f32_eps * |x|

// Expected dst (logical, row-major over dst_dims) from the exact
// accumulators, the bias (unset: none) and the dst content before the run.
//
// `tol` (optional) receives, per element, a bound on |implementation -
// expected|. It starts from `acc_err` (a bound on the implementation's f32
// accumulator error; none: exact) and follows the chain: a step with an
// inexact input carries the error through its slope and may round to the
// neighbour of the expected f32 value (f32_eps * |v|); an eltwise step
// carries it through the function's change over [x - e, x + e] and adds
// its own budget; storing into an integer type may move by floor(e) + 1
// (so by one for an inexact value near a rounding tie); into bf16
// by one bf16 ulp (2^-7 |v|). With exact accumulators and an exact chain
// every bound is 0: results must be identical.
inline std::vector<float> apply(const attr_t &a, const dims_t &dst_dims, const std::vector<double> &acc,
        const bcast_t &bias, const std::vector<float> &dst_old, dnnl_data_type_t dst_dt,
        const std::vector<double> *acc_err = nullptr, std::vector<double> *tol = nullptr) {
    const int64_t n = count(dst_dims);
    std::vector<float> out((size_t)n);
    if (tol) tol->assign((size_t)n, 0.0);
    for (int64_t l = 0; l < n; ++l) {
        double e = acc_err ? (*acc_err)[(size_t)l] : 0.0;
        auto rounded = [&](float v) { // adds the rounding of an inexact step
            if (e > 0) e += f32_eps * std::fabs(v);
        };
        float v = (float)acc[(size_t)l];
        if (e > 0) e += f32_eps * std::fabs(v) / 2;
        if (a.src_scale.set() || a.wei_scale.set()) {
            const float ss = a.src_scale.set() ? a.src_scale.at(dst_dims, l) : 1.f;
            const float ws = a.wei_scale.set() ? a.wei_scale.at(dst_dims, l) : 1.f;
            v = (ss * ws) * v;
            e *= std::fabs((double)ss * ws);
            rounded(v);
            // The documentation writes the product without an order: an
            // implementation may round (acc * s) * w instead; one more ulp.
            if (!pow2(ss) && !pow2(ws)) e += f32_eps * std::fabs(v);
        }
        if (bias.set()) {
            v = v + bias.at(dst_dims, l);
            rounded(v);
        }
        for (const auto &p : a.post_ops) {
            if (p.kind == dnnl_eltwise) {
                const float x = v;
                v = eltwise(p.alg, x, p.alpha, p.beta);
                if (e > 0) {
                    const double lo = eltwise(p.alg, (float)(x - e), p.alpha, p.beta);
                    const double hi = eltwise(p.alg, (float)(x + e), p.alpha, p.beta);
                    e = std::fmax(std::fabs(lo - v), std::fabs(hi - v)) + f32_eps * std::fabs(v);
                }
                e += eltwise_ulps(p.alg) * f32_eps * std::fabs(v);
            } else if (p.kind == dnnl_sum) {
                v = v + p.scale * (dst_old[(size_t)l] - (float)p.zero_point);
                rounded(v);
            } else {
                const float x = v, b = p.src1.at(dst_dims, l);
                v = binary(p.alg, x, b);
                if (e > 0) {
                    switch (p.alg) {
                        case dnnl_binary_mul: e *= std::fabs(b); break;
                        case dnnl_binary_div: e /= std::fabs(b); break;
                        case dnnl_binary_ge:
                        case dnnl_binary_gt:
                        case dnnl_binary_le:
                        case dnnl_binary_lt:
                        case dnnl_binary_eq:
                        case dnnl_binary_ne: e = std::fabs((double)x - b) <= e ? 1.0 : 0.0; break;
                        default: break; // add, sub, max, min: slope 1
                    }
                    rounded(v);
                }
            }
        }
        if (a.dst_scale.set()) {
            const float s = a.dst_scale.at(dst_dims, l);
            v = v / s;
            e /= std::fabs(s);
            rounded(v);
            // v * (1 / s) instead of v / s: two roundings more, 1.5 ulp.
            if (!pow2(s)) e += 1.5 * f32_eps * std::fabs(v);
        }
        if (a.dst_zero_point.set()) {
            v = v + a.dst_zero_point.at(dst_dims, l);
            rounded(v);
        }
        out[(size_t)l] = store_as(dst_dt, v);
        if (e > 0 && dst_dt == dnnl_bf16) e += std::fabs(v) / 128;
        // Values e apart may round to integers floor(e) + 1 apart.
        if (e > 0 && (dst_dt == dnnl_s8 || dst_dt == dnnl_u8 || dst_dt == dnnl_s32)) e = std::floor(e) + 1;
        if (tol) (*tol)[(size_t)l] = e;
    }
    return out;
}

// Element-wise comparison against the expected values: |got - want| <=
// tol[i] (tol empty: exact), NaN only where NaN is expected. Prints the
// first miss under `what`.
inline bool match(const std::vector<float> &got, const std::vector<float> &want, const std::vector<double> &tol,
        const char *what) {
    if (got.size() != want.size()) {
        std::fprintf(stderr, "%s: %zu values, expected %zu\n", what, got.size(), want.size());
        return false;
    }
    for (size_t i = 0; i < got.size(); ++i) {
        const bool gn = std::isnan(got[i]), wn = std::isnan(want[i]);
        bool ok = gn == wn;
        if (ok && !gn && got[i] != want[i] && (std::isinf(got[i]) || std::isinf(want[i]))) ok = false;
        if (ok && !gn && got[i] != want[i]) {
            const double t = tol.empty() ? 0.0 : tol[i];
            ok = std::fabs((double)got[i] - want[i]) <= t;
        }
        if (!ok) {
            std::fprintf(stderr, "%s: [%zu] got %.9g want %.9g (tol %.3g)\n", what, i, got[i], want[i],
                    tol.empty() ? 0.0 : tol[i]);
            return false;
        }
    }
    return true;
}

} // namespace na

#endif
