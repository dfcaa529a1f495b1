#include "cpu/conv/conv_epilogue.hpp"

#include "cpu/conv/conv_impls.hpp"

#include "cpu/types.hpp"

namespace kestrel {

void conv_epilogue_t::init(const conv_fwd_pd_t *pd) {
    const attr_t *a = pd->attr();
    with_bias_ = pd->geom().with_bias;
    if (with_bias_) {
        bias_md_ = *pd->weights_md(1);
        mdw_t b(bias_md_);
        bias_dt_ = b.data_type();
        bias_plain_ = b.is_plain();
        bias_stride_ = b.blk().strides[0];
        bias_off0_ = bias_md_.offset0;
    }
    const quant_entry_t *q;
    src_s_ = a->scales.get(DNNL_ARG_SRC) != nullptr;
    wei_s_ = (q = a->scales.get(DNNL_ARG_WEIGHTS)) != nullptr;
    wei_s_per_oc_ = wei_s_ && q->mask != 0;
    dst_s_ = (q = a->scales.get(DNNL_ARG_DST)) != nullptr;
    dst_s_per_oc_ = dst_s_ && q->mask != 0;
    if ((q = a->zero_points.get(DNNL_ARG_SRC))) src_zp_ = true, src_zp_dt_ = q->dt;
    if ((q = a->zero_points.get(DNNL_ARG_DST))) dst_zp_ = true, dst_zp_dt_ = q->dt;
    has_sum_ = post_ops::sum_index(a->post_ops) >= 0;
    has_chain_ = !a->post_ops.entries.empty();
}

void conv_epilogue_t::get_args(const exec_ctx_t &ctx, args_t &a) const {
    a.bias = with_bias_ ? ctx.input<void>(DNNL_ARG_BIAS) : nullptr;
    a.src_scale = src_s_ ? ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC) : nullptr;
    a.wei_scale = wei_s_ ? ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS) : nullptr;
    a.dst_scale = dst_s_ ? ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST) : nullptr;
    // Zero points: one value each (checked at creation), s32, s8 or u8.
    auto zp = [&](int arg, data_type_t dt) -> int32_t {
        const void *p = ctx.input<void>(DNNL_ARG_ATTR_ZERO_POINTS | arg);
        if (!p) return 0;
        switch (dt) {
            case dnnl_s8: return *static_cast<const int8_t *>(p);
            case dnnl_u8: return *static_cast<const uint8_t *>(p);
            default: return *static_cast<const int32_t *>(p);
        }
    };
    a.src_zp = src_zp_ ? zp(DNNL_ARG_SRC, src_zp_dt_) : 0;
    a.dst_zp = dst_zp_ ? (float)zp(DNNL_ARG_DST, dst_zp_dt_) : 0.f;
}

void conv_epilogue_t::pre(float *v, dim_t n, dim_t oc0, const args_t &a, dim_t oc_step,
        bool scales) const {
    if (scales && (src_s_ || wei_s_)) {
        const float s = src_s_ ? a.src_scale[0] : 1.f;
        if (wei_s_per_oc_) {
            for (dim_t c = 0; c < n; ++c) v[c] *= s * a.wei_scale[oc0 + c * oc_step];
        } else {
            const float sw = s * (wei_s_ ? a.wei_scale[0] : 1.f);
            for (dim_t c = 0; c < n; ++c) v[c] *= sw;
        }
    }
    if (!with_bias_) return;
    if (bias_plain_ && bias_dt_ == dnnl_f32) {
        const float *b = static_cast<const float *>(a.bias) + bias_off0_ + oc0 * bias_stride_;
        const dim_t bs = bias_stride_ * oc_step;
        for (dim_t c = 0; c < n; ++c) v[c] += b[c * bs];
    } else {
        mdw_t bw(bias_md_);
        for (dim_t c = 0; c < n; ++c) {
            dim_t oc = oc0 + c * oc_step;
            v[c] += load_f32(bias_dt_, a.bias, bw.off_v(&oc));
        }
    }
}

void conv_epilogue_t::post(float *v, dim_t n, dim_t oc0, const args_t &a, dim_t oc_step) const {
    if (dst_s_per_oc_) {
        for (dim_t c = 0; c < n; ++c) v[c] /= a.dst_scale[oc0 + c * oc_step];
    } else if (dst_s_) {
        const float s = a.dst_scale[0];
        for (dim_t c = 0; c < n; ++c) v[c] /= s;
    }
    if (dst_zp_)
        for (dim_t c = 0; c < n; ++c) v[c] += a.dst_zp;
}

void conv_epilogue_t::apply(float *v, dim_t n, dim_t oc0, dim_t *pos, const float *prev,
        const args_t &a, const post_ops::applier_t &ap) const {
    pre(v, n, oc0, a);
    if (has_chain_) {
        for (dim_t c = 0; c < n; ++c) {
            pos[1] = oc0 + c;
            v[c] = ap.apply(v[c], has_sum_ ? prev[c] : 0.f, pos);
        }
    }
    post(v, n, oc0, a);
}

status_t conv_fwd_prim_t::init() {
    KESTREL_CHECK(primitive_t::init());
    epi_.init(static_cast<const conv_fwd_pd_t *>(pd_.get()));
    return status::success;
}

conv_exec_args_t::conv_exec_args_t(const exec_ctx_t &ctx, const conv_fwd_pd_t *pd, const conv_epilogue_t &epi)
    : src(ctx.input<void>(DNNL_ARG_SRC)), wei(ctx.input<void>(DNNL_ARG_WEIGHTS)),
      dst(ctx.output<void>(DNNL_ARG_DST)), ap(pd->attr()->post_ops, *pd->dst_md(), ctx) {
    epi.get_args(ctx, ea);
}

} // namespace kestrel
