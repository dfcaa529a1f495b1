// Vectorised kernels of the element-wise primitives, one table per ISA.
// Each kernel does one thread's share of a dense problem; the callers split
// the work (threading.hpp) and pick the table at descriptor creation.
// Element pointers are typed by `dt` (f32 or bf16 storage, f32 compute).
#ifndef KESTREL_CPU_ELTWISE_KERNELS_HPP
#define KESTREL_CPU_ELTWISE_KERNELS_HPP

#include "core/common.hpp"
#include "cpu/isa.hpp"

namespace kestrel {
namespace elt {

// Not a oneDNN algorithm: PReLU as a binary op, op(a, w) = a > 0 ? a : w * a,
// so PReLU runs through the binary kernels and their broadcast shapes.
constexpr dnnl_alg_kind_t alg_prelu = (dnnl_alg_kind_t)0x7fff0001;

struct kernels_t {
    const char *isa;
    // True when eltwise() computes `alg` (others use the reference).
    bool (*eltwise_has)(dnnl_alg_kind_t alg);
    // dst[i] = f(src[i]) for i in [0, n); src and dst share the type.
    void (*eltwise)(dnnl_alg_kind_t alg, float alpha, float beta, data_type_t dt,
            const void *src, void *dst, dim_t n);
    // dst[i] = op(s0 * a[i], s1 * b[i]); a and dst of type dt, b of type
    // dt_b (dt or f32); b_inc 0 reads b[0] for every i (scalar broadcast).
    void (*binary)(dnnl_alg_kind_t alg, float s0, float s1, data_type_t dt,
            data_type_t dt_b, const void *a, const void *b, dim_t b_inc, void *dst, dim_t n);
    // dst[i] = op(s0 * a[i], w[i % period]) with w in f32 (already scaled);
    // period is the channel block (8 or 16) of a blocked layout.
    void (*binary_period)(dnnl_alg_kind_t alg, float s0, data_type_t dt, const void *a,
            const float *w, dim_t period, void *dst, dim_t n);
    // Softmax over `rows` contiguous rows of `len` elements.
    void (*softmax_rows)(bool log, data_type_t dt, const void *src, void *dst, dim_t rows,
            dim_t len);
    // Softmax over one [len][stride] block along len, for the columns
    // [j0, j1) of the stride; src/dst point at the block.
    void (*softmax_cols)(bool log, data_type_t dt, const void *src, void *dst, dim_t len,
            dim_t stride, dim_t j0, dim_t j1);
    // True when eltwise_bwd() computes `alg` (others use the reference).
    bool (*eltwise_bwd_has)(dnnl_alg_kind_t alg);
    // diff_src[i] = diff_dst[i] * f'(x[i]) for i in [0, n); x is src, or
    // dst for the _use_dst_for_bwd algorithms; all three share the type dt.
    void (*eltwise_bwd)(dnnl_alg_kind_t alg, float alpha, float beta, data_type_t dt,
            const void *x, const void *diff_dst, void *diff_src, dim_t n);
};

const kernels_t *kernels_avx512();
const kernels_t *kernels_avx2();

// The best table the CPU (capped by ONEDNN_MAX_CPU_ISA) allows; nullptr on
// baseline machines.
inline const kernels_t *best_kernels() {
    if (isa::has(isa::avx512)) return kernels_avx512();
    if (isa::has(isa::avx2)) return kernels_avx2();
    return nullptr;
}

inline bool vec_dt(data_type_t dt) { return dt == dnnl_f32 || dt == dnnl_bf16; }

} // namespace elt
} // namespace kestrel

#endif
