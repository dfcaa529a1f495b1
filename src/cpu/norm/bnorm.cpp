// Batch normalization forward: a reference implementation for any layout and
// every flag, and a vectorised one for nchw / nhwc / nChw8c / nChw16c.
// Statistics are two-pass (mean, then the mean of squared deviations), so a
// constant input has variance 0 and large offsets cost no precision; dense
// f32 nChw16c on AVX-512 does the two passes per cache-resident run of
// points and combines the runs exactly (one pass over memory).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <immintrin.h>

#include "core/primitive.hpp"
#include "cpu/eltwise/common.hpp"
#include "cpu/isa.hpp"
#include "cpu/norm/bnorm_pd.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// dst = (src - m) * a + b (then max(., 0) with relu) over `np` points of
// one 16-channel block of dense f32 nChw16c: the operations of
// vec_ops_t::affine, with m, a and b loaded once per run instead of once
// per 16 values. nt (y 64-byte aligned): non-temporal stores, which skip
// reading each dst line into the cache before writing it (a third of the
// memory traffic of a large tensor); the fence makes them visible to the
// other threads before this run counts as done. The loop is specialised
// per (nt, relu): with both tests inside it (-O2 does not unswitch loops)
// the stream ran ~10% slower.
template <bool NT, bool RELU>
__attribute__((target("avx512f"))) inline void affine_blk16_loop(
        float *y, const float *x, __m512 vm, __m512 va, __m512 vb, dim_t np) {
    const __m512 z = _mm512_setzero_ps();
    for (dim_t p = 0; p < np; ++p) {
        __m512 r = _mm512_fmadd_ps(_mm512_sub_ps(_mm512_loadu_ps(x + p * 16), vm), va, vb);
        if (RELU) r = _mm512_max_ps(r, z);
        if (NT)
            _mm512_stream_ps(y + p * 16, r);
        else
            _mm512_storeu_ps(y + p * 16, r);
    }
}

__attribute__((target("avx512f"))) void affine_blk16_f32(float *y, const float *x, const float *m,
        const float *a, const float *b, dim_t np, bool relu, bool nt) {
    const __m512 vm = _mm512_loadu_ps(m), va = _mm512_loadu_ps(a), vb = _mm512_loadu_ps(b);
    if (nt) {
        if (relu)
            affine_blk16_loop<true, true>(y, x, vm, va, vb, np);
        else
            affine_blk16_loop<true, false>(y, x, vm, va, vb, np);
        _mm_sfence();
    } else if (relu) {
        affine_blk16_loop<false, true>(y, x, vm, va, vb, np);
    } else {
        affine_blk16_loop<false, false>(y, x, vm, va, vb, np);
    }
}

// Non-temporal stores pay off when dst is too large to be read back from
// the cache by the next primitive anyway; below this size a cached dst
// is worth more than the saved traffic.
constexpr size_t nt_store_min_bytes = size_t(4) << 20;

// The moments of one run of np points of one 16-channel block of dense
// f32 nChw16c (channels in lanes): m = the run's mean (rounded), s1 =
// sum (x - m), s2 = sum (x - m)^2. Two passes over the run, which is
// small enough (at most 512 points, 32 KiB) for the second to read it
// from L1: one pass over memory instead of two, and the squares are still
// of deviations from a mean of the very values summed.
__attribute__((target("avx512f"))) void run_moments_blk16_f32(
        const float *x, dim_t np, float *m, float *s1, float *s2) {
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    dim_t p = 0;
    for (; p + 4 <= np; p += 4) {
        a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + p * 16));
        a1 = _mm512_add_ps(a1, _mm512_loadu_ps(x + p * 16 + 16));
        a2 = _mm512_add_ps(a2, _mm512_loadu_ps(x + p * 16 + 32));
        a3 = _mm512_add_ps(a3, _mm512_loadu_ps(x + p * 16 + 48));
    }
    for (; p < np; ++p) a0 = _mm512_add_ps(a0, _mm512_loadu_ps(x + p * 16));
    const __m512 vm = _mm512_div_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
            _mm512_set1_ps((float)np));
    __m512 l0 = _mm512_setzero_ps(), l1 = l0, q0 = l0, q1 = l0;
    for (p = 0; p + 2 <= np; p += 2) {
        const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + p * 16), vm);
        const __m512 d1 = _mm512_sub_ps(_mm512_loadu_ps(x + p * 16 + 16), vm);
        l0 = _mm512_add_ps(l0, d0);
        l1 = _mm512_add_ps(l1, d1);
        q0 = _mm512_fmadd_ps(d0, d0, q0);
        q1 = _mm512_fmadd_ps(d1, d1, q1);
    }
    if (p < np) {
        const __m512 d0 = _mm512_sub_ps(_mm512_loadu_ps(x + p * 16), vm);
        l0 = _mm512_add_ps(l0, d0);
        q0 = _mm512_fmadd_ps(d0, d0, q0);
    }
    _mm512_storeu_ps(m, vm);
    _mm512_storeu_ps(s1, _mm512_add_ps(l0, l1));
    _mm512_storeu_ps(s2, _mm512_add_ps(q0, q1));
}

// Statistics over channel-innermost runs: acc[i] (i < n <= 16) gets the
// sum over np points, st bytes apart, of x[i] (SQ: of (x[i] - mean[i])^2).
// Four accumulators in turn hide the add latency; their order differs
// from the reference's, which the tests allow for.
// FULL: all 16 lanes valid, a plain load (masked ones cost here).
template <bool BF, bool SQ, bool FULL>
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline __m512 stat_term_avx512(
        const char *q, __mmask16 m, __m512 vm, __m512 acc) {
    __m512 v = BF ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, q)), 16))
            : FULL ? _mm512_loadu_ps(q)
                   : _mm512_maskz_loadu_ps(m, q);
    if (!SQ) return _mm512_add_ps(acc, v);
    v = _mm512_sub_ps(v, vm);
    return _mm512_fmadd_ps(v, v, acc);
}

template <bool BF, bool SQ, bool FULL>
__attribute__((target("avx512f,avx512bw,avx512vl"))) inline void stat_loop_avx512(
        float *acc, const char *x, dim_t st, dim_t np, const float *mean, __mmask16 m) {
    const __m512 vm = SQ ? _mm512_maskz_loadu_ps(m, mean) : _mm512_setzero_ps();
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    dim_t p = 0;
    for (; p + 4 <= np; p += 4) {
        const char *q = x + p * st;
        a0 = stat_term_avx512<BF, SQ, FULL>(q, m, vm, a0);
        a1 = stat_term_avx512<BF, SQ, FULL>(q + st, m, vm, a1);
        a2 = stat_term_avx512<BF, SQ, FULL>(q + 2 * st, m, vm, a2);
        a3 = stat_term_avx512<BF, SQ, FULL>(q + 3 * st, m, vm, a3);
    }
    for (; p < np; ++p) a0 = stat_term_avx512<BF, SQ, FULL>(x + p * st, m, vm, a0);
    _mm512_mask_storeu_ps(acc, m, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
}

template <bool BF, bool SQ>
__attribute__((target("avx512f,avx512bw,avx512vl"))) void stat_run_avx512(
        float *acc, const char *x, dim_t st, dim_t np, const float *mean, dim_t n) {
    const __mmask16 m = (__mmask16)((1u << n) - 1);
    if (!BF && n == 16)
        stat_loop_avx512<BF, SQ, true>(acc, x, st, np, mean, m);
    else
        stat_loop_avx512<BF, SQ, false>(acc, x, st, np, mean, m);
}

// The same for f32 on AVX2: 16 channels as two halves under lane masks.
template <bool SQ>
__attribute__((target("avx2,fma"))) inline void stat_term_avx2(
        const char *q, __m256i m0, __m256i m1, __m256 vm0, __m256 vm1, __m256 &s0, __m256 &s1) {
    const float *f = reinterpret_cast<const float *>(q);
    __m256 v0 = _mm256_maskload_ps(f, m0);
    __m256 v1 = _mm256_maskload_ps(f + 8, m1);
    if (SQ) {
        v0 = _mm256_sub_ps(v0, vm0);
        v1 = _mm256_sub_ps(v1, vm1);
        s0 = _mm256_fmadd_ps(v0, v0, s0);
        s1 = _mm256_fmadd_ps(v1, v1, s1);
    } else {
        s0 = _mm256_add_ps(s0, v0);
        s1 = _mm256_add_ps(s1, v1);
    }
}

template <bool SQ>
__attribute__((target("avx2,fma"))) void stat_run_avx2_f32(
        float *acc, const char *x, dim_t st, dim_t np, const float *mean, dim_t n) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lane);
    const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n - 8), lane);
    const __m256 vm0 = SQ ? _mm256_maskload_ps(mean, m0) : _mm256_setzero_ps();
    const __m256 vm1 = SQ ? _mm256_maskload_ps(mean + 8, m1) : _mm256_setzero_ps();
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, b0 = a0, b1 = a0; // even and odd points
    dim_t p = 0;
    for (; p + 2 <= np; p += 2) {
        stat_term_avx2<SQ>(x + p * st, m0, m1, vm0, vm1, a0, a1);
        stat_term_avx2<SQ>(x + (p + 1) * st, m0, m1, vm0, vm1, b0, b1);
    }
    if (p < np) stat_term_avx2<SQ>(x + p * st, m0, m1, vm0, vm1, a0, a1);
    _mm256_maskstore_ps(acc, m0, _mm256_add_ps(a0, b0));
    if (n > 8) _mm256_maskstore_ps(acc + 8, m1, _mm256_add_ps(a1, b1));
}

using stat_run_fn_t = void (*)(float *, const char *, dim_t, dim_t, const float *, dim_t);

// The register kernel for this ISA and type; nullptr: vec_ops per point.
stat_run_fn_t stat_run_kernel(bool bf, bool sq) {
    if (isa::has(isa::avx512)) {
        if (bf) return sq ? stat_run_avx512<true, true> : stat_run_avx512<true, false>;
        return sq ? stat_run_avx512<false, true> : stat_run_avx512<false, false>;
    }
    if (isa::has(isa::avx2) && !bf) return sq ? stat_run_avx2_f32<true> : stat_run_avx2_f32<false>;
    return nullptr;
}

struct ref_bnorm_fwd_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, bnorm_fwd_pd_t, ref_bnorm_fwd_t> {
        using desc_t = bnorm_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "ref:any"; }
        status_t init(dnnl_engine *) override { return init_common(); }
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const mdw_t s(pd->src_md()), d(pd->dst_md());
        const void *src = ctx.input(DNNL_ARG_SRC);
        const void *src1 = pd->fuse_add() ? ctx.input(DNNL_ARG_SRC_1) : nullptr;
        void *dst = ctx.output(DNNL_ARG_DST);
        const float *scale = pd->use_scale() ? ctx.input<float>(DNNL_ARG_SCALE) : nullptr;
        const float *shift = pd->use_shift() ? ctx.input<float>(DNNL_ARG_SHIFT) : nullptr;
        float *mean_out = pd->stats_out() ? ctx.output<float>(DNNL_ARG_MEAN) : nullptr;
        float *var_out = pd->stats_out() ? ctx.output<float>(DNNL_ARG_VARIANCE) : nullptr;
        const float *mean_in = pd->global_stats() ? ctx.input<float>(DNNL_ARG_MEAN) : nullptr;
        const float *var_in = pd->global_stats() ? ctx.input<float>(DNNL_ARG_VARIANCE) : nullptr;
        uint8_t *ws = pd->with_ws() ? ctx.output<uint8_t>(DNNL_ARG_WORKSPACE) : nullptr;
        const int nd = s.ndims();
        const dim_t N = s.dims()[0], C = s.dims()[1];
        dim_t SP = 1;
        for (int i = 2; i < nd; ++i) SP *= s.dims()[i];
        const float eps = pd->desc()->epsilon;
        const bool relu = pd->fuse_relu();
        const bool po_relu = pd->relu_post_op();
        const float po_alpha = pd->relu_alpha();
        const data_type_t sdt = s.data_type(), ddt = d.data_type();
        parallel_nd(C, [&](dim_t c) {
            dim_t pos[max_ndims];
            auto at = [&](dim_t n, dim_t sp) {
                pos[0] = n;
                pos[1] = c;
                for (int i = nd - 1; i >= 2; --i) {
                    pos[i] = sp % s.dims()[i];
                    sp /= s.dims()[i];
                }
                return pos;
            };
            float mean, var;
            if (mean_in) {
                mean = mean_in[c];
                var = var_in[c];
            } else {
                float sum = 0.f;
                for (dim_t n = 0; n < N; ++n)
                    for (dim_t sp = 0; sp < SP; ++sp) sum += load_f32(sdt, src, s.off_v(at(n, sp)));
                mean = N * SP > 0 ? sum / (float)(N * SP) : 0.f;
                float sq = 0.f;
                for (dim_t n = 0; n < N; ++n)
                    for (dim_t sp = 0; sp < SP; ++sp) {
                        float dv = load_f32(sdt, src, s.off_v(at(n, sp))) - mean;
                        sq += dv * dv;
                    }
                var = N * SP > 0 ? sq / (float)(N * SP) : 0.f;
                if (mean_out) {
                    mean_out[c] = mean;
                    var_out[c] = var;
                }
            }
            const float a = (scale ? scale[c] : 1.f) / std::sqrt(var + eps);
            const float b = shift ? shift[c] : 0.f;
            for (dim_t n = 0; n < N; ++n)
                for (dim_t sp = 0; sp < SP; ++sp) {
                    const dim_t off = s.off_v(at(n, sp));
                    float v = (load_f32(sdt, src, off) - mean) * a + b;
                    if (src1) v += load_f32(sdt, src1, off);
                    if (ws) ws[off - s.md().offset0] = v > 0.f ? 1 : 0;
                    if (relu && v < 0.f) v = 0.f;
                    if (po_relu && !(v > 0.f)) v *= po_alpha;
                    store_f32(ddt, dst, d.off_v(pos), v);
                }
        });
        elt::zero_padding(d.md(), dst);
        return status::success;
    }
};

// Vectorised: nchw (runs over spatial points of one channel) and
// nhwc / nChw8c / nChw16c (runs over channels of one point). Fused add
// (and the training workspace with a bf16 dst) are left to the reference
// implementation.
struct vec_bnorm_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_part = 1, key_stats = 2 };
    struct pd_t : pd_impl_t<pd_t, bnorm_fwd_pd_t, vec_bnorm_fwd_t> {
        using desc_t = bnorm_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return name_; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            if (fuse_add()) return decline("vec:bnorm", "fused add");
            // The relu mask is read back from an f32 dst (y > 0 exactly
            // where the value before the relu was); a bf16 dst could round a
            // tiny positive value to 0.
            if (with_ws() && dst_md_.data_type != dnnl_f32) return decline("vec:bnorm", "workspace with bf16 dst");
            if (relu_alpha() != 0.f) return decline("vec:bnorm", "leaky relu post-op");
            if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type))
                return decline("vec:bnorm", "not f32/bf16");
            layout_ = pool::classify(src_md_);
            if (layout_ == pool::layout_t::other || pool::classify(dst_md_) != layout_)
                return decline("vec:bnorm", "layout");
            const dim_t c = C();
            // Channels per run: a block, or all of them for nhwc.
            blk_ = layout_ == pool::layout_t::blocked8 ? 8
                    : layout_ == pool::layout_t::blocked16 ? 16
                    : layout_ == pool::layout_t::nspc ? std::max<dim_t>(c, 1) : 1;
            cp_ = rnd_up(c, blk_);
            name_ = layout_ == pool::layout_t::ncsp ? "vec:ncsp" : layout_ == pool::layout_t::nspc ? "vec:nspc" : "vec:blocked";
            // mean, variance, a (= scale * rstd), b (= shift), padded to cp_.
            scratchpad_registry().book(key_stats, sizeof(float) * 4 * cp_);
            if (layout_ != pool::layout_t::ncsp && !global_stats())
                scratchpad_registry().book_per_thread(key_part, sizeof(double) * 2 * cp_);
            return status::success;
        }
        pool::layout_t layout_ = pool::layout_t::other;
        dim_t blk_ = 1, cp_ = 0;
        const char *name_ = "vec";
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const auto &ops = pool::vec_ops();
        const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md();
        const char *src = ctx.input<char>(DNNL_ARG_SRC);
        char *dst = ctx.output<char>(DNNL_ARG_DST);
        const float *scale = pd->use_scale() ? ctx.input<float>(DNNL_ARG_SCALE) : nullptr;
        const float *shift = pd->use_shift() ? ctx.input<float>(DNNL_ARG_SHIFT) : nullptr;
        float *stats = ctx.scratchpad().get<float>(key_stats);
        if (!stats) return status::out_of_memory;
        const dim_t C = pd->C(), CP = pd->cp_, B = pd->blk_;
        float *mean = stats, *var = stats + CP, *a = stats + 2 * CP, *b = stats + 3 * CP;
        const int nd = smd.ndims;
        const dim_t N = smd.dims[0];
        dim_t SP = 1;
        for (int i = 2; i < nd; ++i) SP *= smd.dims[i];
        const data_type_t sdt = smd.data_type, ddt = dmd.data_type;
        const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
        const bool ncsp = pd->layout_ == pool::layout_t::ncsp;
        // Element strides: n, channel (block), spatial point.
        const dim_t sn = smd.blocking.strides[0], sc = smd.blocking.strides[1];
        const dim_t dn = dmd.blocking.strides[0], dc = dmd.blocking.strides[1];
        const dim_t ssp = nd > 2 ? smd.blocking.strides[nd - 1] : 0, dsp = nd > 2 ? dmd.blocking.strides[nd - 1] : 0;
        const dim_t NB = CP / B, L = ncsp ? SP : B;
        uint8_t *ws = pd->with_ws() ? ctx.output<uint8_t>(DNNL_ARG_WORKSPACE) : nullptr;
        // The mask of n elements of dst at element offset doff (src offset
        // soff): 1 where dst > 0 (f32 dst only, see init).
        auto mask = [&](dim_t soff, dim_t doff, dim_t n) {
            const float *y = reinterpret_cast<const float *>(dst) + doff;
            uint8_t *w = ws + soff - smd.offset0;
            for (dim_t i = 0; i < n; ++i) w[i] = y[i] > 0.f ? 1 : 0;
        };
        const dim_t cnt = N * SP;
        std::fill(mean, mean + 4 * CP, 0.f);

        if (pd->global_stats()) {
            std::copy(ctx.input<float>(DNNL_ARG_MEAN), ctx.input<float>(DNNL_ARG_MEAN) + C, mean);
            std::copy(ctx.input<float>(DNNL_ARG_VARIANCE), ctx.input<float>(DNNL_ARG_VARIANCE) + C, var);
        } else if (ncsp) {
            parallel_nd(C, [&](dim_t c) {
                float s = 0.f;
                for (dim_t n = 0; n < N; ++n) s += ops.sum(src + (smd.offset0 + n * sn + c * sc) * ssz, sdt, SP);
                const float m = cnt ? s / (float)cnt : 0.f;
                float q = 0.f;
                for (dim_t n = 0; n < N; ++n)
                    q += ops.sq_dev_sum(src + (smd.offset0 + n * sn + c * sc) * ssz, sdt, m, SP);
                mean[c] = m;
                var[c] = cnt ? q / (float)cnt : 0.f;
            });
        } else if (B == 16 && L == 16 && sdt == dnnl_f32 && ssp == 16 && isa::has(isa::avx512)) {
            // Dense f32 nChw16c: one pass over memory. Each run of points
            // gives its own mean m_r and the sums s1, s2 of deviations
            // from it (run_moments_blk16_f32); they are folded, in double,
            // into the sums of deviations from a fixed per-channel shift
            // k (the channel's first value): sum (x - k) = s1 + n (m_r - k)
            // and sum (x - k)^2 = s2 + 2 (m_r - k) s1 + n (m_r - k)^2, exact
            // identities. Then mean = k + S1 / cnt and variance =
            // S2 / cnt - (S1 / cnt)^2, whose cancellation is that of
            // values near the data's spread, in double. The float
            // roundings are those of sums over one run of deviations
            // from its mean (within the two-pass budget the tests derive,
            // for |m_r - k| within a few standard deviations).
            const dim_t run = 512, nrun = div_up(SP, run);
            const dim_t items = N * NB * nrun;
            // k in a (computed after the statistics); padded channels
            // keep 0 there, as the affine pass needs.
            float *shift_k = a;
            for (dim_t c = 0; cnt && c < C; ++c)
                shift_k[c] = reinterpret_cast<const float *>(src)[smd.offset0 + (c / 16) * sc + c % 16];
            const int nthr = std::min(ctx.scratchpad().nthr(), nthr_for(items * std::min(SP, run) * 16, 4096));
            bool oom = false;
            parallel(nthr, [&](int ithr, int nt) {
                double *part = ctx.scratchpad().get<double>(key_part, ithr);
                if (!part) {
                    oom = true;
                    return;
                }
                double *p1 = part, *p2 = part + CP;
                std::fill(part, part + 2 * CP, 0.0);
                dim_t st, en;
                balance211(items, nt, ithr, st, en);
                float m[16], s1[16], s2[16];
                for (dim_t it = st; it < en; ++it) {
                    const dim_t r = it % nrun, cb = it / nrun % NB, n = it / nrun / NB;
                    const dim_t sp0 = r * run, np = std::min(SP, sp0 + run) - sp0;
                    run_moments_blk16_f32(reinterpret_cast<const float *>(src) + smd.offset0 + n * sn + cb * sc + sp0 * 16,
                            np, m, s1, s2);
                    for (int i = 0; i < 16; ++i) {
                        const dim_t c = cb * 16 + i;
                        const double d = (double)m[i] - shift_k[c];
                        p1[c] += s1[i] + (double)np * d;
                        p2[c] += s2[i] + 2.0 * d * s1[i] + (double)np * d * d;
                    }
                }
            });
            if (oom) return status::out_of_memory;
            for (dim_t c = 0; c < C; ++c) {
                double t1 = 0.0, t2 = 0.0;
                for (int t = 0; t < nthr; ++t) {
                    const double *part = ctx.scratchpad().get<double>(key_part, t);
                    t1 += part[c];
                    t2 += part[CP + c];
                }
                const double dm = cnt ? t1 / (double)cnt : 0.0;
                mean[c] = (float)(shift_k[c] + dm);
                var[c] = cnt ? (float)std::max(t2 / (double)cnt - dm * dm, 0.0) : 0.f;
            }
        } else {
            // Items are runs of up to `run` points of one (n, channel block)
            // (of one n for nhwc), walked in memory order with the channels
            // in vector lanes; each thread adds its items' sums into its own
            // partial sums (double) in the scratchpad, merged at the end.
            // Two passes: the mean, then the squared deviations from it.
            const dim_t run = 256, nrun = div_up(SP, run);
            const dim_t items = N * NB * nrun;
            const int nthr = std::min(ctx.scratchpad().nthr(), nthr_for(items * std::min(SP, run) * L, 4096));
            for (int pass = 0; pass < 2; ++pass) {
                const stat_run_fn_t kern = stat_run_kernel(sdt == dnnl_bf16, pass == 1);
                bool oom = false;
                parallel(nthr, [&](int ithr, int nt) {
                    double *part = ctx.scratchpad().get<double>(key_part, ithr);
                    if (!part) {
                        oom = true;
                        return;
                    }
                    std::fill(part, part + CP, 0.0);
                    dim_t st, en;
                    balance211(items, nt, ithr, st, en);
                    float acc[16];
                    for (dim_t it = st; it < en; ++it) {
                        const dim_t r = it % nrun, cb = it / nrun % NB, n = it / nrun / NB;
                        const dim_t sp0 = r * run, np = std::min(SP, sp0 + run) - sp0;
                        const char *x0 = src + (smd.offset0 + n * sn + cb * sc + sp0 * ssp) * ssz;
                        for (dim_t c0 = 0; c0 < L; c0 += 16) {
                            const dim_t nl = std::min<dim_t>(16, L - c0);
                            const char *x = x0 + c0 * ssz;
                            const float *mc = mean + cb * B + c0;
                            if (kern) {
                                kern(acc, x, ssp * (dim_t)ssz, np, mc, nl);
                            } else {
                                std::fill(acc, acc + nl, 0.f);
                                for (dim_t p = 0; p < np; ++p) {
                                    if (pass == 0)
                                        ops.acc_add(acc, x + p * ssp * ssz, sdt, nl);
                                    else
                                        ops.acc_sq_dev(acc, x + p * ssp * ssz, sdt, mc, nl);
                                }
                            }
                            double *pc = part + cb * B + c0;
                            for (dim_t i = 0; i < nl; ++i) pc[i] += acc[i];
                        }
                    }
                });
                if (oom) return status::out_of_memory;
                float *tgt = pass == 0 ? mean : var;
                for (dim_t c = 0; c < C; ++c) {
                    double sum = 0.0;
                    for (int t = 0; t < nthr; ++t) sum += ctx.scratchpad().get<double>(key_part, t)[c];
                    tgt[c] = cnt ? (float)(sum / (double)cnt) : 0.f;
                }
            }
        }
        if (pd->stats_out()) {
            std::copy(mean, mean + C, ctx.output<float>(DNNL_ARG_MEAN));
            std::copy(var, var + C, ctx.output<float>(DNNL_ARG_VARIANCE));
        }
        const float eps = pd->desc()->epsilon;
        for (dim_t c = 0; c < C; ++c) {
            a[c] = (scale ? scale[c] : 1.f) / std::sqrt(var[c] + eps);
            b[c] = shift ? shift[c] : 0.f;
        }
        // A relu post-op with slope 0 is the fused relu.
        const bool relu = pd->fuse_relu() || pd->relu_post_op();
        if (ncsp) {
            parallel_nd(N, C, [&](dim_t n, dim_t c) {
                ops.affine_s(dst + (dmd.offset0 + n * dn + c * dc) * dsz, ddt,
                        src + (smd.offset0 + n * sn + c * sc) * ssz, sdt, mean[c], a[c], b[c], SP, relu);
                if (ws) mask(smd.offset0 + n * sn + c * sc, dmd.offset0 + n * dn + c * dc, SP);
            });
        } else {
            // Padded channels have a = b = 0 and mean 0: the dst padding stays 0.
            // Items are runs of points of one channel block, walked in
            // memory order (one item per point, visiting the blocks in
            // turn, cost a task and a jump between blocks per 16 values).
            const dim_t run = 512, nrun = div_up(SP, run);
            const bool blk16 = B == 16 && L == 16 && sdt == dnnl_f32 && ddt == dnnl_f32 && ssp == 16 && dsp == 16
                    && isa::has(isa::avx512);
            // Every point of dense nChw16c f32 is 64 bytes: one aligned
            // base aligns them all. The workspace reads dst back: cached.
            const bool nt = blk16 && !ws && (size_t)(N * CP * SP) * sizeof(float) >= nt_store_min_bytes
                    && reinterpret_cast<uintptr_t>(reinterpret_cast<float *>(dst) + dmd.offset0) % 64 == 0
                    && dn % 16 == 0 && dc % 16 == 0;
            parallel_nd(N, NB, nrun, [&](dim_t n, dim_t cb, dim_t r) {
                const dim_t sp1 = std::min(SP, (r + 1) * run);
                if (blk16) {
                    const dim_t sp = r * run;
                    affine_blk16_f32(reinterpret_cast<float *>(dst) + dmd.offset0 + n * dn + cb * dc + sp * dsp,
                            reinterpret_cast<const float *>(src) + smd.offset0 + n * sn + cb * sc + sp * ssp,
                            mean + cb * B, a + cb * B, b + cb * B, sp1 - sp, relu, nt);
                    if (ws) mask(smd.offset0 + n * sn + cb * sc + sp * ssp, dmd.offset0 + n * dn + cb * dc + sp * dsp, (sp1 - sp) * 16);
                    return;
                }
                for (dim_t sp = r * run; sp < sp1; ++sp) {
                    ops.affine(dst + (dmd.offset0 + n * dn + cb * dc + sp * dsp) * dsz, ddt,
                            src + (smd.offset0 + n * sn + cb * sc + sp * ssp) * ssz, sdt, mean + cb * B,
                            a + cb * B, b + cb * B, L, relu);
                    if (ws) mask(smd.offset0 + n * sn + cb * sc + sp * ssp, dmd.offset0 + n * dn + cb * dc + sp * dsp, L);
                }
            });
        }
        return status::success;
    }
};

} // namespace

const impl_entry_t bnorm_impl_list[] = {
        {"vec", make_pd<vec_bnorm_fwd_t::pd_t>},
        {"ref", make_pd<ref_bnorm_fwd_t::pd_t>},
        {nullptr, nullptr},
};

} // namespace kestrel
