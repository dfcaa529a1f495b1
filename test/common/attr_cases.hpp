// The attribute cases every primitive test sweeps: each binary algorithm,
// and each eltwise algorithm (forward variants included) with parameters
// that exercise alpha and beta.
#ifndef KESTREL_TEST_COMMON_ATTR_CASES_HPP
#define KESTREL_TEST_COMMON_ATTR_CASES_HPP

#include "dnnl_types.h"

namespace na {

inline const dnnl_alg_kind_t all_binary[] = {dnnl_binary_add, dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min,
        dnnl_binary_div, dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt, dnnl_binary_le, dnnl_binary_lt,
        dnnl_binary_eq, dnnl_binary_ne};

struct elt_case_t {
    dnnl_alg_kind_t alg;
    float alpha, beta;
};
inline const elt_case_t all_eltwise[] = {{dnnl_eltwise_relu, 0.f, 0.f}, {dnnl_eltwise_relu, -0.375f, 0.f},
        {dnnl_eltwise_relu_use_dst_for_bwd, 0.5f, 0.f}, {dnnl_eltwise_tanh, 0.f, 0.f},
        {dnnl_eltwise_tanh_use_dst_for_bwd, 0.f, 0.f}, {dnnl_eltwise_elu, 0.7f, 0.f},
        {dnnl_eltwise_elu_use_dst_for_bwd, 1.5f, 0.f}, {dnnl_eltwise_square, 0.f, 0.f},
        {dnnl_eltwise_abs, 0.f, 0.f}, {dnnl_eltwise_sqrt, 0.f, 0.f}, {dnnl_eltwise_sqrt_use_dst_for_bwd, 0.f, 0.f},
        {dnnl_eltwise_linear, 1.5f, -0.25f}, {dnnl_eltwise_linear, 0.3f, 0.7f}, {dnnl_eltwise_soft_relu, 1.f, 0.f},
        {dnnl_eltwise_soft_relu, 2.f, 0.f}, {dnnl_eltwise_soft_relu, -0.5f, 0.f},
        {dnnl_eltwise_hardsigmoid, 0.2f, 0.5f}, {dnnl_eltwise_logistic, 0.f, 0.f},
        {dnnl_eltwise_logistic_use_dst_for_bwd, 0.f, 0.f}, {dnnl_eltwise_exp, 0.f, 0.f},
        {dnnl_eltwise_exp_use_dst_for_bwd, 0.f, 0.f}, {dnnl_eltwise_gelu_tanh, 0.f, 0.f},
        {dnnl_eltwise_gelu_erf, 0.f, 0.f}, {dnnl_eltwise_swish, 1.f, 0.f}, {dnnl_eltwise_swish, 0.6f, 0.f},
        {dnnl_eltwise_log, 0.f, 0.f}, {dnnl_eltwise_clip, -0.5f, 1.25f}, {dnnl_eltwise_clip_v2, -1.f, 0.75f},
        {dnnl_eltwise_clip_v2_use_dst_for_bwd, 0.f, 2.f}, {dnnl_eltwise_pow, 1.5f, 0.5f},
        {dnnl_eltwise_pow, -0.5f, 3.f}, {dnnl_eltwise_pow, 2.f, -1.f}, {dnnl_eltwise_round, 0.f, 0.f},
        {dnnl_eltwise_mish, 0.f, 0.f}, {dnnl_eltwise_hardswish, 0.2f, 0.5f}, {dnnl_eltwise_hardswish, 0.125f, 0.25f}};

} // namespace na

#endif
