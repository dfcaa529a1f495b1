// Pooling forward for plain channel-first layouts (ncw, nchw, ncdhw),
// vectorised along the output row. Each window offset kw reads the source
// points iw = ow * SW + off (off = kw * (DW + 1) - padL) for a range of
// consecutive ow: with stride 1 a contiguous run of the source row; with a
// larger stride a contiguous run of one "phase" of the row (the points
// j * SW + p), so each source row is first split into its SW phases (a
// transpose of the row viewed as IW/SW x SW). Accumulation follows the
// reference order (kd, kh, kw) per output point and divides the same way,
// so results are identical to it, indices included.
//
// f32 sources with stride 1 or 2 on AVX-512 skip the phase split: one
// source row at a time is folded into the output row 16 points at a time,
// stride 2 reading 32 source points with two masked loads and keeping the
// even ones with a two-source permute (ncsp_row_avx512). Out-of-row taps
// are masked to the neutral value (max_init, or 0 for the sum), so the
// operations per output point are the reference's, in its order.
#include <algorithm>

#include <immintrin.h>

#include "core/primitive.hpp"
#include "cpu/pooling/pooling_pd.hpp"
#include "cpu/post_ops.hpp"
#include "cpu/isa.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

#define KESTREL_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

// Lanes t in [0, 16) with lo <= t < hi.
KESTREL_AVX512 inline __mmask16 lanes(dim_t lo, dim_t hi) {
    lo = std::max<dim_t>(lo, 0);
    hi = std::min<dim_t>(hi, 16);
    if (hi <= lo) return 0;
    return (__mmask16)(((1u << (hi - lo)) - 1u) << lo);
}

// Up to this many source rows go to one call.
constexpr int ncsp_max_rows = 16;
// Partial runs of up to this many kw have their lane masks computed once
// per 16 output points.
constexpr int ncsp_mask_kw = 8;

// Source points s, s + SW, ... (16 of them) of row x; with `full` every
// point read (32 for SW 2) is inside the row, otherwise the points outside
// [0, IW) read as `fill`, never touching memory.
template <int SW>
KESTREL_AVX512 inline __m512 ncsp_taps(const float *x, dim_t s, dim_t IW, bool full, __m512 fill) {
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    if (full) {
        if (SW == 1) return _mm512_loadu_ps(x + s);
        return _mm512_permutex2var_ps(_mm512_loadu_ps(x + s), even, _mm512_loadu_ps(x + s + 16));
    }
    // The address of a partly outside run is formed as an integer (no
    // pointer arithmetic outside the object); masked-off lanes are not read.
    const uintptr_t p = (uintptr_t)x + (uintptr_t)(s * (dim_t)sizeof(float));
    const __m512 lo = _mm512_mask_loadu_ps(fill, lanes(-s, IW - s), (const void *)p);
    if (SW == 1) return lo;
    const __m512 hi = _mm512_mask_loadu_ps(fill, lanes(-s - 16, IW - s - 16), (const void *)(p + 64));
    return _mm512_permutex2var_ps(lo, even, hi);
}

// ncsp_taps for a run partly outside the row, with the lane masks of its
// low and high 16 points (lanes(-s, IW - s), lanes(-s - 16, IW - s - 16))
// already computed.
template <int SW>
KESTREL_AVX512 inline __m512 ncsp_taps_m(const float *x, dim_t s, __mmask16 ml, __mmask16 mh, __m512 fill) {
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    // Whole halves (most of a partly outside run) take plain loads: masked
    // ones cost here.
    const uintptr_t p = (uintptr_t)x + (uintptr_t)(s * (dim_t)sizeof(float));
    const __m512 lo = ml == 0xffff ? _mm512_loadu_ps((const void *)p) : _mm512_mask_loadu_ps(fill, ml, (const void *)p);
    if (SW == 1) return lo;
    const __m512 hi = mh == 0xffff ? _mm512_loadu_ps((const void *)(p + 64))
                                   : _mm512_mask_loadu_ps(fill, mh, (const void *)(p + 64));
    return _mm512_permutex2var_ps(lo, even, hi);
}

// One call of the register path: the f32 source rows x[r] (IW points each,
// tap base kb[r]) folded into the output row.
struct ncsp_row_args_t {
    float *acc; // OW running values (read unless `first`, written unless `out`)
    int32_t *idx; // OW tap indices of the max (IDX only; always read / written)
    const float *const *x;
    const int32_t *kb;
    int nrows;
    dim_t IW, OW, KW, DW1, padL;
    float init;
    bool first; // start from init (max) or 0 (sum) and index 0, not acc / idx
    // Non-null: the last call of the row. The finished values go to out
    // (OW floats: dst itself or acc), avg ones divided here: by rows *
    // kwc[ow] (exclude padding) or by `rows` alone (kwc null, rows = the
    // kernel volume), 0 for a zero divisor, as the reference does.
    float *out;
    const int32_t *kwc;
    int32_t rows;
};

// For every kw, tap k = kb[r] + kw, the points ow * SW + kw * DW1 - padL
// (SW 1 or 2) inside the row. Max keeps the first greatest (strict >, the
// reference's comparison, rows and kw in its order) and its tap in idx
// (when IDX); the sum adds the taps in the same order. 16 output points at
// a time stay in registers across all rows of the call.
template <int SW, bool MAX, bool IDX>
KESTREL_AVX512 void ncsp_row_avx512(const ncsp_row_args_t &g) {
    const __m512 fill = _mm512_set1_ps(MAX ? g.init : 0.f);
    const dim_t IW = g.IW, OW = g.OW, KW = g.KW, DW1 = g.DW1;
    for (dim_t ow0 = 0; ow0 < OW; ow0 += 16) {
        const __mmask16 om = lanes(0, OW - ow0);
        __m512 a = g.first ? fill : _mm512_maskz_loadu_ps(om, g.acc + ow0);
        __m512i id = IDX && !g.first ? _mm512_maskz_loadu_epi32(om, g.idx + ow0) : _mm512_setzero_si512();
        const dim_t s0 = ow0 * SW - g.padL; // source point of lane 0, kw = 0
        // Every point read by every kw inside the row.
        const bool full = s0 >= 0 && s0 + (KW - 1) * DW1 + 16 * SW <= IW;
        // Otherwise the lane masks of the first kw, the same for every row.
        __mmask16 ml[ncsp_mask_kw], mh[ncsp_mask_kw];
        if (!full)
            for (dim_t kw = 0; kw < std::min<dim_t>(KW, ncsp_mask_kw); ++kw) {
                const dim_t s = s0 + kw * DW1;
                ml[kw] = lanes(-s, IW - s);
                mh[kw] = SW == 1 ? 0 : lanes(-s - 16, IW - s - 16);
            }
        for (int r = 0; r < g.nrows; ++r) {
            const float *x = g.x[r];
            if (full && KW == 3) {
                // The common 3-wide window, its taps unrolled.
                const __m512 v0 = ncsp_taps<SW>(x, s0, IW, true, fill);
                const __m512 v1 = ncsp_taps<SW>(x, s0 + DW1, IW, true, fill);
                const __m512 v2 = ncsp_taps<SW>(x, s0 + 2 * DW1, IW, true, fill);
                if (MAX && !IDX) {
                    a = _mm512_max_ps(v2, _mm512_max_ps(v1, _mm512_max_ps(v0, a)));
                    continue;
                }
                if (!MAX) {
                    a = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a, v0), v1), v2);
                    continue;
                }
            } else if (KW == 3 && !(MAX && IDX)) {
                // The same at the row's ends (the first and last 16
                // points), with the masks of the three taps from above.
                const __m512 v0 = ncsp_taps_m<SW>(x, s0, ml[0], mh[0], fill);
                const __m512 v1 = ncsp_taps_m<SW>(x, s0 + DW1, ml[1], mh[1], fill);
                const __m512 v2 = ncsp_taps_m<SW>(x, s0 + 2 * DW1, ml[2], mh[2], fill);
                a = MAX ? _mm512_max_ps(v2, _mm512_max_ps(v1, _mm512_max_ps(v0, a)))
                        : _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a, v0), v1), v2);
                continue;
            }
            for (dim_t kw = 0; kw < KW; ++kw) {
                const dim_t s = s0 + kw * DW1;
                const __m512 v = full ? ncsp_taps<SW>(x, s, IW, true, fill)
                        : kw < ncsp_mask_kw ? ncsp_taps_m<SW>(x, s, ml[kw], mh[kw], fill)
                                            : ncsp_taps<SW>(x, s, IW, false, fill);
                if (MAX && !IDX) {
                    // vmaxps returns its second operand when either is NaN:
                    // a, never NaN, as the strict > keeps it.
                    a = _mm512_max_ps(v, a);
                } else if (MAX) {
                    const __mmask16 gt = _mm512_mask_cmp_ps_mask(om, v, a, _CMP_GT_OQ);
                    a = _mm512_mask_mov_ps(a, gt, v);
                    if (IDX) id = _mm512_mask_mov_epi32(id, gt, _mm512_set1_epi32(g.kb[r] + (int32_t)kw));
                } else {
                    a = _mm512_add_ps(a, v);
                }
            }
        }
        if (IDX) _mm512_mask_storeu_epi32(g.idx + ow0, om, id);
        if (!g.out) {
            _mm512_mask_storeu_ps(g.acc + ow0, om, a);
            continue;
        }
        if (!MAX) {
            const __m512i rv = _mm512_set1_epi32(g.rows);
            const __m512i dv = g.kwc ? _mm512_mullo_epi32(rv, _mm512_maskz_loadu_epi32(om, g.kwc + ow0)) : rv;
            const __mmask16 nz = _mm512_test_epi32_mask(dv, dv);
            a = _mm512_maskz_div_ps(nz, a, _mm512_cvtepi32_ps(dv));
        }
        if (om == 0xffff)
            _mm512_storeu_ps(g.out + ow0, a);
        else
            _mm512_mask_storeu_ps(g.out + ow0, om, a);
    }
}

using ncsp_row_fn = void (*)(const ncsp_row_args_t &);

ncsp_row_fn pick_ncsp_row(dim_t SW, bool is_max, bool idx) {
    if (SW == 1) {
        if (!is_max) return ncsp_row_avx512<1, false, false>;
        return idx ? ncsp_row_avx512<1, true, true> : ncsp_row_avx512<1, true, false>;
    }
    if (!is_max) return ncsp_row_avx512<2, false, false>;
    return idx ? ncsp_row_avx512<2, true, true> : ncsp_row_avx512<2, true, false>;
}

struct ncsp_pooling_fwd_t : primitive_t {
    enum key_t : scratchpad::key_t { key_acc = 1, key_idx = 2, key_phase = 3 };
    struct pd_t : pd_impl_t<pd_t, pooling_fwd_pd_t, ncsp_pooling_fwd_t> {
        using desc_t = pooling_desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *hint) : pd_impl_t(d, a, hint) {}
        const char *name() const override { return "vec:ncsp"; }
        status_t init(dnnl_engine *) override {
            KESTREL_CHECK(init_common());
            if (!pool::is_fp(src_md_.data_type) || !pool::is_fp(dst_md_.data_type))
                return decline("vec:ncsp", "not f32/bf16");
            if (pool::classify(src_md_) != pool::layout_t::ncsp || pool::classify(dst_md_) != pool::layout_t::ncsp)
                return decline("vec:ncsp", "src or dst is not plain channel-first");
            if (mdw_t(src_md_).has_zero_dim() || mdw_t(dst_md_).has_zero_dim())
                return decline("vec:ncsp", "empty tensor");
            const auto &c = conf_;
            // Per kw: the phase, its first index and the valid ow range.
            kw_.resize((size_t)c.KW);
            for (dim_t kw = 0; kw < c.KW; ++kw) {
                auto &e = kw_[(size_t)kw];
                const dim_t off = kw * (c.DW + 1) - c.padL;
                e.phase = ((off % c.SW) + c.SW) % c.SW;
                e.j0 = (off - e.phase) / c.SW;
                // 0 <= ow * SW + off < IW
                e.ow_lo = off >= 0 ? 0 : div_up(-off, c.SW);
                e.ow_hi = c.IW - off <= 0 ? 0 : std::min(c.OW, div_up(c.IW - off, c.SW));
                if (e.ow_hi < e.ow_lo) e.ow_hi = e.ow_lo;
            }
            // The register path: f32 source, stride 1 or 2, AVX-512.
            if (src_md_.data_type == dnnl_f32 && (c.SW == 1 || c.SW == 2) && isa::has(isa::avx512)) {
                row_ = pick_ncsp_row(c.SW, c.is_max, c.is_max && c.with_ws);
                if (!c.is_max && c.exclude_padding) {
                    // Taps inside the row per output point (times the valid rows).
                    kw_count_.assign((size_t)c.OW, 0);
                    for (const auto &e : kw_)
                        for (dim_t ow = e.ow_lo; ow < e.ow_hi; ++ow) ++kw_count_[(size_t)ow];
                }
            }
            auto &r = scratchpad_registry();
            r.book_per_thread(key_acc, sizeof(float) * c.OW);
            // Indices of the max, or the per-point counts of avg_exclude_padding.
            if (c.is_max || c.exclude_padding) r.book_per_thread(key_idx, sizeof(int32_t) * c.OW);
            if (c.SW > 1 && !row_) r.book_per_thread(key_phase, sizeof(float) * (c.IW + c.SW));
            return status::success;
        }
        struct kw_t {
            dim_t phase, j0, ow_lo, ow_hi;
        };
        std::vector<kw_t> kw_;
        ncsp_row_fn row_ = nullptr;
        std::vector<int32_t> kw_count_;
    };
    using primitive_t::primitive_t;

    status_t execute(const exec_ctx_t &ctx) const override;
};

status_t ncsp_pooling_fwd_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const pooling_conf_t &c = pd->conf();
    const auto &ops = pool::vec_ops();
    const auto &spad = ctx.scratchpad();
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    char *ws = c.with_ws ? ctx.output<char>(DNNL_ARG_WORKSPACE) : nullptr;
    const memory_desc_t &smd = *pd->src_md(), &dmd = *pd->dst_md(), &wmd = *pd->workspace_md();
    const data_type_t sdt = smd.data_type, ddt = dmd.data_type, wdt = wmd.data_type;
    const size_t ssz = data_type_size(sdt), dsz = data_type_size(ddt);
    // Element strides of n, c, d and h (W is dense); 0 for absent dims.
    const int nd = c.ndims;
    const dim_t *sb = smd.blocking.strides, *db = dmd.blocking.strides;
    const dim_t s_n = sb[0], s_c = sb[1], s_d = nd == 5 ? sb[2] : 0, s_h = nd >= 4 ? sb[nd - 2] : 0;
    const dim_t d_n = db[0], d_c = db[1], d_d = nd == 5 ? db[2] : 0, d_h = nd >= 4 ? db[nd - 2] : 0;
    const dim_t SW = c.SW, phase_len = div_up(c.IW, SW);
    const auto &kws = pd->kw_;
    const dim_t work = c.MB * c.C * c.OD * c.OH;
    const int nthr = std::max(1, std::min(spad.nthr(), nthr_for(work, 2)));
    const post_ops::applier_t ap(pd->attr()->post_ops, dmd, ctx);
    parallel(nthr, [&](int ithr, int nt) {
        float *acc = spad.get<float>(key_acc, ithr);
        int32_t *aux = spad.get<int32_t>(key_idx, ithr); // indices (max) or counts (avg)
        const auto row = pd->row_;
        float *ph = SW > 1 && !row ? spad.get<float>(key_phase, ithr) : nullptr;
        if (!acc || ((c.is_max || c.exclude_padding) && !aux) || (SW > 1 && !row && !ph)) return;
        dim_t w0, w1;
        balance211(work, nt, ithr, w0, w1);
        const dim_t kvol = c.KD * c.KH * c.KW;
        // The register path writes f32 dst rows straight from registers.
        const bool fuse = ddt == dnnl_f32 && ap.empty();
        for (dim_t it = w0; it < w1; ++it) {
            const dim_t oh = it % c.OH, od = it / c.OH % c.OD, ch = it / (c.OH * c.OD) % c.C;
            const dim_t n = it / (c.OH * c.OD * c.C);
            const dim_t doff = dmd.offset0 + n * d_n + ch * d_c + od * d_d + oh * d_h;
            // Calls f(kd, kh, row) for each source row of this output row's
            // window that lies inside the tensor (padding rows skipped).
            auto for_each_row = [&](auto &&f) {
                for_each_window_row(c, od, oh, [&](dim_t kd, dim_t kh, dim_t id, dim_t ih) {
                    f(kd, kh, src + (smd.offset0 + n * s_n + ch * s_c + id * s_d + ih * s_h) * ssz);
                });
            };
            bool done = false; // dst row written
            if (row) {
                // Up to ncsp_max_rows source rows per call; the last call
                // finishes the row (divides, stores).
                const float *rx[ncsp_max_rows];
                int32_t rk[ncsp_max_rows];
                ncsp_row_args_t g = {acc, aux, rx, rk, 0, c.IW, c.OW, c.KW, c.DW + 1, c.padL, c.max_init, true,
                        nullptr, c.exclude_padding ? pd->kw_count_.data() : nullptr, 0};
                int nr = 0;
                int32_t rows = 0;
                for_each_row([&](dim_t kd, dim_t kh, const char *x) {
                    if (nr == ncsp_max_rows) {
                        g.nrows = nr;
                        row(g);
                        g.first = false;
                        nr = 0;
                    }
                    rx[nr] = reinterpret_cast<const float *>(x);
                    rk[nr++] = (int32_t)((kd * c.KH + kh) * c.KW);
                    ++rows;
                });
                if (nr) {
                    g.nrows = nr;
                    g.out = fuse ? reinterpret_cast<float *>(dst + doff * dsz) : acc;
                    g.rows = c.exclude_padding ? rows : (int32_t)kvol;
                    row(g);
                    done = fuse;
                } else {
                    // No source row inside: max_init, or a zero sum (0 / n
                    // and the zero divisor both give 0).
                    std::fill(acc, acc + c.OW, c.is_max ? c.max_init : 0.f);
                    if (c.is_max) std::fill(aux, aux + c.OW, 0);
                }
            } else {
                if (c.is_max) {
                    std::fill(acc, acc + c.OW, c.max_init);
                    std::fill(aux, aux + c.OW, 0);
                } else {
                    std::fill(acc, acc + c.OW, 0.f);
                    if (c.exclude_padding) std::fill(aux, aux + c.OW, 0);
                }
                for_each_row([&](dim_t kd, dim_t kh, const char *x) {
                    const void *base = x;
                    data_type_t bdt = sdt;
                    if (SW > 1) {
                        // Split the row into its SW phases, each phase_len long.
                        for (dim_t p = 0; p < SW; ++p)
                            for (dim_t j = 0; p + j * SW < c.IW; ++j)
                                ph[p * phase_len + j] = load_f32(sdt, x, p + j * SW);
                        base = ph;
                        bdt = dnnl_f32;
                    }
                    const size_t bsz = data_type_size(bdt);
                    for (dim_t kw = 0; kw < c.KW; ++kw) {
                        const auto &e = kws[(size_t)kw];
                        const dim_t len = e.ow_hi - e.ow_lo;
                        if (len <= 0) continue;
                        const dim_t first = SW > 1 ? e.phase * phase_len + e.j0 + e.ow_lo : e.j0 + e.ow_lo;
                        const void *run = static_cast<const char *>(base) + first * bsz;
                        if (c.is_max) {
                            ops.acc_max_idx(acc + e.ow_lo, aux + e.ow_lo, run, bdt, len,
                                    (int32_t)((kd * c.KH + kh) * c.KW + kw));
                        } else {
                            ops.acc_add(acc + e.ow_lo, run, bdt, len);
                            if (c.exclude_padding)
                                for (dim_t ow = e.ow_lo; ow < e.ow_hi; ++ow) ++aux[ow];
                        }
                    }
                });
                if (!c.is_max)
                    for (dim_t ow = 0; ow < c.OW; ++ow) {
                        const dim_t div = c.exclude_padding ? aux[ow] : kvol;
                        acc[ow] = div ? acc[ow] / (float)div : 0.f;
                    }
            }
            if (!done) {
                if (!ap.empty()) {
                    dim_t pos[max_ndims] = {n, ch};
                    if (nd == 5) pos[2] = od;
                    if (nd >= 4) pos[nd - 2] = oh;
                    pos[nd - 1] = 0;
                    ap.apply_row(acc, nullptr, c.OW, pos);
                }
                ops.store_scaled(dst + doff * dsz, ddt, acc, 1.f, c.OW);
            }
            if (ws) {
                // The workspace has the dst layout, so the same offsets.
                const dim_t woff = doff - dmd.offset0 + wmd.offset0;
                for (dim_t ow = 0; ow < c.OW; ++ow) {
                    if (wdt == dnnl_u8)
                        reinterpret_cast<uint8_t *>(ws)[woff + ow] = (uint8_t)aux[ow];
                    else
                        reinterpret_cast<int32_t *>(ws)[woff + ow] = aux[ow];
                }
            }
        }
    });
    return status::success;
}

} // namespace

status_t create_ncsp_pooling_pd(pd_t **out, const op_desc_t *desc, const attr_t *attr, dnnl_engine *engine,
        const pd_t *hint) {
    return make_pd<ncsp_pooling_fwd_t::pd_t>(out, desc, attr, engine, hint);
}

} // namespace kestrel
