#include "cpu/conv/conv_pd.hpp"

#include "cpu/post_ops.hpp"

namespace kestrel {

void conv_geom_t::init(const conv_desc_t &d) {
    ndims = d.src.ndims;
    if (ndims < 3 || ndims > 5) return; // rejected before any pd exists
    is_deconv = d.kind == dnnl_deconvolution;
    with_groups = d.weights.ndims == ndims + 1;
    with_bias = d.bias.ndims != 0;
    const dim_t *w = d.weights.dims + (with_groups ? 1 : 0);
    G = with_groups ? d.weights.dims[0] : 1;
    MB = d.src.dims[0];
    OCg = w[0];
    ICg = w[1];
    const int sp = ndims - 2;
    // Spatial index i of the user's arrays maps to d/h/w from the right.
    dim_t *in[3] = {&ID, &IH, &IW}, *out[3] = {&OD, &OH, &OW}, *ker[3] = {&KD, &KH, &KW};
    dim_t *str[3] = {&SD, &SH, &SW}, *dil[3] = {&DD, &DH, &DW};
    dim_t *pl[3] = {&PD, &PH, &PW}, *pr[3] = {&PDr, &PHr, &PWr};
    for (int i = 0; i < sp; ++i) {
        int k = 3 - sp + i;
        *in[k] = d.src.dims[2 + i];
        *out[k] = d.dst.dims[2 + i];
        *ker[k] = w[2 + i];
        *str[k] = d.strides[i];
        *dil[k] = d.dilates[i];
        *pl[k] = d.pad_l[i];
        *pr[k] = d.pad_r[i];
    }
}

arg_usage_t conv_fwd_pd_t::arg_usage(int arg) const {
    switch (arg) {
        case DNNL_ARG_SRC:
        case DNNL_ARG_WEIGHTS: return arg_usage_t::input;
        case DNNL_ARG_BIAS: return geom_.with_bias ? arg_usage_t::input : arg_usage_t::unused;
        case DNNL_ARG_DST: return arg_usage_t::output;
        default: return pd_t::arg_usage(arg);
    }
}

bool conv_query(const conv_desc_t &d, dnnl_query_t what, void *result) {
    switch (what) {
        case dnnl_query_alg_kind: *(dnnl_alg_kind_t *)result = d.alg_kind; return true;
        case dnnl_query_strides: *(const dims_t **)result = &d.strides; return true;
        case dnnl_query_dilations: *(const dims_t **)result = &d.dilates; return true;
        case dnnl_query_padding_l: *(const dims_t **)result = &d.pad_l; return true;
        case dnnl_query_padding_r: *(const dims_t **)result = &d.pad_r; return true;
        default: return false;
    }
}

status_t conv_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    return conv_query(desc_, what, result) ? status::success : pd_t::query(what, idx, result);
}

bool conv_fwd_pd_t::types_are(data_type_t dt) const {
    if (src_md_.data_type != dt || weights_md_.data_type != dt || dst_md_.data_type != dt) return false;
    return !geom_.with_bias || one_of(bias_md_.data_type, dnnl_f32, dt);
}

bool conv_fwd_pd_t::int8_types() const {
    return one_of(src_md_.data_type, dnnl_u8, dnnl_s8) && weights_md_.data_type == dnnl_s8
            && one_of(dst_md_.data_type, dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8)
            && (!geom_.with_bias
                    || one_of(bias_md_.data_type, dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8));
}

status_t conv_fwd_pd_t::check_attr(bool int8, bool zp_per_channel) {
    using sk = attr_t::skip_t;
    const unsigned allowed = sk::skip_scales | sk::skip_post_ops | (int8 ? (unsigned)sk::skip_zero_points : 0u);
    if (!attr_.has_default_values(allowed)) return status::unimplemented;
    for (const auto &q : attr_.zero_points.items)
        if (!one_of(q.arg, DNNL_ARG_SRC, DNNL_ARG_DST) || !(q.e.mask == 0 || (zp_per_channel && q.e.mask == 2))
                || q.e.ndims != 0
                || !one_of(q.e.dt, dnnl_s32, dnnl_s8, dnnl_u8))
            return status::unimplemented;
    for (const auto &q : attr_.scales.items) {
        if (q.e.dt != dnnl_f32 || q.e.ndims != 0) return status::unimplemented;
        const int per_oc = geom_.with_groups ? 3 : 1;
        switch (q.arg) {
            case DNNL_ARG_SRC:
                if (q.e.mask != 0) return status::unimplemented;
                break;
            case DNNL_ARG_WEIGHTS:
                if (!one_of(q.e.mask, 0, per_oc)) return status::unimplemented;
                break;
            case DNNL_ARG_DST:
                if (!one_of(q.e.mask, 0, 2)) return status::unimplemented;
                break;
            default: return status::unimplemented;
        }
    }
    KESTREL_CHECK(post_ops::check(attr_.post_ops, dst_md_, true));
    return post_ops::resolve_any(attr_.post_ops);
}

status_t conv_fwd_pd_t::set_formats(format_tag_t data_tag, format_tag_t wei_tag) {
    if (mdw_t(src_md_).is_any()) KESTREL_CHECK(md_set_tag(src_md_, data_tag));
    if (mdw_t(dst_md_).is_any()) KESTREL_CHECK(md_set_tag(dst_md_, data_tag));
    if (mdw_t(weights_md_).is_any()) KESTREL_CHECK(md_set_tag(weights_md_, wei_tag));
    if (geom_.with_bias && mdw_t(bias_md_).is_any()) KESTREL_CHECK(md_set_tag(bias_md_, dnnl_a));
    return status::success;
}

namespace {

bool valid_layout(const memory_desc_t &md) {
    return md.format_kind == dnnl_blocked || md.format_kind == dnnl_format_kind_any;
}

} // namespace

status_t conv_desc_init(conv_desc_t &d, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
        const memory_desc_t *src, const memory_desc_t *weights, const memory_desc_t *bias,
        const memory_desc_t *dst, const dim_t *strides, const dim_t *dilates,
        const dim_t *pad_l, const dim_t *pad_r) {
    if (any_null(src, weights, dst, strides, pad_l)) return status::invalid_arguments;
    if (!one_of(prop, dnnl_forward_training, dnnl_forward_inference, dnnl_backward_data,
                dnnl_backward_weights))
        return status::invalid_arguments;
    if (!pad_r) pad_r = pad_l;
    const bool with_bias = bias && bias->format_kind != dnnl_format_kind_undef;

    if (!one_of(src->ndims, 3, 4, 5) || dst->ndims != src->ndims) return status::invalid_arguments;
    if (!one_of(weights->ndims, src->ndims, src->ndims + 1)) return status::invalid_arguments;
    if (mdw_t(src).has_runtime_dims_or_strides() || mdw_t(weights).has_runtime_dims_or_strides()
            || mdw_t(dst).has_runtime_dims_or_strides()
            || (with_bias && mdw_t(bias).has_runtime_dims_or_strides()))
        return status::unimplemented;
    if (!valid_layout(*src) || !valid_layout(*weights) || !valid_layout(*dst)
            || (with_bias && !valid_layout(*bias)))
        return status::invalid_arguments;
    for (auto dt : {src->data_type, weights->data_type, dst->data_type})
        if (data_type_size(dt) == 0) return status::invalid_arguments;
    if (mdw_t(weights).nelems() == 0) return status::invalid_arguments;

    const bool with_groups = weights->ndims == src->ndims + 1;
    const dim_t g = with_groups ? weights->dims[0] : 1;
    const dim_t *w = weights->dims + (with_groups ? 1 : 0);
    if (with_bias && (bias->ndims != 1 || bias->dims[0] != dst->dims[1]))
        return status::invalid_arguments;
    if (src->dims[0] != dst->dims[0]) return status::invalid_arguments;
    if (src->dims[1] != g * w[1] || dst->dims[1] != g * w[0]) return status::invalid_arguments;

    const bool deconv = d.kind == dnnl_deconvolution;
    const int sp = src->ndims - 2;
    for (int i = 0; i < sp; ++i) {
        const dim_t dil = dilates ? dilates[i] : 0;
        const dim_t str = strides[i];
        if (str <= 0 || dil < 0 || pad_l[i] < 0 || pad_r[i] <= -str) return status::invalid_arguments;
        // For deconvolution the big side is dst; the relation is mirrored.
        const dim_t big = deconv ? dst->dims[2 + i] : src->dims[2 + i];
        const dim_t small = deconv ? src->dims[2 + i] : dst->dims[2 + i];
        // Hostile dims, dilation or padding must not overflow (found by
        // fuzz_conv).
        dim_t ker_range, span;
        if (__builtin_add_overflow(dil, (dim_t)1, &ker_range)
                || __builtin_mul_overflow(w[2 + i] - 1, ker_range, &ker_range)
                || __builtin_add_overflow(ker_range, (dim_t)1, &ker_range)
                || __builtin_sub_overflow(big, ker_range, &span)
                || __builtin_add_overflow(span, pad_l[i], &span)
                || __builtin_add_overflow(span, pad_r[i], &span))
            return status::invalid_arguments;
        const dim_t steps = span / str; // + 1 would overflow at INT64_MAX (fuzz_conv)
        if (steps == INT64_MAX || steps + 1 != small) return status::invalid_arguments;
    }

    d.prop_kind = prop;
    d.alg_kind = alg;
    d.src = *src;
    d.weights = *weights;
    d.dst = *dst;
    d.bias = with_bias ? *bias : zero_md();
    for (int i = 0; i < max_ndims; ++i) {
        bool on = i < sp;
        d.strides[i] = on ? strides[i] : 0;
        d.dilates[i] = on && dilates ? dilates[i] : 0;
        d.pad_l[i] = on ? pad_l[i] : 0;
        d.pad_r[i] = on ? pad_r[i] : 0;
    }
    return status::success;
}

} // namespace kestrel
