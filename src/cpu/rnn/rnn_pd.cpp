// The recurrent kind's shape checks, argument table and queries.
#include "cpu/rnn/rnn_pd.hpp"

namespace kestrel {

int rnn_n_gates(dnnl_alg_kind_t cell_kind) {
    switch (cell_kind) {
        case dnnl_vanilla_rnn: return 1;
        case dnnl_vanilla_lstm: return 4;
        case dnnl_vanilla_gru:
        case dnnl_lbr_gru:
        case dnnl_vanilla_augru:
        case dnnl_lbr_augru: return 3;
        default: return 0;
    }
}

namespace {

bool dims_are(const memory_desc_t &md, std::initializer_list<dim_t> want) {
    if (md.ndims != (int)want.size()) return false;
    int i = 0;
    for (dim_t v : want)
        if (md.dims[i++] != v) return false;
    return true;
}

// An optional descriptor: absent (zero) or of exactly these dims.
bool absent_or(const memory_desc_t &md, std::initializer_list<dim_t> want) {
    return md.ndims == 0 || dims_are(md, want);
}

} // namespace

status_t rnn_check_dims(const rnn_desc_t &d, rnn_dims_t &r) {
    const memory_desc_t &wl = d.weights_layer, &wi = d.weights_iter;
    if (d.src_layer.ndims != 3 || wl.ndims != 5 || wi.ndims != 5 || d.dst_layer.ndims != 3)
        return status::invalid_arguments;
    r.L = wl.dims[0];
    r.D = wl.dims[1];
    r.SLC = wl.dims[2];
    r.G = wl.dims[3];
    r.DHC = wl.dims[4];
    r.T = d.src_layer.dims[0];
    r.N = d.src_layer.dims[1];
    r.lbr = one_of(d.cell_kind, dnnl_lbr_gru, dnnl_lbr_augru);
    const bool lstm = d.cell_kind == dnnl_vanilla_lstm;
    if (r.G != rnn_n_gates(d.cell_kind)) return status::invalid_arguments;
    const dim_t want_D = d.direction == dnnl_bidirectional_concat || d.direction == dnnl_bidirectional_sum ? 2 : 1;
    if (r.D != want_D || r.L <= 0 || r.SLC <= 0 || r.DHC <= 0) return status::invalid_arguments;
    const memory_desc_t &proj = d.weights_projection;
    if (proj.ndims != 0) {
        if (!lstm || proj.ndims != 4 || proj.dims[3] <= 0) return status::invalid_arguments;
        r.DIC = proj.dims[3];
        if (!dims_are(proj, {r.L, r.D, r.DHC, r.DIC})) return status::invalid_arguments;
    } else {
        r.DIC = r.DHC;
    }
    r.DLC = d.direction == dnnl_bidirectional_concat ? 2 * r.DIC : r.DIC;
    if (!dims_are(d.src_layer, {r.T, r.N, r.SLC})) return status::invalid_arguments;
    if (!dims_are(wi, {r.L, r.D, r.DIC, r.G, r.DHC})) return status::invalid_arguments;
    if (!dims_are(d.dst_layer, {r.T, r.N, r.DLC})) return status::invalid_arguments;
    // Layers above the first read the output of the one below.
    if (r.L > 1 && r.SLC != r.DLC) return status::invalid_arguments;
    if (!absent_or(d.src_iter, {r.L, r.D, r.N, r.DIC}) || !absent_or(d.dst_iter, {r.L, r.D, r.N, r.DIC}))
        return status::invalid_arguments;
    if (!absent_or(d.bias, {r.L, r.D, r.n_bias_gates(), r.DHC})) return status::invalid_arguments;
    if (lstm) {
        if (!absent_or(d.src_iter_c, {r.L, r.D, r.N, r.DHC}) || !absent_or(d.dst_iter_c, {r.L, r.D, r.N, r.DHC})
                || !absent_or(d.weights_peephole, {r.L, r.D, 3, r.DHC}))
            return status::invalid_arguments;
    } else if (d.src_iter_c.ndims || d.dst_iter_c.ndims || d.weights_peephole.ndims) {
        return status::invalid_arguments;
    }
    const bool augru = one_of(d.cell_kind, dnnl_vanilla_augru, dnnl_lbr_augru);
    if (augru ? !dims_are(d.attention, {r.T, r.N, 1}) : d.attention.ndims != 0) return status::invalid_arguments;
    return status::success;
}

const memory_desc_t *rnn_fwd_pd_t::arg_md(int arg) const {
    switch (arg) {
        case DNNL_ARG_SRC_LAYER: return &src_layer_;
        case DNNL_ARG_SRC_ITER: return src_md(1);
        case DNNL_ARG_SRC_ITER_C: return src_md(2);
        case DNNL_ARG_AUGRU_ATTENTION: return is_augru() ? &attention_ : &zero_md_;
        case DNNL_ARG_WEIGHTS_LAYER: return &weights_layer_;
        case DNNL_ARG_WEIGHTS_ITER: return &weights_iter_;
        case DNNL_ARG_WEIGHTS_PEEPHOLE: return &weights_peephole_;
        case DNNL_ARG_WEIGHTS_PROJECTION: return &weights_projection_;
        case DNNL_ARG_BIAS: return &bias_;
        case DNNL_ARG_DST_LAYER: return &dst_layer_;
        case DNNL_ARG_DST_ITER: return dst_md(1);
        case DNNL_ARG_DST_ITER_C: return dst_md(2);
        default: return pd_t::arg_md(arg);
    }
}

arg_usage_t rnn_fwd_pd_t::arg_usage(int arg) const {
    const auto in = arg_usage_t::input, out = arg_usage_t::output, no = arg_usage_t::unused;
    switch (arg) {
        case DNNL_ARG_SRC_LAYER:
        case DNNL_ARG_WEIGHTS_LAYER:
        case DNNL_ARG_WEIGHTS_ITER: return in;
        case DNNL_ARG_SRC_ITER: return with_src_iter() ? in : no;
        case DNNL_ARG_SRC_ITER_C: return with_src_iter_c() ? in : no;
        case DNNL_ARG_AUGRU_ATTENTION: return is_augru() ? in : no;
        case DNNL_ARG_WEIGHTS_PEEPHOLE: return with_peephole() ? in : no;
        case DNNL_ARG_WEIGHTS_PROJECTION: return with_projection() ? in : no;
        case DNNL_ARG_BIAS: return with_bias() ? in : no;
        case DNNL_ARG_DST_LAYER: return out;
        case DNNL_ARG_DST_ITER: return with_dst_iter() ? out : no;
        case DNNL_ARG_DST_ITER_C: return with_dst_iter_c() ? out : no;
        case DNNL_ARG_WORKSPACE: return is_training() ? out : no;
        default: return pd_t::arg_usage(arg);
    }
}

status_t rnn_fwd_pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_cell_kind: *(dnnl_alg_kind_t *)result = desc_.cell_kind; return status::success;
        case dnnl_query_activation_kind: *(dnnl_alg_kind_t *)result = desc_.activation; return status::success;
        case dnnl_query_direction: *(dnnl_rnn_direction_t *)result = desc_.direction; return status::success;
        case dnnl_query_alpha_f32: *(float *)result = desc_.alpha; return status::success;
        case dnnl_query_beta_f32: *(float *)result = desc_.beta; return status::success;
        case dnnl_query_flags: *(unsigned *)result = desc_.flags; return status::success;
        default: return pd_t::query(what, idx, result);
    }
}

status_t rnn_fwd_pd_t::init_common() {
    KESTREL_CHECK(rnn_check_dims(desc_, dims_));
    // f32 only for now: bf16 and int8 (the rnn qparams) decline.
    for (const memory_desc_t *md : {&src_layer_, &src_iter_, &src_iter_c_, &attention_, &weights_layer_,
                 &weights_iter_, &weights_peephole_, &weights_projection_, &bias_, &dst_layer_, &dst_iter_,
                 &dst_iter_c_})
        if (md->ndims && md->data_type != dnnl_f32) return status::unimplemented;
    if (!attr_.has_default_values(attr_t::skip_rnn_qparams)) return status::unimplemented;
    struct want_t {
        memory_desc_t *md;
        format_tag_t tag;
    };
    const want_t defaults[] = {{&src_layer_, dnnl_tnc}, {&src_iter_, dnnl_ldnc}, {&src_iter_c_, dnnl_ldnc},
            {&attention_, dnnl_tnc}, {&weights_layer_, dnnl_ldigo}, {&weights_iter_, dnnl_ldigo},
            {&weights_peephole_, dnnl_ldgo}, {&weights_projection_, dnnl_ldio}, {&bias_, dnnl_ldgo},
            {&dst_layer_, dnnl_tnc}, {&dst_iter_, dnnl_ldnc}, {&dst_iter_c_, dnnl_ldnc}};
    for (const want_t &w : defaults) {
        if (w.md->ndims == 0) continue;
        if (mdw_t(*w.md).is_any()) KESTREL_CHECK(md_set_tag(*w.md, w.tag));
        // Strided plain layouts only: no blocking.
        if (!mdw_t(*w.md).is_plain()) return status::unimplemented;
    }
    return status::success;
}

} // namespace kestrel
