#include "cpu/reorder/layout_util.hpp"

#include <algorithm>

namespace kestrel {
namespace data_movement {

void offset_table_t::init(const memory_desc_t &md, const dim_t *extents) {
    mdw_t w(md);
    dim_t total = 0;
    for (int d = 0; d < md.ndims; ++d) {
        start_[d] = total;
        extent_[d] = extents[d];
        total += extents[d];
    }
    tab_.assign((size_t)total, 0);
    dim_t pos[max_ndims] = {};
    offset0_ = w.off_v(pos);
    for (int d = 0; d < md.ndims; ++d) {
        for (dim_t x = 0; x < extents[d]; ++x) {
            pos[d] = x;
            tab_[(size_t)(start_[d] + x)] = w.off_v(pos) - offset0_;
        }
        pos[d] = 0;
    }
}

void mask_strides(int mask, int ndims, const dim_t *dims, dim_t *ms) {
    dim_t s = 1;
    for (int d = ndims - 1; d >= 0; --d) {
        if (mask & (1 << d)) {
            ms[d] = s;
            s *= dims[d];
        } else {
            ms[d] = 0;
        }
    }
}

status_t md_dense_like(memory_desc_t &md, const memory_desc_t &like) {
    mdw_t l(like);
    if (!l.is_blocked() || like.ndims != md.ndims) return status::invalid_arguments;
    const int nd = md.ndims;
    // Outer order of `like`: larger stride outside, ties in logical order.
    int order[max_ndims];
    for (int d = 0; d < nd; ++d) order[d] = d;
    std::stable_sort(order, order + nd, [&](int a, int b) {
        return like.blocking.strides[a] > like.blocking.strides[b];
    });
    memory_desc_t r = md;
    r.format_kind = dnnl_blocked;
    r.offset0 = 0;
    r.blocking = like.blocking;
    dim_t inner = 1, blk[max_ndims];
    for (int d = 0; d < nd; ++d) blk[d] = 1;
    for (int i = 0; i < r.blocking.inner_nblks; ++i) {
        inner *= r.blocking.inner_blks[i];
        blk[r.blocking.inner_idxs[i]] *= r.blocking.inner_blks[i];
    }
    for (int d = 0; d < nd; ++d) {
        r.padded_dims[d] = rnd_up(md.dims[d], blk[d]);
        r.padded_offsets[d] = 0;
    }
    dim_t stride = inner;
    for (int i = nd - 1; i >= 0; --i) {
        int d = order[i];
        r.blocking.strides[d] = stride;
        stride *= std::max<dim_t>(r.padded_dims[d] / blk[d], 1);
    }
    md = r;
    return status::success;
}

void physical_order(const offset_table_t &t, int ndims, int *order) {
    for (int d = 0; d < ndims; ++d) order[d] = d;
    // Unit-extent dims (step 0) go outermost: they never form a loop.
    auto key = [&](int d) { return t.step(d) > 0 ? t.step(d) : DNNL_RUNTIME_DIM_VAL; };
    std::stable_sort(order, order + ndims, [&](int a, int b) {
        dim_t ka = key(a), kb = key(b);
        if (ka == DNNL_RUNTIME_DIM_VAL || kb == DNNL_RUNTIME_DIM_VAL)
            return ka == DNNL_RUNTIME_DIM_VAL && kb != DNNL_RUNTIME_DIM_VAL;
        return ka > kb;
    });
}

} // namespace data_movement
} // namespace kestrel
