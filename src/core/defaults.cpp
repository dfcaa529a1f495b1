#include "core/defaults.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace kestrel {

namespace {

const char *getenv2(const char *onednn, const char *dnnl) {
    const char *v = std::getenv(onednn);
    return v ? v : std::getenv(dnnl);
}

int fpmath_from_env() {
    const char *v = getenv2("ONEDNN_DEFAULT_FPMATH_MODE", "DNNL_DEFAULT_FPMATH_MODE");
    if (!v) return dnnl_fpmath_mode_strict;
    struct { const char *name; dnnl_fpmath_mode_t mode; } table[] = {
            {"STRICT", dnnl_fpmath_mode_strict}, {"BF16", dnnl_fpmath_mode_bf16},
            {"F16", dnnl_fpmath_mode_f16}, {"TF32", dnnl_fpmath_mode_tf32},
            {"ANY", dnnl_fpmath_mode_any}};
    for (auto &e : table)
        if (!strcasecmp(v, e.name)) return e.mode;
    return dnnl_fpmath_mode_strict;
}

int cache_from_env() {
    const char *v = getenv2("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "DNNL_PRIMITIVE_CACHE_CAPACITY");
    if (!v) return 1024;
    long c = std::strtol(v, nullptr, 10);
    return c < 0 ? 1024 : (int)c;
}

std::atomic<int> fpmath {-1};
std::atomic<int> cache_capacity {-1};

int lazy(std::atomic<int> &slot, int (*init)()) {
    int v = slot.load();
    if (v < 0) {
        int fresh = init();
        slot.compare_exchange_strong(v, fresh);
        v = slot.load();
    }
    return v;
}

} // namespace

bool valid_fpmath_mode(dnnl_fpmath_mode_t mode) {
    return one_of(mode, dnnl_fpmath_mode_strict, dnnl_fpmath_mode_bf16, dnnl_fpmath_mode_f16,
            dnnl_fpmath_mode_tf32, dnnl_fpmath_mode_any);
}

dnnl_fpmath_mode_t default_fpmath_mode() {
    return (dnnl_fpmath_mode_t)lazy(fpmath, fpmath_from_env);
}
void set_default_fpmath_mode(dnnl_fpmath_mode_t mode) { fpmath.store(mode); }

int primitive_cache_capacity() { return lazy(cache_capacity, cache_from_env); }
void set_primitive_cache_capacity(int capacity) { cache_capacity.store(capacity); }

} // namespace kestrel
