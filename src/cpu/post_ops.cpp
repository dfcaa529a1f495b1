#include "cpu/post_ops.hpp"

#include "core/primitive.hpp"
#include "cpu/math/eltwise_math.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace post_ops {

namespace {

bool src1_dt_ok(data_type_t dt) {
    return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8);
}

format_tag_t plain_tag(int ndims) {
    static const format_tag_t tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc,
            dnnl_abcd, dnnl_abcde, dnnl_abcdef, dnnl_abcdefg, dnnl_abcdefgh, dnnl_abcdefghi,
            dnnl_abcdefghij, dnnl_abcdefghijk, dnnl_abcdefghijkl};
    return ndims >= 1 && ndims <= 12 ? tags[ndims] : dnnl_format_tag_undef;
}

// A binary post-op source: dst's rank, each dim 1 or dst's, a blocked or
// `any` layout without runtime values.
status_t check_source(const memory_desc_t &md, const mdw_t &dst) {
    const mdw_t s(md);
    if (s.ndims() != dst.ndims()) return status::invalid_arguments;
    if (s.has_runtime_dims_or_strides()) return status::unimplemented;
    for (int d = 0; d < dst.ndims(); ++d) {
        dim_t a = s.dims()[d], b = dst.dims()[d];
        if (a != 1 && a != b && b != DNNL_RUNTIME_DIM_VAL) return status::invalid_arguments;
    }
    if (!s.is_blocked() && !s.is_any()) return status::unimplemented;
    return status::success;
}

} // namespace

status_t check(const post_ops_t &po, const memory_desc_t &dst_md, bool with_prelu) {
    if ((int)po.entries.size() > applier_t::max_entries) return status::unimplemented;
    const mdw_t dst(dst_md);
    for (const auto &e : po.entries) {
        switch (e.kind) {
            case dnnl_eltwise:
                if (!math::eltwise_supported(e.eltwise.alg)) return status::unimplemented;
                break;
            case dnnl_sum:
                if (e.sum.dt != dnnl_data_type_undef && e.sum.dt != dst.data_type())
                    return status::unimplemented;
                break;
            case dnnl_binary: {
                const bool select = e.binary.alg == dnnl_binary_select;
                if (!select && !math::binary_supported(e.binary.alg)) return status::unimplemented;
                KESTREL_CHECK(check_source(e.binary.src1_desc, dst));
                if (!src1_dt_ok(mdw_t(e.binary.src1_desc).data_type())) return status::unimplemented;
                if (select) {
                    // The condition: s8, as the binary primitive takes it.
                    KESTREL_CHECK(check_source(e.binary.src2_desc, dst));
                    if (mdw_t(e.binary.src2_desc).data_type() != dnnl_s8) return status::unimplemented;
                }
                break;
            }
            case dnnl_prelu:
                if (!with_prelu || dst.has_runtime_dims_or_strides()) return status::unimplemented;
                if (e.prelu.mask < 0) return status::invalid_arguments;
                break;
            default: return status::unimplemented;
        }
    }
    return status::success;
}

status_t resolve_any(post_ops_t &po) {
    for (auto &e : po.entries) {
        if (e.kind != dnnl_binary) continue;
        for (memory_desc_t *md : {&e.binary.src1_desc, &e.binary.src2_desc})
            if (md->ndims > 0 && mdw_t(md).is_any()) KESTREL_CHECK(md_set_tag(*md, plain_tag(md->ndims)));
    }
    return status::success;
}

applier_t::applier_t(const post_ops_t &po, const memory_desc_t &dst_md, const exec_ctx_t &ctx) {
    ndims_ = dst_md.ndims;
    for (int i = 0; i < (int)po.entries.size() && n_ < max_entries; ++i) {
        const auto &p = po.entries[i];
        entry_t &e = e_[n_++];
        e.kind = p.kind;
        e.alg = dnnl_alg_kind_undef;
        e.alpha = e.beta = 0.f;
        e.src1 = nullptr;
        e.src1_md = nullptr;
        e.src1_dt = dnnl_data_type_undef;
        e.src1_plain = false;
        e.src1_row_bcast = false;
        e.src1_last_stride = 0;
        e.src2 = nullptr;
        e.src2_md = nullptr;
        if (p.kind == dnnl_eltwise) {
            e.alg = p.eltwise.alg;
            e.alpha = p.eltwise.alpha;
            e.beta = p.eltwise.beta;
        } else if (p.kind == dnnl_sum) {
            e.alpha = p.sum.scale;
            e.beta = (float)p.sum.zero_point;
        } else if (p.kind == dnnl_prelu) {
            e.src1 = ctx.input(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_WEIGHTS);
            dim_t s = 1;
            for (int d = ndims_ - 1; d >= 0; --d) {
                const bool on = (p.prelu.mask >> d) & 1;
                e.wei_strides[d] = on ? s : 0;
                if (on) s *= dst_md.dims[d];
            }
        } else if (p.kind == dnnl_binary) {
            e.alg = p.binary.alg;
            e.src1 = ctx.input(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1);
            e.src1_md = &p.binary.src1_desc;
            const mdw_t s1(e.src1_md);
            e.src1_dt = s1.data_type();
            e.src1_plain = s1.is_plain();
            const int last = ndims_ - 1;
            e.src1_row_bcast = last < 0 || s1.dims()[last] == 1;
            e.src1_last_stride = e.src1_plain && last >= 0 ? s1.blk().strides[last] : 0;
            if (p.binary.alg == dnnl_binary_select) {
                e.src2 = ctx.input(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_2);
                e.src2_md = &p.binary.src2_desc;
            }
        }
    }
}

dim_t applier_t::bcast_off(const memory_desc_t *md, const dim_t *pos) const {
    const mdw_t s(md);
    dim_t bpos[max_ndims];
    for (int d = 0; d < ndims_; ++d) bpos[d] = s.dims()[d] == 1 ? 0 : pos[d];
    return s.off_v(bpos);
}

float applier_t::select(const entry_t &e, float v, const dim_t *pos) const {
    const int8_t cond = static_cast<const int8_t *>(e.src2)[bcast_off(e.src2_md, pos)];
    return cond ? v : load_f32(e.src1_dt, e.src1, bcast_off(e.src1_md, pos));
}

float applier_t::prelu_wei(const entry_t &e, const dim_t *pos) const {
    dim_t off = 0;
    for (int d = 0; d < ndims_; ++d) off += pos[d] * e.wei_strides[d];
    return static_cast<const float *>(e.src1)[off];
}

float applier_t::apply(float v, float dst_old, const dim_t *pos, int first) const {
    for (int i = first; i < n_; ++i) {
        const entry_t &e = e_[i];
        switch (e.kind) {
            case dnnl_eltwise: v = math::eltwise_fwd(e.alg, v, e.alpha, e.beta); break;
            case dnnl_sum: v += e.alpha * (dst_old - e.beta); break;
            case dnnl_binary:
                v = e.src2 ? select(e, v, pos)
                           : math::binary_fwd(e.alg, v, load_f32(e.src1_dt, e.src1, src1_off(e, pos)));
                break;
            case dnnl_prelu: v = v > 0.f ? v : prelu_wei(e, pos) * v; break;
            default: break;
        }
    }
    return v;
}

namespace {

// The common eltwise algorithms get their own loops so the switch in
// eltwise_fwd is not evaluated per element.
void eltwise_row(float *v, dim_t n, dnnl_alg_kind_t alg, float alpha, float beta) {
    switch (alg) {
        case dnnl_eltwise_relu:
            // alpha * x also for alpha = 0: negative inputs give -0, as the
            // scalar formula does.
            for (dim_t j = 0; j < n; ++j) v[j] = v[j] > 0.f ? v[j] : alpha * v[j];
            return;
        case dnnl_eltwise_linear:
            for (dim_t j = 0; j < n; ++j) v[j] = alpha * v[j] + beta;
            return;
        case dnnl_eltwise_clip:
        case dnnl_eltwise_clip_v2:
            for (dim_t j = 0; j < n; ++j) v[j] = std::fmin(beta, std::fmax(alpha, v[j]));
            return;
        default:
            for (dim_t j = 0; j < n; ++j) v[j] = math::eltwise_fwd(alg, v[j], alpha, beta);
            return;
    }
}

template <typename F>
void binary_row_with(float *v, dim_t n, const F &src1_at) {
    for (dim_t j = 0; j < n; ++j) v[j] = src1_at(v[j], j);
}

} // namespace

void applier_t::apply_row(float *vals, const float *dst_old, dim_t n, const dim_t *pos,
        int first) const {
    for (int i = first; i < n_; ++i) {
        const entry_t &e = e_[i];
        switch (e.kind) {
            case dnnl_eltwise: eltwise_row(vals, n, e.alg, e.alpha, e.beta); break;
            case dnnl_sum:
                for (dim_t j = 0; j < n; ++j) vals[j] += e.alpha * (dst_old[j] - e.beta);
                break;
            case dnnl_prelu: {
                const float *w = static_cast<const float *>(e.src1);
                dim_t off = 0;
                for (int d = 0; d < ndims_; ++d) off += pos[d] * e.wei_strides[d];
                const dim_t ws = ndims_ > 0 ? e.wei_strides[ndims_ - 1] : 0;
                for (dim_t j = 0; j < n; ++j)
                    vals[j] = vals[j] > 0.f ? vals[j] : w[off + j * ws] * vals[j];
                break;
            }
            case dnnl_binary: {
                if (e.src2) { // select: per element through the layout helper
                    dim_t p[max_ndims];
                    for (int d = 0; d < ndims_; ++d) p[d] = pos[d];
                    for (dim_t j = 0; j < n; ++j) {
                        p[ndims_ - 1] = pos[ndims_ - 1] + j;
                        vals[j] = select(e, vals[j], p);
                    }
                    break;
                }
                const dim_t off0 = src1_off(e, pos);
                const dnnl_alg_kind_t alg = e.alg;
                if (e.src1_row_bcast) {
                    // Broadcast along the row: one value for all n.
                    const float b = load_f32(e.src1_dt, e.src1, off0);
                    if (alg == dnnl_binary_add) {
                        for (dim_t j = 0; j < n; ++j) vals[j] += b;
                    } else if (alg == dnnl_binary_mul) {
                        for (dim_t j = 0; j < n; ++j) vals[j] *= b;
                    } else {
                        for (dim_t j = 0; j < n; ++j) vals[j] = math::binary_fwd(alg, vals[j], b);
                    }
                } else if (e.src1_plain) {
                    const dim_t s = e.src1_last_stride;
                    if (e.src1_dt == dnnl_f32 && alg == dnnl_binary_add) {
                        const float *p = static_cast<const float *>(e.src1) + off0;
                        for (dim_t j = 0; j < n; ++j) vals[j] += p[j * s];
                    } else if (e.src1_dt == dnnl_f32 && alg == dnnl_binary_mul) {
                        const float *p = static_cast<const float *>(e.src1) + off0;
                        for (dim_t j = 0; j < n; ++j) vals[j] *= p[j * s];
                    } else {
                        binary_row_with(vals, n, [&](float a, dim_t j) {
                            return math::binary_fwd(alg, a, load_f32(e.src1_dt, e.src1, off0 + j * s));
                        });
                    }
                } else { // blocked src1: every element through the layout helper
                    dim_t p[max_ndims];
                    for (int d = 0; d < ndims_; ++d) p[d] = pos[d];
                    for (dim_t j = 0; j < n; ++j) {
                        p[ndims_ - 1] = pos[ndims_ - 1] + j;
                        vals[j] = math::binary_fwd(alg, vals[j], load_f32(e.src1_dt, e.src1, src1_off(e, p)));
                    }
                }
                break;
            }
            default: break;
        }
    }
}

} // namespace post_ops
} // namespace kestrel
