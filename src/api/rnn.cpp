// Recurrent C entry points, forward and backward: vanilla RNN, LSTM, GRU,
// LBR-GRU, AUGRU and LBR-AUGRU. Every cell goes through one descriptor and
// one check per direction of propagation.
#include "api/api.hpp"
#include "core/verbose.hpp"
#include "cpu/rnn/rnn_pd.hpp"

using namespace kestrel;

namespace {

// The descriptors of one forward call; a null or zero descriptor is an
// argument the problem does not have.
struct rnn_fwd_args_t {
    const_dnnl_memory_desc_t src_layer = nullptr, src_iter = nullptr, src_iter_c = nullptr,
                             attention = nullptr, weights_layer = nullptr, weights_iter = nullptr,
                             weights_peephole = nullptr, weights_projection = nullptr, bias = nullptr,
                             dst_layer = nullptr, dst_iter = nullptr, dst_iter_c = nullptr;
};

memory_desc_t md_or_zero(const_dnnl_memory_desc_t md) { return md ? *md : zero_md(); }

dnnl_status_t rnn_fwd_create(dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t cell_kind, dnnl_alg_kind_t activation,
        dnnl_rnn_direction_t direction, const rnn_fwd_args_t &a, unsigned flags, float alpha, float beta,
        const_dnnl_primitive_attr_t attr) {
    KESTREL_VCHECK(!(any_null(primitive_desc, engine, a.src_layer, a.weights_layer, a.weights_iter,
                              a.dst_layer)),
                   dnnl_invalid_arguments, dnnl_rnn, "a required argument is null");
    const_dnnl_memory_desc_t all[] = {a.src_layer, a.src_iter, a.src_iter_c, a.attention, a.weights_layer,
            a.weights_iter, a.weights_peephole, a.weights_projection, a.bias, a.dst_layer, a.dst_iter,
            a.dst_iter_c};
    for (const_dnnl_memory_desc_t md : all)
        KESTREL_VCHECK(!(md
                         && (md->ndims < 0 || md->ndims > max_ndims
                             || (md->ndims && !valid_dt(md->data_type)))),
                       dnnl_invalid_arguments, dnnl_rnn,
                       "a descriptor has a bad number of dimensions or data type");
    if (any_runtime_of((int)(sizeof(all) / sizeof(all[0])), all)) return dnnl_unimplemented;
    const int pk = raw_enum(prop_kind), dir = raw_enum(direction);
    KESTREL_VCHECK(!(pk != dnnl_forward_training && pk != dnnl_forward_inference),
                   dnnl_invalid_arguments, dnnl_rnn,
                   "propagation kind is not valid for this primitive");
    KESTREL_VCHECK(!(dir != dnnl_unidirectional_left2right && dir != dnnl_unidirectional_right2left
                     && dir != dnnl_bidirectional_concat && dir != dnnl_bidirectional_sum),
                   dnnl_invalid_arguments, dnnl_rnn, "direction is not valid");
    KESTREL_VCHECK(!(flags & ~(unsigned)dnnl_rnn_flags_diff_weights_overwrite),
                   dnnl_invalid_arguments, dnnl_rnn, "flags hold unknown bits");
    if (cell_kind == dnnl_vanilla_rnn) {
        const int act = raw_enum(activation);
        KESTREL_VCHECK(!(act != dnnl_eltwise_relu && act != dnnl_eltwise_tanh
                         && act != dnnl_eltwise_logistic),
                       dnnl_invalid_arguments, dnnl_rnn,
                       "activation is not valid for a vanilla RNN cell");
    }
    return guard([&]() -> dnnl_status_t {
        rnn_desc_t desc;
        desc.prop_kind = prop_kind;
        desc.cell_kind = cell_kind;
        desc.activation = activation;
        desc.direction = direction;
        desc.flags = flags;
        desc.alpha = alpha;
        desc.beta = beta;
        desc.src_layer = *a.src_layer;
        desc.src_iter = md_or_zero(a.src_iter);
        desc.src_iter_c = md_or_zero(a.src_iter_c);
        desc.attention = md_or_zero(a.attention);
        desc.weights_layer = *a.weights_layer;
        desc.weights_iter = *a.weights_iter;
        desc.weights_peephole = md_or_zero(a.weights_peephole);
        desc.weights_projection = md_or_zero(a.weights_projection);
        desc.bias = md_or_zero(a.bias);
        desc.dst_layer = *a.dst_layer;
        desc.dst_iter = md_or_zero(a.dst_iter);
        desc.dst_iter_c = md_or_zero(a.dst_iter_c);
        rnn_dims_t dims;
        // rnn_check_dims says which dimension is wrong in verbose mode.
        if (rnn_check_dims(desc, dims) != status::success) return dnnl_invalid_arguments;
        return create_pd_handle(primitive_desc, desc, attr, engine, rnn_fwd_impl_list, nullptr);
    });
}

// Backward: `a` the data descriptors, `g` their gradients (same fields).
// The forward training pd is required as the hint and must describe the
// same problem; the diff descriptors are present exactly when their data
// twins are.
dnnl_status_t rnn_bwd_create(dnnl_primitive_desc_t *primitive_desc, dnnl_engine_t engine,
        dnnl_prop_kind_t prop_kind, dnnl_alg_kind_t cell_kind, dnnl_alg_kind_t activation,
        dnnl_rnn_direction_t direction, const rnn_fwd_args_t &a, const rnn_fwd_args_t &g, unsigned flags,
        float alpha, float beta, const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    if (any_null(primitive_desc, engine, a.src_layer, a.weights_layer, a.weights_iter, a.dst_layer, g.src_layer,
                g.weights_layer, g.weights_iter, g.dst_layer))
        return dnnl_invalid_arguments;
    const_dnnl_memory_desc_t all[] = {a.src_layer, a.src_iter, a.src_iter_c, a.attention, a.weights_layer,
            a.weights_iter, a.weights_peephole, a.weights_projection, a.bias, a.dst_layer, a.dst_iter,
            a.dst_iter_c, g.src_layer, g.src_iter, g.src_iter_c, g.attention, g.weights_layer, g.weights_iter,
            g.weights_peephole, g.weights_projection, g.bias, g.dst_layer, g.dst_iter, g.dst_iter_c};
    for (const_dnnl_memory_desc_t md : all)
        if (md && (md->ndims < 0 || md->ndims > max_ndims || (md->ndims && !valid_dt(md->data_type))))
            return dnnl_invalid_arguments;
    if (any_runtime_of((int)(sizeof(all) / sizeof(all[0])), all)) return dnnl_unimplemented;
    const int dir = raw_enum(direction);
    if (raw_enum(prop_kind) != dnnl_backward) return dnnl_invalid_arguments;
    if (dir != dnnl_unidirectional_left2right && dir != dnnl_unidirectional_right2left
            && dir != dnnl_bidirectional_concat && dir != dnnl_bidirectional_sum)
        return dnnl_invalid_arguments;
    if (flags & ~(unsigned)dnnl_rnn_flags_diff_weights_overwrite) return dnnl_invalid_arguments;
    if (cell_kind == dnnl_vanilla_rnn) {
        const int act = raw_enum(activation);
        if (act != dnnl_eltwise_relu && act != dnnl_eltwise_tanh && act != dnnl_eltwise_logistic)
            return dnnl_invalid_arguments;
    }
    if (!hint_fwd_pd || !hint_fwd_pd->pd()) return dnnl_invalid_arguments;
    return guard([&]() -> dnnl_status_t {
        rnn_desc_t desc;
        desc.prop_kind = dnnl_backward;
        desc.cell_kind = cell_kind;
        desc.activation = activation;
        desc.direction = direction;
        desc.flags = flags;
        desc.alpha = alpha;
        desc.beta = beta;
        struct pair_t {
            memory_desc_t *md;
            const_dnnl_memory_desc_t from;
        };
        const pair_t fill[] = {{&desc.src_layer, a.src_layer}, {&desc.src_iter, a.src_iter},
                {&desc.src_iter_c, a.src_iter_c}, {&desc.attention, a.attention},
                {&desc.weights_layer, a.weights_layer}, {&desc.weights_iter, a.weights_iter},
                {&desc.weights_peephole, a.weights_peephole}, {&desc.weights_projection, a.weights_projection},
                {&desc.bias, a.bias}, {&desc.dst_layer, a.dst_layer}, {&desc.dst_iter, a.dst_iter},
                {&desc.dst_iter_c, a.dst_iter_c}, {&desc.diff_src_layer, g.src_layer},
                {&desc.diff_src_iter, g.src_iter}, {&desc.diff_src_iter_c, g.src_iter_c},
                {&desc.diff_attention, g.attention}, {&desc.diff_weights_layer, g.weights_layer},
                {&desc.diff_weights_iter, g.weights_iter}, {&desc.diff_weights_peephole, g.weights_peephole},
                {&desc.diff_weights_projection, g.weights_projection}, {&desc.diff_bias, g.bias},
                {&desc.diff_dst_layer, g.dst_layer}, {&desc.diff_dst_iter, g.dst_iter},
                {&desc.diff_dst_iter_c, g.dst_iter_c}};
        for (const pair_t &p : fill) *p.md = md_or_zero(p.from);
        rnn_dims_t dims;
        if (rnn_check_dims(desc, dims) != status::success || rnn_check_diff_dims(desc) != status::success)
            return dnnl_invalid_arguments;
        if (!rnn_hint_matches(desc, hint_fwd_pd->pd())) return dnnl_invalid_arguments;
        return create_pd_handle(primitive_desc, desc, attr, engine, rnn_bwd_impl_list, hint_fwd_pd);
    });
}

} // namespace

extern "C" {

dnnl_status_t dnnl_vanilla_rnn_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, const dnnl_alg_kind_t activation,
        const dnnl_rnn_direction_t direction, const_dnnl_memory_desc_t src_layer_desc,
        const_dnnl_memory_desc_t src_iter_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc, unsigned flags,
        float alpha, float beta, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a;
    a.src_layer = src_layer_desc;
    a.src_iter = src_iter_desc;
    a.weights_layer = weights_layer_desc;
    a.weights_iter = weights_iter_desc;
    a.bias = bias_desc;
    a.dst_layer = dst_layer_desc;
    a.dst_iter = dst_iter_desc;
    return rnn_fwd_create(primitive_desc, engine, prop_kind, dnnl_vanilla_rnn, activation, direction, a, flags,
            alpha, beta, attr);
}

dnnl_status_t dnnl_lstm_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t src_iter_c_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t weights_peephole_desc,
        const_dnnl_memory_desc_t weights_projection_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc,
        const_dnnl_memory_desc_t dst_iter_c_desc, unsigned flags, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a;
    a.src_layer = src_layer_desc;
    a.src_iter = src_iter_desc;
    a.src_iter_c = src_iter_c_desc;
    a.weights_layer = weights_layer_desc;
    a.weights_iter = weights_iter_desc;
    a.weights_peephole = weights_peephole_desc;
    a.weights_projection = weights_projection_desc;
    a.bias = bias_desc;
    a.dst_layer = dst_layer_desc;
    a.dst_iter = dst_iter_desc;
    a.dst_iter_c = dst_iter_c_desc;
    return rnn_fwd_create(primitive_desc, engine, prop_kind, dnnl_vanilla_lstm, dnnl_alg_kind_undef, direction,
            a, flags, 0.f, 0.f, attr);
}

namespace {

// GRU and LBR-GRU (attention null), AUGRU and LBR-AUGRU.
dnnl_status_t gru_family_create(dnnl_alg_kind_t cell, dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t attention_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc, unsigned flags,
        const_dnnl_primitive_attr_t attr) {
    const bool augru = cell == dnnl_vanilla_augru || cell == dnnl_lbr_augru;
    KESTREL_VCHECK(!(augru && !attention_desc), dnnl_invalid_arguments, dnnl_rnn,
                   "a required argument is null");
    rnn_fwd_args_t a;
    a.src_layer = src_layer_desc;
    a.src_iter = src_iter_desc;
    a.attention = attention_desc;
    a.weights_layer = weights_layer_desc;
    a.weights_iter = weights_iter_desc;
    a.bias = bias_desc;
    a.dst_layer = dst_layer_desc;
    a.dst_iter = dst_iter_desc;
    return rnn_fwd_create(primitive_desc, engine, prop_kind, cell, dnnl_alg_kind_undef, direction, a, flags,
            0.f, 0.f, attr);
}

} // namespace

dnnl_status_t dnnl_gru_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t weights_layer_desc, const_dnnl_memory_desc_t weights_iter_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_layer_desc,
        const_dnnl_memory_desc_t dst_iter_desc, unsigned flags, const_dnnl_primitive_attr_t attr) {
    return gru_family_create(dnnl_vanilla_gru, primitive_desc, engine, prop_kind, direction, src_layer_desc,
            src_iter_desc, nullptr, weights_layer_desc, weights_iter_desc, bias_desc, dst_layer_desc,
            dst_iter_desc, flags, attr);
}

dnnl_status_t dnnl_lbr_gru_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t weights_layer_desc, const_dnnl_memory_desc_t weights_iter_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_layer_desc,
        const_dnnl_memory_desc_t dst_iter_desc, unsigned flags, const_dnnl_primitive_attr_t attr) {
    return gru_family_create(dnnl_lbr_gru, primitive_desc, engine, prop_kind, direction, src_layer_desc,
            src_iter_desc, nullptr, weights_layer_desc, weights_iter_desc, bias_desc, dst_layer_desc,
            dst_iter_desc, flags, attr);
}

dnnl_status_t dnnl_augru_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t attention_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc, unsigned flags,
        const_dnnl_primitive_attr_t attr) {
    return gru_family_create(dnnl_vanilla_augru, primitive_desc, engine, prop_kind, direction, src_layer_desc,
            src_iter_desc, attention_desc, weights_layer_desc, weights_iter_desc, bias_desc, dst_layer_desc,
            dst_iter_desc, flags, attr);
}

dnnl_status_t dnnl_lbr_augru_forward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t attention_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc, unsigned flags,
        const_dnnl_primitive_attr_t attr) {
    return gru_family_create(dnnl_lbr_augru, primitive_desc, engine, prop_kind, direction, src_layer_desc,
            src_iter_desc, attention_desc, weights_layer_desc, weights_iter_desc, bias_desc, dst_layer_desc,
            dst_iter_desc, flags, attr);
}


dnnl_status_t dnnl_vanilla_rnn_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, const dnnl_alg_kind_t activation,
        const dnnl_rnn_direction_t direction, const_dnnl_memory_desc_t src_layer_desc,
        const_dnnl_memory_desc_t src_iter_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc,
        const_dnnl_memory_desc_t diff_src_layer_desc, const_dnnl_memory_desc_t diff_src_iter_desc,
        const_dnnl_memory_desc_t diff_weights_layer_desc, const_dnnl_memory_desc_t diff_weights_iter_desc,
        const_dnnl_memory_desc_t diff_bias_desc, const_dnnl_memory_desc_t diff_dst_layer_desc,
        const_dnnl_memory_desc_t diff_dst_iter_desc, unsigned flags, float alpha, float beta,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a, g;
    a.src_layer = src_layer_desc;
    a.src_iter = src_iter_desc;
    a.weights_layer = weights_layer_desc;
    a.weights_iter = weights_iter_desc;
    a.bias = bias_desc;
    a.dst_layer = dst_layer_desc;
    a.dst_iter = dst_iter_desc;
    g.src_layer = diff_src_layer_desc;
    g.src_iter = diff_src_iter_desc;
    g.weights_layer = diff_weights_layer_desc;
    g.weights_iter = diff_weights_iter_desc;
    g.bias = diff_bias_desc;
    g.dst_layer = diff_dst_layer_desc;
    g.dst_iter = diff_dst_iter_desc;
    return rnn_bwd_create(primitive_desc, engine, prop_kind, dnnl_vanilla_rnn, activation, direction, a, g, flags,
            alpha, beta, hint_fwd_pd, attr);
}

dnnl_status_t dnnl_lstm_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t src_iter_c_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t weights_peephole_desc,
        const_dnnl_memory_desc_t weights_projection_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc,
        const_dnnl_memory_desc_t dst_iter_c_desc, const_dnnl_memory_desc_t diff_src_layer_desc,
        const_dnnl_memory_desc_t diff_src_iter_desc, const_dnnl_memory_desc_t diff_src_iter_c_desc,
        const_dnnl_memory_desc_t diff_weights_layer_desc, const_dnnl_memory_desc_t diff_weights_iter_desc,
        const_dnnl_memory_desc_t diff_weights_peephole_desc,
        const_dnnl_memory_desc_t diff_weights_projection_desc, const_dnnl_memory_desc_t diff_bias_desc,
        const_dnnl_memory_desc_t diff_dst_layer_desc, const_dnnl_memory_desc_t diff_dst_iter_desc,
        const_dnnl_memory_desc_t diff_dst_iter_c_desc, unsigned flags, const_dnnl_primitive_desc_t hint_fwd_pd,
        const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a, g;
    a.src_layer = src_layer_desc;
    a.src_iter = src_iter_desc;
    a.src_iter_c = src_iter_c_desc;
    a.weights_layer = weights_layer_desc;
    a.weights_iter = weights_iter_desc;
    a.weights_peephole = weights_peephole_desc;
    a.weights_projection = weights_projection_desc;
    a.bias = bias_desc;
    a.dst_layer = dst_layer_desc;
    a.dst_iter = dst_iter_desc;
    a.dst_iter_c = dst_iter_c_desc;
    g.src_layer = diff_src_layer_desc;
    g.src_iter = diff_src_iter_desc;
    g.src_iter_c = diff_src_iter_c_desc;
    g.weights_layer = diff_weights_layer_desc;
    g.weights_iter = diff_weights_iter_desc;
    g.weights_peephole = diff_weights_peephole_desc;
    g.weights_projection = diff_weights_projection_desc;
    g.bias = diff_bias_desc;
    g.dst_layer = diff_dst_layer_desc;
    g.dst_iter = diff_dst_iter_desc;
    g.dst_iter_c = diff_dst_iter_c_desc;
    return rnn_bwd_create(primitive_desc, engine, prop_kind, dnnl_vanilla_lstm, dnnl_alg_kind_undef, direction, a,
            g, flags, 0.f, 0.f, hint_fwd_pd, attr);
}

namespace {

// Backward of GRU and LBR-GRU (attention null), AUGRU and LBR-AUGRU.
dnnl_status_t gru_family_bwd_create(dnnl_alg_kind_t cell, dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const rnn_fwd_args_t &a, const rnn_fwd_args_t &g, unsigned flags,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    const bool augru = cell == dnnl_vanilla_augru || cell == dnnl_lbr_augru;
    if (augru && (!a.attention || !g.attention)) return dnnl_invalid_arguments;
    return rnn_bwd_create(primitive_desc, engine, prop_kind, cell, dnnl_alg_kind_undef, direction, a, g, flags, 0.f,
            0.f, hint_fwd_pd, attr);
}

// The descriptors of a GRU-family backward call.
void gru_family_mds(rnn_fwd_args_t &a, rnn_fwd_args_t &g, const_dnnl_memory_desc_t src_layer_desc,
        const_dnnl_memory_desc_t src_iter_desc, const_dnnl_memory_desc_t attention_desc,
        const_dnnl_memory_desc_t weights_layer_desc, const_dnnl_memory_desc_t weights_iter_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_layer_desc,
        const_dnnl_memory_desc_t dst_iter_desc, const_dnnl_memory_desc_t diff_src_layer_desc,
        const_dnnl_memory_desc_t diff_src_iter_desc, const_dnnl_memory_desc_t diff_attention_desc,
        const_dnnl_memory_desc_t diff_weights_layer_desc, const_dnnl_memory_desc_t diff_weights_iter_desc,
        const_dnnl_memory_desc_t diff_bias_desc, const_dnnl_memory_desc_t diff_dst_layer_desc,
        const_dnnl_memory_desc_t diff_dst_iter_desc) {
    a.src_layer = src_layer_desc;
    a.src_iter = src_iter_desc;
    a.attention = attention_desc;
    a.weights_layer = weights_layer_desc;
    a.weights_iter = weights_iter_desc;
    a.bias = bias_desc;
    a.dst_layer = dst_layer_desc;
    a.dst_iter = dst_iter_desc;
    g.src_layer = diff_src_layer_desc;
    g.src_iter = diff_src_iter_desc;
    g.attention = diff_attention_desc;
    g.weights_layer = diff_weights_layer_desc;
    g.weights_iter = diff_weights_iter_desc;
    g.bias = diff_bias_desc;
    g.dst_layer = diff_dst_layer_desc;
    g.dst_iter = diff_dst_iter_desc;
}

} // namespace

dnnl_status_t dnnl_gru_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t weights_layer_desc, const_dnnl_memory_desc_t weights_iter_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_layer_desc,
        const_dnnl_memory_desc_t dst_iter_desc, const_dnnl_memory_desc_t diff_src_layer_desc,
        const_dnnl_memory_desc_t diff_src_iter_desc, const_dnnl_memory_desc_t diff_weights_layer_desc,
        const_dnnl_memory_desc_t diff_weights_iter_desc, const_dnnl_memory_desc_t diff_bias_desc,
        const_dnnl_memory_desc_t diff_dst_layer_desc, const_dnnl_memory_desc_t diff_dst_iter_desc, unsigned flags,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a, g;
    gru_family_mds(a, g, src_layer_desc, src_iter_desc, nullptr, weights_layer_desc, weights_iter_desc, bias_desc,
            dst_layer_desc, dst_iter_desc, diff_src_layer_desc, diff_src_iter_desc, nullptr,
            diff_weights_layer_desc, diff_weights_iter_desc, diff_bias_desc, diff_dst_layer_desc,
            diff_dst_iter_desc);
    return gru_family_bwd_create(dnnl_vanilla_gru, primitive_desc, engine, prop_kind, direction, a, g, flags,
            hint_fwd_pd, attr);
}

dnnl_status_t dnnl_lbr_gru_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t weights_layer_desc, const_dnnl_memory_desc_t weights_iter_desc,
        const_dnnl_memory_desc_t bias_desc, const_dnnl_memory_desc_t dst_layer_desc,
        const_dnnl_memory_desc_t dst_iter_desc, const_dnnl_memory_desc_t diff_src_layer_desc,
        const_dnnl_memory_desc_t diff_src_iter_desc, const_dnnl_memory_desc_t diff_weights_layer_desc,
        const_dnnl_memory_desc_t diff_weights_iter_desc, const_dnnl_memory_desc_t diff_bias_desc,
        const_dnnl_memory_desc_t diff_dst_layer_desc, const_dnnl_memory_desc_t diff_dst_iter_desc, unsigned flags,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a, g;
    gru_family_mds(a, g, src_layer_desc, src_iter_desc, nullptr, weights_layer_desc, weights_iter_desc, bias_desc,
            dst_layer_desc, dst_iter_desc, diff_src_layer_desc, diff_src_iter_desc, nullptr,
            diff_weights_layer_desc, diff_weights_iter_desc, diff_bias_desc, diff_dst_layer_desc,
            diff_dst_iter_desc);
    return gru_family_bwd_create(dnnl_lbr_gru, primitive_desc, engine, prop_kind, direction, a, g, flags,
            hint_fwd_pd, attr);
}

dnnl_status_t dnnl_augru_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t attention_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc,
        const_dnnl_memory_desc_t diff_src_layer_desc, const_dnnl_memory_desc_t diff_src_iter_desc,
        const_dnnl_memory_desc_t diff_attention_desc, const_dnnl_memory_desc_t diff_weights_layer_desc,
        const_dnnl_memory_desc_t diff_weights_iter_desc, const_dnnl_memory_desc_t diff_bias_desc,
        const_dnnl_memory_desc_t diff_dst_layer_desc, const_dnnl_memory_desc_t diff_dst_iter_desc, unsigned flags,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a, g;
    gru_family_mds(a, g, src_layer_desc, src_iter_desc, attention_desc, weights_layer_desc, weights_iter_desc,
            bias_desc, dst_layer_desc, dst_iter_desc, diff_src_layer_desc, diff_src_iter_desc, diff_attention_desc,
            diff_weights_layer_desc, diff_weights_iter_desc, diff_bias_desc, diff_dst_layer_desc,
            diff_dst_iter_desc);
    return gru_family_bwd_create(dnnl_vanilla_augru, primitive_desc, engine, prop_kind, direction, a, g, flags,
            hint_fwd_pd, attr);
}

dnnl_status_t dnnl_lbr_augru_backward_primitive_desc_create(dnnl_primitive_desc_t *primitive_desc,
        dnnl_engine_t engine, dnnl_prop_kind_t prop_kind, dnnl_rnn_direction_t direction,
        const_dnnl_memory_desc_t src_layer_desc, const_dnnl_memory_desc_t src_iter_desc,
        const_dnnl_memory_desc_t attention_desc, const_dnnl_memory_desc_t weights_layer_desc,
        const_dnnl_memory_desc_t weights_iter_desc, const_dnnl_memory_desc_t bias_desc,
        const_dnnl_memory_desc_t dst_layer_desc, const_dnnl_memory_desc_t dst_iter_desc,
        const_dnnl_memory_desc_t diff_src_layer_desc, const_dnnl_memory_desc_t diff_src_iter_desc,
        const_dnnl_memory_desc_t diff_attention_desc, const_dnnl_memory_desc_t diff_weights_layer_desc,
        const_dnnl_memory_desc_t diff_weights_iter_desc, const_dnnl_memory_desc_t diff_bias_desc,
        const_dnnl_memory_desc_t diff_dst_layer_desc, const_dnnl_memory_desc_t diff_dst_iter_desc, unsigned flags,
        const_dnnl_primitive_desc_t hint_fwd_pd, const_dnnl_primitive_attr_t attr) {
    rnn_fwd_args_t a, g;
    gru_family_mds(a, g, src_layer_desc, src_iter_desc, attention_desc, weights_layer_desc, weights_iter_desc,
            bias_desc, dst_layer_desc, dst_iter_desc, diff_src_layer_desc, diff_src_iter_desc, diff_attention_desc,
            diff_weights_layer_desc, diff_weights_iter_desc, diff_bias_desc, diff_dst_layer_desc,
            diff_dst_iter_desc);
    return gru_family_bwd_create(dnnl_lbr_augru, primitive_desc, engine, prop_kind, direction, a, g, flags,
            hint_fwd_pd, attr);
}

} // extern "C"
