#include "core/md_blob.hpp"
#include "core/packed_layout.hpp"

#include <cstring>

namespace kestrel {

using blob::reader_t;
using blob::writer_t;

namespace {

const uint8_t magic[4] = {'K', 'M', 'D', 'B'};
const uint32_t format_version = 1;
const size_t header_bytes = 12, checksum_bytes = 8;
// The largest payload a valid descriptor has: three i32 and an i64, four
// arrays of max_ndims i64, an i32 and two more arrays of max_ndims i64.
const size_t max_payload = 3 * 4 + 8 + 4 * max_ndims * 8 + 4 + 2 * max_ndims * 8;

void write_blocks(writer_t &w, const memory_desc_t &md) {
    const int nb = md.blocking.inner_nblks;
    w.i32(nb);
    for (int i = 0; i < nb; ++i) w.i64(md.blocking.inner_blks[i]);
    for (int i = 0; i < nb; ++i) w.i64(md.blocking.inner_idxs[i]);
}

// A sparse descriptor read back is only used if Kestrel could have made it.
bool read_sparse(reader_t &r, memory_desc_t &m) {
    const int32_t enc = r.i32();
    const dim_t nnz = r.i64();
    const int32_t t0 = r.i32(), t1 = r.i32();
    if (enc < dnnl_csr || enc > dnnl_coo) return false;
    for (int32_t t : {t0, t1})
        if (t < dnnl_data_type_undef || t > dnnl_f4_e3m0) return false;
    for (int d = 0; d < m.ndims; ++d)
        if (m.padded_dims[d] != m.dims[d] || m.padded_offsets[d] != 0) return false;
    if (m.offset0 != 0) return false;
    memory_desc_t check;
    if (md_init_sparse(check, (dnnl_sparse_encoding_t)enc, m.ndims, m.dims, m.data_type, nnz,
                (data_type_t)t0, (data_type_t)t1)
            != status::success)
        return false;
    // A packed descriptor an implementation has laid out.
    if (enc == dnnl_packed && t0 == dnnl_s32 && t1 == dnnl_u8 && packed::lay_out(check) != status::success)
        return false;
    const bool types_match = check.sparse.metadata_types[0] == (data_type_t)t0
            && check.sparse.metadata_types[1] == (data_type_t)t1;
    if (!types_match) return false;
    m = check;
    return true;
}

bool valid_dim(dim_t d) { return d >= 0 || d == DNNL_RUNTIME_DIM_VAL; }

// A decoded descriptor is only used if it could have come from Kestrel.
bool consistent(const memory_desc_t &md) {
    if (md.ndims == 0) return md.format_kind == dnnl_format_kind_undef;
    if (md.ndims < 0 || md.ndims > max_ndims) return false;
    if (md.offset0 < 0 && md.offset0 != DNNL_RUNTIME_DIM_VAL) return false;
    const auto &b = md.blocking;
    if (b.inner_nblks < 0 || b.inner_nblks > max_ndims) return false;
    dim_t block[max_ndims];
    for (int d = 0; d < md.ndims; ++d) block[d] = 1;
    for (int i = 0; i < b.inner_nblks; ++i) {
        if (b.inner_idxs[i] < 0 || b.inner_idxs[i] >= md.ndims || b.inner_blks[i] <= 0
                || b.inner_blks[i] > (dim_t)1 << 20)
            return false;
        block[b.inner_idxs[i]] *= b.inner_blks[i];
    }
    for (int d = 0; d < md.ndims; ++d) {
        if (!valid_dim(md.dims[d]) || !valid_dim(md.padded_dims[d]) || !valid_dim(b.strides[d])) return false;
        if (md.dims[d] == DNNL_RUNTIME_DIM_VAL) continue;
        if (md.padded_dims[d] == DNNL_RUNTIME_DIM_VAL || md.padded_dims[d] < md.dims[d]) return false;
        if (md.padded_offsets[d] < 0 || md.padded_offsets[d] > md.padded_dims[d] - md.dims[d]) return false;
        if (md.format_kind == dnnl_blocked && md.padded_dims[d] % block[d] != 0) return false;
    }
    for (int d = md.ndims; d < max_ndims; ++d)
        if (md.dims[d] || md.padded_dims[d] || md.padded_offsets[d] || b.strides[d]) return false;
    return true;
}

} // namespace

std::vector<uint8_t> md_to_blob(const memory_desc_t &md) {
    std::vector<uint8_t> out(magic, magic + 4);
    writer_t w {out};
    w.u(format_version, 4);
    w.u(0, 4); // payload length, set below
    const int n = md.ndims;
    w.i32(n);
    w.i32(md.data_type);
    w.i32(md.format_kind);
    w.i64(md.offset0);
    for (const dim_t *a : {md.dims, md.padded_dims, md.padded_offsets})
        for (int d = 0; d < n; ++d) w.i64(a[d]);
    if (md.format_kind == dnnl_format_kind_sparse) {
        w.i32(md.sparse.encoding);
        w.i64(md.sparse.nnz);
        w.i32(md.sparse.metadata_types[0]);
        w.i32(md.sparse.metadata_types[1]);
    } else if (md.format_kind == dnnl_format_kind_opaque) {
        w.i32(md.rnn_packed.nr);
        w.i64(md.rnn_packed.k);
        w.i64(md.rnn_packed.n);
        w.i64(md.rnn_packed.n_first);
        w.i64(md.rnn_packed.slice_bytes);
    } else {
        for (int d = 0; d < n; ++d) w.i64(md.blocking.strides[d]);
        write_blocks(w, md);
    }
    const uint32_t len = (uint32_t)(out.size() - header_bytes);
    for (int i = 0; i < 4; ++i) out[8 + i] = (uint8_t)(len >> (8 * i));
    w.u(blob::checksum(out.data(), out.size()), 8);
    return out;
}

status_t md_from_blob(memory_desc_t &md, const uint8_t *blob) {
    if (std::memcmp(blob, magic, 4) != 0) return status::invalid_arguments;
    reader_t h {blob + 4, header_bytes - 4};
    if (h.u(4) != format_version) return status::invalid_arguments;
    const size_t len = (size_t)h.u(4);
    if (len > max_payload) return status::invalid_arguments;
    reader_t c {blob + header_bytes + len, checksum_bytes};
    if (c.u(8) != blob::checksum(blob, header_bytes + len)) return status::invalid_arguments;

    memory_desc_t m = zero_md();
    reader_t r {blob + header_bytes, len};
    m.ndims = r.i32();
    if (m.ndims < 0 || m.ndims > max_ndims) return status::invalid_arguments;
    // Enumerators checked as integers before they become enums.
    const int32_t dt = r.i32(), fk = r.i32();
    if (m.ndims == 0 ? dt != dnnl_data_type_undef || fk != dnnl_format_kind_undef
                     : dt <= dnnl_data_type_undef || dt > dnnl_f4_e3m0
                    || (fk != dnnl_format_kind_any && fk != dnnl_blocked && fk != dnnl_format_kind_sparse
                            && fk != dnnl_format_kind_opaque))
        return status::invalid_arguments;
    m.data_type = (data_type_t)dt;
    m.format_kind = (dnnl_format_kind_t)fk;
    m.offset0 = r.i64();
    for (dim_t *a : {m.dims, m.padded_dims, m.padded_offsets})
        for (int d = 0; d < m.ndims; ++d) a[d] = r.i64();
    if (fk == dnnl_format_kind_sparse) {
        if (!read_sparse(r, m) || !r.ok || r.left != 0) return status::invalid_arguments;
        md = m;
        return status::success;
    }
    if (fk == dnnl_format_kind_opaque) {
        const int nr = r.i32();
        const dim_t k = r.i64(), n = r.i64(), n_first = r.i64(), bytes = r.i64();
        memory_desc_t p;
        if (!r.ok || r.left != 0 || m.data_type != dnnl_s8 || m.offset0 != 0
                || md_init_rnn_packed(p, m, nr, k, n, n_first, bytes) != status::success)
            return status::invalid_arguments;
        for (int d = 0; d < m.ndims; ++d)
            if (m.padded_dims[d] != m.dims[d] || m.padded_offsets[d] != 0) return status::invalid_arguments;
        md = p;
        return status::success;
    }
    for (int d = 0; d < m.ndims; ++d) m.blocking.strides[d] = r.i64();
    m.blocking.inner_nblks = r.i32();
    if (m.blocking.inner_nblks < 0 || m.blocking.inner_nblks > max_ndims) return status::invalid_arguments;
    for (int i = 0; i < m.blocking.inner_nblks; ++i) m.blocking.inner_blks[i] = r.i64();
    for (int i = 0; i < m.blocking.inner_nblks; ++i) m.blocking.inner_idxs[i] = r.i64();
    if (!r.ok || r.left != 0 || !consistent(m)) return status::invalid_arguments;
    md = m;
    return status::success;
}

} // namespace kestrel
