// Portable 4x16 int8 microkernel: plain loops (the compiler vectorizes what
// the baseline ISA allows). Contract: kernels_s8.hpp.
#include "cpu/gemm/kernels_s8.hpp"

namespace kestrel {
namespace gemm {

namespace {

constexpr int MR = 4, NR = 16;

void kernel(dim_t k4, const uint8_t *a, const int8_t *b, const int32_t *init, int32_t *acc) {
    // Unsigned arithmetic: s32 accumulation wraps, as in the SIMD kernels,
    // without signed-overflow UB.
    uint32_t c[MR][NR];
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) c[i][j] = init ? (uint32_t)init[j] : 0u;
    for (dim_t g = 0; g < k4; ++g) {
        const uint8_t *ag = a + g * MR * 4;
        const int8_t *bg = b + g * NR * 4;
        for (int i = 0; i < MR; ++i)
            for (int j = 0; j < NR; ++j) {
                int32_t s = 0; // four products of |.| <= 255 * 128: no overflow
                for (int q = 0; q < 4; ++q) s += (int32_t)ag[i * 4 + q] * bg[j * 4 + q];
                c[i][j] += (uint32_t)s;
            }
    }
    for (int i = 0; i < MR; ++i)
        for (int j = 0; j < NR; ++j) acc[i * NR + j] = (int32_t)c[i][j];
}

const s8_ukernel_t table = {"u8s8s32_gemm_4x16__portable", MR, NR, kernel, nullptr};

} // namespace

const s8_ukernel_t *u8s8s32_gemm_4x16__portable() { return &table; }

} // namespace gemm
} // namespace kestrel
