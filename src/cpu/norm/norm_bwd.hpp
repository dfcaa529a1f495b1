// Pieces the normalization backward kernels share (batch, layer and group
// normalization).
//
// All three compute, over some set of elements with a per-channel scale g,
//   xhat = (x - mean) * rstd
//   diff_src = rstd * (g dd - mean(g dd) - xhat * mean(g dd xhat))
// (the two means over the set a statistic was taken on; without them when
// the statistics were given), and per channel c
//   diff_scale[c] = sum dd * xhat,  diff_shift[c] = sum dd
// over every element of channel c. Those channel sums are taken as
// per-thread partials in the scratchpad (one slab of 2 C floats per thread:
// [sum dd * xhat | sum dd]) and then reduced in parallel over channels.
#ifndef KESTREL_CPU_NORM_NORM_BWD_HPP
#define KESTREL_CPU_NORM_NORM_BWD_HPP

#include <algorithm>

#include "core/primitive.hpp"
#include "cpu/threading.hpp"

namespace kestrel {
namespace norm_bwd {

enum key_t : scratchpad::key_t { key_part = 0x4e42, key_red };

// Books the partial sums of C channels and the reduced ones.
inline void book(scratchpad::registry_t &r, dim_t C) {
    r.book_per_thread(key_part, sizeof(float) * 2 * (size_t)C);
    r.book(key_red, sizeof(float) * 2 * (size_t)C);
}

// The threads the partials may use for `work` items: no more than slabs.
inline int nthr(const exec_ctx_t &ctx, dim_t work) { return std::min(nthr_for(work), ctx.scratchpad().nthr()); }

// Thread ithr's slab, zeroed; nullptr when the scratchpad is missing.
inline float *slab(const exec_ctx_t &ctx, int ithr, dim_t C) {
    float *p = ctx.scratchpad().get<float>(key_part, ithr);
    if (p) std::fill(p, p + 2 * C, 0.f);
    return p;
}

// Sums slabs [0, nthr) into the reduced region ([sum dd * xhat | sum dd],
// xhat as the kernel accumulated it) and returns it.
inline float *reduce(const exec_ctx_t &ctx, int nthr, dim_t C) {
    float *red = ctx.scratchpad().get<float>(key_red);
    if (!red) return nullptr;
    parallel_nd(2 * C, [&](dim_t i) {
        float s = 0.f;
        for (int t = 0; t < nthr; ++t) s += ctx.scratchpad().get<float>(key_part, t)[i];
        red[i] = s;
    });
    return red;
}

// Writes diff_scale / diff_shift (either may be nullptr) of type dt.
inline void store(void *dscale, void *dshift, data_type_t dt, const float *red, dim_t C) {
    for (dim_t c = 0; c < C; ++c) {
        if (dscale) store_f32(dt, dscale, c, red[c]);
        if (dshift) store_f32(dt, dshift, c, red[C + c]);
    }
}

// diff_src of one element (a = mean(g dd), b = mean(g dd xhat), both 0
// with given statistics).
inline float diff_src(float gdd, float xhat, float rstd, float a, float b) { return rstd * (gdd - a - xhat * b); }

// Logical position of element (n, c, sp) of a N x C x spatial tensor.
inline void pos_of(dim_t *pos, const memory_desc_t &md, dim_t n, dim_t c, dim_t sp) {
    pos[0] = n;
    pos[1] = c;
    for (int i = md.ndims - 1; i >= 2; --i) {
        pos[i] = sp % md.dims[i];
        sp /= md.dims[i];
    }
}

} // namespace norm_bwd
} // namespace kestrel

#endif
