// Helpers shared by every C entry point: no exception crosses extern "C".
#ifndef KESTREL_API_API_HPP
#define KESTREL_API_API_HPP

#include <cstring>
#include <new>

#include "dnnl.h"
#include "core/common.hpp"
#include "core/memory_desc.hpp"

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

// True when any given (non-null) descriptor has a runtime dim or stride.
// Only matmul supports those; every other kind answers unimplemented, as
// oneDNN does, before any other check of the descriptors.
inline bool any_runtime() noexcept { return false; }
template <typename... R>
bool any_runtime(const dnnl_memory_desc *md, R... rest) noexcept {
    if (md && md->ndims > 0 && md->ndims <= max_ndims && mdw_t(*md).has_runtime_dims_or_strides())
        return true;
    return any_runtime(rest...);
}
inline bool any_runtime_of(int n, const dnnl_memory_desc *const *mds) noexcept {
    for (int i = 0; i < n; ++i)
        if (any_runtime(mds[i])) return true;
    return false;
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
