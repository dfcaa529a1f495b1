// Reorders between dense row-major (ab) 2D memory and packed sparse weights
// laid out by Kestrel (core/packed_layout.hpp): dense -> packed compresses,
// packed -> dense expands. Data types f32, s8 and u8 on either side
// (converted as every reorder converts: rounded to nearest even,
// saturated); an element is stored when it is nonzero after conversion.
#include <algorithm>
#include <cstring>

#include "core/memory.hpp"
#include "core/packed_layout.hpp"
#include "cpu/reorder/reorder_impls.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {

namespace {

constexpr dim_t P = packed::panel;

bool packed_dt(data_type_t dt) { return one_of(dt, dnnl_f32, dnnl_s8, dnnl_u8); }

// Element i of src converted to dt, written at element j of out; returns
// whether it is nonzero.
inline bool convert(data_type_t sdt, const void *src, dim_t i, data_type_t dt, void *out, dim_t j) {
    store_f32(dt, out, j, load_f32(sdt, src, i));
    return load_f32(dt, out, j) != 0.f;
}

void compress(const memory_desc_t &smd, const void *src, const memory_desc_t &pmd, const dnnl_memory &pm) {
    const dim_t K = pmd.dims[0], N = pmd.dims[1], NP = packed::panels(pmd);
    const data_type_t sdt = smd.data_type, dt = pmd.data_type;
    void *val = pm.handle(0);
    int32_t *off = static_cast<int32_t *>(pm.handle(1));
    uint16_t *mask = static_cast<uint16_t *>(pm.handle(2));
    // Pass 1: the masks, and each panel's count in off[p + 1].
    off[0] = 0;
    parallel_nd(NP, [&](dim_t p) {
        const dim_t n0 = p * P, nw = std::min(P, N - n0);
        int32_t count = 0;
        for (dim_t k = 0; k < K; ++k) {
            unsigned m = 0;
            for (dim_t j = 0; j < nw; ++j) {
                uint32_t tmp = 0;
                if (convert(sdt, src, k * N + n0 + j, dt, &tmp, 0)) m |= 1u << j;
            }
            mask[p * K + k] = (uint16_t)m;
            count += __builtin_popcount(m);
        }
        off[p + 1] = count;
    });
    for (dim_t p = 0; p < NP; ++p) off[p + 1] += off[p];
    // Pass 2: the values.
    parallel_nd(NP, [&](dim_t p) {
        const dim_t n0 = p * P;
        int32_t e = off[p];
        for (dim_t k = 0; k < K; ++k) {
            unsigned m = mask[p * K + k];
            while (m) {
                const int j = __builtin_ctz(m);
                m &= m - 1;
                convert(sdt, src, k * N + n0 + j, dt, val, e++);
            }
        }
    });
}

void expand(const memory_desc_t &pmd, const dnnl_memory &pm, const memory_desc_t &dmd, void *dst) {
    const dim_t K = pmd.dims[0], N = pmd.dims[1], NP = packed::panels(pmd);
    const data_type_t dt = pmd.data_type, ddt = dmd.data_type;
    const void *val = pm.handle(0);
    const int32_t *off = static_cast<const int32_t *>(pm.handle(1));
    const uint16_t *mask = static_cast<const uint16_t *>(pm.handle(2));
    const int32_t cap = K * N;
    parallel_nd(NP, [&](dim_t p) {
        const dim_t n0 = p * P, nw = std::min(P, N - n0);
        int32_t e = std::max<int32_t>(off[p], 0);
        const int32_t end = std::min<int32_t>(off[p + 1], cap);
        for (dim_t k = 0; k < K; ++k) {
            for (dim_t j = 0; j < nw; ++j) store_f32(ddt, dst, k * N + n0 + j, 0.f);
            unsigned m = mask[p * K + k];
            while (m && e < end) {
                const int j = __builtin_ctz(m);
                m &= m - 1;
                if (j < nw) store_f32(ddt, dst, k * N + n0 + j, load_f32(dt, val, e));
                ++e;
            }
        }
    });
}

} // namespace

bool reorder_packed_t::pd_t::may_accept(const desc_t &d, const attr_t *) {
    return packed::laid_out(packed::is_packed(d.dst_md) ? d.dst_md : d.src_md);
}

status_t reorder_packed_t::pd_t::init(dnnl_engine *) {
    const bool to_packed = packed::is_packed(dst_md_);
    const memory_desc_t &pmd = to_packed ? dst_md_ : src_md_;
    const memory_desc_t &dense = to_packed ? src_md_ : dst_md_;
    if (!may_accept(desc_, &attr_)) return decline(name(), "no packed layout");
    if (!mdw_t(dense).is_blocked() || !mdw_t(dense).matches_tag(dnnl_ab)) return decline(name(), "dense side not ab");
    if (!packed_dt(pmd.data_type) || !packed_dt(dense.data_type)) return decline(name(), "data type");
    for (int k = 0; k < 2; ++k)
        if (src_md_.dims[k] != dst_md_.dims[k]) return decline(name(), "dims differ");
    if (!attr_.has_default_values()) return decline(name(), "attributes");
    to_packed_ = to_packed;
    return status::success;
}

status_t reorder_packed_t::execute(const exec_ctx_t &ctx) const {
    const memory_desc_t &smd = *pd()->src_md(), &dmd = *pd()->dst_md();
    if (mdw_t(smd).has_zero_dim()) return status::success;
    if (pd()->to_packed_)
        compress(smd, ctx.input<void>(DNNL_ARG_FROM), dmd, *ctx.memory(DNNL_ARG_TO));
    else
        expand(smd, *ctx.memory(DNNL_ARG_FROM), dmd, ctx.output<void>(DNNL_ARG_TO));
    return status::success;
}

} // namespace kestrel
