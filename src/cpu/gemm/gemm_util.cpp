#include "cpu/gemm/gemm_util.hpp"

namespace kestrel {
namespace gemm {

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

bool scales_ok(const attr_t &attr, int per_n_mask) {
    for (const auto &it : attr.scales.items) {
        const auto &e = it.e;
        if (e.ndims != 0 || e.dt != dnnl_f32) return false;
        if (it.arg == DNNL_ARG_SRC || it.arg == DNNL_ARG_DST) {
            if (e.mask != 0) return false;
        } else if (it.arg == DNNL_ARG_WEIGHTS) {
            if (e.mask != 0 && e.mask != per_n_mask) return false;
        } else {
            return false;
        }
    }
    return true;
}

status_t scales_t::init(const attr_t &attr, const exec_ctx_t &ctx) {
    if (const auto *e = attr.scales.get(DNNL_ARG_SRC)) {
        (void)e;
        const float *p = ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC);
        if (!p) return status::invalid_arguments;
        src = p[0];
    }
    if (const auto *e = attr.scales.get(DNNL_ARG_WEIGHTS)) {
        const float *p = ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS);
        if (!p) return status::invalid_arguments;
        if (e->mask == 0)
            wei = p[0];
        else
            wei_n = p;
    }
    if (attr.scales.get(DNNL_ARG_DST)) {
        const float *p = ctx.input<float>(DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST);
        if (!p) return status::invalid_arguments;
        dst_inv = 1.f / p[0];
    }
    return status::success;
}

void out_stage_t::apply(dim_t m0, dim_t n0, dim_t m, dim_t n, float *c, dim_t ldc) const {
    dim_t p[max_ndims];
    for (int d = 0; d < ndims - 2; ++d) p[d] = pos[d];
    p[ndims - 1] = n0;
    const bool po = ap && ap->size() > first_po;
    for (dim_t i = 0; i < m; ++i) {
        float *row = c + i * ldc;
        if (wei_n) {
            const float *s = wei_n + n0;
            for (dim_t j = 0; j < n; ++j) row[j] *= s[j];
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
        if (po) {
            p[ndims - 2] = m0 + i;
            ap->apply_row(row, nullptr, n, p, first_po);
        }
        if (dst_inv != 1.f)
            for (dim_t j = 0; j < n; ++j) row[j] *= dst_inv;
    }
}

} // namespace gemm
} // namespace kestrel
