// Plain C++ packed-weights kernels: each stored value is multiplied into
// the accumulators of its column only, walking the set bits of each row's
// mask. Contract: packed_kernels.hpp.
#include "cpu/gemm/packed_kernels.hpp"

namespace kestrel {
namespace gemm {

namespace {

constexpr int MR = 4;

template <typename S, typename W, typename A>
void rows(const uint16_t *mask, const W *val, dim_t K, const S *src, dim_t lds, int mr, A *acc) {
    for (int i = 0; i < mr * 16; ++i) acc[i] = 0;
    for (dim_t k = 0; k < K; ++k) {
        unsigned m = mask[k];
        while (m) {
            const int j = __builtin_ctz(m);
            m &= m - 1;
            const A w = (A)*val++;
            for (int r = 0; r < mr; ++r) acc[r * 16 + j] += (A)src[r * lds + k] * w;
        }
    }
}

void f32(const uint16_t *mask, const float *val, const float *, dim_t K, const float *src, dim_t lds, int mr,
        float *acc) {
    rows<float, float, float>(mask, val, K, src, lds, mr, acc);
}

// Integer sums in uint32_t: wraps like the s32 lanes of the SIMD kernels
// instead of overflowing a signed int.
template <typename S>
void s32(const uint16_t *mask, const int8_t *val, const int8_t *, dim_t K, const void *src, dim_t lds, int mr,
        int32_t *acc) {
    uint32_t u[MR * 16];
    for (int i = 0; i < mr * 16; ++i) u[i] = 0;
    const S *s = static_cast<const S *>(src);
    for (dim_t k = 0; k < K; ++k) {
        unsigned m = mask[k];
        while (m) {
            const int j = __builtin_ctz(m);
            m &= m - 1;
            const int32_t w = *val++;
            for (int r = 0; r < mr; ++r) u[r * 16 + j] += (uint32_t)((int32_t)s[r * lds + k] * w);
        }
    }
    for (int i = 0; i < mr * 16; ++i) acc[i] = (int32_t)u[i];
}

static_assert(MR <= packed_max_mr, "accumulator tile of the driver");
const packed_kernels_t table = {"portable", MR, f32, s32<uint8_t>, s32<int8_t>};

} // namespace

const packed_kernels_t *packed_kernels_portable() { return &table; }

} // namespace gemm
} // namespace kestrel
