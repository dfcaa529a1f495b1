// int8 matmul on the int8 GEMM engine: see matmul_s8.hpp.
#include "cpu/gemm/matmul_s8.hpp"

#include <cmath>

#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/gemm/matmul_out.hpp"
#include "cpu/gemm/s8_out.hpp"
#include "cpu/types.hpp"

namespace kestrel {

status_t s8_matmul_t::pd_t::init(dnnl_engine *) {
    // 2D weights `any`, or already in the packed layout (a descriptor
    // taken from an earlier query): planned as plain ab, then laid out
    // packed so that the user's reorder packs them once.
    const bool w2d = weights_md_.ndims == 2 && weights_md_.dims[0] > 0 && weights_md_.dims[1] > 0
            && weights_md_.data_type == dnnl_s8;
    const dim_t nr = gemm::s8_kernel_nr();
    bool want_packed = false;
    KESTREL_CHECK(gemm::s8_wants_packed_b(weights_md_, w2d, 1, nr, want_packed));
    KESTREL_CHECK(gemm::decline_common(name(), init_common()));
    if (!is_int8() || weights_md_.data_type != dnnl_s8)
        return decline(name(), "needs u8/s8 src and s8 weights");
    if (has_runtime_dims()) return decline(name(), "runtime dims");
    for (const memory_desc_t *md : {&src_md_, &weights_md_, &dst_md_})
        if (!mdw_t(md).is_plain()) return decline(name(), "needs plain src, weights, dst");
    if (attr_.zero_points.get(DNNL_ARG_WEIGHTS)) return decline(name(), "weights zero points");
    if (with_bias() && !mdw_t(bias_md_).is_plain()) return decline(name(), "needs a plain bias");
    if (!gemm::plan_sum(attr_, first_po, beta))
        return decline(name(), "sum post-op other than a leading plain sum");
    if (attr_.dropout && first_po > 0) return decline(name(), "dropout before a sum post-op");
    sv = gemm::view_2d(src_md_);
    wv = gemm::view_2d(weights_md_);
    dv = gemm::view_2d(dst_md_, 0);
    if (!sv.ok || !wv.ok || !dv.ok) return decline(name(), "operand strides");
    const int nd = ndims();
    const dim_t M = dst_md_.dims[nd - 2], N = dst_md_.dims[nd - 1], K = src_md_.dims[nd - 1];
    const bool src_zp = attr_.zero_points.get(DNNL_ARG_SRC) != nullptr;
    KESTREL_CHECK(plan.init(M, N, K, sv.trans, wv.trans, src_md_.data_type == dnnl_s8, false, src_zp));
    packed_w = want_packed && nd == 2 && !wv.trans && M > 0;
    if (packed_w && plan.nr() != nr) return decline(name(), "kernel changed during creation");
    plan.book(scratchpad_registry(), key_plan, !packed_w);
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
    if (packed_w) {
        weights_md_ = gemm::s8_packed_b_md(weights_md_, 1, nr);
        if (plan.needs_col_sums())
            scratchpad_registry().book(key_csum, (size_t)rnd_up(N, nr) * sizeof(int32_t));
    }
    return status::success;
}

status_t s8_matmul_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const memory_desc_t &smd = *pd->src_md(), &wmd = *pd->weights_md(0);
    const memory_desc_t &dmd = *pd->dst_md();
    const mdw_t s(smd), w(wmd), d(dmd);
    const int nd = d.ndims();
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    const int8_t *wei = ctx.input<int8_t>(DNNL_ARG_WEIGHTS);
    char *dst = ctx.output<char>(DNNL_ARG_DST);

    matmul_out_t out(*pd, ctx, dmd);
    KESTREL_CHECK(out.init(pd->first_po, pd_t::key_bias));

    dim_t batch = 1;
    for (int i = 0; i < nd - 2; ++i) batch *= d.dims()[i];
    for (dim_t ib = 0; ib < batch; ++ib) {
        dim_t pos[max_ndims], sp[max_ndims], wp[max_ndims];
        matmul_batch_origin(dmd, smd, wmd, ib, pos, sp, wp);
        const gemm::out_stage_t stage = out.stage_at(pos, wmd, wp);
        gemm::s8_out_t ep;
        ep.stage = out.needed ? &stage : nullptr;
        ep.alpha = out.alpha;
        ep.beta = pd->beta;
        ep.src_zp = out.sc.src_zp;
        ep.dst = dst + d.off_v(pos) * d.dt_size();
        ep.ddt = d.data_type();
        ep.ldc = pd->dv.ld;
        if (pd->packed_w) { // 2D: one GEMM; weights are the panels
            int32_t *csum = nullptr;
            if (pd->plan.needs_col_sums()) {
                csum = ctx.scratchpad().get<int32_t>(pd_t::key_csum);
                if (!csum) return status::out_of_memory;
                pd->plan.packed_col_sums(wei, csum);
            }
            KESTREL_CHECK(pd->plan.execute(src + s.off_v(sp) * s.dt_size(), pd->sv.ld, nullptr, 0,
                    ctx.scratchpad(), pd_t::key_plan, ep, wei + pd->weights_md(0)->offset0, csum));
            continue;
        }
        KESTREL_CHECK(pd->plan.execute(src + s.off_v(sp) * s.dt_size(), pd->sv.ld,
                wei + w.off_v(wp), pd->wv.ld, ctx.scratchpad(), pd_t::key_plan, ep));
    }
    return status::success;
}

} // namespace kestrel
