// int8 matmul on the int8 GEMM engine: see matmul_s8.hpp.
#include "cpu/gemm/matmul_s8.hpp"

#include <cmath>

#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/gemm/matmul_out.hpp"
#include "cpu/gemm/s8_out.hpp"
#include "cpu/types.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kestrel {

namespace {

#if defined(__x86_64__)
// Rows of n exact s32 sums into s32 dst through f32 (rounded to nearest
// even as the float path rounds them), saturated at 2^31: what
// store_s32_via_f32 does, 16 lanes at a time with the tail under a mask
// (the compiler's 4-lane loop was ~10% of a 1024^3 u8 x s8 -> s32 matmul).
__attribute__((target("avx512f"))) void s32_via_f32_rows_avx512(
        int32_t *d, dim_t ldc, const int32_t *acc, dim_t ld, dim_t m, dim_t n) {
    const __m512 big = _mm512_set1_ps(2147483648.f);
    const __m512i imax = _mm512_set1_epi32(INT32_MAX);
    const __mmask16 tail = (__mmask16)((1u << (n % 16)) - 1);
    for (dim_t i = 0; i < m; ++i) {
        int32_t *c = d + i * ldc;
        const int32_t *a = acc + i * ld;
        for (dim_t j = 0; j < n; j += 16) {
            const __mmask16 k = j + 16 <= n ? (__mmask16)0xffff : tail;
            const __m512 f = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, a + j));
            const __m512i r = _mm512_mask_mov_epi32(
                    _mm512_cvttps_epi32(f), _mm512_cmp_ps_mask(f, big, _CMP_GE_OQ), imax);
            _mm512_mask_storeu_epi32(c + j, k, r);
        }
    }
}
#endif

// s8_out_t with the plain s32 output (no stage, beta 0, no zero point,
// alpha 1) in AVX-512.
class matmul_s8_out_t : public gemm::s8_out_t {
public:
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld,
            const int32_t *row_sum, const int32_t *col_sum) const override {
#if defined(__x86_64__)
        if (!stage && beta == 0.f && !src_zp && alpha == 1.f && ddt == dnnl_s32
                && isa::has(isa::avx512)) {
            s32_via_f32_rows_avx512(
                    reinterpret_cast<int32_t *>(dst) + m0 * ldc + n0, ldc, acc, ld, m, n);
            return;
        }
#endif
        gemm::s8_out_t::apply(m0, n0, m, n, acc, ld, row_sum, col_sum);
    }
};

} // namespace

status_t s8_matmul_t::pd_t::init(dnnl_engine *) {
    // 2D weights `any`, or already in the packed layout (a descriptor
    // taken from an earlier query): planned as plain ab, then laid out
    // packed so that the user's reorder packs them once.
    const bool w2d = weights_md_.ndims == 2 && weights_md_.dims[0] > 0 && weights_md_.dims[1] > 0
            && weights_md_.data_type == dnnl_s8;
    const dim_t nr = gemm::s8_kernel_nr();
    gemm::panels_b_t req;
    KESTREL_CHECK(gemm::panels_b_request(weights_md_, w2d, 1, nr, 4, req));
    const bool want_packed = req != gemm::panels_b_t::no;
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
    KESTREL_CHECK(gemm::panels_b_settle(name(), req, packed_w, plan.nr(), nr));
    plan.book(scratchpad_registry(), key_plan, !packed_w);
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
    if (packed_w) {
        weights_md_ = gemm::panels_b_md(weights_md_, 1, nr, 4);
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
        matmul_s8_out_t ep;
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
