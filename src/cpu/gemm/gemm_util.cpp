#include "cpu/gemm/gemm_util.hpp"

#include <algorithm>

namespace kestrel {
namespace gemm {

format_tag_t plain_tag(int ndims) {
    static const format_tag_t tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc,
            dnnl_abcd, dnnl_abcde, dnnl_abcdef, dnnl_abcdefg, dnnl_abcdefgh, dnnl_abcdefghi,
            dnnl_abcdefghij, dnnl_abcdefghijk, dnnl_abcdefghijkl};
    return ndims >= 1 && ndims <= 12 ? tags[ndims] : dnnl_format_tag_undef;
}

mat_view_t view_2d(const memory_desc_t &md, int want) {
    mat_view_t v;
    const mdw_t w(md);
    if (!w.is_plain() || w.ndims() < 2) return v;
    const int n = w.ndims();
    const dim_t R = w.dims()[n - 2], C = w.dims()[n - 1];
    const dim_t sr = w.blk().strides[n - 2], sc = w.blk().strides[n - 1];
    if (want != 1 && (sc == 1 || C == 1)) {
        v.ld = R == 1 ? (C > 1 ? C : 1) : sr;
        v.ok = v.ld >= C;
        v.trans = false;
        if (v.ok) return v;
    }
    if (want != 0 && (sr == 1 || R == 1)) {
        v.ld = C == 1 ? (R > 1 ? R : 1) : sc;
        v.ok = v.ld >= R;
        v.trans = true;
    }
    return v;
}

bool scales_ok(const attr_t &attr, int wei_bits) {
    for (const auto &it : attr.scales.items) {
        const auto &e = it.e;
        if (e.ndims != 0 || e.dt != dnnl_f32) return false;
        if (it.arg == DNNL_ARG_SRC || it.arg == DNNL_ARG_DST) {
            if (e.mask != 0) return false;
        } else if (it.arg == DNNL_ARG_WEIGHTS) {
            if (e.mask & ~wei_bits) return false;
        } else {
            return false;
        }
    }
    return true;
}

namespace {

const void *quant_arg(const exec_ctx_t &ctx, int base, int arg) { return ctx.input(base | arg); }

} // namespace

status_t scales_t::init(const attr_t &attr, const exec_ctx_t &ctx) {
    if (attr.scales.get(DNNL_ARG_SRC)) {
        const float *p = static_cast<const float *>(quant_arg(ctx, DNNL_ARG_ATTR_SCALES, DNNL_ARG_SRC));
        if (!p) return status::invalid_arguments;
        src = p[0];
    }
    if (const auto *e = attr.scales.get(DNNL_ARG_WEIGHTS)) {
        const float *p = static_cast<const float *>(quant_arg(ctx, DNNL_ARG_ATTR_SCALES, DNNL_ARG_WEIGHTS));
        if (!p) return status::invalid_arguments;
        if (e->mask == 0) {
            wei = p[0];
        } else {
            wei_p = p;
            wei_mask = e->mask;
        }
    }
    if (attr.scales.get(DNNL_ARG_DST)) {
        const float *p = static_cast<const float *>(quant_arg(ctx, DNNL_ARG_ATTR_SCALES, DNNL_ARG_DST));
        if (!p) return status::invalid_arguments;
        dst_inv = 1.f / p[0];
    }
    if (const auto *e = attr.zero_points.get(DNNL_ARG_SRC)) {
        const void *p = quant_arg(ctx, DNNL_ARG_ATTR_ZERO_POINTS, DNNL_ARG_SRC);
        if (!p) return status::invalid_arguments;
        src_zp = (int32_t)load_f32(e->dt, p, 0);
    }
    if (const auto *e = attr.zero_points.get(DNNL_ARG_WEIGHTS)) {
        wei_zp = quant_arg(ctx, DNNL_ARG_ATTR_ZERO_POINTS, DNNL_ARG_WEIGHTS);
        if (!wei_zp) return status::invalid_arguments;
        wei_zp_dt = e->dt;
        wei_zp_mask = e->mask;
    }
    if (const auto *e = attr.zero_points.get(DNNL_ARG_DST)) {
        dst_zp = quant_arg(ctx, DNNL_ARG_ATTR_ZERO_POINTS, DNNL_ARG_DST);
        if (!dst_zp) return status::invalid_arguments;
        dst_zp_dt = e->dt;
        dst_zp_per_n = e->mask != 0;
    }
    return status::success;
}

float out_stage_t::init(const scales_t &sc, const post_ops::applier_t &po, int first, int dst_ndims) {
    dst_inv = sc.dst_inv;
    ap = &po;
    first_po = first;
    ndims = dst_ndims;
    return sc.src * (sc.wei_p ? 1.f : sc.wei);
}

void out_stage_t::apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const {
    dim_t p[max_ndims];
    for (int d = 0; d < ndims - 2; ++d) p[d] = pos[d];
    p[ndims - 1] = n0;
    const bool po = ap && ap->size() > first_po;
    for (dim_t i = 0; i < m; ++i) {
        float *row = c + i * ldc;
        if (wei_n) {
            if (wei_sn == 0) {
                const float s = wei_n[0];
                for (dim_t j = 0; j < n; ++j) row[j] *= s;
            } else {
                const float *s = wei_n + n0;
                for (dim_t j = 0; j < n; ++j) row[j] *= s[j];
            }
        }
        if (bias) {
            const float *b = bias + (m0 + i) * bias_sm + n0 * bias_sn;
            if (bias_sn == 0) {
                const float v = b[0];
                for (dim_t j = 0; j < n; ++j) row[j] += v;
            } else if (bias_sn == 1) {
                for (dim_t j = 0; j < n; ++j) row[j] += b[j];
            } else {
                for (dim_t j = 0; j < n; ++j) row[j] += b[j * bias_sn];
            }
        }
        p[ndims - 2] = m0 + i;
        if (drop) drop->apply_row(row, n, p);
        if (po) {
            ap->apply_row(row, nullptr, n, p, first_po);
        }
        if (dst_inv != 1.f)
            for (dim_t j = 0; j < n; ++j) row[j] *= dst_inv;
        if (dst_zp)
            for (dim_t j = 0; j < n; ++j) row[j] += dst_zp->dst_zp_at(n0 + j);
    }
}

void bias_f32_t::init(const memory_desc_t &md, const void *bias, float *buf) {
    const mdw_t b(md);
    if (b.data_type() == dnnl_f32) {
        base = static_cast<const float *>(bias);
        shift = 0;
        return;
    }
    const dim_t n = (dim_t)(b.size() / b.dt_size());
    for (dim_t i = 0; i < n; ++i) buf[i] = load_f32(b.data_type(), bias, md.offset0 + i);
    base = buf;
    shift = md.offset0;
}

bool plan_sum(const attr_t &attr, int &first_po, float &beta) {
    const auto &po = attr.post_ops;
    first_po = 0;
    beta = 0.f;
    const int nsum = (int)std::count_if(po.entries.begin(), po.entries.end(),
            [](const post_op_t &e) { return e.kind == dnnl_sum; });
    if (nsum == 0) return true;
    const bool leading = po.entries[0].kind == dnnl_sum && po.entries[0].sum.zero_point == 0;
    // Weights scales applied in the epilogue would scale the sum too.
    const auto *ws = attr.scales.get(DNNL_ARG_WEIGHTS);
    if (nsum > 1 || !leading || (ws && ws->mask != 0)) return false;
    first_po = 1;
    beta = po.entries[0].sum.scale;
    return true;
}

} // namespace gemm
} // namespace kestrel
