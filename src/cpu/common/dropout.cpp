#include "cpu/common/dropout.hpp"

#include <cmath>

namespace kestrel {

void philox4x32_10(uint32_t seed, uint64_t counter, uint32_t out[4]) {
    const uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u; // round multipliers
    const uint32_t w0 = 0x9E3779B9u, w1 = 0xBB67AE85u; // key schedule steps
    uint32_t c0 = (uint32_t)counter, c1 = (uint32_t)(counter >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = seed, k1 = 0;
    for (int r = 0; r < 10; ++r) {
        const uint64_t p0 = (uint64_t)m0 * c0, p1 = (uint64_t)m1 * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
        const uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
        c0 = n0;
        c1 = n1;
        c2 = n2;
        c3 = n3;
        k0 += w0;
        k1 += w1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

status_t dropout_t::init(const pd_t &pd, const exec_ctx_t &ctx) {
    on = pd.attr()->dropout;
    if (!on) return status::success;
    const float p = *ctx.input<float>(DNNL_ARG_ATTR_DROPOUT_PROBABILITY);
    if (!(p >= 0.f && p <= 1.f)) return status::invalid_arguments;
    seed_ = (uint32_t)*ctx.input<int32_t>(DNNL_ARG_ATTR_DROPOUT_SEED);
    // Smallest draw that is kept: ceil(p * 2^32), exact in double.
    threshold_ = (uint64_t)std::ceil((double)p * 4294967296.0);
    scale_ = p < 1.f ? 1.f / (1.f - p) : 0.f;
    const memory_desc_t &dst = *pd.dst_md();
    ndims_ = dst.ndims;
    for (int d = 0; d < ndims_; ++d) dims_[d] = dst.dims[d];
    mask_md_ = pd.arg_md(DNNL_ARG_ATTR_DROPOUT_MASK);
    mask_ = mask_md_->ndims ? ctx.output<uint8_t>(DNNL_ARG_ATTR_DROPOUT_MASK) : nullptr;
    return status::success;
}

dim_t dropout_t::linear(const dim_t *pos) const {
    dim_t l = 0;
    for (int d = 0; d < ndims_; ++d) l = l * dims_[d] + pos[d];
    return l;
}

bool dropout_t::kept(uint64_t idx) const {
    uint32_t r[4];
    philox4x32_10(seed_, idx >> 2, r);
    return r[idx & 3] >= threshold_;
}

float dropout_t::apply(float v, const dim_t *pos) const {
    const bool k = kept((uint64_t)linear(pos));
    if (mask_) mask_[mdw_t(*mask_md_).off_v(pos)] = k ? 1 : 0;
    return k ? v * scale_ : 0.f;
}

void dropout_t::apply_row(float *row, dim_t n, const dim_t *pos) const {
    dim_t p[max_ndims];
    for (int d = 0; d < ndims_; ++d) p[d] = pos[d];
    const int last = ndims_ - 1;
    const dim_t first = linear(pos);
    const mdw_t mask(*mask_md_);
    uint32_t r[4];
    uint64_t have = ~(uint64_t)0; // counter whose draws r holds
    for (dim_t j = 0; j < n; ++j) {
        const uint64_t idx = (uint64_t)(first + j);
        if (idx >> 2 != have) {
            have = idx >> 2;
            philox4x32_10(seed_, have, r);
        }
        const bool k = r[idx & 3] >= threshold_;
        row[j] = k ? row[j] * scale_ : 0.f;
        if (mask_) {
            p[last] = pos[last] + j;
            mask_[mask.off_v(p)] = k ? 1 : 0;
        }
    }
}

} // namespace kestrel
