#include "api/api.hpp"
#include "core/md_blob.hpp"
#include "core/memory_desc.hpp"

using namespace kestrel;

namespace {

dnnl_status_t emit(dnnl_memory_desc_t *out, const memory_desc_t &md) {
    auto *h = make_handle<dnnl_memory_desc>(md);
    if (!h) return dnnl_out_of_memory;
    *out = h;
    return dnnl_success;
}

// Format tags checked as raw integers (see raw_enum).
bool valid_tag(const dnnl_format_tag_t &tag) {
    const int v = raw_enum(tag);
    return v >= dnnl_format_tag_undef && v < dnnl_format_tag_last;
}

template <typename T>
dnnl_status_t put(void *result, T v) {
    *static_cast<T *>(result) = v;
    return dnnl_success;
}

} // namespace

extern "C" {

dnnl_status_t dnnl_memory_desc_create_with_tag(dnnl_memory_desc_t *memory_desc, int ndims,
        const dnnl_dims_t dims, dnnl_data_type_t data_type, dnnl_format_tag_t tag) {
    if (!memory_desc || !valid_tag(tag)) return dnnl_invalid_arguments;
    return guard([&] {
        // ndims 0 or tag undef gives the zero descriptor, as oneDNN does.
        if (ndims == 0 || tag == dnnl_format_tag_undef) return emit(memory_desc, zero_md());
        if (!valid_dt(data_type)) return dnnl_invalid_arguments;
        memory_desc_t md;
        KESTREL_CHECK(md_init_by_tag(md, ndims, dims, data_type, tag));
        return emit(memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_create_with_strides(dnnl_memory_desc_t *memory_desc, int ndims,
        const dnnl_dims_t dims, dnnl_data_type_t data_type, const dnnl_dims_t strides) {
    if (!memory_desc || (ndims != 0 && !valid_dt(data_type))) return dnnl_invalid_arguments;
    return guard([&] {
        if (ndims == 0) return emit(memory_desc, zero_md());
        memory_desc_t md;
        KESTREL_CHECK(md_init_by_strides(md, ndims, dims, data_type, strides));
        return emit(memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_create_with_csr_encoding(dnnl_memory_desc_t *memory_desc, int ndims,
        const dnnl_dims_t dims, dnnl_data_type_t data_type, dnnl_dim_t nnz,
        dnnl_data_type_t indices_dt, dnnl_data_type_t pointers_dt) {
    if (!memory_desc) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_init_sparse(md, dnnl_csr, ndims, dims, data_type, nnz, indices_dt, pointers_dt));
        return emit(memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_create_with_coo_encoding(dnnl_memory_desc_t *memory_desc, int ndims,
        const dnnl_dims_t dims, dnnl_data_type_t data_type, dnnl_dim_t nnz,
        dnnl_data_type_t indices_dt) {
    if (!memory_desc) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_init_sparse(md, dnnl_coo, ndims, dims, data_type, nnz, indices_dt,
                dnnl_data_type_undef));
        return emit(memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_create_with_packed_encoding(dnnl_memory_desc_t *memory_desc,
        int ndims, const dnnl_dims_t dims, dnnl_data_type_t data_type, dnnl_dim_t nnz) {
    if (!memory_desc) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_init_sparse(md, dnnl_packed, ndims, dims, data_type, nnz,
                dnnl_data_type_undef, dnnl_data_type_undef));
        return emit(memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_create_submemory(dnnl_memory_desc_t *memory_desc,
        const_dnnl_memory_desc_t parent_memory_desc, const dnnl_dims_t dims,
        const dnnl_dims_t offsets) {
    if (any_null(memory_desc, parent_memory_desc)) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_init_submemory(md, *parent_memory_desc, dims, offsets));
        return emit(memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_reshape(dnnl_memory_desc_t *out_memory_desc,
        const_dnnl_memory_desc_t in_memory_desc, int ndims, const dnnl_dims_t dims) {
    if (any_null(out_memory_desc, in_memory_desc)) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_reshape(md, *in_memory_desc, ndims, dims));
        return emit(out_memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_permute_axes(dnnl_memory_desc_t *out_memory_desc,
        const_dnnl_memory_desc_t in_memory_desc, const int *permutation) {
    if (any_null(out_memory_desc, in_memory_desc, permutation)) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_permute_axes(md, *in_memory_desc, permutation));
        return emit(out_memory_desc, md);
    });
}

dnnl_status_t dnnl_memory_desc_clone(dnnl_memory_desc_t *memory_desc,
        const_dnnl_memory_desc_t existing_memory_desc) {
    if (any_null(memory_desc, existing_memory_desc)) return dnnl_invalid_arguments;
    return emit(memory_desc, *existing_memory_desc);
}

dnnl_status_t dnnl_memory_desc_destroy(dnnl_memory_desc_t memory_desc) {
    delete memory_desc;
    return dnnl_success;
}

dnnl_status_t dnnl_memory_desc_query(const_dnnl_memory_desc_t memory_desc, dnnl_query_t what,
        void *result) {
    if (any_null(memory_desc, result)) return dnnl_invalid_arguments;
    const memory_desc_t &md = *memory_desc;
    const bool blocked = md.format_kind == dnnl_blocked;
    switch (what) {
        case dnnl_query_ndims_s32: return put<int>(result, md.ndims);
        case dnnl_query_dims: return put<const dnnl_dims_t *>(result, &md.dims);
        case dnnl_query_data_type: return put<dnnl_data_type_t>(result, md.data_type);
        case dnnl_query_submemory_offset_s64: return put<dnnl_dim_t>(result, md.offset0);
        case dnnl_query_padded_dims: return put<const dnnl_dims_t *>(result, &md.padded_dims);
        case dnnl_query_padded_offsets: return put<const dnnl_dims_t *>(result, &md.padded_offsets);
        case dnnl_query_format_kind: return put<dnnl_format_kind_t>(result, md.format_kind);
        case dnnl_query_strides:
            if (!blocked) return dnnl_invalid_arguments;
            return put<const dnnl_dims_t *>(result, &md.blocking.strides);
        case dnnl_query_inner_nblks_s32:
            if (!blocked) return dnnl_invalid_arguments;
            return put<int>(result, md.blocking.inner_nblks);
        case dnnl_query_inner_blks:
            if (!blocked) return dnnl_invalid_arguments;
            return put<const dnnl_dims_t *>(result, &md.blocking.inner_blks);
        case dnnl_query_inner_idxs:
            if (!blocked) return dnnl_invalid_arguments;
            return put<const dnnl_dims_t *>(result, &md.blocking.inner_idxs);
        // A valid query that a memory descriptor does not answer.
        default: return dnnl_unimplemented;
    }
}

// Index 0 is the descriptor itself; a sparse descriptor also answers the
// data type of buffer `index` (its values, then its metadata).
dnnl_status_t dnnl_memory_desc_query_v2(const_dnnl_memory_desc_t memory_desc, dnnl_query_t what,
        int index, void *result) {
    if (any_null(memory_desc, result) || index < 0) return dnnl_invalid_arguments;
    const memory_desc_t &md = *memory_desc;
    const bool sparse = md.format_kind == dnnl_format_kind_sparse;
    if (index > 0 && !(sparse && what == dnnl_query_data_type)) return dnnl_invalid_arguments;
    switch (what) {
        case dnnl_query_sparse_encoding:
            if (!sparse) return dnnl_invalid_arguments;
            return put<dnnl_sparse_encoding_t>(result, md.sparse.encoding);
        case dnnl_query_nnz_s64:
            if (!sparse) return dnnl_invalid_arguments;
            return put<dnnl_dim_t>(result, md.sparse.nnz);
        case dnnl_query_num_handles_s32: return put<int>(result, md_num_handles(md));
        case dnnl_query_data_type:
            if (index == 0) return put<dnnl_data_type_t>(result, md.data_type);
            if (index >= md_num_handles(md)) return dnnl_invalid_arguments;
            // COO's index buffers share one type; CSR has indices then pointers.
            return put<dnnl_data_type_t>(result,
                    md.sparse.metadata_types[md.sparse.encoding == dnnl_coo ? 0 : index - 1]);
        default: return dnnl_memory_desc_query(memory_desc, what, result);
    }
}

int dnnl_memory_desc_equal(const_dnnl_memory_desc_t lhs, const_dnnl_memory_desc_t rhs) {
    if (lhs == rhs) return 1;
    if (!lhs || !rhs) return 0;
    return md_equal(*lhs, *rhs) ? 1 : 0;
}

size_t dnnl_memory_desc_get_size(const_dnnl_memory_desc_t memory_desc) {
    return memory_desc ? mdw_t(memory_desc).size() : 0;
}

size_t dnnl_memory_desc_get_size_v2(const_dnnl_memory_desc_t memory_desc, int index) {
    return memory_desc ? mdw_t(memory_desc).size(index) : 0;
}

size_t dnnl_data_type_size(dnnl_data_type_t data_type) {
    return data_type_size(data_type);
}

} // extern "C"

extern "C" {

// A blob of the descriptor (core/md_blob.hpp); a null blob asks its size,
// and *size must then be exactly that size.
dnnl_status_t dnnl_memory_desc_get_blob(uint8_t *blob, size_t *size, const_dnnl_memory_desc_t memory_desc) {
    if (any_null(size, memory_desc)) return dnnl_invalid_arguments;
    return guard([&] {
        const std::vector<uint8_t> b = md_to_blob(*memory_desc);
        if (!blob) {
            *size = b.size();
            return dnnl_success;
        }
        if (*size != b.size()) return dnnl_invalid_arguments;
        std::memcpy(blob, b.data(), b.size());
        return dnnl_success;
    });
}

dnnl_status_t dnnl_memory_desc_create_with_blob(dnnl_memory_desc_t *memory_desc, const uint8_t *blob) {
    if (any_null(memory_desc, blob)) return dnnl_invalid_arguments;
    return guard([&] {
        memory_desc_t md;
        KESTREL_CHECK(md_from_blob(md, blob));
        return emit(memory_desc, md);
    });
}

} // extern "C"
