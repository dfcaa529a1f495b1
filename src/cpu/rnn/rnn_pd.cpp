// The recurrent kind's shape checks, argument table and queries.
#include "cpu/rnn/rnn_pd.hpp"

#include <cstring>
#include <utility>

#include "core/verbose.hpp"
#include "cpu/types.hpp"

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
    const auto bad = status::invalid_arguments;
    KESTREL_VCHECK(d.src_layer.ndims == 3 && wl.ndims == 5 && wi.ndims == 5 && d.dst_layer.ndims == 3, bad,
            dnnl_rnn, "src_layer and dst_layer need 3 dims, weights_layer and weights_iter 5");
    r.L = wl.dims[0];
    r.D = wl.dims[1];
    r.G = wl.dims[3];
    r.DHC = wl.dims[4];
    r.T = d.src_layer.dims[0];
    r.N = d.src_layer.dims[1];
    r.SLC = d.src_layer.dims[2];
    r.SIC = wi.dims[2];
    r.DLC = d.dst_layer.dims[2];
    r.lbr = one_of(d.cell_kind, dnnl_lbr_gru, dnnl_lbr_augru);
    const bool lstm = d.cell_kind == dnnl_vanilla_lstm;
    const bool gru_family = one_of(d.cell_kind, dnnl_vanilla_gru, dnnl_lbr_gru, dnnl_vanilla_augru, dnnl_lbr_augru);
    KESTREL_VCHECK(r.G == rnn_n_gates(d.cell_kind), bad, dnnl_rnn, "weights have %lld gates, the cell takes %d",
            (long long)r.G, rnn_n_gates(d.cell_kind));
    const dim_t want_D = d.direction == dnnl_bidirectional_concat || d.direction == dnnl_bidirectional_sum ? 2 : 1;
    KESTREL_VCHECK(r.D == want_D, bad, dnnl_rnn, "weights have %lld directions, the direction takes %lld",
            (long long)r.D, (long long)want_D);
    KESTREL_VCHECK(r.L > 0 && r.SLC > 0 && r.SIC > 0 && r.DHC > 0, bad,
            dnnl_rnn, "a size is not positive");
    const memory_desc_t &proj = d.weights_projection;
    if (proj.ndims != 0) {
        KESTREL_VCHECK(lstm && proj.ndims == 4 && proj.dims[3] > 0, bad, dnnl_rnn,
                "projection needs an LSTM and 4 dims");
        r.DIC = proj.dims[3];
        KESTREL_VCHECK(dims_are(proj, {r.L, r.D, r.DHC, r.DIC}), bad, dnnl_rnn,
                "weights_projection is not {L, D, DHC, DIC}");
    } else {
        r.DIC = r.DHC;
    }
    const dim_t dlc_mult = d.direction == dnnl_bidirectional_concat ? 2 : 1;
    KESTREL_VCHECK(!gru_family || r.SIC == r.DHC, bad, dnnl_rnn, "GRU cells need SIC (%lld) == DHC (%lld)",
            (long long)r.SIC, (long long)r.DHC);
    KESTREL_VCHECK(r.DLC == dlc_mult * r.DIC, bad, dnnl_rnn, "DLC (%lld) is not %lld * DIC (%lld)",
            (long long)r.DLC, (long long)dlc_mult, (long long)r.DIC);
    // Layer l > 0 of each direction reads layer l - 1 of that direction.
    KESTREL_VCHECK(r.L == 1 || dlc_mult * r.SLC == r.DLC, bad, dnnl_rnn,
            "more than one layer needs SLC (%lld) == DIC (%lld)", (long long)r.SLC, (long long)r.DIC);
    KESTREL_VCHECK(r.T == 1 || r.SIC == r.DIC, bad, dnnl_rnn, "more than one step needs SIC (%lld) == DIC (%lld)",
            (long long)r.SIC, (long long)r.DIC);
    KESTREL_VCHECK(dims_are(d.src_layer, {r.T, r.N, r.SLC}) && dims_are(wl, {r.L, r.D, r.SLC, r.G, r.DHC}), bad,
            dnnl_rnn, "weights_layer is not {L, D, SLC, G, DHC}");
    KESTREL_VCHECK(dims_are(wi, {r.L, r.D, r.SIC, r.G, r.DHC}), bad, dnnl_rnn,
            "weights_iter is not {L, D, SIC, G, DHC}");
    KESTREL_VCHECK(dims_are(d.dst_layer, {r.T, r.N, r.DLC}), bad, dnnl_rnn, "dst_layer is not {T, N, DLC}");
    KESTREL_VCHECK(absent_or(d.src_iter, {r.L, r.D, r.N, r.SIC}), bad, dnnl_rnn, "src_iter is not {L, D, N, SIC}");
    KESTREL_VCHECK(absent_or(d.dst_iter, {r.L, r.D, r.N, r.DIC}), bad, dnnl_rnn, "dst_iter is not {L, D, N, DIC}");
    KESTREL_VCHECK(absent_or(d.bias, {r.L, r.D, r.n_bias_gates(), r.DHC}), bad, dnnl_rnn,
            "bias is not {L, D, G (+1 for LBR), DHC}");
    if (lstm) {
        KESTREL_VCHECK(absent_or(d.src_iter_c, {r.L, r.D, r.N, r.DHC}) && absent_or(d.dst_iter_c, {r.L, r.D, r.N, r.DHC}),
                bad, dnnl_rnn, "src_iter_c / dst_iter_c are not {L, D, N, DHC}");
        KESTREL_VCHECK(absent_or(d.weights_peephole, {r.L, r.D, 3, r.DHC}), bad, dnnl_rnn,
                "weights_peephole is not {L, D, 3, DHC}");
    } else {
        KESTREL_VCHECK(!d.src_iter_c.ndims && !d.dst_iter_c.ndims && !d.weights_peephole.ndims, bad, dnnl_rnn,
                "cell states and peepholes belong to LSTM");
    }
    const bool augru = one_of(d.cell_kind, dnnl_vanilla_augru, dnnl_lbr_augru);
    KESTREL_VCHECK(augru ? dims_are(d.attention, {r.T, r.N, 1}) : d.attention.ndims == 0, bad, dnnl_rnn,
            augru ? "attention is not {T, N, 1}" : "attention belongs to AUGRU");
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

status_t rnn_check_diff_dims(const rnn_desc_t &d) {
    const std::pair<const memory_desc_t *, const memory_desc_t *> pairs[] = {{&d.src_layer, &d.diff_src_layer},
            {&d.src_iter, &d.diff_src_iter}, {&d.src_iter_c, &d.diff_src_iter_c},
            {&d.attention, &d.diff_attention}, {&d.weights_layer, &d.diff_weights_layer},
            {&d.weights_iter, &d.diff_weights_iter}, {&d.weights_peephole, &d.diff_weights_peephole},
            {&d.weights_projection, &d.diff_weights_projection}, {&d.bias, &d.diff_bias},
            {&d.dst_layer, &d.diff_dst_layer}, {&d.dst_iter, &d.diff_dst_iter},
            {&d.dst_iter_c, &d.diff_dst_iter_c}};
    for (const auto &p : pairs) {
        const memory_desc_t &a = *p.first, &b = *p.second;
        if (a.ndims != b.ndims) return status::invalid_arguments;
        for (int i = 0; i < a.ndims; ++i)
            if (a.dims[i] != b.dims[i]) return status::invalid_arguments;
    }
    return status::success;
}

rnn_dt_conf_t rnn_data_type_conf(const rnn_desc_t &d) {
    // An absent optional tensor takes any type.
    auto is = [](const memory_desc_t &md, std::initializer_list<dnnl_data_type_t> dts) {
        if (md.ndims == 0) return true;
        for (dnnl_data_type_t dt : dts)
            if (md.data_type == dt) return true;
        return false;
    };
    const auto f32 = dnnl_f32, bf16 = dnnl_bf16;
    bool all_f32 = true;
    for (const memory_desc_t *md : {&d.src_layer, &d.src_iter, &d.src_iter_c, &d.attention, &d.weights_layer,
                 &d.weights_iter, &d.weights_peephole, &d.weights_projection, &d.bias, &d.dst_layer,
                 &d.dst_iter, &d.dst_iter_c})
        all_f32 = all_f32 && is(*md, {f32});
    if (all_f32) return rnn_dt_conf_t::f32;
    for (const memory_desc_t *md : {&d.src_layer, &d.dst_layer, &d.weights_layer, &d.weights_iter, &d.attention})
        if (!is(*md, {bf16})) return rnn_dt_conf_t::none;
    const auto cell_dt = [](const memory_desc_t &md) { return md.ndims ? md.data_type : dnnl_f32; };
    const bool ok = is(d.src_iter, {bf16, f32}) && is(d.dst_iter, {bf16, f32}) && is(d.bias, {bf16, f32})
            && is(d.weights_peephole, {f32}) && d.weights_projection.ndims == 0
            && cell_dt(d.src_iter_c) == cell_dt(d.dst_iter_c) && is(d.src_iter_c, {bf16, f32});
    return ok ? rnn_dt_conf_t::bf16 : rnn_dt_conf_t::none;
}

bool rnn_weights_order(const memory_desc_t &md, format_tag_t direct, format_tag_t transposed, bool &trans) {
    const mdw_t w(md);
    if (w.matches_tag(direct)) {
        trans = false;
        return true;
    }
    if (w.matches_tag(transposed)) {
        trans = true;
        return true;
    }
    return false;
}

rnn_ws_layout_t rnn_ws_layout(const rnn_dims_t &r, bool lstm) {
    const size_t f = sizeof(float), a = 64;
    auto align_up = [](size_t v, size_t al) { return (v + al - 1) / al * al; };
    const size_t h_elems = (size_t)(r.L * r.D * (r.T + 1) * r.N * r.HS());
    const size_t c_elems = lstm ? (size_t)(r.L * r.D * (r.T + 1) * r.N * r.DHC) : 0;
    const size_t g_elems = (size_t)(r.L * r.D * r.T * r.N * r.G * r.DHC);
    rnn_ws_layout_t w;
    w.off_h = 0;
    w.off_c = align_up(w.off_h + h_elems * f, a);
    w.off_g = align_up(w.off_c + c_elems * f, a);
    w.bytes = align_up(w.off_g + g_elems * f, a);
    return w;
}

bool rnn_hint_matches(const rnn_desc_t &d, const pd_t *hint) {
    const auto *h = dynamic_cast<const rnn_fwd_pd_t *>(hint);
    if (!h || h->kind() != dnnl_rnn || h->desc().prop_kind != dnnl_forward_training) return false;
    const rnn_desc_t &f = h->desc();
    if (f.cell_kind != d.cell_kind || f.direction != d.direction) return false;
    if (d.cell_kind == dnnl_vanilla_rnn && (f.activation != d.activation || f.alpha != d.alpha)) return false;
    const std::pair<const memory_desc_t *, const memory_desc_t *> pairs[] = {{&f.src_layer, &d.src_layer},
            {&f.src_iter, &d.src_iter}, {&f.src_iter_c, &d.src_iter_c}, {&f.attention, &d.attention},
            {&f.weights_layer, &d.weights_layer}, {&f.weights_iter, &d.weights_iter},
            {&f.weights_peephole, &d.weights_peephole}, {&f.weights_projection, &d.weights_projection},
            {&f.bias, &d.bias}, {&f.dst_layer, &d.dst_layer}, {&f.dst_iter, &d.dst_iter},
            {&f.dst_iter_c, &d.dst_iter_c}};
    for (const auto &p : pairs) {
        const memory_desc_t &a = *p.first, &b = *p.second;
        if (a.ndims != b.ndims) return false;
        for (int i = 0; i < a.ndims; ++i)
            if (a.dims[i] != b.dims[i]) return false;
    }
    return true;
}

const memory_desc_t *rnn_bwd_pd_t::arg_md(int arg) const {
    switch (arg) {
        case DNNL_ARG_DIFF_SRC_LAYER: return diff_src_md(0);
        case DNNL_ARG_DIFF_SRC_ITER: return diff_src_md(1);
        case DNNL_ARG_DIFF_SRC_ITER_C: return diff_src_md(2);
        case DNNL_ARG_DIFF_AUGRU_ATTENTION: return is_augru() ? &diff_attention_ : &zero_md_;
        case DNNL_ARG_DIFF_WEIGHTS_LAYER: return &diff_weights_layer_;
        case DNNL_ARG_DIFF_WEIGHTS_ITER: return &diff_weights_iter_;
        case DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE: return &diff_weights_peephole_;
        case DNNL_ARG_DIFF_WEIGHTS_PROJECTION: return &diff_weights_projection_;
        case DNNL_ARG_DIFF_BIAS: return &diff_bias_;
        case DNNL_ARG_DIFF_DST_LAYER: return diff_dst_md(0);
        case DNNL_ARG_DIFF_DST_ITER: return diff_dst_md(1);
        case DNNL_ARG_DIFF_DST_ITER_C: return diff_dst_md(2);
        case DNNL_ARG_WORKSPACE: return &ws_md_;
        default: return rnn_fwd_pd_t::arg_md(arg);
    }
}

arg_usage_t rnn_bwd_pd_t::arg_usage(int arg) const {
    const auto in = arg_usage_t::input, out = arg_usage_t::output, no = arg_usage_t::unused;
    switch (arg) {
        case DNNL_ARG_SRC_LAYER:
        case DNNL_ARG_DST_LAYER:
        case DNNL_ARG_DIFF_DST_LAYER:
        case DNNL_ARG_WEIGHTS_LAYER:
        case DNNL_ARG_WEIGHTS_ITER:
        case DNNL_ARG_WORKSPACE: return in;
        case DNNL_ARG_DIFF_SRC_LAYER:
        case DNNL_ARG_DIFF_WEIGHTS_LAYER:
        case DNNL_ARG_DIFF_WEIGHTS_ITER: return out;
        case DNNL_ARG_AUGRU_ATTENTION: return is_augru() ? in : no;
        case DNNL_ARG_DIFF_AUGRU_ATTENTION: return is_augru() ? out : no;
        case DNNL_ARG_WEIGHTS_PEEPHOLE: return with_peephole() ? in : no;
        case DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE: return with_peephole() ? out : no;
        case DNNL_ARG_WEIGHTS_PROJECTION: return with_projection() ? in : no;
        case DNNL_ARG_DIFF_WEIGHTS_PROJECTION: return with_projection() ? out : no;
        case DNNL_ARG_BIAS: return with_bias() ? in : no;
        case DNNL_ARG_DIFF_BIAS: return with_bias() ? out : no;
        case DNNL_ARG_SRC_ITER: return with_src_iter() ? in : no;
        case DNNL_ARG_DIFF_SRC_ITER: return with_src_iter() ? out : no;
        case DNNL_ARG_SRC_ITER_C: return with_src_iter_c() ? in : no;
        case DNNL_ARG_DIFF_SRC_ITER_C: return with_src_iter_c() ? out : no;
        case DNNL_ARG_DST_ITER:
        case DNNL_ARG_DIFF_DST_ITER: return with_dst_iter() ? in : no;
        case DNNL_ARG_DST_ITER_C:
        case DNNL_ARG_DIFF_DST_ITER_C: return with_dst_iter_c() ? in : no;
        default: return pd_t::arg_usage(arg);
    }
}

status_t rnn_bwd_pd_t::init_bwd_common() {
    if (desc_.prop_kind != dnnl_backward) return status::invalid_arguments;
    KESTREL_CHECK(init_common());
    KESTREL_CHECK(rnn_check_diff_dims(desc_));
    struct want_t {
        memory_desc_t *md;
        format_tag_t tag;
    };
    const want_t defaults[] = {{&diff_src_layer_, dnnl_tnc}, {&diff_src_iter_, dnnl_ldnc},
            {&diff_src_iter_c_, dnnl_ldnc}, {&diff_attention_, dnnl_tnc}, {&diff_weights_layer_, dnnl_ldigo},
            {&diff_weights_iter_, dnnl_ldigo}, {&diff_weights_peephole_, dnnl_ldgo},
            {&diff_weights_projection_, dnnl_ldio}, {&diff_bias_, dnnl_ldgo}, {&diff_dst_layer_, dnnl_tnc},
            {&diff_dst_iter_, dnnl_ldnc}, {&diff_dst_iter_c_, dnnl_ldnc}};
    for (const want_t &w : defaults) {
        if (w.md->ndims == 0) continue;
        if (w.md->data_type != dnnl_f32) return status::unimplemented;
        if (mdw_t(*w.md).is_any()) KESTREL_CHECK(md_set_tag(*w.md, w.tag));
        if (!mdw_t(*w.md).is_plain()) return status::unimplemented;
    }
    const rnn_ws_layout_t ws = rnn_ws_layout(dims_, is_lstm());
    const dim_t bytes = (dim_t)ws.bytes;
    KESTREL_CHECK(md_init_by_tag(ws_md_, 1, &bytes, dnnl_u8, dnnl_a));
    // The workspace comes from the forward: the hint must have made the
    // same one.
    if (!md_equal(ws_md_, hint_ws_md_)) return status::invalid_arguments;
    return status::success;
}

status_t rnn_fwd_pd_t::init_common(bool int8) {
    KESTREL_CHECK(rnn_check_dims(desc_, dims_));
    if (int8) {
        KESTREL_CHECK(int8_types_ok());
    } else {
        // f32 or bf16 (rnn_data_type_conf); f32 ignores the rnn qparams.
        dt_conf_ = rnn_data_type_conf(desc_);
        if (dt_conf_ == rnn_dt_conf_t::none) return status::unimplemented;
    }
    if (!attr_.has_default_values(attr_t::skip_rnn_qparams)) return status::unimplemented;
    struct want_t {
        memory_desc_t *md;
        format_tag_t tag;
    };
    const want_t defaults[] = {{&src_layer_, dnnl_tnc}, {&src_iter_, dnnl_ldnc}, {&src_iter_c_, dnnl_ldnc},
            {&attention_, dnnl_tnc}, {&weights_layer_, dnnl_ldigo},
            {&weights_iter_, dnnl_ldigo}, {&weights_peephole_, dnnl_ldgo},
            {&weights_projection_, dnnl_ldio}, {&bias_, dnnl_ldgo},
            {&dst_layer_, dnnl_tnc}, {&dst_iter_, dnnl_ldnc}, {&dst_iter_c_, dnnl_ldnc}};
    for (const want_t &w : defaults) {
        if (w.md->ndims == 0) continue;
        if (mdw_t(*w.md).is_any()) KESTREL_CHECK(md_set_tag(*w.md, w.tag));
        // Strided plain layouts only: no blocking.
        if (!mdw_t(*w.md).is_plain()) return status::unimplemented;
    }
    return status::success;
}

void rnn_load_row(const memory_desc_t &md, const void *p, dim_t a, dim_t b, dim_t k, float *dst) {
    const dim_t o = rnn_off(md, a, b, 0);
    if (md.data_type == dnnl_f32 && md.blocking.strides[2] == 1) {
        std::memcpy(dst, static_cast<const float *>(p) + o, sizeof(float) * (size_t)k);
        return;
    }
    for (dim_t c = 0; c < k; ++c) dst[c] = load_f32(md.data_type, p, rnn_off(md, a, b, c));
}

void rnn_store_row(const memory_desc_t &md, void *p, dim_t a, dim_t b, dim_t c0, dim_t k, const float *src) {
    const dim_t o = rnn_off(md, a, b, c0);
    if (md.data_type == dnnl_f32 && md.blocking.strides[2] == 1) {
        std::memcpy(static_cast<float *>(p) + o, src, sizeof(float) * (size_t)k);
        return;
    }
    for (dim_t c = 0; c < k; ++c) store_f32(md.data_type, p, rnn_off(md, a, b, c0 + c), src[c]);
}

} // namespace kestrel
