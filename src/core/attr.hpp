// Primitive attributes and post-ops.
#ifndef KESTREL_CORE_ATTR_HPP
#define KESTREL_CORE_ATTR_HPP

#include <vector>

#include "core/memory_desc.hpp"

namespace kestrel {

struct post_op_t {
    dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
    struct {
        float scale = 1.f;
        int32_t zero_point = 0;
        data_type_t dt = dnnl_data_type_undef;
    } sum;
    struct {
        dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
        float alpha = 0.f, beta = 0.f;
    } eltwise;
    struct {
        dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
        memory_desc_t src1_desc = zero_md();
        memory_desc_t src2_desc = zero_md(); // select only: the condition
    } binary;
    struct {
        int mask = 0;
    } prelu;
    // Depthwise convolution fused after a 1x1 convolution (kind
    // dnnl_convolution): its weights, bias and dst data types and its
    // kernel, stride and left padding, the same on every spatial dim.
    struct {
        data_type_t wei_dt = dnnl_data_type_undef, bias_dt = dnnl_data_type_undef,
                    dst_dt = dnnl_data_type_undef;
        dim_t kernel = 0, stride = 0, padding_l = 0;
    } dw;
};

// Quantization parameter for one argument: a mask over dims (0 = one value
// for the tensor), optional groups and the data type of the values.
struct quant_entry_t {
    bool set = false;
    int mask = 0;
    int ndims = 0;
    dims_t group_dims = {};
    data_type_t dt = dnnl_f32;
};

struct quant_t {
    struct item_t {
        int arg;
        quant_entry_t e;
    };
    std::vector<item_t> items;

    const quant_entry_t *get(int arg) const {
        for (auto &i : items)
            if (i.arg == arg) return &i.e;
        return nullptr;
    }
    quant_entry_t &set(int arg) {
        for (auto &i : items)
            if (i.arg == arg) return i.e;
        items.push_back({arg, quant_entry_t()});
        return items.back().e;
    }
    bool empty() const { return items.empty(); }
};

} // namespace kestrel

struct dnnl_post_ops {
    std::vector<kestrel::post_op_t> entries;

    int find(dnnl_primitive_kind_t kind, int start = 0) const {
        for (int i = start; i < (int)entries.size(); ++i)
            if (entries[i].kind == kind) return i;
        return -1;
    }
    bool has_only(std::initializer_list<dnnl_primitive_kind_t> kinds) const {
        for (auto &e : entries) {
            bool ok = false;
            for (auto k : kinds) ok = ok || e.kind == k;
            if (!ok) return false;
        }
        return true;
    }
};

struct dnnl_primitive_attr {
    dnnl_scratchpad_mode_t scratchpad_mode = dnnl_scratchpad_mode_library;
    dnnl_fpmath_mode_t fpmath_mode = dnnl_fpmath_mode_strict;
    bool fpmath_apply_to_int = false;
    dnnl_accumulation_mode_t acc_mode = dnnl_accumulation_mode_strict;
    bool deterministic = false;
    kestrel::quant_t scales;
    kestrel::quant_t zero_points;
    std::vector<std::pair<int, dnnl_rounding_mode_t>> rounding;
    dnnl_post_ops post_ops;
    // Dropout: set or not, and the descriptor of the mask it writes (a zero
    // descriptor: no mask is written).
    bool dropout = false;
    kestrel::memory_desc_t dropout_mask = kestrel::zero_md();
    // RNN int8 quantisation parameters: read by the int8 RNN inference
    // (cpu/rnn/rnn_int8.cpp) and the quantising reorder
    // (cpu/reorder/reorder_rnn.cpp); the f32 RNN ignores them and every
    // other primitive declines an attr that sets them. Empty scales mean
    // one scale of 1 with mask 0.
    float rnn_data_scale = 1.f, rnn_data_shift = 0.f;
    int rnn_weights_mask = 0, rnn_weights_proj_mask = 0;
    std::vector<float> rnn_weights_scales, rnn_weights_proj_scales;

    // Attributes a primitive may accept; anything set outside them makes the
    // primitive decline with unimplemented.
    enum skip_t : unsigned {
        skip_none = 0,
        skip_scales = 1u << 0,
        skip_zero_points = 1u << 1,
        skip_post_ops = 1u << 2,
        skip_rounding = 1u << 3,
        skip_dropout = 1u << 4,
        skip_rnn_qparams = 1u << 5,
    };
    // The RNN quantisation parameters hold their defaults: data scale 1 and
    // shift 0, weights scales all 1 under mask 0 (oneDNN's notion of unset).
    bool rnn_qparams_default() const {
        auto ones = [](const std::vector<float> &v) {
            for (float x : v)
                if (x != 1.f) return false;
            return true;
        };
        return rnn_data_scale == 1.f && rnn_data_shift == 0.f && rnn_weights_mask == 0
                && rnn_weights_proj_mask == 0 && ones(rnn_weights_scales)
                && ones(rnn_weights_proj_scales);
    }
    bool has_default_values(unsigned allowed = skip_none) const {
        if (!(allowed & skip_scales) && !scales.empty()) return false;
        if (!(allowed & skip_zero_points) && !zero_points.empty()) return false;
        if (!(allowed & skip_post_ops) && !post_ops.entries.empty()) return false;
        if (!(allowed & skip_rounding) && !rounding.empty()) return false;
        if (!(allowed & skip_dropout) && dropout) return false;
        if (!(allowed & skip_rnn_qparams) && !rnn_qparams_default()) return false;
        return true;
    }
};

namespace kestrel {
using attr_t = dnnl_primitive_attr;
using post_ops_t = dnnl_post_ops;
} // namespace kestrel

#endif
