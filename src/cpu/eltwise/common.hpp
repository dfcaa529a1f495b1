// Helpers shared by the element-wise primitives (eltwise, binary, softmax,
// shuffle, prelu): logical-index walks for the reference kernels, zeroing of
// padded areas, and the checks every op desc needs.
#ifndef KESTREL_CPU_ELTWISE_COMMON_HPP
#define KESTREL_CPU_ELTWISE_COMMON_HPP

#include "core/memory_desc.hpp"
#include "core/zero_pad.hpp"
#include "cpu/threading.hpp"
#include "cpu/types.hpp"

namespace kestrel {
namespace elt {

// Storage types the element-wise primitives read and write (compute is f32).
inline bool is_float_dt(data_type_t dt) { return one_of(dt, dnnl_f32, dnnl_bf16, dnnl_f16); }
inline bool is_int_dt(data_type_t dt) { return one_of(dt, dnnl_s32, dnnl_s8, dnnl_u8); }

inline bool is_fwd(dnnl_prop_kind_t p) {
    return p == dnnl_forward_training || p == dnnl_forward_inference;
}

// A user descriptor acceptable as a primitive argument: dims set and no
// runtime values (those are not supported by the element-wise primitives).
inline bool md_usable(const memory_desc_t &md) {
    return md.ndims >= 1 && md.ndims <= max_ndims && !mdw_t(md).has_runtime_dims_or_strides()
            && md.format_kind != dnnl_format_kind_undef;
}

// Decomposes the row-major logical index l of `dims` into pos[].
inline void logical_pos(int ndims, const dim_t *dims, dim_t l, dim_t *pos) {
    for (int d = ndims - 1; d >= 0; --d) {
        pos[d] = l % dims[d];
        l /= dims[d];
    }
}

// Calls f(pos) for every logical position of `dims`, split over threads in
// row-major order; `min_work` keeps tiny tensors on one thread.
template <typename F>
void parallel_logical(int ndims, const dim_t *dims, const F &f, dim_t min_work = 4096) {
    dim_t n = 1;
    for (int d = 0; d < ndims; ++d) n *= dims[d];
    if (n <= 0) return;
    parallel(nthr_for(n, min_work), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(n, nthr, ithr, s, e);
        if (s >= e) return;
        dim_t pos[max_ndims] = {};
        logical_pos(ndims, dims, s, pos);
        for (dim_t l = s; l < e; ++l) {
            f((const dim_t *)pos);
            nd_next(ndims, dims, pos);
        }
    });
}

// Sets every padded (not logical) element of a blocked memory to zero, as
// oneDNN keeps the padding of a destination zero.
inline void zero_padding(const memory_desc_t &md, void *ptr) { zero_pad(md, ptr); }

// Layout equality that ignores the data type: both memories place every
// element at the same position (in elements).
inline bool same_layout(const memory_desc_t &a, const memory_desc_t &b) {
    memory_desc_t t = b;
    t.data_type = a.data_type;
    return md_equal(a, t);
}

inline bool same_dims(const memory_desc_t &a, const memory_desc_t &b) {
    if (a.ndims != b.ndims) return false;
    for (int d = 0; d < a.ndims; ++d)
        if (a.dims[d] != b.dims[d]) return false;
    return true;
}

// Resolves format `any` of `md` to the layout of `like` (same dims).
inline status_t set_layout_like(memory_desc_t &md, const memory_desc_t &like) {
    if (md.format_kind != dnnl_format_kind_any) return status::success;
    if (like.format_kind != dnnl_blocked) return status::unimplemented;
    data_type_t dt = md.data_type;
    dim_t dims[max_ndims];
    for (int d = 0; d < md.ndims; ++d) dims[d] = md.dims[d];
    md = like;
    md.data_type = dt;
    md.offset0 = 0;
    for (int d = 0; d < md.ndims; ++d)
        if (md.dims[d] != dims[d]) return status::invalid_arguments;
    return status::success;
}

// Resolves format `any` of `md` to the dim order and inner blocks of
// `like`, which may differ in dims (a broadcast source: oneDNN derives
// dst from src0 that way). Dims are ordered by decreasing stride of `like`;
// equal strides (dims of size 1) keep their logical order.
inline status_t set_layout_order_like(memory_desc_t &md, const memory_desc_t &like) {
    if (md.format_kind != dnnl_format_kind_any) return status::success;
    if (same_dims(md, like)) return set_layout_like(md, like);
    if (like.format_kind != dnnl_blocked || like.ndims != md.ndims) return status::unimplemented;
    const int nd = md.ndims;
    const kestrel_blocking_desc &lb = like.blocking;
    dim_t blk[max_ndims], inner = 1;
    for (int d = 0; d < nd; ++d) blk[d] = 1;
    for (int i = 0; i < lb.inner_nblks; ++i) {
        blk[lb.inner_idxs[i]] *= lb.inner_blks[i];
        inner *= lb.inner_blks[i];
    }
    int order[max_ndims]; // outermost first
    for (int d = 0; d < nd; ++d) order[d] = d;
    for (int i = 1; i < nd; ++i)
        for (int j = i; j > 0 && lb.strides[order[j]] > lb.strides[order[j - 1]]; --j) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    memory_desc_t r = md;
    r.format_kind = dnnl_blocked;
    r.offset0 = 0;
    r.blocking = lb;
    for (int d = 0; d < nd; ++d) {
        r.padded_dims[d] = md.dims[d] == 0 ? 0 : div_up(md.dims[d], blk[d]) * blk[d];
        r.padded_offsets[d] = 0;
    }
    dim_t stride = inner;
    for (int i = nd - 1; i >= 0; --i) {
        const int d = order[i];
        r.blocking.strides[d] = stride;
        stride *= r.padded_dims[d] / blk[d] > 0 ? r.padded_dims[d] / blk[d] : 1;
    }
    md = r;
    return status::success;
}

// Resolves format `any` of `md` to the plain row-major layout.
inline status_t set_plain(memory_desc_t &md) {
    static const format_tag_t plain[] = {dnnl_a, dnnl_ab, dnnl_abc, dnnl_abcd, dnnl_abcde, dnnl_abcdef};
    if (md.format_kind != dnnl_format_kind_any) return status::success;
    if (md.ndims < 1 || md.ndims > 6) return status::unimplemented;
    return md_set_tag(md, plain[md.ndims - 1]);
}

// True when a problem over `md` can be run as one flat array: dense
// (padding included) and either unpadded or with an op that keeps zero
// padding zero.
inline bool flat_ok(const memory_desc_t &md, bool op_keeps_zero) {
    mdw_t m(md);
    if (!m.is_blocked() || m.has_runtime_dims_or_strides() || !m.is_dense(true)) return false;
    if (md.offset0 != 0) return false;
    return !m.has_padding() || op_keeps_zero;
}

// Elements of the flat array (padding included) of a dense memory.
inline dim_t flat_nelems(const memory_desc_t &md) {
    mdw_t m(md);
    return m.dt_size() ? (dim_t)(m.size() / m.dt_size()) : 0;
}

} // namespace elt
} // namespace kestrel

#endif
