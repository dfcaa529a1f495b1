// Naive helpers for the data-movement tests: element offsets computed from
// the descriptor fields directly, and element conversions written here
// independently of the library (bf16 by comparing the two neighbours,
// f16 through the compiler's _Float16).
#ifndef KESTREL_TEST_REORDER_DM_NAIVE_HPP
#define KESTREL_TEST_REORDER_DM_NAIVE_HPP

#include <cmath>
#include <cstring>
#include <vector>

#include "core/memory_desc.hpp"
#include "kt_test.hpp"

namespace dmt {

// Offset (in elements) of logical position pos: outer dims through their
// strides, then the inner blocks folded outermost first.
inline int64_t naive_off(const dnnl_memory_desc &md, const int64_t *pos) {
    const auto &b = md.blocking;
    int64_t blk[DNNL_MAX_NDIMS];
    for (int d = 0; d < DNNL_MAX_NDIMS; ++d) blk[d] = 1;
    for (int i = 0; i < b.inner_nblks; ++i) blk[b.inner_idxs[i]] *= b.inner_blks[i];
    int64_t off = md.offset0;
    for (int d = 0; d < md.ndims; ++d) off += pos[d] / blk[d] * b.strides[d];
    int64_t in = 0;
    for (int i = 0; i < b.inner_nblks; ++i) {
        const int d = (int)b.inner_idxs[i];
        int64_t later = 1;
        for (int j = i + 1; j < b.inner_nblks; ++j)
            if (b.inner_idxs[j] == d) later *= b.inner_blks[j];
        in = in * b.inner_blks[i] + (pos[d] % blk[d]) / later % b.inner_blks[i];
    }
    return off + in;
}

inline float bf16_val(uint16_t v) {
    uint32_t u = (uint32_t)v << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline uint16_t to_bf16(float f) {
    if (std::isnan(f)) return 0x7fc0;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
    double dl = std::fabs((double)f - bf16_val(lo)), dh = std::fabs((double)bf16_val(hi) - f);
    if ((lo & 0x7f80) == 0x7f80) return lo; // inf stays inf
    if (dl < dh) return lo;
    if (dh < dl) return hi;
    return (lo & 1) ? hi : lo;
}

inline double sat_round(float v, double lo, double hi) {
    if (std::isnan(v)) return 0.f;
    double r = std::rint((double)v);
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    return r;
}

// Element i of a buffer of type dt, as double (exact for every type).
inline double get(dnnl_data_type_t dt, const void *p, int64_t i) {
    switch (dt) {
        case dnnl_f32: return ((const float *)p)[i];
        case dnnl_bf16: return bf16_val(((const uint16_t *)p)[i]);
        case dnnl_f16: {
            _Float16 h;
            std::memcpy(&h, (const uint16_t *)p + i, 2);
            return (double)(float)h;
        }
        case dnnl_s32: return ((const int32_t *)p)[i];
        case dnnl_s8: return ((const int8_t *)p)[i];
        case dnnl_u8: return ((const uint8_t *)p)[i];
        default: return 0;
    }
}

inline void put(dnnl_data_type_t dt, void *p, int64_t i, float v) {
    switch (dt) {
        case dnnl_f32: ((float *)p)[i] = v; break;
        case dnnl_bf16: ((uint16_t *)p)[i] = to_bf16(v); break;
        case dnnl_f16: {
            _Float16 h = (_Float16)v;
            std::memcpy((uint16_t *)p + i, &h, 2);
            break;
        }
        // oneDNN saturates at the int32 limits themselves.
        case dnnl_s32: ((int32_t *)p)[i] = (int32_t)sat_round(v, -2147483648.0, 2147483647.0); break;
        case dnnl_s8: ((int8_t *)p)[i] = (int8_t)sat_round(v, -128, 127); break;
        case dnnl_u8: ((uint8_t *)p)[i] = (uint8_t)sat_round(v, 0, 255); break;
        default: break;
    }
}

inline bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline int64_t nelems(const dnnl_memory_desc &md) {
    int64_t n = 1;
    for (int d = 0; d < md.ndims; ++d) n *= md.dims[d];
    return n;
}

// Logical row-major index l -> position.
inline void unravel(const dnnl_memory_desc &md, int64_t l, int64_t *pos, bool padded = false) {
    for (int d = md.ndims - 1; d >= 0; --d) {
        int64_t e = padded ? md.padded_dims[d] : md.dims[d];
        pos[d] = l % e;
        l /= e;
    }
}

// A buffer for md, filled with `garbage` bytes, then the logical values.
inline std::vector<char> make_buf(const dnnl_memory_desc &md, const std::vector<float> &vals, int garbage) {
    // A submemory starts offset0 elements into its parent's buffer.
    std::vector<char> buf(dnnl_memory_desc_get_size(&md) + (size_t)md.offset0 * 8 + 64, (char)garbage);
    int64_t pos[DNNL_MAX_NDIMS];
    for (int64_t l = 0; l < nelems(md); ++l) {
        unravel(md, l, pos);
        put(md.data_type, buf.data(), naive_off(md, pos), vals[(size_t)l]);
    }
    return buf;
}

struct handles_t {
    dnnl_engine_t eng = nullptr;
    dnnl_stream_t strm = nullptr;
    handles_t() {
        KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
        KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    ~handles_t() {
        dnnl_stream_destroy(strm);
        dnnl_engine_destroy(eng);
    }
};

inline dnnl_memory_t mem(const dnnl_memory_desc *md, dnnl_engine_t eng, void *p) {
    dnnl_memory_t m = nullptr;
    KT_OK(dnnl_memory_create(&m, md, eng, p));
    return m;
}

// Executes every implementation of pd in turn; f(impl name, primitive)
// runs one of them.
template <typename F>
void for_each_impl(dnnl_primitive_desc_t pd, F f) {
    do {
        dnnl_primitive_t prim = nullptr;
        KT_OK(dnnl_primitive_create(&prim, pd));
        f(kt::impl_name(pd), prim);
        dnnl_primitive_destroy(prim);
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
}

} // namespace dmt

#endif
