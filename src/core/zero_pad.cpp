#include "core/zero_pad.hpp"

#include <cstring>
#include <vector>

#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// The offset of a blocked layout is a sum of one term per dim: term_d
// depends on pos[d] only (its outer block index times the stride, plus its
// share of the inner block). Tabulating each term once turns the walk over
// the padding into additions.
void offset_terms(const memory_desc_t &md, dim_t *tab, const dim_t *start) {
    const mdw_t m(md);
    const auto &b = md.blocking;
    const int nd = md.ndims;
    for (int d = 0; d < nd; ++d) {
        const dim_t blk = m.block_of(d);
        for (dim_t p = 0; p < md.padded_dims[d]; ++p) {
            dim_t off = p / blk * b.strides[d];
            dim_t mult = 1, div = 1;
            for (int i = b.inner_nblks - 1; i >= 0; --i) {
                if (b.inner_idxs[i] == d) {
                    off += (p / div) % b.inner_blks[i] * mult;
                    div *= b.inner_blks[i];
                }
                mult *= b.inner_blks[i];
            }
            tab[start[d] + p] = off;
        }
    }
}

template <typename T>
void zero_box(T *base, int nd, const dim_t *lo, const dim_t *hi, const dim_t *const *term) {
    const int last = nd - 1;
    dim_t outer = 1;
    for (int d = 0; d < last; ++d) outer *= hi[d] - lo[d];
    const dim_t inner = hi[last] - lo[last];
    if (outer <= 0 || inner <= 0) return;
    parallel(nthr_for(outer * inner, 1 << 14), [&](int ithr, int nthr) {
        dim_t s, e;
        balance211(outer, nthr, ithr, s, e);
        for (dim_t o = s; o < e; ++o) {
            dim_t rest = o, off = 0;
            for (int d = last - 1; d >= 0; --d) {
                const dim_t ext = hi[d] - lo[d];
                off += term[d][lo[d] + rest % ext];
                rest /= ext;
            }
            const dim_t *t = term[last];
            for (dim_t p = lo[last]; p < hi[last]; ++p) base[off + t[p]] = T(0);
        }
    });
}

template <typename T>
void zero_pad_typed(const memory_desc_t &md, void *ptr) {
    const int nd = md.ndims;
    dim_t start[max_ndims] = {}, total = 0;
    for (int d = 0; d < nd; ++d) {
        start[d] = total;
        total += md.padded_dims[d];
    }
    // The usual shapes fit the stack: execution allocates nothing then.
    dim_t local[1024];
    std::vector<dim_t> heap;
    dim_t *tab = local;
    if (total > (dim_t)(sizeof(local) / sizeof(local[0]))) {
        heap.resize((size_t)total);
        tab = heap.data();
    }
    offset_terms(md, tab, start);
    const dim_t *term[max_ndims];
    for (int d = 0; d < nd; ++d) term[d] = tab + start[d];
    T *base = static_cast<T *>(ptr) + md.offset0;
    // Each padding element is visited once: through the first dim in which
    // its index lies in the padding.
    for (int d = 0; d < nd; ++d) {
        if (md.padded_dims[d] == md.dims[d]) continue;
        dim_t lo[max_ndims], hi[max_ndims];
        for (int e = 0; e < nd; ++e) {
            lo[e] = 0;
            hi[e] = e < d ? md.dims[e] : md.padded_dims[e];
        }
        lo[d] = md.dims[d];
        zero_box(base, nd, lo, hi, term);
    }
}

} // namespace

void zero_pad(const memory_desc_t &md, void *ptr) {
    const mdw_t m(md);
    if (!ptr || !m.is_blocked() || m.is_zero() || m.has_zero_dim()) return;
    if (m.has_runtime_dims_or_strides() || !m.has_padding()) return;
    // Two s4/u4 elements share a byte: no implementation writes a padded
    // sub-byte layout (each refuses one), so there is nothing to clear.
    if (is_sub_byte(m.data_type())) return;
    for (int d = 0; d < md.ndims; ++d)
        if (md.padded_offsets[d] != 0) return;
    // Zero bits of the element's width: +0.0 for every floating type, 0 for
    // every integer one.
    switch (m.dt_size()) {
        case 1: zero_pad_typed<uint8_t>(md, ptr); break;
        case 2: zero_pad_typed<uint16_t>(md, ptr); break;
        case 4: zero_pad_typed<uint32_t>(md, ptr); break;
        case 8: zero_pad_typed<uint64_t>(md, ptr); break;
        default: break;
    }
}

} // namespace kestrel
