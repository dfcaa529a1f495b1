#include "cpu/isa.hpp"

#include <cpuid.h>

#include <atomic>
#include <initializer_list>
#include <cstdlib>
#include <cstring>

namespace kestrel {
namespace isa {

namespace {

// The dnnl_cpu_isa_t values are nested bit masks: an ISA is allowed under a
// cap when all of its bits are in the cap.
constexpr unsigned all_bits = ~0u;
bool within(unsigned cap, dnnl_cpu_isa_t isa) { return (cap & (unsigned)isa) == (unsigned)isa; }

// What the CPU offers, as the highest oneDNN ISA tier Kestrel tells apart
// (no kernel uses AVX512-FP16 or AMX, so the tiers stop at avx512_core_bf16).
// AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (clang 14's
// __builtin_cpu_supports does not know the name).
bool cpu_has_avx_vnni() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if ((unsigned)__get_cpuid_max(0, nullptr) < 7u) return false;
    __cpuid_count(7, 1, a, b, c, d);
    return (a >> 4) & 1u;
}

// F16C: CPUID leaf 1, ECX bit 29 (read directly: clang 14's
// __builtin_cpu_supports does not know "f16c" either).
bool cpu_has_f16c() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    return (c >> 29) & 1u;
}

// AMD family 19h (base family 0xF plus extended family 0xA) with AVX-512:
// Zen 4, whose zmm instructions take both halves of its 256-bit units.
bool detect_half_width() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return false;
    const bool amd = b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u; // "AuthenticAMD"
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d)) return false;
    const unsigned base = (a >> 8) & 0xfu, ext = (a >> 20) & 0xffu;
    const unsigned family = base == 0xfu ? base + ext : base;
    __builtin_cpu_init();
    return family == 0x19u && __builtin_cpu_supports("avx512f");
}

unsigned detect_bits() {
    __builtin_cpu_init();
    unsigned bits = dnnl_cpu_isa_sse41;
    if (__builtin_cpu_supports("avx")) bits = dnnl_cpu_isa_avx;
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return bits;
    bits = dnnl_cpu_isa_avx2;
    if (cpu_has_avx_vnni()) bits |= dnnl_cpu_isa_avx2_vnni;
    if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")))
        return bits;
    bits |= dnnl_cpu_isa_avx512_core;
    if (!__builtin_cpu_supports("avx512vnni")) return bits;
    bits |= dnnl_cpu_isa_avx512_core_vnni;
    if (__builtin_cpu_supports("avx512bf16")) bits |= dnnl_cpu_isa_avx512_core_bf16;
    return bits;
}

unsigned hw_bits() {
    static const unsigned b = detect_bits();
    return b;
}

struct isa_name_t {
    const char *name;
    unsigned bits;
};
constexpr isa_name_t cap_names[] = {{"SSE41", dnnl_cpu_isa_sse41}, {"AVX", dnnl_cpu_isa_avx},
        {"AVX2", dnnl_cpu_isa_avx2}, {"AVX2_VNNI", dnnl_cpu_isa_avx2_vnni},
        {"AVX2_VNNI_2", dnnl_cpu_isa_avx2_vnni_2}, {"AVX512_CORE", dnnl_cpu_isa_avx512_core},
        {"AVX512_CORE_VNNI", dnnl_cpu_isa_avx512_core_vnni}, {"AVX512_CORE_BF16", dnnl_cpu_isa_avx512_core_bf16},
        {"AVX512_CORE_FP16", dnnl_cpu_isa_avx512_core_fp16}, {"AVX10_1_512", dnnl_cpu_isa_avx10_1_512},
        {"AVX512_CORE_AMX", dnnl_cpu_isa_avx512_core_amx}, {"AVX10_1_512_AMX", dnnl_cpu_isa_avx10_1_512_amx},
        {"AVX512_CORE_AMX_FP16", dnnl_cpu_isa_avx512_core_amx_fp16},
        {"AVX10_1_512_AMX_FP16", dnnl_cpu_isa_avx10_1_512_amx_fp16}, {"AVX10_2_512", dnnl_cpu_isa_avx10_2_512},
        {"AVX10_2_512_AMX_2", dnnl_cpu_isa_avx10_2_512_amx_2}, {"DEFAULT_NONE", dnnl_cpu_isa_sse41}};

// ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA); unset, ALL or an unknown name
// leave everything allowed.
unsigned env_cap_bits() {
    const char *v = std::getenv("ONEDNN_MAX_CPU_ISA");
    if (!v) v = std::getenv("DNNL_MAX_CPU_ISA");
    if (!v) return all_bits;
    for (const isa_name_t &n : cap_names)
        if (!strcasecmp(v, n.name)) return n.bits;
    return all_bits;
}

// The cap as ISA bits; -1 until the environment is read or set_max runs.
std::atomic<long long> cap {-1};
std::atomic<bool> frozen {false};

unsigned allowed_bits() {
    long long c = cap.load(std::memory_order_relaxed);
    if (c < 0) {
        long long fresh = env_cap_bits();
        cap.compare_exchange_strong(c, fresh);
        c = cap.load();
    }
    return (unsigned)c & hw_bits();
}

// The ISA hints: -1 until set or read; then the hint, plus `hints_frozen`
// once read (after which it cannot be set, as oneDNN). One atomic word, so
// a set racing with the first read either lands before it or fails.
constexpr int hints_frozen = 0x100;
std::atomic<int> hints_state {-1};

int env_hints() {
    const char *v = std::getenv("ONEDNN_CPU_ISA_HINTS");
    if (!v) v = std::getenv("DNNL_CPU_ISA_HINTS");
    return v && !strcasecmp(v, "PREFER_YMM") ? dnnl_cpu_isa_prefer_ymm : dnnl_cpu_isa_no_hints;
}

// The hint in force; freezes it.
int hints_value() {
    int cur = hints_state.load();
    while (!(cur >= 0 && (cur & hints_frozen))) {
        const int v = cur < 0 ? env_hints() : cur;
        if (hints_state.compare_exchange_weak(cur, v | hints_frozen)) return v;
    }
    return cur & ~hints_frozen;
}

// prefer_ymm: no 512-bit kernel is chosen; families with a 256-bit one
// use it, the others their portable code.
bool zmm_allowed() { return hints_value() != dnnl_cpu_isa_prefer_ymm; }

} // namespace

dnnl_cpu_isa_hints_t hints() { return (dnnl_cpu_isa_hints_t)hints_value(); }

status_t set_hints(dnnl_cpu_isa_hints_t h) {
    if (h != dnnl_cpu_isa_no_hints && h != dnnl_cpu_isa_prefer_ymm) return status::invalid_arguments;
    int cur = hints_state.load();
    do {
        if (cur >= 0 && (cur & hints_frozen)) return status::runtime_error;
    } while (!hints_state.compare_exchange_weak(cur, (int)h));
    return status::success;
}

level_t effective() {
    const unsigned b = allowed_bits();
    frozen.store(true, std::memory_order_relaxed);
    if (within(b, dnnl_cpu_isa_avx512_core) && zmm_allowed()) return avx512;
    if (within(b, dnnl_cpu_isa_avx2)) return avx2;
    return baseline;
}

dnnl_cpu_isa_t effective_cpu_isa() {
    const unsigned b = allowed_bits();
    frozen.store(true, std::memory_order_relaxed);
    for (dnnl_cpu_isa_t t : {dnnl_cpu_isa_avx512_core_bf16, dnnl_cpu_isa_avx512_core_vnni, dnnl_cpu_isa_avx512_core,
                 dnnl_cpu_isa_avx2_vnni, dnnl_cpu_isa_avx2, dnnl_cpu_isa_avx})
        if (within(b, t)) return t;
    return dnnl_cpu_isa_sse41;
}

status_t set_max(dnnl_cpu_isa_t c) {
    if (frozen.load()) return status::invalid_arguments;
    cap.store(c == dnnl_cpu_isa_default ? all_bits : (unsigned)c);
    return status::success;
}

bool has_avx2_vnni() { return within(allowed_bits(), dnnl_cpu_isa_avx2_vnni); }

bool has_avx512_vnni() { return within(allowed_bits(), dnnl_cpu_isa_avx512_core_vnni) && zmm_allowed(); }

bool has_avx512_bf16() { return within(allowed_bits(), dnnl_cpu_isa_avx512_core_bf16) && zmm_allowed(); }

bool has_f16c() {
    static const bool cpu = cpu_has_f16c();
    return cpu && has(avx2);
}

bool avx512_half_width() {
    static const bool half = detect_half_width();
    return half;
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
