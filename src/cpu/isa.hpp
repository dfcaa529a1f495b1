// Instruction sets the CPU offers, capped by ONEDNN_MAX_CPU_ISA or
// dnnl_set_max_cpu_isa, and by the prefer_ymm hint. Kernels ask has(isa) at
// descriptor creation.
#ifndef KESTREL_CPU_ISA_HPP
#define KESTREL_CPU_ISA_HPP

#include "core/common.hpp"

namespace kestrel {
namespace isa {

enum level_t { baseline = 0, avx2 = 1, avx512 = 2 };

// The best level available and allowed.
level_t effective();
inline bool has(level_t l) { return effective() >= l; }

// The highest oneDNN ISA tier the CPU offers under the cap (up to
// avx512_core_bf16), for dnnl_get_effective_cpu_isa and verbose.
dnnl_cpu_isa_t effective_cpu_isa();
// Caps the level; fails once a kernel has been dispatched (as oneDNN).
status_t set_max(dnnl_cpu_isa_t cap);

const char *name(level_t l);

// The CPU ISA hints (ONEDNN_CPU_ISA_HINTS or dnnl_set_cpu_isa_hints). With
// prefer_ymm, effective() stops at avx2 and the AVX-512 VNNI/BF16 queries
// say no: every family picks its 256-bit kernel (or its portable one when
// it has none). The first read fixes the hint: set_hints then fails with
// runtime_error, as oneDNN's.
dnnl_cpu_isa_hints_t hints();
status_t set_hints(dnnl_cpu_isa_hints_t h);

// AVX-VNNI (VEX vpdpbusd on ymm): the CPU has it and the cap includes
// AVX2_VNNI (the AVX512_CORE* caps do not, as in oneDNN's bit masks).
bool has_avx2_vnni();
// AVX512-VNNI (vpdpbusd) on top of the avx512 level: the CPU has it and the
// cap is not AVX512_CORE (which oneDNN defines without VNNI).
bool has_avx512_vnni();
// AVX512-BF16 (vdpbf16ps) with VNNI: the CPU has both and the cap allows
// AVX512_CORE_BF16.
bool has_avx512_bf16();
// The CPU runs AVX-512 on 256-bit units, one zmm FMA a cycle instead of
// two (AMD family 19h, Zen 4): blocking that keeps a GEMM's B micro-panel
// in L1 for two FMAs a cycle gains nothing there (gemm::derive_blocking).
// CPUID only; the cap and hints do not change it.
bool avx512_half_width();
// F16C (vcvtph2ps / vcvtps2ph): the CPU has it and the avx2 level is
// allowed (every CPU with AVX2 in practice, but CPUID says so separately).
bool has_f16c();

} // namespace isa
} // namespace kestrel

#endif
