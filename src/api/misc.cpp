#include "api/api.hpp"
#include "core/defaults.hpp"
#include "core/primitive_cache.hpp"
#include "core/verbose.hpp"
#include "cpu/isa.hpp"
#include "dnnl_version.h"

using namespace kestrel;

extern "C" {

const dnnl_version_t *dnnl_version(void) {
    static const dnnl_version_t v = {DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH,
            DNNL_VERSION_HASH, DNNL_CPU_RUNTIME, DNNL_GPU_RUNTIME};
    return &v;
}

dnnl_status_t dnnl_set_verbose(int level) {
    if (level < 0 || level > 2) return dnnl_invalid_arguments;
    verbose::set_level(level);
    return dnnl_success;
}

// Kestrel generates no code at run time: the JIT controls are accepted and
// have nothing to act on.
// api-coverage: no-op: Kestrel generates no code at run time, so there is nothing to dump
dnnl_status_t dnnl_set_jit_dump(int enable) {
    (void)enable;
    return dnnl_success;
}

// api-coverage: no-op: there is no generated code for a profiler to see
dnnl_status_t dnnl_set_jit_profiling_flags(unsigned flags) {
    (void)flags;
    return dnnl_success;
}

// api-coverage: no-op: there is no generated code to dump into the directory
dnnl_status_t dnnl_set_jit_profiling_jitdumpdir(const char *dir) {
    if (!dir) return dnnl_invalid_arguments;
    return dnnl_success;
}

dnnl_status_t dnnl_set_max_cpu_isa(dnnl_cpu_isa_t isa) { return isa::set_max(isa); }

dnnl_cpu_isa_t dnnl_get_effective_cpu_isa(void) { return isa::effective_cpu_isa(); }

dnnl_status_t dnnl_set_cpu_isa_hints(dnnl_cpu_isa_hints_t isa_hints) { return isa::set_hints(isa_hints); }

dnnl_cpu_isa_hints_t dnnl_get_cpu_isa_hints(void) { return isa::hints(); }

dnnl_status_t dnnl_get_primitive_cache_capacity(int *capacity) {
    if (!capacity) return dnnl_invalid_arguments;
    *capacity = primitive_cache_capacity();
    return dnnl_success;
}

dnnl_status_t dnnl_set_primitive_cache_capacity(int capacity) {
    if (capacity < 0) return dnnl_invalid_arguments;
    set_primitive_cache_capacity(capacity);
    primitive_cache_shrink(capacity);
    return dnnl_success;
}

dnnl_status_t dnnl_get_default_fpmath_mode(dnnl_fpmath_mode_t *mode) {
    if (!mode) return dnnl_invalid_arguments;
    *mode = default_fpmath_mode();
    return dnnl_success;
}

dnnl_status_t dnnl_set_default_fpmath_mode(dnnl_fpmath_mode_t mode) {
    if (!valid_fpmath_mode(mode)) return dnnl_invalid_arguments;
    set_default_fpmath_mode(mode);
    return dnnl_success;
}

} // extern "C"
