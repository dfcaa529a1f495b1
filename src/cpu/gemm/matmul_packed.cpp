#include "cpu/gemm/matmul_packed.hpp"

#include <algorithm>
#include <cstring>

#include "core/memory.hpp"
#include "core/packed_layout.hpp"
#include "cpu/common/common.hpp"
#include "cpu/isa.hpp"
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

// The kernels the CPU runs under the ISA cap: AVX-512, AVX2 or plain C++.
const gemm::packed_kernels_t *pick_kernels() {
    const gemm::packed_kernels_t *k = nullptr;
    if (isa::has(isa::avx512)) k = gemm::packed_kernels_avx512();
    if (!k && isa::has(isa::avx2)) k = gemm::packed_kernels_avx2();
    return k ? k : gemm::packed_kernels_portable();
}

// Index in `values` of panel p's first value, or -1 when the values its
// masks count would not lie inside the buffer (hostile offsets or masks:
// such a panel is never read, and its columns of dst are written as 0).
dim_t panel_start(const packed_view_t &v, dim_t p) {
    const int32_t e = v.off[p];
    if (e < 0) return -1;
    const uint16_t *mask = v.mask + p * v.K;
    dim_t total = 0;
    for (dim_t k = 0; k < v.K; ++k) total += __builtin_popcount(mask[k]);
    return e + total <= v.cap ? e : -1;
}

void store(data_type_t dt, void *dst, dim_t i, int32_t v) {
    switch (dt) {
        case dnnl_s32: static_cast<int32_t *>(dst)[i] = v; break;
        case dnnl_s8: static_cast<int8_t *>(dst)[i] = (int8_t)std::min(std::max(v, -128), 127); break;
        case dnnl_u8: static_cast<uint8_t *>(dst)[i] = (uint8_t)std::min(std::max(v, 0), 255); break;
        default: static_cast<float *>(dst)[i] = (float)v; break;
    }
}

struct job_t {
    packed_view_t v;
    const void *src;
    void *dst;
    data_type_t sdt, ddt;
    dim_t M;
    const gemm::packed_kernels_t *kern;
    bool integer;
};

// dst rows [m0, m0 + mr) x the columns of panel p (w of them).
void run_tile(const job_t &j, dim_t p, dim_t start, dim_t m0, int mr) {
    const packed_view_t &v = j.v;
    const dim_t K = v.K, N = v.N, n0 = p * P, w = std::min(P, N - n0);
    const uint16_t *mask = v.mask + p * K;
    if (!j.integer) {
        alignas(64) float acc[gemm::packed_max_mr * P] = {};
        const float *val = static_cast<const float *>(v.val);
        if (start >= 0)
            j.kern->f32(mask, val + start, val + v.cap, K, static_cast<const float *>(j.src) + m0 * K, K, mr, acc);
        float *d = static_cast<float *>(j.dst);
        for (int r = 0; r < mr; ++r) std::memcpy(d + (m0 + r) * N + n0, acc + r * P, (size_t)w * sizeof(float));
        return;
    }
    alignas(64) int32_t acc[gemm::packed_max_mr * P] = {};
    const int8_t *val = static_cast<const int8_t *>(v.val);
    if (start >= 0) {
        const auto fn = j.sdt == dnnl_u8 ? j.kern->u8s8 : j.kern->s8s8;
        fn(mask, val + start, val + v.cap, K, static_cast<const int8_t *>(j.src) + m0 * K, K, mr, acc);
    }
    for (int r = 0; r < mr; ++r)
        for (dim_t c = 0; c < w; ++c) store(j.ddt, j.dst, (m0 + r) * N + n0 + c, acc[r * P + c]);
}

// Work item t is (panel t / MB, row block t % MB): consecutive items of a
// thread share a panel, whose values stay in cache across row blocks.
void run(const job_t &j) {
    const int mr = j.kern->mr;
    const dim_t MB = (j.M + mr - 1) / mr, work = j.v.NP * MB;
    parallel(nthr_for(work), [&](int ithr, int nthr) {
        dim_t t0, t1;
        balance211(work, nthr, ithr, t0, t1);
        dim_t p_cur = -1, start = -1;
        for (dim_t t = t0; t < t1; ++t) {
            const dim_t p = t / MB, m0 = (t % MB) * mr;
            if (p != p_cur) {
                p_cur = p;
                start = panel_start(j.v, p);
            }
            run_tile(j, p, start, m0, (int)std::min<dim_t>(mr, j.M - m0));
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
    kernels = pick_kernels();
    name_ = std::string("sparse:packed:") + kernels->isa;
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
        for (dim_t i = 0; i < M * N; ++i) store_f32(ddt, dst, i, 0.f);
        return status::success;
    }
    job_t j;
    j.v.val = wm->handle(0);
    j.v.off = static_cast<const int32_t *>(wm->handle(1));
    j.v.mask = static_cast<const uint16_t *>(wm->handle(2));
    j.v.K = K;
    j.v.N = N;
    j.v.NP = packed::panels(wmd);
    j.v.cap = K * N;
    j.src = ctx.input<void>(DNNL_ARG_SRC);
    j.dst = dst;
    j.sdt = pd->src_md()->data_type;
    j.ddt = ddt;
    j.M = M;
    j.kern = pd->kernels;
    j.integer = pd->integer;
    run(j);
    return status::success;
}

} // namespace kestrel
