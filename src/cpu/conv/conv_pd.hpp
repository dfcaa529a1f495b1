// Convolution and deconvolution forward: the op descriptor, the problem
// geometry every implementation reads, and the base primitive descriptor.
//
// Both kinds share one descriptor layout. For deconvolution, src/dst keep the
// user's meaning (src is the small tensor, dst the large one) and weights are
// [G,] OC, IC, K... with OC the dst channels, as in oneDNN.
#ifndef KESTREL_CPU_CONV_CONV_PD_HPP
#define KESTREL_CPU_CONV_CONV_PD_HPP

#include "core/primitive_desc.hpp"

namespace kestrel {

struct conv_desc_t : op_desc_impl_t<conv_desc_t> {
    explicit conv_desc_t(dnnl_primitive_kind_t k) : op_desc_impl_t(k) {}
    dnnl_prop_kind_t prop_kind = dnnl_prop_kind_undef;
    dnnl_alg_kind_t alg_kind = dnnl_alg_kind_undef;
    memory_desc_t src = zero_md(), weights = zero_md(), bias = zero_md(), dst = zero_md();
    // Spatial parameters; dilation 0 means none (oneDNN's convention).
    dims_t strides = {}, dilates = {}, pad_l = {}, pad_r = {};

    // The kind (convolution or deconvolution) is already in the key. Every
    // slot of the spatial arrays is written, not only the first ndims - 2:
    // conv_desc_init zeroes the rest, so this costs nothing and stays
    // correct should a caller ever leave them otherwise.
    bool serialize(key_writer_t &k) const override {
        // x86-64 size of the fields above: a new field fails the build here
        // until it is written into the key.
        static_assert(sizeof(conv_desc_t) == 2872, "conv_desc_t changed: update serialize");
        k.put(prop_kind);
        k.put(alg_kind);
        k.put(src);
        k.put(weights);
        k.put(bias);
        k.put(dst);
        for (int i = 0; i < max_ndims; ++i) {
            k.put(strides[i]);
            k.put(dilates[i]);
            k.put(pad_l[i]);
            k.put(pad_r[i]);
        }
        return true;
    }
};

// Sizes of one problem, spatial dims widened to 3 (missing ones are 1 with
// unit stride and no padding). "I" always names src, "O" always dst.
struct conv_geom_t {
    int ndims = 0; // of src/dst
    bool with_groups = false, with_bias = false, is_deconv = false;
    dim_t G = 1, MB = 0, ICg = 0, OCg = 0; // channels per group
    dim_t ID = 1, IH = 1, IW = 1, OD = 1, OH = 1, OW = 1, KD = 1, KH = 1, KW = 1;
    dim_t SD = 1, SH = 1, SW = 1;
    dim_t DD = 0, DH = 0, DW = 0; // oneDNN dilation (0 = dense)
    dim_t PD = 0, PH = 0, PW = 0; // left padding
    dim_t PDr = 0, PHr = 0, PWr = 0;

    dim_t IC() const { return G * ICg; }
    dim_t OC() const { return G * OCg; }
    bool is_1x1_unit() const {
        return KD * KH * KW == 1 && SD * SH * SW == 1 && PD + PH + PW + PDr + PHr + PWr == 0;
    }

    // Logical positions for mdw_t::off_v.
    void data_pos(dim_t *pos, dim_t n, dim_t c, dim_t d, dim_t h, dim_t w) const {
        pos[0] = n;
        pos[1] = c;
        int k = 2;
        if (ndims == 5) pos[k++] = d;
        if (ndims >= 4) pos[k++] = h;
        pos[k] = w;
    }
    void wei_pos(dim_t *pos, dim_t g, dim_t oc, dim_t ic, dim_t kd, dim_t kh, dim_t kw) const {
        int k = 0;
        if (with_groups) pos[k++] = g;
        pos[k++] = oc;
        pos[k++] = ic;
        if (ndims == 5) pos[k++] = kd;
        if (ndims >= 4) pos[k++] = kh;
        pos[k] = kw;
    }

    void init(const conv_desc_t &d);
};

// Answers the queries of the op descriptor's own fields (alg kind,
// strides, dilations, paddings) for forward and backward pds; false for
// any other query.
bool conv_query(const conv_desc_t &d, dnnl_query_t what, void *result);

// Base of every convolution/deconvolution forward implementation.
struct conv_fwd_pd_t : pd_t {
    using desc_t = conv_desc_t;
    conv_fwd_pd_t(const conv_desc_t *d, const attr_t *a, const pd_t *hint)
        : pd_t(a, d->kind), desc_(*d), src_md_(d->src), weights_md_(d->weights),
          bias_md_(d->bias), dst_md_(d->dst) {
        (void)hint;
        geom_.init(desc_);
    }

    const conv_desc_t *desc() const { return &desc_; }
    const conv_geom_t &geom() const { return geom_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }

    const memory_desc_t *src_md(int idx = 0) const override { return idx == 0 ? &src_md_ : &zero_md_; }
    const memory_desc_t *dst_md(int idx = 0) const override { return idx == 0 ? &dst_md_ : &zero_md_; }
    const memory_desc_t *weights_md(int idx = 0) const override {
        if (idx == 0) return &weights_md_;
        if (idx == 1) return &bias_md_;
        return &zero_md_;
    }

    arg_usage_t arg_usage(int arg) const override;
    int n_inputs() const override { return 2 + (geom_.with_bias ? 1 : 0); }
    int n_outputs() const override { return 1; }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    // Attributes every implementation supports: scales (src common, weights
    // common or per output channel, dst common or per channel) and the
    // post-op chains of post_ops::check; resolves binary src1 `any`.
    // unimplemented or invalid_arguments (malformed binary src1) otherwise.
    // int8: per-tensor src and dst zero points (s32/s8/u8 values) too, and
    // with zp_per_channel also one per channel (mask 1 << 1), as oneDNN's
    // reference takes them.
    status_t check_attr(bool int8 = false, bool zp_per_channel = false);
    // Data types all equal to `dt` (bias f32 or dt).
    bool types_are(data_type_t dt) const;
    // int8 problem: u8/s8 src, s8 weights, f32/bf16/s32/s8/u8 dst, bias
    // f32/bf16/s32/s8/u8.
    bool int8_types() const;
    // Resolves `any` in src/dst/weights with the given tags; bias gets `a`.
    status_t set_formats(format_tag_t data_tag, format_tag_t wei_tag);

    conv_desc_t desc_;
    conv_geom_t geom_;
    memory_desc_t src_md_, weights_md_, bias_md_, dst_md_;
};

// Validates the user's arguments (shared by convolution and deconvolution
// entry points) and builds the descriptor. Returns invalid_arguments for
// inconsistent problems, exactly as oneDNN's checks do.
status_t conv_desc_init(conv_desc_t &d, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
        const memory_desc_t *src, const memory_desc_t *weights, const memory_desc_t *bias,
        const memory_desc_t *dst, const dim_t *strides, const dim_t *dilates,
        const dim_t *pad_l, const dim_t *pad_r);

// Implementation lists.
extern const impl_entry_t conv_fwd_impl_list[];
extern const impl_entry_t deconv_fwd_impl_list[];

} // namespace kestrel

#endif
