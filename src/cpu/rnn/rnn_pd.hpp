// Recurrent primitives (vanilla RNN, LSTM, GRU, LBR-GRU, AUGRU, LBR-AUGRU):
// the op descriptor and the kind's base pd.
//
// Shapes (L layers, D directions, T steps, N batch, G gates):
//   src_layer tnc [T, N, SLC]          dst_layer tnc [T, N, DLC]
//   src_iter  ldnc [L, D, N, DIC]      dst_iter  ldnc [L, D, N, DIC]
//   src_iter_c ldnc [L, D, N, DHC]     dst_iter_c ldnc [L, D, N, DHC]   (LSTM)
//   weights_layer ldigo [L, D, SLC, G, DHC]
//   weights_iter  ldigo [L, D, DIC, G, DHC]
//   weights_peephole ldgo [L, D, 3, DHC]        (LSTM, optional)
//   weights_projection ldio [L, D, DHC, DIC]    (LSTM, optional)
//   bias ldgo [L, D, G (+1 for LBR cells), DHC]
//   attention tnc [T, N, 1]                     (AUGRU cells)
// DLC is 2 * DIC for bidirectional concat, DIC otherwise; DIC is DHC unless
// the LSTM has a projection.
#ifndef KESTREL_CPU_RNN_RNN_PD_HPP
#define KESTREL_CPU_RNN_RNN_PD_HPP

#include "core/primitive.hpp"

namespace kestrel {

struct rnn_desc_t : op_desc_impl_t<rnn_desc_t> {
    rnn_desc_t() : op_desc_impl_t(dnnl_rnn) {}
    dnnl_prop_kind_t prop_kind = dnnl_forward_inference;
    dnnl_alg_kind_t cell_kind = dnnl_alg_kind_undef;
    dnnl_alg_kind_t activation = dnnl_alg_kind_undef;
    dnnl_rnn_direction_t direction = dnnl_unidirectional_left2right;
    unsigned flags = 0;
    float alpha = 0.f, beta = 0.f;
    memory_desc_t src_layer = zero_md(), src_iter = zero_md(), src_iter_c = zero_md(),
                  attention = zero_md(), weights_layer = zero_md(), weights_iter = zero_md(),
                  weights_peephole = zero_md(), weights_projection = zero_md(), bias = zero_md(),
                  dst_layer = zero_md(), dst_iter = zero_md(), dst_iter_c = zero_md();

    bool serialize(key_writer_t &k) const override {
        k.put(prop_kind);
        k.put(cell_kind);
        k.put(activation);
        k.put(direction);
        k.put(flags);
        k.put(alpha);
        k.put(beta);
        for (const memory_desc_t *md : {&src_layer, &src_iter, &src_iter_c, &attention, &weights_layer,
                     &weights_iter, &weights_peephole, &weights_projection, &bias, &dst_layer,
                     &dst_iter, &dst_iter_c})
            k.put(*md);
        return true;
    }
};

// The sizes of one problem, read from the descriptors.
struct rnn_dims_t {
    dim_t L = 0, D = 0, T = 0, N = 0, G = 0, SLC = 0, DHC = 0, DIC = 0, DLC = 0;
    int n_bias_gates() const { return (int)G + (lbr ? 1 : 0); }
    bool lbr = false;
};

// Gates per cell kind (0 for a kind that is no cell).
int rnn_n_gates(dnnl_alg_kind_t cell_kind);

// Checks every descriptor's rank and dims against the others (the sizes
// come from weights_layer, weights_iter and the projection). Returns
// invalid_arguments on a mismatch.
status_t rnn_check_dims(const rnn_desc_t &d, rnn_dims_t &out);

struct rnn_fwd_pd_t : pd_t {
    using desc_t = rnn_desc_t;
    rnn_fwd_pd_t(const rnn_desc_t *d, const attr_t *a, const pd_t *)
        : pd_t(a, dnnl_rnn), desc_(*d), src_layer_(d->src_layer), src_iter_(d->src_iter),
          src_iter_c_(d->src_iter_c), attention_(d->attention), weights_layer_(d->weights_layer),
          weights_iter_(d->weights_iter), weights_peephole_(d->weights_peephole),
          weights_projection_(d->weights_projection), bias_(d->bias), dst_layer_(d->dst_layer),
          dst_iter_(d->dst_iter), dst_iter_c_(d->dst_iter_c) {}

    const rnn_desc_t &desc() const { return desc_; }
    const rnn_dims_t &dims() const { return dims_; }
    dnnl_prop_kind_t prop_kind() const override { return desc_.prop_kind; }
    bool is_training() const { return desc_.prop_kind == dnnl_forward_training; }
    bool is_lstm() const { return desc_.cell_kind == dnnl_vanilla_lstm; }
    bool is_augru() const { return one_of(desc_.cell_kind, dnnl_vanilla_augru, dnnl_lbr_augru); }
    bool is_lbr() const { return one_of(desc_.cell_kind, dnnl_lbr_gru, dnnl_lbr_augru); }
    bool is_gru() const { return one_of(desc_.cell_kind, dnnl_vanilla_gru, dnnl_vanilla_augru); }
    bool with_peephole() const { return !mdw_t(weights_peephole_).is_zero(); }
    bool with_projection() const { return !mdw_t(weights_projection_).is_zero(); }
    bool with_bias() const { return !mdw_t(bias_).is_zero(); }
    bool with_src_iter() const { return !mdw_t(src_iter_).is_zero(); }
    bool with_src_iter_c() const { return !mdw_t(src_iter_c_).is_zero(); }
    bool with_dst_iter() const { return !mdw_t(dst_iter_).is_zero(); }
    bool with_dst_iter_c() const { return !mdw_t(dst_iter_c_).is_zero(); }

    // oneDNN's indices: src 0 layer, 1 iter, 2 iter_c; weights 0 layer,
    // 1 iter, then peephole, projection and bias for those present; dst 0
    // layer, 1 iter, 2 iter_c.
    const memory_desc_t *src_md(int idx = 0) const override {
        if (idx == 0) return &src_layer_;
        if (idx == 1 && with_src_iter()) return &src_iter_;
        if (idx == 2 && with_src_iter_c()) return &src_iter_c_;
        return &zero_md_;
    }
    const memory_desc_t *dst_md(int idx = 0) const override {
        if (idx == 0) return &dst_layer_;
        if (idx == 1 && with_dst_iter()) return &dst_iter_;
        if (idx == 2 && with_dst_iter_c()) return &dst_iter_c_;
        return &zero_md_;
    }
    const memory_desc_t *weights_md(int idx = 0) const override {
        if (idx == 0) return &weights_layer_;
        if (idx == 1) return &weights_iter_;
        int i = 2;
        if (with_peephole() && idx == i++) return &weights_peephole_;
        if (with_projection() && idx == i++) return &weights_projection_;
        if (with_bias() && idx == i) return &bias_;
        return &zero_md_;
    }
    const memory_desc_t *workspace_md(int idx = 0) const override {
        return idx == 0 ? &ws_md_ : &zero_md_;
    }
    const memory_desc_t *arg_md(int arg) const override;
    arg_usage_t arg_usage(int arg) const override;
    int n_inputs() const override {
        return 3 + with_peephole() + with_projection() + with_bias() + with_src_iter() + with_src_iter_c()
                + is_augru();
    }
    int n_outputs() const override { return 1 + with_dst_iter() + with_dst_iter_c() + is_training(); }
    status_t query(dnnl_query_t what, int idx, void *result) const override;

protected:
    // Checks types and layouts every implementation needs and resolves
    // format `any` to oneDNN's defaults.
    status_t init_common();

    rnn_desc_t desc_;
    rnn_dims_t dims_;
    memory_desc_t src_layer_, src_iter_, src_iter_c_, attention_, weights_layer_, weights_iter_,
            weights_peephole_, weights_projection_, bias_, dst_layer_, dst_iter_, dst_iter_c_;
    memory_desc_t ws_md_ = zero_md();
};

// Walk order of implementations; defined in rnn_list.cpp.
extern const impl_entry_t rnn_fwd_impl_list[];

} // namespace kestrel

#endif
