// Shared vocabulary of the library: status shortcuts, small utilities.
#ifndef KESTREL_CORE_COMMON_HPP
#define KESTREL_CORE_COMMON_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "dnnl_types.h"

namespace kestrel {

using status_t = dnnl_status_t;
using dim_t = dnnl_dim_t;
using dims_t = dnnl_dims_t;
using data_type_t = dnnl_data_type_t;
using format_tag_t = dnnl_format_tag_t;

constexpr int max_ndims = DNNL_MAX_NDIMS;

namespace status {
constexpr status_t success = dnnl_success;
constexpr status_t out_of_memory = dnnl_out_of_memory;
constexpr status_t invalid_arguments = dnnl_invalid_arguments;
constexpr status_t unimplemented = dnnl_unimplemented;
constexpr status_t runtime_error = dnnl_runtime_error;
} // namespace status

#define KESTREL_CHECK(expr) \
    do { \
        kestrel::status_t st_ = (expr); \
        if (st_ != kestrel::status::success) return st_; \
    } while (0)

template <typename T, typename U>
constexpr T div_up(T a, U b) {
    return (a + b - 1) / b;
}
template <typename T, typename U>
constexpr T rnd_up(T a, U b) {
    return div_up(a, b) * b;
}

template <typename T>
inline bool one_of(T v, T a) { return v == a; }
template <typename T, typename... Ts>
inline bool one_of(T v, T a, Ts... rest) { return v == a || one_of(v, rest...); }

inline bool any_null() { return false; }
template <typename T, typename... Ts>
inline bool any_null(T p, Ts... rest) { return p == nullptr || any_null(rest...); }

// Size in bytes of one element, 0 for undef/unknown. Sub-byte types report 1
// here; layout code accounts for packing where it matters.
size_t data_type_size(data_type_t dt);
// s4 and u4 pack two elements per byte, the element at the lower offset in
// the low nibble (as oneDNN stores them).
inline bool is_sub_byte(data_type_t dt) { return dt == dnnl_s4 || dt == dnnl_u4; }
// Bytes spanned by elements [0, n) of type dt.
inline size_t bytes_of(data_type_t dt, dim_t n) {
    return is_sub_byte(dt) ? (size_t)(n / 2 + n % 2) : (size_t)n * data_type_size(dt);
}

// Splits n items over nthr workers as evenly as possible.
inline void balance211(dim_t n, int nthr, int ithr, dim_t &start, dim_t &end) {
    if (nthr <= 1) {
        start = 0;
        end = n;
        return;
    }
    dim_t base = n / nthr, rem = n % nthr;
    start = ithr * base + (ithr < rem ? ithr : rem);
    end = start + base + (ithr < rem ? 1 : 0);
}

// Walks a multi-dimensional index in row-major order.
inline bool nd_next(int ndims, const dim_t *dims, dim_t *idx) {
    for (int d = ndims - 1; d >= 0; --d) {
        if (++idx[d] < dims[d]) return true;
        idx[d] = 0;
    }
    return false;
}

} // namespace kestrel

#endif
