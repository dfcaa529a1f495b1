// Helpers shared by every C entry point: no exception crosses extern "C".
#ifndef KESTREL_API_API_HPP
#define KESTREL_API_API_HPP

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
