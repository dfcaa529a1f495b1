// The bf16 convolution tests' own bf16 conversions and element access
// (written here, not the library's): round to nearest even on the top 16
// bits (the inputs of these tests are finite), and reads / writes of
// element i of an f32 or bf16 buffer.
#ifndef KESTREL_TEST_CONV_BF16_VALUES_HPP
#define KESTREL_TEST_CONV_BF16_VALUES_HPP

#include <cstdint>
#include <cstring>

#include "dnnl.h"

namespace ktbf {

inline uint16_t to_bf16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}
inline float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline void put(void *buf, dnnl_data_type_t dt, dnnl_dim_t i, float v) {
    if (dt == dnnl_bf16)
        static_cast<uint16_t *>(buf)[i] = to_bf16(v);
    else
        static_cast<float *>(buf)[i] = v;
}
inline float get(const void *buf, dnnl_data_type_t dt, dnnl_dim_t i) {
    return dt == dnnl_bf16 ? from_bf16(static_cast<const uint16_t *>(buf)[i]) : static_cast<const float *>(buf)[i];
}

} // namespace ktbf

#endif
