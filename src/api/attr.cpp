#include "api/api.hpp"
#include "core/attr.hpp"
#include "core/defaults.hpp"

using namespace kestrel;

namespace {

bool valid_scale_dt(dnnl_data_type_t dt) {
    return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16);
}

bool valid_zp_dt(dnnl_data_type_t dt) {
    return one_of(dt, dnnl_s32, dnnl_s8, dnnl_u8, dnnl_s4, dnnl_u4);
}

dnnl_status_t set_quant(quant_t &q, int arg, int mask, int ndims, const dnnl_dims_t group_dims,
        dnnl_data_type_t dt) {
    if (mask < 0 || ndims < 0 || ndims > DNNL_MAX_NDIMS || (ndims > 0 && !group_dims))
        return dnnl_invalid_arguments;
    for (int i = 0; i < ndims; ++i)
        if (group_dims[i] <= 0) return dnnl_invalid_arguments;
    quant_entry_t &e = q.set(arg);
    e.set = true;
    e.mask = mask;
    e.ndims = ndims;
    for (int i = 0; i < ndims; ++i) e.group_dims[i] = group_dims[i];
    e.dt = dt;
    return dnnl_success;
}

bool valid_eltwise_alg(dnnl_alg_kind_t alg) {
    return alg >= dnnl_eltwise_relu && alg < dnnl_pooling_max;
}

bool valid_binary_alg(dnnl_alg_kind_t alg) {
    return alg >= dnnl_binary_add && alg < dnnl_resampling_nearest;
}

const post_op_t *entry(const_dnnl_post_ops_t po, int index, dnnl_primitive_kind_t kind) {
    if (!po || index < 0 || index >= (int)po->entries.size()) return nullptr;
    const post_op_t &e = po->entries[index];
    return e.kind == kind ? &e : nullptr;
}

} // namespace

// oneDNN keeps at most this many post-ops and answers out_of_memory to one
// more append; a program may rely on that status.
constexpr size_t max_post_ops = 32;

extern "C" {

dnnl_status_t dnnl_primitive_attr_create(dnnl_primitive_attr_t *attr) {
    if (!attr) return dnnl_invalid_arguments;
    auto *a = make_handle<dnnl_primitive_attr>();
    if (!a) return dnnl_out_of_memory;
    a->fpmath_mode = default_fpmath_mode();
    *attr = a;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_clone(dnnl_primitive_attr_t *attr,
        const_dnnl_primitive_attr_t existing_attr) {
    if (any_null(attr, existing_attr)) return dnnl_invalid_arguments;
    auto *a = make_handle<dnnl_primitive_attr>(*existing_attr);
    if (!a) return dnnl_out_of_memory;
    *attr = a;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_destroy(dnnl_primitive_attr_t attr) {
    delete attr;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_scratchpad_mode(const_dnnl_primitive_attr_t attr,
        dnnl_scratchpad_mode_t *mode) {
    if (any_null(attr, mode)) return dnnl_invalid_arguments;
    *mode = attr->scratchpad_mode;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_scratchpad_mode(dnnl_primitive_attr_t attr,
        dnnl_scratchpad_mode_t mode) {
    if (!attr || !one_of(mode, dnnl_scratchpad_mode_library, dnnl_scratchpad_mode_user))
        return dnnl_invalid_arguments;
    attr->scratchpad_mode = mode;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_fpmath_mode(const_dnnl_primitive_attr_t attr,
        dnnl_fpmath_mode_t *mode) {
    if (any_null(attr, mode)) return dnnl_invalid_arguments;
    *mode = attr->fpmath_mode;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_fpmath_mode(dnnl_primitive_attr_t attr,
        dnnl_fpmath_mode_t mode) {
    // Checked as a raw integer first: a C caller may pass any int, which a
    // C++ enum load must not see (UBSan's enum check, found by fuzz_matmul).
    const int v = raw_enum(mode);
    if (!attr || v < dnnl_fpmath_mode_strict || v > dnnl_fpmath_mode_tf32 || !valid_fpmath_mode(mode))
        return dnnl_invalid_arguments;
    attr->fpmath_mode = mode;
    attr->fpmath_apply_to_int = false;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_fpmath_mode_v2(const_dnnl_primitive_attr_t attr,
        dnnl_fpmath_mode_t *mode, int *apply_to_int) {
    // apply_to_int is optional, the mode is not.
    if (!attr || !mode) return dnnl_invalid_arguments;
    *mode = attr->fpmath_mode;
    if (apply_to_int) *apply_to_int = attr->fpmath_apply_to_int;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_fpmath_mode_v2(dnnl_primitive_attr_t attr,
        dnnl_fpmath_mode_t mode, int apply_to_int) {
    if (!attr || !valid_fpmath_mode(mode)) return dnnl_invalid_arguments;
    attr->fpmath_mode = mode;
    attr->fpmath_apply_to_int = apply_to_int != 0;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_deterministic(const_dnnl_primitive_attr_t attr, int *value) {
    if (any_null(attr, value)) return dnnl_invalid_arguments;
    *value = attr->deterministic;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_deterministic(dnnl_primitive_attr_t attr, int value) {
    if (!attr) return dnnl_invalid_arguments;
    attr->deterministic = value != 0;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_accumulation_mode(const_dnnl_primitive_attr_t attr,
        dnnl_accumulation_mode_t *mode) {
    if (any_null(attr, mode)) return dnnl_invalid_arguments;
    *mode = attr->acc_mode;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_accumulation_mode(dnnl_primitive_attr_t attr,
        dnnl_accumulation_mode_t mode) {
    if (!attr || !one_of(mode, dnnl_accumulation_mode_strict, dnnl_accumulation_mode_relaxed,
                         dnnl_accumulation_mode_any, dnnl_accumulation_mode_s32,
                         dnnl_accumulation_mode_f32, dnnl_accumulation_mode_f16))
        return dnnl_invalid_arguments;
    attr->acc_mode = mode;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_scales_mask(dnnl_primitive_attr_t attr, int arg, int mask) {
    if (!attr || arg <= 0) return dnnl_invalid_arguments;
    return guard([&] { return set_quant(attr->scales, arg, mask, 0, nullptr, dnnl_f32); });
}

dnnl_status_t dnnl_primitive_attr_set_scales(dnnl_primitive_attr_t attr, int arg, int mask,
        int ndims, const dnnl_dims_t group_dims, dnnl_data_type_t data_type) {
    if (!attr || arg <= 0 || !valid_scale_dt(data_type)) return dnnl_invalid_arguments;
    return guard([&] { return set_quant(attr->scales, arg, mask, ndims, group_dims, data_type); });
}

dnnl_status_t dnnl_primitive_attr_set_zero_points_mask(dnnl_primitive_attr_t attr, int arg,
        int mask) {
    if (!attr || arg <= 0) return dnnl_invalid_arguments;
    return guard([&] { return set_quant(attr->zero_points, arg, mask, 0, nullptr, dnnl_s32); });
}

dnnl_status_t dnnl_primitive_attr_set_zero_points(dnnl_primitive_attr_t attr, int arg, int mask,
        int ndims, const dnnl_dims_t group_dims, dnnl_data_type_t data_type) {
    if (!attr || arg <= 0 || !valid_zp_dt(data_type)) return dnnl_invalid_arguments;
    return guard([&] {
        return set_quant(attr->zero_points, arg, mask, ndims, group_dims, data_type);
    });
}

dnnl_status_t dnnl_primitive_attr_set_rounding(dnnl_primitive_attr_t attr, int arg,
        dnnl_rounding_mode_t mode) {
    if (!attr || arg < 0 || !one_of(mode, dnnl_rounding_mode_environment, dnnl_rounding_mode_stochastic))
        return dnnl_invalid_arguments;
    return guard([&] {
        for (auto &r : attr->rounding)
            if (r.first == arg) {
                r.second = mode;
                return dnnl_success;
            }
        attr->rounding.emplace_back(arg, mode);
        return dnnl_success;
    });
}

dnnl_status_t dnnl_primitive_attr_get_rounding(dnnl_primitive_attr_t attr, int arg,
        dnnl_rounding_mode_t *mode) {
    if (any_null(attr, mode) || arg < 0) return dnnl_invalid_arguments;
    *mode = dnnl_rounding_mode_environment;
    for (auto &r : attr->rounding)
        if (r.first == arg) *mode = r.second;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_post_ops(const_dnnl_primitive_attr_t attr,
        const_dnnl_post_ops_t *post_ops) {
    if (any_null(attr, post_ops)) return dnnl_invalid_arguments;
    *post_ops = &attr->post_ops;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_post_ops(dnnl_primitive_attr_t attr,
        const_dnnl_post_ops_t post_ops) {
    if (any_null(attr, post_ops)) return dnnl_invalid_arguments;
    return guard([&] {
        attr->post_ops = *post_ops;
        return dnnl_success;
    });
}

dnnl_status_t dnnl_post_ops_create(dnnl_post_ops_t *post_ops) {
    if (!post_ops) return dnnl_invalid_arguments;
    auto *p = make_handle<dnnl_post_ops>();
    if (!p) return dnnl_out_of_memory;
    *post_ops = p;
    return dnnl_success;
}

dnnl_status_t dnnl_post_ops_clone(dnnl_post_ops_t *post_ops, const_dnnl_post_ops_t existing_post_ops) {
    if (any_null(post_ops, existing_post_ops)) return dnnl_invalid_arguments;
    auto *p = make_handle<dnnl_post_ops>(*existing_post_ops);
    if (!p) return dnnl_out_of_memory;
    *post_ops = p;
    return dnnl_success;
}

dnnl_status_t dnnl_post_ops_destroy(dnnl_post_ops_t post_ops) {
    delete post_ops;
    return dnnl_success;
}

int dnnl_post_ops_len(const_dnnl_post_ops_t post_ops) {
    return post_ops ? (int)post_ops->entries.size() : 0;
}

dnnl_primitive_kind_t dnnl_post_ops_get_kind(const_dnnl_post_ops_t post_ops, int index) {
    if (!post_ops || index < 0 || index >= (int)post_ops->entries.size())
        return dnnl_undefined_primitive;
    return post_ops->entries[index].kind;
}

dnnl_status_t dnnl_post_ops_append_sum(dnnl_post_ops_t post_ops, float scale, int32_t zero_point,
        dnnl_data_type_t data_type) {
    if (!post_ops) return dnnl_invalid_arguments;
    if (raw_enum(data_type) != dnnl_data_type_undef && !valid_dt(data_type)) return dnnl_invalid_arguments;
    if (post_ops->entries.size() >= max_post_ops) return dnnl_out_of_memory;
    return guard([&] {
        post_op_t e;
        e.kind = dnnl_sum;
        e.sum.scale = scale;
        e.sum.zero_point = zero_point;
        e.sum.dt = data_type;
        post_ops->entries.push_back(e);
        return dnnl_success;
    });
}

dnnl_status_t dnnl_post_ops_get_params_sum(const_dnnl_post_ops_t post_ops, int index, float *scale,
        int32_t *zero_point, dnnl_data_type_t *data_type) {
    const post_op_t *e = entry(post_ops, index, dnnl_sum);
    if (!e) return dnnl_invalid_arguments;
    if (scale) *scale = e->sum.scale;
    if (zero_point) *zero_point = e->sum.zero_point;
    if (data_type) *data_type = e->sum.dt;
    return dnnl_success;
}

dnnl_status_t dnnl_post_ops_append_eltwise(dnnl_post_ops_t post_ops, dnnl_alg_kind_t alg_kind,
        float alpha, float beta) {
    if (!post_ops || !valid_eltwise_alg(alg_kind)) return dnnl_invalid_arguments;
    if (post_ops->entries.size() >= max_post_ops) return dnnl_out_of_memory;
    return guard([&] {
        post_op_t e;
        e.kind = dnnl_eltwise;
        e.eltwise.alg = alg_kind;
        e.eltwise.alpha = alpha;
        e.eltwise.beta = beta;
        post_ops->entries.push_back(e);
        return dnnl_success;
    });
}

dnnl_status_t dnnl_post_ops_get_params_eltwise(const_dnnl_post_ops_t post_ops, int index,
        dnnl_alg_kind_t *alg_kind, float *alpha, float *beta) {
    const post_op_t *e = entry(post_ops, index, dnnl_eltwise);
    if (!e || any_null(alg_kind, alpha, beta)) return dnnl_invalid_arguments;
    *alg_kind = e->eltwise.alg;
    *alpha = e->eltwise.alpha;
    *beta = e->eltwise.beta;
    return dnnl_success;
}

namespace {

// Both forms: select takes a third source (the condition), the two-input
// algorithms ignore src2 (and keep a zero one).
dnnl_status_t append_binary(dnnl_post_ops_t post_ops, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src1_desc, const_dnnl_memory_desc_t src2_desc) {
    if (any_null(post_ops, src1_desc) || !valid_binary_alg(alg_kind)) return dnnl_invalid_arguments;
    // No implementation reads a sparse second operand.
    if (src1_desc->format_kind == dnnl_format_kind_undef || src1_desc->ndims == 0
            || src1_desc->format_kind == dnnl_format_kind_sparse)
        return dnnl_invalid_arguments;
    const bool select = raw_enum(alg_kind) == dnnl_binary_select;
    if (select && (!src2_desc || src2_desc->format_kind == dnnl_format_kind_undef || src2_desc->ndims == 0))
        return dnnl_invalid_arguments;
    if (post_ops->entries.size() >= max_post_ops) return dnnl_out_of_memory;
    return guard([&] {
        post_op_t e;
        e.kind = dnnl_binary;
        e.binary.alg = alg_kind;
        e.binary.src1_desc = *src1_desc;
        if (select) e.binary.src2_desc = *src2_desc;
        post_ops->entries.push_back(e);
        return dnnl_success;
    });
}

} // namespace

dnnl_status_t dnnl_post_ops_append_binary(dnnl_post_ops_t post_ops, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src1_desc) {
    return append_binary(post_ops, alg_kind, src1_desc, nullptr);
}

dnnl_status_t dnnl_post_ops_append_binary_v2(dnnl_post_ops_t post_ops, dnnl_alg_kind_t alg_kind,
        const_dnnl_memory_desc_t src1_desc, const_dnnl_memory_desc_t src2_desc) {
    return append_binary(post_ops, alg_kind, src1_desc, src2_desc);
}

dnnl_status_t dnnl_post_ops_get_params_binary(const_dnnl_post_ops_t post_ops, int index,
        dnnl_alg_kind_t *alg_kind, const_dnnl_memory_desc_t *src1_desc) {
    const post_op_t *e = entry(post_ops, index, dnnl_binary);
    if (!e) return dnnl_invalid_arguments;
    if (alg_kind) *alg_kind = e->binary.alg;
    if (src1_desc) *src1_desc = &e->binary.src1_desc;
    return dnnl_success;
}

dnnl_status_t dnnl_post_ops_append_prelu(dnnl_post_ops_t post_ops, int mask) {
    if (!post_ops || mask < 0) return dnnl_invalid_arguments;
    if (post_ops->entries.size() >= max_post_ops) return dnnl_out_of_memory;
    return guard([&] {
        post_op_t e;
        e.kind = dnnl_prelu;
        e.prelu.mask = mask;
        post_ops->entries.push_back(e);
        return dnnl_success;
    });
}

dnnl_status_t dnnl_post_ops_get_params_prelu(const_dnnl_post_ops_t post_ops, int index, int *mask) {
    const post_op_t *e = entry(post_ops, index, dnnl_prelu);
    if (!e || !mask) return dnnl_invalid_arguments;
    *mask = e->prelu.mask;
    return dnnl_success;
}

} // extern "C"

// Getters whose setters Kestrel does not implement (RNN
// quantization, depthwise and select post-ops): an attribute can never hold
// those, so each getter reports the default oneDNN reports for an attribute
// where they were never set, and writes its outputs.
namespace {

const memory_desc_t no_md = zero_md();
const float unit_scale = 1.f;

} // namespace

extern "C" {

dnnl_status_t dnnl_primitive_attr_get_dropout(const_dnnl_primitive_attr_t attr,
        const_dnnl_memory_desc_t *dropout_desc) {
    if (any_null(attr, dropout_desc)) return dnnl_invalid_arguments;
    *dropout_desc = attr->dropout ? &attr->dropout_mask : &no_md;
    return dnnl_success;
}

// A zero descriptor sets dropout without a mask output; a mask is u8.
dnnl_status_t dnnl_primitive_attr_set_dropout(dnnl_primitive_attr_t attr,
        const_dnnl_memory_desc_t dropout_desc) {
    if (any_null(attr, dropout_desc)) return dnnl_invalid_arguments;
    if (dropout_desc->ndims < 0 || dropout_desc->ndims > DNNL_MAX_NDIMS
            || (dropout_desc->ndims != 0 && dropout_desc->data_type != dnnl_u8)
            || dropout_desc->format_kind == dnnl_format_kind_sparse) // a mask is written densely
        return dnnl_invalid_arguments;
    attr->dropout = true;
    attr->dropout_mask = *dropout_desc;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_set_rnn_data_qparams(dnnl_primitive_attr_t attr,
        const float scale, const float shift) {
    if (!attr) return dnnl_invalid_arguments;
    attr->rnn_data_scale = scale;
    attr->rnn_data_shift = shift;
    return dnnl_success;
}

dnnl_status_t dnnl_primitive_attr_get_rnn_data_qparams(const_dnnl_primitive_attr_t attr,
        float *scale, float *shift) {
    if (!attr) return dnnl_invalid_arguments;
    if (scale) *scale = attr->rnn_data_scale;
    if (shift) *shift = attr->rnn_data_shift;
    return dnnl_success;
}

namespace {

// The weights (or projection weights) scales: count values, one per
// element of the dims the mask selects; the primitive checks count then.
dnnl_status_t set_weights_qparams(int &mask_out, std::vector<float> &scales_out,
        dnnl_dim_t count, int mask, const float *scales) {
    if (count <= 0 || mask < 0 || !scales) return dnnl_invalid_arguments;
    if (mask == 0 && count != 1) return dnnl_invalid_arguments;
    std::vector<float> v(scales, scales + count);
    mask_out = mask;
    scales_out.swap(v);
    return dnnl_success;
}

dnnl_status_t get_weights_qparams(int mask_in, const std::vector<float> &scales_in,
        dnnl_dim_t *count, int *mask, const float **scales) {
    if (count) *count = scales_in.empty() ? 1 : (dnnl_dim_t)scales_in.size();
    if (mask) *mask = scales_in.empty() ? 0 : mask_in;
    if (scales) *scales = scales_in.empty() ? &unit_scale : scales_in.data();
    return dnnl_success;
}

} // namespace

dnnl_status_t dnnl_primitive_attr_set_rnn_weights_qparams(dnnl_primitive_attr_t attr,
        dnnl_dim_t count, int mask, const float *scales) {
    if (!attr) return dnnl_invalid_arguments;
    return guard([&] {
        return set_weights_qparams(attr->rnn_weights_mask, attr->rnn_weights_scales, count, mask, scales);
    });
}

dnnl_status_t dnnl_primitive_attr_get_rnn_weights_qparams(const_dnnl_primitive_attr_t attr,
        dnnl_dim_t *count, int *mask, const float **scales) {
    if (!attr) return dnnl_invalid_arguments;
    return get_weights_qparams(attr->rnn_weights_mask, attr->rnn_weights_scales, count, mask, scales);
}

dnnl_status_t dnnl_primitive_attr_set_rnn_weights_projection_qparams(dnnl_primitive_attr_t attr,
        dnnl_dim_t count, int mask, const float *scales) {
    if (!attr) return dnnl_invalid_arguments;
    return guard([&] {
        return set_weights_qparams(
                attr->rnn_weights_proj_mask, attr->rnn_weights_proj_scales, count, mask, scales);
    });
}

dnnl_status_t dnnl_primitive_attr_get_rnn_weights_projection_qparams(
        const_dnnl_primitive_attr_t attr, dnnl_dim_t *count, int *mask, const float **scales) {
    if (!attr) return dnnl_invalid_arguments;
    return get_weights_qparams(
            attr->rnn_weights_proj_mask, attr->rnn_weights_proj_scales, count, mask, scales);
}

dnnl_status_t dnnl_post_ops_get_params_binary_v2(const_dnnl_post_ops_t post_ops, int index,
        dnnl_alg_kind_t *alg_kind, const_dnnl_memory_desc_t *src1_desc,
        const_dnnl_memory_desc_t *src2_desc) {
    const post_op_t *e = entry(post_ops, index, dnnl_binary);
    if (!e) return dnnl_invalid_arguments;
    if (alg_kind) *alg_kind = e->binary.alg;
    if (src1_desc) *src1_desc = &e->binary.src1_desc;
    if (src2_desc) *src2_desc = &e->binary.src2_desc;
    return dnnl_success;
}

dnnl_status_t dnnl_post_ops_append_dw(dnnl_post_ops_t post_ops, dnnl_data_type_t weights_data_type,
        dnnl_data_type_t bias_data_type, dnnl_data_type_t dst_data_type, dnnl_dim_t kernel_size,
        dnnl_dim_t stride_size, dnnl_dim_t padding_l_size) {
    if (!post_ops || !valid_dt(weights_data_type) || !valid_dt(dst_data_type)) return dnnl_invalid_arguments;
    // No bias is data type undef.
    const int bdt = raw_enum(bias_data_type);
    if (bdt != dnnl_data_type_undef && !valid_dt(bias_data_type)) return dnnl_invalid_arguments;
    // A kernel whose taps could all fall in the left padding is no problem.
    if (kernel_size <= 0 || stride_size <= 0 || padding_l_size < 0 || padding_l_size >= kernel_size)
        return dnnl_invalid_arguments;
    if (post_ops->entries.size() >= max_post_ops) return dnnl_out_of_memory;
    return guard([&] {
        post_op_t e;
        e.kind = dnnl_convolution;
        e.dw.wei_dt = weights_data_type;
        e.dw.bias_dt = bias_data_type;
        e.dw.dst_dt = dst_data_type;
        e.dw.kernel = kernel_size;
        e.dw.stride = stride_size;
        e.dw.padding_l = padding_l_size;
        post_ops->entries.push_back(e);
        return dnnl_success;
    });
}

dnnl_status_t dnnl_post_ops_get_params_dw(const_dnnl_post_ops_t post_ops, int index,
        dnnl_data_type_t *weights_data_type, dnnl_data_type_t *bias_data_type,
        dnnl_data_type_t *dst_data_type, dnnl_dim_t *kernel_size, dnnl_dim_t *stride_size,
        dnnl_dim_t *padding_l_size) {
    const post_op_t *e = entry(post_ops, index, dnnl_convolution);
    if (!e) return dnnl_invalid_arguments;
    if (weights_data_type) *weights_data_type = e->dw.wei_dt;
    if (bias_data_type) *bias_data_type = e->dw.bias_dt;
    if (dst_data_type) *dst_data_type = e->dw.dst_dt;
    if (kernel_size) *kernel_size = e->dw.kernel;
    if (stride_size) *stride_size = e->dw.stride;
    if (padding_l_size) *padding_l_size = e->dw.padding_l;
    return dnnl_success;
}

} // extern "C"
