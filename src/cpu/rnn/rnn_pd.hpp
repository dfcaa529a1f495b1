// Recurrent primitives (vanilla RNN, LSTM, GRU, LBR-GRU, AUGRU, LBR-AUGRU):
// the op descriptor and the kind's base pd.
//
// Shapes (L layers, D directions, T steps, N batch, G gates):
//   src_layer tnc [T, N, SLC]          dst_layer tnc [T, N, DLC]
//   src_iter  ldnc [L, D, N, SIC]      dst_iter  ldnc [L, D, N, DIC]
//   src_iter_c ldnc [L, D, N, DHC]     dst_iter_c ldnc [L, D, N, DHC]   (LSTM)
//   weights_layer ldigo [L, D, SLC, G, DHC]
//   weights_iter  ldigo [L, D, SIC, G, DHC]
//   weights_peephole ldgo [L, D, 3, DHC]        (LSTM, optional)
//   weights_projection ldio [L, D, DHC, DIC]    (LSTM, optional)
//   bias ldgo [L, D, G (+1 for LBR cells), DHC]
//   attention tnc [T, N, 1]                     (AUGRU cells)
// DLC is 2 * DIC for bidirectional concat, DIC otherwise; DIC is DHC unless
// the LSTM has a projection. SIC, the width of the initial hidden state, is
// DIC whenever T > 1 and DHC for the GRU family; it may differ only for a
// single step of a vanilla RNN or LSTM (oneDNN's decoder example).
// Layers: layer l > 0 of direction d reads the output of layer l - 1 of the
// same direction d (so L > 1 needs SLC == DIC); only the last layer's
// directions are concatenated or summed into dst_layer.
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
    // Backward only: the gradients, same shapes as their data twins.
    memory_desc_t diff_src_layer = zero_md(), diff_src_iter = zero_md(), diff_src_iter_c = zero_md(),
                  diff_attention = zero_md(), diff_weights_layer = zero_md(), diff_weights_iter = zero_md(),
                  diff_weights_peephole = zero_md(), diff_weights_projection = zero_md(),
                  diff_bias = zero_md(), diff_dst_layer = zero_md(), diff_dst_iter = zero_md(),
                  diff_dst_iter_c = zero_md();

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
                     &dst_iter, &dst_iter_c, &diff_src_layer, &diff_src_iter, &diff_src_iter_c,
                     &diff_attention, &diff_weights_layer, &diff_weights_iter, &diff_weights_peephole,
                     &diff_weights_projection, &diff_bias, &diff_dst_layer, &diff_dst_iter, &diff_dst_iter_c})
            k.put(*md);
        return true;
    }
};

// The sizes of one problem, read from the descriptors.
struct rnn_dims_t {
    dim_t L = 0, D = 0, T = 0, N = 0, G = 0, SLC = 0, SIC = 0, DHC = 0, DIC = 0, DLC = 0;
    int n_bias_gates() const { return (int)G + (lbr ? 1 : 0); }
    // Columns of one hidden state row in the states area: step 0 holds the
    // initial state (SIC wide), later steps DIC.
    dim_t HS() const { return SIC > DIC ? SIC : DIC; }
    bool lbr = false;
};

// Gates per cell kind (0 for a kind that is no cell).
int rnn_n_gates(dnnl_alg_kind_t cell_kind);

// Checks every descriptor's rank and dims against the others as oneDNN
// does (the sizes come from src_layer, weights_layer, weights_iter, the
// projection and dst_layer). Returns invalid_arguments on a mismatch, saying
// which in verbose check mode.
status_t rnn_check_dims(const rnn_desc_t &d, rnn_dims_t &out);

// Backward: every diff descriptor is present exactly when its data twin is
// and has the same dims (diff_attention with attention). invalid_arguments
// otherwise.
status_t rnn_check_diff_dims(const rnn_desc_t &d);

// Where forward training puts the states in its workspace (byte offsets),
// per layer l and direction d:
//   H[l][d][s][N][HS]    hidden state after s steps (s = 0: initial state,
//                        SIC columns; later DIC; HS = max(SIC, DIC))
//   C[l][d][s][N][DHC]   LSTM cell state, same indexing
//   G[l][d][t][N][G*DHC] gates at time t, activated
// Backward reads the same layout, so both sides compute it here.
struct rnn_ws_layout_t {
    size_t off_h = 0, off_c = 0, off_g = 0, bytes = 0;
};
rnn_ws_layout_t rnn_ws_layout(const rnn_dims_t &r, bool lstm);

// Which element types a problem takes (oneDNN v3.9's CPU table): f32 when
// every data tensor is f32; bf16 when src_layer, dst_layer and both
// weights are bf16, src_iter / dst_iter each bf16 or f32, the LSTM cell
// states bf16 or f32 (the same for src_iter_c and dst_iter_c, an absent
// one counting as f32), bias bf16 or f32, peepholes f32, attention bf16,
// no projection; none otherwise. Backward also needs every diff tensor
// f32 (checked with the diff layouts).
enum class rnn_dt_conf_t { none, f32, bf16 };
rnn_dt_conf_t rnn_data_type_conf(const rnn_desc_t &d);

// Element offset in a plain descriptor of up to 4 dims.
inline dim_t rnn_off(const memory_desc_t &md, dim_t a, dim_t b, dim_t c, dim_t d = 0) {
    const dim_t *s = md.blocking.strides;
    dim_t o = md.offset0 + a * s[0] + b * s[1] + c * s[2];
    if (md.ndims > 3) o += d * s[3];
    return o;
}

// Elements [0, k) of row (a, b) of a tensor rnn_off addresses (any data
// type load_f32 reads) into dense f32 dst: one copy when the row is f32
// and contiguous (the per-element loads were 2-3% of a GRU training step).
void rnn_load_row(const memory_desc_t &md, const void *p, dim_t a, dim_t b, dim_t k, float *dst);
// The converse: k f32 values into elements [c0, c0 + k) of row (a, b)
// (store_f32's rounding for bf16 / f16).
void rnn_store_row(const memory_desc_t &md, void *p, dim_t a, dim_t b, dim_t c0, dim_t k, const float *src);

// Whether weights of 5 (or projection of 4) dims are stored in the plain
// order `direct` (gate-and-output columns innermost) or `transposed`
// (input channels innermost); false for anything else.
bool rnn_weights_order(const memory_desc_t &md, format_tag_t direct, format_tag_t transposed, bool &trans);

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
    bool is_bf16() const { return dt_conf_ == rnn_dt_conf_t::bf16; }

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
    // format `any` to oneDNN's defaults, except that backward resolves the
    // weights to the forward's ldigo / ldio too (oneDNN: ldgoi / ldoi), so
    // the forward's weights memory serves both, as oneDNN's own examples
    // assume (the backward GEMMs read either order).
    // int8: the data types and qparams are checked by int8_types_ok()
    // instead of requiring f32 without attributes.
    status_t init_common(bool int8 = false);
    // int8 inference as oneDNN's CPU offers it (defined in rnn_int8.cpp):
    // unimplemented for anything else, invalid_arguments for qparams that
    // do not fit the shapes.
    status_t int8_types_ok() const;

    rnn_desc_t desc_;
    rnn_dims_t dims_;
    memory_desc_t src_layer_, src_iter_, src_iter_c_, attention_, weights_layer_, weights_iter_,
            weights_peephole_, weights_projection_, bias_, dst_layer_, dst_iter_, dst_iter_c_;
    memory_desc_t ws_md_ = zero_md();
    rnn_dt_conf_t dt_conf_ = rnn_dt_conf_t::none;
};

// Backward: the data descriptors and the workspace of the forward, plus
// the gradients. It reuses the forward pd's storage and queries for the
// data half (the same descriptor struct carries both) and answers the
// diff half and oneDNN's backward argument table.
struct rnn_bwd_pd_t : rnn_fwd_pd_t {
    rnn_bwd_pd_t(const rnn_desc_t *d, const attr_t *a, const pd_t *hint)
        : rnn_fwd_pd_t(d, a, hint), diff_src_layer_(d->diff_src_layer), diff_src_iter_(d->diff_src_iter),
          diff_src_iter_c_(d->diff_src_iter_c), diff_attention_(d->diff_attention),
          diff_weights_layer_(d->diff_weights_layer), diff_weights_iter_(d->diff_weights_iter),
          diff_weights_peephole_(d->diff_weights_peephole), diff_weights_projection_(d->diff_weights_projection),
          diff_bias_(d->diff_bias), diff_dst_layer_(d->diff_dst_layer), diff_dst_iter_(d->diff_dst_iter),
          diff_dst_iter_c_(d->diff_dst_iter_c) {
        if (const auto *h = dynamic_cast<const rnn_fwd_pd_t *>(hint)) hint_ws_md_ = *h->workspace_md(0);
    }

    bool diff_weights_overwrite() const { return desc_.flags & dnnl_rnn_flags_diff_weights_overwrite; }
    const memory_desc_t *diff_src_md(int idx = 0) const override {
        if (idx == 0) return &diff_src_layer_;
        if (idx == 1 && with_src_iter()) return &diff_src_iter_;
        if (idx == 2 && with_src_iter_c()) return &diff_src_iter_c_;
        return &zero_md_;
    }
    const memory_desc_t *diff_dst_md(int idx = 0) const override {
        if (idx == 0) return &diff_dst_layer_;
        if (idx == 1 && with_dst_iter()) return &diff_dst_iter_;
        if (idx == 2 && with_dst_iter_c()) return &diff_dst_iter_c_;
        return &zero_md_;
    }
    const memory_desc_t *diff_weights_md(int idx = 0) const override {
        if (idx == 0) return &diff_weights_layer_;
        if (idx == 1) return &diff_weights_iter_;
        int i = 2;
        if (with_peephole() && idx == i++) return &diff_weights_peephole_;
        if (with_projection() && idx == i++) return &diff_weights_projection_;
        if (with_bias() && idx == i) return &diff_bias_;
        return &zero_md_;
    }
    const memory_desc_t *arg_md(int arg) const override;
    arg_usage_t arg_usage(int arg) const override;
    int n_inputs() const override {
        return 6 + with_src_iter() + with_src_iter_c() + 2 * (with_dst_iter() + with_dst_iter_c()) + with_peephole()
                + with_projection() + with_bias() + is_augru();
    }
    int n_outputs() const override {
        return 3 + with_src_iter() + with_src_iter_c() + with_peephole() + with_projection() + with_bias()
                + is_augru();
    }

protected:
    // init_common() plus the diff descriptors' types and layouts
    // (format `any`: diff weights ldigo / ldio, the rest as forward) and
    // the workspace, which must be the forward hint's.
    status_t init_bwd_common();

    memory_desc_t diff_src_layer_, diff_src_iter_, diff_src_iter_c_, diff_attention_, diff_weights_layer_,
            diff_weights_iter_, diff_weights_peephole_, diff_weights_projection_, diff_bias_, diff_dst_layer_,
            diff_dst_iter_, diff_dst_iter_c_;
    memory_desc_t hint_ws_md_ = zero_md();
};

// True when `hint` is a forward training RNN pd of the same cell,
// activation, direction and shapes (presence of every optional argument
// included) as the backward descriptor `d`.
bool rnn_hint_matches(const rnn_desc_t &d, const pd_t *hint);

// Walk order of implementations; defined in rnn_list.cpp.
extern const impl_entry_t rnn_fwd_impl_list[];
extern const impl_entry_t rnn_bwd_impl_list[];

} // namespace kestrel

#endif
