#include <immintrin.h>

#include "cpu/isa.hpp"
#include "cpu/reorder/layout_util.hpp"
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/sum_pd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

status_t sum_base_pd_t::init_common(const char *impl) {
    if (!attr_.has_default_values()) return decline(impl, "attributes");
    return init_mds(impl);
}

// ------------------------------------------------------------ dense

namespace {

// Same placement of every element as the dst, whatever the data type.
bool same_layout(const memory_desc_t &a, const memory_desc_t &dst) {
    memory_desc_t t = a;
    t.data_type = dst.data_type;
    return md_equal(t, dst);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
void f32_sum_avx512(int n, const float *const *src, const float *scales, float *dst, dim_t b, dim_t e) {
    dim_t i = b;
    for (; i + 16 <= e; i += 16) {
        __m512 acc = _mm512_mul_ps(_mm512_set1_ps(scales[0]), _mm512_loadu_ps(src[0] + i));
        for (int k = 1; k < n; ++k)
            acc = _mm512_fmadd_ps(_mm512_set1_ps(scales[k]), _mm512_loadu_ps(src[k] + i), acc);
        _mm512_storeu_ps(dst + i, acc);
    }
    if (i < e) {
        __mmask16 m = (__mmask16)((1u << (e - i)) - 1);
        __m512 acc = _mm512_mul_ps(_mm512_set1_ps(scales[0]), _mm512_maskz_loadu_ps(m, src[0] + i));
        for (int k = 1; k < n; ++k)
            acc = _mm512_fmadd_ps(_mm512_set1_ps(scales[k]), _mm512_maskz_loadu_ps(m, src[k] + i), acc);
        _mm512_mask_storeu_ps(dst + i, m, acc);
    }
}

__attribute__((target("avx2,fma")))
void f32_sum_avx2(int n, const float *const *src, const float *scales, float *dst, dim_t b, dim_t e) {
    dim_t i = b;
    for (; i + 8 <= e; i += 8) {
        __m256 acc = _mm256_mul_ps(_mm256_set1_ps(scales[0]), _mm256_loadu_ps(src[0] + i));
        for (int k = 1; k < n; ++k)
            acc = _mm256_fmadd_ps(_mm256_set1_ps(scales[k]), _mm256_loadu_ps(src[k] + i), acc);
        _mm256_storeu_ps(dst + i, acc);
    }
    for (; i < e; ++i) {
        float acc = scales[0] * src[0][i];
        for (int k = 1; k < n; ++k) acc = std::fma(scales[k], src[k][i], acc);
        dst[i] = acc;
    }
}

} // namespace

status_t sum_dense_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    if (n() > max_srcs) return decline(name(), "too many sources");
    if (!mdw_t(dst_md_).is_dense(true)) return decline(name(), "dst not dense");
    all_f32 = dst_md_.data_type == dnnl_f32;
    for (int i = 0; i < n(); ++i) {
        const memory_desc_t &s = desc_.src_mds[(size_t)i];
        if (!same_layout(s, dst_md_)) return decline(name(), "layouts differ");
        all_f32 = all_f32 && s.data_type == dnnl_f32;
    }
    vec = 1;
    if (all_f32 && isa::has(isa::avx512))
        vec = 16;
    else if (all_f32 && isa::has(isa::avx2))
        vec = 8;
    return status::success;
}

status_t sum_dense_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const int n = p->n();
    const memory_desc_t &dmd = *p->dst_md();
    const dim_t nelems = mdw_t(dmd).nelems(true);
    const void *src[max_srcs];
    data_type_t sdt[max_srcs];
    for (int k = 0; k < n; ++k) {
        const memory_desc_t &s = *p->src_md(k);
        src[k] = ctx.input<char>(DNNL_ARG_MULTIPLE_SRC + k) + s.offset0 * data_type_size(s.data_type);
        sdt[k] = s.data_type;
    }
    void *dst = ctx.output<char>(DNNL_ARG_DST) + dmd.offset0 * data_type_size(dmd.data_type);
    const float *scales = p->scales();
    const data_type_t ddt = dmd.data_type;
    constexpr dim_t tile = 256;
    const dim_t ntiles = div_up(nelems, tile);

    parallel(nthr_for(ntiles, 16), [&](int ithr, int nthr) {
        dim_t tb, te;
        balance211(ntiles, nthr, ithr, tb, te);
        const dim_t b = tb * tile, e = std::min(nelems, te * tile);
        if (b >= e) return;
        if (p->vec == 16) {
            f32_sum_avx512(n, (const float *const *)src, scales, (float *)dst, b, e);
            return;
        }
        if (p->vec == 8) {
            f32_sum_avx2(n, (const float *const *)src, scales, (float *)dst, b, e);
            return;
        }
        float acc[tile];
        for (dim_t t = b; t < e; t += tile) {
            const dim_t len = std::min(tile, e - t);
            for (dim_t x = 0; x < len; ++x) acc[x] = scales[0] * load_f32(sdt[0], src[0], t + x);
            for (int k = 1; k < n; ++k)
                for (dim_t x = 0; x < len; ++x) acc[x] = std::fma(scales[k], load_f32(sdt[k], src[k], t + x), acc[x]);
            for (dim_t x = 0; x < len; ++x) store_f32(ddt, dst, t + x, acc[x]);
        }
    });
    return status::success;
}

// ------------------------------------------------------------ reference

status_t sum_ref_t::pd_t::init(dnnl_engine *) { return init_common(name()); }

status_t sum_ref_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const int n = p->n();
    const memory_desc_t &dmd = *p->dst_md();
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const float *scales = p->scales();
    for_each_dst_elem(dmd, dst, [&](const dim_t *pos, dim_t doff) {
        float acc = 0.f;
        for (int k = 0; k < n; ++k) {
            const memory_desc_t &smd = *p->src_md(k);
            const float v = load_f32(smd.data_type, ctx.input<char>(DNNL_ARG_MULTIPLE_SRC + k),
                    mdw_t(smd).off_v(pos));
            acc = k == 0 ? scales[0] * v : std::fma(scales[k], v, acc);
        }
        store_f32(dmd.data_type, dst, doff, acc);
    });
    return status::success;
}

} // namespace kestrel
