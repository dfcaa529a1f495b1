// int8 matmul on the int8 GEMM engine: see matmul_s8.hpp.
#include "cpu/gemm/matmul_s8.hpp"

#include <cmath>

#include "cpu/gemm/kernels_s8.hpp"
#include "cpu/gemm/matmul_out.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

// f32 to an integer type as store_f32 does it (NaN to 0, round to nearest
// even, saturate), but without a libm call per element so that rows
// vectorize: below 2^23 adding and removing 1.5 * 2^23 rounds to nearest
// even in the default rounding mode; from 2^23 on every f32 is an integer.
template <typename T>
inline T round_sat(float f, float lo, float hi) {
    if (f != f) return 0;
    const float magic = 12582912.f;
    float r = std::fabs(f) < 8388608.f ? (f + magic) - magic : f;
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    return (T)r;
}

// One row of f32 values into dst of type dt, from element `off`.
void store_row(data_type_t dt, void *dst, dim_t off, const float *t, dim_t n) {
    switch (dt) {
        case dnnl_f32: {
            float *d = static_cast<float *>(dst) + off;
            for (dim_t j = 0; j < n; ++j) d[j] = t[j];
            return;
        }
        case dnnl_s32: {
            // 2^31 and above saturate to INT32_MAX; 2147483520 is the
            // largest f32 below 2^31.
            int32_t *d = static_cast<int32_t *>(dst) + off;
            for (dim_t j = 0; j < n; ++j)
                d[j] = t[j] >= 2147483648.f ? INT32_MAX
                                            : round_sat<int32_t>(t[j], -2147483648.f, 2147483520.f);
            return;
        }
        case dnnl_s8: {
            int8_t *d = static_cast<int8_t *>(dst) + off;
            for (dim_t j = 0; j < n; ++j) d[j] = round_sat<int8_t>(t[j], -128.f, 127.f);
            return;
        }
        case dnnl_u8: {
            uint8_t *d = static_cast<uint8_t *>(dst) + off;
            for (dim_t j = 0; j < n; ++j) d[j] = round_sat<uint8_t>(t[j], 0.f, 255.f);
            return;
        }
        default:
            for (dim_t j = 0; j < n; ++j) store_f32(dt, dst, off + j, t[j]);
    }
}

// One GEMM's tiles into dst: the exact s32 sum minus src_zp * colsum(B),
// then as the float GEMM path does it: alpha * acc (+ beta * old dst for a
// leading sum), the output stage, dst's rounding and saturation.
class s8_out_t : public gemm::s8_epilogue_t {
public:
    const gemm::out_stage_t *stage = nullptr; // nullptr: nothing to apply
    float alpha = 1.f, beta = 0.f;
    int32_t src_zp = 0;
    char *dst = nullptr; // element (0, 0) of this GEMM's C
    data_type_t ddt = dnnl_f32;
    dim_t ldc = 0;

    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld,
            const int32_t *, const int32_t *col_sum) const override {
        if (!stage && beta == 0.f && !src_zp && alpha == 1.f && ddt == dnnl_s32) {
            // Plain s32 out: the value goes through f32 as below (integral,
            // so only the saturation at 2^31 is left to do).
            for (dim_t i = 0; i < m; ++i) {
                int32_t *d = reinterpret_cast<int32_t *>(dst) + (m0 + i) * ldc + n0;
                const int32_t *a = acc + i * ld;
                for (dim_t j = 0; j < n; ++j) {
                    const float f = (float)a[j];
                    d[j] = f >= 2147483648.f ? INT32_MAX : (int32_t)f;
                }
            }
            return;
        }
        float t[gemm::s8_max_mr * gemm::s8_max_nr];
        const uint32_t zp = (uint32_t)src_zp;
        for (dim_t i = 0; i < m; ++i) {
            const int32_t *a = acc + i * ld;
            float *ti = t + i * n;
            if (zp)
                for (dim_t j = 0; j < n; ++j)
                    ti[j] = alpha * (float)(int32_t)((uint32_t)a[j] - zp * (uint32_t)col_sum[j]);
            else
                for (dim_t j = 0; j < n; ++j) ti[j] = alpha * (float)a[j];
            if (beta != 0.f)
                for (dim_t j = 0; j < n; ++j)
                    ti[j] = std::fma(beta, load_f32(ddt, dst, (m0 + i) * ldc + n0 + j), ti[j]);
        }
        if (stage) stage->apply(m0, n0, m, n, t, n);
        for (dim_t i = 0; i < m; ++i) store_row(ddt, dst, (m0 + i) * ldc + n0, t + i * n, n);
    }
};

} // namespace

status_t s8_matmul_t::pd_t::init(dnnl_engine *) {
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
    plan.book(scratchpad_registry(), key_plan);
    if (with_bias()) scratchpad_registry().book(key_bias, gemm::bias_f32_t::bytes(bias_md_));
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
        s8_out_t ep;
        ep.stage = out.needed ? &stage : nullptr;
        ep.alpha = out.alpha;
        ep.beta = pd->beta;
        ep.src_zp = out.sc.src_zp;
        ep.dst = dst + d.off_v(pos) * d.dt_size();
        ep.ddt = d.data_type();
        ep.ldc = pd->dv.ld;
        KESTREL_CHECK(pd->plan.execute(src + s.off_v(sp) * s.dt_size(), pd->sv.ld,
                wei + w.off_v(wp), pd->wv.ld, ctx.scratchpad(), pd_t::key_plan, ep));
    }
    return status::success;
}

} // namespace kestrel
