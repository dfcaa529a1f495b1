// Process-wide settings a user may change at run time (all thread-safe).
#ifndef KESTREL_CORE_DEFAULTS_HPP
#define KESTREL_CORE_DEFAULTS_HPP

#include "core/common.hpp"

namespace kestrel {

bool valid_fpmath_mode(dnnl_fpmath_mode_t mode);
// ONEDNN_DEFAULT_FPMATH_MODE, or strict; changed by the C API.
dnnl_fpmath_mode_t default_fpmath_mode();
void set_default_fpmath_mode(dnnl_fpmath_mode_t mode);

// ONEDNN_PRIMITIVE_CACHE_CAPACITY, or 1024.
int primitive_cache_capacity();
void set_primitive_cache_capacity(int capacity);

} // namespace kestrel

#endif
