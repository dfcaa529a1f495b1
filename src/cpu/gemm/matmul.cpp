// Matmul implementations: GEMM-based (f32, plain operands, batch loop over
// the GEMM engine) and the reference (any layout, f32/bf16/f16 storage).
#include "cpu/gemm/matmul_pd.hpp"

#include <algorithm>
#include <atomic>

#include "cpu/gemm/gemm_util.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

format_tag_t plain_tag(int ndims) {
    static const format_tag_t tags[] = {dnnl_format_tag_undef, dnnl_a, dnnl_ab, dnnl_abc,
            dnnl_abcd, dnnl_abcde, dnnl_abcdef, dnnl_abcdefg, dnnl_abcdefgh, dnnl_abcdefghi,
            dnnl_abcdefghij, dnnl_abcdefghijk, dnnl_abcdefghijkl};
    return ndims >= 1 && ndims <= 12 ? tags[ndims] : dnnl_format_tag_undef;
}

bool float_dt(data_type_t dt) { return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16); }

// Position of the operand element feeding dst position `pos` (batch dims
// of size 1 broadcast), with its last two dims set to (r, c).
void operand_pos(const memory_desc_t &md, const dim_t *pos, dim_t r, dim_t c, dim_t *out) {
    const int n = md.ndims;
    for (int d = 0; d < n - 2; ++d) out[d] = md.dims[d] == 1 ? 0 : pos[d];
    out[n - 2] = r;
    out[n - 1] = c;
}

} // namespace

status_t matmul_pd_t::init_common() {
    for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
        if (!float_dt(md->data_type)) return status::unimplemented;
    if (with_bias() && !float_dt(bias_md_.data_type)) return status::unimplemented;
    if (!attr_.has_default_values(attr_t::skip_scales | attr_t::skip_post_ops))
        return status::unimplemented;
    if (!gemm::scales_ok(attr_, 1 << (ndims() - 1))) return status::unimplemented;
    for (memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_, &bias_md_})
        if (mdw_t(md).is_any()) KESTREL_CHECK(md_set_tag(*md, plain_tag(md->ndims)));
    KESTREL_CHECK(post_ops::resolve_any(attr_.post_ops));
    return post_ops::check(attr_.post_ops, dst_md_);
}

// ---------------------------------------------------------------- reference

struct ref_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, ref_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, ref_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override {
            status_t st = init_common();
            if (st != status::success) return st == status::unimplemented ? decline(name(), "attributes or data types") : st;
            for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
                if (!mdw_t(md).is_blocked()) return decline(name(), "format kind");
            return status::success;
        }
    };
    explicit ref_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    const pd_t *mpd() const { return static_cast<const pd_t *>(pd_.get()); }

    status_t execute(const exec_ctx_t &ctx) const override {
        const pd_t *pd = mpd();
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
        const int nd = d.ndims();
        const dim_t K = s.dims()[nd - 1];
        const dim_t total = d.nelems();
        parallel_nd(total, [&](dim_t l) {
            dim_t pos[max_ndims], sp[max_ndims], wp[max_ndims], bp[max_ndims];
            dim_t r = l;
            for (int i = nd - 1; i >= 0; --i) {
                pos[i] = r % d.dims()[i];
                r /= d.dims()[i];
            }
            const dim_t m = pos[nd - 2], n = pos[nd - 1];
            float acc = 0.f;
            for (dim_t k = 0; k < K; ++k) {
                operand_pos(smd, pos, m, k, sp);
                operand_pos(wmd, pos, k, n, wp);
                acc += load_f32(s.data_type(), src, s.off_v(sp)) * load_f32(w.data_type(), wei, w.off_v(wp));
            }
            float v = acc * sc.src * (sc.wei_n ? sc.wei_n[n] : sc.wei);
            if (bias) {
                for (int i = 0; i < nd; ++i) bp[i] = bmd.dims[i] == 1 ? 0 : pos[i];
                v += load_f32(b.data_type(), bias, b.off_v(bp));
            }
            const dim_t doff = d.off_v(pos);
            const float old = ap.empty() ? 0.f : load_f32(d.data_type(), dst, doff);
            v = ap.apply(v, old, pos) * sc.dst_inv;
            store_f32(d.data_type(), dst, doff, v);
        });
        return status::success;
    }
};

// --------------------------------------------------------------- GEMM-based

struct gemm_matmul_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, matmul_pd_t, gemm_matmul_t> {
        using desc_t = matmul_desc_t;
        using base = pd_impl_t<pd_t, matmul_pd_t, gemm_matmul_t>;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : base(d, a, hint) {}
        const char *name() const override { return "gemm:f32"; }

        gemm::plan_t plan;
        bool batch_parallel = false;
        int first_po = 0;
        float beta = 0.f;
        gemm::mat_view_t sv, wv, dv; // valid when !has_runtime_dims()

        status_t init(dnnl_engine *) override {
            status_t st = init_common();
            if (st != status::success) return st == status::unimplemented ? decline(name(), "attributes or data types") : st;
            for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
                if (md->data_type != dnnl_f32 || !mdw_t(md).is_plain())
                    return decline(name(), "needs plain f32 src, weights, dst");
            if (with_bias() && (bias_md_.data_type != dnnl_f32 || !mdw_t(bias_md_).is_plain()
                        || mdw_t(bias_md_).has_runtime_dims_or_strides()))
                return decline(name(), "needs a plain f32 bias");
            const auto &po = attr_.post_ops;
            const int nsum = (int)std::count_if(po.entries.begin(), po.entries.end(),
                    [](const post_op_t &e) { return e.kind == dnnl_sum; });
            const auto *ws = attr_.scales.get(DNNL_ARG_WEIGHTS);
            if (nsum > 1 || (nsum == 1 && (!gemm::sum_as_beta(po) || (ws && ws->mask != 0))))
                return decline(name(), "sum post-op other than a leading plain sum");
            if (gemm::sum_as_beta(po)) {
                first_po = 1;
                beta = po.entries[0].sum.scale;
            }
            // Orientation from the (possibly runtime) descriptors.
            sv = orient(src_md_);
            wv = orient(weights_md_);
            dv = gemm::view_2d(dst_md_, 0);
            if (!sv.ok || !wv.ok) return decline(name(), "operand strides");
            if (has_runtime_dims()) {
                if (dst_md_.blocking.strides[ndims() - 1] != 1) return decline(name(), "dst strides");
                dv.ok = true;
            } else if (!dv.ok) {
                return decline(name(), "dst must be row-major");
            }
            const int nd = ndims();
            const dim_t M = dst_md_.dims[nd - 2], N = dst_md_.dims[nd - 1], K = src_md_.dims[nd - 1];
            dim_t batch = 1;
            for (int d = 0; d < nd - 2; ++d) batch *= dst_md_.dims[d];
            const bool rt = has_runtime_dims();
            batch_parallel = !rt && batch > 1 && (double)M * N * K < 4e6;
            KESTREL_CHECK(plan.init(M, N, K, sv.trans, wv.trans, batch_parallel ? 1 : 0));
            plan.book(scratchpad_registry(), 0);
            return status::success;
        }

    private:
        // Row-major or transposed, decided by the stride that is exactly 1;
        // ld is only meaningful when dims and strides are known.
        static gemm::mat_view_t orient(const memory_desc_t &md) {
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
    };
    explicit gemm_matmul_t(const pd_t *pd) : primitive_t(pd) {}
    const pd_t *mpd() const { return static_cast<const pd_t *>(pd_.get()); }

    status_t execute(const exec_ctx_t &ctx) const override {
        const pd_t *pd = mpd();
        const bool rt = pd->has_runtime_dims();
        const memory_desc_t &smd = gemm::exec_md(ctx, DNNL_ARG_SRC, pd->src_md());
        const memory_desc_t &wmd = gemm::exec_md(ctx, DNNL_ARG_WEIGHTS, pd->weights_md(0));
        const memory_desc_t &dmd = gemm::exec_md(ctx, DNNL_ARG_DST, pd->dst_md());
        const memory_desc_t &bmd = *pd->weights_md(1);
        gemm::mat_view_t sv = pd->sv, wv = pd->wv, dv = pd->dv;
        if (rt) { // real leading dims, same orientation as planned
            sv = gemm::view_2d(smd, pd->plan.transa() ? 1 : 0);
            wv = gemm::view_2d(wmd, pd->plan.transb() ? 1 : 0);
            dv = gemm::view_2d(dmd, 0);
            if (!sv.ok || !wv.ok || !dv.ok) return status::unimplemented;
        }
        const mdw_t s(smd), w(wmd), d(dmd), b(bmd);
        const int nd = d.ndims();
        const dim_t M = d.dims()[nd - 2], N = d.dims()[nd - 1], K = s.dims()[nd - 1];
        const float *src = ctx.input<float>(DNNL_ARG_SRC);
        const float *wei = ctx.input<float>(DNNL_ARG_WEIGHTS);
        const float *bias = pd->with_bias() ? ctx.input<float>(DNNL_ARG_BIAS) : nullptr;
        float *dst = ctx.output<float>(DNNL_ARG_DST);

        gemm::scales_t sc;
        KESTREL_CHECK(sc.init(*pd->attr(), ctx));
        const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
        const float alpha = sc.src * (sc.wei_n ? 1.f : sc.wei);

        gemm::out_stage_t proto;
        proto.wei_n = sc.wei_n;
        proto.dst_inv = sc.dst_inv;
        proto.ap = &ap;
        proto.first_po = pd->first_po;
        proto.ndims = nd;
        if (bias) {
            proto.bias = bias;
            proto.bias_sm = bmd.dims[nd - 2] == 1 ? 0 : b.blk().strides[nd - 2];
            proto.bias_sn = bmd.dims[nd - 1] == 1 ? 0 : b.blk().strides[nd - 1];
        }
        const bool need_ep = !proto.trivial();

        dim_t batch = 1;
        for (int i = 0; i < nd - 2; ++i) batch *= d.dims()[i];
        // One GEMM of the batch: operand origins through the layout helper.
        auto one = [&](dim_t ib, int ithr, bool st) -> status_t {
            dim_t pos[max_ndims], p[max_ndims];
            dim_t r = ib;
            for (int i = nd - 3; i >= 0; --i) {
                pos[i] = r % d.dims()[i];
                r /= d.dims()[i];
            }
            pos[nd - 2] = pos[nd - 1] = 0;
            operand_pos(smd, pos, 0, 0, p);
            const float *A = src + s.off_v(p);
            operand_pos(wmd, pos, 0, 0, p);
            const float *B = wei + w.off_v(p);
            float *C = dst + d.off_v(pos);
            gemm::out_stage_t ep = proto;
            for (int i = 0; i < nd - 2; ++i) ep.pos[i] = pos[i];
            if (bias) {
                for (int i = 0; i < nd; ++i) p[i] = bmd.dims[i] == 1 ? 0 : pos[i];
                ep.bias = bias + b.off_v(p);
            }
            const gemm::epilogue_t *e = need_ep ? &ep : nullptr;
            return st ? pd->plan.execute_st(M, N, K, alpha, A, sv.ld, B, wv.ld, pd->beta, C, dv.ld,
                                ctx.scratchpad(), 0, ithr, e)
                      : pd->plan.execute(M, N, K, alpha, A, sv.ld, B, wv.ld, pd->beta, C, dv.ld,
                                ctx.scratchpad(), 0, e);
        };
        if (pd->batch_parallel) {
            std::atomic<bool> bad {false};
            const int nthr = ctx.scratchpad().nthr() > 1 ? ctx.scratchpad().nthr() : 1;
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
};

const impl_entry_t matmul_impl_list[] = {
        {"gemm:f32", make_pd<gemm_matmul_t::pd_t>},
        {"ref:any", make_pd<ref_matmul_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
