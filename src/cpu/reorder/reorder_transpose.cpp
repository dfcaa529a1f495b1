// Plain (nc + dense spatial) <-> nChw16c for 4-byte types with AVX-512:
// a tile of 16 channels x 16 spatial positions is loaded as 16 rows,
// transposed in registers and stored as 16 rows of the other layout, so
// every load and store is a full (or, at the edges, masked) vector.
#include <immintrin.h>

#include <algorithm>

#include "cpu/isa.hpp"
#include "cpu/reorder/reorder_elem.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// r[i] holds row i of a 16x16 tile; afterwards r[j] holds column j.
// 1) unpack 32-bit pairs of rows 2i, 2i+1 inside each 128-bit lane;
// 2) unpack 64-bit pairs: each lane of u[4k+m] is column 4L+m of rows
//    4k..4k+3 (L the lane);
// 3) two rounds of 128-bit lane shuffles gather lane L of u[m], u[4+m],
//    u[8+m], u[12+m] into column 4L+m.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) inline void
x32_transpose_16x16_avx512(__m512 *r) {
    __m512 t[16], u[16];
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int k = 0; k < 4; ++k)
        for (int h = 0; h < 2; ++h) {
            const __m512d a = _mm512_castps_pd(t[4 * k + h]), b = _mm512_castps_pd(t[4 * k + 2 + h]);
            u[4 * k + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
            u[4 * k + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        }
    for (int m = 0; m < 4; ++m) {
        const __m512 v0 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88);
        const __m512 v1 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xdd);
        const __m512 w0 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88);
        const __m512 w1 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xdd);
        r[m] = _mm512_shuffle_f32x4(v0, w0, 0x88);
        r[4 + m] = _mm512_shuffle_f32x4(v1, w1, 0x88);
        r[8 + m] = _mm512_shuffle_f32x4(v0, w0, 0xdd);
        r[12 + m] = _mm512_shuffle_f32x4(v1, w1, 0xdd);
    }
}

// One tile, plain -> blocked: nc valid channels (the rest of the block is
// padding and gets zeros), ns valid spatial positions.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void x32_to_nc16_tile_avx512(
        const float *p, dim_t cs, float *b, int nc, int ns) {
    const __mmask16 m = (__mmask16)((1u << ns) - 1);
    __m512 r[16];
    for (int c = 0; c < 16; ++c) r[c] = c < nc ? _mm512_maskz_loadu_ps(m, p + c * cs) : _mm512_setzero_ps();
    x32_transpose_16x16_avx512(r);
    for (int j = 0; j < ns; ++j) _mm512_storeu_ps(b + j * 16, r[j]);
}

// One tile, blocked -> plain: only the nc valid channels are stored.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) void x32_from_nc16_tile_avx512(
        const float *b, float *p, dim_t cs, int nc, int ns) {
    const __mmask16 m = (__mmask16)((1u << ns) - 1);
    __m512 r[16];
    for (int j = 0; j < 16; ++j) r[j] = j < ns ? _mm512_loadu_ps(b + j * 16) : _mm512_setzero_ps();
    x32_transpose_16x16_avx512(r);
    for (int c = 0; c < nc; ++c) _mm512_mask_storeu_ps(p + c * cs, m, r[c]);
}

// True when dims [2, ndims) of md are one dense run whose innermost step is
// `unit` elements (unit dims may have any stride).
bool spatial_dense(const memory_desc_t &md, dim_t unit) {
    dim_t want = unit;
    for (int d = md.ndims - 1; d >= 2; --d) {
        if (md.dims[d] > 1 && md.blocking.strides[d] != want) return false;
        want *= md.dims[d];
    }
    return true;
}

} // namespace

status_t reorder_transpose_t::pd_t::init(dnnl_engine *) {
    KESTREL_CHECK(init_common(name()));
    if (!quant_.trivial()) return decline(name(), "attributes");
    if (!isa::has(isa::avx512)) return decline(name(), "needs avx512");
    const data_type_t dt = src_md_.data_type;
    if (dt != dst_md_.data_type || data_type_size(dt) != 4 || !reorder_dt_supported(dt))
        return decline(name(), "data types");
    const int nd = src_md_.ndims;
    if (nd < 3 || nd > 5) return decline(name(), "needs 3 to 5 dims");
    const bool sb = src_md_.blocking.inner_nblks > 0, db = dst_md_.blocking.inner_nblks > 0;
    if (sb == db) return decline(name(), "needs one plain and one blocked side");
    to_blocked = db;
    const memory_desc_t &B = to_blocked ? dst_md_ : src_md_;
    const memory_desc_t &P = to_blocked ? src_md_ : dst_md_;
    const auto &bb = B.blocking;
    if (bb.inner_nblks != 1 || bb.inner_blks[0] != 16 || bb.inner_idxs[0] != 1)
        return decline(name(), "blocked side is not 16c");
    for (int d = 0; d < nd; ++d) {
        if (B.padded_offsets[d] != 0 || P.padded_offsets[d] != 0 || P.padded_dims[d] != P.dims[d])
            return decline(name(), "padded offsets");
        if (d != 1 && B.padded_dims[d] != B.dims[d]) return decline(name(), "padding outside channels");
    }
    if (!spatial_dense(P, 1) || !spatial_dense(B, 16)) return decline(name(), "spatial dims not dense");
    if (mdw_t(B).has_zero_dim()) return decline(name(), "empty tensor");

    N = B.dims[0];
    C = B.dims[1];
    SP = 1;
    for (int d = 2; d < nd; ++d) SP *= B.dims[d];
    // Steps along n and c from element offsets; unit dims never step.
    const mdw_t bw(B), pw(P);
    dim_t pos[max_ndims] = {};
    b_off0 = bw.off_v(pos);
    p_off0 = pw.off_v(pos);
    pos[0] = N > 1 ? 1 : 0;
    b_ns = bw.off_v(pos) - b_off0;
    p_ns = pw.off_v(pos) - p_off0;
    pos[0] = 0;
    pos[1] = C > 16 ? 16 : 0;
    b_cbs = bw.off_v(pos) - b_off0;
    pos[1] = C > 1 ? 1 : 0;
    p_cs = pw.off_v(pos) - p_off0;
    return status::success;
}

status_t reorder_transpose_t::execute(const exec_ctx_t &ctx) const {
    const auto *p = pd();
    const float *src = ctx.input<float>(DNNL_ARG_FROM);
    float *dst = ctx.output<float>(DNNL_ARG_TO);
    const dim_t CB = div_up(p->C, 16), nsp = div_up(p->SP, 16);
    const dim_t work = p->N * CB * nsp;
    parallel(nthr_for(work, 16), [&](int ithr, int nthr) {
        dim_t start, end;
        balance211(work, nthr, ithr, start, end);
        for (dim_t w = start; w < end; ++w) {
            const dim_t s = w % nsp, cb = (w / nsp) % CB, n = w / (nsp * CB);
            const int nc = (int)std::min<dim_t>(16, p->C - cb * 16);
            const int ns = (int)std::min<dim_t>(16, p->SP - s * 16);
            const dim_t boff = p->b_off0 + n * p->b_ns + cb * p->b_cbs + s * 16 * 16;
            const dim_t poff = p->p_off0 + n * p->p_ns + cb * 16 * p->p_cs + s * 16;
            if (p->to_blocked)
                x32_to_nc16_tile_avx512(src + poff, p->p_cs, dst + boff, nc, ns);
            else
                x32_from_nc16_tile_avx512(src + boff, dst + poff, p->p_cs, nc, ns);
        }
    });
    return status::success;
}

} // namespace kestrel
