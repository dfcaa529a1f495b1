// Memory descriptors as self-checking byte blobs (dnnl_memory_desc_get_blob
// and dnnl_memory_desc_create_with_blob).
//
// Layout, every integer little-endian:
//   "KMDB"  magic                      4 bytes
//   u32     format version (1)
//   u32     payload length in bytes
//   payload: i32 ndims, data_type, format_kind; i64 offset0; i64 dims,
//            padded_dims, padded_offsets (ndims each); then, for a sparse
//            format: i32 encoding, i64 nnz, i32 two metadata data types;
//            otherwise: i64 strides (ndims); i32 inner_nblks; i64
//            inner_blks, inner_idxs (inner_nblks each)
//   u64     FNV-1a of everything before it
// Decoding checks the magic, the version, the checksum and then that the
// descriptor is consistent, so a truncated, corrupted or foreign blob is
// refused (as long as the caller's buffer holds the bytes read: the C API
// passes no length).
#ifndef KESTREL_CORE_MD_BLOB_HPP
#define KESTREL_CORE_MD_BLOB_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/memory_desc.hpp"

namespace kestrel {

std::vector<uint8_t> md_to_blob(const memory_desc_t &md);
status_t md_from_blob(memory_desc_t &md, const uint8_t *blob);

} // namespace kestrel

#endif
