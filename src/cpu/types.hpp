// Element types: conversion of every storage type to and from f32, with the
// rounding and saturation oneDNN applies (round to nearest even, saturate
// integers, NaN-preserving bf16/f16/f8, f8 overflow as oneDNN: e5m2 to inf,
// e4m3 to NaN).
#ifndef KESTREL_CPU_TYPES_HPP
#define KESTREL_CPU_TYPES_HPP

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/common.hpp"

namespace kestrel {

inline float bf16_to_f32(uint16_t v) {
    uint32_t bits = (uint32_t)v << 16;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

inline uint16_t f32_to_bf16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40); // quiet NaN
    bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even
    return (uint16_t)(bits >> 16);
}

inline float f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { // subnormal: normalise
            int e = -1;
            do {
                man <<= 1;
                ++e;
            } while (!(man & 0x400u));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

inline uint16_t f32_to_f16(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); // overflow to inf
    if (abs < 0x38800000u) { // result is subnormal or zero
        if (abs < 0x33000000u) return sign;
        uint32_t e = abs >> 23, man = (abs & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - e; // 14 + (113 - e) - 1 + 1
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u))) ++half;
        return (uint16_t)(sign | half);
    }
    uint32_t r = abs + 0xfffu + ((abs >> 13) & 1u); // round to nearest even
    return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

// f8_e5m2 (1.5.2, bias 15, IEEE-like) and f8_e4m3 (OCP E4M3FN: 1.4.3,
// bias 7, no infinities, S.1111.111 the only NaN, largest finite 448).
// Both widen exactly through f16: an e5m2 code is the high byte of the f16
// with the same value; an e4m3 code with its exponent and mantissa moved
// into an f16's low exponent and high mantissa bits is the value / 2^8.
inline float f8_e5m2_to_f32(uint8_t v) {
    uint16_t h = (uint16_t)(v << 8);
    if ((v & 0x7c) == 0x7c && (v & 0x3)) h |= 0x0200; // quiet the NaN
    return f16_to_f32(h);
}

inline float f8_e4m3_to_f32(uint8_t v) {
    if ((v & 0x7f) == 0x7f) return f16_to_f32((uint16_t)(((v & 0x80) << 8) | 0x7e00));
    return f16_to_f32((uint16_t)(((v & 0x80) << 8) | ((v & 0x7f) << 7))) * 256.f;
}

// f32 to an 8-bit float with `man` mantissa bits and exponent bias `bias`,
// rounded to nearest even in one step. Finite results above the largest
// finite code `max_code` (after rounding) become `over_code`: infinity for
// e5m2, NaN for e4m3 (as oneDNN's non-saturating conversion does); NaN
// becomes `nan_code`. The sign is kept, zeros and underflows included.
template <int man, int bias>
inline uint8_t f32_to_f8(float f, uint32_t max_code, uint8_t over_code, uint8_t nan_code) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    const uint8_t sign = (uint8_t)((bits >> 24) & 0x80);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) // e5m2 keeps the payload's low bit under its quiet bit
        return (uint8_t)(sign | nan_code | (man == 2 ? (abs >> 21) & 1u : 0u));
    if (abs == 0x7f800000u) return (uint8_t)(sign | over_code);
    const int emin = 1 - bias; // exponent of the smallest normal
    if ((int)(abs >> 23) - 127 < emin) {
        // Subnormal range: count quanta of 2^(emin - man); scaling by a
        // power of two is exact, nearbyint rounds half to even. A count of
        // 2^man is the smallest normal, whose code is that same number.
        float q;
        std::memcpy(&q, &abs, sizeof(q));
        return (uint8_t)(sign | (uint32_t)std::nearbyint(std::ldexp(q, man - emin)));
    }
    const int drop = 23 - man;
    const uint32_t r = (abs + ((1u << (drop - 1)) - 1u) + ((abs >> drop) & 1u)) >> drop;
    const uint32_t code = r - ((uint32_t)(127 - bias) << man);
    return (uint8_t)(sign | (code > max_code ? over_code : code));
}

inline uint8_t f32_to_f8_e5m2(float f) { return f32_to_f8<2, 15>(f, 0x7b, 0x7c, 0x7e); }
inline uint8_t f32_to_f8_e4m3(float f) { return f32_to_f8<3, 7>(f, 0x7e, 0x7f, 0x7f); }

inline bool is_f8(data_type_t dt) { return dt == dnnl_f8_e5m2 || dt == dnnl_f8_e4m3; }

template <typename T>
inline T saturate_round(float f, float lo, float hi) {
    if (std::isnan(f)) return 0;
    f = std::nearbyint(f); // current mode: nearest even
    if (f < lo) f = lo;
    if (f > hi) f = hi;
    return (T)f;
}

// Element i of a packed s4/u4 buffer: byte i / 2, low nibble for even i.
inline int load_u4(const void *p, dim_t i) {
    const uint8_t b = static_cast<const uint8_t *>(p)[i >> 1];
    return (i & 1) ? b >> 4 : b & 0xf;
}
inline int load_s4(const void *p, dim_t i) { return (load_u4(p, i) ^ 8) - 8; }

// Reads element i of a buffer of type dt as f32.
inline float load_f32(data_type_t dt, const void *p, dim_t i) {
    switch (dt) {
        case dnnl_f32: return static_cast<const float *>(p)[i];
        case dnnl_bf16: return bf16_to_f32(static_cast<const uint16_t *>(p)[i]);
        case dnnl_f16: return f16_to_f32(static_cast<const uint16_t *>(p)[i]);
        case dnnl_f8_e5m2: return f8_e5m2_to_f32(static_cast<const uint8_t *>(p)[i]);
        case dnnl_f8_e4m3: return f8_e4m3_to_f32(static_cast<const uint8_t *>(p)[i]);
        case dnnl_s32: return (float)static_cast<const int32_t *>(p)[i];
        case dnnl_s8: return (float)static_cast<const int8_t *>(p)[i];
        case dnnl_u8: return (float)static_cast<const uint8_t *>(p)[i];
        case dnnl_s4: return (float)load_s4(p, i);
        case dnnl_u4: return (float)load_u4(p, i);
        default: return 0.f;
    }
}

// Writes f32 value v as element i of a buffer of type dt, rounding and
// saturating as oneDNN does.
inline void store_f32(data_type_t dt, void *p, dim_t i, float v) {
    switch (dt) {
        case dnnl_f32: static_cast<float *>(p)[i] = v; break;
        case dnnl_bf16: static_cast<uint16_t *>(p)[i] = f32_to_bf16(v); break;
        case dnnl_f16: static_cast<uint16_t *>(p)[i] = f32_to_f16(v); break;
        case dnnl_f8_e5m2: static_cast<uint8_t *>(p)[i] = f32_to_f8_e5m2(v); break;
        case dnnl_f8_e4m3: static_cast<uint8_t *>(p)[i] = f32_to_f8_e4m3(v); break;
        case dnnl_s32:
            // 2^31 and above saturate to INT32_MAX (as oneDNN does), which
            // no f32 can hold; below it, 2147483520 is the largest f32.
            static_cast<int32_t *>(p)[i] = v >= 2147483648.f
                    ? INT32_MAX
                    : saturate_round<int32_t>(v, -2147483648.f, 2147483520.f);
            break;
        case dnnl_s8: static_cast<int8_t *>(p)[i] = saturate_round<int8_t>(v, -128.f, 127.f); break;
        case dnnl_u8: static_cast<uint8_t *>(p)[i] = saturate_round<uint8_t>(v, 0.f, 255.f); break;
        default: break;
    }
}

} // namespace kestrel

#endif
