// Pooling forward with an 8-bit integer src on channel-innermost layouts
// (nhwc, nChw8c, nChw16c, 1D to 3D): every output point is a run of
// channels contiguous in src, dst and workspace. Sums and maxima are kept
// in s32, exactly (as oneDNN's s32 accumulator); the average is one f32
// division of the exact sum, rounded to nearest even and saturated, so the
// result equals the reference implementation's bit for bit. Accumulation
// over a run is AVX2 (8 channels a step) when the CPU has it, else plain
// loops; the final division and stores are plain loops the compiler
// vectorises.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include <immintrin.h>

#include "core/primitive.hpp"
#include "cpu/isa.hpp"
#include "cpu/pooling/pooling_pd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

template <typename S>
void run_max(int32_t *__restrict acc, const S *__restrict x, dim_t n) {
    for (dim_t i = 0; i < n; ++i) acc[i] = std::max(acc[i], (int32_t)x[i]);
}

template <typename S>
void run_max_idx(int32_t *__restrict acc, int32_t *__restrict idx, const S *__restrict x, dim_t n, int32_t k) {
    for (dim_t i = 0; i < n; ++i) {
        const int32_t v = x[i];
        const bool gt = v > acc[i];
        acc[i] = gt ? v : acc[i];
        idx[i] = gt ? k : idx[i];
    }
}

template <typename S>
void run_add(int32_t *__restrict acc, const S *__restrict x, dim_t n) {
    for (dim_t i = 0; i < n; ++i) acc[i] += x[i];
}

// AVX2 versions of the three runs, 8 channels per step (widened to s32
// with vpmovsxbd / vpmovzxbd), the tail through the plain loops above.
#define KESTREL_AVX2 __attribute__((target("avx2")))
template <typename S>
KESTREL_AVX2 inline __m256i widen8(const S *x) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(x));
    return std::is_signed<S>::value ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
}

template <typename S>
KESTREL_AVX2 void run_max_avx2(int32_t *acc, const S *x, dim_t n) {
    dim_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i *a = reinterpret_cast<__m256i *>(acc + i);
        _mm256_storeu_si256(a, _mm256_max_epi32(_mm256_loadu_si256(a), widen8(x + i)));
    }
    run_max(acc + i, x + i, n - i);
}

template <typename S>
KESTREL_AVX2 void run_max_idx_avx2(int32_t *acc, int32_t *idx, const S *x, dim_t n, int32_t k) {
    const __m256i kv = _mm256_set1_epi32(k);
    dim_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i *a = reinterpret_cast<__m256i *>(acc + i), *p = reinterpret_cast<__m256i *>(idx + i);
        const __m256i v = widen8(x + i), old = _mm256_loadu_si256(a);
        const __m256i gt = _mm256_cmpgt_epi32(v, old); // strictly greater: the first max wins
        _mm256_storeu_si256(a, _mm256_blendv_epi8(old, v, gt));
        _mm256_storeu_si256(p, _mm256_blendv_epi8(_mm256_loadu_si256(p), kv, gt));
    }
    run_max_idx(acc + i, idx + i, x + i, n - i, k);
}

template <typename S>
KESTREL_AVX2 void run_add_avx2(int32_t *acc, const S *x, dim_t n) {
    dim_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i *a = reinterpret_cast<__m256i *>(acc + i);
        _mm256_storeu_si256(a, _mm256_add_epi32(_mm256_loadu_si256(a), widen8(x + i)));
    }
    run_add(acc + i, x + i, n - i);
}
#undef KESTREL_AVX2

// dst[i] from acc[i]: the value itself (max) or acc / div (average), then
// the conversion to D: nearest even and saturation for integers.
template <typename D>
void run_store(D *__restrict dst, const int32_t *__restrict acc, dim_t n, bool avg, float div, float lo, float hi) {
    if (!avg) {
        const int32_t l = (int32_t)lo, h = (int32_t)hi;
        for (dim_t i = 0; i < n; ++i) dst[i] = (D)std::min(std::max(acc[i], l), h);
        return;
    }
    for (dim_t i = 0; i < n; ++i) {
        const float q = div != 0.f ? (float)acc[i] / div : 0.f;
        dst[i] = (D)std::min(std::max(std::nearbyint(q), lo), hi);
    }
}

void run_store_f32(float *__restrict dst, const int32_t *__restrict acc, dim_t n, bool avg, float div) {
    for (dim_t i = 0; i < n; ++i) dst[i] = avg ? (div != 0.f ? (float)acc[i] / div : 0.f) : (float)acc[i];
}

struct int8_pooling_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_acc = 1, key_idx = 2 };
    struct pd_t : pd_impl_t<pd_t, pooling_fwd_pd_t, int8_pooling_fwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            const char *me = "int8:pooling";
            KESTREL_CHECK(init_common());
            if (!pool::is_int8(src_md_.data_type)) return decline(me, "src is not s8/u8");
            if (!one_of(dst_md_.data_type, dnnl_s8, dnnl_u8, dnnl_f32, dnnl_f16)) return decline(me, "dst type");
            const pool::layout_t l = pool::classify(src_md_);
            if (!one_of(l, pool::layout_t::nspc, pool::layout_t::blocked8, pool::layout_t::blocked16))
                return decline(me, "src layout is not nhwc or nChw8c/16c");
            if (pool::classify(dst_md_) != l) return decline(me, "dst layout differs from src");
            if (mdw_t(src_md_).has_zero_dim() || mdw_t(dst_md_).has_zero_dim()) return decline(me, "empty tensor");
            run_ = l == pool::layout_t::nspc ? conf_.C : (l == pool::layout_t::blocked8 ? 8 : 16);
            nblk_ = div_up(conf_.C, run_);
            name_ = l == pool::layout_t::nspc ? "int8:nspc" : "int8:blocked";
            scratchpad_registry().book_per_thread(key_acc, sizeof(int32_t) * run_);
            if (conf_.with_ws) scratchpad_registry().book_per_thread(key_idx, sizeof(int32_t) * run_);
            return status::success;
        }
        dim_t run_ = 0, nblk_ = 0;
        const char *name_ = "int8";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        if (pd->src_md()->data_type == dnnl_s8) return execute_t<int8_t>(ctx);
        return execute_t<uint8_t>(ctx);
    }

    template <typename S>
    status_t execute_t(const exec_ctx_t &ctx) const {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const pooling_conf_t &c = pd->conf();
        const S *src = ctx.input<S>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        char *ws = c.with_ws ? ctx.output<char>(DNNL_ARG_WORKSPACE) : nullptr;
        const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md(), &wmd = *pd->workspace_md();
        const data_type_t ddt = dmd.data_type;
        const size_t dsz = data_type_size(ddt), wsz = ws ? data_type_size(wmd.data_type) : 0;
        dim_t ss[5], ds[5];
        pool_walk_strides(smd, ss);
        pool_walk_strides(dmd, ds);
        const dim_t L = pd->run_, NB = pd->nblk_;
        const bool blocked = NB > 1 || L != c.C;
        const bool avg = !c.is_max;
        const int32_t init = (int32_t)c.max_init;
        const float lo = ddt == dnnl_s8 ? -128.f : 0.f, hi = ddt == dnnl_s8 ? 127.f : 255.f;
        const dim_t work = c.MB * NB * c.OD * c.OH * c.OW;
        const int nthr_run = std::min(nthr_for(work, 4), ctx.scratchpad().nthr());
        bool oom = false;
        const bool avx2 = isa::has(isa::avx2);
        parallel(nthr_run, [&](int ithr, int nthr) {
            int32_t *acc = ctx.scratchpad().get<int32_t>(key_acc, ithr);
            int32_t *idx = ws ? ctx.scratchpad().get<int32_t>(key_idx, ithr) : nullptr;
            if (!acc || (ws && !idx)) {
                oom = true;
                return;
            }
            dim_t start, end;
            balance211(work, nthr, ithr, start, end);
            for (dim_t it = start; it < end; ++it) {
                dim_t r = it;
                const dim_t ow = r % c.OW; r /= c.OW;
                const dim_t oh = r % c.OH; r /= c.OH;
                const dim_t od = r % c.OD; r /= c.OD;
                const dim_t cb = r % NB, n = r / NB;
                // Real channels of this run (the last block may be partial).
                const dim_t nc = std::min(L, c.C - cb * L);
                const S *sb = src + smd.offset0 + n * ss[0] + cb * ss[1];
                for (dim_t i = 0; i < nc; ++i) acc[i] = avg ? 0 : init;
                if (idx) std::fill(idx, idx + nc, 0);
                dim_t count = 0;
                for_each_window_point(c, od, oh, ow, [&](dim_t kd, dim_t kh, dim_t kw, dim_t id, dim_t ih, dim_t iw) {
                    const S *x = sb + id * ss[2] + ih * ss[3] + iw * ss[4];
                    const int32_t k = (int32_t)((kd * c.KH + kh) * c.KW + kw);
                    if (avx2) {
                        if (avg) run_add_avx2(acc, x, nc);
                        else if (idx) run_max_idx_avx2(acc, idx, x, nc, k);
                        else run_max_avx2(acc, x, nc);
                    } else {
                        if (avg) run_add(acc, x, nc);
                        else if (idx) run_max_idx(acc, idx, x, nc, k);
                        else run_max(acc, x, nc);
                    }
                    ++count;
                });
                const dim_t doff = dmd.offset0 + n * ds[0] + cb * ds[1] + od * ds[2] + oh * ds[3] + ow * ds[4];
                const float div = (float)(c.exclude_padding ? count : c.KD * c.KH * c.KW);
                char *y = dst + doff * dsz;
                switch (ddt) {
                    case dnnl_s8: run_store((int8_t *)y, acc, nc, avg, div, lo, hi); break;
                    case dnnl_u8: run_store((uint8_t *)y, acc, nc, avg, div, lo, hi); break;
                    case dnnl_f32: run_store_f32((float *)y, acc, nc, avg, div); break;
                    default: // f16
                        for (dim_t i = 0; i < nc; ++i)
                            store_f32(ddt, y, i, avg ? (div != 0.f ? (float)acc[i] / div : 0.f) : (float)acc[i]);
                        break;
                }
                // The padded channels of a partial block stay zero.
                if (blocked && nc < L) std::memset(y + nc * dsz, 0, (L - nc) * dsz);
                if (ws) {
                    // The workspace has the dst layout in its own type.
                    char *w = ws + (doff - dmd.offset0 + wmd.offset0) * wsz;
                    if (wmd.data_type == dnnl_u8)
                        for (dim_t i = 0; i < L; ++i) ((uint8_t *)w)[i] = i < nc ? (uint8_t)idx[i] : 0;
                    else
                        for (dim_t i = 0; i < L; ++i) ((int32_t *)w)[i] = i < nc ? idx[i] : 0;
                }
            }
        });
        return oom ? status::out_of_memory : status::success;
    }
};

} // namespace

status_t create_int8_pooling_pd(pd_t **out, const op_desc_t *desc, const attr_t *attr, dnnl_engine *engine,
        const pd_t *hint) {
    return make_pd<int8_pooling_fwd_t::pd_t>(out, desc, attr, engine, hint);
}

} // namespace kestrel
