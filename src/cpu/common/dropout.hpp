// The dropout attribute at execution: which dst elements survive, their
// rescaling by 1 / (1 - p), and the u8 mask written beside dst.
//
// Whether an element is kept depends only on the seed and the element's
// logical index in dst (row-major over dst's dims), never on the layout, the
// thread count or the ISA: the same seed gives the same mask everywhere.
// The random stream is Philox-4x32-10 (Salmon et al., SC'11), keyed by the
// seed, one counter per four consecutive elements. An element is kept when
// its 32-bit draw is >= p * 2^32 (rounded up), so p = 0 keeps everything and
// p = 1 drops everything; a dropped element becomes 0, a kept one v / (1 - p).
#ifndef KESTREL_CPU_COMMON_DROPOUT_HPP
#define KESTREL_CPU_COMMON_DROPOUT_HPP

#include <cstdint>

#include "core/primitive.hpp"
#include "core/primitive_desc.hpp"

namespace kestrel {

// Four 32-bit draws for one 64-bit counter under a 32-bit seed.
void philox4x32_10(uint32_t seed, uint64_t counter, uint32_t out[4]);

struct dropout_t {
    bool on = false;

    // Reads the probability and the seed of an execution; p outside [0, 1]
    // (or NaN) is invalid_arguments. Leaves `on` false without the attribute.
    status_t init(const pd_t &pd, const exec_ctx_t &ctx);

    // Element at logical position pos (dst's rank): v kept and rescaled, or
    // 0; writes the mask when there is one.
    float apply(float v, const dim_t *pos) const;
    // n consecutive elements along the last dim from pos (pos[last] = first).
    void apply_row(float *row, dim_t n, const dim_t *pos) const;

private:
    uint64_t threshold_ = 0; // kept iff draw >= threshold_ (2^32 drops all)
    float scale_ = 1.f;
    uint32_t seed_ = 0;
    int ndims_ = 0;
    dim_t dims_[max_ndims] = {};
    uint8_t *mask_ = nullptr;
    const memory_desc_t *mask_md_ = nullptr;

    dim_t linear(const dim_t *pos) const;
    bool kept(uint64_t idx) const;
};

} // namespace kestrel

#endif
