// The problem fields of a verbose line, in oneDNN v3.9's layout: which
// memory descriptors each kind lists and under what names, the attributes,
// the auxiliary field and the problem in benchdnn's notation. Everything is
// read through the generic pd interface (role descriptors, arg_md, query),
// so a kind added later gets a sensible line (its descriptors and dims)
// without code here. Nothing allocates: the line is built in the caller's
// buffer.
#include <algorithm>
#include <utility>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "core/primitive_desc.hpp"
#include "core/verbose.hpp"
#include "dnnl_debug.h"

namespace kestrel {
namespace verbose {

namespace {

// Appends to a fixed buffer; output past the end is dropped.
struct out_t {
    char *buf;
    size_t cap, len = 0;
    out_t(char *b, size_t c) : buf(b), cap(c) {
        if (cap) buf[0] = '\0';
    }
    void put(const char *s) { add("%s", s); }
    void add(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
        if (len + 1 >= cap) return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(buf + len, cap - len, fmt, ap);
        va_end(ap);
        if (n > 0) len = std::min(cap - 1, len + (size_t)n);
    }
};

using role_t = pd_t::md_role_t;

bool is_zero(const memory_desc_t *md) { return !md || md->ndims == 0; }

// A stable insertion sort: the arrays are a few entries long, and
// std::stable_sort may ask for a heap buffer.
template <typename T, typename less_t>
void small_sort(T *v, int n, less_t less) {
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && less(v[j], v[j - 1]); --j) std::swap(v[j], v[j - 1]);
}

void put_dim(out_t &o, dim_t v) {
    if (v == DNNL_RUNTIME_DIM_VAL)
        o.put("*");
    else
        o.add("%lld", (long long)v);
}

// dim0xdim1x...; runtime values as '*'.
void put_dims(out_t &o, const dim_t *v, int n) {
    for (int d = 0; d < n; ++d) {
        if (d) o.put("x");
        put_dim(o, v[d]);
    }
}
void put_dims(out_t &o, const memory_desc_t *md) {
    if (!is_zero(md)) put_dims(o, md->dims, md->ndims);
}

// The logical layout as letters: dims from outermost to innermost stride
// ('a' is dim 0), upper case where the dim is also blocked, then the inner
// blocks ("aBcd16b").
void put_tag(out_t &o, const memory_desc_t &md) {
    const mdw_t w(md);
    if (w.has_runtime_dims_or_strides()) {
        o.put("*");
        return;
    }
    int order[max_ndims];
    for (int d = 0; d < md.ndims; ++d) order[d] = d;
    // A stride of 0 (a broadcast dim) counts as the outermost; between equal
    // strides the dim with more outer blocks goes first, then dim order.
    auto key = [&](int d) { return (unsigned long long)(md.blocking.strides[d] - 1); };
    auto outer = [&](int d) { return md.padded_dims[d] / w.block_of(d); };
    small_sort(order, md.ndims, [&](int a, int b) {
        if (key(a) != key(b)) return key(a) > key(b);
        if (outer(a) != outer(b)) return outer(a) > outer(b);
        return a < b;
    });
    for (int i = 0; i < md.ndims; ++i) {
        const int d = order[i];
        o.add("%c", (char)((w.block_of(d) == 1 ? 'a' : 'A') + d));
    }
    for (int b = 0; b < md.blocking.inner_nblks; ++b)
        o.add("%lld%c", (long long)md.blocking.inner_blks[b], (char)('a' + md.blocking.inner_idxs[b]));
}

// name:dt:marks:format_kind:tag:strides:extra. Marks: a (the user asked for
// format any), p (padded dims), o (padded offsets), 0 (offset0). Strides
// only for a blocked layout that is not dense.
void put_md(out_t &o, const char *name, const memory_desc_t *md, bool user_any) {
    if (o.len && o.buf[o.len - 1] != ',') o.put(" ");
    o.add("%s:", name);
    if (is_zero(md)) {
        o.add("%s::%s:::", dnnl_dt2str(dnnl_data_type_undef), dnnl_fmt_kind2str(dnnl_format_kind_undef));
        return;
    }
    const mdw_t w(*md);
    bool padded = false, offsets = false;
    for (int d = 0; d < md->ndims; ++d) {
        padded = padded || md->dims[d] != md->padded_dims[d];
        offsets = offsets || md->padded_offsets[d] != 0;
    }
    o.add("%s:%s%s%s%s:%s", dnnl_dt2str(md->data_type), user_any ? "a" : "", padded ? "p" : "",
            offsets ? "o" : "", md->offset0 ? "0" : "", dnnl_fmt_kind2str(md->format_kind));
    switch (md->format_kind) {
        case dnnl_blocked:
            o.put(":");
            put_tag(o, *md);
            o.put(":");
            if (!w.has_runtime_dims_or_strides() && !w.is_dense(true)) put_dims(o, md->blocking.strides, md->ndims);
            break;
        case dnnl_format_kind_any: o.put(":any:"); break;
        // A sparse descriptor has an encoding where a blocked one has its
        // tag, and no strides field.
        case dnnl_format_kind_sparse: o.add(":%s:", dnnl_sparse_encoding2str(w.encoding())); break;
        // Kestrel's packed RNN weights: no tag, the panel width.
        case dnnl_format_kind_opaque: o.add(":rnn_packed:nr%d", md->rnn_packed.nr); break;
        default: o.put("::"); break;
    }
    o.put(":f0");
}

// The descriptor the user knows under the name; whether it was `any`.
void put_role(out_t &o, const pd_t *pd, const char *name, role_t role, int idx) {
    put_md(o, name, pd->role_md(role, idx), pd->user_format_any(role, idx));
}

bool is_fwd(const pd_t *pd) {
    const dnnl_prop_kind_t p = pd->prop_kind();
    return p == dnnl_forward_training || p == dnnl_forward_inference || p == dnnl_prop_kind_undef;
}

// The roles that play src, weights, bias and dst in each direction (oneDNN
// lists the tensor of the role under the forward name).
struct roles_t {
    role_t src, wei, dst;
};
roles_t invariant(const pd_t *pd) {
    switch (pd->prop_kind()) {
        case dnnl_backward_data:
        case dnnl_backward: return {pd_t::role_diff_src, pd_t::role_wei, pd_t::role_diff_dst};
        case dnnl_backward_weights: return {pd_t::role_src, pd_t::role_diff_wei, pd_t::role_diff_dst};
        default: return {pd_t::role_src, pd_t::role_wei, pd_t::role_dst};
    }
}

const memory_desc_t *role(const pd_t *pd, role_t r, int idx = 0) { return pd->role_md(r, idx); }

// mbNicC[idD][ihH][iwW], benchdnn's shape of a batch of images.
void put_desc_shape(out_t &o, const memory_desc_t *md) {
    if (is_zero(md)) return;
    const int n = md->ndims;
    const dim_t *d = md->dims;
    if (n >= 6) return put_dims(o, md);
    if (n == 1) return o.add("x%lld", (long long)d[0]);
    o.add("mb%lldic%lld", (long long)d[0], (long long)d[1]);
    if (n >= 5) o.add("id%lld", (long long)d[n - 3]);
    if (n >= 4) o.add("ih%lld", (long long)d[n - 2]);
    if (n >= 3) o.add("iw%lld", (long long)d[n - 1]);
}

template <typename T>
bool ask(const pd_t *pd, dnnl_query_t what, T &out) {
    return pd->query(what, 0, &out) == status::success;
}

void put_alg(out_t &o, const pd_t *pd) {
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    ask(pd, dnnl_query_alg_kind, alg);
    o.add("alg:%s", dnnl_alg_kind2str(alg));
}

void put_flags(out_t &o, const pd_t *pd) {
    unsigned f = 0;
    ask(pd, dnnl_query_flags, f);
    o.put("flags:");
    if (f & dnnl_use_global_stats) o.put("G");
    if (f & dnnl_use_scale) o.put("C");
    if (f & dnnl_use_shift) o.put("H");
    if (f & dnnl_fuse_norm_relu) o.put("R");
    if (f & dnnl_fuse_norm_add_relu) o.put("A");
}

// One spatial dim of a window problem: i, o, k, s, d, p in benchdnn order.
struct window_t {
    const dims_t *strides = nullptr, *dilations = nullptr, *pads = nullptr, *kernel = nullptr;
};

// Convolution, deconvolution and pooling:
// [gG]mbN_icXocY_[id..od..kd..sd..dd..pd.._][ih..oh..kh..sh..dh..ph.._]iw..ow..kw..sw..dw..pw..
// (pooling: mbNicX_ with no oc).
void put_window_problem(out_t &o, const pd_t *pd, bool pooling) {
    const roles_t r = invariant(pd);
    const memory_desc_t *src = role(pd, r.src), *wei = role(pd, r.wei), *dst = role(pd, r.dst);
    if (is_zero(src) || is_zero(dst)) return;
    const int nd = src->ndims, nsp = nd - 2;
    window_t w;
    ask(pd, dnnl_query_strides, w.strides);
    ask(pd, dnnl_query_dilations, w.dilations);
    ask(pd, dnnl_query_padding_l, w.pads);
    const bool groups = !pooling && !is_zero(wei) && wei->ndims == nd + 1;
    if (pooling) {
        ask(pd, dnnl_query_kernel, w.kernel);
        o.add("mb%lldic%lld_", (long long)src->dims[0], (long long)src->dims[1]);
    } else {
        if (groups) o.add("g%lld", (long long)wei->dims[0]);
        o.add("mb%lld_ic%lldoc%lld_", (long long)src->dims[0], (long long)src->dims[1], (long long)dst->dims[1]);
    }
    static const char names[3] = {'d', 'h', 'w'};
    for (int i = 0; i < nsp; ++i) {
        const char c = names[3 - nsp + i];
        dim_t k = 0;
        if (pooling && w.kernel) k = (*w.kernel)[i];
        if (!pooling && !is_zero(wei)) k = wei->dims[(groups ? 1 : 0) + 2 + i];
        o.add("i%c%lldo%c%lldk%c%lld", c, (long long)src->dims[2 + i], c, (long long)dst->dims[2 + i], c,
                (long long)k);
        o.add("s%c%lldd%c%lldp%c%lld", c, (long long)(w.strides ? (*w.strides)[i] : 1), c,
                (long long)(w.dilations ? (*w.dilations)[i] : 0), c, (long long)(w.pads ? (*w.pads)[i] : 0));
        if (i + 1 < nsp) o.put("_");
    }
}

void put_resampling_problem(out_t &o, const pd_t *pd) {
    const roles_t r = invariant(pd);
    const memory_desc_t *src = role(pd, r.src), *dst = role(pd, r.dst);
    if (is_zero(src) || is_zero(dst)) return;
    const int nd = src->ndims, nsp = nd - 2;
    o.add("mb%lldic%lld_", (long long)src->dims[0], (long long)src->dims[1]);
    static const char names[3] = {'d', 'h', 'w'};
    for (int i = 0; i < nsp; ++i) {
        const char c = names[3 - nsp + i];
        o.add("i%c%lldo%c%lld", c, (long long)src->dims[2 + i], c, (long long)dst->dims[2 + i]);
        if (i + 1 < nsp) o.put("_");
    }
}

// The short name oneDNN gives an argument in attribute fields.
void put_arg(out_t &o, int arg) {
    if (arg >= DNNL_ARG_MULTIPLE_SRC && arg < DNNL_ARG_MULTIPLE_DST) return o.add("msrc%d", arg - DNNL_ARG_MULTIPLE_SRC);
    switch (arg) {
        case DNNL_ARG_SRC_0: return o.put("src0");
        case DNNL_ARG_SRC_1: return o.put("src1");
        case DNNL_ARG_SRC_2: return o.put("src2");
        case DNNL_ARG_DST: return o.put("dst");
        case DNNL_ARG_WEIGHTS: return o.put("wei");
        case DNNL_ARG_BIAS: return o.put("bia");
        default: return o.add("arg%d", arg);
    }
}

void put_quant(out_t &o, const quant_entry_t &e, bool with_dt) {
    o.add("%d", e.mask);
    if (with_dt) o.add(":%s", dnnl_dt2str(e.dt));
    if (e.ndims) {
        o.put(":");
        put_dims(o, e.group_dims, e.ndims);
    }
}

// The attribute fields, space separated; empty for default attributes.
void put_attr(out_t &o, const attr_t &a) {
    bool first = true;
    auto field = [&](const char *name) {
        if (!first) o.put(" ");
        first = false;
        o.put(name);
    };
    if (a.scratchpad_mode != dnnl_scratchpad_mode_library) {
        field("attr-scratchpad:");
        o.put(dnnl_scratchpad_mode2str(a.scratchpad_mode));
    }
    if (a.fpmath_mode != dnnl_fpmath_mode_strict || a.fpmath_apply_to_int) {
        field("attr-fpmath:");
        o.put(dnnl_fpmath_mode2str(a.fpmath_mode));
        if (a.fpmath_apply_to_int) o.put(":true");
    }
    if (a.acc_mode != dnnl_accumulation_mode_strict) {
        field("attr-acc-mode:");
        o.put(dnnl_accumulation_mode2str(a.acc_mode));
    }
    if (!a.rounding.empty()) {
        field("attr-rounding-mode:");
        for (size_t i = 0; i < a.rounding.size(); ++i) {
            if (i) o.put("+");
            put_arg(o, a.rounding[i].first);
            o.add(":%s", dnnl_rounding_mode2str(a.rounding[i].second));
        }
    }
    if (a.deterministic) field("attr-deterministic:1");
    if (!a.scales.empty()) {
        // By argument, in increasing order of the argument index.
        const quant_t::item_t *items[64];
        int n = 0;
        for (const auto &it : a.scales.items)
            if (n < 64) items[n++] = &it;
        small_sort(items, n, [](const quant_t::item_t *x, const quant_t::item_t *y) { return x->arg < y->arg; });
        field("attr-scales:");
        for (int i = 0; i < n; ++i) {
            if (i) o.put("+");
            put_arg(o, items[i]->arg);
            o.put(":");
            put_quant(o, items[i]->e, true);
        }
    }
    if (!a.zero_points.empty()) {
        field("attr-zero-points:");
        bool any = false;
        for (int arg : {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}) {
            const quant_entry_t *e = a.zero_points.get(arg);
            if (!e) continue;
            if (any) o.put("+");
            any = true;
            put_arg(o, arg);
            o.put(":");
            put_quant(o, *e, true);
        }
    }
    const auto &po = a.post_ops.entries;
    if (!po.empty()) {
        field("attr-post-ops:");
        for (size_t i = 0; i < po.size(); ++i) {
            const post_op_t &e = po[i];
            if (i) o.put("+");
            switch (e.kind) {
                case dnnl_sum:
                    o.put("sum");
                    if (e.sum.scale != 1.f || e.sum.zero_point != 0 || e.sum.dt != dnnl_data_type_undef)
                        o.add(":%g", e.sum.scale);
                    if (e.sum.zero_point != 0 || e.sum.dt != dnnl_data_type_undef) o.add(":%d", e.sum.zero_point);
                    if (e.sum.dt != dnnl_data_type_undef) o.add(":%s", dnnl_dt2str(e.sum.dt));
                    break;
                case dnnl_eltwise:
                    o.put(dnnl_alg_kind2str(e.eltwise.alg));
                    if (e.eltwise.alpha != 0.f || e.eltwise.beta != 0.f) o.add(":%g", e.eltwise.alpha);
                    if (e.eltwise.beta != 0.f) o.add(":%g", e.eltwise.beta);
                    break;
                case dnnl_binary: {
                    const memory_desc_t &md = e.binary.src1_desc;
                    int mask = 0, non_unit = 0;
                    for (int d = 0; d < md.ndims; ++d)
                        if (md.dims[d] != 1) {
                            mask |= 1 << d;
                            ++non_unit;
                        }
                    o.add("%s:%s:%d", dnnl_alg_kind2str(e.binary.alg), dnnl_dt2str(md.data_type), mask);
                    if (md.format_kind == dnnl_format_kind_any) {
                        o.put(":any");
                    } else if (md.format_kind == dnnl_blocked && non_unit > 1) {
                        o.put(":");
                        put_tag(o, md);
                    }
                    break;
                }
                case dnnl_prelu: o.add("prelu:%d", e.prelu.mask); break;
                default: o.put(dnnl_prim_kind2str(e.kind)); break;
            }
        }
    }
    if (a.dropout) {
        field("attr-dropout");
        if (a.dropout_mask.ndims && a.dropout_mask.format_kind == dnnl_format_kind_any) o.put(":any");
        else if (a.dropout_mask.ndims && a.dropout_mask.format_kind == dnnl_blocked) {
            o.put(":");
            put_tag(o, a.dropout_mask);
        }
    }
}

// Runtime dims as a bit mask (bit d: dim d is DNNL_RUNTIME_DIM_VAL).
int runtime_mask(const memory_desc_t *md) {
    int m = 0;
    for (int d = 0; !is_zero(md) && d < md->ndims; ++d)
        if (md->dims[d] == DNNL_RUNTIME_DIM_VAL) m |= 1 << d;
    return m;
}

// The generic layout for kinds this file does not know (a new kind gets a
// useful line without code): every descriptor it takes, by argument name,
// no auxiliary field, and src's dims.
struct arg_name_t {
    int arg;
    const char *name;
};
const arg_name_t generic_args[] = {{DNNL_ARG_SRC_0, "src"}, {DNNL_ARG_SRC_1, "src1"}, {DNNL_ARG_SRC_2, "src2"},
        {DNNL_ARG_WEIGHTS_0, "wei"}, {DNNL_ARG_WEIGHTS_1, "wei1"}, {DNNL_ARG_WEIGHTS_2, "wei2"},
        {DNNL_ARG_BIAS, "bia"}, {DNNL_ARG_DST_0, "dst"}, {DNNL_ARG_DST_1, "dst1"}, {DNNL_ARG_DST_2, "dst2"},
        {DNNL_ARG_WORKSPACE, "ws"}, {DNNL_ARG_DIFF_SRC_0, "diff_src"}, {DNNL_ARG_DIFF_SRC_1, "diff_src1"},
        {DNNL_ARG_DIFF_WEIGHTS_0, "diff_wei"}, {DNNL_ARG_DIFF_WEIGHTS_1, "diff_wei1"},
        {DNNL_ARG_DIFF_BIAS, "diff_bia"}, {DNNL_ARG_DIFF_DST_0, "diff_dst"}, {DNNL_ARG_DIFF_DST_1, "diff_dst1"}};

void put_generic_mds(out_t &o, const pd_t *pd) {
    for (const auto &a : generic_args) {
        if (pd->arg_usage(a.arg) == arg_usage_t::unused) continue;
        put_md(o, a.name, pd->arg_md(a.arg), false);
    }
}

// RNN: the tensors under oneDNN's names, in its order (the c states are
// not listed), then, backward, their gradients.
struct rnn_tensor_t {
    int arg;
    const char *name;
    role_t role; // with idx: where the user's `any` is recorded, if anywhere
    int idx;
};
const rnn_tensor_t rnn_tensors[] = {{DNNL_ARG_SRC_LAYER, "src_layer", pd_t::role_src, 0},
        {DNNL_ARG_SRC_ITER, "src_iter", pd_t::role_src, 1},
        {DNNL_ARG_WEIGHTS_LAYER, "wei_layer", pd_t::role_wei, 0},
        {DNNL_ARG_WEIGHTS_ITER, "wei_iter", pd_t::role_wei, 1},
        {DNNL_ARG_WEIGHTS_PEEPHOLE, "wei_peephole", pd_t::n_roles, 0},
        {DNNL_ARG_WEIGHTS_PROJECTION, "wei_proj", pd_t::n_roles, 0}, {DNNL_ARG_BIAS, "bias", pd_t::n_roles, 0},
        {DNNL_ARG_DST_LAYER, "dst_layer", pd_t::role_dst, 0}, {DNNL_ARG_DST_ITER, "dst_iter", pd_t::role_dst, 1}};

void put_rnn_mds(out_t &o, const pd_t *pd, bool fwd) {
    for (const auto &t : rnn_tensors) {
        const memory_desc_t *md = pd->arg_md(t.arg);
        // src_layer, the weights and dst_layer are always listed.
        const bool optional = t.arg != DNNL_ARG_SRC_LAYER && t.arg != DNNL_ARG_DST_LAYER
                && t.arg != DNNL_ARG_WEIGHTS_LAYER && t.arg != DNNL_ARG_WEIGHTS_ITER;
        if (optional && is_zero(md)) continue;
        put_md(o, t.name, md, t.role != pd_t::n_roles && pd->user_format_any(t.role, t.idx));
    }
    if (fwd) return;
    char name[32];
    for (const auto &t : rnn_tensors) {
        const int diff_arg = t.arg == DNNL_ARG_BIAS ? DNNL_ARG_DIFF_BIAS
                : (t.arg >= DNNL_ARG_WEIGHTS_LAYER && t.arg < DNNL_ARG_BIAS)
                ? t.arg + (DNNL_ARG_DIFF_WEIGHTS_LAYER - DNNL_ARG_WEIGHTS_LAYER)
                : t.arg + (DNNL_ARG_DIFF_SRC_LAYER - DNNL_ARG_SRC_LAYER);
        const memory_desc_t *md = pd->arg_md(diff_arg);
        if (is_zero(md)) continue;
        std::snprintf(name, sizeof(name), "diff_%s", t.name);
        put_md(o, name, md, false);
    }
}

// alg:<cell> direction:<dir> activation:<act> flags:<O when diff weights
// are overwritten>.
void put_rnn_aux(out_t &o, const pd_t *pd) {
    dnnl_alg_kind_t cell = dnnl_alg_kind_undef, act = dnnl_alg_kind_undef;
    dnnl_rnn_direction_t dir = dnnl_rnn_direction_undef;
    unsigned flags = 0;
    ask(pd, dnnl_query_cell_kind, cell);
    ask(pd, dnnl_query_activation_kind, act);
    ask(pd, dnnl_query_direction, dir);
    ask(pd, dnnl_query_flags, flags);
    o.add("alg:%s direction:%s activation:%s flags:%s", dnnl_alg_kind2str(cell), dnnl_rnn_direction2str(dir),
            dnnl_alg_kind2str(act), (flags & dnnl_rnn_flags_diff_weights_overwrite) ? "O" : "");
}

// lLtTmbNsicSICslcSLCdhcDHCdicDIC, from the shapes of the tensors:
// src_layer [T, N, SLC], weights_iter [L, D, SIC, G, DHC], projection
// [L, D, DHC, DIC].
void put_rnn_problem(out_t &o, const pd_t *pd) {
    const memory_desc_t *src = pd->arg_md(DNNL_ARG_SRC_LAYER), *wl = pd->arg_md(DNNL_ARG_WEIGHTS_LAYER),
                        *wi = pd->arg_md(DNNL_ARG_WEIGHTS_ITER), *proj = pd->arg_md(DNNL_ARG_WEIGHTS_PROJECTION);
    if (is_zero(src) || src->ndims != 3 || is_zero(wl) || wl->ndims != 5 || is_zero(wi) || wi->ndims != 5) return;
    const long long dhc = (long long)wl->dims[4];
    const long long dic = !is_zero(proj) && proj->ndims == 4 ? (long long)proj->dims[3] : dhc;
    o.add("l%lldt%lldmb%lldsic%lldslc%llddhc%llddic%lld", (long long)wl->dims[0], (long long)src->dims[0],
            (long long)src->dims[1], (long long)wi->dims[2], (long long)src->dims[2], dhc, dic);
}

// Concat answers no axis query (as in oneDNN): the axis is the dim along
// which dst is longer than its first source (0 when no dim tells).
int concat_axis(const pd_t *pd) {
    const memory_desc_t *dst = pd->dst_md();
    for (int i = 0; i < pd->n_inputs(); ++i) {
        const memory_desc_t *src = pd->src_md(i);
        if (is_zero(src) || is_zero(dst) || src->ndims != dst->ndims) continue;
        for (int d = 0; d < dst->ndims; ++d)
            if (src->dims[d] != dst->dims[d]) return d;
    }
    return 0;
}

} // namespace

const char *pd_info(const pd_t *pd, char *buf, size_t cap) {
    out_t o(buf, cap);
    const dnnl_primitive_kind_t kind = pd->kind();
    o.add("cpu,%s,%s,%s,", dnnl_prim_kind2str(kind), pd->name(), dnnl_prop_kind2str(pd->prop_kind()));
    const bool fwd = is_fwd(pd);
    const roles_t r = invariant(pd);

    // Memory descriptors.
    switch (kind) {
        case dnnl_convolution:
        case dnnl_deconvolution:
        case dnnl_inner_product: {
            const role_t bia = pd->prop_kind() == dnnl_backward_weights ? pd_t::role_diff_wei : pd_t::role_wei;
            put_role(o, pd, "src", r.src, 0);
            put_role(o, pd, "wei", r.wei, 0);
            put_role(o, pd, "bia", bia, 1);
            put_role(o, pd, "dst", r.dst, 0);
            break;
        }
        case dnnl_matmul: {
            put_role(o, pd, "src", pd_t::role_src, 0);
            put_role(o, pd, "wei", pd_t::role_wei, 0);
            const memory_desc_t *bia = role(pd, pd_t::role_wei, 1);
            if (!is_zero(bia)) {
                put_role(o, pd, "bia", pd_t::role_wei, 1);
                int mask = 0;
                for (int d = 0; d < bia->ndims; ++d)
                    if (bia->dims[d] != 1) mask |= 1 << d;
                o.add("_mask%d", mask);
            }
            put_role(o, pd, "dst", pd_t::role_dst, 0);
            break;
        }
        case dnnl_eltwise:
        case dnnl_lrn:
        case dnnl_batch_normalization:
        case dnnl_shuffle: {
            // Backward eltwise with a *_use_dst_for_bwd algorithm keeps dst.
            const bool dst_data = !fwd && kind == dnnl_eltwise && pd->arg_usage(DNNL_ARG_SRC) == arg_usage_t::unused;
            if (kind == dnnl_shuffle && !fwd)
                put_role(o, pd, "data", pd_t::role_diff_src, 0);
            else
                put_role(o, pd, "data", dst_data ? pd_t::role_dst : pd_t::role_src, 0);
            if (!fwd && kind != dnnl_shuffle) put_role(o, pd, "diff", pd_t::role_diff_src, 0);
            break;
        }
        case dnnl_softmax:
            put_role(o, pd, "src", fwd ? pd_t::role_src : pd_t::role_diff_src, 0);
            put_role(o, pd, "dst", pd_t::role_dst, 0);
            if (!fwd) put_role(o, pd, "diff_dst", pd_t::role_diff_dst, 0);
            break;
        case dnnl_binary:
            put_role(o, pd, "src", pd_t::role_src, 0);
            put_role(o, pd, "src", pd_t::role_src, 1);
            put_role(o, pd, "dst", pd_t::role_dst, 0);
            break;
        case dnnl_concat:
        case dnnl_sum:
            for (int i = 0; i < pd->n_inputs(); ++i) put_md(o, "src", pd->src_md(i), false);
            put_role(o, pd, "dst", pd_t::role_dst, 0);
            break;
        case dnnl_pooling:
            put_role(o, pd, "src", r.src, 0);
            put_role(o, pd, "dst", r.dst, 0);
            if (!is_zero(pd->workspace_md())) put_md(o, "ws", pd->workspace_md(), false);
            break;
        case dnnl_reorder:
        case dnnl_reduction:
        case dnnl_resampling:
            put_role(o, pd, "src", r.src, 0);
            put_role(o, pd, "dst", r.dst, 0);
            break;
        case dnnl_layer_normalization: {
            put_role(o, pd, "src", pd_t::role_src, 0);
            put_role(o, pd, "dst", fwd ? pd_t::role_dst : pd_t::role_diff_dst, 0);
            const memory_desc_t *stats = pd->arg_md(DNNL_ARG_MEAN);
            put_md(o, "stats", stats, false);
            if (pd->arg_usage(DNNL_ARG_SCALE) != arg_usage_t::unused) put_md(o, "scale", pd->arg_md(DNNL_ARG_SCALE), false);
            if (pd->arg_usage(DNNL_ARG_SHIFT) != arg_usage_t::unused) put_md(o, "shift", pd->arg_md(DNNL_ARG_SHIFT), false);
            if (!fwd) {
                put_role(o, pd, "diff_src", pd_t::role_diff_src, 0);
                if (pd->arg_usage(DNNL_ARG_DIFF_SCALE) != arg_usage_t::unused)
                    put_md(o, "diff_scale", pd->arg_md(DNNL_ARG_DIFF_SCALE), false);
                if (pd->arg_usage(DNNL_ARG_DIFF_SHIFT) != arg_usage_t::unused)
                    put_md(o, "diff_shift", pd->arg_md(DNNL_ARG_DIFF_SHIFT), false);
            }
            break;
        }
        case dnnl_group_normalization:
            put_role(o, pd, "src", pd_t::role_src, 0);
            put_role(o, pd, "dst", fwd ? pd_t::role_dst : pd_t::role_diff_dst, 0);
            if (!fwd) put_role(o, pd, "diff_src", pd_t::role_diff_src, 0);
            break;
        case dnnl_prelu:
            put_role(o, pd, "data", pd_t::role_src, 0);
            put_role(o, pd, "wei", pd_t::role_wei, 0);
            if (!is_zero(role(pd, pd_t::role_diff_src))) put_role(o, pd, "diff", pd_t::role_diff_src, 0);
            if (!is_zero(role(pd, pd_t::role_diff_wei))) put_role(o, pd, "diff_wei", pd_t::role_diff_wei, 0);
            break;
        case dnnl_rnn: put_rnn_mds(o, pd, fwd); break;
        default: put_generic_mds(o, pd); break;
    }
    o.put(",");
    put_attr(o, *pd->attr());
    o.put(",");

    // Auxiliary field.
    switch (kind) {
        case dnnl_convolution:
        case dnnl_deconvolution:
        case dnnl_binary:
        case dnnl_pooling:
        case dnnl_lrn:
        case dnnl_resampling: put_alg(o, pd); break;
        case dnnl_eltwise: {
            float alpha = 0.f, beta = 0.f;
            ask(pd, dnnl_query_alpha_f32, alpha);
            ask(pd, dnnl_query_beta_f32, beta);
            put_alg(o, pd);
            o.add(" alpha:%g beta:%g", alpha, beta);
            break;
        }
        case dnnl_softmax: {
            int axis = 0;
            ask(pd, dnnl_query_axis_s32, axis);
            put_alg(o, pd);
            o.add(" axis:%d", axis);
            break;
        }
        case dnnl_concat: o.add("axis:%d", concat_axis(pd)); break;
        case dnnl_shuffle: {
            int axis = 0;
            dim_t group = 0;
            ask(pd, dnnl_query_axis_s32, axis);
            ask(pd, dnnl_query_group_size_s64, group);
            o.add("axis:%d group:%lld", axis, (long long)group);
            break;
        }
        case dnnl_reduction: {
            float p = 0.f, eps = 0.f;
            ask(pd, dnnl_query_p_f32, p);
            ask(pd, dnnl_query_epsilon_f32, eps);
            put_alg(o, pd);
            o.add(" p:%g eps:%g", p, eps);
            break;
        }
        case dnnl_batch_normalization:
        case dnnl_layer_normalization:
        case dnnl_group_normalization: put_flags(o, pd); break;
        case dnnl_matmul: {
            const memory_desc_t *src = pd->src_md(), *wei = pd->weights_md();
            if (runtime_mask(src) || runtime_mask(wei))
                o.add("runtime_dims_masks:%d:%d", runtime_mask(src), runtime_mask(wei));
            break;
        }
        case dnnl_reorder:
            if (runtime_mask(pd->src_md())) o.add("runtime-dim-mask:%d", runtime_mask(pd->src_md()));
            break;
        case dnnl_rnn: put_rnn_aux(o, pd); break;
        default: break;
    }
    o.put(",");

    // Problem in benchdnn's notation.
    switch (kind) {
        case dnnl_convolution:
        case dnnl_deconvolution: put_window_problem(o, pd, false); break;
        case dnnl_pooling: put_window_problem(o, pd, true); break;
        case dnnl_resampling: put_resampling_problem(o, pd); break;
        case dnnl_inner_product:
            put_desc_shape(o, role(pd, r.src));
            if (!is_zero(role(pd, r.dst))) o.add("oc%lld", (long long)role(pd, r.dst)->dims[1]);
            break;
        case dnnl_lrn: {
            dim_t ls = 0;
            float beta = 0.f;
            ask(pd, dnnl_query_local_size_s64, ls);
            ask(pd, dnnl_query_beta_f32, beta);
            put_desc_shape(o, pd->src_md());
            o.add("ls%lldbeta%g", (long long)ls, beta);
            break;
        }
        case dnnl_batch_normalization: put_desc_shape(o, pd->src_md()); break;
        case dnnl_group_normalization: {
            dim_t g = 0;
            ask(pd, dnnl_query_group_size_s64, g);
            o.add("g%lld", (long long)g);
            put_desc_shape(o, pd->src_md());
            break;
        }
        case dnnl_matmul:
        case dnnl_prelu:
            put_dims(o, pd->src_md());
            o.put(":");
            put_dims(o, pd->weights_md());
            break;
        case dnnl_binary:
            put_dims(o, pd->src_md(0));
            o.put(":");
            put_dims(o, pd->src_md(1));
            break;
        case dnnl_reduction:
            put_dims(o, pd->src_md());
            o.put(":");
            put_dims(o, pd->dst_md());
            break;
        case dnnl_concat:
            for (int i = 0; i < pd->n_inputs(); ++i) {
                if (i) o.put(":");
                put_dims(o, pd->src_md(i));
            }
            break;
        case dnnl_sum: put_dims(o, pd->dst_md()); break;
        case dnnl_rnn: put_rnn_problem(o, pd); break;
        case dnnl_eltwise:
        case dnnl_softmax:
        case dnnl_shuffle:
            put_dims(o, is_zero(pd->src_md()) ? (is_zero(pd->dst_md()) ? pd->diff_src_md() : pd->dst_md()) : pd->src_md());
            break;
        default: {
            const memory_desc_t *md = pd->src_md();
            if (is_zero(md)) md = pd->diff_src_md();
            put_dims(o, md);
            break;
        }
    }
    return buf;
}

} // namespace verbose
} // namespace kestrel
