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

// Pieces every Kestrel blob format shares (this one and the primitive
// cache blob, core/prim_blob.hpp): little-endian integers and the checksum.
namespace blob {

// FNV-1a, 64 bits: catches truncation and stray bytes, not an adversary.
inline uint64_t checksum(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

struct writer_t {
    std::vector<uint8_t> &out;
    void u(uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) out.push_back((uint8_t)(v >> (8 * i)));
    }
    void i32(int64_t v) { u((uint64_t)v, 4); }
    void i64(int64_t v) { u((uint64_t)v, 8); }
};

// Reads at most `left` bytes; past them every value is 0 and ok is false.
struct reader_t {
    const uint8_t *p;
    size_t left;
    bool ok = true;
    uint64_t u(int bytes) {
        if (left < (size_t)bytes) {
            ok = false;
            left = 0;
            return 0;
        }
        uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
        p += bytes;
        left -= bytes;
        return v;
    }
    int32_t i32() { return (int32_t)(uint32_t)u(4); }
    int64_t i64() { return (int64_t)u(8); }
};

} // namespace blob

std::vector<uint8_t> md_to_blob(const memory_desc_t &md);
status_t md_from_blob(memory_desc_t &md, const uint8_t *blob);

} // namespace kestrel

#endif
