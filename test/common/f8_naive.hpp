// Naive fp8 arithmetic for the tests, written from the format definitions
// (no library code): the value of every code, and rounding of a double to
// a binary float format by counting quanta, ties to even.
//   f8_e5m2: sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like:
//            exponent 31 holds inf (mantissa 0) and NaN.
//   f8_e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits (OCP E4M3FN):
//            no infinities, x.1111.111 is the only NaN, largest finite 448.
#ifndef KESTREL_TEST_F8_NAIVE_HPP
#define KESTREL_TEST_F8_NAIVE_HPP

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace f8n {

struct fmt_t {
    int man, bias;
    double max; // largest finite value
    bool has_inf;
};
constexpr fmt_t e5m2{2, 15, 57344.0, true};
constexpr fmt_t e4m3{3, 7, 448.0, false};
constexpr fmt_t bf16{7, 127, 3.3895313892515355e38, true};
constexpr fmt_t f16{10, 15, 65504.0, true};

inline double decode(const fmt_t &f, uint8_t v) {
    const int ebits = 7 - f.man;
    const int e = (v >> f.man) & ((1 << ebits) - 1), m = v & ((1 << f.man) - 1);
    const double sign = (v & 0x80) ? -1.0 : 1.0;
    if (f.has_inf && e == (1 << ebits) - 1)
        return m == 0 ? sign * std::numeric_limits<double>::infinity() : std::nan("");
    if (!f.has_inf && e == (1 << ebits) - 1 && m == (1 << f.man) - 1) return std::nan("");
    if (e == 0) return sign * std::ldexp((double)m, 1 - f.bias - f.man);
    return sign * std::ldexp(1.0 + (double)m / (1 << f.man), e - f.bias);
}

// x rounded to the format: the nearest multiple of the quantum of x's
// binade (never finer than the subnormal quantum), ties to the even count;
// beyond the largest finite value, +-inf (or NaN without infinities).
inline double round_to(const fmt_t &f, double x) {
    if (std::isnan(x)) return x;
    if (std::isinf(x)) return f.has_inf ? x : std::nan("");
    if (x == 0) return x;
    int e;
    std::frexp(std::fabs(x), &e); // |x| in [2^(e-1), 2^e)
    int ex = e - 1;
    if (ex < 1 - f.bias) ex = 1 - f.bias;
    const double q = std::ldexp(1.0, ex - f.man);
    const double r = std::nearbyint(x / q) * q; // default mode: ties to even
    if (std::fabs(r) > f.max)
        return f.has_inf ? std::copysign(std::numeric_limits<double>::infinity(), x) : std::nan("");
    return r == 0 ? std::copysign(0.0, x) : r;
}

// Code of a value of the format (NaN: the canonical quiet code; callers
// compare NaNs by kind, not by code).
inline uint8_t encode_exact(const fmt_t &f, double x) {
    for (int c = 0; c < 256; ++c) {
        const double v = decode(f, (uint8_t)c);
        if (std::isnan(x) && std::isnan(v)) return (uint8_t)(c | (std::signbit(x) ? 0x80 : 0));
        if (v == x && std::signbit(v) == std::signbit(x)) return (uint8_t)c;
    }
    return 0xff;
}

inline double bf16_value(uint16_t h) {
    uint32_t b = (uint32_t)h << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

inline double f16_value(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const double sign = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 31) return m ? std::nan("") : sign * std::numeric_limits<double>::infinity();
    if (e == 0) return sign * std::ldexp((double)m, -24);
    return sign * std::ldexp(1.0 + m / 1024.0, e - 15);
}

// Same value (NaN matches NaN; zeros must agree in sign).
inline bool same(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return a == b && std::signbit(a) == std::signbit(b);
}

} // namespace f8n

#endif
