// Helpers shared by every C entry point: no exception crosses extern "C".
#ifndef KESTREL_API_API_HPP
#define KESTREL_API_API_HPP

#include <cstring>
#include <new>

#include "dnnl.h"
#include "core/common.hpp"

namespace kestrel {

template <typename F>
dnnl_status_t guard(F &&f) noexcept {
    try {
        return f();
    } catch (const std::bad_alloc &) {
        return dnnl_out_of_memory;
    } catch (...) {
        return dnnl_runtime_error;
    }
}

// The integer a C caller passed for an enum parameter. A C (or ctypes)
// caller may pass any value, and C++ may not load an out-of-range value as
// the enum type, so read the bytes and range-check before using the enum.
template <typename E>
int raw_enum(const E &e) noexcept {
    static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
    int v;
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

// A data type a caller passed, checked as a raw integer (see raw_enum).
inline bool valid_dt(const dnnl_data_type_t &dt) noexcept {
    const int v = raw_enum(dt);
    return v > dnnl_data_type_undef && v <= dnnl_f4_e3m0;
}

// Heap copy for a handle; nullptr on allocation failure.
template <typename T, typename... A>
T *make_handle(A &&...a) noexcept {
    try {
        return new T(static_cast<A &&>(a)...);
    } catch (...) {
        return nullptr;
    }
}

} // namespace kestrel

#endif
