// The shape shared by eltwise, softmax and shuffle: one src in, one dst out,
// a prop kind, and dst format `any` taking src's layout. Each kind's op desc
// derives src_dst_desc_t and its base pd derives src_dst_pd_t; the kind adds
// its own parameters and queries.
#ifndef KESTREL_CPU_ELTWISE_SRC_DST_PD_HPP
#define KESTREL_CPU_ELTWISE_SRC_DST_PD_HPP

#include "core/primitive_desc.hpp"
#include "cpu/eltwise/common.hpp"

namespace kestrel {

template <typename self_t>
struct src_dst_desc_t : op_desc_impl_t<self_t> {
    explicit src_dst_desc_t(dnnl_primitive_kind_t k) : op_desc_impl_t<self_t>(k) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_training;
    memory_desc_t src_md = zero_md();
    memory_desc_t dst_md = zero_md();

    // The shared fields for the cache key; each kind's serialize() calls
    // this and then writes its own parameters.
    void serialize_src_dst(key_writer_t &k) const {
        k.put(prop_kind);
        k.put(src_md);
        k.put(dst_md);
    }
};

template <typename desc_t>
struct src_dst_pd_t : pd_t {
    src_dst_pd_t(const desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, d->kind), desc_(*d), src_md_(d->src_md), dst_md_(d->dst_md) {}

    const desc_t &desc() const { return desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    int n_inputs() const override { return 1; }
    int n_outputs() const override { return 1; }

    arg_usage_t arg_usage(int arg) const override {
        if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
        if (arg == DNNL_ARG_DST) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }

protected:
    // Layout checks every implementation starts with: src blocked, dst
    // format `any` resolved to src's layout, dst blocked.
    status_t init_layouts(const char *impl) {
        if (!mdw_t(src_md_).is_blocked() || mdw_t(src_md_).has_runtime_dims_or_strides())
            return decline(impl, "src layout");
        KESTREL_CHECK(elt::set_layout_like(dst_md_, src_md_));
        if (!mdw_t(dst_md_).is_blocked() || mdw_t(dst_md_).has_runtime_dims_or_strides())
            return decline(impl, "dst layout");
        return status::success;
    }

    desc_t desc_;
    memory_desc_t src_md_, dst_md_;
};


// Backward of the same shape: diff_dst in, diff_src out, and for eltwise and
// softmax one data tensor (src or dst of the forward pass) in. The kind's
// backward op desc derives src_dst_bwd_desc_t, its base pd src_dst_bwd_pd_t.
template <typename self_t>
struct src_dst_bwd_desc_t : op_desc_impl_t<self_t> {
    explicit src_dst_bwd_desc_t(dnnl_primitive_kind_t k) : op_desc_impl_t<self_t>(k) {}
    dnnl_prop_kind_t prop_kind = dnnl_backward_data;
    memory_desc_t data_md = zero_md(); // zero when the kind reads no data
    memory_desc_t diff_src_md = zero_md();
    memory_desc_t diff_dst_md = zero_md();

    void serialize_bwd(key_writer_t &k) const {
        k.put(prop_kind);
        k.put(data_md);
        k.put(diff_src_md);
        k.put(diff_dst_md);
    }
};

template <typename desc_t>
struct src_dst_bwd_pd_t : pd_t {
    // data_arg: DNNL_ARG_SRC, DNNL_ARG_DST, or 0 for a kind that reads none.
    src_dst_bwd_pd_t(const desc_t *d, const attr_t *a, const pd_t *hint, int data_arg)
        : pd_t(a, d->kind), desc_(*d), data_arg_(data_arg), data_md_(d->data_md),
          diff_src_md_(d->diff_src_md), diff_dst_md_(d->diff_dst_md) {
        // format `any` of the data tensor takes the forward pass's layout.
        if (hint && hint->kind() == d->kind && data_arg_ != 0 && mdw_t(data_md_).is_any()) {
            const memory_desc_t *h = hint->arg_md(data_arg_);
            if (h->format_kind == dnnl_blocked && elt::same_dims(*h, data_md_)) {
                const data_type_t dt = data_md_.data_type;
                data_md_ = *h;
                data_md_.data_type = dt;
            }
        }
    }

    const desc_t &desc() const { return desc_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    const memory_desc_t *src_md(int idx = 0) const override {
        return idx == 0 && data_arg_ == DNNL_ARG_SRC ? &data_md_ : &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override {
        return idx == 0 && data_arg_ == DNNL_ARG_DST ? &data_md_ : &zero_md_;
    }
    const memory_desc_t *diff_src_md(int idx = 0) const override {
        return idx == 0 ? &diff_src_md_ : &zero_md_;
    }
    const memory_desc_t *diff_dst_md(int idx = 0) const override {
        return idx == 0 ? &diff_dst_md_ : &zero_md_;
    }
    // The data tensor (zero md when the kind reads none).
    const memory_desc_t *data_md() const { return &data_md_; }
    int n_inputs() const override { return data_arg_ ? 2 : 1; }
    int n_outputs() const override { return 1; }

    arg_usage_t arg_usage(int arg) const override {
        if ((data_arg_ && arg == data_arg_) || arg == DNNL_ARG_DIFF_DST) return arg_usage_t::input;
        if (arg == DNNL_ARG_DIFF_SRC) return arg_usage_t::output;
        return pd_t::arg_usage(arg);
    }

protected:
    // Resolves format `any`: data plain (when no hint fixed it), diff_dst
    // like data (or like diff_src, or plain), diff_src like diff_dst; all
    // must then be blocked without runtime values.
    status_t init_layouts(const char *impl) {
        if (data_arg_ && mdw_t(data_md_).is_any()) KESTREL_CHECK(elt::set_plain(data_md_));
        if (mdw_t(diff_dst_md_).is_any()) {
            if (data_arg_)
                KESTREL_CHECK(elt::set_layout_like(diff_dst_md_, data_md_));
            else if (!mdw_t(diff_src_md_).is_any())
                KESTREL_CHECK(elt::set_layout_like(diff_dst_md_, diff_src_md_));
            else
                KESTREL_CHECK(elt::set_plain(diff_dst_md_));
        }
        KESTREL_CHECK(elt::set_layout_like(diff_src_md_, diff_dst_md_));
        for (const memory_desc_t *md : {&data_md_, &diff_dst_md_, &diff_src_md_}) {
            if (md == &data_md_ && !data_arg_) continue;
            if (!mdw_t(*md).is_blocked() || mdw_t(*md).has_runtime_dims_or_strides())
                return decline(impl, "layout");
        }
        return status::success;
    }

    desc_t desc_;
    int data_arg_;
    memory_desc_t data_md_, diff_src_md_, diff_dst_md_;
};

} // namespace kestrel

#endif
