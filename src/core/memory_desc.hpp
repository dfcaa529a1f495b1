// The memory descriptor and the one helper that answers layout questions.
#ifndef KESTREL_CORE_MEMORY_DESC_HPP
#define KESTREL_CORE_MEMORY_DESC_HPP

#include "core/common.hpp"

// The layout of a blocked (format_kind blocked) descriptor.
struct kestrel_blocking_desc {
    dnnl_dims_t strides; // of the outer (blocked) dims, in elements
    int inner_nblks;
    dnnl_dims_t inner_blks;
    dnnl_dims_t inner_idxs;
};

// The layout of a sparse (format_kind sparse) descriptor. Buffers, by
// handle index: CSR 0 values, 1 indices (nnz, metadata_types[0]), 2 row
// pointers (dims[0] + 1, metadata_types[1]); COO 0 values, then one index
// buffer per dim (nnz each, metadata_types[0]); packed 0 values, 1 offsets,
// 2 bitmask (sizes known only once an implementation has laid it out).
struct kestrel_sparse_desc {
    dnnl_sparse_encoding_t encoding;
    dnnl_dim_t nnz;
    dnnl_data_type_t metadata_types[2];
};

// The layout of an opaque (format_kind opaque) descriptor: Kestrel's packed
// RNN weights, which an int8 RNN offers for weights given as `any` (as
// oneDNN offers its packed RNN weights) and a reorder fills. Each (layer,
// direction) slice holds the int8 GEMM's B panels of `nr` columns over the
// slice's K x N matrix (K input channels, N gates x output channels; groups
// of 4 k), then the N column sums (gemm::s8_plan_t::pack_b_all's layout).
// GRU's iteration weights feed two GEMMs: their slices hold columns
// [0, n_first) packed that way, then, 64-byte aligned, columns [n_first, n).
struct kestrel_rnn_packed_desc {
    int nr; // panel width of the GEMM microkernel the panels are for
    dnnl_dim_t k, n; // one slice's GEMM K and N
    dnnl_dim_t n_first; // columns of the first part (n: one part)
    dnnl_dim_t slice_bytes; // bytes of one slice, a multiple of 64
};

// A value type: copying it copies the whole layout. Handles given to users
// are heap copies of it. `blocking`, `sparse` and `rnn_packed` share
// storage: which one is meaningful follows format_kind (and the descriptor
// keeps its size).
struct dnnl_memory_desc {
    int ndims;
    dnnl_dims_t dims;
    dnnl_data_type_t data_type;
    dnnl_dims_t padded_dims;
    dnnl_dims_t padded_offsets;
    dnnl_dim_t offset0;
    dnnl_format_kind_t format_kind;
    union {
        kestrel_blocking_desc blocking;
        kestrel_sparse_desc sparse;
        kestrel_rnn_packed_desc rnn_packed;
    };
};

namespace kestrel {

using memory_desc_t = dnnl_memory_desc;

// A zeroed descriptor: ndims 0, format undef. Means "no memory" in queries.
memory_desc_t zero_md();

// Builders. All validate their input and return invalid_arguments on
// nonsense (negative dims, ndims out of range, tag whose rank differs...).
status_t md_init_by_tag(memory_desc_t &md, int ndims, const dim_t *dims,
        data_type_t dt, format_tag_t tag);
status_t md_init_by_strides(memory_desc_t &md, int ndims, const dim_t *dims,
        data_type_t dt, const dim_t *strides);
status_t md_init_submemory(memory_desc_t &md, const memory_desc_t &parent,
        const dim_t *dims, const dim_t *offsets);
status_t md_reshape(memory_desc_t &md, const memory_desc_t &src, int ndims,
        const dim_t *dims);
status_t md_permute_axes(memory_desc_t &md, const memory_desc_t &src,
        const int *perm);

// Sparse descriptors (ndims 0 gives the zero descriptor). CSR and COO take
// at most 2 dims (more is unimplemented, as in oneDNN); negative nnz,
// runtime or negative dims and unknown data types are invalid_arguments.
status_t md_init_sparse(memory_desc_t &md, dnnl_sparse_encoding_t encoding,
        int ndims, const dim_t *dims, data_type_t dt, dim_t nnz,
        data_type_t indices_dt, data_type_t pointers_dt);
// Number of data handles a memory object of this descriptor has.
int md_num_handles(const memory_desc_t &md);

// Packed RNN weights (kestrel_rnn_packed_desc) of the 5D ldigo-like dims of
// `like` (data type s8); invalid_arguments unless k is dims[2], n is
// dims[3] x dims[4] and the whole buffer fits in 2^40 bytes.
status_t md_init_rnn_packed(memory_desc_t &md, const memory_desc_t &like, int nr, dim_t k, dim_t n,
        dim_t n_first, dim_t slice_bytes);
inline bool md_is_rnn_packed(const memory_desc_t &md) { return md.format_kind == dnnl_format_kind_opaque; }

// Fills `md` (which must have format_kind any or blocked) with the layout of
// `tag`, keeping dims and data type. Used to resolve format `any`.
status_t md_set_tag(memory_desc_t &md, format_tag_t tag);

// Non-owning view of a descriptor. Every layout question goes through here.
class mdw_t {
public:
    explicit mdw_t(const memory_desc_t *md) : md_(md) {}
    explicit mdw_t(const memory_desc_t &md) : md_(&md) {}

    const memory_desc_t &md() const { return *md_; }
    int ndims() const { return md_->ndims; }
    const dim_t *dims() const { return md_->dims; }
    const dim_t *padded_dims() const { return md_->padded_dims; }
    data_type_t data_type() const { return md_->data_type; }
    size_t dt_size() const { return data_type_size(md_->data_type); }
    const auto &blk() const { return md_->blocking; }

    bool is_zero() const { return md_->ndims == 0; }
    bool is_blocked() const { return md_->format_kind == dnnl_blocked; }
    bool is_any() const { return md_->format_kind == dnnl_format_kind_any; }
    bool is_plain() const { return is_blocked() && blk().inner_nblks == 0; }
    bool is_sparse() const { return md_->format_kind == dnnl_format_kind_sparse; }
    dnnl_sparse_encoding_t encoding() const {
        return is_sparse() ? md_->sparse.encoding : dnnl_sparse_encoding_undef;
    }
    bool has_runtime_dims_or_strides() const;
    bool has_zero_dim() const;

    dim_t nelems(bool with_padding = false) const;
    // Bytes the memory object needs (0 for zero-sized, any or undef); for a
    // sparse descriptor, the bytes of buffer `index` (0 when there is no
    // such buffer, or its size is not known yet).
    size_t size(int index = 0) const;
    // Elements from offset0 to the end of the layout (blocked, known dims).
    dim_t span_elems() const;
    // Total block size of dim d (1 when not blocked).
    dim_t block_of(int d) const;
    // Number of elements in the innermost block (product of inner blocks).
    dim_t inner_block_size() const;
    // True when the physical elements form one contiguous range with no
    // holes, padding included when with_padding.
    bool is_dense(bool with_padding = false) const;
    // True when padded_dims == dims everywhere.
    bool has_padding() const;

    // Physical offset (in elements) of the element at logical index pos[].
    dim_t off_v(const dim_t *pos) const;
    // Same for the l-th element in row-major logical order.
    dim_t off_l(dim_t l) const;

    // True when the layout is exactly what `tag` gives for these dims.
    bool matches_tag(format_tag_t tag) const;
    // True when both layouts place every element at the same offset.
    bool equal(const mdw_t &other) const;
    bool operator==(const mdw_t &other) const { return equal(other); }

private:
    const memory_desc_t *md_;
};

inline bool md_equal(const memory_desc_t &a, const memory_desc_t &b) {
    return mdw_t(a).equal(mdw_t(b));
}

} // namespace kestrel

#endif
