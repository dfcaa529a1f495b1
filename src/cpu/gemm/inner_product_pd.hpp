// Inner product forward: the op descriptor and the kind's base pd.
#ifndef KESTREL_CPU_GEMM_INNER_PRODUCT_PD_HPP
#define KESTREL_CPU_GEMM_INNER_PRODUCT_PD_HPP

#include "core/primitive.hpp"

namespace kestrel {

struct ip_fwd_desc_t : op_desc_impl_t<ip_fwd_desc_t> {
    ip_fwd_desc_t() : op_desc_impl_t(dnnl_inner_product) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md(), weights_md = zero_md(), bias_md = zero_md(),
                  dst_md = zero_md();

    // No bias is the zero md, so its presence is part of the key too.
    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(ip_fwd_desc_t) == 2480, "ip_fwd_desc_t changed: update serialize");
        k.put(prop_kind);
        k.put(src_md);
        k.put(weights_md);
        k.put(bias_md);
        k.put(dst_md);
        return true;
    }
};

struct ip_fwd_pd_t : pd_t {
    ip_fwd_pd_t(const ip_fwd_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_inner_product), desc_(*d), src_md_(d->src_md), weights_md_(d->weights_md),
          bias_md_(d->bias_md), dst_md_(d->dst_md) {}

    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    const memory_desc_t *weights_md(int idx = 0) const override {
        return idx == 0 ? &weights_md_ : idx == 1 ? &bias_md_ : &zero_md_;
    }
    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC || arg == DNNL_ARG_WEIGHTS) return arg_usage_t::input;
        if (arg == DNNL_ARG_BIAS) return with_bias() ? arg_usage_t::input : arg_usage_t::unused;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }
    int n_inputs() const override { return 2 + (with_bias() ? 1 : 0); }
    int n_outputs() const override { return 1; }
    bool with_bias() const { return !mdw_t(bias_md_).is_zero(); }

    // int8 problem: u8/s8 src, s8 weights, f32/bf16/s32/s8/u8 dst and bias.
    bool int8_types() const {
        return one_of(src_md_.data_type, dnnl_u8, dnnl_s8) && weights_md_.data_type == dnnl_s8
                && one_of(dst_md_.data_type, dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8)
                && (!with_bias() || one_of(bias_md_.data_type, dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8));
    }

protected:
    // Types (float, or int8 with int8_types()), attributes (scales; for
    // int8 also per-tensor s32 src and dst zero points), formats, post-ops.
    status_t init_common(bool int8 = false);

    ip_fwd_desc_t desc_;
    memory_desc_t src_md_, weights_md_, bias_md_, dst_md_;
};

// Resolves `any` as every GEMM-based inner product wants it: src plain,
// weights in src's layout (so both are rows of IC * spatial), dst ab, bias a.
status_t ip_set_formats(memory_desc_t &src, memory_desc_t &wei, memory_desc_t &dst, memory_desc_t &bias);
// True when src and weights are rows of the same IC * spatial order: both
// plain or both channels-last; or 2D src ab with weights ba (w_ko set:
// weights stored IC x OC).
bool ip_rows_layout(const mdw_t &s, const mdw_t &w, bool &w_ko);

// Walk order of implementations; defined in inner_product_list.cpp.
extern const impl_entry_t ip_fwd_impl_list[];

} // namespace kestrel

#endif
