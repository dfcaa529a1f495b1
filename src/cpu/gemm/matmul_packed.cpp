#include "cpu/gemm/matmul_packed.hpp"

#include <algorithm>
#include <atomic>
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

// f32: groups of G panels expanded side by side into a K x (G * 16) tile,
// then dst columns of the group = src x tile by the GEMM plan.
constexpr dim_t G = 4;
status_t run_f32(const packed_view_t &v, const float *src, float *dst, dim_t M, const gemm::plan_t &plan,
        const scratchpad::grantor_t &spad, scratchpad::key_t key_tile, scratchpad::key_t key_plan) {
    const dim_t K = v.K, N = v.N, NG = (v.NP + G - 1) / G;
    const int nthr_run = std::min(nthr_for(NG), spad.nthr());
    std::atomic<bool> oom {false};
    parallel(nthr_run, [&](int ithr, int nthr) {
        float *tile = spad.get<float>(key_tile, ithr);
        float *panel = tile ? tile + K * G * P : nullptr;
        if (!tile) return oom.store(true);
        dim_t g0, g1;
        balance211(NG, nthr, ithr, g0, g1);
        for (dim_t g = g0; g < g1; ++g) {
            const dim_t p0 = g * G, p1 = std::min(v.NP, p0 + G), n0 = p0 * P;
            const dim_t W = std::min(N, p1 * P) - n0;
            for (dim_t p = p0; p < p1; ++p) {
                expand<float, float>(v, p, panel);
                const dim_t c0 = (p - p0) * P, w = std::min(P, N - p * P);
                for (dim_t k = 0; k < K; ++k) std::memcpy(tile + k * W + c0, panel + k * P, w * sizeof(float));
            }
            if (plan.execute_st(M, W, K, 1.f, src, K, tile, W, 0.f, dst + n0, N, spad, key_plan, ithr)
                    != status::success)
                oom.store(true);
        }
    });
    return oom ? status::out_of_memory : status::success;
}

// Writes the int8 GEMM's s32 tiles to dst, converted.
struct int_out_t : gemm::s8_epilogue_t {
    void *dst;
    data_type_t dt;
    dim_t N;
    void apply(dim_t m0, dim_t n0, dim_t m, dim_t n, const int32_t *acc, dim_t ld, const int32_t *,
            const int32_t *) const override {
        for (dim_t i = 0; i < m; ++i)
            for (dim_t j = 0; j < n; ++j) store(dt, dst, (m0 + i) * N + n0 + j, acc[i * ld + j]);
    }
};

status_t run_int8(const packed_view_t &v, const void *src, void *dst, data_type_t ddt,
        const gemm::s8_plan_t &plan, const scratchpad::grantor_t &spad, scratchpad::key_t key_w,
        scratchpad::key_t key_plan, scratchpad::key_t key_tile) {
    const dim_t K = v.K, N = v.N;
    int8_t *wd = spad.get<int8_t>(key_w);
    if (!wd) return status::out_of_memory;
    const int nthr_run = std::min(nthr_for(v.NP), spad.nthr());
    parallel(nthr_run, [&](int ithr, int nthr) {
        int8_t *panel = spad.get<int8_t>(key_tile, ithr);
        if (!panel) return;
        dim_t p0, p1;
        balance211(v.NP, nthr, ithr, p0, p1);
        for (dim_t p = p0; p < p1; ++p) {
            expand<int8_t, int8_t>(v, p, panel);
            const dim_t n0 = p * P, w = std::min(P, N - n0);
            for (dim_t k = 0; k < K; ++k) std::memcpy(wd + k * N + n0, panel + k * P, (size_t)w);
        }
    });
    int_out_t ep;
    ep.dst = dst;
    ep.dt = ddt;
    ep.N = N;
    return plan.execute(src, K, wd, N, spad, key_plan, ep);
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
    const dim_t K = weights_md_.dims[0];
    // f32: a group tile plus one panel to expand into; int8: one panel.
    const dim_t cols = integer ? packed::panel : (G + 1) * packed::panel;
    scratchpad_registry().book_per_thread(key_tile, (size_t)(K * cols) * 4);
    if (!integer) {
        KESTREL_CHECK(plan.init(dst_md_.dims[0], DNNL_RUNTIME_DIM_VAL, K, false, false));
        plan.book(scratchpad_registry(), key_plan);
    } else {
        const dim_t M = dst_md_.dims[0], N = dst_md_.dims[1];
        KESTREL_CHECK(s8plan.init(M, N, K, false, false, src_md_.data_type == dnnl_s8, false, false));
        s8plan.book(scratchpad_registry(), key_plan);
        scratchpad_registry().book(key_wdense, (size_t)(K * N));
    }
    return status::success;
}

status_t packed_matmul_t::execute(const exec_ctx_t &ctx) const {
    const auto *pd = static_cast<const pd_t *>(pd_.get());
    const memory_desc_t &wmd = *pd->weights_md(0);
    const dim_t M = pd->dst_md()->dims[0], N = pd->dst_md()->dims[1], K = wmd.dims[0];
    void *dst = ctx.output<void>(DNNL_ARG_DST);
    if (M * N == 0) return status::success;
    const dnnl_memory *wm = ctx.memory(DNNL_ARG_WEIGHTS);
    const data_type_t ddt = pd->dst_md()->data_type;
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
        return run_f32(v, static_cast<const float *>(src), static_cast<float *>(dst), M, pd->plan, spad,
                pd_t::key_tile, pd_t::key_plan);
    return run_int8(v, src, dst, ddt, pd->s8plan, spad, pd_t::key_wdense, pd_t::key_plan, pd_t::key_tile);
}

} // namespace kestrel
