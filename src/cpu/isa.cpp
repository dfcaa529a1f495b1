#include "cpu/isa.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace kestrel {
namespace isa {

namespace {

level_t detect() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
            && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        return avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2;
    return baseline;
}

level_t from_cpu_isa(dnnl_cpu_isa_t c) {
    switch (c) {
        case dnnl_cpu_isa_sse41:
        case dnnl_cpu_isa_avx: return baseline;
        case dnnl_cpu_isa_avx2:
        case dnnl_cpu_isa_avx2_vnni:
        case dnnl_cpu_isa_avx2_vnni_2: return avx2;
        default: return avx512;
    }
}

level_t env_cap() {
    const char *v = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (!v) v = std::getenv("DNNL_MAX_CPU_ISA");
    if (!v) return avx512;
    if (!strcasecmp(v, "SSE41") || !strcasecmp(v, "AVX") || !strcasecmp(v, "DEFAULT_NONE")) return baseline;
    if (!strncasecmp(v, "AVX2", 4)) return avx2;
    return avx512;
}

// The cap names AVX512_CORE itself: the avx512 level without VNNI.
bool env_denies_vnni() {
    const char *v = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (!v) v = std::getenv("DNNL_MAX_CPU_ISA");
    return v && !strcasecmp(v, "AVX512_CORE");
}

std::atomic<int> cap {-1};
std::atomic<int> vnni_denied {-1};
std::atomic<bool> frozen {false};

} // namespace

level_t effective() {
    static const level_t hw = detect();
    int c = cap.load(std::memory_order_relaxed);
    if (c < 0) {
        int fresh = env_cap();
        cap.compare_exchange_strong(c, fresh);
        c = cap.load();
    }
    frozen.store(true, std::memory_order_relaxed);
    return hw < (level_t)c ? hw : (level_t)c;
}

dnnl_cpu_isa_t effective_cpu_isa() {
    switch (effective()) {
        case avx512: return dnnl_cpu_isa_avx512_core;
        case avx2: return dnnl_cpu_isa_avx2;
        default: return dnnl_cpu_isa_sse41;
    }
}

status_t set_max(dnnl_cpu_isa_t c) {
    if (frozen.load()) return status::invalid_arguments;
    cap.store(from_cpu_isa(c));
    vnni_denied.store(c == dnnl_cpu_isa_avx512_core ? 1 : 0);
    return status::success;
}

bool has_avx512_vnni() {
    static const bool hw = [] {
        __builtin_cpu_init();
        return (bool)__builtin_cpu_supports("avx512vnni");
    }();
    if (!hw || !has(avx512)) return false;
    int d = vnni_denied.load(std::memory_order_relaxed);
    if (d < 0) {
        int fresh = env_denies_vnni() ? 1 : 0;
        vnni_denied.compare_exchange_strong(d, fresh);
        d = vnni_denied.load();
    }
    return d == 0;
}

const char *name(level_t l) {
    switch (l) {
        case avx512: return "avx512";
        case avx2: return "avx2";
        default: return "baseline";
    }
}

} // namespace isa
} // namespace kestrel
