// PReLU forward: dst = src > 0 ? src : w * src, with the weights broadcast
// over every dim where their size is 1 (scalar, per channel, full tensor or
// any mix). Op desc, base pd, the vectorised implementation (scalar,
// per-channel and full weights on dense layouts, through the binary kernels)
// and the reference.
#ifndef KESTREL_CPU_ELTWISE_PRELU_HPP
#define KESTREL_CPU_ELTWISE_PRELU_HPP

#include "core/primitive.hpp"
#include "cpu/eltwise/bcast.hpp"

namespace kestrel {

struct prelu_desc_t : op_desc_impl_t<prelu_desc_t> {
    prelu_desc_t() : op_desc_impl_t(dnnl_prelu) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md();
    memory_desc_t weights_md = zero_md();
    memory_desc_t dst_md = zero_md();

    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(prelu_desc_t) == 1864, "prelu_desc_t changed: update serialize");
        k.put(prop_kind);
        k.put(src_md);
        k.put(weights_md);
        k.put(dst_md);
        return true;
    }
};

struct prelu_fwd_pd_t : pd_t {
    prelu_fwd_pd_t(const prelu_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_prelu), desc_(*d), src_md_(d->src_md), weights_md_(d->weights_md),
          dst_md_(d->dst_md) {}

    const prelu_desc_t &desc() const { return desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *weights_md(int idx = 0) const override {
        return idx == 0 ? &weights_md_ : &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    int n_inputs() const override { return 2; }
    int n_outputs() const override { return 1; }

    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC || arg == DNNL_ARG_WEIGHTS) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }

protected:
    // Checks shared by the implementations; resolves format `any`.
    status_t init_common(const char *impl);

    prelu_desc_t desc_;
    memory_desc_t src_md_, weights_md_, dst_md_;
};

struct prelu_vec_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, prelu_fwd_pd_t, prelu_vec_t> {
        using desc_t = prelu_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override;
        const elt::kernels_t *k_ = nullptr;
        elt::bcast_plan_t plan_;
        char name_[32] = "vec:any";
    };
    explicit prelu_vec_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

struct prelu_ref_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, prelu_fwd_pd_t, prelu_ref_t> {
        using desc_t = prelu_desc_t;
        using pd_impl_t::pd_impl_t;
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override;
    };
    explicit prelu_ref_t(const pd_t *pd) : primitive_t(pd) {}
    status_t execute(const exec_ctx_t &ctx) const override;
};

extern const impl_entry_t prelu_impl_list[];

struct prelu_bwd_desc_t : op_desc_impl_t<prelu_bwd_desc_t> {
    prelu_bwd_desc_t() : op_desc_impl_t(dnnl_prelu) {}
    dnnl_prop_kind_t prop_kind = dnnl_backward;
    memory_desc_t src_md = zero_md(), weights_md = zero_md();
    memory_desc_t diff_src_md = zero_md(), diff_weights_md = zero_md(), diff_dst_md = zero_md();

    bool serialize(key_writer_t &k) const override {
        static_assert(sizeof(prelu_bwd_desc_t) == 3096, "prelu_bwd_desc_t changed: update serialize");
        k.put(prop_kind);
        for (const memory_desc_t *md : {&src_md, &weights_md, &diff_src_md, &diff_weights_md, &diff_dst_md})
            k.put(*md);
        return true;
    }
};

// Backward: diff_src = src > 0 ? diff_dst : w * diff_dst, and diff_weights
// the sum, over the dims the weights are broadcast along, of
// (src > 0 ? 0 : src * diff_dst).
struct prelu_bwd_pd_t : pd_t {
    prelu_bwd_pd_t(const prelu_bwd_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_prelu), desc_(*d), src_md_(d->src_md), weights_md_(d->weights_md),
          diff_src_md_(d->diff_src_md), diff_weights_md_(d->diff_weights_md),
          diff_dst_md_(d->diff_dst_md) {}

    const prelu_bwd_desc_t &desc() const { return desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *weights_md(int idx = 0) const override {
        return idx == 0 ? &weights_md_ : &zero_md_;
    }
    const memory_desc_t *diff_src_md(int idx = 0) const override {
        return idx == 0 ? &diff_src_md_ : &zero_md_;
    }
    const memory_desc_t *diff_weights_md(int idx = 0) const override {
        return idx == 0 ? &diff_weights_md_ : &zero_md_;
    }
    const memory_desc_t *diff_dst_md(int idx = 0) const override {
        return idx == 0 ? &diff_dst_md_ : &zero_md_;
    }
    int n_inputs() const override { return 3; }
    int n_outputs() const override { return 2; }

    arg_usage_t arg_usage(int arg) const override {
        if (one_of(arg, DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST)) return arg_usage_t::input;
        if (one_of(arg, DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_WEIGHTS)) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }

protected:
    prelu_bwd_desc_t desc_;
    memory_desc_t src_md_, weights_md_, diff_src_md_, diff_weights_md_, diff_dst_md_;
};

extern const impl_entry_t prelu_bwd_impl_list[];

} // namespace kestrel

#endif
