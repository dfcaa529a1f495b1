// Per-element arithmetic of a reorder, shared by the generic and reference
// implementations so both apply the same formula in the same order.
#ifndef KESTREL_CPU_REORDER_REORDER_ELEM_HPP
#define KESTREL_CPU_REORDER_REORDER_ELEM_HPP

#include "cpu/reorder/reorder_pd.hpp"
#include "cpu/types.hpp"

namespace kestrel {

// Where the parameters of one element live in the parameter buffers.
struct reorder_elem_idx_t {
    dim_t src_scale = 0, dst_scale = 0, src_zp = 0;
};

// The quantized value of src value `s` for the element at dst offset doff.
inline float reorder_apply(const reorder_quant_t &q, const reorder_quant_args_t &a,
        const reorder_elem_idx_t &i, float s, data_type_t ddt, const void *dst, dim_t doff) {
    if (q.src_zp) s -= (float)a.src_zp[i.src_zp];
    if (q.src_scale) s *= a.src_scale[i.src_scale];
    if (q.with_sum) s += q.beta * (load_f32(ddt, dst, doff) - (float)a.dst_zp);
    if (q.dst_scale) s /= a.dst_scale[i.dst_scale];
    if (q.dst_zp) s += (float)a.dst_zp;
    return s;
}

// Copies one element of dt_size bytes unchanged.
inline void copy_elem(size_t dt_size, const char *src, dim_t soff, char *dst, dim_t doff) {
    switch (dt_size) {
        case 4: reinterpret_cast<uint32_t *>(dst)[doff] = reinterpret_cast<const uint32_t *>(src)[soff]; break;
        case 2: reinterpret_cast<uint16_t *>(dst)[doff] = reinterpret_cast<const uint16_t *>(src)[soff]; break;
        case 1: dst[doff] = src[soff]; break;
        default: std::memcpy(dst + doff * dt_size, src + soff * dt_size, dt_size); break;
    }
}

inline void zero_elem(size_t dt_size, char *dst, dim_t doff) {
    std::memset(dst + doff * dt_size, 0, dt_size);
}

inline bool reorder_dt_supported(data_type_t dt) {
    return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16, dnnl_s32, dnnl_s8, dnnl_u8, dnnl_f8_e5m2, dnnl_f8_e4m3);
}

// f8 converts only to and from floating types (f32, bf16, f16, f8), as in
// oneDNN; the other pairs of supported types all convert.
inline bool reorder_dts_supported(data_type_t sdt, data_type_t ddt) {
    auto fp = [](data_type_t dt) { return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16) || is_f8(dt); };
    if (!reorder_dt_supported(sdt) || !reorder_dt_supported(ddt)) return false;
    return (!is_f8(sdt) && !is_f8(ddt)) || (fp(sdt) && fp(ddt));
}

} // namespace kestrel

#endif
