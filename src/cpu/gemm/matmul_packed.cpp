#include "cpu/gemm/matmul_packed.hpp"

#include <algorithm>
#include <cstring>

#include "core/memory.hpp"
#include "core/packed_layout.hpp"
#include "cpu/common/common.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

constexpr dim_t P = packed::panel;

// The stored buffers of one packed weights memory.
struct packed_view_t {
    const void *val;
    const int32_t *off;
    const uint16_t *mask;
    dim_t K, N, NP, cap; // cap: room in `val`, in elements
};

// Expands panel p into tile (K x 16, zeros where the mask has none).
// Offsets outside the values buffer expand nothing (hostile input stays
// inside the buffers).
template <typename W, typename A>
void expand(const packed_view_t &v, dim_t p, A *tile) {
    std::fill(tile, tile + v.K * P, (A)0);
    const W *val = static_cast<const W *>(v.val);
    int32_t e = v.off[p];
    const int32_t end = std::min<int32_t>(v.off[p + 1], v.cap);
    if (e < 0) return;
    const uint16_t *mask = v.mask + p * v.K;
    for (dim_t k = 0; k < v.K; ++k) {
        unsigned m = mask[k];
        while (m && e < end) {
            const int j = __builtin_ctz(m);
            m &= m - 1;
            tile[k * P + j] = (A)val[e++];
        }
    }
}

template <typename S, typename A>
void panel_rows(const S *src, const A *tile, dim_t K, dim_t m0, dim_t m1, A (*acc)[P]) {
    for (dim_t m = m0; m < m1; ++m) {
        A *a = acc[m - m0];
        std::fill(a, a + P, (A)0);
        const S *s = src + m * K;
        for (dim_t k = 0; k < K; ++k) {
            const A x = (A)s[k];
            if (x == 0) continue;
            const A *t = tile + k * P;
            for (dim_t j = 0; j < P; ++j) a[j] += x * t[j];
        }
    }
}

template <typename T>
T sat(int32_t v, int32_t lo, int32_t hi) {
    return (T)std::min(std::max(v, lo), hi);
}

void store(data_type_t dt, void *dst, dim_t i, float v) { store_f32(dt, dst, i, v); }
void store(data_type_t dt, void *dst, dim_t i, int32_t v) {
    switch (dt) {
        case dnnl_s32: static_cast<int32_t *>(dst)[i] = v; break;
        case dnnl_s8: static_cast<int8_t *>(dst)[i] = sat<int8_t>(v, -128, 127); break;
        case dnnl_u8: static_cast<uint8_t *>(dst)[i] = sat<uint8_t>(v, 0, 255); break;
        default: static_cast<float *>(dst)[i] = (float)v; break;
    }
}

template <typename S, typename W, typename A>
void run(const packed_view_t &v, const S *src, void *dst, data_type_t ddt, dim_t M,
        const scratchpad::grantor_t &spad, scratchpad::key_t key) {
    const dim_t K = v.K, N = v.N, NP = v.NP;
    const dim_t MB = 32; // rows of dst summed at once per panel
    const int nthr_run = std::min(nthr_for(NP), spad.nthr());
    parallel(nthr_run, [&](int ithr, int nthr) {
        A *tile = spad.get<A>(key, ithr);
        if (!tile) return;
        dim_t p0, p1;
        balance211(NP, nthr, ithr, p0, p1);
        A acc[MB][P];
        for (dim_t p = p0; p < p1; ++p) {
            expand<W, A>(v, p, tile);
            const dim_t n0 = p * P, nw = std::min(P, N - n0);
            for (dim_t m0 = 0; m0 < M; m0 += MB) {
                const dim_t m1 = std::min(M, m0 + MB);
                panel_rows<S, A>(src, tile, K, m0, m1, acc);
                for (dim_t m = m0; m < m1; ++m)
                    for (dim_t j = 0; j < nw; ++j) store(ddt, dst, m * N + n0 + j, acc[m - m0][j]);
            }
        }
    });
}

} // namespace

status_t packed_matmul_t::pd_t::init(dnnl_engine *) {
    if (!packed::is_packed(weights_md_)) return decline(name(), "weights not packed");
    if (mdw_t(src_md_).is_sparse() || mdw_t(dst_md_).is_sparse()) return decline(name(), "sparse src or dst");
    if (with_bias()) return decline(name(), "bias");
    if (weights_md_.ndims != 2 || ndims() != 2) return decline(name(), "ndims");
    if (!attr_.has_default_values()) return decline(name(), "attributes");
    const data_type_t s = src_md_.data_type, w = weights_md_.data_type, d = dst_md_.data_type;
    if (s == dnnl_f32 && w == dnnl_f32 && d == dnnl_f32)
        integer = false;
    else if (one_of(s, dnnl_u8, dnnl_s8) && w == dnnl_s8 && one_of(d, dnnl_f32, dnnl_s32, dnnl_s8, dnnl_u8))
        integer = true;
    else
        return decline(name(), "data types");
    // A descriptor of the user's own layout (another encoding's metadata)
    // is not Kestrel's; an unlaid one is laid out here.
    if (!packed::laid_out(weights_md_)) {
        if (weights_md_.sparse.metadata_types[0] != dnnl_data_type_undef) return decline(name(), "packed layout");
        KESTREL_CHECK(packed::lay_out(weights_md_));
    }
    for (memory_desc_t *md : {&src_md_, &dst_md_}) {
        if (mdw_t(md).is_any()) KESTREL_CHECK(md_set_tag(*md, dnnl_ab));
        if (!mdw_t(md).matches_tag(dnnl_ab)) return decline(name(), "layout");
    }
    scratchpad_registry().book_per_thread(key_tile, (size_t)weights_md_.dims[0] * packed::panel * 4);
    return status::success;
}

status_t packed_matmul_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const memory_desc_t &wmd = *pd->weights_md(0);
    const dim_t M = pd->dst_md()->dims[0], N = pd->dst_md()->dims[1], K = wmd.dims[0];
    void *dst = ctx.output<void>(DNNL_ARG_DST);
    if (M * N == 0) return status::success;
    const dnnl_memory *wm = ctx.memory(DNNL_ARG_WEIGHTS);
    const data_type_t sdt = pd->src_md()->data_type, ddt = pd->dst_md()->data_type;
    if (K == 0) { // empty sums
        for (dim_t i = 0; i < M * N; ++i) store(ddt, dst, i, 0.f);
        return status::success;
    }
    packed_view_t v;
    v.val = wm->handle(0);
    v.off = static_cast<const int32_t *>(wm->handle(1));
    v.mask = static_cast<const uint16_t *>(wm->handle(2));
    v.K = K;
    v.N = N;
    v.NP = packed::panels(wmd);
    v.cap = K * N;
    const auto &spad = ctx.scratchpad();
    const void *src = ctx.input<void>(DNNL_ARG_SRC);
    if (!pd->integer)
        run<float, float, float>(v, static_cast<const float *>(src), dst, ddt, M, spad, pd_t::key_tile);
    else if (sdt == dnnl_u8)
        run<uint8_t, int8_t, int32_t>(v, static_cast<const uint8_t *>(src), dst, ddt, M, spad, pd_t::key_tile);
    else
        run<int8_t, int8_t, int32_t>(v, static_cast<const int8_t *>(src), dst, ddt, M, spad, pd_t::key_tile);
    return status::success;
}

} // namespace kestrel
