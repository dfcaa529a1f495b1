// What happens to a convolution accumulator before it is stored:
//   v = acc * src_scale * wei_scale[oc] + bias[oc]     (pre)
//   v = post-op chain (eltwise, sum, binary)           (shared post_ops helper)
//   v = v / dst_scale[oc] + dst_zero_point            (post)
// Built once per primitive from the pd. pre/post work on runs of consecutive
// output channels; the chain is applied by the caller through
// post_ops::applier_t (per element, or along rows of the innermost dim).
#ifndef KESTREL_CPU_CONV_CONV_EPILOGUE_HPP
#define KESTREL_CPU_CONV_CONV_EPILOGUE_HPP

#include "core/primitive.hpp"
#include "cpu/conv/conv_pd.hpp"
#include "cpu/post_ops.hpp"

namespace kestrel {

struct conv_epilogue_t {
    // Pointers an execution supplies.
    struct args_t {
        const void *bias = nullptr;
        const float *src_scale = nullptr, *wei_scale = nullptr, *dst_scale = nullptr;
        int32_t src_zp = 0; // int8: subtracted from src before the product
        float dst_zp = 0.f; // int8: added last
    };

    void init(const conv_fwd_pd_t *pd);
    void get_args(const exec_ctx_t &ctx, args_t &a) const;

    bool has_sum() const { return has_sum_; }
    bool has_chain() const { return has_chain_; }
    bool has_pre() const { return with_bias_ || src_s_ || wei_s_; }
    bool has_post() const { return dst_s_ || dst_zp_; }
    bool has_src_zp() const { return src_zp_; }
    bool trivial() const { return !has_pre() && !has_chain() && !has_post(); }

    // v[0..n) are the values of output channels oc0 + c * oc_step (oc_step
    // 1: a run of channels at one point; 0: one channel at n points).
    // pre without scales adds the bias only (for callers that folded common
    // scales elsewhere).
    void pre(float *v, dim_t n, dim_t oc0, const args_t &a, dim_t oc_step = 1,
            bool scales = true) const;
    void post(float *v, dim_t n, dim_t oc0, const args_t &a, dim_t oc_step = 1) const;
    bool wei_scale_per_oc() const { return wei_s_per_oc_; }
    // Product of the common src and weights scales (1 when unset).
    float common_scale(const args_t &a) const {
        return (src_s_ ? a.src_scale[0] : 1.f) * (wei_s_ && !wei_s_per_oc_ ? a.wei_scale[0] : 1.f);
    }

    // pre, chain and post for channels oc0..oc0+n-1 at dst position pos
    // (pos[1] is overwritten); prev[c] is the old dst value (sum).
    void apply(float *v, dim_t n, dim_t oc0, dim_t *pos, const float *prev, const args_t &a,
            const post_ops::applier_t &ap) const;

private:
    bool with_bias_ = false;
    data_type_t bias_dt_ = dnnl_f32;
    bool bias_plain_ = true;
    dim_t bias_stride_ = 1, bias_off0_ = 0;
    memory_desc_t bias_md_ = zero_md();
    bool src_s_ = false, wei_s_ = false, wei_s_per_oc_ = false;
    bool dst_s_ = false, dst_s_per_oc_ = false;
    bool src_zp_ = false, dst_zp_ = false;
    data_type_t src_zp_dt_ = dnnl_s32, dst_zp_dt_ = dnnl_s32;
    bool has_sum_ = false, has_chain_ = false;
};

} // namespace kestrel

#endif
