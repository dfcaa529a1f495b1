// Kestrel's layout of packed sparse weights (dnnl_packed encoding), 2D
// K x N weights only. A packed descriptor made by the user has no layout;
// the matmul implementation that takes it lays it out (marks it with the
// buffer types below), and a reorder from dense memory fills it.
//
// The columns are cut into panels of `panel` (16) columns; the last panel
// may be narrower. For panel p and row k, bit j of the 16-bit mask says
// whether element (k, 16p + j) is nonzero. Buffers, by handle index:
//   0 values  (the weights' data type): the nonzeros, panel by panel, row by
//             row within a panel, left to right within a row;
//             room for K * N elements (the worst case: no zeros)
//   1 offsets (s32): NP + 1 entries, NP = ceil(N / 16); entry p is the
//             index in `values` of panel p's first nonzero, entry NP the
//             total count
//   2 bitmask (u8 bytes holding u16 masks): NP * K masks, panel-major
//             (mask of panel p, row k at index p * K + k)
#ifndef KESTREL_CORE_PACKED_LAYOUT_HPP
#define KESTREL_CORE_PACKED_LAYOUT_HPP

#include "core/memory_desc.hpp"

namespace kestrel {
namespace packed {

constexpr dim_t panel = 16;

inline bool is_packed(const memory_desc_t &md) {
    return md.format_kind == dnnl_format_kind_sparse && md.sparse.encoding == dnnl_packed;
}
// True once an implementation has laid the descriptor out.
inline bool laid_out(const memory_desc_t &md) {
    return is_packed(md) && md.ndims == 2 && md.sparse.metadata_types[0] == dnnl_s32
            && md.sparse.metadata_types[1] == dnnl_u8;
}
inline dim_t panels(const memory_desc_t &md) { return (md.dims[1] + panel - 1) / panel; }

// Lays out a packed 2D descriptor (unimplemented for other ranks).
inline status_t lay_out(memory_desc_t &md) {
    if (!is_packed(md)) return status::invalid_arguments;
    if (md.ndims != 2) return status::unimplemented;
    // Offsets are s32: at most 2^31 - 1 elements.
    if (md.dims[0] > 0 && md.dims[1] > INT32_MAX / md.dims[0]) return status::unimplemented;
    md.sparse.metadata_types[0] = dnnl_s32;
    md.sparse.metadata_types[1] = dnnl_u8;
    return status::success;
}

// Bytes of buffer `index` of a laid-out descriptor (0 otherwise).
inline size_t buffer_size(const memory_desc_t &md, int index) {
    if (!laid_out(md)) return 0;
    const size_t K = (size_t)md.dims[0], N = (size_t)md.dims[1], NP = (size_t)panels(md);
    switch (index) {
        case 0: return K * N * data_type_size(md.data_type);
        case 1: return (NP + 1) * sizeof(int32_t);
        case 2: return NP * K * sizeof(uint16_t);
        default: return 0;
    }
}

} // namespace packed
} // namespace kestrel

#endif
