// Matmul implementations: the reference (any layout, every data type and
// attribute the kind accepts) and the GEMM-based one (plain operands, one
// GEMM per batch index).
#include "cpu/gemm/matmul.hpp"
#include "cpu/gemm/matmul_out.hpp"

#include <atomic>

#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

// Zero points: s32/s8/u8 values without groups; src per tensor, weights
// any mask over their dims, dst per tensor or (2D) per N.
bool zero_points_ok(const attr_t &attr, int ndims) {
    for (const auto &it : attr.zero_points.items) {
        const auto &e = it.e;
        if (e.ndims != 0 || !one_of(e.dt, dnnl_s32, dnnl_s8, dnnl_u8)) return false;
        switch (it.arg) {
            case DNNL_ARG_SRC:
                if (e.mask != 0) return false;
                break;
            case DNNL_ARG_WEIGHTS:
                if (e.mask & ~((1 << ndims) - 1)) return false;
                break;
            case DNNL_ARG_DST:
                if (e.mask != 0 && !(ndims == 2 && e.mask == 1 << 1)) return false;
                break;
            default: return false;
        }
    }
    return true;
}

// Weights decompression: weights scales (f32/bf16/f16) and zero points
// (s8/u8/s4/u4/s32) with any mask, grouped along K only (the group divides K);
// nothing on src zero points or dst zero points (float tensors).
bool decomp_quant_ok(const attr_t &attr, const memory_desc_t &wmd) {
    const int nd = wmd.ndims;
    const dim_t K = wmd.dims[nd - 2];
    auto groups_ok = [&](const quant_entry_t &e) {
        if (e.ndims == 0) return true;
        if (e.ndims != 2 || e.group_dims[1] != 1 || K == DNNL_RUNTIME_DIM_VAL) return false;
        return e.group_dims[0] >= 1 && K % e.group_dims[0] == 0;
    };
    for (const auto &it : attr.zero_points.items) {
        if (it.arg != DNNL_ARG_WEIGHTS) return false;
        if (!one_of(it.e.dt, dnnl_s8, dnnl_u8, dnnl_s4, dnnl_u4, dnnl_s32) || !groups_ok(it.e)) return false;
        if (it.e.mask & ~((1 << nd) - 1)) return false;
    }
    for (const auto &it : attr.scales.items) {
        if (it.arg == DNNL_ARG_WEIGHTS) {
            if (!gemm::float_dt(it.e.dt) || !groups_ok(it.e) || (it.e.mask & ~((1 << nd) - 1))) return false;
        } else if (!one_of(it.arg, DNNL_ARG_SRC, DNNL_ARG_DST) || it.e.mask != 0 || it.e.ndims != 0
                || it.e.dt != dnnl_f32) {
            return false;
        }
    }
    return true;
}

} // namespace

status_t matmul_pd_t::init_common() {
    const data_type_t wdt = weights_md_.data_type, ddt = dst_md_.data_type;
    const data_type_t bdt = with_bias() ? bias_md_.data_type : dnnl_f32;
    if (is_int8()) {
        if (!gemm::int8_dt(wdt) || !one_of(ddt, dnnl_f32, dnnl_bf16, dnnl_s8, dnnl_u8, dnnl_s32)
                || !one_of(bdt, dnnl_f32, dnnl_bf16, dnnl_s32, dnnl_s8, dnnl_u8))
            return status::unimplemented;
    } else if (is_wei_decomp()) {
        if (!attr_.fpmath_apply_to_int) return status::unimplemented;
        for (data_type_t dt : {src_md_.data_type, ddt, bdt})
            if (!gemm::float_dt(dt)) return status::unimplemented;
    } else {
        // f8 src takes weights of its own f8 type or bf16/f16; f8 weights
        // only with that src. Any floating dst and bias, f8 included, except
        // an f16 src with an f8 dst (oneDNN's reference rules).
        const data_type_t sdt = src_md_.data_type;
        auto fp = [](data_type_t dt) { return gemm::float_dt(dt) || is_f8(dt); };
        if (!fp(sdt) || !fp(wdt) || !fp(ddt) || !fp(bdt)) return status::unimplemented;
        if (is_f8(sdt) && wdt != sdt && !one_of(wdt, dnnl_bf16, dnnl_f16)) return status::unimplemented;
        if (is_f8(wdt) && wdt != sdt) return status::unimplemented;
        if (sdt == dnnl_f16 && is_f8(ddt)) return status::unimplemented;
    }
    const unsigned allowed = attr_t::skip_scales | attr_t::skip_post_ops | attr_t::skip_dropout
            | (is_int8() || is_wei_decomp() ? (unsigned)attr_t::skip_zero_points : 0u);
    if (!attr_.has_default_values(allowed)) return status::unimplemented;
    // Dropout draws by dst's logical index and writes its mask through the
    // mask's layout: both need dims known at creation.
    if (attr_.dropout && has_runtime_dims()) return status::unimplemented;
    const int nd = ndims();
    if (is_wei_decomp()) {
        if (!decomp_quant_ok(attr_, weights_md_)) return status::unimplemented;
    } else {
        if (!gemm::scales_ok(attr_, ((1 << nd) - 1) & ~(1 << (nd - 2)))) return status::unimplemented;
        if (!zero_points_ok(attr_, nd)) return status::unimplemented;
    }
    for (memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_, &bias_md_})
        if (mdw_t(md).is_any()) KESTREL_CHECK(md_set_tag(*md, gemm::plain_tag(md->ndims)));
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_, true);
}

// ---------------------------------------------------------------- reference

status_t ref_matmul_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(gemm::decline_common(name(), init_common()));
    if (is_wei_decomp()) return decline(name(), "weights decompression (gemm:cvt only)");
    for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
        if (!mdw_t(md).is_blocked()) return decline(name(), "format kind");
    return status::success;
}

status_t ref_matmul_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const memory_desc_t &smd = gemm::exec_md(ctx, DNNL_ARG_SRC, pd->src_md());
    const memory_desc_t &wmd = gemm::exec_md(ctx, DNNL_ARG_WEIGHTS, pd->weights_md(0));
    const memory_desc_t &dmd = gemm::exec_md(ctx, DNNL_ARG_DST, pd->dst_md());
    const memory_desc_t &bmd = gemm::exec_md(ctx, DNNL_ARG_BIAS, pd->weights_md(1));
    const mdw_t s(smd), w(wmd), d(dmd), b(bmd);
    const void *src = ctx.input(DNNL_ARG_SRC), *wei = ctx.input(DNNL_ARG_WEIGHTS);
    const void *bias = pd->with_bias() ? ctx.input(DNNL_ARG_BIAS) : nullptr;
    void *dst = ctx.output(DNNL_ARG_DST);
    gemm::scales_t sc;
    KESTREL_CHECK(sc.init(*pd->attr(), ctx));
    const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
    dropout_t drop;
    KESTREL_CHECK(drop.init(*pd, ctx));
    const int nd = d.ndims();
    const dim_t K = s.dims()[nd - 1];
    const bool int8 = pd->is_int8();
    parallel_nd(d.nelems(), [&](dim_t l) {
        dim_t pos[max_ndims], sp[max_ndims], wp[max_ndims], bp[max_ndims];
        dim_t r = l;
        for (int i = nd - 1; i >= 0; --i) {
            pos[i] = r % d.dims()[i];
            r /= d.dims()[i];
        }
        const dim_t m = pos[nd - 2], n = pos[nd - 1];
        float acc = 0.f;
        if (int8) { // exact s32 accumulation of zero-point-shifted values
            int32_t iacc = 0;
            for (dim_t k = 0; k < K; ++k) {
                matmul_operand_pos(smd, pos, m, k, sp);
                matmul_operand_pos(wmd, pos, k, n, wp);
                const int32_t a = (int32_t)load_f32(s.data_type(), src, s.off_v(sp)) - sc.src_zp;
                int32_t bw = (int32_t)load_f32(w.data_type(), wei, w.off_v(wp));
                if (sc.wei_zp)
                    bw -= (int32_t)load_f32(sc.wei_zp_dt, sc.wei_zp,
                            gemm::quant_off(sc.wei_zp_mask, nd, w.dims(), wp));
                iacc += a * bw;
            }
            acc = (float)iacc;
        } else {
            for (dim_t k = 0; k < K; ++k) {
                matmul_operand_pos(smd, pos, m, k, sp);
                matmul_operand_pos(wmd, pos, k, n, wp);
                acc += load_f32(s.data_type(), src, s.off_v(sp)) * load_f32(w.data_type(), wei, w.off_v(wp));
            }
        }
        matmul_operand_pos(wmd, pos, 0, n, wp);
        const float ws = sc.wei_p ? sc.wei_p[gemm::quant_off(sc.wei_mask, nd, w.dims(), wp)] : sc.wei;
        float v = acc * sc.src * ws;
        if (bias) {
            for (int i = 0; i < nd; ++i) bp[i] = bmd.dims[i] == 1 ? 0 : pos[i];
            v += load_f32(b.data_type(), bias, b.off_v(bp));
        }
        if (drop.on) v = drop.apply(v, pos);
        gemm::ref_store(v, dst, d, pos, ap, sc);
    });
    return status::success;
}

// --------------------------------------------------------------- GEMM-based

namespace {

// Row-major or transposed, decided by the stride that is exactly 1; ld is
// only meaningful when dims and strides are known.
gemm::mat_view_t orient(const memory_desc_t &md) {
    if (!mdw_t(md).has_runtime_dims_or_strides()) return gemm::view_2d(md);
    gemm::mat_view_t v;
    const int n = md.ndims;
    if (md.blocking.strides[n - 1] == 1) {
        v.ok = true;
    } else if (md.blocking.strides[n - 2] == 1) {
        v.ok = v.trans = true;
    }
    return v;
}

// One weights-decompression table (scales or zero points, entry e, values
// at `base`) as gemm::dequant_t wants it for the batch whose weights origin
// is wp: the pointer moved to that batch's values, the K group and the
// strides along K and N. Batch dims in the mask index the table row-major
// ahead of the (grouped) K and N dims.
void dequant_table(const quant_entry_t *e, const void *base, const memory_desc_t &wmd, const dim_t *wp,
        const void *&p, data_type_t &dt, dim_t &off0, dim_t &group, dim_t &ldk, dim_t &ldn) {
    if (!e) return;
    const int nd = wmd.ndims;
    const int kbit = 1 << (nd - 2), nbit = 1 << (nd - 1);
    const dim_t N = wmd.dims[nd - 1];
    group = e->ndims == 2 && (e->mask & kbit) ? e->group_dims[0] : 1;
    const dim_t kq = e->mask & kbit ? wmd.dims[nd - 2] / group : 1;
    ldn = e->mask & nbit ? 1 : 0;
    ldk = e->mask & kbit ? (ldn ? N : 1) : 0;
    const dim_t per_batch = kq * (e->mask & nbit ? N : 1);
    const dim_t off = gemm::quant_off(e->mask & (kbit - 1), nd, wmd.dims, wp) * per_batch;
    dt = e->dt;
    p = base;
    off0 = off; // in elements: s4/u4 tables may start inside a byte
}

// Largest |value| of an int8 type, for the exactness bound of f32 sums.
double int8_max(data_type_t dt) { return dt == dnnl_u8 ? 255.0 : 128.0; }

} // namespace

status_t gemm_matmul_t::pd_t::init(dnnl_engine *) {
    // f32 2D weights `any` or already in the GEMM's panel layout (as the
    // inner product's): planned as plain ab first.
    const bool w2d = ndims() == 2 && !has_runtime_dims() && src_md_.data_type == dnnl_f32
            && weights_md_.data_type == dnnl_f32 && dst_md_.data_type == dnnl_f32 && weights_md_.dims[0] > 0
            && weights_md_.dims[1] > 0;
    const dim_t nr = gemm::f32_kernel_nr();
    gemm::panels_b_t req;
    KESTREL_CHECK(gemm::panels_b_request(weights_md_, w2d, 1, nr, 1, req));
    KESTREL_CHECK(gemm::decline_common(name(), init_common()));
    for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
        if (!mdw_t(md).is_plain()) return decline(name(), "needs plain src, weights, dst");
    const data_type_t sdt = src_md_.data_type, wdt = weights_md_.data_type, ddt = dst_md_.data_type;
    const int nd = ndims();
    const dim_t M = dst_md_.dims[nd - 2], N = dst_md_.dims[nd - 1], K = src_md_.dims[nd - 1];
    const bool rt = has_runtime_dims();
    if (is_int8()) {
        // f32 sums of integer products are exact while every partial sum
        // stays below 2^24; zero points would widen the values unboundedly.
        if (attr_.zero_points.get(DNNL_ARG_SRC) || attr_.zero_points.get(DNNL_ARG_WEIGHTS))
            return decline(name(), "src or weights zero points");
        if (K == DNNL_RUNTIME_DIM_VAL || (double)K * int8_max(sdt) * int8_max(wdt) > 16777216.0)
            return decline(name(), "int8 with K too large for exact f32 sums");
    } else if (!one_of(ddt, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_f8_e5m2, dnnl_f8_e4m3)) {
        return decline(name(), "dst data type");
    } else if (is_wei_decomp() && rt) {
        return decline(name(), "weights decompression with runtime dims");
    }
    for (const auto &e : attr_.post_ops.entries)
        if ((e.kind == dnnl_sum && is_sub_byte(e.sum.dt)) || (e.kind == dnnl_binary
                && (is_sub_byte(e.binary.src1_desc.data_type) || is_sub_byte(e.binary.src2_desc.data_type))))
            return decline(name(), "s4/u4 post-op operand");
    cvt = !(sdt == dnnl_f32 && wdt == dnnl_f32 && ddt == dnnl_f32);
    if (with_bias() && (!mdw_t(bias_md_).is_plain() || mdw_t(bias_md_).has_runtime_dims_or_strides()))
        return decline(name(), "needs a plain bias with known dims");
    if (!gemm::plan_sum(attr_, first_po, beta))
        return decline(name(), "sum post-op other than a leading plain sum");
    if (attr_.dropout && first_po > 0) return decline(name(), "dropout before a sum post-op");
    sv = orient(src_md_);
    wv = orient(weights_md_);
    dv = gemm::view_2d(dst_md_, 0);
    if (!sv.ok || !wv.ok) return decline(name(), "operand strides");
    if (rt) {
        if (dst_md_.blocking.strides[nd - 1] != 1) return decline(name(), "dst strides");
        dv.ok = true;
    } else if (!dv.ok) {
        return decline(name(), "dst must be row-major");
    }
    dim_t batch = 1;
    for (int d = 0; d < nd - 2; ++d) batch *= dst_md_.dims[d];
    // Whole products per thread (no packing duplicated across threads, no
    // split of a small C) when the batch alone keeps every thread busy:
    // small products, or a batch that divides evenly or is long enough
    // for the remainder not to matter.
    const int mt = max_threads();
    batch_parallel = !rt && batch > 1
            && ((double)M * N * K < 4e6 || batch % mt == 0 || batch >= 4 * (dim_t)mt);
    const int nthr = batch_parallel ? 1 : 0;
    if (cvt) {
        // fpmath bf16 (or any) applied to integers lets the weights be
        // up-converted to bf16 (oneDNN's fpmath_mode semantics): with a bf16
        // src the product then runs on bf16 pairs.
        const bool bf16_w = is_wei_decomp() && sdt == dnnl_bf16
                && one_of(attr_.fpmath_mode, dnnl_fpmath_mode_bf16, dnnl_fpmath_mode_any);
        KESTREL_CHECK(cplan.init(M, N, K, sdt, sv.trans, wdt, wv.trans, ddt, false, nthr, bf16_w));
        cplan.book(scratchpad_registry(), key_plan);
    } else {
        KESTREL_CHECK(plan.init(M, N, K, sv.trans, wv.trans, nthr));
        // `any`: panels where the GEMM packs B anyway; given panels are
        // read as such at any size (see gemm_ip_fwd_t).
        packed_w = !wv.trans && M > 0
                && (req == gemm::panels_b_t::given || (req == gemm::panels_b_t::any && plan.packs_b()));
        if (packed_w && !plan.packs_b()) KESTREL_CHECK(plan.init_prepacked_b(M, N, K, sv.trans, false, nthr));
        KESTREL_CHECK(gemm::panels_b_settle(name(), req, packed_w, plan.nr(), nr));
        plan.book(scratchpad_registry(), key_plan, packed_w);
        if (packed_w) weights_md_ = gemm::panels_b_md(weights_md_, 1, nr, 1);
    }
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
    return status::success;
}

status_t gemm_matmul_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const memory_desc_t &smd = gemm::exec_md(ctx, DNNL_ARG_SRC, pd->src_md());
    const memory_desc_t &wmd = gemm::exec_md(ctx, DNNL_ARG_WEIGHTS, pd->weights_md(0));
    const memory_desc_t &dmd = gemm::exec_md(ctx, DNNL_ARG_DST, pd->dst_md());
    gemm::mat_view_t sv = pd->sv, wv = pd->wv, dv = pd->dv;
    if (pd->has_runtime_dims()) { // real leading dims, same orientation as planned
        sv = gemm::view_2d(smd, pd->sv.trans ? 1 : 0);
        wv = gemm::view_2d(wmd, pd->wv.trans ? 1 : 0);
        dv = gemm::view_2d(dmd, 0);
        if (!sv.ok || !wv.ok || !dv.ok) return status::unimplemented;
    }
    const mdw_t s(smd), w(wmd), d(dmd);
    const int nd = d.ndims();
    const dim_t M = d.dims()[nd - 2], N = d.dims()[nd - 1], K = s.dims()[nd - 1];
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    const char *wei = ctx.input<char>(DNNL_ARG_WEIGHTS);
    char *dst = ctx.output<char>(DNNL_ARG_DST);

    matmul_out_t out(*pd, ctx, dmd);
    const bool decomp = pd->is_wei_decomp();
    KESTREL_CHECK(out.init(pd->first_po, pd_t::key_bias, decomp));
    const float alpha = out.alpha;
    const void *dq_sc = decomp ? ctx.input(DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS) : nullptr;
    const void *dq_zp = decomp ? ctx.input(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS) : nullptr;
    if (decomp && ((pd->attr()->scales.get(DNNL_ARG_WEIGHTS) && !dq_sc)
                || (pd->attr()->zero_points.get(DNNL_ARG_WEIGHTS) && !dq_zp)))
        return status::invalid_arguments;

    dim_t batch = 1;
    for (int i = 0; i < nd - 2; ++i) batch *= d.dims()[i];
    // One GEMM of the batch: operand origins through the layout helper.
    auto one = [&](dim_t ib, int ithr, bool st) -> status_t {
        dim_t pos[max_ndims], sp[max_ndims], wp[max_ndims];
        matmul_batch_origin(dmd, smd, wmd, ib, pos, sp, wp);
        const gemm::out_stage_t ep = out.stage_at(pos, wmd, wp);
        const gemm::epilogue_t *e = out.needed ? &ep : nullptr;
        const auto &g = ctx.scratchpad();
        if (pd->cvt) {
            gemm::operand_t A, B;
            A.p = src + s.off_v(sp) * s.dt_size();
            A.dt = s.data_type();
            A.ld = sv.ld;
            A.trans = sv.trans;
            const dim_t woff = w.off_v(wp);
            if (is_sub_byte(w.data_type())) { // origin byte and nibble
                B.p = wei + woff / 2;
                B.nib0 = woff % 2;
            } else {
                B.p = wei + woff * w.dt_size();
            }
            B.dt = w.data_type();
            B.ld = wv.ld;
            B.trans = wv.trans;
            gemm::dequant_t dq;
            if (decomp) {
                const attr_t &a = *pd->attr();
                dequant_table(a.scales.get(DNNL_ARG_WEIGHTS), dq_sc, wmd, wp, dq.sc, dq.sc_dt, dq.sc_off,
                        dq.sc_group, dq.sc_ldk, dq.sc_ldn);
                dequant_table(a.zero_points.get(DNNL_ARG_WEIGHTS), dq_zp, wmd, wp, dq.zp, dq.zp_dt, dq.zp_off,
                        dq.zp_group, dq.zp_ldk, dq.zp_ldn);
                B.dq = &dq;
            }
            void *C = dst + d.off_v(pos) * d.dt_size();
            return st ? pd->cplan.execute_st(M, N, K, alpha, A, B, pd->beta, C, dv.ld, g, pd_t::key_plan, ithr, e)
                      : pd->cplan.execute(M, N, K, alpha, A, B, pd->beta, C, dv.ld, g, pd_t::key_plan, e);
        }
        const float *Af = reinterpret_cast<const float *>(src) + s.off_v(sp);
        float *Cf = reinterpret_cast<float *>(dst) + d.off_v(pos);
        if (pd->packed_w) // 2D: the weights are the GEMM's B panels; B itself is never read
            return pd->plan.execute(M, N, K, alpha, Af, sv.ld, nullptr, 0, pd->beta, Cf, dv.ld, g, pd_t::key_plan,
                    e, reinterpret_cast<const float *>(wei) + pd->weights_md(0)->offset0);
        const float *Bf = reinterpret_cast<const float *>(wei) + w.off_v(wp);
        return st ? pd->plan.execute_st(M, N, K, alpha, Af, sv.ld, Bf, wv.ld, pd->beta, Cf, dv.ld, g,
                            pd_t::key_plan, ithr, e)
                  : pd->plan.execute(M, N, K, alpha, Af, sv.ld, Bf, wv.ld, pd->beta, Cf, dv.ld, g,
                            pd_t::key_plan, e);
    };
    if (pd->batch_parallel) {
        std::atomic<bool> bad {false};
        // Thread slots are bounded by the granted slabs only when the plan
        // packs (direct tiles and skinny kernels book none).
        int nthr = max_threads();
        if (pd->scratchpad_registry().slab_size() > 0 && ctx.scratchpad().nthr() < nthr)
            nthr = ctx.scratchpad().nthr() > 1 ? ctx.scratchpad().nthr() : 1;
        parallel(nthr, [&](int ithr, int n) {
            dim_t b0, b1;
            balance211(batch, n, ithr, b0, b1);
            for (dim_t ib = b0; ib < b1; ++ib)
                if (one(ib, ithr, true) != status::success) bad = true;
        });
        return bad ? status::out_of_memory : status::success;
    }
    for (dim_t ib = 0; ib < batch; ++ib) KESTREL_CHECK(one(ib, 0, false));
    return status::success;
}

} // namespace kestrel
